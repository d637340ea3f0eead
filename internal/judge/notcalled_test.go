package judge

import (
	"context"
	"testing"

	"github.com/qapipe/qapipe/internal/interrupt"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// TestNotCalledOneWording: once the run is asked to finish, a record not handed to the model
// (Grade) and a call the client itself stops (at a rate limit, or at the gate, as here: call
// past Grade's check) fail with the one wording of a call not made, with no provider or model
// in it, and no request leaves.
func TestNotCalledOneWording(t *testing.T) {
	srv := newChatServer(t, protocolReply)
	j := &Judge{Mode: ModeLongMemEval, Provider: "openai", Model: "gpt-4o", Routes: DefaultRoutes()}
	s := model.Setup{Provider: "openai", BaseURL: srv.URL, APIKey: "sk-test", Concurrency: 1}
	client, err := s.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	j.Client = client
	ctx, r := finishingRun()
	never, err := j.Grade(ctx, r)
	if err != nil || never.Error != notCalled {
		t.Errorf("Grade, the run finishing: %+v, %v; want the error %q", never, err, notCalled)
	}
	p, err := j.Plan(r)
	if err != nil {
		t.Fatal(err)
	}
	stopped := &record.Judgment{}
	if err := j.call(ctx, p, stopped); err != nil || stopped.Error != notCalled {
		t.Errorf("a call the client stops: %+v, %v; want the error %q", stopped, err, notCalled)
	}
	if n := srv.count(); n != 0 {
		t.Errorf("%d requests reached the server, want none", n)
	}
}

// countingClient answers every request "yes" and counts the requests.
type countingClient struct{ n int }

func (c *countingClient) Generate(context.Context, model.Request) (model.Response, error) {
	c.n++
	return model.Response{Text: "yes"}, nil
}

// TestFinishingHandsNoRecordToClient: once the run is asked to finish, Grade gives a record the
// error of a call not made without handing it to the client at all, so a client that does not
// check the run (a cache that could answer from what it holds, a test's) gives no new verdict.
func TestFinishingHandsNoRecordToClient(t *testing.T) {
	c := &countingClient{}
	j := &Judge{Mode: ModeLongMemEval, Provider: "openai", Model: "gpt-4o", Routes: DefaultRoutes(), Client: c}
	ctx, r := finishingRun()
	jg, err := j.Grade(ctx, r)
	if err != nil || jg == nil || jg.Error != notCalled || jg.Score != nil {
		t.Errorf("Grade, the run finishing: %+v, %v; want no score and the error %q", jg, err, notCalled)
	}
	if c.n != 0 {
		t.Errorf("the client was asked %d times, want 0", c.n)
	}
}

// notCalled is the error of a judge call the run did not make.
const notCalled = "judge call: interrupted before the call was made"

// finishingRun returns the context of a run already asked to finish and a LongMemEval record
// with an answer to judge.
func finishingRun() (context.Context, *record.Record) {
	ctx, finish := interrupt.WithFinish(context.Background())
	finish()
	return ctx, &record.Record{ID: "longmemeval:q1", Dataset: "longmemeval", Type: "single-session-user", Question: "Q",
		Answers: []string{"A"}, Prediction: &record.Prediction{Text: "A"}}
}
