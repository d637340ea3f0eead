package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	adj, a := dataLines("00 a 02 long(a) 0 Long 0 000 | long")
	files := map[string]string{
		"data.noun":  noun,
		"data.verb":  licence,
		"data.adj":   adj,
		"data.adv":   licence,
		"index.noun": licence + fmt.Sprintf("cad n 1 0 1 0 %08d  \ndog n 2 1 @ 2 0 %08d %08d  \n", n[1], n[1], n[0]),
		"index.verb": licence,
		"index.adj":  licence + fmt.Sprintf("long a 1 0 1 0 %08d  \n", a[0]),
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
	gz, err := generate(dir, 3)
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
syn a 1
long Long
syn r 0
idx n 2
cad 1
dog 1 0
idx v 0
idx a 1
long 0
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
	again, err := generate(dir, 3)
	if err != nil || !bytes.Equal(again, gz) {
		t.Errorf("generate() is not deterministic (err %v)", err)
	}
}

func TestGenerateErrors(t *testing.T) {
	dir := writeDict(t)
	if _, err := generate(dir, 117659); err == nil {
		t.Error("generate() with the wrong synset count succeeded, want an error")
	}
	bad := filepath.Join(dir, "index.adj")
	if err := os.WriteFile(bad, []byte("long a 1 0 1 0 00000001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := generate(dir, 3); err == nil {
		t.Error("generate() with an index offset that is no synset succeeded, want an error")
	}
}

// TestParseBadLines: lines the fuzz targets found (testdata/fuzz) are errors, not panics or
// names lost from the table.
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			if names, err := parseDataLine(tc.line, tc.off); err == nil || err.Error() != tc.want {
				t.Errorf("parseDataLine(%q, %d) = %q, %v, want error %q", tc.line, tc.off, names, err, tc.want)
			}
		})
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
