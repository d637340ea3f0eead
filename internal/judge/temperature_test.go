package judge

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// defaultTemperatureJudge is a loopback server speaking OpenAI's chat wire format as o1 and
// o4-mini do: a request carrying any temperature but 1 is refused with OpenAI's 400 error; one
// with 1, or none, gets a reply that LongMemEval's and EvaLearn's judges both read as correct. It
// keeps each request's temperature as sent, -1 for none.
func defaultTemperatureJudge(t *testing.T) (*httptest.Server, func() []float64) {
	srv := newChatWriter(t, func(w http.ResponseWriter, req chatRequest) {
		if req.Temperature != nil && *req.Temperature != 1 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"message":"Unsupported value: 'temperature' does not support `+
				strconv.FormatFloat(*req.Temperature, 'g', -1, 64)+
				` with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`)
			return
		}
		writeCompletion(w, req.Model, map[string]any{"role": "assistant", "content": reply}, "stop", 1)
	})
	return srv.Server, sent(srv, func(req chatRequest) float64 {
		if req.Temperature == nil {
			return -1
		}
		return *req.Temperature
	})
}

// reply is "yes" for LongMemEval's judge, with the object EvaLearn's judge reads.
const reply = "yes\n```json\n{\"answer_score\": 1}\n```"

// TestTemperatureOnTheWire: the protocols' judges send their own temperature (LongMemEval's 0,
// EvaLearn's 0.2), which o4-mini refuses, and the judgment fails with the server's words;
// --temperature T (or QA_JUDGE_TEMPERATURE) sends T in its place, and the judgment is made. A
// name langchaingo takes for a reasoning model (o1-mini) is sent no temperature, given or not.
func TestTemperatureOnTheWire(t *testing.T) {
	lme := rec("longmemeval:q1", "longmemeval", "single-session-user", "Which city?", "Paris", "Paris", "")
	evl := `{"schema":1,"id":"evalearn:s1:1","dataset":"evalearn","type":"Extraction","question":"q","answers":["x"],"rubric":"r","prediction":{"text":"x"}}` + "\n"
	tests := []struct {
		name  string
		model string
		env   string
		args  []string
		in    string
		sent  float64 // the temperature the call carried, -1 for none
		ok    bool
	}{
		{"longmemeval's own", "o4-mini", "", nil, lme, 0, false},
		{"evalearn's own", "o4-mini", "", nil, evl, 0.2, false},
		{"flag", "o4-mini", "", []string{"--temperature", "1"}, lme, 1, true},
		{"flag, evalearn", "o4-mini", "", []string{"--temperature", "1"}, evl, 1, true},
		{"env", "o4-mini", "1", nil, lme, 1, true},
		{"flag over env", "o4-mini", "0.5", []string{"--temperature", "1"}, lme, 1, true},
		{"flag 0.7", "o4-mini", "", []string{"--temperature", "0.7"}, lme, 0.7, false},
		{"empty env is unset", "o4-mini", "", nil, lme, 0, false},
		{"none to o1-mini", "o1-mini", "", nil, lme, -1, true},
		{"none to o1-mini, given", "o1-mini", "", []string{"--temperature", "0.5"}, lme, -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("QA_JUDGE_TEMPERATURE", tt.env)
			srv, temps := defaultTemperatureJudge(t)
			args := append([]string{"--base-url", srv.URL, "--model", tt.model, "--parse-retries", "0"}, tt.args...)
			stdout, stderr, code := runJudge(t, args, tt.in)
			if got := temps(); len(got) != 1 || got[0] != tt.sent {
				t.Fatalf("calls carried temperatures %v, want [%v] (exit %d, stderr %s)", got, tt.sent, code, stderr)
			}
			recs := decodeAll(t, stdout)
			if len(recs) != 1 {
				t.Fatalf("got %d records, want 1 (stderr %s)", len(recs), stderr)
			}
			jg := recs[0].Judgments["auto/"+tt.model]
			switch {
			case jg == nil:
				t.Fatalf("no judgment auto/%s (stderr %s)", tt.model, stderr)
			case tt.ok && (code != 0 || jg.Error != "" || jg.Score == nil || *jg.Score != 1):
				t.Errorf("exit %d, judgment %+v, want score 1 (stderr %s)", code, jg, stderr)
			case !tt.ok && (code != command.ExitBadRecords || jg.Score != nil || !strings.Contains(jg.Error, "Only the default (1) value is supported")):
				t.Errorf("exit %d, judgment %+v, want the server's refusal, no score (stderr %s)", code, jg, stderr)
			}
			warned := strings.Contains(stderr, "warning: --temperature ")
			if given := len(tt.args) > 0 || tt.env != ""; warned != given {
				t.Errorf("warned of --temperature: %v, want %v (stderr %s)", warned, given, stderr)
			}
		})
	}
}

// TestTemperatureCacheKey: --temperature is part of the request the cache keys, so a run with it
// is not served the refusal of a run without.
func TestTemperatureCacheKey(t *testing.T) {
	j := &Judge{Provider: "openai", Model: "o4-mini"}
	p := Plan{Messages: []model.Message{{Role: "user", Content: "q"}}, Temperature: temp(0)}
	keys := map[string]bool{}
	for _, tv := range []*float64{nil, temp(0.5), temp(1)} {
		j.Temperature = tv
		k, err := cache.RequestKey(j.request(p, 0))
		if err != nil {
			t.Fatal(err)
		}
		keys[k] = true
	}
	if len(keys) != 3 {
		t.Errorf("three temperatures gave %d cache keys, want 3", len(keys))
	}
	j.Temperature = temp(0)
	k0, _ := cache.RequestKey(j.request(p, 0))
	j.Temperature = nil
	if k, _ := cache.RequestKey(j.request(p, 0)); k != k0 {
		t.Errorf("--temperature 0 keys apart from the protocol's 0: %s, %s", k0, k)
	}
}

// TestProtocolCalls: the call parameters the warnings name (protocolCalls) are those each
// protocol's plan sends, and every protocol that calls a model is in the table.
func TestProtocolCalls(t *testing.T) {
	lines := map[string]string{
		ModeLongMemEval: rec("longmemeval:q1", "longmemeval", "single-session-user", "q", "a", "a", ""),
		ModeLoCoMo:      rec("locomo:c:1", "locomo", "multi_hop", "q", "a", "a", `{"category":1}`),
		ModeMem0:        rec("locomo:c:1", "locomo", "multi_hop", "q", "a", "a", `{"category":1}`),
		ModeEvaLearn:    rec("evalearn:s:1", "evalearn", "Math", "q", "a", "a", ""),
	}
	if len(lines) != len(protocolCalls) {
		t.Errorf("protocolCalls has %d modes, the test %d", len(protocolCalls), len(lines))
	}
	for mode, line := range lines {
		r, err := record.NewReader(strings.NewReader(line), "in.jsonl").Read()
		if err != nil {
			t.Fatal(err)
		}
		p, err := (&Judge{Mode: mode, Model: "m"}).Plan(r)
		if err != nil || p.Temperature == nil {
			t.Fatalf("%s: plan %+v, %v", mode, p, err)
		}
		want, ok := protocolCalls[mode]
		if !ok || p.MaxTokens != want.maxTokens || *p.Temperature != want.temperature {
			t.Errorf("%s: plan sends max_tokens %d, temperature %v; protocolCalls says %+v (%v)", mode, p.MaxTokens, *p.Temperature, want, ok)
		}
	}
}

// TestCustomPromptTemperature: a --prompt judge sends temperature 0, as the protocols' judges but
// EvaLearn's do, to every provider: googleai, which langchaingo sends 0.5 when a request sets
// none, too.
func TestCustomPromptTemperature(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.txt")
	if err := os.WriteFile(path, []byte("Q: {question} Gold: {answer} Pred: {prediction}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCustom(path, FormatJSONScore)
	if err != nil {
		t.Fatal(err)
	}
	r := &record.Record{ID: "a", Question: "q", Answers: []string{"x"}, Prediction: &record.Prediction{Text: "x"}}
	for _, provider := range []string{"openai", "anthropic", "ollama", "googleai"} {
		j := &Judge{Mode: ModeCustom, Custom: c, Provider: provider, Model: "m"}
		p, err := j.Plan(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := j.request(p, 0).SentTemperature(); got == nil || *got != 0 {
			t.Errorf("%s: temperature %v sent, want 0", provider, got)
		}
	}
}
