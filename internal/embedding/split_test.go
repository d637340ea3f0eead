package embedding

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRequestRefusedWhole: a server that refuses every request (a model that serves no
// embeddings) fails a call of three texts or more whole, after the whole, its halves and the
// first text alone; one of two texts after the whole and each text alone, both refused alike and
// none served.
func TestRequestRefusedWhole(t *testing.T) {
	for _, tt := range []struct {
		texts, requests int
		whole           bool
	}{
		{2, 3, true},
		{3, 3, true}, // the first half is the first text alone
		{32, 4, true},
	} {
		t.Run(fmt.Sprint(tt.texts), func(t *testing.T) {
			f := newFake(t)
			f.hold = func([]string) int { return http.StatusBadRequest }
			srv := f.start()
			s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Batch: 32, Parallel: 1})
			preds := make([]string, tt.texts)
			for i := range preds {
				preds[i] = fmt.Sprint("text ", i)
			}
			_, err := s.SBERT(context.Background(), preds, make([][]string, len(preds)))
			re, refused := errors.AsType[*RefusedError](err)
			switch {
			case err == nil || !strings.Contains(err.Error(), "injected 400"):
				t.Errorf("SBERT = %v, want the server's message", err)
			case tt.whole && refused:
				t.Errorf("SBERT = %v, a *RefusedError; want the whole call failed", err)
			case !tt.whole && (!refused || len(re.Refused) != tt.texts):
				t.Errorf("SBERT = %v, want each of the %d predictions refused", err, tt.texts)
			}
			if got := f.total(); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
		})
	}
}

// TestRefusedFirstTextAlone: a server that takes one text a request (TEI with
// --max-client-batch-size 1 answers 413 to more) and refuses one text on its own (400): the
// first text, refused alone with another message than the batch's, is refused once, and the
// text left of its half is fetched, not refused with that half's error.
func TestRefusedFirstTextAlone(t *testing.T) {
	f := newFake(t)
	long := "long one"
	var mu sync.Mutex
	var sent [][]string
	f.hold = func(in []string) int {
		mu.Lock()
		sent = append(sent, slices.Clone(in))
		mu.Unlock()
		switch {
		case len(in) > 1:
			return http.StatusRequestEntityTooLarge
		case in[0] == long:
			return http.StatusBadRequest
		}
		return 0
	}
	srv := f.start()
	s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Batch: 8, Parallel: 1})
	got, err := s.SBERT(context.Background(), []string{long, "paris", "london", "rome"},
		[][]string{{"paris"}, {"paris"}, {"london"}, {"rome"}})
	re, ok := errors.AsType[*RefusedError](err)
	if !ok || len(re.Refused) != 1 || re.Refused[0] == nil || !strings.Contains(re.Refused[0].Error(), "injected 400") {
		t.Fatalf("SBERT = %v, %v; want prediction 0 refused with the 400", got, err)
	}
	if !math.IsNaN(got[0]) || !near(got[1], 1) || !near(got[2], 1) || !near(got[3], 1) {
		t.Errorf("SBERT = %v, want [NaN 1 1 1]", got)
	}
	alone := 0
	for _, in := range sent {
		if slices.Equal(in, []string{long}) {
			alone++
		}
	}
	if alone != 1 {
		t.Errorf("requests %q: the refused text sent alone %d times, want 1", sent, alone)
	}
}

// TestTextsOverContextEverywhere: texts over the model's context in both halves of a batch, the
// first among them, each refused with its own length in OpenAI's message: the messages differ,
// so they are texts refused, not a request, and the others are scored.
func TestTextsOverContextEverywhere(t *testing.T) {
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }
	cs := &contextServer{limit: 10}
	srv := cs.start(t)
	s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Batch: 32, Parallel: 1})
	got, err := s.SBERT(context.Background(), []string{words(15), words(20), "short", words(25)}, [][]string{{"x"}, {"x"}, {"short"}, {"x"}})
	re, ok := errors.AsType[*RefusedError](err)
	if !ok || len(re.Refused) != 3 || re.Refused[2] != nil {
		t.Fatalf("SBERT = %v, %v; want predictions 0, 1 and 3 refused", got, err)
	}
	if !near(got[2], 1) {
		t.Errorf("SBERT = %v, want prediction 2 scored 1", got)
	}
}

// TestSplitStopsAtServerError: asking for a refused batch's texts apart stops at an error other
// than a refusal (here a 401), which fails the call, as any request's does; the texts are not
// asked for in smaller requests still, nor is the other half once the first's failed so.
func TestSplitStopsAtServerError(t *testing.T) {
	for _, tt := range []struct {
		name         string
		unauthorized int // the texts of the requests answered 401
		requests     int // 0: not counted
	}{
		{"pairs", 2, 0},
		{"first half", 4, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			var preds []string
			for i := range 8 {
				p := fmt.Sprint("s", i)
				preds = append(preds, p)
				f.sentences[p] = []float32{1, 0, 0}
			}
			f.hold = func(in []string) int {
				switch {
				case len(in) == tt.unauthorized:
					return http.StatusUnauthorized
				case len(in) >= 3:
					return http.StatusBadRequest
				}
				return 0
			}
			srv := f.start()
			s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Batch: 8, Parallel: 1})
			_, err := s.SBERT(context.Background(), preds, make([][]string, len(preds)))
			if _, refused := errors.AsType[*RefusedError](err); err == nil || refused || !strings.Contains(err.Error(), "injected 401") {
				t.Errorf("SBERT = %v, want the call failed with the 401", err)
			}
			if got := f.total(); tt.requests > 0 && got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
		})
	}
}

// TestSplitAbandonedAfterFailure: once another request of the call failed, a refused batch's
// texts are not asked for apart: the call fails with that request's error.
func TestSplitAbandonedAfterFailure(t *testing.T) {
	f := newFake(t)
	for _, p := range []string{"s0", "s1", "s2", "s3"} {
		f.sentences[p] = []float32{1, 0, 0}
	}
	bFailed := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	var apart int
	f.hold = func(in []string) int {
		switch {
		case slices.Equal(in, []string{"s0", "s1"}):
			select {
			case <-bFailed:
			case <-time.After(5 * time.Second):
			}
			time.Sleep(time.Second) // for the failed reply to be read, on a loaded machine too
			return http.StatusBadRequest
		case slices.Contains(in, "s2"):
			once.Do(func() { close(bFailed) })
			return http.StatusUnauthorized
		}
		mu.Lock()
		apart++
		mu.Unlock()
		return 0
	}
	srv := f.start()
	s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Batch: 2, Parallel: 2})
	_, err := s.SBERT(context.Background(), []string{"s0", "s1", "s2", "s3"}, make([][]string, 4))
	if err == nil || !strings.Contains(err.Error(), "injected 401") {
		t.Errorf("SBERT = %v, want the call failed with the 401", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if apart != 0 {
		t.Errorf("%d requests of the refused batch's texts apart after another request failed, want none", apart)
	}
}

// TestBERTScoreRefusedText: a text TEI refuses on its own (422) costs its prediction its
// scores, NaN, and the others are scored; the error names the prediction, counted from 1.
func TestBERTScoreRefusedText(t *testing.T) {
	f := newFake(t)
	f.hold = func(in []string) int {
		if slices.Contains(in, "a c d") || slices.Contains(in, "d d") {
			return http.StatusUnprocessableEntity
		}
		return 0
	}
	srv := f.start()
	sc := newScorer(t, Config{Provider: TEI, Model: "bert", BaseURL: srv.URL, Batch: 8})
	got, err := sc.BERTScore(context.Background(), []string{"c", "a b", "b", "a"}, [][]string{{"c"}, {"a c d"}, {"b"}, {"a", "d d"}}, BERTOptions{})
	re, ok := errors.AsType[*RefusedError](err)
	if !ok || len(re.Refused) != 2 || re.Refused[1] == nil || re.Refused[3] == nil {
		t.Fatalf("BERTScore = %v, %v; want predictions 1 and 3 refused", got, err)
	}
	for i, p := range got {
		refused := i == 1 || i == 3
		if nan := math.IsNaN(p.Precision) && math.IsNaN(p.Recall) && math.IsNaN(p.F1); nan != refused {
			t.Errorf("prediction %d: %+v, refused %v", i, p, refused)
		}
	}
	if want := `2 predictions refused; the first, the call's 2: the server refused answer 1 "a c d" on its own: `; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %q, want it to begin %q", err, want)
	}
}

// TestRefusedPredictionAndAnswer: a prediction whose own text and an answer are both refused is
// named by the prediction, the answer after it.
func TestRefusedPredictionAndAnswer(t *testing.T) {
	long := strings.Repeat("word ", 20)
	cs := &contextServer{limit: 10}
	srv := cs.start(t)
	s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1"})
	_, err := s.SBERT(context.Background(), []string{long}, [][]string{{"a", long + "more"}})
	want := `the server refused the prediction "word word`
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), " (and answer 2)") {
		t.Errorf("SBERT = %v, want it to begin %q and end \" (and answer 2)\"", err, want)
	}
}

// TestRequestRefusedEveryCall: a server that refuses every request alike (a model that serves no
// embeddings) fails each call whole, never leaving its texts "refused on its own", whatever the
// texts per request (--embed-batch 1 or 2 asks for them alone at once); once a call found the
// refusal to be the request's, later calls fail after their first request and its first text
// alone, not asked for apart again, as a call of --embed-batch records is made per batch.
func TestRequestRefusedEveryCall(t *testing.T) {
	for _, tt := range []struct {
		batch, texts, requests int // requests: of the 5 calls
	}{
		{1, 2, 2 + 4},
		{2, 2, 3 + 4*2},
		{2, 4, 3 + 4*2},
		{32, 6, 4 + 4*2},
	} {
		t.Run(fmt.Sprint(tt.batch, "/", tt.texts), func(t *testing.T) {
			f := newFake(t)
			f.hold = func([]string) int { return http.StatusBadRequest }
			srv := f.start()
			s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Batch: tt.batch, Parallel: 1})
			for call := range 5 {
				preds := make([]string, tt.texts)
				for i := range preds {
					preds[i] = fmt.Sprint("text ", call, " ", i)
				}
				_, err := s.SBERT(context.Background(), preds, make([][]string, len(preds)))
				if _, refused := errors.AsType[*RefusedError](err); err == nil || refused || !strings.Contains(err.Error(), "injected 400") {
					t.Errorf("call %d: SBERT = %v, want the call failed with the server's message", call, err)
				}
			}
			if got := f.total(); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
		})
	}
}

// TestRefusedEveryCallUntilServed: a server whose refusal of a text over the model's context
// names no text, whose first call's texts are all over it, fails that call whole, as one that
// refuses every request; a later request refused alike asks for its first text alone before it
// fails, and, that one served, is asked for apart as before: only its text over the context is
// refused.
func TestRefusedEveryCallUntilServed(t *testing.T) {
	f := newFake(t)
	f.hold = refusePrefix("LONG")
	f.sentences["short"] = []float32{1, 0, 0}
	srv := f.start()
	s := newScorer(t, Config{Provider: OpenAI, Model: "m", BaseURL: srv.URL + "/v1", Batch: 2, Parallel: 1})
	if _, err := s.SBERT(context.Background(), []string{"LONG a", "LONG b"}, make([][]string, 2)); err == nil {
		t.Fatalf("first call: SBERT = nil, want the call failed")
	}
	got, err := s.SBERT(context.Background(), []string{"short", "LONG c"}, [][]string{{"short"}, nil})
	re, ok := errors.AsType[*RefusedError](err)
	if !ok || len(re.Refused) != 1 || re.Refused[1] == nil {
		t.Fatalf("second call: SBERT = %v, %v; want prediction 1 refused alone", got, err)
	}
	if !near(got[0], 1) {
		t.Errorf("second call: SBERT = %v, want prediction 0 scored 1", got)
	}
}
