package metric

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Chunk is a labelled span of one sentence; End is exclusive.
type Chunk struct {
	Sentence   int
	Type       string
	Start, End int
}

// splitTag splits a tag into prefix (its first character) and type (the rest, after its first
// '-' if it has one; "_" if empty).
func splitTag(tag string) (prefix, typ string) {
	if tag == "" {
		return "", "_"
	}
	_, size := utf8.DecodeRuneInString(tag)
	prefix, rest := tag[:size], tag[size:]
	if i := strings.IndexByte(rest, '-'); i >= 0 {
		rest = rest[i+1:]
	}
	if rest == "" {
		rest = "_"
	}
	return prefix, rest
}

// Chunks extracts the chunks of tagged sentences with the conlleval rules extended with IOBES
// (seqeval's get_entities): I- after O starts a chunk, a type change splits one, and nothing
// crosses a sentence boundary.
func Chunks(sentences [][]string) []Chunk {
	var out []Chunk
	for s, tags := range sentences {
		pt, pty := "O", ""
		begin := 0
		for i := 0; i <= len(tags); i++ {
			t, ty := "O", "_"
			if i < len(tags) {
				t, ty = splitTag(tags[i])
			}
			if chunkEnds(pt, pty, t, ty) {
				out = append(out, Chunk{Sentence: s, Type: pty, Start: begin, End: i})
			}
			if chunkStarts(pt, pty, t, ty) {
				begin = i
			}
			pt, pty = t, ty
		}
	}
	return out
}

func chunkEnds(pt, pty, t, ty string) bool {
	return pt == "E" || pt == "S" ||
		((pt == "B" || pt == "I") && (t == "B" || t == "S" || t == "O")) ||
		(pt != "O" && pt != "." && pty != ty)
}

func chunkStarts(pt, pty, t, ty string) bool {
	return t == "B" || t == "S" ||
		((pt == "E" || pt == "S" || pt == "O") && (t == "E" || t == "I")) ||
		(t != "O" && t != "." && pty != ty)
}

// ChunkCounts are chunk counts with their precision, recall and F1.
type ChunkCounts struct {
	Label, Infer, Correct int
}

// PRF returns precision, recall and F1 (F1 from the two ratios, 0 when nothing is correct).
func (c ChunkCounts) PRF() PRF {
	var r PRF
	if c.Infer > 0 {
		r.Precision = float64(c.Correct) / float64(c.Infer)
	}
	if c.Label > 0 {
		r.Recall = float64(c.Correct) / float64(c.Label)
	}
	if c.Correct > 0 {
		r.F1 = ((2 * r.Precision) * r.Recall) / (r.Precision + r.Recall)
	}
	return r
}

// ChunkReport is chunk-level evaluation of predicted tags against gold tags (conlleval counts).
type ChunkReport struct {
	Total   ChunkCounts
	PerType map[string]ChunkCounts
	Types   []string // sorted
	Tokens  int
	// TokenCorrect counts positions where gold and predicted tag strings are equal.
	TokenCorrect int
	Gold, Pred   []Chunk
}

// TokenAccuracy is conlleval's accuracy: the share of positions whose gold and predicted tag
// strings are equal, TokenCorrect / Tokens. ok is false when there are no tokens, where the
// ratio has no value.
func (r ChunkReport) TokenAccuracy() (acc float64, ok bool) {
	if r.Tokens == 0 {
		return 0, false
	}
	return float64(r.TokenCorrect) / float64(r.Tokens), true
}

// EvalChunks compares predicted with gold tag sequences. It panics when they differ in their
// sentence count or in a sentence's length.
func EvalChunks(gold, pred [][]string) ChunkReport {
	sameLength("EvalChunks", len(pred), "predicted sentences", len(gold), "gold sentences")
	for s := range gold {
		sameLength("EvalChunks", len(pred[s]), fmt.Sprintf("predicted tags in sentence %d", s), len(gold[s]), "gold tags")
	}
	r := ChunkReport{PerType: map[string]ChunkCounts{}, Gold: Chunks(gold), Pred: Chunks(pred)}
	for s := range gold {
		for i := range gold[s] {
			r.Tokens++
			if i < len(pred[s]) && gold[s][i] == pred[s][i] {
				r.TokenCorrect++
			}
		}
	}
	goldSet := map[Chunk]bool{}
	for _, c := range r.Gold {
		goldSet[c] = true
		t := r.PerType[c.Type]
		t.Label++
		r.PerType[c.Type] = t
	}
	for _, c := range r.Pred {
		t := r.PerType[c.Type]
		t.Infer++
		if goldSet[c] {
			t.Correct++
		}
		r.PerType[c.Type] = t
	}
	for typ, c := range r.PerType {
		r.Types = append(r.Types, typ)
		r.Total.Label += c.Label
		r.Total.Infer += c.Infer
		r.Total.Correct += c.Correct
	}
	slices.Sort(r.Types)
	return r
}
