package metric

import (
	"bufio"
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

// wnDecoder reads the lines of the table as they are decompressed, so that the 5.5 MB text is
// never held whole: a line is valid until the next is read, and the dict copies the keys it keeps.
//
// Note: the decoder held the whole text once, and sized each section's arrays from its lines; the
// text was a fifth of what loading allocated, and on a virtual machine whose page faults are dear
// every page first touched shows in the time a run waits for its first METEOR score.
type wnDecoder struct {
	r    *bufio.Reader
	line int
}

// next returns the next line, without its newline.
func (d *wnDecoder) next() ([]byte, error) {
	d.line++
	line, err := d.r.ReadSlice('\n')
	switch {
	case err == nil:
		return line[:len(line)-1], nil
	case err == io.EOF && len(line) > 0: // the last line, unterminated
		return line, nil
	case err == io.EOF:
		return nil, fmt.Errorf("line %d: unexpected end", d.line)
	case err == bufio.ErrBufferFull:
		return nil, fmt.Errorf("line %d: longer than %d bytes", d.line, d.r.Size())
	}
	return nil, fmt.Errorf("line %d: %w", d.line, err)
}

// header reads a section header "kind pos count" and checks kind and pos.
func (d *wnDecoder) header(kind string, p int) (int, error) {
	line, err := d.next()
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(line))
	if len(f) != 3 || f[0] != kind || f[1] != posLetters[p] {
		return 0, fmt.Errorf("line %d: got %q, want %s %s header", d.line, line, kind, posLetters[p])
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, fmt.Errorf("line %d: %w", d.line, err)
	}
	return n, nil
}

// maxSized bounds the line count a section's header may make room for: WordNet 3.0's largest
// section has 117,798 lines, and a damaged count past it must not allocate hundreds of MB before
// the text is found too short.
const maxSized = 1 << 18

// section yields the lines of a section, after its header "kind pos count". It first passes
// that count (at most maxSized) to sized, so that the caller can make room for what it builds
// from the lines, and stops at an error of the text, which it puts in *err.
func (d *wnDecoder) section(kind string, p int, sized func(n int), err *error) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		n, e := d.header(kind, p)
		if e != nil {
			*err = e
			return
		}
		sized(min(max(n, 0), maxSized))
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
	// Chunks of 256 KiB, or fewer bytes for a small text, as its gzip trailer gives its length
	// (a wrong one costs only time), so that decoding a small table does not allocate 768 KiB.
	size := int64(binary.LittleEndian.Uint32(gz[len(gz)-4:])) // NewReader has read a 10-byte header
	ahead := newAheadReader(zr, int(min(max(size, 4096), 1<<18)), 2)
	defer ahead.Close()
	d := &wnDecoder{r: bufio.NewReaderSize(ahead, 1<<16)}
	if line, err := d.next(); err != nil || string(line) != "wordnet-table 1" {
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
	// Read to the end of the gzip stream, where its checksum is checked.
	if _, err := io.Copy(io.Discard, d.r); err != nil {
		return nil, fmt.Errorf("after line %d: %w", d.line, err)
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
	sized := func(n int) {
		b.synName = slices.Grow(b.synName, n)
		b.nameIDs = slices.Grow(b.nameIDs, 2*n) // WordNet 3.0's synsets have 1.4 to 1.6 names a line without '_'
	}
	for line := range d.section("syn", p, sized, &err) {
		b.synName = append(b.synName, uint32(len(b.nameIDs)))
		for name := range bytes.FieldsSeq(line) {
			if bytes.IndexByte(name, '_') >= 0 {
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
	sized := func(n int) {
		b.lines[p] = make([]wnIndexLine, 0, n)
		b.flat[p] = make([]uint32, 0, 2*n) // WordNet 3.0's lemmas have 1.2 to 2.2 synsets a part of speech
	}
	for line := range d.section("idx", p, sized, &err) {
		lemma, rest, ok := bytes.Cut(line, []byte(" "))
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
		for f := range bytes.FieldsSeq(rest) {
			k, err := strconv.ParseUint(string(f), 10, 32)
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
	// Until its list is packed, nameOff[numPOS*e+p] holds the number + 1 of entry e's index line
	// in pos p, 0 for none (a later line for the same lemma replaces an earlier one): the packing
	// reads each before it writes it. Room for the names is their count with repeats.
	wn.nameOff = make([]uint32, numPOS*n+1)
	names := 0
	for p := range numPOS {
		for i, l := range b.lines[p] {
			wn.nameOff[numPOS*int(l.entry)+p] = uint32(i + 1)
			for _, s := range b.flat[p][l.start:l.end] {
				names += int(b.synName[s+1] - b.synName[s])
			}
		}
	}
	wn.entryNames = make([]uint32, 0, names)
	stamp := make([]uint32, wn.nNames) // list number + 1 that last took each name
	for i := range numPOS * n {
		line := wn.nameOff[i]
		wn.nameOff[i] = uint32(len(wn.entryNames))
		if line == 0 {
			continue
		}
		e, p := i/numPOS, i%numPOS
		l := b.lines[p][line-1]
		if l.start == l.end {
			continue
		}
		wn.posMask[e] |= 1 << p
		for _, s := range b.flat[p][l.start:l.end] {
			for _, id := range b.nameIDs[b.synName[s]:b.synName[s+1]] {
				if stamp[id] != uint32(i+1) {
					stamp[id] = uint32(i + 1)
					wn.entryNames = append(wn.entryNames, id)
				}
			}
		}
	}
	wn.nameOff[numPOS*n] = uint32(len(wn.entryNames))
}

func (wn *wordNet) decodeExceptions(d *wnDecoder, p int) error {
	var err error
	sized := func(n int) {
		wn.exc = slices.Grow(wn.exc, n)
		wn.excBases = slices.Grow(wn.excBases, n) // WordNet 3.0's exception forms have one base, a few two
	}
	for line := range d.section("exc", p, sized, &err) {
		f := bytes.Fields(line)
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
			if e := wn.lemma(string(base)); e >= 0 {
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
