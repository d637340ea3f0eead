package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestEvaluateQAModel: the model of an answer member of evaluate_qa.py's output is all before
// _prediction, and a member named _prediction alone is none.
func TestEvaluateQAModel(t *testing.T) {
	for _, tc := range []struct {
		key, model string
		ok         bool
	}{
		{"gpt-4-turbo_prediction", "gpt-4-turbo", true},
		{"gpt-4-turbo_dialog_top_5_prediction", "gpt-4-turbo_dialog_top_5", true},
		{"gpt-4-turbo_dialog_top_5_prediction_context", "", false},
		{"gpt-4-turbo_f1", "", false},
		{"_prediction", "", false},
		{"prediction", "", false},
	} {
		model, ok := evaluateQAModel(tc.key)
		if ok != tc.ok || ok && model != tc.model {
			t.Errorf("evaluateQAModel(%q) = %q, %v, want %q, %v", tc.key, model, ok, tc.model, tc.ok)
		}
	}
}

// TestShellWord: a model's name is given as a shell word in the hint to --locomo-model: as it is
// when the shell reads it so, else single-quoted, a quote within closed, escaped and reopened.
func TestShellWord(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"gpt-4-turbo", "gpt-4-turbo"},
		{"gpt-4-turbo_dialog_top_5", "gpt-4-turbo_dialog_top_5"},
		{"meta-llama/Llama-3-8B+rag:v1,k=5@home%", "meta-llama/Llama-3-8B+rag:v1,k=5@home%"},
		{"gpt 4", "'gpt 4'"},
		{"$MODEL", "'$MODEL'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
	} {
		if got := shellWord(tc.in); got != tc.want {
			t.Errorf("shellWord(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// locomoModelRuns is the answer members of evaluate_qa.py's output over runs of model with each
// --use-rag mode and top-k, and of two models without: eleven models.
func locomoModelRuns() []string {
	models := []string{"gpt-3.5-turbo", "gpt-4-turbo"}
	for _, mode := range []string{"dialog", "observation", "summary"} {
		for _, k := range []int{5, 10, 25} {
			models = append(models, fmt.Sprintf("gpt-4-turbo_%s_top_%d", mode, k))
		}
	}
	return models
}

// TestLoCoMoModelNamed: the usage error of a --locomo-model no question has the answers of names
// the file's models in sorted order, the first 8 and "…" for more, whatever order the members
// of a question come in, and suggests the nearest of them all, named or not. A model seen again
// on a later question is no more.
func TestLoCoMoModelNamed(t *testing.T) {
	meta := func(models ...string) map[string]jsonRaw {
		m := map[string]jsonRaw{"category": jsonRaw("2")}
		for _, model := range models {
			m[model+"_prediction"], m[model+"_f1"] = jsonRaw(`"a"`), jsonRaw("1")
		}
		return m
	}
	eight := []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"}
	runs := locomoModelRuns()
	for _, tc := range []struct {
		name   string
		model  string
		metas  []map[string]jsonRaw
		suffix string
	}{
		{"eight, seen again", "m9x", []map[string]jsonRaw{meta(eight...), meta(eight...), meta("m8")},
			`the questions have answers of the models m1, m2, m3, m4, m5, m6, m7, m8`},
		{"one", "gpt-4-trubo", []map[string]jsonRaw{meta("gpt-4-turbo"), meta()},
			`the questions have answers of the model gpt-4-turbo; did you mean "gpt-4-turbo"?`},
		{"eleven", "gpt-4-turbo_sumary_top_25", []map[string]jsonRaw{meta(runs...), meta(runs[:3]...)},
			`the questions have answers of the models gpt-3.5-turbo, gpt-4-turbo, gpt-4-turbo_dialog_top_10, gpt-4-turbo_dialog_top_25, gpt-4-turbo_dialog_top_5, gpt-4-turbo_observation_top_10, gpt-4-turbo_observation_top_25, gpt-4-turbo_observation_top_5, …; did you mean "gpt-4-turbo_summary_top_25"?`},
	} {
		// Go ranges over a map in an order of its own each time: the words must not follow it.
		for range 20 {
			a := &app{opt: Options{LoCoMoModel: tc.model}}
			for _, m := range tc.metas {
				a.locomoQuestion(m)
			}
			err := a.locomoModelFound()
			if err == nil || !strings.HasSuffix(err.Error(), tc.suffix) {
				t.Errorf("%s: locomoModelFound() = %v, want it to end %s", tc.name, err, tc.suffix)
				break
			}
		}
	}
}

// TestLoCoMoAnswersNamed: the warning of evaluate_qa.py's answers left in meta names the members
// in sorted order, the first 8 and "…" for more, and the first model's in the hint to
// --locomo-model, whatever order a question's members come in.
func TestLoCoMoAnswersNamed(t *testing.T) {
	runs := locomoModelRuns()
	q := map[string]any{"question": "Q?", "answer": "a", "evidence": []string{"D1:1"}, "category": 2}
	for _, m := range runs {
		q[m+"_prediction"], q[m+"_f1"] = "a", 1.0
	}
	file, err := json.Marshal([]any{map[string]any{"sample_id": "conv-1", "qa": []any{q, q}}})
	if err != nil {
		t.Fatal(err)
	}
	const want = "qa-load: warning: 2 of 2 LoCoMo records carry answers of LoCoMo's evaluate_qa.py, left in meta (" +
		"meta.gpt-3.5-turbo_prediction, meta.gpt-4-turbo_dialog_top_10_prediction, meta.gpt-4-turbo_dialog_top_25_prediction, " +
		"meta.gpt-4-turbo_dialog_top_5_prediction, meta.gpt-4-turbo_observation_top_10_prediction, " +
		"meta.gpt-4-turbo_observation_top_25_prediction, meta.gpt-4-turbo_observation_top_5_prediction, " +
		"meta.gpt-4-turbo_prediction, …), and have no prediction: to score one model's, make them the predictions with --locomo-model gpt-3.5-turbo\n"
	for range 20 {
		var stdout, stderr bytes.Buffer
		if err := Run(t.Context(), []string{"qa-load", "--format", "locomo", "-"}, bytes.NewReader(file), &stdout, &stderr); err != nil {
			t.Fatalf("Run = %v; stderr %s", err, stderr.String())
		}
		if got := stderr.String(); got != want {
			t.Fatalf("stderr\n%s\nwant\n%s", got, want)
		}
	}
}
