package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// realDict is the WordNet 3.0 dict directory the fuzz targets take seed lines from when it is
// there (Debian's wordnet-base); without it they start from the lines of writeDict.
const realDict = "/usr/share/wordnet"

// dictLines returns up to n lines of the dict file name, from its start (licence lines
// included) and from every 97th line on, or none when the file is not there.
func dictLines(name string, n int) []string {
	data, err := os.ReadFile(filepath.Join(realDict, name))
	if err != nil {
		return nil
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for i := 0; sc.Scan() && len(lines) < n; i++ {
		if i < 30 || i%97 == 0 {
			lines = append(lines, sc.Text())
		}
	}
	return lines
}

// keptLines are the lines readLines keeps of text: not empty, not a licence line (a leading
// space), a trailing carriage return dropped as bufio.ScanLines drops it.
func keptLines(text string) []string {
	var kept []string
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line != "" && !strings.HasPrefix(line, " ") {
			kept = append(kept, line)
		}
	}
	return kept
}

// keptNumbers returns the numbers of the lines of text that keptLines keeps, counted from 1.
func keptNumbers(text string) []int {
	var nums []int
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line != "" && !strings.HasPrefix(line, " ") {
			nums = append(nums, i+1)
		}
	}
	return nums
}

// addDictFiles adds to f's corpus, for each of the dict files names, a text of its dictLines.
func addDictFiles(f *testing.F, names ...string) {
	for _, name := range names {
		if lines := dictLines(name, 40); len(lines) > 0 {
			f.Add(strings.Join(lines, "\n") + "\n")
		}
	}
}

// tempFile returns the path of a file named name in f's temporary directory and a function that
// writes text to it and returns the path (one file for every input: a directory each is slow).
func tempFile(f *testing.F, name string) func(t *testing.T, text string) string {
	path := filepath.Join(f.TempDir(), name)
	return func(t *testing.T, text string) string {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
}

// FuzzParseDataLine: a data line either parses to as many lemma names as its hexadecimal count
// says, each non-empty, without white space, the start of its field with at most a syntactic
// marker "(...)" cut off, no marker left to cut (stripping is idempotent), and re-parsing the
// line rebuilt from them gives them back; or it is refused with one of the documented errors.
func FuzzParseDataLine(f *testing.F) {
	f.Add("00001740 03 n 01 entity 0 003 ~ 00001930 n 0000 | that which is perceived", 1740)
	f.Add("00000000 05 n 02 dog 0 Canis_familiaris 0 000 | a dog", 0)
	f.Add("00000000 00 a 02 long(a) 0 Long 0 000 | long", 0)
	f.Add("00000000 00 a ff x 0", 0)
	f.Add("00000007 00 a 01 x 0", 8)
	f.Add("+8 00 a 01 x(p)(q) 0 | x", 8)
	for _, name := range []string{"data.noun", "data.verb", "data.adj", "data.adv"} {
		for _, line := range dictLines(name, 60) {
			if off, err := strconv.Atoi(strings.SplitN(line, " ", 2)[0]); err == nil {
				f.Add(line, off)
			}
		}
	}
	f.Fuzz(func(t *testing.T, line string, off int) {
		names, err := parseDataLine(line, off)
		if err != nil {
			if msg := err.Error(); msg != "short line" && !strings.HasPrefix(msg, "offset field ") &&
				!strings.HasPrefix(msg, "bad lemma count ") && !strings.HasPrefix(msg, "lemma ") {
				t.Errorf("parseDataLine(%q, %d) error %q, want a documented one", line, off, msg)
			}
			return
		}
		cols, _, _ := strings.Cut(line, "|")
		fields := strings.Fields(cols)
		n, _ := strconv.ParseInt(fields[3], 16, 32)
		if int64(len(names)) != n {
			t.Fatalf("parseDataLine(%q, %d) = %d names, want %d (the count %q)", line, off, len(names), n, fields[3])
		}
		rebuilt := fmt.Sprintf("%d 00 n %02x", off, len(names))
		for i, name := range names {
			field := fields[4+2*i]
			marker, ok := strings.CutPrefix(field, name)
			if name == "" || strings.ContainsAny(name, " \t\n\r\v\f|") || !ok ||
				marker != "" && (!strings.HasPrefix(marker, "(") || !strings.HasSuffix(marker, ")")) {
				t.Errorf("parseDataLine(%q, %d): name %d = %q of field %q", line, off, i, name, field)
			}
			if again := markerRE.FindStringSubmatch(name)[1]; again != name {
				t.Errorf("parseDataLine(%q, %d): name %q stripped again is %q, want it unchanged", line, off, name, again)
			}
			rebuilt += " " + name + " 0"
		}
		again, err := parseDataLine(rebuilt+" 000 | gloss", off)
		if err != nil || !slices.Equal(again, names) {
			t.Errorf("parseDataLine(%q, %d) = %q, %v; want %q, the names of %q", rebuilt, off, again, err, names, line)
		}
	})
}

// FuzzReadData: a data file either reads to one synset per data line, numbered in file order
// and keyed by the byte offset where its line starts, each as parseDataLine reads that line; or
// it is refused at the offset of its first bad data line, named in the error.
func FuzzReadData(f *testing.F) {
	f.Add("  1 licence text  \n00000019 05 n 02 dog 0 Canis_familiaris 0 000 | a dog  \n00000070 18 n 01 cad 0 000 | a cad  \n")
	f.Add("00000000 00 a 01 x 0\r\n00000022 00 a 01 y 0")
	f.Add("00000000 00 a 01 x 0\n00000000 00 a 01 y 0\n")
	f.Add("00000000 00 a 01 x 0\n\n00000022 00 a 01 y 0\n")           // an empty line is no data line
	addDictFiles(f, "data.noun", "data.verb", "data.adj", "data.adv") // the lines after the first 30 are at other offsets
	write := tempFile(f, "data.noun")
	f.Fuzz(func(t *testing.T, text string) {
		path := write(t, text)
		syns, byOffset, err := readData(path)
		// The data lines and where each starts.
		var starts []int
		var lines []string
		for off := 0; off < len(text); {
			end := strings.IndexByte(text[off:], '\n')
			if end < 0 {
				end = len(text) - off
			}
			if line := text[off : off+end]; line != "" && !strings.HasPrefix(line, " ") {
				starts, lines = append(starts, off), append(lines, line)
			}
			off += end + 1
		}
		if err != nil {
			for i, line := range lines {
				if _, lineErr := parseDataLine(line, starts[i]); lineErr != nil {
					if want := fmt.Sprintf("%s: offset %d: %v", path, starts[i], lineErr); err.Error() != want {
						t.Errorf("readData(%q) error %q, want %q", text, err, want)
					}
					return
				}
			}
			t.Fatalf("readData(%q) error %v, but every data line parses", text, err)
		}
		if len(syns) != len(lines) || len(byOffset) != len(lines) {
			t.Fatalf("readData(%q) = %d synsets, %d offsets; want %d, one a data line", text, len(syns), len(byOffset), len(lines))
		}
		for i, off := range starts {
			num, ok := byOffset[off]
			want, _ := parseDataLine(lines[i], off)
			if !ok || num != i || !slices.Equal(syns[num], want) {
				t.Errorf("readData(%q): the line at offset %d is synset %d (%v) holding %q, want synset %d holding %q",
					text, off, num, ok, syns[num], i, want)
			}
		}
	})
}

// FuzzWriteIndex: an index file either writes an idx section of one line per entry (a kept
// line): its lemma, then the synset numbers of its synset_cnt offsets, the entry having exactly
// synset_cnt offsets after its p_cnt pointer symbols and two sense counts; or it is refused with
// an error naming the file and the line of the entry (file:line, counted from 1 among all the
// file's lines).
//
// The synsets are the offsets the text holds (as decimal fields) that 3 does not divide, so that
// both an offset with a synset and one without are found: synset number offset mod 1000.
func FuzzWriteIndex(f *testing.F) {
	f.Add("  1 licence text  \ncad n 1 0 1 0 00000070  \ndog n 2 1 @ 2 0 00000070 00000019  \n")
	f.Add("long a 1 0 1 0 00000001\n")
	f.Add("x n 0 0 0 0\r\ny n 1 0 1 0 2\n")
	f.Add("x n 1 1 @ 1 0 +7 x\n")
	f.Add("cad n 1 0 1 0 00000070\n\ndog n 1 0 1 0 00000019\n") // an empty line is no entry
	addDictFiles(f, "index.noun", "index.verb", "index.adj", "index.adv")
	write := tempFile(f, "index.noun")
	f.Fuzz(func(t *testing.T, text string) {
		byOffset := map[int]int{}
		for field := range strings.FieldsSeq(text) {
			if off, err := strconv.Atoi(field); err == nil && off%3 != 0 {
				byOffset[off] = off % 1000
			}
		}
		path := write(t, text)
		var w bytes.Buffer
		err := writeIndex(&w, path, "n", byOffset)
		kept := keptLines(text)
		if err != nil {
			msg, ok := strings.CutPrefix(err.Error(), path+":")
			num, _, _ := strings.Cut(msg, ": ")
			if k, kerr := strconv.Atoi(num); !ok || kerr != nil || !slices.Contains(keptNumbers(text), k) {
				t.Errorf("writeIndex(%q) error %q, want %q then the number of a kept line %v", text, err, path+":", keptNumbers(text))
			}
			return
		}
		out := strings.Split(strings.TrimSuffix(w.String(), "\n"), "\n")
		if want := fmt.Sprintf("idx n %d", len(kept)); out[0] != want || len(out) != 1+len(kept) {
			t.Fatalf("writeIndex(%q) = %q, want %q and %d lines", text, w.String(), want, len(kept))
		}
		for i, line := range kept {
			fields := strings.Fields(line)
			nsyn, _ := strconv.Atoi(fields[2])
			nptr, _ := strconv.Atoi(fields[3])
			if nsyn < 1 || nptr < 0 || len(fields) != 6+nptr+nsyn {
				t.Errorf("writeIndex(%q) took entry %q: synset_cnt %d, p_cnt %d, %d fields", text, line, nsyn, nptr, len(fields))
				continue
			}
			want := fields[0]
			for _, o := range fields[len(fields)-nsyn:] {
				off, _ := strconv.Atoi(o)
				want += " " + strconv.Itoa(byOffset[off])
			}
			if out[1+i] != want {
				t.Errorf("writeIndex(%q): entry %d written %q, want %q", text, i+1, out[1+i], want)
			}
		}
	})
}

// FuzzWriteExceptions: an exception list writes an exc section of one line per inflected form,
// forms sorted and unique, each line the fields of the last input line for its form joined by
// single spaces; and writing that section's lines again gives the same section (idempotent).
func FuzzWriteExceptions(f *testing.F) {
	f.Add("offer off\nlonger long\noffer offer\n")
	f.Add("dogs dog\n  licence\n\r\nx\ty  z \r\n")
	f.Add("a b\nA c\n\u00e9 e\n")
	f.Add("a b\n\t\nc d\n") // a line of white space alone holds no form
	addDictFiles(f, "noun.exc", "verb.exc", "adj.exc", "adv.exc")
	write := tempFile(f, "adj.exc")
	f.Fuzz(func(t *testing.T, text string) {
		var w bytes.Buffer
		if err := writeExceptions(&w, write(t, text), "a"); err != nil {
			t.Fatal(err)
		}
		last := map[string]string{}
		for _, line := range keptLines(text) {
			if fields := strings.Fields(line); len(fields) > 0 {
				last[fields[0]] = strings.Join(fields, " ")
			}
		}
		out := strings.Split(strings.TrimSuffix(w.String(), "\n"), "\n")
		if want := fmt.Sprintf("exc a %d", len(last)); out[0] != want || len(out) != 1+len(last) {
			t.Fatalf("writeExceptions(%q) = %q, want %q and %d lines", text, w.String(), want, len(last))
		}
		body := out[1:]
		for i, line := range body {
			form, _, _ := strings.Cut(line, " ")
			if last[form] != line || i > 0 && !(strings.SplitN(body[i-1], " ", 2)[0] < form) {
				t.Errorf("writeExceptions(%q): line %d %q, want %q, forms sorted and unique", text, i+1, line, last[form])
			}
		}
		var again bytes.Buffer
		if err := writeExceptions(&again, write(t, strings.Join(body, "\n")+"\n"), "a"); err != nil || again.String() != w.String() {
			t.Errorf("writeExceptions of its own section %q = %q, %v; want it unchanged", w.String(), again.String(), err)
		}
	})
}
