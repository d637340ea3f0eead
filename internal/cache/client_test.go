package cache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestClientCachesWholeClaudeReply: a Claude reply of several content blocks is stored and
// served back whole, its text blocks joined, with its usage.
func TestClientCachesWholeClaudeReply(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[`+
			`{"type":"thinking","thinking":"France: Paris.","signature":"EqQB"},{"type":"text","text":"The capital is "},{"type":"text","text":"Paris."}],`+
			`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":9}}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	cl := tempCache(t).Wrap(serverClient(t, "anthropic", srv.URL+"/v1", model.TransportConfig{}))
	req := model.Request{Provider: "anthropic", BaseURL: srv.URL + "/v1", Model: "claude-sonnet-4-20250514", MaxTokens: 64,
		Messages: []model.Message{{Role: "user", Content: "Capital of France?"}}}
	want := record.Usage{InputTokens: 20, OutputTokens: 9}
	for i, cached := range []bool{false, true} {
		resp, err := cl.Generate(ctx, req)
		if err != nil || resp.Text != "The capital is Paris." || !reflect.DeepEqual(resp.Usage, want) || resp.Cached != cached {
			t.Errorf("call %d: Generate = %+v, %v; want the text \"The capital is Paris.\", usage %+v, cached %v", i+1, resp, err, want, cached)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d requests reached the server, want 1", n)
	}
}

// TestClientStoresRepliesAsTheyCame: under model.Thinking, which wraps the cache, a reply is
// stored as it came, its thinking in the text and the reasoning its server sent apart, so that a
// client reading it with another --think gets it from the cache.
func TestClientStoresRepliesAsTheyCame(t *testing.T) {
	srv := newChatServer(t, func(int64, string) (int, string) {
		return 200, completion(`{"role":"assistant","content":"<think>\nhmm\n</think>\n\nParis","reasoning_content":"sent apart"}`, 5, 9)
	})
	c := tempCache(t)
	ctx := context.Background()
	next := srv.client(t, model.TransportConfig{MaxRetries: -1})
	req := srv.request("Capital of France?")
	req.Model = "r1"
	strip, keep := model.Thinking{Next: c.Wrap(next)}, c.Wrap(next)
	if resp, err := strip.Generate(ctx, req); err != nil || resp.Text != "Paris" || resp.Reasoning != "sent apart\n\nhmm" {
		t.Errorf("strip: Generate = %+v, %v; want Paris, reasoning sent apart and hmm", resp, err)
	}
	if resp, err := keep.Generate(ctx, req); err != nil || resp.Text != "<think>\nhmm\n</think>\n\nParis" || resp.Reasoning != "sent apart" || !resp.Cached {
		t.Errorf("keep: Generate = %+v, %v; want the text as it came and the reasoning sent apart, from the cache", resp, err)
	}
	if resp, err := strip.Generate(ctx, req); err != nil || resp.Text != "Paris" || !resp.Cached {
		t.Errorf("strip again: Generate = %+v, %v; want Paris from the cache", resp, err)
	}
	if n := srv.calls.Load(); n != 1 {
		t.Errorf("%d requests reached the server, want 1", n)
	}
}

// TestClientAsksOnceAtATime: the same request made several times at once reaches the server once;
// the others wait for its reply and are answered from the cache, as they would be one after the
// other, so that a run's records and spend do not depend on its concurrency. A request whose
// call fails leaves the next one to ask again, and other requests are not held up.
func TestClientAsksOnceAtATime(t *testing.T) {
	var calls atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		calls.Add(1)
		if strings.Contains(string(body), "slow") {
			<-release
		}
		if strings.Contains(string(body), "fail") && calls.Load() == 1 {
			http.Error(w, `{"error":{"message":"nope","type":"invalid_request_error"}}`, 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	cl := tempCache(t).Wrap(serverClient(t, "openai", srv.URL, model.TransportConfig{MaxRetries: -1}))
	req := func(text string) model.Request {
		return model.Request{Provider: "openai", BaseURL: srv.URL, Model: "m", MaxTokens: 8,
			Messages: []model.Message{{Role: "user", Content: text}}}
	}

	const n = 6
	got := make(chan model.Response, n)
	for range n {
		go func() {
			resp, err := cl.Generate(ctx, req("slow question"))
			if err != nil {
				t.Error(err)
			}
			got <- resp
		}()
	}
	// While the slow call is held, another request is answered.
	if resp, err := cl.Generate(ctx, req("other question")); err != nil || resp.Text != "Paris" || resp.Cached {
		t.Errorf("another request while one is in flight: %+v, %v", resp, err)
	}
	close(release)
	cached := 0
	for range n {
		if resp := <-got; resp.Text != "Paris" {
			t.Errorf("reply %+v, want Paris", resp)
		} else if resp.Cached {
			cached++
		}
	}
	if calls.Load() != 2 || cached != n-1 {
		t.Errorf("%d requests reached the server and %d of %d replies came from the cache; want 2 (the slow one once, the other) and %d", calls.Load(), cached, n, n-1)
	}

	// A failed call is not stored: the next request of its key asks again.
	calls.Store(0)
	if _, err := cl.Generate(ctx, req("fail first")); err == nil {
		t.Error("first call: no error, want the 400")
	}
	if resp, err := cl.Generate(ctx, req("fail first")); err != nil || resp.Text != "Paris" || resp.Cached || calls.Load() != 2 {
		t.Errorf("after a failed call: %+v, %v (%d requests), want a new call's answer", resp, err, calls.Load())
	}
	if len(cl.locks.locks) != 0 {
		t.Errorf("%d key locks left after every call ended, want none", len(cl.locks.locks))
	}
}

// tempCache opens a cache in a temporary folder, closed when the test ends.
func tempCache(t *testing.T) *Cache {
	t.Helper()
	c, err := Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// serverClient is a model client of provider for the test server at baseURL, through a
// Transport of tc.
func serverClient(t *testing.T, provider, baseURL string, tc model.TransportConfig) model.Client {
	t.Helper()
	next, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: baseURL, APIKey: "sk-test-0123456789",
		HTTPClient: model.NewTransport(tc).Client()})
	if err != nil {
		t.Fatal(err)
	}
	return next
}

// chatServer is a loopback server speaking OpenAI's chat completions, for a real model client to
// call; it counts the requests it gets.
type chatServer struct {
	url   string
	calls atomic.Int64
}

// newChatServer starts a chatServer, closed when the test ends, that answers its nth request
// (counting from 1) with the status and body answer returns for n and the request's last
// message.
func newChatServer(t testing.TB, answer func(n int64, question string) (status int, body string)) *chatServer {
	t.Helper()
	s := &chatServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.calls.Add(1)
		var body struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
			http.Error(w, `{"error":{"message":"unreadable request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		status, reply := answer(n, body.Messages[len(body.Messages)-1].Content)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/v1"
	return s
}

// echoServer is a chatServer that answers every request "a:" and its question, with usage 3 in
// and 1 out.
func echoServer(t *testing.T) *chatServer {
	t.Helper()
	return newChatServer(t, func(_ int64, q string) (int, string) { return 200, echo(q) })
}

// echo is the body of a chat completion answering "a:" and q, with usage 3 in and 1 out.
func echo(q string) string {
	msg, _ := json.Marshal(map[string]string{"role": "assistant", "content": "a:" + q})
	return completion(string(msg), 3, 1)
}

// completion is the body of a chat completion of one choice, the message msg, that stopped, with
// usage in and out.
func completion(msg string, in, out int) string {
	return fmt.Sprintf(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":%s,"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, msg, in, out, in+out)
}

// client is a real model client of s, through a Transport of tc.
func (s *chatServer) client(t *testing.T, tc model.TransportConfig) model.Client {
	t.Helper()
	return serverClient(t, "openai", s.url, tc)
}

// request is a request to s of model m asking q.
func (s *chatServer) request(q string) model.Request {
	return model.Request{Provider: "openai", BaseURL: s.url, Model: "m", MaxTokens: 8, Messages: []model.Message{{Role: "user", Content: q}}}
}

// blankClient answers every call with a reply of blank text, and counts the calls.
type blankClient struct{ calls atomic.Int64 }

func (c *blankClient) Generate(context.Context, model.Request) (model.Response, error) {
	c.calls.Add(1)
	return model.Response{Text: " \n\t", Usage: record.Usage{InputTokens: 3, OutputTokens: 2}}, nil
}

// TestClientDoesNotStoreBlankReplies: a reply whose text is only white space is no answer to
// serve; it is not stored, and the next run asks again.
func TestClientDoesNotStoreBlankReplies(t *testing.T) {
	ctx := context.Background()
	c, err := Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	next := &blankClient{}
	cl := c.Wrap(next)
	req := model.Request{Provider: "openai", Model: "m", Messages: []model.Message{{Role: "user", Content: "q"}}}
	for i := range 2 {
		if resp, err := cl.Generate(ctx, req); err != nil || resp.Cached {
			t.Fatalf("call %d: Generate = %+v, %v; want the blank reply, not cached", i+1, resp, err)
		}
	}
	if n, _ := c.Len(ctx); n != 0 || next.calls.Load() != 2 {
		t.Errorf("entries = %d, calls = %d; want 0 entries and 2 calls", n, next.calls.Load())
	}
}

// TestUnstoredNamesFirst: the warning of replies that could not be stored counts them all and
// names the first error, the one that started it.
func TestUnstoredNamesFirst(t *testing.T) {
	c := &Cache{}
	c.unstoredReply(fmt.Errorf("database is locked"))
	c.unstoredReply(fmt.Errorf("disk I/O error"))
	got := c.Unstored()
	if !strings.HasPrefix(got, "2 replies could not be stored in the cache (database is locked):") {
		t.Errorf("Unstored() = %q, want 2 replies and the first error", got)
	}
}

// TestClientKeepsStoppedEmptyReplies: a Client with KeepEmpty stores an empty reply that stopped
// of itself and serves it again, Stopped, with its error (ErrEmptyReply, its words as they were,
// no attempts) and no call; one cut at max_tokens, with a null content or refused is never
// stored. A Client without KeepEmpty stores none, and serves a stored one once, as its error,
// then asks again.
func TestClientKeepsStoppedEmptyReplies(t *testing.T) {
	tests := []struct {
		name    string
		message string
		finish  string
		stored  bool
	}{
		{"stopped", `{"role":"assistant","content":""}`, "stop", true},
		{"stopped, white space", `{"role":"assistant","content":" \n"}`, "stop", true},
		{"cut", `{"role":"assistant","content":""}`, "length", false},
		{"content null", `{"role":"assistant","content":null}`, "stop", false},
		{"refused", `{"role":"assistant","content":"","refusal":"No."}`, "stop", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newChatServer(t, func(int64, string) (int, string) {
				return 200, strings.Replace(completion(tt.message, 5, 1), `"finish_reason":"stop"`, `"finish_reason":"`+tt.finish+`"`, 1)
			})
			c := tempCache(t)
			ctx := context.Background()
			next := srv.client(t, model.TransportConfig{MaxRetries: -1})
			req := srv.request("Anything?")
			keep, plain := &Client{Next: next, Cache: c, KeepEmpty: true}, c.Wrap(next)
			first, ferr := keep.Generate(ctx, req)
			if !errors.Is(ferr, model.ErrEmptyReply) {
				t.Fatalf("first call: Generate = %+v, %v; want an empty reply", first, ferr)
			}
			resp, err := keep.Generate(ctx, req)
			wantCalls := int64(2)
			if tt.stored {
				wantCalls = 1
				if !errors.Is(err, model.ErrEmptyReply) || err.Error() != ferr.Error() || !resp.Stopped || !resp.Cached ||
					!reflect.DeepEqual(resp.Usage, first.Usage) || strings.TrimSpace(resp.Text) != "" {
					t.Errorf("from the cache: Generate = %+v, %v; want the first call's reply %+v and error %v, cached", resp, err, first, ferr)
				}
			}
			if n := srv.calls.Load(); n != wantCalls {
				t.Errorf("%d calls, want %d", n, wantCalls)
			}
			// Without KeepEmpty: the stored reply once, as its error, then a call.
			resp, err = plain.Generate(ctx, req)
			if !errors.Is(err, model.ErrEmptyReply) || resp.Cached != tt.stored {
				t.Errorf("without KeepEmpty: Generate = %+v, %v; want the empty reply, cached %v", resp, err, tt.stored)
			}
			if _, err := plain.Generate(ctx, req); !errors.Is(err, model.ErrEmptyReply) {
				t.Errorf("without KeepEmpty, again: %v, want an empty reply", err)
			}
			if tt.stored {
				wantCalls++ // the second
			} else {
				wantCalls += 2
			}
			if n := srv.calls.Load(); n != wantCalls {
				t.Errorf("without KeepEmpty: %d calls in all, want %d", n, wantCalls)
			}
			if n, _ := c.Len(ctx); n != 0 {
				t.Errorf("%d entries left, want 0: none stored without KeepEmpty, and the one read taken out", n)
			}
		})
	}
}

// TestClientStoredEmptyReplyWithoutAttempts: an empty reply stored under KeepEmpty is served
// again with its call's error as it was, but for the attempts that call took: a reply from the
// cache took none, so its error does not say "after 2 attempts".
func TestClientStoredEmptyReplyWithoutAttempts(t *testing.T) {
	srv := newChatServer(t, func(n int64, _ string) (int, string) {
		if n == 1 {
			return 503, `{"error":{"message":"busy","type":"server_error"}}`
		}
		return 200, completion(`{"role":"assistant","content":""}`, 5, 1)
	})
	c := tempCache(t)
	ctx := context.Background()
	cl := &Client{Next: srv.client(t, model.TransportConfig{MaxRetries: 1, Backoff: -1}), Cache: c, KeepEmpty: true}
	req := srv.request("Anything?")
	_, ferr := cl.Generate(ctx, req)
	if !errors.Is(ferr, model.ErrEmptyReply) || !strings.Contains(ferr.Error(), "(after 2 attempts)") {
		t.Fatalf("first call: %v, want an empty reply after 2 attempts", ferr)
	}
	resp, err := cl.Generate(ctx, req)
	want := strings.Replace(ferr.Error(), " (after 2 attempts)", "", 1)
	if !errors.Is(err, model.ErrEmptyReply) || err.Error() != want || !resp.Cached || resp.Attempts != 0 {
		t.Errorf("from the cache: %+v, %q; want the empty reply, cached, with the error %q", resp, err, want)
	}
	if n := srv.calls.Load(); n != 2 {
		t.Errorf("%d requests, want 2 (the 503 and the empty reply)", n)
	}
}

// TestClientEmptyReplyOfAnotherProcess: a process without KeepEmpty that waited for another
// process's call of the same request, which stored an empty reply under KeepEmpty, gets that
// reply once, as its error, and takes it out of the cache, as it does one it finds stored: its
// next call of the request asks again.
func TestClientEmptyReplyOfAnotherProcess(t *testing.T) {
	arrived, release := make(chan struct{}, 10), make(chan struct{})
	srv := newChatServer(t, func(int64, string) (int, string) {
		arrived <- struct{}{}
		<-release
		return 200, completion(`{"role":"assistant","content":""}`, 5, 1)
	})
	a, b := openTwice(t, filepath.Join(t.TempDir(), "c.db"))
	ctx := context.Background()
	next := srv.client(t, model.TransportConfig{MaxRetries: -1})
	keep, plain := &Client{Next: next, Cache: a, KeepEmpty: true}, b.Wrap(next)
	req := srv.request("Anything?")

	first := generate(ctx, keep, req)
	<-arrived
	waiting := generate(ctx, plain, req)
	time.Sleep(100 * time.Millisecond) // let it find the claim and wait
	close(release)
	if g := <-first; !errors.Is(g.err, model.ErrEmptyReply) || g.resp.Cached {
		t.Fatalf("process with KeepEmpty: %+v, %v, want a new call's empty reply", g.resp, g.err)
	}
	if g := <-waiting; !errors.Is(g.err, model.ErrEmptyReply) || !g.resp.Cached {
		t.Fatalf("process without KeepEmpty: %+v, %v, want the other's empty reply from the cache", g.resp, g.err)
	}
	if n := srv.calls.Load(); n != 1 {
		t.Errorf("%d requests while the two called, want 1", n)
	}
	if n, _ := b.Len(ctx); n != 0 {
		t.Errorf("%d entries left, want 0: the empty reply served without KeepEmpty is taken out", n)
	}
	if resp, err := plain.Generate(ctx, req); !errors.Is(err, model.ErrEmptyReply) || resp.Cached {
		t.Errorf("without KeepEmpty, again: %+v, %v, want a new call's empty reply", resp, err)
	}
	if n := srv.calls.Load(); n != 2 {
		t.Errorf("%d requests in all, want 2", n)
	}
}
