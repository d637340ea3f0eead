package load

import (
	"container/heap"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// Shard is part I of N (1 ≤ I ≤ N) of a deterministic split by id hash.
type Shard struct{ I, N int }

// ParseShard parses "i/n", two decimal integers of ASCII digits (no sign, no space).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if ok && digits(a) && digits(b) && (errors.Is(err1, strconv.ErrRange) || errors.Is(err2, strconv.ErrRange)) {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 1 ≤ i ≤ n ≤ %d", s, math.MaxInt)
	}
	if !ok || err1 != nil || err2 != nil || !digits(a) || !digits(b) || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 1 ≤ i ≤ n", s)
	}
	return Shard{I: i, N: n}, nil
}

// digits reports whether s starts with an ASCII digit, as strconv.Atoi's numbers need not: it
// takes a leading sign.
func digits(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// Selection filters, shards, samples and limits a record stream, the same way for every format.
// Records go through in that order: types, shard, sample, limit.
//
// Sharding puts a record in part 1 + (h mod N), h the first 8 bytes of SHA-256(id) as a big-endian
// integer: every machine that runs part i of n gets the same records whatever the input order.
// Sampling keeps the Sample records with the smallest SHA-256(seed || id) (seed as 8 big-endian
// bytes), written in input order: the same seed gives the same sample from any input order (but
// for records that repeat an id, which tie: which of them a sample's edge keeps follows the input
// order; qa-load warns of repeated ids), a sample of n is a prefix-stable subset of a sample of
// n+1, and memory is Sample records.
//
// Note: a reservoir sample would also bound memory, but it depends on the input order and on a
// random stream; the hash ranking depends only on ids and the seed.
type Selection struct {
	Types  []string // keep only these types (none: all)
	Shard  Shard    // zero: no sharding
	Sample int      // 0: no sampling
	Seed   int64
	Limit  int // 0: no limit

	kept    sampleHeap
	n       int // records seen by the sampler
	written int
	matched []bool   // for each of Types, whether a record had it
	seen    []string // the types records had, up to maxSeenTypes
}

// maxSeenTypes bounds the types a Selection remembers for its warning.
const maxSeenTypes = 64

// Add offers rec to the selection and calls write for it unless it is held for the sample or
// filtered out. It reports false once Limit records were written and the rest can be skipped.
func (s *Selection) Add(rec *record.Record, write func(*record.Record) error) (bool, error) {
	if !s.Passes(rec) {
		return true, nil
	}
	return s.Take(rec, Origin{}, func(r *record.Record, _ Origin) error { return write(r) })
}

// Origin is where a record was read: its file and line, and the kind of file.
type Origin struct {
	File      string
	Line      int
	Generic   bool // a generic jsonl or csv file
	Benchmark bool // a benchmark's file
	// Kept: what the record carried, kept in place of what --predictions' file gives it (see
	// Predictions.Attach).
	Kept Kept
	// Attached: the record's prediction is the one --predictions' file gave it, not its own.
	Attached bool
}

// Writer writes a record the selection keeps, with its Origin, as given to Take: a sampled
// record is written at the end, long after it was read.
type Writer func(rec *record.Record, from Origin) error

// Passes reports whether rec passes the selection's filters, its types and its shard (noting its
// type for Unmatched): a record that fails them is none of this run's, and one that passes is
// offered to Take, unless it turns out a bad item first.
func (s *Selection) Passes(rec *record.Record) bool {
	if len(s.Types) > 0 {
		i := slices.Index(s.Types, rec.Type)
		if len(s.matched) != len(s.Types) {
			s.matched = make([]bool, len(s.Types))
		}
		if len(s.seen) < maxSeenTypes && !slices.Contains(s.seen, rec.Type) {
			s.seen = append(s.seen, rec.Type)
		}
		if i < 0 {
			return false
		}
		s.matched[i] = true
	}
	return s.Shard.N <= 1 || int(idHash(nil, rec.ID)%uint64(s.Shard.N)) == s.Shard.I-1
}

// Take takes rec, which Passes, read from from: it is held for the sample, or written, as Add
// does.
func (s *Selection) Take(rec *record.Record, from Origin, write Writer) (bool, error) {
	if s.Sample > 0 {
		s.offer(rec, from)
		return true, nil
	}
	return s.emit(rec, from, write)
}

// ParseTypes splits a comma-separated list of types, trimming spaces and dropping empty items.
func ParseTypes(list string) []string {
	var types []string
	for t := range strings.SplitSeq(list, ",") {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	return types
}

// Unmatched returns the Types no record offered so far had, and the types records had (up to
// maxSeenTypes of them, sorted).
func (s *Selection) Unmatched() (types, others []string) {
	for i, t := range s.Types {
		if i >= len(s.matched) || !s.matched[i] {
			types = append(types, t)
		}
	}
	others = slices.Clone(s.seen)
	slices.Sort(others)
	return types, others
}

func (s *Selection) emit(rec *record.Record, from Origin, write Writer) (bool, error) {
	if s.Limit > 0 && s.written >= s.Limit {
		return false, nil
	}
	s.written++
	if err := write(rec, from); err != nil {
		return false, err
	}
	return s.Limit == 0 || s.written < s.Limit, nil
}

// Flush writes the sampled records, in input order.
func (s *Selection) Flush(write Writer) error {
	kept := slices.Clone(s.kept)
	slices.SortFunc(kept, func(a, b sampled) int { return a.index - b.index })
	for _, k := range kept {
		more, err := s.emit(k.rec, k.from, write)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

func (s *Selection) offer(rec *record.Record, from Origin) {
	var seed [8]byte
	binary.BigEndian.PutUint64(seed[:], uint64(s.Seed))
	item := sampled{key: idHash(seed[:], rec.ID), index: s.n, rec: rec, from: from}
	s.n++
	if len(s.kept) < s.Sample {
		heap.Push(&s.kept, item)
		return
	}
	if item.key < s.kept[0].key {
		s.kept[0] = item
		heap.Fix(&s.kept, 0)
	}
}

func idHash(prefix []byte, id string) uint64 {
	h := sha256.New()
	h.Write(prefix)
	h.Write([]byte(id))
	return binary.BigEndian.Uint64(h.Sum(nil))
}

type sampled struct {
	key   uint64
	index int
	rec   *record.Record
	from  Origin
}

// sampleHeap is a max-heap on key: its root is the record to drop first.
type sampleHeap []sampled

func (h sampleHeap) Len() int           { return len(h) }
func (h sampleHeap) Less(i, j int) bool { return h[i].key > h[j].key }
func (h sampleHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *sampleHeap) Push(x any)        { *h = append(*h, x.(sampled)) }
func (h *sampleHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
