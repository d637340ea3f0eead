package model

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qapipe/qapipe/internal/gemini"
)

// sentModels names the models each provider's requests are sent with in TestSentOnTheWire:
// for openai, the names langchaingo sends no temperature and some of the kind it sends one.
var sentModels = map[string][]string{
	"openai": {"gpt-4o-mini", "o1", "o1-mini", "o1-preview", "o3", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini", "O3-mini"},
}

// sentCase is one request TestSentOnTheWire sends: testRequest's, with these fields.
type sentCase struct {
	model       string
	temperature *float64
	format      string
	maxTokens   int
}

func (c sentCase) String() string {
	return fmt.Sprintf("%s, temperature %s, format %q, max_tokens %d", c.model, floatText(c.temperature), c.format, c.maxTokens)
}

// sentCases are the requests sent to provider: each of its models with and without each field.
func sentCases(provider string) []sentCase {
	var cases []sentCase
	for _, name := range append([]string{wireModels[provider]}, sentModels[provider]...) {
		for _, temp := range []*float64{nil, new(0.0), new(0.7)} {
			for _, format := range []string{"", ResponseJSON} {
				for _, maxTokens := range []int{0, 16} {
					cases = append(cases, sentCase{name, temp, format, maxTokens})
				}
			}
		}
	}
	return cases
}

// TestSentOnTheWire: the temperature, response format and max tokens a request's body holds (at
// the top, among ollama's options or in Gemini's generationConfig) are those SentTemperature,
// SentResponseFormat and SentMaxTokens say, present exactly when they say so. The dry runs show a
// request by them.
func TestSentOnTheWire(t *testing.T) {
	for _, w := range wires {
		for _, c := range sentCases(w.provider) {
			req, sentText := sentBody(t, w, func(r *Request) {
				r.Model, r.Temperature, r.ResponseFormat, r.MaxTokens = c.model, c.temperature, c.format, c.maxTokens
			})
			var body any
			if err := json.Unmarshal([]byte(sentText), &body); err != nil {
				t.Fatal(err)
			}
			got, found := membersIn(body, "temperature")
			if want := req.SentTemperature(); found != (want != nil) || want != nil && float32(got.(float64)) != float32(*want) {
				t.Errorf("%s %s: body has temperature %v (%v), SentTemperature = %s", w.provider, c, got, found, floatText(want))
			}
			if got, want := formatIn(body), req.SentResponseFormat(); got != want {
				t.Errorf("%s %s: body asks for the format %q, SentResponseFormat = %q", w.provider, c, got, want)
			}
			got, _ = membersIn(body, "max_tokens", "max_completion_tokens", "num_predict", "maxOutputTokens")
			if n, _ := got.(float64); n != float64(req.SentMaxTokens()) {
				t.Errorf("%s %s: body asks for at most %v tokens, SentMaxTokens = %d", w.provider, c, got, req.SentMaxTokens())
			}
		}
	}
}

// formatIn is the reply format a decoded request body asks for: ResponseJSON for OpenAI's
// response_format {"type": "json_object"}, Ollama's format "json" or Gemini's responseMimeType
// application/json; "" for none, or what else it asks for.
func formatIn(body any) string {
	v, _ := membersIn(body, "response_format", "format", "responseMimeType")
	if m, ok := v.(map[string]any); ok {
		v = m["type"]
	}
	switch s, _ := v.(string); s {
	case "json_object", "json", "application/json":
		return ResponseJSON
	default:
		return s
	}
}

// membersIn finds the first member named one of names anywhere in a decoded JSON body.
func membersIn(v any, names ...string) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		for _, n := range names {
			if x, ok := v[n]; ok {
				return x, true
			}
		}
		for _, x := range v {
			if found, ok := membersIn(x, names...); ok {
				return found, true
			}
		}
	case []any:
		for _, x := range v {
			if found, ok := membersIn(x, names...); ok {
				return found, true
			}
		}
	}
	return nil, false
}

func floatText(p *float64) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// TestMessagesOnTheWire: the messages a request's body holds are those SentMessages says: as made
// but for the OpenAI models langchaingo takes for the first reasoning models ("o1", "o1-mini",
// "o1-preview", "o3", "o3-mini", in any case), which get no system message: its text and a blank
// line head the first user message. Dated names, and later models, get the system message.
func TestMessagesOnTheWire(t *testing.T) {
	sys := func(text string) Message { return Message{Role: "system", Content: text} }
	user := func(text string) Message { return Message{Role: "user", Content: text} }
	conversations := [][]Message{
		{sys("Answer briefly."), user("Capital of France?")},
		{user("Capital of France?")},
		{sys(""), user("Capital of France?")}, // EvaLearn's judge sends an empty system message
		{sys("One."), user("Q1"), {Role: "assistant", Content: "A1"}, sys("Two."), user("Q2")},
	}
	for name, merged := range map[string]bool{"o1": true, "o1-mini": true, "o1-preview": true, "o3": true, "o3-mini": true, "O1": true,
		"o3-preview": true, "o1-2024-12-17": false, "o3-mini-2025-01-31": false, "o4-mini": false, "gpt-5": false, "gpt-4o-mini": false} {
		for _, msgs := range conversations {
			req, sentText := sentBody(t, wires[0], func(r *Request) { r.Model, r.Messages = name, msgs })
			got, err := wireMessages(sentText)
			if err != nil {
				t.Fatal(err)
			}
			if want := req.SentMessages(); !slices.Equal(got, want) {
				t.Errorf("%s: messages sent %q, SentMessages = %q", name, got, want)
			}
			isSystem := func(m Message) bool { return m.Role == "system" }
			if slices.ContainsFunc(msgs, isSystem) && slices.ContainsFunc(req.SentMessages(), isSystem) == merged {
				t.Errorf("%s: SentMessages %q, want a system message %v", name, req.SentMessages(), !merged)
			}
		}
	}
}

// TestSystemOnTheWire: the system message reaches each provider where its API reads one, never
// as a message of a role the API refuses: OpenAI's and Ollama's first message, of role system;
// Anthropic's top-level "system", its messages only user and assistant ones; Gemini's
// systemInstruction, its contents only user and model ones. And Anthropic's calls carry the
// anthropic-version header its API requires.
func TestSystemOnTheWire(t *testing.T) {
	type part struct{ Text string }
	type message struct {
		Role    string
		Content json.RawMessage
		Parts   []part
	}
	var body struct {
		System            json.RawMessage
		SystemInstruction *struct{ Parts []part }
		Messages          []message
		Contents          []message
	}
	text := func(m message) string {
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			var parts []part
			json.Unmarshal(m.Content, &parts) //nolint:errcheck // none is ""
			for _, p := range parts {
				s += p.Text
			}
		}
		for _, p := range m.Parts {
			s += p.Text
		}
		return s
	}
	for _, w := range wires {
		var version string
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			body.System, body.SystemInstruction, body.Messages, body.Contents = nil, nil, nil, nil
			if err := json.Unmarshal(b, &body); err != nil {
				t.Errorf("%s: request body %s: %v", w.provider, b, err)
			}
			version = r.Header.Get("anthropic-version")
			reply := w.reply
			if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
				reply = "[" + reply + "]"
			}
			rw.Header().Set("Content-Type", w.contentType())
			io.WriteString(rw, reply)
		}))
		c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: w.provider, BaseURL: w.baseURL(srv.URL), APIKey: testKey, HTTPClient: NewTransport(TransportConfig{}).Client()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Generate(context.Background(), testRequest(w.provider, wireModels[w.provider])); err != nil {
			t.Fatalf("%s: %v", w.provider, err)
		}
		srv.Close()
		var system string
		var roles, texts []string
		switch w.provider {
		case "anthropic":
			json.Unmarshal(body.System, &system) //nolint:errcheck // none is ""
			if version != "2023-06-01" {
				t.Errorf("anthropic: anthropic-version %q, want 2023-06-01", version)
			}
		case "googleai":
			if si := body.SystemInstruction; si != nil && len(si.Parts) == 1 {
				system = si.Parts[0].Text
			}
		}
		for _, m := range append(body.Messages, body.Contents...) {
			roles, texts = append(roles, m.Role), append(texts, text(m))
		}
		want := map[string][]string{"openai": {"system", "user"}, "ollama": {"system", "user"}, "anthropic": {"user"}, "googleai": {"user"}}[w.provider]
		wantTexts := []string{"Answer briefly.", "Capital of France?"}
		if len(want) == 1 {
			wantTexts = wantTexts[1:]
			if system != "Answer briefly." {
				t.Errorf("%s: system %q, want %q", w.provider, system, "Answer briefly.")
			}
		}
		if !slices.Equal(roles, want) || !slices.Equal(texts, wantTexts) {
			t.Errorf("%s: messages of roles %q and texts %q, want %q and %q", w.provider, roles, texts, want, wantTexts)
		}
	}
}

// TestEmptySystemOnTheWire: a system message without text (EvaLearn's judge sends one) reaches
// OpenAI and Ollama as it is, and neither Anthropic nor Gemini, whose API refuses a part with
// empty text: no systemInstruction is sent. SentMessages, which the dry runs show, says so.
func TestEmptySystemOnTheWire(t *testing.T) {
	msgs := []Message{{Role: "system", Content: ""}, {Role: "user", Content: "Capital of France?"}}
	for _, w := range wires {
		req, sent := sentBody(t, w, func(r *Request) { r.Messages = msgs })
		var body map[string]any
		if err := json.Unmarshal([]byte(sent), &body); err != nil {
			t.Fatal(err)
		}
		_, system := membersIn(body, "system", "systemInstruction")
		carried := strings.Contains(sent, `"role":"system"`)
		want := w.provider == "openai" || w.provider == "ollama"
		if carried != want || system {
			t.Errorf("%s: body %s carries the empty system message %v (a system member %v), want %v", w.provider, sent, carried, system, want)
		}
		wantSent := msgs
		if !want {
			wantSent = msgs[1:]
		}
		if got := req.SentMessages(); !slices.Equal(got, wantSent) {
			t.Errorf("%s: SentMessages = %q, want %q", w.provider, got, wantSent)
		}
	}
}

// wireMessages reads the messages of an OpenAI chat request body, a message of text parts as
// their text joined.
func wireMessages(body string) ([]Message, error) {
	var req struct {
		Messages []struct {
			Role    string
			Content json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		return nil, err
	}
	var msgs []Message
	for _, m := range req.Messages {
		var text string
		if json.Unmarshal(m.Content, &text) != nil { // parts: [{"text": …, "type": "text"}, …]
			var parts []struct{ Text string }
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				return nil, err
			}
			for _, p := range parts {
				text += p.Text
			}
		}
		msgs = append(msgs, Message{Role: m.Role, Content: text})
	}
	return msgs, nil
}

// TestSamplingOnTheWire: the top_p and top_k a request's body holds (at the top, among ollama's
// options or in Gemini's generationConfig) are those SentTopP and SentTopK say, present exactly
// when they say so, and those langchaingo v0.1.14 is known to send: anthropic a top_p, ollama
// both, none of 0; googleai both always, its 0.95 and 3 when the request sets none; openai
// neither, which is why qa-predict refuses --top-p and --top-k with it.
func TestSamplingOnTheWire(t *testing.T) {
	type sent struct {
		p *float64
		k *int
	}
	want := func(provider string, p *float64, k *int) sent {
		switch provider {
		case "openai":
			return sent{}
		case "anthropic":
			if p != nil && *p == 0 {
				p = nil
			}
			return sent{p: p}
		case "ollama":
			if p != nil && *p == 0 {
				p = nil
			}
			if k != nil && *k == 0 {
				k = nil
			}
			return sent{p, k}
		}
		if p == nil {
			p = new(0.95)
		}
		if k == nil {
			k = new(3)
		}
		return sent{p, k}
	}
	for _, w := range wires {
		for _, p := range []*float64{nil, new(0.0), new(0.9), new(1.0)} {
			for _, k := range []*int{nil, new(0), new(40)} {
				req, sentText := sentBody(t, w, func(r *Request) { r.TopP, r.TopK = p, k })
				var body any
				if err := json.Unmarshal([]byte(sentText), &body); err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s, top_p %s, top_k %s", w.provider, floatText(p), ptrText(k))
				ws := want(w.provider, p, k)
				wp, wk := ws.p, ws.k
				gotP, foundP := membersIn(body, "top_p", "topP")
				if sentP := req.SentTopP(); !sameFloat(sentP, wp) || foundP != (wp != nil) || wp != nil && float32(gotP.(float64)) != float32(*wp) {
					t.Errorf("%s: body has top_p %v (%v), SentTopP = %s, want %s", name, gotP, foundP, floatText(sentP), floatText(wp))
				}
				gotK, foundK := membersIn(body, "top_k", "topK")
				if sentK := req.SentTopK(); ptrText(sentK) != ptrText(wk) || foundK != (wk != nil) || wk != nil && gotK.(float64) != float64(*wk) {
					t.Errorf("%s: body has top_k %v (%v), SentTopK = %s, want %s", name, gotK, foundK, ptrText(sentK), ptrText(wk))
				}
			}
		}
	}
}

func sameFloat(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// TestMaxTokensField: by default (Config.MaxTokensField "" or auto) OpenAI's own API is sent the
// budget as max_completion_tokens, as its reasoning models (o1, o3, gpt-5) refuse max_tokens; an
// OpenAI-compatible server at another base URL (vLLM, llama.cpp, Ollama's /v1) as max_tokens,
// which they all read. A field named is sent to any URL (max_completion_tokens to an Azure
// OpenAI o-series model, say). Never both. OpenAI's own API is reached through a transport that
// takes its requests to a loopback server.
func TestMaxTokensField(t *testing.T) {
	bodies := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- r.Host + r.URL.Path + " " + string(b) // r.Host: the host the request was for
		rw.Header().Set("Content-Type", "application/json")
		io.WriteString(rw, wires[0].reply)
	}))
	t.Cleanup(srv.Close)
	loopback, _ := url.Parse(srv.URL)
	redirect := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = loopback.Scheme, loopback.Host
		return http.DefaultTransport.RoundTrip(r)
	})
	for _, tc := range []struct {
		base, set, url, field, not string // set: Config.MaxTokensField; url: the host and path the request was for
	}{
		{"", "", "api.openai.com/v1/chat/completions", "max_completion_tokens", "max_tokens"},
		{"", "auto", "api.openai.com/v1/chat/completions", "max_completion_tokens", "max_tokens"},
		{OpenAIURL + "/", "", "api.openai.com/v1/chat/completions", "max_completion_tokens", "max_tokens"},
		{srv.URL + "/v1", "", loopback.Host + "/v1/chat/completions", "max_tokens", "max_completion_tokens"},
		{srv.URL + "/v1", "auto", loopback.Host + "/v1/chat/completions", "max_tokens", "max_completion_tokens"},
		{srv.URL + "/v1", "max_completion_tokens", loopback.Host + "/v1/chat/completions", "max_completion_tokens", "max_tokens"},
		{srv.URL + "/v1", "max_tokens", loopback.Host + "/v1/chat/completions", "max_tokens", "max_completion_tokens"},
		{"", "max_tokens", "api.openai.com/v1/chat/completions", "max_tokens", "max_completion_tokens"},
		{"", "max_completion_tokens", "api.openai.com/v1/chat/completions", "max_completion_tokens", "max_tokens"},
	} {
		for _, name := range []string{"gpt-4o-mini", "o3-mini", "gpt-5"} {
			c, err := New(context.Background(), Config{Provider: "openai", BaseURL: tc.base, APIKey: testKey, HTTPClient: &http.Client{Transport: redirect}})
			if err != nil {
				t.Fatal(err)
			}
			req := testRequest("openai", name)
			req.BaseURL, req.MaxTokensField = tc.base, tc.set
			if got := req.SentMaxTokensField(); got != tc.field {
				t.Errorf("%s at %q, field %q: SentMaxTokensField %q, want %q", name, tc.base, tc.set, got, tc.field)
			}
			if _, err := c.Generate(context.Background(), req); err != nil {
				t.Fatalf("%s at %q: %v", name, tc.base, err)
			}
			to, sent, _ := strings.Cut(<-bodies, " ")
			var body map[string]any
			if err := json.Unmarshal([]byte(sent), &body); err != nil {
				t.Fatal(err)
			}
			if _, ok := body[tc.not]; body[tc.field] != 16.0 || ok || to != tc.url {
				t.Errorf("%s at %q, field %q: sent %s to %s, want %s 16 and no %s, to %s", name, tc.base, tc.set, sent, to, tc.field, tc.not, tc.url)
			}
		}
	}
	c, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	req := testRequest("openai", "gpt-4o-mini")
	req.MaxTokensField = "max_output_tokens"
	if _, err := c.Generate(context.Background(), req); err == nil || !strings.Contains(err.Error(), `"max_output_tokens"`) {
		t.Errorf("MaxTokensField max_output_tokens: err %v, want one naming it", err)
	}
	select {
	case b := <-bodies:
		t.Errorf("MaxTokensField max_output_tokens: sent %s", b)
	default:
	}
	// No budget, or another provider: no member to name.
	for _, r := range []Request{{Provider: "openai", MaxTokensField: MaxCompletionTokens}, {Provider: "ollama", MaxTokens: 16, MaxTokensField: MaxTokens}} {
		if got := r.SentMaxTokensField(); got != "" {
			t.Errorf("%+v: SentMaxTokensField %q, want none", r, got)
		}
	}
}

func TestMaxTokensFieldFor(t *testing.T) {
	for _, tc := range []struct{ field, base, want string }{
		{"", "", MaxCompletionTokens},
		{"auto", "https://api.openai.com/v1/", MaxCompletionTokens},
		{"auto", "http://127.0.0.1:8000/v1", MaxTokens},
		{"", "https://myres.openai.azure.com/openai/v1", MaxTokens},
		{"", "https://API.OpenAI.com:443/v1", MaxCompletionTokens},
		{"auto", "https://api.openai.com", MaxCompletionTokens},
		{"", "https://api.openai.com.example.org/v1", MaxTokens},
		{"max_completion_tokens", "https://myres.openai.azure.com/openai/v1", MaxCompletionTokens},
		{"max_tokens", "", MaxTokens},
	} {
		if got := MaxTokensFieldFor(tc.field, tc.base); got != tc.want {
			t.Errorf("MaxTokensFieldFor(%q, %q) = %q, want %q", tc.field, tc.base, got, tc.want)
		}
	}
}

// TestNumCtxOnTheWire: a context window goes to Ollama as options.num_ctx, and to no other
// provider (they have none), as SentNumCtx says; one client sends each call its own, so that a
// call without one gets the server's default after a call with one.
func TestNumCtxOnTheWire(t *testing.T) {
	for _, w := range wires {
		var calls atomic.Int64
		bodies := make(chan string, 1)
		srv := wireServer(t, w, &calls, bodies)
		c, err := New(context.Background(), Config{Gemini: gemini.New, Provider: w.provider, BaseURL: w.baseURL(srv.URL), APIKey: testKey, HTTPClient: NewTransport(TransportConfig{}).Client()})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 32768, 0, 8192, 32768} {
			req := testRequest(w.provider, wireModels[w.provider])
			req.NumCtx = n
			if _, err := c.Generate(context.Background(), req); err != nil {
				t.Fatalf("%s: Generate: %v", w.provider, err)
			}
			var body any
			if err := json.Unmarshal([]byte(<-bodies), &body); err != nil {
				t.Fatal(err)
			}
			want := 0
			if w.provider == "ollama" {
				want = n
			}
			got, found := membersIn(body, "num_ctx")
			if req.SentNumCtx() != want || found != (want > 0) || found && got.(float64) != float64(want) {
				t.Errorf("%s, num_ctx %d: body has num_ctx %v (%v), SentNumCtx = %d, want %d", w.provider, n, got, found, req.SentNumCtx(), want)
			}
		}
	}
}

// TestStopOnTheWire: a request's stop sequences reach every provider's body as its API names
// them (OpenAI's stop, Anthropic's stop_sequences, Ollama's options.stop, Gemini's
// generationConfig.stopSequences), as langchaingo v0.1.14 sends them; a request without any
// sends none of those members.
func TestStopOnTheWire(t *testing.T) {
	member := map[string]string{"openai": "stop", "anthropic": "stop_sequences", "ollama": "stop", "googleai": "stopSequences"}
	for _, w := range wires {
		for _, stop := range [][]string{nil, {"\n\n", "Question:"}} {
			_, sent := sentBody(t, w, func(r *Request) { r.Stop = stop })
			var body any
			if err := json.Unmarshal([]byte(sent), &body); err != nil {
				t.Fatal(err)
			}
			got, found := membersIn(body, "stop", "stop_sequences", "stopSequences")
			switch {
			case stop == nil && found:
				t.Errorf("%s: no stop, but the body has %v: %s", w.provider, got, sent)
			case stop != nil && fmt.Sprint(got) != fmt.Sprint(stop):
				t.Errorf("%s: body's stop %v (%v), want %q under %s: %s", w.provider, got, found, stop, member[w.provider], sent)
			case stop != nil && !strings.Contains(sent, `"`+member[w.provider]+`":`):
				t.Errorf("%s: the stop sequences are not under %q: %s", w.provider, member[w.provider], sent)
			}
		}
	}
}
