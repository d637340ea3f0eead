package metric

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
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

// wordNet is the decoded table. It is immutable after loading and shared by all callers.
//
// Note: synset lemma names containing '_' are dropped at load time, since METEOR (the only user)
// ignores them; names are interned to ids so that a synonym test is an integer comparison.
type wordNet struct {
	lemmas  map[string]uint32       // index lemma -> entry number e
	maxLen  int                     // length of the longest index lemma
	entries []uint32                // synsets of entry e and pos p: synsets[entries[4e+p]:entries[4e+p+1]]
	synsets []uint32                // global synset numbers
	synName []uint32                // names of synset s: nameIDs[synName[s]:synName[s+1]]
	nameIDs []uint32                // interned lemma names
	names   map[string]uint32       // lemma name without '_' -> id
	exc     map[string]*wnException // inflected form -> base forms per pos
}

// wnException holds the exception-list entries of one inflected form.
type wnException struct {
	has   [numPOS]bool // the form is in the pos's list (its base list may still be empty)
	bases [numPOS][]string
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
// string, so decoding allocates little beyond the maps.
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

func decodeWordNet(gz []byte) (*wordNet, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	var text strings.Builder
	if _, err := io.Copy(&text, zr); err != nil {
		return nil, err
	}
	d := &wnDecoder{text: text.String()}
	if line, err := d.next(); err != nil || line != "wordnet-table 1" {
		return nil, fmt.Errorf("bad header %q (%v)", line, err)
	}
	wn := &wordNet{lemmas: make(map[string]uint32, 150000), names: make(map[string]uint32, 150000)}
	var base [numPOS]uint32 // first global synset number of each pos
	for p := range numPOS {
		if err := wn.decodeSynsets(d, p, &base); err != nil {
			return nil, err
		}
	}
	wn.synName = append(wn.synName, uint32(len(wn.nameIDs)))
	var ix wnIndex
	for p := range numPOS {
		if err := wn.decodeIndex(d, p, base, &ix); err != nil {
			return nil, err
		}
	}
	wn.flattenIndex(&ix)
	for p := range numPOS {
		if err := wn.decodeExceptions(d, p); err != nil {
			return nil, err
		}
	}
	return wn, nil
}

func (wn *wordNet) decodeSynsets(d *wnDecoder, p int, base *[numPOS]uint32) error {
	n, err := d.header("syn", p)
	if err != nil {
		return err
	}
	base[p] = uint32(len(wn.synName))
	for range n {
		line, err := d.next()
		if err != nil {
			return err
		}
		wn.synName = append(wn.synName, uint32(len(wn.nameIDs)))
		for name := range strings.FieldsSeq(line) {
			if strings.IndexByte(name, '_') >= 0 {
				continue
			}
			id, ok := wn.names[name]
			if !ok {
				id = uint32(len(wn.names))
				wn.names[name] = id
			}
			wn.nameIDs = append(wn.nameIDs, id)
		}
	}
	return nil
}

// wnIndex collects the index sections before they are packed: per entry and pos a span of
// flat[pos].
type wnIndex struct {
	spans [][numPOS][2]uint32
	flat  [numPOS][]uint32
}

func (wn *wordNet) decodeIndex(d *wnDecoder, p int, base [numPOS]uint32, ix *wnIndex) error {
	n, err := d.header("idx", p)
	if err != nil {
		return err
	}
	total := uint32(wn.numSynsets())
	for range n {
		line, err := d.next()
		if err != nil {
			return err
		}
		lemma, rest, ok := strings.Cut(line, " ")
		if !ok {
			return fmt.Errorf("line %d: index entry without synsets", d.line)
		}
		e, ok := wn.lemmas[lemma]
		if !ok {
			wn.maxLen = max(wn.maxLen, len(lemma))
			e = uint32(len(ix.spans))
			wn.lemmas[lemma] = e
			ix.spans = append(ix.spans, [numPOS][2]uint32{})
		}
		start := uint32(len(ix.flat[p]))
		for f := range strings.FieldsSeq(rest) {
			k, err := strconv.ParseUint(f, 10, 32)
			if err != nil || base[p]+uint32(k) >= total {
				return fmt.Errorf("line %d: bad synset number %q", d.line, f)
			}
			ix.flat[p] = append(ix.flat[p], base[p]+uint32(k))
		}
		ix.spans[e][p] = [2]uint32{start, uint32(len(ix.flat[p]))}
	}
	return nil
}

// flattenIndex packs the per-pos synset lists of every entry into wn.entries and wn.synsets.
func (wn *wordNet) flattenIndex(ix *wnIndex) {
	wn.entries = make([]uint32, 0, numPOS*len(ix.spans)+1)
	for _, sp := range ix.spans {
		for p := range numPOS {
			wn.entries = append(wn.entries, uint32(len(wn.synsets)))
			wn.synsets = append(wn.synsets, ix.flat[p][sp[p][0]:sp[p][1]]...)
		}
	}
	wn.entries = append(wn.entries, uint32(len(wn.synsets)))
}

func (wn *wordNet) decodeExceptions(d *wnDecoder, p int) error {
	n, err := d.header("exc", p)
	if err != nil {
		return err
	}
	if wn.exc == nil {
		wn.exc = make(map[string]*wnException, 6000)
	}
	for range n {
		line, err := d.next()
		if err != nil {
			return err
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			return fmt.Errorf("line %d: empty exception", d.line)
		}
		x := wn.exc[f[0]]
		if x == nil {
			x = new(wnException)
			wn.exc[f[0]] = x
		}
		x.has[p], x.bases[p] = true, f[1:]
	}
	return nil
}

// synsetsOf returns the global synset numbers of index entry e for pos p.
func (wn *wordNet) synsetsOf(e uint32, p int) []uint32 {
	i := numPOS*int(e) + p
	return wn.synsets[wn.entries[i]:wn.entries[i+1]]
}

// numSynsets returns how many synsets the table holds.
func (wn *wordNet) numSynsets() int { return len(wn.synName) - 1 }

// synsetNames returns the name ids of synset s (names with '_' excluded).
func (wn *wordNet) synsetNames(s uint32) []uint32 {
	return wn.nameIDs[wn.synName[s]:wn.synName[s+1]]
}
