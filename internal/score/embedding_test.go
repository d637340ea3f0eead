package score

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/pkg/record"
)

const sbertInput = `{"schema":1,"id":"a","question":"q","answers":["Paris"],"prediction":{"text":"the capital is Paris"}}
{"schema":1,"id":"b","question":"q","answers":["London","Paris"],"prediction":{"text":"Berlin"}}
`

// TestEmbedCacheAndKey checks that the API key comes from QA_EMBED_API_KEY as a bearer token, and
// that a rerun with the same --cache makes no request and writes the same records.
func TestEmbedCacheAndKey(t *testing.T) {
	t.Setenv("QA_EMBED_API_KEY", "sk-test")
	var mu sync.Mutex
	var auth []string
	srv := newOpenAIServer(t, func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		auth = append(auth, r.Header.Get("Authorization"))
	})
	db := filepath.Join(t.TempDir(), "cache.db")
	run := func() (string, string) {
		var stdout, stderr bytes.Buffer
		args := []string{"qa-score", "--metrics", "sbert", "--embed-provider", "openai", "--embed-model", "m",
			"--embed-base-url", srv.URL + "/v1", "--cache", db}
		err := Run(context.Background(), args, strings.NewReader(sbertInput), &stdout, &stderr)
		if code := command.ExitCode(err); code != 0 {
			t.Fatalf("qa-score: exit %d: %s", code, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	first, _ := run()
	mu.Lock()
	calls := len(auth)
	if calls == 0 || auth[0] != "Bearer sk-test" {
		t.Errorf("Authorization headers = %q, want Bearer sk-test", auth)
	}
	mu.Unlock()
	second, stderr := run()
	mu.Lock()
	defer mu.Unlock()
	if len(auth) != calls {
		t.Errorf("rerun with --cache made %d requests, want 0", len(auth)-calls)
	}
	if second != first {
		t.Errorf("rerun output = %s, want %s", second, first)
	}
	if want := "0 batches for 0 texts, 4 texts from the cache"; !strings.Contains(stderr, want) {
		t.Errorf("rerun stderr = %q, want it to contain %q", stderr, want)
	}
	if !strings.Contains(first, `"sbert":0.6`) {
		t.Errorf("first run = %s, want sbert 0.6 for a", first)
	}
}

// TestEmbedFinishing: a run asked to finish (the first signal) lets its embedding call in flight
// end and stores it, makes no new call, still reads and writes every record (those whose call was
// not made without embedding scores, reported) and ends interrupted; the rerun finds the answer
// of the call that was in flight in the cache.
func TestEmbedFinishing(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	var requests int
	srv := newOpenAIServer(t, func(*http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		once.Do(func() {
			close(arrived)
			<-release
		})
	})
	db := filepath.Join(t.TempDir(), "cache.db")
	args := []string{"qa-score", "--metrics", "sbert", "--embed-provider", "openai", "--embed-model", "m",
		"--embed-base-url", srv.URL + "/v1", "--cache", db, "--embed-batch", "1", "--jobs", "2"}
	first := `{"schema":1,"id":"a","answers":["Paris"],"prediction":{"text":"Paris"}}` + "\n" // one text, one request
	input := first
	for _, id := range []string{"b", "c", "d"} { // texts no call is made for: never sent
		input += `{"schema":1,"id":"` + id + `","answers":["Roma ` + id + `"],"prediction":{"text":"Rome ` + id + `"}}` + "\n"
	}
	ctx, finish := interrupt.WithFinish(context.Background())
	var stdout, stderr bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- Run(ctx, args, strings.NewReader(input), &stdout, &stderr) }()
	<-arrived
	if n := finish(); n != 1 {
		t.Errorf("finish() = %d calls in flight, want 1", n)
	}
	close(release)
	err := <-done
	if !errors.Is(err, interrupt.ErrInterrupted) || command.ExitCode(err) != command.ExitInterrupted {
		t.Fatalf("Run = %v (exit %d), want interrupted; stderr:\n%s", err, command.ExitCode(err), stderr.String())
	}
	var ids, scored []string
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var r record.Record
		if err := record.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
		if v, ok := r.Scores["sbert"]; ok && v == 1 {
			scored = append(scored, r.ID)
		}
	}
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(ids, want) {
		t.Errorf("records written: %v, want %v", ids, want)
	}
	if want := []string{"a"}; !slices.Equal(scored, want) {
		t.Errorf("records with sbert 1: %v, want %v (the one whose call was in flight)", scored, want)
	}
	for _, want := range []string{`stdin:2 (id "b"): 1 `, `stdin:3 (id "c"): 1 `, `stdin:4 (id "d"): 1 `, interrupt.ErrNotCalled.Error()} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr = %q, want it to contain %q", stderr.String(), want)
		}
	}
	mu.Lock()
	if requests != 1 {
		t.Errorf("server got %d requests, want 1", requests)
	}
	mu.Unlock()

	// The rerun of the first record asks for nothing: the call in flight was stored.
	stdout.Reset()
	stderr.Reset()
	if err := Run(context.Background(), args, strings.NewReader(first), &stdout, &stderr); err != nil {
		t.Fatalf("rerun: %v: %s", err, stderr.String())
	}
	mu.Lock()
	if requests != 1 {
		t.Errorf("the rerun made %d requests, want 0", requests-1)
	}
	mu.Unlock()
}

// TestEmbedFailureOnRecord: a batch whose embedding call fails leaves on each of its records a
// score_errors entry for every selected embedding metric, saying why (without the key or the
// password of the URL, which stderr leaves out too), so that the output file tells "sbert failed here" from "sbert does not
// apply here"; a rerun over that output with the server working and --cache asks only for the
// failed batch's texts, fills in the scores and removes the entries; and qa-score over its own
// output then writes it unchanged.
func TestEmbedFailureOnRecord(t *testing.T) {
	t.Setenv("QA_EMBED_API_KEY", "sk-very-secret")
	real := newOpenAIServer(t, nil)
	var broken atomic.Bool
	broken.Store(true)
	var mu sync.Mutex
	var sent []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Input []string `json:"input"`
		}
		json.Unmarshal(body, &req) //nolint:errcheck // the real server checks the request
		mu.Lock()
		sent = append(sent, req.Input...)
		mu.Unlock()
		if broken.Load() && slices.Contains(req.Input, "Berlin") {
			http.Error(w, `{"error":{"message":"model not loaded"}}`, http.StatusBadRequest)
			return
		}
		forward(w, real.URL+r.URL.Path, bytes.NewReader(body))
	}))
	t.Cleanup(srv.Close)
	base := strings.Replace(srv.URL, "http://", "http://user:pa55word@", 1) + "/v1"
	db := filepath.Join(t.TempDir(), "cache.db")
	args := []string{"qa-score", "--metrics", "sbert,em", "--embed-provider", "openai", "--embed-model", "m",
		"--embed-base-url", base, "--embed-batch", "2", "--cache", db}
	input := `{"schema":1,"id":"a","question":"q","answers":["Paris"],"prediction":{"text":"the capital is Paris"}}
{"schema":1,"id":"b","question":"q","answers":["London"],"prediction":{"text":"London"}}
{"schema":1,"id":"c","question":"q","answers":["Paris"],"prediction":{"text":"Berlin"}}
{"schema":1,"id":"d","question":"q","answers":["Paris"],"prediction":{"text":"Paris"}}
{"schema":1,"id":"e","question":"q","answers":["Paris"]}
`
	run := func(in string, wantExit int) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), args, strings.NewReader(in), &stdout, &stderr)
		if code := command.ExitCode(err); code != wantExit {
			t.Fatalf("qa-score: exit %d, want %d: %s", code, wantExit, stderr.String())
		}
		if wantExit != 0 && !strings.Contains(stderr.String(), "http://user:xxxxx@") {
			t.Errorf("stderr does not name the server as http://user:xxxxx@…:\n%s", stderr.String())
		}
		for _, secret := range []string{"pa55word", "sk-very-secret"} {
			if strings.Contains(stderr.String(), secret) {
				t.Errorf("stderr holds %q:\n%s", secret, stderr.String())
			}
		}
		return stdout.String()
	}
	records := func(out string) map[string]record.Record {
		t.Helper()
		m := map[string]record.Record{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var r record.Record
			if err := record.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			m[r.ID] = r
		}
		return m
	}

	first := run(input, 3)
	recs := records(first)
	// The batch of c and d is refused (400) for Berlin, c's prediction: asked for alone, its
	// texts leave c alone without sbert, the text named.
	for _, id := range []string{"a", "b", "d", "e"} {
		if got := recs[id].ScoreErrors; got != nil {
			t.Errorf("first run: %s score_errors = %v, want none", id, got)
		}
	}
	for _, id := range []string{"c"} {
		r := recs[id]
		msg := r.ScoreErrors["sbert"]
		if len(r.ScoreErrors) != 1 || !strings.HasPrefix(msg, `embedding call failed: the server refused the prediction "Berlin" on its own: `) ||
			!strings.Contains(msg, "400 Bad Request") || !strings.Contains(msg, "model not loaded") {
			t.Errorf("first run: %s score_errors = %q, want sbert: embedding call failed: the server refused the prediction \"Berlin\" … 400 Bad Request … model not loaded", id, r.ScoreErrors)
		}
		if _, ok := r.Scores["sbert"]; ok {
			t.Errorf("first run: %s has an sbert score beside its error: %v", id, r.Scores)
		}
		if _, ok := r.Scores["em"]; !ok {
			t.Errorf("first run: %s lost em: %v", id, r.Scores)
		}
	}
	for _, secret := range []string{"pa55word", "sk-very-secret"} {
		if strings.Contains(first, secret) {
			t.Errorf("first run's records hold %q:\n%s", secret, first)
		}
	}

	broken.Store(false)
	mu.Lock()
	sent = nil
	mu.Unlock()
	second := run(first, 0)
	mu.Lock()
	if want := []string{"Berlin"}; !slices.Equal(slices.Sorted(slices.Values(sent)), want) {
		t.Errorf("rerun sent %q, want only the refused text, the others being in the cache, %q", sent, want)
	}
	mu.Unlock()
	recs = records(second)
	for id, r := range recs {
		if r.ScoreErrors != nil || strings.Contains(second, "score_errors") {
			t.Errorf("rerun: %s score_errors = %v, want none", id, r.ScoreErrors)
		}
	}
	for id, want := range map[string]float64{"c": 1 / math.Sqrt2, "d": 1} {
		if got, ok := recs[id].Scores["sbert"]; !ok || math.Abs(got-want) > 1e-6 {
			t.Errorf("rerun: %s sbert = %v (present %v), want %v", id, got, ok, want)
		}
	}
	if third := run(second, 0); third != second {
		t.Errorf("qa-score over its own output changed it:\n%s\nwant\n%s", third, second)
	}
}

// TestEmbedConcurrency: --embed-concurrency bounds the embedding requests in flight. One record
// with four distinct texts and --embed-batch 1 makes four requests of one text; the server holds
// each until three are in flight at once, or for hold. At 1 no two overlap (each waits out its
// 100 ms); at 3 three arrive together and are let go as the third comes, where the 2 that used
// to be fixed would wait out the hold. The server counts the requests that waited it out; the
// run's time is not judged, as a loaded machine can make any run slow.
func TestEmbedConcurrency(t *testing.T) {
	const in = `{"schema":1,"id":"a","question":"q","answers":["Paris","London","Berlin"],"prediction":{"text":"the capital is Paris"}}` + "\n"
	for _, tc := range []struct {
		flag     string
		hold     time.Duration
		wantPeak int
	}{{"1", 100 * time.Millisecond, 1}, {"3", 10 * time.Second, 3}} {
		var mu sync.Mutex
		inflight, peak, requests, heldOut := 0, 0, 0, 0
		enough, released := make(chan struct{}), false
		srv := newGatedServer(t, func(_ http.ResponseWriter, r *http.Request) bool {
			mu.Lock()
			inflight++
			requests++
			peak = max(peak, inflight)
			// Once: the fourth request can come while two of the first three have yet to leave
			// (a slow machine), making three in flight again; closing twice panicked with mu held,
			// and every later request waited for mu, so the run hung.
			if inflight == 3 && !released {
				released = true
				close(enough)
			}
			mu.Unlock()
			held := false
			select {
			case <-enough:
			case <-time.After(tc.hold):
				held = true
			case <-r.Context().Done():
			}
			mu.Lock()
			inflight--
			if held {
				heldOut++
			}
			mu.Unlock()
			return false
		})
		args := []string{"qa-score", "--metrics", "sbert", "--embed-provider", "openai", "--embed-model", "m",
			"--embed-base-url", srv.URL + "/v1", "--embed-batch", "1", "--embed-concurrency", tc.flag}
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), args, strings.NewReader(in), &stdout, &stderr)
		if err != nil {
			t.Fatalf("--embed-concurrency %s: %v; stderr:\n%s", tc.flag, err, stderr.String())
		}
		mu.Lock()
		if peak != tc.wantPeak || requests != 4 {
			t.Errorf("--embed-concurrency %s: %d requests, at most %d in flight; want 4, at most %d", tc.flag, requests, peak, tc.wantPeak)
		}
		if tc.wantPeak > 1 && heldOut > 0 {
			t.Errorf("--embed-concurrency %s: %d requests waited out the hold, so three were not in flight at once", tc.flag, heldOut)
		}
		mu.Unlock()
		// The best answer is Berlin, (1, 1): cos with (3, 4) is 7/(5√2).
		if !strings.Contains(stdout.String(), `"sbert":0.9899494936611665`) {
			t.Errorf("--embed-concurrency %s wrote %s, want sbert 7/(5√2) = 0.98995", tc.flag, stdout.String())
		}
	}
}

// TestEmbedOneCallFails: sbert and bertscore_* are two calls to the server (/embed; /tokenize and
// /embed_all); when one fails, the records keep the other's scores, as computed when both work,
// and score_errors names only the failed call's metrics, with its own error, as stderr does. Both
// used to be left out, each with the failed call's error; then stderr said the records were not
// scored though they kept the other's.
func TestEmbedOneCallFails(t *testing.T) {
	tei := newTEIServer(t) // /tokenize and /embed_all
	input := `{"schema":1,"id":"a","question":"q","answers":["paris rome"],"prediction":{"text":"paris"}}
{"schema":1,"id":"b","question":"q","answers":["rome berlin"],"prediction":{"text":"paris"}}
`
	run := func(t *testing.T, broken string) (recs map[string]record.Record, code int, stderr, url string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path == broken:
				http.Error(w, "model not loaded", http.StatusUnprocessableEntity)
			case r.URL.Path == "/embed": // each text's vector: the sum of its words' token vectors
				var req struct{ Inputs []string }
				json.NewDecoder(r.Body).Decode(&req) //nolint:errcheck // an empty request fails the client's checks
				vecs := make([][]float32, len(req.Inputs))
				for i, in := range req.Inputs {
					vecs[i] = make([]float32, 3)
					for _, word := range strings.Fields(in) {
						for j, x := range tokenVectors[word] {
							vecs[i][j] += x
						}
					}
				}
				json.NewEncoder(w).Encode(vecs) //nolint:errcheck
			default:
				forward(w, tei.URL+r.URL.Path, r.Body)
			}
		}))
		t.Cleanup(srv.Close)
		var stdout, errs bytes.Buffer
		err := Run(context.Background(), []string{"qa-score", "--metrics", "sbert,bertscore_f1", "--embed-provider", "tei",
			"--embed-model", "m", "--embed-base-url", srv.URL, "--embed-max-retries", "0"}, strings.NewReader(input), &stdout, &errs)
		recs = map[string]record.Record{}
		for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			var r record.Record
			if err := record.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%s: %v (stderr %s)", l, err, errs.String())
			}
			recs[r.ID] = r
		}
		return recs, command.ExitCode(err), errs.String(), srv.URL
	}
	whole, code, _, _ := run(t, "")
	if code != 0 || len(whole) != 2 || math.Abs(whole["a"].Scores["sbert"]-1/math.Sqrt2) > 1e-6 || whole["b"].Scores["bertscore_f1"] == 0 {
		t.Fatalf("both calls working: exit %d, records %+v; want exit 0, sbert of a 1/√2 and bertscore_f1 of b", code, whole)
	}
	tests := []struct {
		broken       string
		failed, kept string
	}{
		{"/tokenize", "bertscore_f1", "sbert"},
		{"/embed", "sbert", "bertscore_f1"},
	}
	for _, tt := range tests {
		t.Run(tt.broken, func(t *testing.T) {
			recs, code, stderr, srvURL := run(t, tt.broken)
			if code != command.ExitBadRecords {
				t.Errorf("exit %d, want %d", code, command.ExitBadRecords)
			}
			// The line names the metrics once, then the call's own error, which names its
			// endpoint; it said "without sbert: sbert: embed …".
			why := "embed " + srvURL + tt.broken + ": 422 Unprocessable Entity: model not loaded; the server answered " +
				`text/plain ("model not loaded"), not JSON: ` + srvURL + " is most likely not the API's base URL"
			line := `qa-score: stdin:1-2 (ids "a" … "b"): 2 records without ` + tt.failed + ": " + why + "\n"
			if !strings.HasPrefix(stderr, line) || strings.Count(stderr, "records without") != 1 {
				t.Errorf("stderr %q, want one line %q", stderr, line)
			}
			for id, r := range recs {
				if got, want := r.Scores[tt.kept], whole[id].Scores[tt.kept]; got != want {
					t.Errorf("%s: %s = %v, want %v, as when both calls work", id, tt.kept, got, want)
				}
				if _, ok := r.Scores[tt.failed]; ok {
					t.Errorf("%s: %s = %v beside its failed call", id, tt.failed, r.Scores[tt.failed])
				}
				if got, want := r.ScoreErrors, map[string]string{tt.failed: "embedding call failed: " + why}; !maps.Equal(got, want) {
					t.Errorf("%s: score_errors = %q, want %q", id, got, want)
				}
			}
		})
	}
}

// forward posts body to url, a loopback embedding server, and writes its reply to w, as a proxy
// in front of it would.
func forward(w http.ResponseWriter, url string, body io.Reader) {
	resp, err := http.Post(url, "application/json", body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body) //nolint:errcheck
}

// TestEmbedPrefixSpaceCache: --embed-prefix-space is another tokenization of every text, so a
// shared --cache never serves the token embeddings fetched without it (nor the reverse): each
// setting's first run fetches its own and scores as embed_bertscore.txtar and
// embed_bertscore_prefix_space.txtar say, and its rerun takes them all from the cache.
func TestEmbedPrefixSpaceCache(t *testing.T) {
	tei := newTEIServer(t)
	var mu sync.Mutex
	var inputs []string // of each /tokenize and /embed_all request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct{ Inputs []string }
		json.Unmarshal(body, &req) //nolint:errcheck // the server behind says what is wrong
		mu.Lock()
		inputs = append(inputs, req.Inputs...)
		mu.Unlock()
		forward(w, tei.URL+r.URL.Path, bytes.NewReader(body))
	}))
	t.Cleanup(srv.Close)
	db := filepath.Join(t.TempDir(), "cache.db")
	const input = `{"schema":1,"id":"a","question":"q","answers":["paris rome"],"prediction":{"text":"paris"}}` + "\n"
	for i, tc := range []struct {
		prefix bool
		sent   []string // the inputs of the requests made
		cached string
		f1     string
	}{
		{false, []string{"paris", "paris", "paris rome", "paris rome"}, "1 batch for 2 texts, 0 texts from the cache", `"bertscore_f1":0.9473684210526316`},
		{true, []string{" paris", " paris", " paris rome", " paris rome"}, "1 batch for 2 texts, 0 texts from the cache", `"bertscore_f1":0.98989898989899`},
		{true, nil, "0 batches for 0 texts, 2 texts from the cache", `"bertscore_f1":0.98989898989899`},
		{false, nil, "0 batches for 0 texts, 2 texts from the cache", `"bertscore_f1":0.9473684210526316`},
	} {
		mu.Lock()
		inputs = nil
		mu.Unlock()
		args := []string{"qa-score", "--metrics", "bertscore_f1", "--embed-provider", "tei", "--embed-model", "roberta",
			"--embed-base-url", srv.URL, "--cache", db}
		if tc.prefix {
			args = append(args, "--embed-prefix-space")
		}
		var stdout, stderr bytes.Buffer
		if err := Run(context.Background(), args, strings.NewReader(input), &stdout, &stderr); err != nil {
			t.Fatalf("run %d: %v: %s", i+1, err, stderr.String())
		}
		mu.Lock()
		got := slices.Clone(inputs)
		mu.Unlock()
		slices.Sort(got)
		if !slices.Equal(got, tc.sent) {
			t.Errorf("run %d (prefix %v): sent %q, want %q", i+1, tc.prefix, got, tc.sent)
		}
		if !strings.Contains(stderr.String(), tc.cached) || !strings.Contains(stdout.String(), tc.f1) {
			t.Errorf("run %d (prefix %v): stdout %s stderr %s; want %s and %q", i+1, tc.prefix, stdout.String(), stderr.String(), tc.f1, tc.cached)
		}
	}
}
