package clitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
)

// HoldServer is a loopback server speaking OpenAI's chat completions that answers at once every
// request but those whose last message contains its marker: it holds those until Release, or
// until their client goes away. Its channels let a test wait for each held request to arrive and
// for each to be abandoned, never for a time to pass.
type HoldServer struct {
	*httptest.Server
	// Held receives the last message of each held request as it arrives; Abandoned receives it
	// when the client gave the request up before Release. Both have room for every request a
	// test makes (64).
	Held, Abandoned chan string

	marker  string
	reply   func(prompt string) string
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	prompts []string
}

// NewHoldServer starts a HoldServer holding the requests whose last message contains marker and
// answering each with reply(its last message). The test's cleanup releases and closes it.
func NewHoldServer(t *testing.T, marker string, reply func(prompt string) string) *HoldServer {
	s := &HoldServer{Held: make(chan string, 64), Abandoned: make(chan string, 64), marker: marker,
		reply: reply, release: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		s.Release()
		s.Close()
	})
	return s
}

// Release lets the held requests, and those to come, be answered.
func (s *HoldServer) Release() { s.once.Do(func() { close(s.release) }) }

// Prompts returns the last message of every request that reached the server, in arrival order.
func (s *HoldServer) Prompts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prompts...)
}

func (s *HoldServer) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	prompt := req.Messages[len(req.Messages)-1].Content
	s.mu.Lock()
	s.prompts = append(s.prompts, prompt)
	s.mu.Unlock()
	if strings.Contains(prompt, s.marker) {
		s.Held <- prompt
		select {
		case <-s.release:
		case <-r.Context().Done():
			s.Abandoned <- prompt
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "c", "object": "chat.completion", "created": 1, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": s.reply(prompt)}}},
		"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 2, "total_tokens": 102},
	})
}

// Interrupt runs the command of a paid stage (qa-predict, qa-judge) as TestSignal tests it: the
// child test child runs prog's main with args over stdin, while held of its calls hang on s.
// Once they have all arrived it sends the first of signals and waits for the command to say it
// is finishing them; with a second signal it waits for the calls to be abandoned, else it lets
// them be answered. It checks that the command exits as interrupted, with stderr ending so, and
// that the server was asked asked times in all, and returns the command's output.
func (s *HoldServer) Interrupt(t *testing.T, prog, child string, args []string, stdin string, held, asked int, signals []os.Signal) (stdout, stderr string) {
	t.Helper()
	p := StartMain(t, child, args, stdin)
	for range held {
		Receive(t, s.Held, "a held call")
	}
	p.Signal(t, signals[0])
	p.WaitStderr(t, fmt.Sprintf("%s: interrupted: finishing %s in flight", prog, english.Count(held, "call", "calls")))
	if len(signals) > 1 {
		p.Signal(t, signals[1])
		p.WaitStderr(t, prog+": interrupted again: abandoning the calls in flight")
		for range held {
			Receive(t, s.Abandoned, "an abandoned call")
		}
	} else {
		s.Release()
	}
	code, stdout, stderr := p.Wait(t)
	if code != command.ExitInterrupted || !strings.HasSuffix(stderr, prog+": interrupted\n") {
		t.Errorf("exit code %d, want %d, and stderr ending with the interruption:\n%s", code, command.ExitInterrupted, stderr)
	}
	if got := len(s.Prompts()); got != asked {
		t.Errorf("the server was asked %d times, want %d (none after the signal)", got, asked)
	}
	return stdout, stderr
}

// CheckWritten checks the ids of the records a paid stage wrote after Interrupt, its input being
// n records with the ids prefix0 to prefix<n-1>: after one signal every record, in input order;
// after a second (abandon), only the first done, those whose calls were done before the rest
// were abandoned (verb says how: "judged", "answered").
func CheckWritten(t *testing.T, ids []string, prefix string, n, done int, abandon bool, verb string) {
	t.Helper()
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	if !abandon && !slices.Equal(ids, want) {
		t.Errorf("records written: %v, want every record in input order: %v", ids, want)
	}
	if abandon && !slices.Equal(ids, want[:done]) {
		t.Errorf("records written: %v, want the ones %s before the calls abandoned: %v", ids, verb, want[:done])
	}
}
