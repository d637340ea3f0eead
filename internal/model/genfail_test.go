package model

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// openAIFailed is an OpenAI-compatible chat completion whose first choice is content, a JSON
// value, ended for finish with extra beside it in the choice (OpenRouter's error object), with
// 12 prompt and 1 completion tokens.
func openAIFailed(content, finish, extra string) string {
	return `{"id":"gen-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":` +
		content + `},"finish_reason":"` + finish + `"` + extra + `}],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}`
}

// TestGenerationFailed: an OpenAI-compatible server that ends a generation with finish_reason
// "error" (OpenRouter, which may put an error object {code, message} in the choice; vLLM) or
// "abort" (vLLM, a request aborted in its engine) gave no answer, whatever text came before: the
// call fails with the server's reason and words, retried as the error's code would be as a status
// (a failure without one is the server's, retried), and keeps the usage of every reply, each
// failed one's (billed) and the answer's.
func TestGenerationFailed(t *testing.T) {
	ok := wires[0].reply
	for _, tc := range []struct {
		name     string
		replies  []string // in order; the last repeats
		wantErr  []string // substrings of the error, none for success
		attempts int
	}{
		{"openrouter 502 throughout",
			[]string{openAIFailed(`"Par"`, "error", `,"native_finish_reason":"error","error":{"code":502,"message":"Upstream error from Provider X: connection reset"}`)},
			[]string{`finish_reason "error"`, "error 502: Upstream error from Provider X: connection reset", "after 3 attempts"}, 3},
		{"openrouter 502, then an answer",
			[]string{openAIFailed(`"Par"`, "error", `,"error":{"code":502,"message":"Upstream error"}`), ok}, nil, 2},
		{"openrouter 429 is retried",
			[]string{openAIFailed(`"Par"`, "error", `,"error":{"code":429,"message":"Rate limit exceeded"}`), ok}, nil, 2},
		{"openrouter 400 is final",
			[]string{openAIFailed(`""`, "error", `,"error":{"code":400,"message":"Invalid tool schema"}`)},
			[]string{`finish_reason "error"`, "error 400: Invalid tool schema"}, 1},
		{"error without an error object",
			[]string{openAIFailed(`"The capital is"`, "error", "")},
			[]string{`finish_reason "error"`, "after 3 attempts"}, 3},
		{"code that is no number",
			[]string{openAIFailed(`null`, "error", `,"error":{"code":"server_error","message":"oops"}`)},
			[]string{`finish_reason "error"`, ": oops", "after 3 attempts"}, 3},
		// An error object beside the choices, not in the failed one (as OpenRouter puts it in a
		// stream's chunk): its code and words are the failure's.
		{"error object beside the choices",
			[]string{strings.Replace(openAIFailed(`"Par"`, "error", ""), `"usage"`, `"error":{"code":400,"message":"Invalid tool schema"},"usage"`, 1)},
			[]string{`finish_reason "error"`, "error 400: Invalid tool schema"}, 1},
		{"error string beside the choices",
			[]string{strings.Replace(openAIFailed(`"Par"`, "error", ""), `"usage"`, `"error":"engine died","usage"`, 1)},
			[]string{`finish_reason "error"`, ": engine died", "after 3 attempts"}, 3},
		// A code that is no HTTP error status names none: the failure is the server's, retried,
		// and its words do not pass it off as a status.
		{"negative code",
			[]string{openAIFailed(`"Par"`, "error", `,"error":{"code":-5,"message":"neg"}`)},
			[]string{`a failed generation: neg`, "after 3 attempts"}, 3},
		{"code 200",
			[]string{openAIFailed(`"Par"`, "error", `,"error":{"code":200,"message":"ok?"}`)},
			[]string{`a failed generation: ok?`, "after 3 attempts"}, 3},
		{"huge code",
			[]string{openAIFailed(`"Par"`, "error", `,"error":{"code":99999999999,"message":"huge"}`)},
			[]string{`a failed generation: huge`, "after 3 attempts"}, 3},
		{"vllm abort", []string{openAIFailed(`"Par"`, "abort", ""), ok}, nil, 2},
		{"vllm abort throughout", []string{openAIFailed(`""`, "abort", "")},
			[]string{`finish_reason "abort"`, "after 3 attempts"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, calls := replayServer(t, tc.replies, nil)
			c := retryingOpenAI(t, srv.URL, 2)
			resp, err := c.Generate(context.Background(), testRequest("openai", "m"))
			if got := int(calls.Load()); got != tc.attempts || resp.Attempts != tc.attempts {
				t.Errorf("%d requests reached the server, %d attempts counted; want %d", got, resp.Attempts, tc.attempts)
			}
			if tc.wantErr == nil {
				want := record.Usage{InputTokens: 12*(tc.attempts-1) + wires[0].usage.InputTokens, OutputTokens: tc.attempts - 1 + wires[0].usage.OutputTokens}
				if err != nil || resp.Text != "Paris" || !reflect.DeepEqual(resp.Usage, want) {
					t.Errorf("Generate = %+v, %v; want the answer Paris with the usage of every reply, %+v", resp, err, want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Generate = %+v, want an error", resp)
			}
			errorHas(t, err, tc.wantErr...)
			if errors.Is(err, ErrEmptyReply) {
				t.Errorf("error %q is an empty reply's", err)
			}
			var ge *GenerationError
			if !errors.As(err, &ge) {
				t.Errorf("error %q is no GenerationError", err)
			}
			if resp.Text != "" || resp.Stopped || resp.Cut || resp.Filtered {
				t.Errorf("response %+v passes the failed reply off as an answer", resp)
			}
			if want := (record.Usage{InputTokens: 12 * tc.attempts, OutputTokens: tc.attempts}); !reflect.DeepEqual(resp.Usage, want) || resp.NoUsage {
				t.Errorf("usage %+v (unknown %v), want every reply's, %+v", resp.Usage, resp.NoUsage, want)
			}
		})
	}
}

// errorHas fails t for each of wants that err's text does not hold.
func errorHas(t *testing.T, err error, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}
