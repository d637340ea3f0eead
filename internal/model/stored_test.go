package model

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/gemini"
)

// TestStoredOnlyAsksNoServer: a call asked of the cache alone that reaches a provider's client
// (no cache before it) is ErrNotStored, a call not made, and the server hears nothing.
func TestStoredOnlyAsksNoServer(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	defer srv.Close()
	for _, provider := range []string{"openai", "anthropic", "ollama", "googleai"} {
		c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: provider, BaseURL: srv.URL, APIKey: "k"})
		if err != nil {
			t.Fatalf("%s: %v", provider, err)
		}
		req := Request{Provider: provider, BaseURL: srv.URL, Model: "m", Messages: []Message{{Role: "user", Content: "q"}}}
		_, err = c.Generate(StoredOnly(context.Background()), req)
		if !errors.Is(err, ErrNotStored) || !NotMade(err) {
			t.Errorf("%s: error %v, want ErrNotStored, a call not made", provider, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server was asked %d times, want 0", n)
	}
	if IsStoredOnly(context.Background()) || !IsStoredOnly(StoredOnly(context.Background())) {
		t.Error("IsStoredOnly does not tell a marked context from another")
	}
}
