package judge

import (
	"encoding/json"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
)

// TestDryRunResumesAsTheRun: over a judgment whose replies were unparsable, --retry-errors and
// --force ask on from its attempts (the later samples, seeded --seed plus the sample): the dry
// run shows the request the run then sends, its seed and messages as the server receives them.
func TestDryRunResumesAsTheRun(t *testing.T) {
	for _, flag := range []string{"--retry-errors", "--force"} {
		t.Run(flag, func(t *testing.T) {
			srv := unparsableFirst(t, 3)
			args := []string{"--base-url", srv.URL, "--model", "judge-1", "--seed", "7"}
			in := rec("locomo:conv-26:0", "locomo", "temporal", "When?", "7 May 2023", "7 May 2023", `{"category":2}`)
			first, stderr, code := runJudge(t, args, in)
			if code != command.ExitBadRecords || srv.count() != 3 {
				t.Fatalf("first run: exit %d, %d calls, want 3 and 3 (stderr %s)", code, srv.count(), stderr)
			}
			stdout, stderr, code := runJudge(t, append([]string{"--dry-run", flag}, args...), first)
			var d dryRequest
			if err := json.Unmarshal([]byte(stdout), &d); code != 0 || err != nil {
				t.Fatalf("dry run: exit %d, %v (stdout %s, stderr %s)", code, err, stdout, stderr)
			}
			if _, stderr, code := runJudge(t, append([]string{flag}, args...), first); code != 0 || srv.count() != 4 {
				t.Fatalf("%s: exit %d, %d calls, want 0 and 4 (stderr %s)", flag, code, srv.count(), stderr)
			}
			got := srv.calls[3]
			msgs, _ := json.Marshal(got.msgs)
			var dmsgs []struct{ Role, Content string }
			for _, m := range d.Messages {
				dmsgs = append(dmsgs, struct{ Role, Content string }{m.Role, m.Content})
			}
			want, _ := json.Marshal(dmsgs)
			if got.Seed == nil || d.Seed == nil || *got.Seed != *d.Seed || *got.Seed != 10 {
				t.Errorf("the run sent seed %v, the dry run shows %v; want both 10 (7 plus sample 3)", deref(got.Seed), deref(d.Seed))
			}
			if string(msgs) != string(want) {
				t.Errorf("the run sent messages %s, the dry run shows %s", msgs, want)
			}
		})
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
