package judge

import (
	"context"
	"testing"

	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

// sampleClient answers every request "yes" and keeps the sample each asked for.
type sampleClient struct{ samples []int }

func (c *sampleClient) Generate(_ context.Context, req model.Request) (model.Response, error) {
	c.samples = append(c.samples, req.Sample)
	return model.Response{Text: "yes"}, nil
}

// TestRegradeAsksAfterPriorUnparsable: a judgment whose earlier replies of the same model, mode
// and template were unparsable asks for the samples after them and counts its attempts on from
// theirs; replies of another model, or to another protocol's prompt (MAGMA's, then judged under
// the same name by LongMemEval's with --force), or an earlier failure that was no unparsable
// reply, start again from sample 0, as a cache holds no sample of theirs for this request.
func TestRegradeAsksAfterPriorUnparsable(t *testing.T) {
	unparsable := ErrUnparsable.Error() + ": empty reply"
	lme := prompt.Must(prompt.LongMemEvalJudgeDefault).SHA256
	magma := prompt.Must(prompt.MAGMAUser).SHA256
	for _, tt := range []struct {
		name         string
		prior        *record.Judgment
		sample, atts int
	}{
		{"none", nil, 0, 1},
		{"same model unparsable", &record.Judgment{Mode: ModeLongMemEval, PromptSHA256: lme, Model: "judge-a", Error: unparsable, Attempts: 2}, 2, 3},
		{"other model unparsable", &record.Judgment{Mode: ModeLongMemEval, PromptSHA256: lme, Model: "judge-b", Error: unparsable, Attempts: 2}, 0, 1},
		{"other mode unparsable", &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magma, Model: "judge-a", Error: unparsable, Attempts: 2}, 0, 1},
		// a custom prompt of the same bytes as LongMemEval's template: another mode's replies
		{"other mode, same template, unparsable", &record.Judgment{Mode: ModeCustom, PromptSHA256: lme, Model: "judge-a", Error: unparsable, Attempts: 2}, 0, 1},
		{"other template unparsable", &record.Judgment{Mode: ModeLongMemEval, PromptSHA256: magma, Model: "judge-a", Error: unparsable, Attempts: 2}, 0, 1},
		{"same model call failed", &record.Judgment{Mode: ModeLongMemEval, PromptSHA256: lme, Model: "judge-a", Error: callFailed + "HTTP 500", Attempts: 2}, 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &sampleClient{}
			j := &Judge{Mode: ModeLongMemEval, Provider: "openai", Model: "judge-a", Routes: DefaultRoutes(), Client: c}
			r := &record.Record{ID: "longmemeval:q1", Dataset: "longmemeval", Type: "single-session-user", Question: "Q",
				Answers: []string{"A"}, Prediction: &record.Prediction{Text: "A"}}
			jg, err := j.Regrade(context.Background(), r, tt.prior)
			if err != nil || jg == nil || jg.Score == nil || *jg.Score != 1 {
				t.Fatalf("Regrade = %+v, %v; want score 1", jg, err)
			}
			if len(c.samples) != 1 || c.samples[0] != tt.sample || jg.Attempts != tt.atts {
				t.Errorf("Regrade asked samples %v, attempts %d; want [%d], %d", c.samples, jg.Attempts, tt.sample, tt.atts)
			}
		})
	}
}
