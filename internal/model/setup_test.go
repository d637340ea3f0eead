package model

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qapipe/qapipe/internal/gemini"
)

func TestResponseFormatWire(t *testing.T) {
	// The JSON-mode fragment each provider's request body carries; anthropic has none.
	want := map[string]string{"openai": `"response_format":{"type":"json_object"}`, "ollama": `"format":"json"`,
		"googleai": `"responseMimeType":"application/json"`, "anthropic": ""}
	for _, w := range wires {
		for _, format := range []string{"", ResponseJSON} {
			t.Run(w.provider+"/"+format, func(t *testing.T) {
				var calls atomic.Int64
				bodies := make(chan string, 1)
				srv := wireServer(t, w, &calls, bodies)
				c, err := Setup{Gemini: gemini.New, Provider: w.provider, BaseURL: w.baseURL(srv.URL), APIKey: testKey, MaxRetries: 0}.Client(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				req := testRequest(w.provider, wireModels[w.provider])
				req.ResponseFormat = format
				if _, err := c.Generate(context.Background(), req); err != nil {
					t.Fatalf("Generate: %v", err)
				}
				body := <-bodies
				frag := want[w.provider]
				if frag == "" {
					if strings.Contains(body, "json_object") || strings.Contains(body, "response_format") {
						t.Errorf("%s request body %s has a response format", w.provider, body)
					}
					return
				}
				if got := strings.Contains(body, frag); got != (format == ResponseJSON) {
					t.Errorf("%s request body %s contains %s = %v, want %v", w.provider, body, frag, got, format == ResponseJSON)
				}
			})
		}
	}
}

func TestResponseFormatUnsupported(t *testing.T) {
	var calls atomic.Int64
	srv := wireServer(t, wires[0], &calls, nil)
	c, err := Setup{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: testKey}.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	req := testRequest("openai", "gpt-4o-mini")
	req.ResponseFormat = "json_schema"
	if _, err := c.Generate(context.Background(), req); err == nil || !strings.Contains(err.Error(), `"json_schema"`) {
		t.Errorf("Generate(response format json_schema) = %v, want an unsupported-format error", err)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("calls = %d, want 0 (refused before sending)", n)
	}
}

// TestResponseFormatKeepsOldKeys checks that an empty ResponseFormat leaves the canonical JSON (and
// so every cache key made before the field existed) unchanged.
func TestResponseFormatKeepsOldKeys(t *testing.T) {
	req := testRequest("openai", "gpt-4o-mini")
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	const old = `{"provider":"openai","model":"gpt-4o-mini","messages":[{"role":"system","content":"Answer briefly."},{"role":"user","content":"Capital of France?"}],"temperature":0,"max_tokens":16}`
	if string(b) != old {
		t.Errorf("json.Marshal(request) = %s, want %s", b, old)
	}
	req.ResponseFormat = ResponseJSON
	b, _ = json.Marshal(req)
	if !strings.Contains(string(b), `"response_format":"json_object"`) {
		t.Errorf("json.Marshal(JSON request) = %s, want response_format in it", b)
	}
}

func TestSetupNoKey(t *testing.T) {
	tests := []struct {
		provider, base string
		noKey          bool
	}{
		{"openai", "", true},
		{"anthropic", "", true},
		{"googleai", "", true},
		{"openai", "http://127.0.0.1:1/v1", false}, // a compatible server may need no key
		// langchaingo's Anthropic and Gemini clients need a key whatever the endpoint.
		{"anthropic", "http://127.0.0.1:1/v1", true},
		{"googleai", "http://127.0.0.1:1", true},
		{"ollama", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.provider+tt.base, func(t *testing.T) {
			_, err := Setup{Gemini: gemini.New, Provider: tt.provider, BaseURL: tt.base, Timeout: time.Second}.Client(context.Background())
			if got := errors.Is(err, ErrNoKey); got != tt.noKey {
				t.Errorf("Setup{%s, %q}.Client() = %v, want ErrNoKey %v", tt.provider, tt.base, err, tt.noKey)
			}
		})
	}
}

func TestAPIKey(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "key")
	if err := os.WriteFile(file, []byte("  sk-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bom := filepath.Join(dir, "key-notepad") // saved by a Windows editor: the mark is no part of the key
	if err := os.WriteFile(bom, []byte("\ufeffsk-bom\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GEMINI_API_KEY": "g2", "OPENAI_API_KEY": "sk-env"}
	getenv := func(k string) string { return env[k] }
	tests := []struct{ provider, file, want string }{
		{"openai", file, "sk-file"},
		{"openai", bom, "sk-bom"},
		{"openai", "", "sk-env"},
		{"googleai", "", "g2"}, // GOOGLE_API_KEY unset, so the second variable
		{"anthropic", "", ""},
		{"ollama", "", ""},
	}
	for _, tt := range tests {
		got, err := APIKey(tt.provider, tt.file, getenv)
		if err != nil || got != tt.want {
			t.Errorf("APIKey(%q, %q) = %q, %v, want %q", tt.provider, tt.file, got, err, tt.want)
		}
	}
	if _, err := APIKey("openai", filepath.Join(dir, "missing"), getenv); err == nil {
		t.Errorf("APIKey(missing file) = nil error, want one")
	}
	// A key given where its file's name goes is not shown in the error; a missing file's name is.
	if _, err := APIKey("openai", "sk-proj-abcdefghijklmnopqrstuvwxyz0123", getenv); err == nil || strings.Contains(err.Error(), "abcdefgh") || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("APIKey(a key as the file) error = %v, want one that names OPENAI_API_KEY and not the key", err)
	}
	if _, err := APIKey("openai", "openai-key.txt", getenv); err == nil || !strings.Contains(err.Error(), "openai-key.txt") {
		t.Errorf("APIKey(missing openai-key.txt) error = %v, want one naming the file", err)
	}
	blank := filepath.Join(dir, "blank") // the environment's key must not stand in for the file's
	if err := os.WriteFile(blank, []byte(" \r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := APIKey("openai", blank, getenv)
	if want := blank + " is empty"; err == nil || err.Error() != want {
		t.Errorf("APIKey(blank file) = %q, %v, want error %q", got, err, want)
	}
}

func TestLoadPrices(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "p.yaml")
	os.WriteFile(good, []byte("judge-1: {input: 1, output: 2}\ngpt-4o: {input: 5, output: 20}\n"), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"m": {"input": -1, "output": 0}}`), 0o644)
	p, err := LoadPrices(good)
	if err != nil {
		t.Fatal(err)
	}
	for m, want := range map[string]Price{"judge-1": {Input: 1, Output: 2}, "gpt-4o": {Input: 5, Output: 20}, "gpt-4o-mini": {Input: 0.15, Output: 0.60, Cached: 0.075}} {
		if got, ok := p.Lookup(m); !ok || got != want {
			t.Errorf("LoadPrices(%s).Lookup(%q) = %v, %v, want %v", good, m, got, ok, want)
		}
	}
	if p, err := LoadPrices(""); err != nil || len(p) != len(DefaultPrices()) {
		t.Errorf("LoadPrices(\"\") = %d entries, %v, want the %d built-in", len(p), err, len(DefaultPrices()))
	}
	if _, err := LoadPrices(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("LoadPrices(%s) = %v, want an error naming the file", bad, err)
	}
}

// TestSetupSharedTransport checks that two clients given one Transport share its request budget:
// with RPM 1 (a burst of one), the second client's call must wait, so a cancelled context stops it.
func TestSetupSharedTransport(t *testing.T) {
	var calls atomic.Int64
	srv := wireServer(t, wires[0], &calls, nil)
	s := Setup{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: testKey, RPM: 1}
	s.Transport = s.NewTransport()
	a, err := s.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Generate(context.Background(), testRequest("openai", "gpt-4o-mini")); err != nil {
		t.Fatalf("first call: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := b.Generate(ctx, testRequest("openai", "gpt-4o-mini")); err == nil {
		t.Errorf("second client's call = nil error, want it held by the shared 1 rpm budget")
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("server calls = %d, want 1", n)
	}
}
