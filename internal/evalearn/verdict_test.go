package evalearn

import (
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

func TestVerdict(t *testing.T) {
	score := func(v float64) *float64 { return &v }
	tests := []struct {
		name   string
		j      *record.Judgment
		want   float64
		ok     bool
		unread string
	}{
		{"nil", nil, 0, false, ""},
		{"empty", &record.Judgment{}, 0, false, ""},
		{"blank reply", &record.Judgment{Raw: " \n\t"}, 0, false, ""},
		{"score", &record.Judgment{Score: score(1)}, 1, true, ""},
		{"score 0.5 kept", &record.Judgment{Score: score(0.5)}, 0.5, true, ""},
		{"score wins over reply", &record.Judgment{Score: score(0), Raw: `{"answer_score": 1}`}, 0, true, ""},
		{"fenced reply 1", &record.Judgment{Raw: "[JSON]: ```json\n{\"answer_score\": 1}\n```"}, 1, true, ""},
		{"fenced reply 0", &record.Judgment{Raw: "[JSON]: ```json\n{\"answer_score\": 0}\n```"}, 0, true, ""},
		{"inline reply 2", &record.Judgment{Raw: `[JSON]: {"answer_score": 2}`}, 1, true, ""},
		{"reply without score", &record.Judgment{Raw: "I think it is right."}, 0, true, `no {"answer_score": N} in the reply`},
		{"error not read", &record.Judgment{Raw: `{"answer_score": 1}`, Error: "failed"}, 1, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, unread := Verdict(tt.j)
			if got != tt.want || ok != tt.ok || unread != tt.unread {
				t.Errorf("Verdict(%+v) = %v, %v, %q, want %v, %v, %q", tt.j, got, ok, unread, tt.want, tt.ok, tt.unread)
			}
		})
	}
}

// TestCounted: a judgment that is there but holds neither a score nor a reply (EvaLearn's
// empty gpt4judge) counts 0, unread as an empty reply, as evaluate_metric.py scores it; only a
// nil judgment is no verdict. Everything else is Verdict's.
func TestCounted(t *testing.T) {
	score := func(v float64) *float64 { return &v }
	tests := []struct {
		name   string
		j      *record.Judgment
		want   float64
		ok     bool
		unread string
	}{
		{"nil", nil, 0, false, ""},
		{"empty", &record.Judgment{}, 0, true, "empty reply"},
		{"blank reply", &record.Judgment{Raw: " \n\t"}, 0, true, "empty reply"},
		{"failed, empty", &record.Judgment{Error: "timeout"}, 0, true, "empty reply"},
		{"score", &record.Judgment{Score: score(1)}, 1, true, ""},
		{"inline reply 2", &record.Judgment{Raw: `[JSON]: {"answer_score": 2}`}, 1, true, ""},
		{"reply without score", &record.Judgment{Raw: "I think it is right."}, 0, true, `no {"answer_score": N} in the reply`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, unread := Counted(tt.j)
			if got != tt.want || ok != tt.ok || unread != tt.unread {
				t.Errorf("Counted(%+v) = %v, %v, %q, want %v, %v, %q", tt.j, got, ok, unread, tt.want, tt.ok, tt.unread)
			}
		})
	}
}
