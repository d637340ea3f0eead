// Command wordnetgen turns a Princeton WordNet 3.0 dict directory (index.*, data.*, *.exc, as
// shipped by Debian's wordnet-base under /usr/share/wordnet) into the compact gzip'ed table that
// pkg/metric embeds for METEOR's synonym stage.
//
// The table keeps exactly what NLTK's WordNetCorpusReader.synsets(word) needs with pos=None:
// per part of speech the index lemmas with their synset numbers (index order), each synset's
// lemma names (data file order, syntactic markers such as "(a)" removed, case kept) and the
// exception lists (a later line for the same form replaces an earlier one, as NLTK's dict does).
//
// Output format (text, one record a line, then gzip):
//
//	wordnet-table 1
//	syn <pos> <count>        then <count> lines: the lemma names of one synset, space-separated
//	idx <pos> <count>        then <count> lines: lemma, then synset numbers local to <pos>
//	exc <pos> <count>        then <count> lines: inflected form, then its base forms
//
// Sections come in the order n, v, a, r for each kind. The output is deterministic: inputs are
// read in file order, exception forms are sorted, and the gzip header carries no name or time.
//
// Usage:
//
//	go run ./internal/wordnetgen -dict /usr/share/wordnet -out pkg/metric/wordnet/wordnet.txt.gz
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// posFiles lists the parts of speech in NLTK's POS_LIST order with their file suffixes.
var posFiles = []struct{ pos, suffix string }{
	{"n", "noun"}, {"v", "verb"}, {"a", "adj"}, {"r", "adv"},
}

// wantSynsets is the number of synsets in WordNet 3.0; anything else means a different database.
const wantSynsets = 117659

// markerRE splits a data-file lemma into its name and an optional syntactic marker, like NLTK's
// r"(.*?)(\(.*\))?$".
var markerRE = regexp.MustCompile(`^(.*?)(\(.*\))?$`)

func main() {
	dict := flag.String("dict", "/usr/share/wordnet", "WordNet 3.0 dict directory")
	out := flag.String("out", "wordnet/wordnet.txt.gz", "output file")
	flag.Parse()
	gz, err := generate(*dict, wantSynsets)
	if err == nil {
		err = os.WriteFile(*out, gz, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "wordnetgen:", err)
		os.Exit(1)
	}
}

// generate reads the dict directory and returns the gzip'ed table; the database must hold
// want synsets.
func generate(dict string, want int) ([]byte, error) {
	var text bytes.Buffer
	text.WriteString("wordnet-table 1\n")
	offsets := make(map[string]map[int]int) // pos -> byte offset -> local synset number
	total := 0
	for _, pf := range posFiles {
		syns, byOffset, err := readData(filepath.Join(dict, "data."+pf.suffix))
		if err != nil {
			return nil, err
		}
		offsets[pf.pos] = byOffset
		total += len(syns)
		fmt.Fprintf(&text, "syn %s %d\n", pf.pos, len(syns))
		for _, names := range syns {
			text.WriteString(strings.Join(names, " "))
			text.WriteByte('\n')
		}
	}
	if total != want {
		return nil, fmt.Errorf("read %d synsets, want %d", total, want)
	}
	for _, pf := range posFiles {
		if err := writeIndex(&text, filepath.Join(dict, "index."+pf.suffix), pf.pos, offsets[pf.pos]); err != nil {
			return nil, err
		}
	}
	for _, pf := range posFiles {
		if err := writeExceptions(&text, filepath.Join(dict, pf.suffix+".exc"), pf.pos); err != nil {
			return nil, err
		}
	}
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(text.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return gz.Bytes(), nil
}

// line is one line of a dict file and its number, counted from 1 among all the file's lines.
type line struct {
	n    int
	text string
}

// readLines returns the lines of a file that are not part of the licence header (NLTK skips
// lines starting with a space), with their numbers for errors.
func readLines(path string) ([]line, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []line
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for n := 1; sc.Scan(); n++ {
		if text := sc.Text(); text != "" && !strings.HasPrefix(text, " ") {
			lines = append(lines, line{n, text})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return lines, nil
}

// readData parses a data.* file: the lemma names of every synset in offset order, and a map from
// byte offset to the synset's position in that order.
func readData(path string) ([][]string, map[int]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var syns [][]string
	byOffset := make(map[int]int)
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data) - off
		}
		line := string(data[off : off+end])
		lineOff := off
		off += end + 1
		if strings.HasPrefix(line, " ") || line == "" {
			continue
		}
		names, err := parseDataLine(line, lineOff)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: offset %d: %w", path, lineOff, err)
		}
		byOffset[lineOff] = len(syns)
		syns = append(syns, names)
	}
	return syns, byOffset, nil
}

// parseDataLine returns the lemma names of one data line and checks its offset field.
func parseDataLine(line string, off int) ([]string, error) {
	cols, _, _ := strings.Cut(line, "|")
	f := strings.Fields(cols)
	if len(f) < 4 {
		return nil, errors.New("short line")
	}
	if got, err := strconv.Atoi(f[0]); err != nil || got != off {
		return nil, fmt.Errorf("offset field %q does not match", f[0])
	}
	n, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil || n < 0 || len(f) < 4+2*int(n) {
		return nil, fmt.Errorf("bad lemma count %q", f[3])
	}
	names := make([]string, n)
	for i := range names {
		// A lemma that is a marker alone would be no name in the table, whose names are
		// separated by spaces: the synset would lose it.
		if names[i] = markerRE.FindStringSubmatch(f[4+2*i])[1]; names[i] == "" {
			return nil, fmt.Errorf("lemma %q has no name", f[4+2*i])
		}
	}
	return names, nil
}

// writeIndex writes the idx section of one part of speech, with synset byte offsets replaced by
// synset numbers local to the part of speech.
func writeIndex(w *bytes.Buffer, path, pos string, byOffset map[int]int) error {
	lines, err := readLines(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "idx %s %d\n", pos, len(lines))
	for _, l := range lines {
		f := strings.Fields(l.text)
		if len(f) < 4 {
			return fmt.Errorf("%s:%d: short line", path, l.n)
		}
		nsyn, err1 := strconv.Atoi(f[2])
		nptr, err2 := strconv.Atoi(f[3])
		if err := errors.Join(err1, err2); err != nil || nsyn <= 0 || nptr < 0 || len(f) != 4+nptr+2+nsyn {
			return fmt.Errorf("%s:%d: malformed", path, l.n)
		}
		w.WriteString(f[0])
		for _, o := range f[len(f)-nsyn:] {
			off, err := strconv.Atoi(o)
			if err != nil {
				return fmt.Errorf("%s:%d: %w", path, l.n, err)
			}
			num, ok := byOffset[off]
			if !ok {
				return fmt.Errorf("%s:%d: no synset at offset %d", path, l.n, off)
			}
			w.WriteByte(' ')
			w.WriteString(strconv.Itoa(num))
		}
		w.WriteByte('\n')
	}
	return nil
}

// writeExceptions writes the exc section of one part of speech, forms sorted.
func writeExceptions(w *bytes.Buffer, path, pos string) error {
	lines, err := readLines(path)
	if err != nil {
		return err
	}
	exc := make(map[string]string)
	for _, l := range lines {
		f := strings.Fields(l.text)
		if len(f) == 0 {
			continue
		}
		exc[f[0]] = strings.Join(f, " ") // a later line replaces an earlier one
	}
	forms := make([]string, 0, len(exc))
	for form := range exc {
		forms = append(forms, form)
	}
	slices.Sort(forms)
	fmt.Fprintf(w, "exc %s %d\n", pos, len(forms))
	for _, form := range forms {
		w.WriteString(exc[form])
		w.WriteByte('\n')
	}
	return nil
}
