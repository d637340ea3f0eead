package metric

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"
)

//go:generate go run ../../internal/wordnetgen -dict /usr/share/wordnet -out wordnet/wordnet.txt.gz

// wordnetData is Princeton WordNet 3.0 (see wordnet/LICENSE) reduced by internal/wordnetgen to
// what NLTK's synsets(word) needs: index lemmas, synset lemma names and exception lists.
//
//go:embed wordnet/wordnet.txt.gz
var wordnetData []byte

// Parts of speech in NLTK's POS_LIST order, the order synsets(word) visits them.
const (
	posNoun = iota
	posVerb
	posAdj
	posAdv
	numPOS
)

var posLetters = [numPOS]string{"n", "v", "a", "r"}

// wordNet is the decoded table. It is immutable after loading and shared by all callers. It
// holds no pointers but those to its few arrays, so the garbage collector does not trace it.
//
// Note: METEOR, the only user, needs of a lemma's synsets only the set of their lemma names
// without '_'. So the loader keeps, per index entry and part of speech, that set as one
// contiguous list of interned name ids: a lookup reads one slice instead of chasing every
// synset, and a synonym test is an integer comparison.
type wordNet struct {
	dict       wnDict        // index lemmas, names and inflected forms
	nLemmas    int           // index entries, numbered 0 to nLemmas-1
	nNames     int           // name ids, numbered 0 to nNames-1
	maxLen     int           // length of the longest index lemma
	posMask    []uint8       // entry e -> bit p set when e is a lemma of pos p
	nameOff    []uint32      // names of entry e, pos p: entryNames[nameOff[4e+p]:nameOff[4e+p+1]]
	entryNames []uint32      // name ids, distinct within each entry and pos
	exc        []wnException // exception number -> base forms per pos
	excBases   []uint32      // index entries of the base forms of exceptions
	nSynsets   int
}

// wnException holds the exception-list entries of one inflected form. For each pos p in has,
// its base forms that are index lemmas (of any pos) are the entries
// excBases[bases[p][0]:bases[p][1]], in the list's order; the other bases can never be found,
// so the loader drops them.
type wnException struct {
	has   uint8 // bit p: the form is in pos p's list (its bases may still be none)
	bases [numPOS][2]uint32
}

// loadWordNet decodes the embedded table on first use; the table is checked in, so a decoding
// error is a build defect and panics.
var loadWordNet = sync.OnceValue(func() *wordNet {
	wn, err := decodeWordNet(wordnetData)
	if err != nil {
		panic(fmt.Sprintf("metric: embedded wordnet table: %v", err))
	}
	return wn
})

// wnDecoder walks the lines of the decompressed table. Lines and fields are substrings of one
// string, so decoding allocates little beyond the tables; the dict copies the keys it keeps, so
// the text is garbage once decoded.
type wnDecoder struct {
	text string
	off  int
	line int
}

func (d *wnDecoder) next() (string, error) {
	if d.off >= len(d.text) {
		return "", fmt.Errorf("line %d: unexpected end", d.line+1)
	}
	d.line++
	end := strings.IndexByte(d.text[d.off:], '\n')
	if end < 0 {
		end = len(d.text) - d.off
	}
	line := d.text[d.off : d.off+end]
	d.off += end + 1
	return line, nil
}

// header reads a section header "kind pos count" and checks kind and pos.
func (d *wnDecoder) header(kind string, p int) (int, error) {
	line, err := d.next()
	if err != nil {
		return 0, err
	}
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != kind || f[1] != posLetters[p] {
		return 0, fmt.Errorf("line %d: got %q, want %s %s header", d.line, line, kind, posLetters[p])
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, fmt.Errorf("line %d: %w", d.line, err)
	}
	return n, nil
}

// ahead returns the text of the next n lines, or of those left if fewer, and how many lines
// that is.
func (d *wnDecoder) ahead(n int) (string, int) {
	end, k := d.off, 0
	for ; k < n && end < len(d.text); k++ {
		j := strings.IndexByte(d.text[end:], '\n')
		if j < 0 {
			return d.text[d.off:], k + 1
		}
		end += j + 1
	}
	return d.text[d.off:end], k
}

// section yields the lines of a section, after its header "kind pos count". It first passes
// the number of those lines and their text to sized, if not nil, so that the caller can make
// room for what it builds from them (a count past the end of the text is not believed), and
// stops at an error of the text, which it puts in *err.
func (d *wnDecoder) section(kind string, p int, sized func(n int, body string), err *error) iter.Seq[string] {
	return func(yield func(string) bool) {
		n, e := d.header(kind, p)
		if e != nil {
			*err = e
			return
		}
		if sized != nil {
			body, k := d.ahead(n)
			sized(k, body)
		}
		for range n {
			line, e := d.next()
			if e != nil {
				*err = e
				return
			}
			if !yield(line) {
				return
			}
		}
	}
}

func decodeWordNet(gz []byte) (*wordNet, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	var text strings.Builder
	if n := len(gz); n >= 4 {
		// gzip's trailer ends with the input's size (mod 2^32): growing the text to it once
		// saves copying it over and over as it grows. It is only a hint.
		text.Grow(int(min(binary.LittleEndian.Uint32(gz[n-4:]), 1<<26)))
	}
	if _, err := io.Copy(&text, zr); err != nil {
		return nil, err
	}
	d := &wnDecoder{text: text.String()}
	if line, err := d.next(); err != nil || line != "wordnet-table 1" {
		return nil, fmt.Errorf("bad header %q (%v)", line, err)
	}
	wn := &wordNet{dict: newDict(170000)} // WordNet 3.0 has 168,057 keys; more would grow it
	var b wnBuild
	for p := range numPOS {
		if err := wn.decodeSynsets(d, p, &b); err != nil {
			return nil, err
		}
	}
	b.synName = append(b.synName, uint32(len(b.nameIDs)))
	wn.nSynsets = len(b.synName) - 1
	for p := range numPOS {
		if err := wn.decodeIndex(d, p, &b); err != nil {
			return nil, err
		}
	}
	wn.collectNames(&b)
	for p := range numPOS {
		if err := wn.decodeExceptions(d, p); err != nil {
			return nil, err
		}
	}
	return wn, nil
}

// wnBuild holds what decoding needs before the entries' name lists are packed.
type wnBuild struct {
	base    [numPOS]uint32 // first global synset number of each pos
	synName []uint32       // names of synset s: nameIDs[synName[s]:synName[s+1]]
	nameIDs []uint32
	lines   [numPOS][]wnIndexLine // the index lines of each pos
	flat    [numPOS][]uint32      // global synset numbers
}

// wnIndexLine is an index line: its entry and its synsets, flat[p][start:end].
type wnIndexLine struct{ entry, start, end uint32 }

func (wn *wordNet) decodeSynsets(d *wnDecoder, p int, b *wnBuild) error {
	var err error
	b.base[p] = uint32(len(b.synName))
	sized := func(n int, body string) {
		b.synName = slices.Grow(b.synName, n)
		b.nameIDs = slices.Grow(b.nameIDs, n+strings.Count(body, " ")) // names: a line's spaces and one
	}
	for line := range d.section("syn", p, sized, &err) {
		b.synName = append(b.synName, uint32(len(b.nameIDs)))
		for name := range strings.FieldsSeq(line) {
			if strings.IndexByte(name, '_') >= 0 {
				continue
			}
			k := wn.dict.insert(name)
			if k.name < 0 {
				k.name = int32(wn.nNames)
				wn.nNames++
			}
			b.nameIDs = append(b.nameIDs, uint32(k.name))
		}
	}
	return err
}

func (wn *wordNet) decodeIndex(d *wnDecoder, p int, b *wnBuild) error {
	var err error
	sized := func(n int, body string) {
		b.lines[p] = make([]wnIndexLine, 0, n)
		b.flat[p] = make([]uint32, 0, strings.Count(body, " ")) // a synset number after each space
	}
	for line := range d.section("idx", p, sized, &err) {
		lemma, rest, ok := strings.Cut(line, " ")
		if !ok {
			return fmt.Errorf("line %d: index entry without synsets", d.line)
		}
		k := wn.dict.insert(lemma)
		if k.entry < 0 {
			wn.maxLen = max(wn.maxLen, len(lemma))
			k.entry = int32(wn.nLemmas)
			wn.nLemmas++
		}
		start := uint32(len(b.flat[p]))
		for f := range strings.FieldsSeq(rest) {
			k, err := strconv.ParseUint(f, 10, 32)
			if err != nil || int(b.base[p])+int(k) >= wn.nSynsets {
				return fmt.Errorf("line %d: bad synset number %q", d.line, f)
			}
			b.flat[p] = append(b.flat[p], b.base[p]+uint32(k))
		}
		b.lines[p] = append(b.lines[p], wnIndexLine{uint32(k.entry), start, uint32(len(b.flat[p]))})
	}
	return err
}

// collectNames packs, for every entry and pos, the distinct names of its synsets.
func (wn *wordNet) collectNames(b *wnBuild) {
	n := wn.nLemmas
	wn.posMask = make([]uint8, n)
	wn.nameOff = make([]uint32, 0, numPOS*n+1)
	// line[numPOS*e+p] is the number + 1 of entry e's index line in pos p, 0 for none; a later
	// line for the same lemma replaces an earlier one.
	line := make([]uint32, numPOS*n)
	for p := range numPOS {
		for i, l := range b.lines[p] {
			line[numPOS*int(l.entry)+p] = uint32(i + 1)
		}
	}
	stamp := make([]uint32, wn.nNames) // list number + 1 that last took each name
	for e := range n {
		for p := range numPOS {
			list := uint32(len(wn.nameOff) + 1)
			wn.nameOff = append(wn.nameOff, uint32(len(wn.entryNames)))
			i := line[numPOS*e+p]
			if i == 0 || b.lines[p][i-1].start == b.lines[p][i-1].end {
				continue
			}
			wn.posMask[e] |= 1 << p
			l := b.lines[p][i-1]
			for _, s := range b.flat[p][l.start:l.end] {
				for _, id := range b.nameIDs[b.synName[s]:b.synName[s+1]] {
					if stamp[id] != list {
						stamp[id] = list
						wn.entryNames = append(wn.entryNames, id)
					}
				}
			}
		}
	}
	wn.nameOff = append(wn.nameOff, uint32(len(wn.entryNames)))
}

func (wn *wordNet) decodeExceptions(d *wnDecoder, p int) error {
	var err error
	sized := func(n int, body string) {
		wn.exc = slices.Grow(wn.exc, n)
		wn.excBases = slices.Grow(wn.excBases, strings.Count(body, " ")) // a base after each space
	}
	for line := range d.section("exc", p, sized, &err) {
		f := strings.Fields(line)
		if len(f) == 0 {
			return fmt.Errorf("line %d: empty exception", d.line)
		}
		k := wn.dict.insert(f[0])
		if k.exc < 0 {
			k.exc = int32(len(wn.exc))
			wn.exc = append(wn.exc, wnException{})
		}
		x := &wn.exc[k.exc]
		x.has |= 1 << p
		x.bases[p][0] = uint32(len(wn.excBases))
		for _, base := range f[1:] {
			if e := wn.lemma(base); e >= 0 {
				wn.excBases = append(wn.excBases, uint32(e))
			}
		}
		x.bases[p][1] = uint32(len(wn.excBases))
	}
	return err
}

// lemma returns the index entry of lemma, -1 if it is none.
func (wn *wordNet) lemma(lemma string) int32 {
	if k := find(&wn.dict, lemma, strHash(lemma)); k != nil {
		return k.entry
	}
	return -1
}

// excBasesOf returns the index entries of the base forms of exception x, pos p.
func (wn *wordNet) excBasesOf(x *wnException, p int) []uint32 {
	return wn.excBases[x.bases[p][0]:x.bases[p][1]]
}

// hasPOS reports whether index entry e is a lemma of pos p.
func (wn *wordNet) hasPOS(e uint32, p int) bool { return wn.posMask[e]&(1<<p) != 0 }

// entryNamesOf returns the distinct lemma names (without '_') of the synsets of entry e, pos p.
func (wn *wordNet) entryNamesOf(e uint32, p int) []uint32 {
	i := numPOS*int(e) + p
	return wn.entryNames[wn.nameOff[i]:wn.nameOff[i+1]]
}

// numSynsets returns how many synsets the table holds.
func (wn *wordNet) numSynsets() int { return wn.nSynsets }
