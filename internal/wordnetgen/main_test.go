package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeDict writes a tiny dict directory: data files carry a licence line and synsets at their
// true byte offsets, as in WordNet.
func writeDict(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	const licence = "  1 licence text  \n"
	dataLines := func(lines ...string) (string, []int) {
		text, offs := licence, []int(nil)
		for _, l := range lines {
			offs = append(offs, len(text))
			text += fmt.Sprintf("%08d %s  \n", len(text), l)
		}
		return text, offs
	}
	noun, n := dataLines("05 n 02 dog 0 Canis_familiaris 0 000 | a dog", "18 n 01 cad 0 000 | a cad")
	// Two adjective synsets, so that long's offset is no noun synset's: each part of speech
	// numbers its own.
	adj, a := dataLines("00 a 01 short 0 000 | short", "00 a 02 long(a) 0 Long 0 000 | long")
	files := map[string]string{
		"data.noun":  noun,
		"data.verb":  licence,
		"data.adj":   adj,
		"data.adv":   licence,
		"index.noun": licence + fmt.Sprintf("cad n 1 0 1 0 %08d  \ndog n 2 1 @ 2 0 %08d %08d  \n", n[1], n[1], n[0]),
		"index.verb": licence,
		"index.adj":  licence + fmt.Sprintf("long a 1 0 1 0 %08d  \n", a[1]),
		"index.adv":  licence,
		"noun.exc":   "dogs dog\n",
		"verb.exc":   "",
		"adj.exc":    "offer off\nlonger long\noffer offer\n",
		"adv.exc":    "",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestGenerate(t *testing.T) {
	dir := writeDict(t)
	gz, err := generate(dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	want := `wordnet-table 1
syn n 2
dog Canis_familiaris
cad
syn v 0
syn a 2
short
long Long
syn r 0
idx n 2
cad 1
dog 1 0
idx v 0
idx a 1
long 1
idx r 0
exc n 1
dogs dog
exc v 0
exc a 2
longer long
offer offer
exc r 0
`
	if string(got) != want {
		t.Errorf("generate() table =\n%s\nwant\n%s", got, want)
	}
	again, err := generate(dir, 4)
	if err != nil || !bytes.Equal(again, gz) {
		t.Errorf("generate() is not deterministic (err %v)", err)
	}
}

// TestGenerateErrors: a dict directory that is not WordNet 3.0 as wordnetgen reads it is an error
// naming the file and where in it, and no table.
func TestGenerateErrors(t *testing.T) {
	for _, tc := range []struct {
		name, file, text string // file's new text, or with text "" no file
		want             string // the error, after the dict directory's path and "/"
	}{
		{"no data file", "data.verb", "", "data.verb: no such file or directory"},
		{"bad data line", "data.adv", "00000000 00 r 01\n", `data.adv: offset 0: bad lemma count "01"`},
		{"no index file", "index.adv", "", "index.adv: no such file or directory"},
		{"short index line", "index.noun", "cad n 1\n", "index.noun:1: short line"},
		{"index pointer count no number", "index.adj", "long a 1 p 1 0 00000019\n", "index.adj:1: malformed"},
		{"index fields after the offsets", "index.adj", "long a 1 0 1 0 00000019 00000019\n", "index.adj:1: malformed"},
		{"index offset no number", "index.adj", "long a 1 0 1 0 x\n", `index.adj:1: strconv.Atoi: parsing "x": invalid syntax`},
		{"index offset no synset", "index.adj", "long a 1 0 1 0 00000001\n", "index.adj:1: no synset at offset 1"},
		{"no exception list", "adv.exc", "", "adv.exc: no such file or directory"},
		{"exception line too long", "verb.exc", "go went\n" + strings.Repeat("x", 1<<22) + "\n", "verb.exc: bufio.Scanner: token too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeDict(t)
			path := filepath.Join(dir, tc.file)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if tc.text != "" {
				if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			gz, err := generate(dir, 4)
			if want := dir + "/" + tc.want; err == nil || !strings.HasSuffix(err.Error(), want) || gz != nil {
				t.Errorf("generate() = %d bytes, %v; want error %q", len(gz), err, want)
			}
		})
	}
	// A database of another number of synsets, more or fewer, is no WordNet 3.0.
	dir := writeDict(t)
	for _, want := range []int{3, 5, wantSynsets} {
		if _, err := generate(dir, want); err == nil || err.Error() != fmt.Sprintf("read 4 synsets, want %d", want) {
			t.Errorf("generate(%d synsets wanted) error %v, want %q", want, err, fmt.Sprintf("read 4 synsets, want %d", want))
		}
	}
}

// TestGenerateEmbedded: WordNet 3.0's dict directory, where it is installed (Debian's
// wordnet-base), gives the table pkg/metric embeds byte for byte.
func TestGenerateEmbedded(t *testing.T) {
	if _, err := os.Stat(filepath.Join(realDict, "data.noun")); err != nil {
		t.Skipf("no WordNet dict at %s: %v", realDict, err)
	}
	want, err := os.ReadFile("../../pkg/metric/wordnet/wordnet.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	got, err := generate(realDict, wantSynsets)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("generate(%s) = %d bytes, not the embedded table's %d; run go generate ./pkg/metric", realDict, len(got), len(want))
	}
}

// TestParseBadLines: lines the fuzz targets found (testdata/fuzz), and others that would index
// past their fields, are errors, not panics or names lost from the table; good lines give their
// names.
func TestParseBadLines(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		off        int
		want       string
	}{
		// FuzzParseDataLine/64afcb6290aaa17c: a negative lemma count made a slice of negative length.
		{"negative lemma count", "15589 0 0 -1", 15589, `bad lemma count "-1"`},
		// FuzzParseDataLine/73d3f3e577dcf73e: a lemma that is a marker alone was an empty name.
		{"marker alone", "123485 0 0 1 () 000000000", 123485, `lemma "()" has no name`},
		{"three fields", "00000000 00 a", 0, "short line"},
		{"offset elsewhere", "00000019 00 a 01 x 0", 20, `offset field "00000019" does not match`},
		{"lemma count beyond the fields", "00000000 00 a 03 x 0 y", 0, `bad lemma count "03"`},
		{"lemma count beyond the fields before the gloss", "00000000 00 a 02 x 0 | y z w", 0, `bad lemma count "02"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if names, err := parseDataLine(tc.line, tc.off); err == nil || err.Error() != tc.want {
				t.Errorf("parseDataLine(%q, %d) = %q, %v, want error %q", tc.line, tc.off, names, err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		line string
		off  int
		want []string
	}{
		{"00000019 00 a 02 long(a) 0 Long(ip) 0 000 | x(y) z", 19, []string{"long", "Long"}},
		// The lemma count is hexadecimal.
		{"00000000 00 n 0a a 0 b 0 c 0 d 0 e 0 f 0 g 0 h 0 i 0 j 0 000 | ten", 0, strings.Fields("a b c d e f g h i j")},
	} {
		if names, err := parseDataLine(tc.line, tc.off); err != nil || !slices.Equal(names, tc.want) {
			t.Errorf("parseDataLine(%q, %d) = %q, %v; want %q", tc.line, tc.off, names, err, tc.want)
		}
	}
	// FuzzWriteIndex/negative_pointer_count: a negative p_cnt let the offsets start before the
	// line's fields.
	path := filepath.Join(t.TempDir(), "index.noun")
	if err := os.WriteFile(path, []byte("x n 10 -8 10 0 1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err, want := writeIndex(&w, path, "n", map[int]int{1: 0, 2: 1}), path+":1: malformed"; err == nil || err.Error() != want {
		t.Errorf("writeIndex(%q) = %v, want %q", "x n 10 -8 10 0 1 2", err, want)
	}
}
