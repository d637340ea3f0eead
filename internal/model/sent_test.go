package model

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// sentModels names the models each provider's requests are sent with in TestSentOnTheWire:
// for openai, the names langchaingo sends no temperature and some of the kind it sends one.
var sentModels = map[string][]string{
	"openai": {"gpt-4o-mini", "o1", "o1-mini", "o1-preview", "o3", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini", "O3-mini"},
}

// TestSentOnTheWire: the temperature and response format a request's body holds (at the top,
// among ollama's options or in Gemini's generationConfig) are those SentTemperature and
// SentResponseFormat say, present exactly when they say so. The dry runs show a request by them.
func TestSentOnTheWire(t *testing.T) {
	for _, w := range wires {
		for _, name := range append([]string{wireModels[w.provider]}, sentModels[w.provider]...) {
			for _, temp := range []*float64{nil, new(0.0), new(0.7)} {
				for _, format := range []string{"", ResponseJSON} {
					req, sentText := sentBody(t, w, func(r *Request) {
						r.Model, r.Temperature, r.ResponseFormat = name, temp, format
					})
					var body any
					if err := json.Unmarshal([]byte(sentText), &body); err != nil {
						t.Fatal(err)
					}
					what := fmt.Sprintf("%s %s, temperature %v, format %q", w.provider, name, floatText(temp), format)
					got, found := membersIn(body, "temperature")
					if want := req.SentTemperature(); found != (want != nil) || want != nil && float32(got.(float64)) != float32(*want) {
						t.Errorf("%s: body has temperature %v (%v), SentTemperature = %v", what, got, found, floatText(want))
					}
					gotFormat := ""
					if v, ok := membersIn(body, "response_format", "format", "responseMimeType"); ok {
						if m, ok := v.(map[string]any); ok { // openai's {"type": "json_object"}
							v = m["type"]
						}
						if s, _ := v.(string); s != "" && slices.Contains([]string{"json_object", "json", "application/json"}, s) {
							gotFormat = ResponseJSON
						} else if s != "" {
							t.Errorf("%s: body asks for the format %v", what, v)
						}
					}
					if want := req.SentResponseFormat(); gotFormat != want {
						t.Errorf("%s: body asks for the format %q, SentResponseFormat = %q", what, gotFormat, want)
					}
				}
			}
		}
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
