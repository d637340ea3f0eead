package embedding

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestRefusedTextRemembered: a text the server refused on its own (asked for alone) is not sent
// again by a later call of the run (a later --embed-batch) that holds it, neither alone nor among
// others: that call's records holding it lose their score with the same error, naming the text,
// and the other texts go out in one request, not in halves.
func TestRefusedTextRemembered(t *testing.T) {
	long := strings.Repeat("word ", 20)
	cases := []struct {
		name  string
		preds []string
		refs  [][]string
		// the later call's refused predictions, and its requests
		refused  []int
		requests [][]string
	}{
		{"as the prediction", []string{"c", long}, [][]string{{"c"}, {"d"}}, []int{1}, [][]string{{"c", "d"}}},
		{"as an answer", []string{"c", "d"}, [][]string{{"c", long}, {"d"}}, []int{0}, [][]string{{"c", "d"}}},
		{"alone", []string{long}, [][]string{{long}}, []int{0}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := &contextServer{limit: 10}
			srv := cs.start(t)
			s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Batch: 32})
			ctx := context.Background()
			// The first call: a is served, the long text refused alone.
			if _, err := s.SBERT(ctx, []string{"a", long}, [][]string{{"a"}, {"b"}}); !isRefused(err, 1) {
				t.Fatalf("first SBERT = %v, want prediction 2 refused", err)
			}
			before := len(cs.requests())
			got, err := s.SBERT(ctx, tc.preds, tc.refs)
			re, ok := errors.AsType[*RefusedError](err)
			if !ok {
				t.Fatalf("second SBERT = %v, want a *RefusedError", err)
			}
			for i := range tc.preds {
				refused := slices.Contains(tc.refused, i)
				if _, is := re.Refused[i]; is != refused || math.IsNaN(got[i]) != refused {
					t.Errorf("prediction %d: score %v, error %v; want refused %v", i, got[i], re.Refused[i], refused)
				}
				if refused {
					if msg := re.Refused[i].Error(); !strings.Contains(msg, `"word word`) ||
						!strings.Contains(msg, "on its own") || !strings.Contains(msg, "maximum context length is 10 tokens") {
						t.Errorf("prediction %d's error = %q, want the text named with the server's message", i, msg)
					}
				} else if !near(got[i], 1) {
					t.Errorf("prediction %d scores %v, want 1", i, got[i])
				}
			}
			if later := cs.requests()[before:]; !slices.EqualFunc(later, tc.requests, slices.Equal) {
				t.Errorf("the later call's requests = %q, want %q", later, tc.requests)
			}
			if st := s.Stats(); st.Requests != int64(len(cs.requests())) {
				t.Errorf("Stats().Requests = %d, the server saw %d", st.Requests, len(cs.requests()))
			}
		})
	}
}

func isRefused(err error, preds ...int) bool {
	re, ok := errors.AsType[*RefusedError](err)
	if !ok || len(re.Refused) != len(preds) {
		return false
	}
	for _, i := range preds {
		if re.Refused[i] == nil {
			return false
		}
	}
	return true
}

// TestRefusedAloneThenWhole: a server that refuses every request alike, asked for one text a
// request (--embed-batch 1), leaves the run's first text "refused on its own" (the request's
// refusal is not known yet), but once a second text is refused alike the refusal is found the
// request's: a later call holding that first text again fails whole too, as every later call
// does, not with the first text's remembered refusal.
func TestRefusedAloneThenWhole(t *testing.T) {
	f := newFake(t)
	f.hold = func([]string) int { return http.StatusBadRequest }
	srv := f.start()
	s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Batch: 1, Parallel: 1})
	ctx := context.Background()
	if _, err := s.SBERT(ctx, []string{"A"}, [][]string{nil}); !isRefused(err, 0) {
		t.Fatalf("first call: SBERT = %v, want prediction 1 refused", err)
	}
	for _, text := range []string{"B", "A"} {
		_, err := s.SBERT(ctx, []string{text}, [][]string{nil})
		if _, refused := errors.AsType[*RefusedError](err); err == nil || refused || !strings.Contains(err.Error(), "injected 400") {
			t.Errorf("call of %s: SBERT = %v, want the call failed with the server's message", text, err)
		}
	}
	if got := f.total(); got != 3 {
		t.Errorf("%d requests, want 3", got)
	}
}

// TestIDFRefusedReferenceRecord: IDF's error for a reference the server refused on its own says
// which list of refs (record) first holds it, and its place there, so that the caller can name
// the record; the text is matched as stripped, as IDF sends it.
func TestIDFRefusedReferenceRecord(t *testing.T) {
	f := newFake(t)
	f.hold = refuseText("a c d")
	srv := f.start()
	sc := newScorer(t, Config{Provider: TEI, Model: "bert", BaseURL: srv.URL})
	_, err := sc.IDF(context.Background(), [][]string{{"a", "b"}, {"c", " a c d\n"}, {"a c d"}})
	re, ok := errors.AsType[*IDFRefusedError](err)
	if !ok {
		t.Fatalf("IDF = %v, want an *IDFRefusedError", err)
	}
	if re.Record != 1 || re.Answer != 1 || re.Text != "a c d" {
		t.Errorf("IDFRefusedError = record %d, answer %d, text %q; want 1, 1, \"a c d\"", re.Record, re.Answer, re.Text)
	}
	if want := `idf: the server refused the answer "a c d" on its own: embed `; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("IDF = %v, want an error beginning %q", err, want)
	}
	re.Where = `in.jsonl:2 (id "q2")`
	if want := `idf: in.jsonl:2 (id "q2"): the server refused answer 2 "a c d" on its own: embed `; !strings.HasPrefix(re.Error(), want) {
		t.Errorf("with Where: %v, want an error beginning %q", re, want)
	}
}
