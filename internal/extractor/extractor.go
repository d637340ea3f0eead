// Package extractor is the offline baseline predictor: it answers a question from the record's own
// context without any network, as one more model.Client.
//
// Design: every context sentence is a BM25 document (k1 1.2, b 0.75; the passage title's words are
// added to each of its sentences, since HotpotQA sentences rarely repeat their subject). The question
// minus stop words is the query. The answer is a short span chosen by the question's form, from the
// best-ranked sentences first:
//
//   - yes/no questions ("Is/Was/Did/Are ... ?") answer "yes", or, with "X or Y", the option that the
//     top sentences mention more;
//   - "when"/"what year" take the first date or year in the sentence, else the passage's date
//     (conversation sessions carry one);
//   - "how many/much/old/long" take the first number not in the question;
//   - otherwise the longest run of capitalised words not in the question (an entity), else the few
//     words that follow the last question word matched in the sentence (from its start when only
//     question and stop words follow it), in the best-ranked sentence that has such words.
//
// Chinese text, which writes no space between words, is read a character at a time (as CMRC
// 2018's segmentation reads it), split into sentences at 。, ！ and ？, and a Chinese question is
// answered with the longest run of characters not in the question, in the clause that shares
// most with it.
//
// Note: a learned reader or a tokenizer with downloaded files was ruled out: the predictor must run
// anywhere with no files and no network, deterministically.
package extractor

import (
	"context"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/memo"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// Name is the provider and model name the predictor reports.
const Name = "extractive"

// Client is the extractive predictor as a model.Client. It reads Request.Question and
// Request.Context; messages are ignored. Its usage is zero and it is free. Its zero value is
// ready to use, and its Generate may be called concurrently.
//
// A Client keeps the index of the few contexts it read last (memo.Cache's bounds): LoCoMo's
// and LongMemEval's records of one conversation carry the same context of hundreds of kB, which
// was split, tokenised and counted again for each of its questions.
type Client struct {
	cache memo.Cache[contextKey, *index]
}

// Generate answers req.Question from req.Context.
func (c *Client) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	if model.IsStoredOnly(ctx) {
		return model.Response{}, model.ErrNotStored
	}
	if strings.TrimSpace(req.Question) == "" {
		return model.Response{}, errors.New("extractive: empty question")
	}
	if !hasText(req.Context) {
		// An answer read from nothing would be a guess ("" or "yes"), scored as if it were one.
		return model.Response{}, errors.New("extractive: the record has no context to read an answer from")
	}
	return model.Response{Text: c.index(req.Context).answer(req.Question), Model: Name}, nil
}

// index returns the index of passages, built now or kept from an earlier call.
func (c *Client) index(passages []record.Passage) *index {
	ix, _ := c.cache.Get(contextKey(passages), func() (*index, int, error) {
		ix := newIndex(passages)
		return ix, ix.size, nil
	})
	return ix
}

// hasText reports whether some passage has text that is not blank.
func hasText(passages []record.Passage) bool {
	for _, p := range passages {
		if strings.TrimSpace(p.Text) != "" || slices.ContainsFunc(p.Sentences, func(s string) bool { return strings.TrimSpace(s) != "" }) {
			return true
		}
	}
	return false
}

// sentence is one BM25 document.
type sentence struct {
	text    string // display text, speaker prefix removed
	date    string // the passage's date
	tokens  []string
	passage int
}

// Answer returns the predictor's answer to question over passages ("" when there is no context:
// no passage has text that is not blank).
func Answer(question string, passages []record.Passage) string {
	if !hasText(passages) {
		return "" // not "yes", nor an option of the question, read from nothing
	}
	return newIndex(passages).answer(question)
}

// answer is Answer over the passages ix indexes.
func (ix *index) answer(question string) string {
	sents := ix.sents
	q := queryTerms(question)
	qset := make(map[string]bool)
	for _, w := range words(question) {
		lw := strings.ToLower(w)
		qset[lw] = true
		qset[strings.TrimSuffix(lw, "'s")] = true
	}
	ranked := ix.rank(q)
	kind := classify(question)
	if kind == kindYesNo {
		return yesNo(question, ranked, sents)
	}
	if a, b, ok := options(question); ok && kind != kindCount && short(a) && short(b) {
		return choose(question, a, b, ranked, sents)
	}
	if len(ranked) == 0 { // no query word matched: read the context in order
		for i := range sents {
			ranked = append(ranked, i)
		}
	}
	if len(ranked) == 0 {
		return ""
	}
	top := ranked[:min(3, len(ranked))]
	for _, i := range top {
		if a := span(kind, sents[i], qset); a != "" {
			return a
		}
	}
	if kind == kindWhen && sents[top[0]].date != "" {
		return dateOnly(sents[top[0]].date)
	}
	if strings.ContainsFunc(question, isHan) && strings.ContainsFunc(sents[top[0]].text, isHan) {
		// A Chinese question over Chinese text; an English one keeps its words around a name
		// written in Chinese.
		return fallbackHan(sents[top[0]].text, qset)
	}
	// The best-ranked sentence may hold only the question's words and stop words (a question
	// asked in the conversation, "You play any instruments?"): the next one answers, however far
	// down the ranking, as the empty answer would decline.
	for _, i := range ranked {
		if a := fallback(sents[i], qset); a != "" {
			return a
		}
	}
	return ""
}

// split turns passages into sentences: given sentences, else lines, else punctuation-split text.
func split(passages []record.Passage) []sentence {
	var out []sentence
	for pi, p := range passages {
		title := tokens(p.Title)
		parts := p.Sentences
		if len(parts) == 0 {
			for _, line := range strings.Split(p.Text, "\n") {
				parts = append(parts, splitSentences(line)...)
			}
		}
		for _, s := range parts {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			text := stripSpeaker(s)
			out = append(out, sentence{text: text, date: p.Date, passage: pi,
				tokens: append(tokens(s), title...)})
		}
	}
	return out
}

// splitSentences splits after ., ! or ? followed by a space and an upper-case letter or a quote,
// and after a full-width sentence end (。, ！, ？), which Chinese text puts between sentences
// with no space.
func splitSentences(s string) []string {
	var out []string
	rs := []rune(s)
	start := 0
	for i := 0; i+1 < len(rs); i++ {
		switch {
		case rs[i] == '。' || rs[i] == '！' || rs[i] == '？':
			out = append(out, string(rs[start:i+1]))
			start = i + 1
		case i+2 < len(rs) && (rs[i] == '.' || rs[i] == '!' || rs[i] == '?') && rs[i+1] == ' ' &&
			(unicode.IsUpper(rs[i+2]) || rs[i+2] == '"'):
			out = append(out, string(rs[start:i+1]))
			start = i + 2
		}
	}
	return append(out, string(rs[start:]))
}

// stripSpeaker removes a leading "Name: " as conversation turns carry.
func stripSpeaker(s string) string {
	if i := strings.Index(s, ": "); i > 0 && i < 40 && !strings.ContainsAny(s[:i], ".,!?\"") &&
		len(strings.Fields(s[:i])) <= 3 {
		return s[i+2:]
	}
	return s
}

// rank returns sentence indices by decreasing BM25 score against the query, ties by position;
// sentences scoring zero are left out. Each sentence's score adds its query terms' parts in the
// query's order.
func (ix *index) rank(q []string) []int {
	const k1, b = 1.2, 0.75
	sents := ix.sents
	if len(sents) == 0 {
		return nil
	}
	avg := ix.avg
	n := float64(len(sents))
	scores := make([]float64, len(sents))
	for _, t := range q {
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := len(ps)
		idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
		for _, p := range ps {
			f := float64(p.tf)
			scores[p.sent] += idf * f * (k1 + 1) / (f + float64(k1*(1-b+b*float64(len(sents[p.sent].tokens))/avg)))
		}
	}
	var idx []int
	for i, v := range scores {
		if v > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, c int) bool { return scores[idx[a]] > scores[idx[c]] })
	return idx
}

// words splits s into words and numbers (letters, digits, and inner apostrophes or hyphens); a
// Chinese character is a word of its own, as CMRC 2018's segmentation takes it, since Chinese
// writes no space between words.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '-')
	}) {
		if !strings.ContainsFunc(w, isHan) {
			out = append(out, w)
			continue
		}
		start := 0
		for i, r := range w {
			if isHan(r) {
				if start < i {
					out = append(out, w[start:i])
				}
				out = append(out, string(r))
				start = i + utf8.RuneLen(r)
			}
		}
		if start < len(w) {
			out = append(out, w[start:])
		}
	}
	return out
}

// isHan reports whether r is a Chinese character.
func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// tokens returns the lower-cased, stemmed content words of s.
func tokens(s string) []string {
	var out []string
	for _, w := range words(s) {
		w = strings.Trim(strings.ToLower(w), "'-")
		if w == "" || stop[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

func queryTerms(q string) []string { return tokens(q) }

// stem strips a few English suffixes so "paints" matches "painted" roughly.
func stem(w string) string {
	for _, suf := range []string{"'s", "ing", "ed", "es", "s"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

var stop = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`a an the of in on at to for from by with and or but is are was were be been
		being am do does did has have had what which who whom whose when where why how that this these those it its
		as into than then there their they them he she his her him i you your we our me my not no yes so if
		about after before over under up down out can could will would should may might shall must also
		just any some many much more most other such only own same very s t`) {
		m[w] = true
	}
	return m
}()
