package judge

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoopbackEmptyReplyWhy: the error of a judgment whose replies were empty says what the server
// sent, in the words qa-predict's error gives the same reply (the model client's): no choices, a
// content null, or an empty content that stopped of itself, in every mode that calls a model. Each
// is asked again as an unparsable reply is (--parse-retries); with --cache, the one that stopped of
// itself is stored and read back, with the same error, and the others are asked again.
func TestLoopbackEmptyReplyWhy(t *testing.T) {
	dir := t.TempDir()
	yesNo := filepath.Join(dir, "yesno.txt")
	if err := os.WriteFile(yesNo, []byte("Gold {answer}. Said {prediction}. Yes or no?"), 0o644); err != nil {
		t.Fatal(err)
	}
	locomo := rec("locomo:c:0", "locomo", "temporal", "When?", "May", "May", `{"category":2}`)
	modes := []struct {
		name string
		args []string
		in   string
	}{
		{"longmemeval", nil, rec("longmemeval:q1", "longmemeval", "single-session-user", "Which city?", "Paris", "Paris", "")},
		{"mem0", []string{"--mode", "mem0"}, locomo},
		{"locomo-continuous", nil, locomo},
		{"evalearn", nil, rec("evalearn:4:1", "evalearn", "Logical Reasoning", "Solve it", "", "42", "")},
		{"custom", []string{"--prompt", yesNo, "--prompt-format", "yes-no"}, locomo},
	}
	replies := []struct {
		name   string
		write  func(http.ResponseWriter, chatRequest)
		want   string
		cached bool
	}{
		{"no choices", func(w http.ResponseWriter, r chatRequest) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id":"c","object":"chat.completion","created":1,"model":"judge-1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":0,"total_tokens":12}}`))
		}, "unparsable judge reply: empty reply (no choices)", false},
		{"content null", func(w http.ResponseWriter, r chatRequest) {
			writeCompletion(w, r.Model, map[string]any{"role": "assistant", "content": nil}, "stop", 0)
		}, "unparsable judge reply: empty reply (stop reason stop; content null)", false},
		{"content empty", func(w http.ResponseWriter, r chatRequest) {
			writeCompletion(w, r.Model, map[string]any{"role": "assistant", "content": ""}, "stop", 0)
		}, "unparsable judge reply: empty reply (stop reason stop)", true},
	}
	for _, m := range modes {
		for _, rp := range replies {
			t.Run(m.name+"/"+rp.name, func(t *testing.T) {
				srv := newChatWriter(t, rp.write)
				args := append([]string{"--base-url", srv.URL, "--model", "judge-1", "--name", "j", "--parse-retries", "1",
					"--cache", filepath.Join(t.TempDir(), "judge.sqlite")}, m.args...)
				for run := 1; run <= 2; run++ {
					stdout, stderr, code := runJudge(t, args, m.in)
					calls := 2 * run
					if rp.cached {
						calls = 2
					}
					recs := decodeAll(t, stdout)
					if code != 3 || len(recs) != 1 || srv.count() != calls {
						t.Fatalf("run %d: exit %d, %d records, %d calls in all; want 3, 1 and %d (stderr %s)", run, code, len(recs), srv.count(), calls, stderr)
					}
					j := recs[0].Judgments["j"]
					if j == nil || j.Score != nil || j.Error != rp.want || j.Attempts != 2 || j.Cached != (rp.cached && run == 2) {
						t.Errorf("run %d: judgment %+v, want error %q after 2 attempts, cached %v", run, j, rp.want, rp.cached && run == 2)
					}
					if !strings.Contains(stderr, "1 unparsable, 0 failed") || !strings.Contains(stderr, rp.want) {
						t.Errorf("run %d: stderr = %q, want the judgment counted unparsable and its error named", run, stderr)
					}
				}
			})
		}
	}
}
