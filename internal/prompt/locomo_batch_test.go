package prompt_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

// locomoBatchUpstream is testdata/golden/locomo_batch.json: what LoCoMo's own get_gpt_answers
// sends and stores with --batch-size N (scripts/locomo-requests.py --batch, see
// testdata/README.md).
type locomoBatchUpstream struct {
	Requests []struct {
		Records      string `json:"records"`
		BatchSize    int    `json:"batch_size"`
		Variant      string `json:"variant"`
		MaxLength    int    `json:"max_length"`
		Answered     []int  `json:"answered"`
		AbstainFirst []bool `json:"abstain_first"`
		Requests     []struct {
			Asked       []int   `json:"asked"`
			Model       string  `json:"model"`
			Role        string  `json:"role"`
			MaxTokens   int     `json:"max_tokens"`
			Temperature float64 `json:"temperature"`
			N           int     `json:"n"`
			Bytes       int     `json:"bytes"`
			SHA256      string  `json:"sha256"`
			Query       *string `json:"query"`
		} `json:"requests"`
	} `json:"requests"`
	Cut []struct {
		Records      string `json:"records"`
		Indexes      []int  `json:"indexes"`
		BatchSize    int    `json:"batch_size"`
		AbstainFirst []bool `json:"abstain_first"`
		Limits       [2]int `json:"limits"`
		Whole        bool   `json:"whole"`
		Query        string `json:"query"`
	} `json:"cut"`
	Replies []struct {
		Name      string `json:"name"`
		Reply     string `json:"reply"`
		Questions []struct {
			ID       string   `json:"id"`
			Category int      `json:"category"`
			Options  []string `json:"options"`
		} `json:"questions"`
		Raises  string `json:"raises"`
		Answers []struct {
			Stored     json.RawMessage `json:"stored"`
			Type       string          `json:"type"`
			Raises     string          `json:"raises"`
			NotReached bool            `json:"not_reached"`
		} `json:"answers"`
	} `json:"replies"`
}

// TestLoCoMoBatchRequestsUpstream checks every request upstream sends with --batch-size N on
// seven questions of conv-26 (batch sizes 2, 3, 10 and 20, some questions already answered, a
// block left empty, the conversation cut at 1,500 tokens and by gpt-4's 4,096) and on conv-26
// whole with its published settings (10 for gpt-3.5-turbo-16k and -4k, 20 for gpt-4-turbo):
// the query byte for byte, max_tokens, model and role.
func TestLoCoMoBatchRequestsUpstream(t *testing.T) {
	u, recs := readGolden[locomoBatchUpstream](t, "testdata/golden/locomo_batch.json"), upstreamRecords(t)
	n := 0
	for _, c := range u.Requests {
		v, ok := prompt.LoCoMoVariantNamed(c.Variant)
		if !ok {
			t.Fatalf("LoCoMoVariantNamed(%q): unknown", c.Variant)
		}
		for _, r := range c.Requests {
			n++
			var batch []*record.Record
			var firsts []bool
			for _, i := range r.Asked {
				batch = append(batch, recs[c.Records][i])
				firsts = append(firsts, c.AbstainFirst[i])
			}
			got, asks, _, err := prompt.LoCoMoBatchQA(batch, firsts, c.MaxLength, c.BatchSize)
			if err != nil {
				t.Fatalf("%s %v: %v", c.Records, r.Asked, err)
			}
			sum := sha256.Sum256([]byte(got))
			switch {
			case r.Query != nil && got != *r.Query:
				t.Errorf("LoCoMoBatchQA(%s %v, %d, batch size %d) =\n%q\nwant\n%q", c.Records, r.Asked, c.MaxLength, c.BatchSize, got, *r.Query)
			case hex.EncodeToString(sum[:]) != r.SHA256:
				t.Errorf("LoCoMoBatchQA(%s %v, %d, batch size %d) = %d bytes ending %q, want upstream's %d bytes", c.Records, r.Asked, c.MaxLength, c.BatchSize, len(got), got[max(0, len(got)-300):], r.Bytes)
			}
			if len(asks) != len(batch) {
				t.Errorf("LoCoMoBatchQA(%s %v) gave %d asks, want %d", c.Records, r.Asked, len(asks), len(batch))
			}
			if mt := prompt.LoCoMoBatchMaxTokens(c.BatchSize); mt != r.MaxTokens || v.Model != r.Model || v.Role != r.Role || r.Temperature != 0 || r.N != 1 {
				t.Errorf("%s batch size %d: max_tokens %d, model %q, role %q; upstream sent %d, %q, %q (temperature %v, n %d)", c.Variant, c.BatchSize, mt, v.Model, v.Role, r.MaxTokens, r.Model, r.Role, r.Temperature, r.N)
			}
		}
	}
	if n < 60 {
		t.Fatalf("%d requests checked, want the 60 the script writes", n)
	}
}

// TestLoCoMoBatchCutUpstream checks the batched query of two synthetic questions over every range
// of MAX_LENGTH values that gives it, for batch sizes 2 and 5 (which keep 100 and 250 tokens for
// the answers), at both ends of each range and one token beyond.
func TestLoCoMoBatchCutUpstream(t *testing.T) {
	u, recs := readGolden[locomoBatchUpstream](t, "testdata/golden/locomo_batch.json"), upstreamRecords(t)
	if len(u.Cut) < 20 {
		t.Fatalf("%d cut cases, want the 24 the script writes", len(u.Cut))
	}
	for _, c := range u.Cut {
		var batch []*record.Record
		for _, i := range c.Indexes {
			batch = append(batch, recs[c.Records][i])
		}
		query := func(n int) (string, bool) {
			q, _, cut, err := prompt.LoCoMoBatchQA(batch, c.AbstainFirst, n, c.BatchSize)
			if err != nil {
				t.Fatal(err)
			}
			return q, cut
		}
		lo, hi := c.Limits[0], c.Limits[1]
		for _, n := range []int{lo, hi} {
			if got, cut := query(n); got != c.Query || cut == c.Whole {
				t.Errorf("LoCoMoBatchQA(batch size %d, %d) = %q, cut %v; want %q, cut %v", c.BatchSize, n, got, cut, c.Query, !c.Whole)
			}
		}
		if got, _ := query(lo - 1); lo > 1 && got == c.Query {
			t.Errorf("LoCoMoBatchQA(batch size %d, %d) is the query of %d..%d, want less", c.BatchSize, lo-1, lo, hi)
		}
		if got, _ := query(hi + 1); !c.Whole && got == c.Query {
			t.Errorf("LoCoMoBatchQA(batch size %d, %d) is the query of %d..%d, want more", c.BatchSize, hi+1, lo, hi)
		}
	}
}

// batchAsks are the asks of a reply case: each question's category and options.
func batchAsks(qs []struct {
	ID       string   `json:"id"`
	Category int      `json:"category"`
	Options  []string `json:"options"`
}) []prompt.LoCoMoAsk {
	asks := make([]prompt.LoCoMoAsk, len(qs))
	for i, q := range qs {
		asks[i] = prompt.LoCoMoAsk{Category: q.Category, Options: q.Options}
	}
	return asks
}

// TestLoCoMoBatchAnswersUpstream feeds chosen replies to upstream's reading of a batch of five
// questions (categories 5, 2, 1, 5, 4) and checks what it stores for each: a well-formed dict,
// a code fence, single quotes swapped, escaped quotes, a list, values that are not strings
// (numbers, a dict, lists: their str()), category-5 letters and words, missing keys, a bare
// string or number, replies read line by line, Unicode, repeated keys, NaN. Where upstream
// raises for the whole reply (its trial loop's ValueError) the reply is an error; where it
// raises for a question, that question's answer is an error (the questions after it, which
// upstream never reaches, are not checked); a value it stores that is not a str is an error too.
func TestLoCoMoBatchAnswersUpstream(t *testing.T) {
	u := readGolden[locomoBatchUpstream](t, "testdata/golden/locomo_batch.json")
	if len(u.Replies) < 25 {
		t.Fatalf("%d replies, want the 28 the script writes", len(u.Replies))
	}
	for _, c := range u.Replies {
		got, err := prompt.LoCoMoBatchAnswers(c.Reply, batchAsks(c.Questions))
		if c.Raises != "" {
			if err == nil || !errors.Is(err, prompt.ErrLoCoMoReply) {
				t.Errorf("%s: LoCoMoBatchAnswers(%q) = %+v, %v; want ErrLoCoMoReply (upstream raises %s)", c.Name, c.Reply, got, err, c.Raises)
			}
			continue
		}
		if err != nil || len(got) != len(c.Answers) {
			t.Errorf("%s: LoCoMoBatchAnswers(%q) = %d answers, %v; want %d", c.Name, c.Reply, len(got), err, len(c.Answers))
			continue
		}
		for k, want := range c.Answers {
			switch {
			case want.NotReached:
			case want.Raises != "" || want.Type != "str":
				if got[k].Err == nil {
					t.Errorf("%s: question %d = %q, want an error (upstream: raises %q, stores %s %s)", c.Name, k, got[k].Text, want.Raises, want.Type, want.Stored)
				}
			default:
				var s string
				if err := json.Unmarshal(want.Stored, &s); err != nil {
					t.Fatal(err)
				}
				if got[k].Err != nil || got[k].Text != s {
					t.Errorf("%s: question %d = %q, %v; want %q", c.Name, k, got[k].Text, got[k].Err, s)
				}
			}
		}
	}
}

// TestLoCoMoBatchAnswersSurrogates: removing "(a)" or "(b)" from a value can bring a high and a low
// surrogate together. Upstream's str then holds two lone surrogates (len 2), which its in-memory
// scoring compares as two characters; each is U+FFFD here, as every lone surrogate is. (Its
// json.dump of the predictions writes them as an escape pair that reads back as the character the
// pair encodes: not what it scores.) The first reply is a random one; the values are upstream's.
func TestLoCoMoBatchAnswersSurrogates(t *testing.T) {
	cat5 := prompt.LoCoMoAsk{Category: 5, Options: []string{prompt.LoCoMoAbstainOption, "Paris"}}
	for _, c := range []struct {
		reply string
		asks  []prompt.LoCoMoAsk
		want  []string
	}{
		{"\u00a0[true,\n\"```\\ud83d(a)\\ude00\",\n[\"A\"],\n\",JSON\"]\t", []prompt.LoCoMoAsk{cat5, {Category: 2}}, []string{"[true,\n\"\\ud83d(a)\\ude00\",\n[\"a\"],\n\",json\"]", "\uFFFD\uFFFD"}},
		{`["x", "\ud83d(a)\ude00"]`, []prompt.LoCoMoAsk{{Category: 1}, {Category: 4}}, []string{"x", "\uFFFD\uFFFD"}},
		{`{"0": " \ud83d(b)\ude00 ", "1": "\ud83d(a)(b)\ude00!"}`, []prompt.LoCoMoAsk{{Category: 1}, {Category: 4}}, []string{"\uFFFD\uFFFD", "\uFFFD\uFFFD!"}},
		{`{"0": "\ud800(a)x", "1": "\ude00(b)\ud83d"}`, []prompt.LoCoMoAsk{{Category: 1}, cat5}, []string{"\uFFFDx", "\uFFFD(b)\uFFFD"}},
		{`{"0": "\ud83d\ude00 (a)"}`, []prompt.LoCoMoAsk{{Category: 1}}, []string{"😀"}},
	} {
		got, err := prompt.LoCoMoBatchAnswers(c.reply, c.asks)
		if err != nil {
			t.Fatalf("LoCoMoBatchAnswers(%q): %v", c.reply, err)
		}
		for k, want := range c.want {
			if got[k].Err != nil || got[k].Text != want {
				t.Errorf("LoCoMoBatchAnswers(%q) question %d = %q, %v; want %q", c.reply, k, got[k].Text, got[k].Err, want)
			}
		}
	}
}

// TestLoCoMoBatchQAConversation: the questions of a batch must share their conversation; two
// records that give the same conversation id but hold different sessions are refused.
func TestLoCoMoBatchQAConversation(t *testing.T) {
	syn := upstreamRecords(t)["synthetic"]
	if _, _, _, err := prompt.LoCoMoBatchQA(syn[:2], []bool{true, true}, 0, 2); err == nil || !strings.Contains(err.Error(), "conversation differs") {
		t.Errorf("LoCoMoBatchQA(two conversations) error = %v, want the conversation refused", err)
	}
	if _, _, _, err := prompt.LoCoMoBatchQA([]*record.Record{syn[0], syn[2]}, []bool{true, false}, 0, 2); err != nil {
		t.Errorf("LoCoMoBatchQA(one conversation) error = %v", err)
	}
	if _, _, _, err := prompt.LoCoMoBatchQA(syn[:1], nil, 0, 2); err == nil {
		t.Error("LoCoMoBatchQA with no option orders: no error")
	}
}

// FuzzLoCoMoBatchAnswers: any reply gives an answer or an error for each of the questions, or
// ErrLoCoMoReply, never a panic; answers are valid UTF-8 and a category-5 answer is an option or
// lower-cased.
func FuzzLoCoMoBatchAnswers(f *testing.F) {
	u := readGolden[locomoBatchUpstream](f, "testdata/golden/locomo_batch.json")
	for _, c := range u.Replies {
		f.Add(c.Reply, uint8(5))
	}
	asks := batchAsks(u.Replies[0].Questions)
	f.Fuzz(func(t *testing.T, reply string, n uint8) {
		qs := make([]prompt.LoCoMoAsk, int(n%12))
		for i := range qs {
			qs[i] = asks[i%len(asks)]
		}
		got, err := prompt.LoCoMoBatchAnswers(reply, qs)
		if err != nil {
			if !errors.Is(err, prompt.ErrLoCoMoReply) || got != nil {
				t.Fatalf("LoCoMoBatchAnswers(%q) = %v, %v", reply, got, err)
			}
			return
		}
		if len(got) != len(qs) {
			t.Fatalf("LoCoMoBatchAnswers(%q) = %d answers for %d questions", reply, len(got), len(qs))
		}
		for k, a := range got {
			if a.Err != nil && a.Text != "" || !utf8.ValidString(a.Text) && utf8.ValidString(reply) {
				t.Fatalf("LoCoMoBatchAnswers(%q) question %d = %q, %v", reply, k, a.Text, a.Err)
			}
			if o := qs[k].Options; o != nil && (a.Err != nil || a.Text != o[0] && a.Text != o[1] && a.Text != strings.ToLower(a.Text) && !strings.ContainsFunc(a.Text, func(r rune) bool { return r > 0x7f })) {
				t.Fatalf("LoCoMoBatchAnswers(%q) category-5 question %d = %q, %v: neither an option nor lower-cased", reply, k, a.Text, a.Err)
			}
		}
	})
}
