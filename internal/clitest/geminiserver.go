package clitest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

// GeminiServer is a loopback server speaking the Gemini REST API as genai calls it
// (generateContent, enums as numbers): it answers every call with text and notes the safety
// threshold each request carried for langchaingo's four harm categories.
type GeminiServer struct {
	URL string
	mu  sync.Mutex
	got []int
}

// NewGeminiServer starts a GeminiServer that answers text, closed when the test ends.
func NewGeminiServer(t *testing.T, text string) *GeminiServer {
	t.Helper()
	reply, _ := json.Marshal(text)
	g := &GeminiServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		g.mu.Lock()
		g.got = append(g.got, safetyThreshold(b))
		g.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"candidates":[{"content":{"parts":[{"text":`+string(reply)+`}],"role":"model"},"finishReason":1,"index":0}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":2,"totalTokenCount":10}}`)
	}))
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	return g
}

// Thresholds are the safety thresholds of the requests so far, in the order they came: the
// number all four categories carried, or -1 for a request without four that agree.
func (g *GeminiServer) Thresholds() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.got)
}

// safetyThreshold is the threshold all four of body's safetySettings carry, else -1.
func safetyThreshold(body []byte) int {
	var req struct {
		SafetySettings []struct {
			Threshold int `json:"threshold"`
		} `json:"safetySettings"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.SafetySettings) != 4 {
		return -1
	}
	for _, s := range req.SafetySettings[1:] {
		if s.Threshold != req.SafetySettings[0].Threshold {
			return -1
		}
	}
	return req.SafetySettings[0].Threshold
}
