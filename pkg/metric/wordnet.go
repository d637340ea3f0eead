package metric

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
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

var (
	wordnetOnce  sync.Once
	wordnetTable *wordNet
)

// loadWordNet decodes the embedded table on first use; the table is checked in, so a decoding
// error is a build defect and panics.
func loadWordNet() *wordNet {
	wordnetOnce.Do(func() {
		wn, err := decodeWordNet(wordnetData)
		if err != nil {
			panic(fmt.Sprintf("metric: embedded wordnet table: %v", err))
		}
		wordnetTable = wn
	})
	return wordnetTable
}

// wnDecoder reads the sections of the generated table.
type wnDecoder struct {
	sc   *bufio.Scanner
	line int
}

func (d *wnDecoder) next() (string, error) {
	if !d.sc.Scan() {
		if err := d.sc.Err(); err != nil {
			return "", err
		}
		return "", fmt.Errorf("line %d: unexpected end", d.line)
	}
	d.line++
	return d.sc.Text(), nil
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
	d := &wnDecoder{sc: bufio.NewScanner(zr)}
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
	perPOS := make(map[uint32]*[numPOS][]uint32, 150000)
	var order []string
	for p := range numPOS {
		if err := wn.decodeIndex(d, p, base, perPOS, &order); err != nil {
			return nil, err
		}
	}
	wn.flattenIndex(perPOS, order)
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
		for _, name := range strings.Fields(line) {
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

func (wn *wordNet) decodeIndex(d *wnDecoder, p int, base [numPOS]uint32, perPOS map[uint32]*[numPOS][]uint32, order *[]string) error {
	n, err := d.header("idx", p)
	if err != nil {
		return err
	}
	total := uint32(len(wn.synName) - 1)
	for range n {
		line, err := d.next()
		if err != nil {
			return err
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			return fmt.Errorf("line %d: index entry without synsets", d.line)
		}
		e, ok := wn.lemmas[f[0]]
		if !ok {
			e = uint32(len(*order))
			wn.lemmas[f[0]] = e
			*order = append(*order, f[0])
			perPOS[e] = new([numPOS][]uint32)
		}
		syns := make([]uint32, 0, len(f)-1)
		for _, s := range f[1:] {
			k, err := strconv.ParseUint(s, 10, 32)
			if err != nil || base[p]+uint32(k) >= total {
				return fmt.Errorf("line %d: bad synset number %q", d.line, s)
			}
			syns = append(syns, base[p]+uint32(k))
		}
		perPOS[e][p] = syns
	}
	return nil
}

// flattenIndex packs the per-pos synset lists of every entry into wn.entries and wn.synsets.
func (wn *wordNet) flattenIndex(perPOS map[uint32]*[numPOS][]uint32, order []string) {
	wn.entries = make([]uint32, 0, numPOS*len(order)+1)
	for e := range order {
		for p := range numPOS {
			wn.entries = append(wn.entries, uint32(len(wn.synsets)))
			wn.synsets = append(wn.synsets, perPOS[uint32(e)][p]...)
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
