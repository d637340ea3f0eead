package judge

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/cache"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/pkg/record"
)

// storedClient replies to each sample with the text of replies, and keeps the requests it was
// asked; a sample it has no reply for gets a MAGMA reply of score 0.
type storedClient struct {
	replies map[int]string
	asked   []model.Request
}

func (c *storedClient) Generate(_ context.Context, req model.Request) (model.Response, error) {
	c.asked = append(c.asked, req)
	if text, ok := c.replies[req.Sample]; ok {
		return model.Response{Text: text, Stopped: true}, nil
	}
	return model.Response{Text: `{"score": 0}`, Stopped: true}, nil
}

// TestDryRegrade: DryRegrade tells from --cache alone what Regrade would do, as its doc says:
// no request for a record it cannot judge (the judgment failed as Regrade fails it), for one
// it skips (no judgment) or a rule decides (the rule's verdict); the first request the run
// sends, seeded for its sample, when the cache does not hold every reply it reads (the judgment
// begun, with no verdict nor error); and when it does, the judgment the run writes from the
// replies: the verdict of the first that parses, read on past the re-asks, or the unparsable
// error when none does. The run over the same cache then asks nothing where the dry run says
// cached, and first asks the request it shows where it does not.
func TestDryRegrade(t *testing.T) {
	magmaSHA := prompt.Must(prompt.MAGMAUser).SHA256
	unparsable := ErrUnparsable.Error()
	locomo := func(cat, pred string) *record.Record {
		r := &record.Record{ID: "locomo:c:1", Dataset: "locomo", Type: "multi_hop", Question: "Where?",
			Answers: []string{"Paris"}, Meta: map[string]json.RawMessage{"category": json.RawMessage(cat)}}
		if pred != "" {
			r.Prediction = &record.Prediction{Text: pred}
		}
		return r
	}
	score := func(s float64) *float64 { return &s }
	tests := []struct {
		name    string
		mode    string
		rec     *record.Record
		prior   *record.Judgment
		noLook  bool           // no --cache
		stored  map[int]string // the cache's replies, by sample
		strip   bool           // --think strip
		sample  int            // the sample of the request shown; -1 for none
		cached  bool
		want    *record.Judgment
		wantErr string // the opening of the judgment's error
	}{
		{name: "no prediction", mode: ModeLoCoMo, rec: locomo("1", ""), sample: -1,
			want: &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a"}, wantErr: "no prediction to judge"},
		{name: "category unreadable", mode: ModeLoCoMo, rec: locomo(`"x"`, "Paris"), sample: -1,
			want: &record.Judgment{Mode: ModeLoCoMo}, wantErr: "meta.category"},
		{name: "mem0 skips category 5", mode: ModeMem0, rec: locomo("5", "Paris"), sample: -1},
		{name: "category-5 rule", mode: ModeLoCoMo, rec: locomo("5", "Paris"), sample: -1,
			want: &record.Judgment{Mode: ModeAdversarial, PromptSHA256: prompt.Must(prompt.MAGMACat5).SHA256, Score: score(0), Label: "answered",
				Reasoning: "prediction does not abstain (MAGMA category-5 rule)"}},
		{name: "no cache", mode: ModeLoCoMo, rec: locomo("1", "Paris"), noLook: true, sample: 0,
			want: &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a"}},
		{name: "cache holds nothing", mode: ModeLoCoMo, rec: locomo("1", "Paris"), sample: 0,
			want: &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a"}},
		{name: "answered", mode: ModeLoCoMo, rec: locomo("1", "Paris"), stored: map[int]string{0: `{"score": 0.5, "reasoning": "half"}`},
			sample: 0, cached: true,
			want: &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a", Score: score(0.5), Label: "0.5",
				Reasoning: "half", Raw: `{"score": 0.5, "reasoning": "half"}`, Attempts: 1, Cached: true}},
		{name: "re-asked, answered", mode: ModeLoCoMo, rec: locomo("1", "Paris"), stored: map[int]string{0: "not json", 1: `{"score": 1}`},
			sample: 0, cached: true,
			want: &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a", Score: score(1), Label: "1",
				Raw: `{"score": 1}`, Attempts: 2, Cached: true}},
		// the re-ask is not stored: the run sends sample 1, seeded 7+1
		{name: "re-ask not stored", mode: ModeLoCoMo, rec: locomo("1", "Paris"), stored: map[int]string{0: "not json"}, sample: 1,
			want: &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a"}},
		{name: "unparsable to the last re-ask", mode: ModeLoCoMo, rec: locomo("1", "Paris"), stored: map[int]string{0: "not json", 1: "nor this"},
			sample: 0, cached: true,
			want:    &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a", Raw: "nor this", Attempts: 2, Cached: true},
			wantErr: unparsable},
		{name: "read on past the re-asks", mode: ModeLoCoMo, rec: locomo("1", "Paris"),
			stored: map[int]string{0: "not json", 1: "nor this", 2: `{"score": 1}`}, sample: 0, cached: true,
			want: &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a", Score: score(1), Label: "1",
				Raw: `{"score": 1}`, Attempts: 3, Cached: true}},
		{name: "thinking kept", mode: ModeLoCoMo, rec: locomo("1", "Paris"),
			stored: map[int]string{0: `<think>x</think>{"score": 1}`, 1: `<think>y</think>{"score": 1}`}, sample: 0, cached: true,
			want:    &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a", Raw: `<think>y</think>{"score": 1}`, Attempts: 2, Cached: true},
			wantErr: unparsable},
		{name: "thinking stripped", mode: ModeLoCoMo, rec: locomo("1", "Paris"), stored: map[int]string{0: `<think>x</think>{"score": 1}`},
			strip: true, sample: 0, cached: true,
			want: &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a", Score: score(1), Label: "1",
				Raw: `<think>x</think>{"score": 1}`, Thinking: "x", Attempts: 1, Cached: true}},
		// a prior judgment unparsable after 2 replies: the run asks on from sample 2, seeded 7+2
		{name: "after a prior unparsable", mode: ModeLoCoMo, rec: locomo("1", "Paris"),
			prior:  &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a", Error: unparsable + ": x", Attempts: 2},
			sample: 2, want: &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a", Attempts: 2}},
		{name: "after a prior unparsable, stored", mode: ModeLoCoMo, rec: locomo("1", "Paris"),
			prior:  &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a", Error: unparsable + ": x", Attempts: 2},
			stored: map[int]string{2: `{"score": 1}`}, sample: 2, cached: true,
			want: &record.Judgment{Mode: ModeLoCoMo, PromptSHA256: magmaSHA, Model: "judge-a", Score: score(1), Label: "1",
				Raw: `{"score": 1}`, Attempts: 3, Cached: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			seed := 7
			j := &Judge{Mode: tt.mode, Provider: "openai", BaseURL: "http://127.0.0.1:1/v1", Model: "judge-a", Routes: DefaultRoutes(),
				ParseRetries: 1, Seed: &seed}
			path := filepath.Join(t.TempDir(), "judge.sqlite")
			cc, err := cache.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.stored) > 0 {
				p, err := j.Plan(tt.rec)
				if err != nil {
					t.Fatal(err)
				}
				fill := cc.Wrap(&storedClient{replies: tt.stored})
				for s := range tt.stored {
					if _, err := fill.Generate(ctx, j.request(p, s)); err != nil {
						t.Fatal(err)
					}
				}
			}
			cc.Close()
			var look *cache.Look
			if !tt.noLook {
				if look, err = cache.OpenLook(path, nil); err != nil {
					t.Fatal(err)
				}
			}
			req, cached, jg := j.DryRegrade(ctx, look, tt.strip, tt.rec, tt.prior)
			if look != nil {
				look.Close()
			}
			switch {
			case tt.sample < 0 && req != nil:
				t.Errorf("request of sample %d shown, want none", req.Sample)
			case tt.sample >= 0 && req == nil:
				t.Errorf("no request shown, want sample %d", tt.sample)
			case req != nil && (req.Sample != tt.sample || req.Seed == nil || *req.Seed != seed+tt.sample || req.Model != "judge-a"):
				t.Errorf("request of model %s, sample %d, seed %v; want judge-a, sample %d, seed %d", req.Model, req.Sample, req.Seed,
					tt.sample, seed+tt.sample)
			}
			if cached != tt.cached {
				t.Errorf("cached = %v, want %v", cached, tt.cached)
			}
			if jg != nil && tt.wantErr != "" {
				if !strings.HasPrefix(jg.Error, tt.wantErr) && !strings.Contains(jg.Error, tt.wantErr) {
					t.Errorf("error %q, want it to hold %q", jg.Error, tt.wantErr)
				}
				jg.Error = ""
			}
			if !reflect.DeepEqual(jg, tt.want) {
				g, _ := json.Marshal(jg)
				w, _ := json.Marshal(tt.want)
				t.Errorf("judgment %s, want %s (error aside)", g, w)
			}
			if tt.noLook || tt.sample < 0 {
				return
			}
			// The run over the same cache.
			cc, err = cache.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
			next := &storedClient{}
			cl := cc.Wrap(next)
			cl.KeepEmpty = true
			j.Client = cl
			if tt.strip {
				j.Client = model.Thinking{Next: cl}
			}
			run, err := j.Regrade(ctx, tt.rec, tt.prior)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case cached && len(next.asked) > 0:
				t.Errorf("the run asked %d requests, the dry run said none", len(next.asked))
			case cached && (run.Error != jg.Error && !strings.HasPrefix(run.Error, tt.wantErr) || !reflect.DeepEqual(run.Score, jg.Score) ||
				run.Attempts != jg.Attempts):
				t.Errorf("the run's judgment %+v, the dry run's %+v", run, jg)
			case !cached && (len(next.asked) == 0 || !reflect.DeepEqual(next.asked[0], *req)):
				t.Errorf("the run asked %+v first, the dry run showed %+v", next.asked, *req)
			}
		})
	}
}
