package predict

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestSequentialEmptyReplyKept: under --empty-reply keep, an EvaLearn position whose student
// reply stopped of itself with no text is the answer "", judged, and the sequence goes on with it
// in the history, as evaluate.py judges gpt4res "" and goes on; by default it is an error that
// breaks the sequence.
func TestSequentialEmptyReplyKept(t *testing.T) {
	var mu sync.Mutex
	var students []string // the student requests' user messages, in order
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct{ Role, Content string }
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		content := `"[Grade]: 0 points\n{\"answer_score\": 0}"`
		if req.Model == "fake-client" {
			user := req.Messages[len(req.Messages)-1].Content
			mu.Lock()
			students = append(students, user)
			first := len(students) == 1
			mu.Unlock()
			content = `"The answer is 2."`
			if first {
				content = `""`
			}
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"`+req.Model+`","choices":[{"index":0,"message":{"role":"assistant","content":`+content+`},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`)
	}))
	t.Cleanup(srv.Close)
	const in = `{"schema":1,"id":"evalearn:s:1","dataset":"evalearn","type":"Logical Reasoning","question":"Q1","turns":["Q1"],"answers":[],"rubric":"R1","sequence":{"id":"s","position":1}}
{"schema":1,"id":"evalearn:s:2","dataset":"evalearn","type":"Logical Reasoning","question":"Q2","turns":["Q2"],"answers":[],"rubric":"R2","sequence":{"id":"s","position":2}}
`
	tests := []struct {
		mode     string
		wantErr  [2]string // the predictions' errors
		students int       // student calls made
	}{
		{"error", [2]string{"empty reply", "skipped: position 1 failed"}, 1},
		{"keep", [2]string{"", ""}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			students = nil
			recs, stderr, _ := seqRun(t, in, seqArgs(t, srv.URL+"/v1", "--empty-reply", tt.mode, "--concurrency", "1")...)
			if len(recs) != 2 || len(students) != tt.students {
				t.Fatalf("%d records, %d student calls; want 2, %d\n%s", len(recs), len(students), tt.students, stderr)
			}
			for i, rec := range recs {
				if p := rec.Prediction; tt.wantErr[i] == "" && p.Error != "" || !strings.Contains(p.Error, tt.wantErr[i]) {
					t.Errorf("%s: prediction error %q, want %q", rec.ID, p.Error, tt.wantErr[i])
				}
			}
			if tt.mode != "keep" {
				return
			}
			p, jg := recs[0].Prediction, recs[0].Judgments["evalearn"]
			if p.Text != "" || !p.HasText() || jg == nil || jg.Score == nil || *jg.Score != 0 || jg.Error != "" {
				t.Errorf("position 1: prediction %+v, judgment %+v; want the answer \"\" judged 0", p, jg)
			}
			if !strings.Contains(students[1], "[Student Answer Start]\n\n[Student Answer End]") {
				t.Errorf("position 2's history lacks position 1's empty answer:\n%s", students[1])
			}
			if want := "qa-predict: warning: 1 reply was empty, kept as \"\" (--empty-reply keep)\n"; !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		})
	}
}

// contentServer answers every OpenAI chat call with reply(its last message), finish_reason stop,
// 10 tokens in and 1 out.
func contentServer(t *testing.T, reply func(prompt string) string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := clitest.ReadChat(w, r)
		if !ok {
			return
		}
		content, _ := json.Marshal(reply(req.Prompt))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"`+req.Model+`","choices":[{"index":0,"message":{"role":"assistant","content":`+string(content)+`},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestEmptyReplyKeptModes: under --empty-reply keep, LongMemEval's con-separate keeps an empty
// note as the note "" and an empty reading as the hypothesis "", as run_generation.py does
// (.strip() of the content); LoCoMo asked one question at a time stores "" (evaluate_qa.py's
// answer.strip(), get_cat_5_answer("") for category 5); a LoCoMo batch's empty reply is read as
// its script reads it, which finds no question's answer in it, so each record fails as for any
// unreadable reply. By default each is the error "empty reply".
func TestEmptyReplyKeptModes(t *testing.T) {
	var mu sync.Mutex
	notes := 0
	lme := contentServer(t, func(p string) string {
		if !strings.HasPrefix(p, "I will give you a chat history") {
			return " \n" // the reading, blank
		}
		mu.Lock()
		defer mu.Unlock()
		if notes++; notes == 2 {
			return ""
		}
		return "note"
	})
	empty := contentServer(t, func(string) string { return "" })
	// White space to Python's strip(), which every mode applies, though not to Go's TrimSpace.
	pyBlank := contentServer(t, func(string) string { return "\x1c\x1f\u3000" })
	rec := longMemEvalRecord("longmemeval:q1", "")
	locomo := goldenLoCoMo(t)
	tests := []struct {
		name    string
		url     string
		in      string
		args    []string
		keep    func(t *testing.T, recs []*record.Record)
		errWant string // the error of every record by default
		warn    int    // the replies kept
	}{
		{"longmemeval con-separate", lme.URL, jsonl(t, rec), []string{"--model", "gpt-4o", "--reading", "con-separate", "--history-sessions", "3"},
			func(t *testing.T, recs []*record.Record) {
				if p := recs[0].Prediction; p.Error != "" || p.Text != "" || !p.HasText() || !slices.Equal(p.Notes, []string{"note", "", "note"}) {
					t.Errorf("prediction %+v, want the answer \"\" over the notes note, \"\", note", p)
				}
			}, "notes on history block 2 of 3: openai gpt-4o: empty reply (stop reason stop)", 2},
		{"locomo one at a time", empty.URL, jsonl(t, locomo...), []string{"--model", "gpt-4-turbo"},
			func(t *testing.T, recs []*record.Record) {
				for _, r := range recs {
					if p := r.Prediction; p.Error != "" || p.Text != "" || !p.HasText() {
						t.Errorf("%s: prediction %+v, want the answer \"\"", r.ID, p)
					}
				}
			}, "openai gpt-4-turbo: empty reply (stop reason stop)", len(locomo)},
		{"locomo one at a time, Python's white space", pyBlank.URL, jsonl(t, locomo...), []string{"--model", "gpt-4-turbo"},
			func(t *testing.T, recs []*record.Record) {
				for _, r := range recs {
					if p := r.Prediction; p.Error != "" || p.Text != "" || !p.HasText() {
						t.Errorf("%s: prediction %+v, want the answer \"\"", r.ID, p)
					}
				}
			}, "openai gpt-4-turbo: empty reply (stop reason stop)", len(locomo)},
		{"locomo batch", empty.URL, jsonl(t, locomo...), []string{"--model", "gpt-4-turbo", "--batch-size", "10"},
			func(t *testing.T, recs []*record.Record) {
				for _, r := range recs {
					if p := r.Prediction; !strings.Contains(p.Error, `cannot read the batched reply`) || !strings.HasSuffix(p.Error, `the reply: ""`) {
						t.Errorf("%s: prediction %+v, want the empty reply unreadable as a batch's", r.ID, p)
					}
				}
			}, "openai gpt-4-turbo: empty reply (stop reason stop)", 1},
	}
	for _, tt := range tests {
		for _, mode := range []string{"error", "keep"} {
			t.Run(tt.name+", "+mode, func(t *testing.T) {
				mu.Lock()
				notes = 0
				mu.Unlock()
				args := append([]string{"--provider", "openai", "--base-url", tt.url, "--api-key-file", keyFile(t), "--concurrency", "1", "--empty-reply", mode}, tt.args...)
				recs, stderr, _ := run(t, context.Background(), tt.in, args...)
				if len(recs) == 0 {
					t.Fatalf("no records\n%s", stderr)
				}
				warn := fmt.Sprintf("qa-predict: warning: %d %s empty, kept as", tt.warn, map[bool]string{true: "reply was", false: "replies were"}[tt.warn == 1])
				if mode == "error" {
					for _, r := range recs {
						if !strings.Contains(r.Prediction.Error, tt.errWant) {
							t.Errorf("%s: error %q, want %q", r.ID, r.Prediction.Error, tt.errWant)
						}
					}
					if strings.Contains(stderr, "kept as") {
						t.Errorf("stderr warns of kept replies:\n%s", stderr)
					}
					return
				}
				tt.keep(t, recs)
				if !strings.Contains(stderr, warn) {
					t.Errorf("stderr lacks %q:\n%s", warn, stderr)
				}
			})
		}
	}
}
