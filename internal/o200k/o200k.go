// Package o200k counts and cuts text in OpenAI's o200k_base tokens exactly as tiktoken does:
// tiktoken's pre-tokenizer (its regular expression, with a regular expression engine's
// backtracking) and byte-pair merges by rank. The ranks come from the vocabulary that
// github.com/tiktoken-go/tokenizer compiles in; nothing is downloaded.
//
// Note: tiktoken-go/tokenizer v0.10.0's own encoder is not used. Its generated matcher for the
// pattern differs from tiktoken's: it drops U+007F and splits whitespace such as "\n\n  \n"
// (one pre-token in tiktoken) in two, so its counts run long or short. Tested here against
// tiktoken's Rust core (testdata) and against the pattern run by an interpreting engine (fuzz).
package o200k

import (
	"math"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// Ends appends to dst the byte offset in s just past each o200k_base token of s, in order, and
// returns it; len of what was appended is the token count. Special tokens such as
// "<|endoftext|>" are encoded as ordinary text (tiktoken's encode_ordinary); callers that allow
// them split s around them.
func Ends(dst []int, s string) []int {
	r := ranks()
	for start := 0; start < len(s); {
		end := nextPiece(s, start)
		dst = appendPiece(dst, r, s, start, end)
		start = end
	}
	return dst
}

// Count returns the number of o200k_base tokens of s (encoded as ordinary text).
func Count(s string) int {
	r := ranks()
	var buf [64]int
	n := 0
	for start := 0; start < len(s); {
		end := nextPiece(s, start)
		n += len(appendPiece(buf[:0], r, s, start, end))
		start = end
	}
	return n
}

// rankTable maps a token's bytes to its rank (its id).
type rankTable map[string]int32

var (
	rankOnce sync.Once
	table    rankTable
)

// ranks returns the o200k_base ranks, read at first use from tiktoken-go's compiled-in
// vocabulary (by decoding every id; about 80 ms and 15 MB), so that commands that never count
// tokens never build the table.
func ranks() rankTable {
	rankOnce.Do(func() {
		c := codec.NewO200kBase()
		t := make(rankTable, 200000)
		misses := 0
		for id := uint(0); misses < 64; id++ {
			piece, err := c.Decode([]uint{id})
			if err != nil || piece == "" {
				misses++ // the ids after the last rank, and the gaps before the special tokens
				continue
			}
			misses = 0
			t[piece] = int32(id)
		}
		table = t
	})
	return table
}

// appendPiece appends the token ends of the pre-token s[start:end]: one token when the piece is
// in the vocabulary, else tiktoken's byte-pair merge.
func appendPiece(dst []int, r rankTable, s string, start, end int) []int {
	piece := s[start:end]
	if _, ok := r[piece]; ok || len(piece) == 1 {
		return append(dst, end)
	}
	return bytePairMerge(dst, r, piece, start)
}

const noRank = math.MaxInt32

// bytePairMerge is tiktoken's _byte_pair_merge: start from single bytes and merge, again and
// again, the adjacent pair whose joined bytes have the lowest rank (the leftmost of equals),
// until no pair is in the vocabulary. It appends base plus the end of each resulting token.
func bytePairMerge(dst []int, r rankTable, piece string, base int) []int {
	type part struct {
		start int
		rank  int32
	}
	var stack [64]part
	parts := stack[:0]
	rank := func(a, b int) int32 {
		if v, ok := r[piece[a:b]]; ok {
			return v
		}
		return noRank
	}
	for i := 0; i+1 < len(piece); i++ {
		parts = append(parts, part{i, rank(i, i+2)})
	}
	parts = append(parts, part{len(piece) - 1, noRank}, part{len(piece), noRank})
	// rankAt is the rank of parts[i] merged with parts[i+1], i.e. piece[parts[i]:parts[i+2]]
	// once parts[i+1] is gone: tiktoken's get_rank(parts, i) before the removal.
	rankAt := func(i int) int32 {
		if i+3 < len(parts) {
			return rank(parts[i].start, parts[i+3].start)
		}
		return noRank
	}
	for {
		minRank, at := int32(noRank), -1
		for i, p := range parts[:len(parts)-1] {
			if p.rank < minRank {
				minRank, at = p.rank, i
			}
		}
		if at < 0 {
			break
		}
		if at > 0 {
			parts[at-1].rank = rankAt(at - 1)
		}
		parts[at].rank = rankAt(at)
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	for _, p := range parts[1 : len(parts)-1] {
		dst = append(dst, base+p.start)
	}
	return append(dst, base+len(piece))
}
