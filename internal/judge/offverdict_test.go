package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoopbackOffVerdict: a reply that its protocol's rule scores 0 for giving none of the
// protocol's verdicts is counted in the warning of that protocol, in its words: a mem0 label
// other than CORRECT and WRONG ("Correct", "neither") is mem0's, never a yes/no reply that
// LongMemEval's rule read (a mem0 {"label": "neither"} was counted as one, and a "Correct"
// scored 0 without a word).
func TestLoopbackOffVerdict(t *testing.T) {
	dir := t.TempDir()
	custom := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	labelPrompt := custom("label.txt", "Gold {answer}. Said {prediction}. Give {\"label\": ...}")
	yesNoPrompt := custom("yesno.txt", "Gold {answer}. Said {prediction}. Yes or no?")
	const yesNoWarning = "yes/no repl"
	const mem0Warning = "neither CORRECT nor WRONG"
	locomo := rec("locomo:c:0", "locomo", "temporal", "When?", "May", "May", `{"category":2}`)
	for _, tc := range []struct {
		name, reply string
		args        []string
		score       float64
		want        string // the warning that counts the reply, "" for none
		notWant     []string
	}{
		{"mem0 neither", `{"label": "neither"}`, []string{"--mode", "mem0"}, 0,
			`warning: 1 mem0 label is neither CORRECT nor WRONG ("neither"): scored 0 as mem0's rule scores it`, []string{yesNoWarning}},
		{"mem0 Correct", `{"label": "Correct"}`, []string{"--mode", "mem0"}, 0,
			`warning: 1 mem0 label is neither CORRECT nor WRONG ("Correct"): scored 0 as mem0's rule scores it`, []string{yesNoWarning}},
		{"mem0 WRONG", `{"label": "WRONG"}`, []string{"--mode", "mem0"}, 0, "", []string{yesNoWarning, mem0Warning}},
		{"mem0 CORRECT", `{"label": "CORRECT"}`, []string{"--mode", "mem0"}, 1, "", []string{yesNoWarning, mem0Warning}},
		{"label prompt neither", `{"label": "neither"}`, []string{"--prompt", labelPrompt, "--prompt-format", "label"}, 0,
			`warning: 1 mem0 label is neither CORRECT nor WRONG ("neither")`, []string{yesNoWarning}},
		{"yes-no prompt neither", "Maybe.", []string{"--prompt", yesNoPrompt, "--prompt-format", "yes-no"}, 0,
			"warning: 1 yes/no reply says neither yes nor no", []string{mem0Warning}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newChatServer(t, func(chatRequest) (string, int) { return tc.reply, 200 })
			args := append([]string{"--base-url", srv.URL, "--model", "judge-1", "--name", "j"}, tc.args...)
			stdout, stderr, code := runJudge(t, args, locomo)
			if code != 0 {
				t.Fatalf("exit %d, want 0 (stderr %s)", code, stderr)
			}
			j := decodeAll(t, stdout)[0].Judgments["j"]
			if j == nil || j.Score == nil || *j.Score != tc.score || j.Error != "" {
				t.Fatalf("judgment %+v, want score %v", j, tc.score)
			}
			if tc.want != "" && !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr = %q, want it to hold %q", stderr, tc.want)
			}
			for _, nw := range tc.notWant {
				if strings.Contains(stderr, nw) {
					t.Errorf("stderr = %q, want no %q", stderr, nw)
				}
			}
		})
	}
}

// TestOffLabelWarning: mem0's warning names the first few distinct labels, and says when there
// were others.
func TestOffLabelWarning(t *testing.T) {
	for _, tc := range []struct {
		labels []string
		want   string
	}{
		{[]string{"Correct"}, `1 mem0 label is neither CORRECT nor WRONG ("Correct"): scored 0 as mem0's rule scores it`},
		{[]string{"Correct", "Correct"}, `2 mem0 labels are neither CORRECT nor WRONG ("Correct"): scored 0 as mem0's rule scores them`},
		{[]string{"a", "b", "a", "c"}, `4 mem0 labels are neither CORRECT nor WRONG ("a", "b", "c"): `},
		{[]string{"a", "b", "c", "d", "a"}, `5 mem0 labels are neither CORRECT nor WRONG ("a", "b", "c", …): `},
	} {
		var tl tally
		for _, l := range tc.labels {
			tl.offLabel(l)
		}
		var b strings.Builder
		summarize(&b, "j", &tl, 0)
		if !strings.Contains(b.String(), "qa-judge: warning: "+tc.want) {
			t.Errorf("%q: summarize wrote %q, want it to hold %q", tc.labels, b.String(), tc.want)
		}
	}
}
