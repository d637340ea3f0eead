package prompt

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/python"
)

// turnKeys is what json.loads reads of a turn, as run_generation.py reads it (turn['role'],
// turn['content']): its role and content, exact keys, the last of a repeated key; ok is false
// for a turn parseTurns must refuse (not a dict or null, or a role or content neither a string
// nor null), and known is false where python.Loads cannot say: it refuses the turn, or the turn
// or a string of it is not valid UTF-8 (Python would not have decoded the file; encoding/json
// replaces each bad byte, a lone surrogate too, with U+FFFD).
func turnKeys(raw json.RawMessage) (role, content string, ok, known bool) {
	v, err := python.Loads(string(raw))
	if err != nil || !utf8.Valid(raw) {
		return "", "", false, false
	}
	switch v.Kind {
	case python.None:
		return "", "", true, true
	case python.Dict:
	default:
		return "", "", false, true
	}
	get := func(key string) (string, bool, bool) {
		m, found := v.Get(key)
		switch {
		case !found || m.Kind == python.None:
			return "", true, true
		case m.Kind != python.Str:
			return "", false, true
		}
		return m.S, true, utf8.ValidString(m.S)
	}
	role, okRole, knownRole := get("role")
	content, okContent, knownContent := get("content")
	return role, content, okRole && okContent, knownRole && knownContent
}

var sessionErrRE = regexp.MustCompile(`^session ([0-9]+), turn [0-9]+: `)

// FuzzParseTurns: a haystack (a JSON list of sessions, each a list of turns) either parses to
// one turn a turn, in place (session and index), its raw JSON kept, its role and content valid
// UTF-8 and those json.loads reads under the keys "role" and "content"; or it is refused, with
// nothing parsed, naming (from 1) the first session holding a turn that is no object (or null)
// with a string (or null) role and content.
func FuzzParseTurns(f *testing.F) {
	f.Add(`[[{"role": "user", "content": "hi", "has_answer": true}, {"role": "assistant", "content": "hello"}], []]`)
	f.Add(`[[{"role": "user", "content": "a"}], [{"role": "user", "content": 3}]]`)
	f.Add(`[[null, {"content": "no role"}, {"role": null}], [["a list"]], ["text"]]`)
	f.Add(`[[{"role": "user", "role": "assistant", "content": "x\u00e9\ud83d\udc31"}]]`)
	f.Add(`[[{"role": "user", "content": "\ud800 lone"}, {"role": "user", "content": "bad ` + "\xff" + ` byte"}]]`)
	for _, name := range []string{"longmemeval_entry.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "golden", name))
		if err != nil {
			f.Fatal(err)
		}
		var entry struct {
			Sessions json.RawMessage `json:"haystack_sessions"`
		}
		if err := json.Unmarshal(data, &entry); err != nil {
			f.Fatal(err)
		}
		f.Add(string(entry.Sessions))
	}
	f.Fuzz(func(t *testing.T, haystack string) {
		var lists [][]json.RawMessage
		if json.Unmarshal([]byte(haystack), &lists) != nil {
			return
		}
		sessions := make([]LongMemEvalSession, len(lists))
		for i, turns := range lists {
			sessions[i] = LongMemEvalSession{Date: fmt.Sprint(i), Turns: turns}
		}
		// bad is the first session (from 1) that python.Loads says holds a bad turn, 0 for none;
		// sure says that it could tell of every turn up to there.
		bad, sure := 0, true
		for i, s := range sessions {
			for _, raw := range s.Turns {
				_, _, ok, known := turnKeys(raw)
				sure = sure && known
				if !ok && known && bad == 0 {
					bad = i + 1
				}
			}
			if bad != 0 {
				break
			}
		}
		parsed, err := parseTurns(sessions)
		if err != nil {
			m := sessionErrRE.FindStringSubmatch(err.Error())
			if parsed != nil || m == nil {
				t.Fatalf("parseTurns(%s) = %d sessions, error %q; want none and \"session N, turn M: ...\"", haystack, len(parsed), err)
			}
			if k, _ := strconv.Atoi(m[1]); sure && k != bad || k < 1 || k > len(sessions) {
				t.Errorf("parseTurns(%s) error %q names session %d, want %d (the first with a bad turn)", haystack, err, k, bad)
			}
			return
		}
		if sure && bad != 0 {
			t.Errorf("parseTurns(%s) took session %d, which holds a turn json.loads reads as no object with string role and content", haystack, bad)
		}
		if len(parsed) != len(sessions) {
			t.Fatalf("parseTurns(%s) = %d sessions, want %d", haystack, len(parsed), len(sessions))
		}
		for i, s := range sessions {
			if len(parsed[i]) != len(s.Turns) {
				t.Fatalf("parseTurns(%s): session %d has %d turns, want %d", haystack, i+1, len(parsed[i]), len(s.Turns))
			}
			for j, tr := range parsed[i] {
				if tr.session != i || tr.at != j || string(tr.raw) != string(s.Turns[j]) {
					t.Errorf("parseTurns(%s): turn %d of session %d is at %d, %d holding %s, want %s", haystack, j, i, tr.session, tr.at, tr.raw, s.Turns[j])
				}
				if !utf8.ValidString(tr.role) || !utf8.ValidString(tr.content) {
					t.Errorf("parseTurns(%s): turn %s read as role %q, content %q: not valid UTF-8", haystack, tr.raw, tr.role, tr.content)
				}
				if role, content, ok, known := turnKeys(tr.raw); known && ok && (tr.role != role || tr.content != content) {
					t.Errorf("parseTurns(%s): turn %s read as role %q, content %q; json.loads reads %q, %q", haystack, tr.raw, tr.role, tr.content, role, content)
				}
			}
		}
	})
}

// TestParseTurnsKeys: a turn's role and content are read under their exact keys, the last of a
// repeated key kept, as json.loads reads them; testdata/fuzz/FuzzParseTurns/3f95a9ea980d0c29
// ("Content": 0, which a struct field took for content) is the case FuzzParseTurns found.
func TestParseTurnsKeys(t *testing.T) {
	for _, tc := range []struct {
		name, turn    string
		role, content string
		err           string
	}{
		{"3f95a9ea980d0c29", `{"0aa0": "", "Content": 0}`, "", "", ""},
		{"other case", `{"Role": "user", "CONTENT": "x"}`, "", "", ""},
		{"cases repeated", `{"role": "assistant", "ROLE": "user", "content": "a", "Content": "b"}`, "assistant", "a", ""},
		{"key repeated", `{"role": "user", "role": "assistant"}`, "assistant", "", ""},
		{"null", `null`, "", "", ""},
		{"null role", `{"role": null, "content": "c"}`, "", "c", ""},
		{"number role", `{"role": 1}`, "", "", "session 1, turn 1: role is a number, not a string"},
		{"list", `["user"]`, "", "", "session 1, turn 1: a list, not an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parsed, err := parseTurns([]LongMemEvalSession{{Turns: []json.RawMessage{json.RawMessage(tc.turn)}}})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("parseTurns(%s) error %v, want %q", tc.turn, err, tc.err)
				}
				return
			}
			if err != nil || parsed[0][0].role != tc.role || parsed[0][0].content != tc.content {
				t.Errorf("parseTurns(%s) = %v, %v; want role %q, content %q", tc.turn, parsed, err, tc.role, tc.content)
			}
		})
	}
}
