package model

import (
	"errors"
	"fmt"
	"testing"
)

// TestReplyFailure: the words of a reply's failure past the provider and model its error names,
// without the attempts its call took (a reply served from the cache took none) or a hint; an error
// that names no such model is kept whole.
func TestReplyFailure(t *testing.T) {
	req := Request{Provider: "openai", Model: "judge-1"}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"after retries", &CallError{Attempts: 3, Err: fmt.Errorf("openai judge-1: %w (no choices)", ErrEmptyReply)}, "empty reply (no choices)"},
		{"with a hint", &CallError{Err: fmt.Errorf("openai judge-1: %w (stop reason stop; content null)", ErrEmptyReply), Hint: "see --help"},
			"empty reply (stop reason stop; content null)"},
		{"served from the cache", &CallError{Err: errors.New("openai judge-1: empty reply (stop reason stop)")}, "empty reply (stop reason stop)"},
		{"bare", errors.New("openai judge-1: empty reply"), "empty reply"},
		{"another model", &CallError{Err: errors.New("openai judge-2: empty reply")}, "openai judge-2: empty reply"},
	} {
		if got := ReplyFailure(req, tc.err); got != tc.want {
			t.Errorf("%s: ReplyFailure = %q, want %q", tc.name, got, tc.want)
		}
	}
}
