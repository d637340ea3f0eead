package judge

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// seqClient gives its replies in turn.
type seqClient struct{ replies []model.Response }

func (c *seqClient) Generate(context.Context, model.Request) (model.Response, error) {
	resp := c.replies[0]
	c.replies = c.replies[1:]
	return resp, nil
}

// TestNoUsageOfAnyReply: a judgment one of whose replies came without token usage has no usage
// and no cost, whichever of its replies that was (Judge.NoUsage): what it used is unknown, and
// the usage of the other replies alone would read as all it used.
func TestNoUsageOfAnyReply(t *testing.T) {
	used := record.Usage{InputTokens: 100, OutputTokens: 10}
	bad := model.Response{Text: "not json", Usage: used}
	good := model.Response{Text: `{"score": 1}`, Usage: used}
	none := func(r model.Response) model.Response { r.Usage, r.NoUsage = record.Usage{}, true; return r }
	for _, tt := range []struct {
		name    string
		replies []model.Response
		usage   *record.Usage
		noUsage int64
	}{
		{"every reply's usage", []model.Response{bad, good}, &record.Usage{InputTokens: 200, OutputTokens: 20}, 0},
		{"the unparsable reply's unknown", []model.Response{none(bad), good}, nil, 1},
		{"the parsed reply's unknown", []model.Response{bad, none(good)}, nil, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j, jg, err := gradeReplies(tt.replies)
			if err != nil || jg.Score == nil || *jg.Score != 1 || jg.Attempts != 2 {
				t.Fatalf("Grade = %+v, %v; want score 1 after 2 replies", jg, err)
			}
			if (jg.Usage == nil) != (tt.usage == nil) || jg.Usage != nil && !reflect.DeepEqual(*jg.Usage, *tt.usage) {
				t.Errorf("usage %+v, want %+v", jg.Usage, tt.usage)
			}
			if (jg.CostUSD == nil) != (tt.usage == nil) {
				t.Errorf("cost_usd %v, want one only with the usage known", jg.CostUSD)
			}
			if n := j.NoUsage.Load(); n != tt.noUsage {
				t.Errorf("NoUsage = %d, want %d", n, tt.noUsage)
			}
		})
	}
}

// failingClient fails every call with err, with resp.
type failingClient struct {
	resp model.Response
	err  error
}

func (c failingClient) Generate(context.Context, model.Request) (model.Response, error) {
	return c.resp, c.err
}

// TestFailedCallPaid: a call that fails with a reply the provider charged for (one the client
// could not read) counts its usage in the failed judgment, or, when the server gave none, counts
// the judgment among those whose usage is unknown; a call that failed with nothing charged counts
// in neither.
func TestFailedCallPaid(t *testing.T) {
	unread := errors.New("content block of an unknown type")
	for _, tt := range []struct {
		name    string
		resp    model.Response
		usage   *record.Usage
		noUsage int64
	}{
		{"usage given", model.Response{Usage: record.Usage{InputTokens: 100, OutputTokens: 10}}, &record.Usage{InputTokens: 100, OutputTokens: 10}, 0},
		{"usage not given", model.Response{NoUsage: true}, nil, 1},
		{"nothing charged", model.Response{}, nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := &Judge{Mode: ModeLoCoMo, Provider: "openai", Model: "j1", Routes: DefaultRoutes(),
				Client: failingClient{resp: tt.resp, err: unread}}
			r := &record.Record{ID: "locomo:c:1", Dataset: "locomo", Type: "multi_hop", Question: "Where?", Answers: []string{"Paris"},
				Meta: map[string]json.RawMessage{"category": json.RawMessage("1")}, Prediction: &record.Prediction{Text: "Paris"}}
			jg, err := j.Grade(context.Background(), r)
			if err != nil || jg.Score != nil || !strings.HasPrefix(jg.Error, callFailed) || !strings.Contains(jg.Error, unread.Error()) {
				t.Fatalf("Grade = %+v, %v; want the call's failure", jg, err)
			}
			if !reflect.DeepEqual(jg.Usage, tt.usage) {
				t.Errorf("usage %+v, want %+v", jg.Usage, tt.usage)
			}
			if n := j.NoUsage.Load(); n != tt.noUsage {
				t.Errorf("NoUsage = %d, want %d", n, tt.noUsage)
			}
		})
	}
}

// TestCachedOnlyWhenEveryReplyIs: a judgment is cached when every reply it read came from the
// cache; one that asked for any (the unparsable first, the later one served from the cache, or
// the other way round) is not, and the cached replies' cost is counted apart (CachedPart).
func TestCachedOnlyWhenEveryReplyIs(t *testing.T) {
	used := record.Usage{InputTokens: 1000, OutputTokens: 0}
	bad := model.Response{Text: "not json", Usage: used}
	good := model.Response{Text: `{"score": 1}`, Usage: used}
	cached := func(r model.Response) model.Response { r.Cached = true; return r }
	for _, tt := range []struct {
		name    string
		replies []model.Response
		cached  bool
		part    float64 // the cost the cache served of a judgment it did not serve whole
	}{
		{"asked, then served", []model.Response{bad, cached(good)}, false, 0.001},
		{"served, then asked", []model.Response{cached(bad), good}, false, 0.001},
		{"both served", []model.Response{cached(bad), cached(good)}, true, 0},
		{"both asked", []model.Response{bad, good}, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j, jg, err := gradeReplies(tt.replies)
			if err != nil || jg.Score == nil || *jg.Score != 1 || jg.CostUSD == nil || *jg.CostUSD != 0.002 {
				t.Fatalf("Grade = %+v, %v; want score 1 at $0.002, two replies of 1000 input tokens at $1 a million", jg, err)
			}
			if jg.Cached != tt.cached {
				t.Errorf("cached = %v, want %v", jg.Cached, tt.cached)
			}
			if got := j.CachedPart(); got != tt.part {
				t.Errorf("CachedPart = %v, want %v", got, tt.part)
			}
		})
	}
}

// gradeReplies grades a LoCoMo record answered "Paris", its gold answer, by a judge of model j1
// ($1 a million tokens in and out) whose client gives replies in turn, one re-ask allowed, and
// returns the judge, the judgment and the error.
func gradeReplies(replies []model.Response) (*Judge, *record.Judgment, error) {
	j := &Judge{Mode: ModeLoCoMo, Provider: "openai", Model: "j1", Routes: DefaultRoutes(), ParseRetries: 1,
		Client: &seqClient{replies: replies}, Prices: model.Prices{"j1": {Input: 1, Output: 1}}}
	r := &record.Record{ID: "locomo:c:1", Dataset: "locomo", Type: "multi_hop", Question: "Where?", Answers: []string{"Paris"},
		Meta: map[string]json.RawMessage{"category": json.RawMessage("1")}, Prediction: &record.Prediction{Text: "Paris"}}
	jg, err := j.Grade(context.Background(), r)
	return j, jg, err
}
