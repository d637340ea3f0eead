// Package bpe counts and cuts text in OpenAI's byte-pair encodings o200k_base and cl100k_base
// exactly as tiktoken does: each encoding's pre-tokenizer (its regular expression, with a regular
// expression engine's backtracking) and byte-pair merges by rank. The two encodings share the
// merge and the character classes and differ in their pattern's alternatives and their ranks,
// so an Encoding is those two things. The ranks come from the vocabularies that
// github.com/tiktoken-go/tokenizer compiles in; nothing is downloaded.
//
// Note: tiktoken-go/tokenizer v0.10.0's own encoder is not used. Its generated matcher for the
// o200k_base pattern differs from tiktoken's: it drops U+007F and splits whitespace such as
// "\n\n  \n" (one pre-token in tiktoken) in two, so its counts run long or short. Tested here
// against tiktoken's Rust core (testdata) and against each pattern run by an interpreting engine
// (fuzz).
package bpe

import (
	"hash/maphash"
	"math"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// Encoding is one of tiktoken's encodings: its pre-tokenizer and its ranks.
type Encoding struct {
	name     string
	alts     []func(s string, i int) int // the pattern's alternatives, in order (pretok.go)
	codec    func() *codec.Codec         // the compiled-in vocabulary
	specials []string                    // the special tokens' texts

	once  sync.Once
	table rankTable
	memos sync.Pool // of *memo, for Count
}

// O200k is o200k_base (gpt-4o, gpt-4.1 and later).
var O200k = &Encoding{
	name:     "o200k_base",
	alts:     []func(string, int) int{o200kLetters, o200kCapitals, digits, symbolsSlash, newlines, spacesBeforeSpace, spaces},
	codec:    codec.NewO200kBase,
	specials: []string{"<|endoftext|>", "<|endofprompt|>"},
}

// Cl100k is cl100k_base (gpt-3.5-turbo, gpt-4 and gpt-4-turbo).
var Cl100k = &Encoding{
	name:     "cl100k_base",
	alts:     []func(string, int) int{contractionAlone, letters, digits, symbols, newlines, spacesBeforeSpace, spaces},
	codec:    codec.NewCl100kBase,
	specials: []string{"<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>"},
}

// ForModel returns the encoding tiktoken's encoding_for_model gives model, of the two here:
// cl100k_base for gpt-4, gpt-4-turbo, gpt-3.5-turbo and their dated, Azure and fine-tuned names
// (tiktoken's exact names and prefixes: "gpt-4-" takes gpt-4-0613 and gpt-4-turbo but not gpt-4o
// or gpt-4.1), o200k_base for the rest: gpt-4o, gpt-4.1, o1 and later, and, as a stand-in, models
// tiktoken does not know.
func ForModel(model string) *Encoding {
	switch model {
	case "gpt-4", "gpt-3.5-turbo", "gpt-3.5", "gpt-35-turbo", "davinci-002", "babbage-002", "text-embedding-ada-002":
		return Cl100k
	}
	if strings.HasPrefix(model, "ft:gpt-4o") {
		return O200k
	}
	for _, p := range []string{"gpt-4-", "gpt-3.5-turbo-", "gpt-35-turbo-", "ft:gpt-4", "ft:gpt-3.5-turbo", "ft:davinci-002", "ft:babbage-002"} {
		if strings.HasPrefix(model, p) {
			return Cl100k
		}
	}
	return O200k
}

// Name returns the encoding's name as tiktoken spells it ("o200k_base").
func (e *Encoding) Name() string { return e.name }

// Special returns the leftmost special token s holds ("<|endoftext|>", …), or "" when it holds
// none. tiktoken's encode refuses such a text unless the token is allowed.
func (e *Encoding) Special(s string) string {
	at, tok := -1, ""
	for _, sp := range e.specials {
		if i := strings.Index(s, sp); i >= 0 && (at < 0 || i < at) {
			at, tok = i, sp
		}
	}
	return tok
}

// Ends appends to dst the byte offset in s just past each token of s, in order, and returns it;
// len of what was appended is the token count. Special tokens such as "<|endoftext|>" are
// encoded as ordinary text (tiktoken's encode_ordinary); callers that allow them split s around
// them.
func (e *Encoding) Ends(dst []int, s string) []int {
	r := e.ranks()
	for start := 0; start < len(s); {
		end := e.nextPiece(s, start)
		dst = appendPiece(dst, r, s, start, end)
		start = end
	}
	return dst
}

// Count returns the number of tokens of s (encoded as ordinary text).
func (e *Encoding) Count(s string) int {
	r := e.ranks()
	var m *memo
	if len(s) >= memoFrom {
		m, _ = e.memos.Get().(*memo)
		if m == nil {
			m = &memo{seed: maphash.MakeSeed()}
		}
		defer e.memos.Put(m)
	}
	var buf [64]int
	n := 0
	for start := 0; start < len(s); {
		end := e.nextPiece(s, start)
		piece := s[start:end]
		switch {
		case len(piece) == 1:
			n++
		case m == nil || len(piece) > memoMax:
			n += len(appendPiece(buf[:0], r, s, start, end))
		default:
			slot := &m.slots[maphash.String(m.seed, piece)%memoSlots]
			if string(slot.b[:slot.n]) != piece {
				slot.n = uint8(copy(slot.b[:], piece))
				slot.count = uint8(len(appendPiece(buf[:0], r, s, start, end)))
			}
			n += int(slot.count)
		}
		start = end
	}
	return n
}

// A memo holds the token counts of the short pieces Count met last, a piece to a slot by its
// hash. Prose says the same few thousand words again and again, and a slot's piece is found in
// the processor's caches where the vocabulary's table, several MB, mostly is not. A piece is
// compared in full before its count is taken, so a memo changes no count.
type memo struct {
	seed  maphash.Seed
	slots [memoSlots]memoSlot
}

const (
	memoSlots = 4096 // 96 KiB a memo, one per Count running at once (Encoding.memos)
	memoMax   = 22   // the longest piece kept, so that a slot is 24 bytes
	memoFrom  = 512  // the shortest text counted with a memo: a shorter one has few pieces to repeat
)

type memoSlot struct {
	n     uint8 // the piece's length, 0 in an empty slot
	count uint8 // its tokens, at most its length
	b     [memoMax]byte
}

// rankTable maps a token's bytes to its rank (its id).
type rankTable map[string]int32

// ranks returns the encoding's ranks, read at first use from tiktoken-go's compiled-in
// vocabulary (by decoding every id; for o200k_base about 80 ms and 15 MB), so that commands that
// never count tokens never build the table.
func (e *Encoding) ranks() rankTable {
	e.once.Do(func() {
		c := e.codec()
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
		e.table = t
	})
	return e.table
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
