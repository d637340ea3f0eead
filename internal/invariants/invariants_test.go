package invariants

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/judge"
	"github.com/qapipe/qapipe/internal/predict"
	"github.com/qapipe/qapipe/internal/score"
	"github.com/qapipe/qapipe/pkg/record"
)

// odd are JSON values that a re-encoding could change: numbers beyond float64 or int64, -0,
// 1.0 against 1, escapes, line separators, deep and empty containers, keys out of order.
var odd = []string{
	`1.0`, `1`, `-0`, `0.10`, `9223372036854775808`, `-9223372036854775809`, `1e400`, `1E+2`,
	`"\u00e9"`, `"é"`, `"a\u2028b"`, "\"raw\u2028sep\"", `"\ud83d\ude00"`, `"</script>&"`, `""`,
	`{}`, `[]`, `null`, `true`, `{"z":1,"a":[1,2.50,{}],"":null}`, `{ "b" : [ 1 , 2 ] , "a" : { } }`,
	`{"\u0061":1,"a":2}`, strings.Repeat("[", 60) + strings.Repeat("]", 60),
	`"` + strings.Repeat("long ", 2000) + `"`,
}

func pick(r *rand.Rand) string { return odd[r.IntN(len(odd))] }

// unknown returns n members ",key:value" with keys no schema level knows (some differing from
// known ones only in case).
func unknown(r *rand.Rand, n int) string {
	keys := []string{"x_extra", "zeta", "\u00e9t\u00e9", "ID", "Text", "Score", "Usage", "aa", "_"}
	var b strings.Builder
	used := map[string]bool{}
	for range n {
		k := keys[r.IntN(len(keys))]
		if used[k] {
			continue
		}
		used[k] = true
		fmt.Fprintf(&b, `,%q: %s`, k, pick(r))
	}
	return b.String()
}

// empty returns, one time in two, one of members, each ",key:value" of the schema's own keys with
// a value that reads as empty ("", 0, false, null, [], {}), which a stage that re-encodes the
// object must not take away.
func empty(r *rand.Rand, members ...string) string {
	if r.IntN(2) == 0 {
		return ""
	}
	return members[r.IntN(len(members))]
}

var texts = []string{"Hamlet was written by William Shakespeare.", "Paris is the capital of France.", "The answer is 42 and not 41."}
var questions = []string{"Who wrote Hamlet?", "What is the capital of France?", "What is the answer?"}
var golds = []string{"Shakespeare", "Paris", "42"}

// genRecord returns one record line with unknown members at every level.
func genRecord(r *rand.Rand, i int) string {
	k := r.IntN(len(texts))
	var b strings.Builder
	fmt.Fprintf(&b, `{"schema":1,"id":"r%d\u00e9","question":%q,"answers":[%q]`, i, questions[k], golds[k])
	if r.IntN(4) > 0 {
		fmt.Fprintf(&b, `,"context":[{"title":"T","text":%q%s},{"text":"filler"%s%s}]`, texts[k], unknown(r, 2), unknown(r, 1), empty(r, `,"date":""`, `,"sentences":[]`, `,"title":null`))
	}
	fmt.Fprintf(&b, `,"meta":{"z":%s,"a":%s,"m":%s}`, pick(r), pick(r), pick(r))
	if r.IntN(3) == 0 {
		fmt.Fprintf(&b, `,"prediction":{"text":%q,"model":"m0","provider":"p0","usage":{"input_tokens":1,"output_tokens":2%s}%s%s}`, golds[r.IntN(len(golds))], unknown(r, 1), unknown(r, 2), empty(r, `,"cached":false`, `,"attempts":0`, `,"reasoning":""`, `,"notes":[]`, `,"cost_usd":null`, `,"error":""`))
	}
	if r.IntN(3) == 0 {
		fmt.Fprintf(&b, `,"judgments":{"other":{"score":1,"mode":"x","usage":{"input_tokens":1,"output_tokens":1%s}%s%s}}`, unknown(r, 1), unknown(r, 2), empty(r, `,"label":""`, `,"cached":false`, `,"error":null`, `,"raw":""`))
	}
	if r.IntN(3) == 0 {
		fmt.Fprintf(&b, `,"scores":{"mine":0.5,"zz":1}`)
	}
	b.WriteString(unknown(r, 4))
	b.WriteString(empty(r, `,"dataset":""`, `,"split":null`, `,"lang":""`, `,"type":""`, `,"rubric":""`, `,"turns":[]`, `,"sequence":null`))
	fmt.Fprintf(&b, `,"top": %s}`, pick(r))
	return b.String()
}

var stages = map[string]stage{
	"predict": {"qa-predict", predict.Run, []string{"--provider", "extractive"}},
	"judge":   {"qa-judge", judge.Run, []string{"--mode", "rules"}},
	"score":   {"qa-score", score.Run, nil},
}

// runStage runs one stage in-process over file and returns its stdout, stderr and exit code.
func runStage(t *testing.T, name, file string, extra ...string) ([]byte, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	st := stages[name]
	err := st.run(context.Background(), append(st.line(extra...), file), strings.NewReader(""), &out, &errb)
	if err != nil {
		fmt.Fprintf(&errb, "%s: %v\n", st.prog, err)
	}
	return out.Bytes(), errb.String(), command.ExitCode(err)
}

func lines(b []byte) [][]byte {
	var ls [][]byte
	for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		if len(l) > 0 {
			ls = append(ls, l)
		}
	}
	return ls
}

func members(t *testing.T, line []byte) map[string][]byte {
	t.Helper()
	ms, err := record.Members(line)
	if err != nil {
		t.Fatalf("members of %s: %v", line, err)
	}
	m := map[string][]byte{}
	for _, x := range ms {
		if _, dup := m[x.Key]; dup {
			t.Fatalf("member %q twice in %s", x.Key, line)
		}
		m[x.Key] = line[x.ValueStart:x.End]
	}
	return m
}

// compact is v without blanks between tokens, and with the line separators a Writer escapes.
func compact(t *testing.T, v []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, record.EscapeLineBreaks(v)); err != nil {
		t.Fatalf("compact %s: %v", v, err)
	}
	return b.String()
}

// owned lists what each stage writes: the top-level members it may change.
var owned = map[string][]string{
	"predict": {"prediction", "judgments", "scores", "score_errors"}, // a new prediction drops the grades of the old one
	"judge":   {"judgments", "scores"},                               // a new judgment drops judge_score
	"score":   {"scores", "score_errors"},
}

// known lists the schema's members, compared as values (their encoding is the stage's); every
// other member is compared as its bytes.
var known = map[string]bool{"schema": true, "id": true, "dataset": true, "split": true, "lang": true, "type": true,
	"question": true, "turns": true, "answers": true, "rubric": true, "sequence": true}

// checkKept checks that every member of in that stage does not own is in out: unknown top-level
// members byte for byte (qa-score: every member), the schema's nested objects with their unknown
// members without blanks, meta's values too.
func checkKept(t *testing.T, stage string, in, out []byte) {
	t.Helper()
	mi, mo := members(t, in), members(t, out)
	skip := map[string]bool{}
	for _, k := range owned[stage] {
		skip[k] = true
	}
	for k, v := range mi {
		if skip[k] {
			continue
		}
		w, ok := mo[k]
		switch {
		case !ok:
			t.Errorf("%s dropped member %q of %s", stage, k, in)
		case stage == "score" || !known[k] && k != "meta" && k != "context" && k != "prediction" && k != "judgments" && k != "scores":
			if !bytes.Equal(record.EscapeLineBreaks(v), w) {
				t.Errorf("%s changed member %q:\n in %s\nout %s", stage, k, v, w)
			}
		case known[k]:
			var a, b any
			if json.Unmarshal(v, &a) != nil || json.Unmarshal(w, &b) != nil || !reflect.DeepEqual(a, b) {
				t.Errorf("%s changed member %q: %s -> %s", stage, k, v, w)
			}
		case k == "meta": // its values' strings and numbers byte for byte, its keys sorted
			var a, b map[string]json.RawMessage
			_ = json.Unmarshal(v, &a)
			_ = json.Unmarshal(w, &b)
			for mk, mv := range a {
				if compact(t, mv) != compact(t, b[mk]) {
					t.Errorf("%s changed meta.%s: %s -> %s", stage, mk, mv, b[mk])
				}
			}
		default:
			if ci, co := canon(t, v), canon(t, w); ci != co {
				t.Errorf("%s changed member %q:\n in %s\nout %s", stage, k, ci, co)
			}
		}
	}
	for k := range mo {
		if _, ok := mi[k]; !ok && !skip[k] {
			t.Errorf("%s added member %q", stage, k)
		}
	}
	if stage != "predict" { // qa-predict replaces a prediction it does not pass through
		if v, ok := mi["prediction"]; ok && !skip["prediction"] {
			if ci, co := canon(t, v), canon(t, mo["prediction"]); ci != co {
				t.Errorf("%s changed the prediction:\n in %s\nout %s", stage, ci, co)
			}
		}
	}
	if stage == "judge" { // other judges' verdicts are kept
		var ji, jo map[string]json.RawMessage
		_ = json.Unmarshal(mi["judgments"], &ji)
		_ = json.Unmarshal(mo["judgments"], &jo)
		for k, v := range ji {
			if k != "rules-approximate" && canon(t, v) != canon(t, jo[k]) {
				t.Errorf("qa-judge changed judgment %q: %s -> %s", k, v, jo[k])
			}
		}
	}
}

// canon is v with its objects' members sorted by key and no blanks; strings and numbers keep
// their bytes (the encoding of a schema field's string may change: compared decoded).
func canon(t *testing.T, v []byte) string {
	t.Helper()
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '{':
		var m map[string]json.RawMessage
		if err := json.Unmarshal(v, &m); err != nil {
			t.Fatalf("canon %s: %v", v, err)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slicesSort(keys)
		var b strings.Builder
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%q:%s", k, canon(t, m[k]))
		}
		return b.String() + "}"
	case '[':
		var a []json.RawMessage
		if err := json.Unmarshal(v, &a); err != nil {
			t.Fatalf("canon %s: %v", v, err)
		}
		parts := make([]string, len(a))
		for i, e := range a {
			parts[i] = canon(t, e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			t.Fatalf("canon %s: %v", v, err)
		}
		return fmt.Sprintf("%q", s)
	default:
		return compact(t, v)
	}
}

func slicesSort(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func ids(t *testing.T, b []byte) []string {
	t.Helper()
	var out []string
	for _, l := range lines(b) {
		var id string
		if err := json.Unmarshal(members(t, l)["id"], &id); err != nil {
			t.Fatalf("output line %s: %v", l, err)
		}
		out = append(out, id)
	}
	return out
}

func write(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// failed reports whether an output record carries a prediction or judgment error.
func failed(t *testing.T, l []byte) bool {
	var r record.Record
	if err := record.Unmarshal(l, &r); err != nil {
		t.Fatalf("output line %s: %v", l, err)
	}
	return r.Failed()
}

// TestStagesKeepWhatTheyDoNotOwn runs generated records through every order of the three offline
// stages, each stage twice, and checks the invariants at every step.
func TestStagesKeepWhatTheyDoNotOwn(t *testing.T) {
	orders := [][]string{
		{"predict", "judge", "score"},
		{"predict", "score", "judge"},
		{"judge", "predict", "score"},
		{"score", "predict", "judge"},
	}
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 7))
		var in bytes.Buffer
		n := 30
		for i := range n {
			in.WriteString(genRecord(r, i) + "\n")
		}
		for _, order := range orders {
			t.Run(fmt.Sprintf("seed%d/%s", seed, strings.Join(order, "-")), func(t *testing.T) {
				dir := t.TempDir()
				cur := in.Bytes()
				for step, st := range append(order, order...) {
					file := write(t, dir, fmt.Sprintf("in%d.jsonl", step), cur)
					out, stderr, code := runStage(t, st, file)
					out2, stderr2, code2 := runStage(t, st, file)
					if !bytes.Equal(out, out2) || stderr != stderr2 || code != code2 {
						t.Fatalf("step %d %s: two runs over the same input differ", step, st)
					}
					inL, outL := lines(cur), lines(out)
					if len(inL) != len(outL) {
						t.Fatalf("step %d %s: %d records in, %d out; stderr:\n%s", step, st, len(inL), len(outL), stderr)
					}
					if a, b := ids(t, cur), ids(t, out); !reflect.DeepEqual(a, b) {
						t.Fatalf("step %d %s: ids %v, want %v", step, st, b, a)
					}
					anyFailed := false
					for i := range inL {
						checkKept(t, st, inL[i], outL[i])
						anyFailed = anyFailed || failed(t, outL[i])
					}
					if want := map[bool]int{false: 0, true: 3}[anyFailed]; code != want {
						t.Errorf("step %d %s: exit %d, want %d (records with errors: %v); stderr:\n%s", step, st, code, want, anyFailed, stderr)
					}
					// Rerun over its own output: nothing changes (qa-judge and qa-predict pass
					// through what they made; qa-score computes the same scores).
					again, _, codeAgain := runStage(t, st, write(t, dir, fmt.Sprintf("out%d.jsonl", step), out))
					if !bytes.Equal(again, out) {
						t.Errorf("step %d %s: a rerun over its own output changed it", step, st)
					}
					if codeAgain != code {
						t.Errorf("step %d %s: rerun exit %d, first %d", step, st, codeAgain, code)
					}
					if t.Failed() {
						t.FailNow()
					}
					cur = out
				}
			})
		}
	}
}

// TestBadLinesAcrossStages mixes bad lines among good records (a byte order mark, CRLF endings, a
// blank line and a last line without its newline among the good ones) and checks that every
// stage names each bad line by file:line (and id, when it has one), writes every good record and
// exits 3; with --strict, that it writes the records before the first bad line and exits 1.
func TestBadLinesAcrossStages(t *testing.T) {
	type bad struct{ line, id string }
	bads := []bad{
		{`{"schema":1,"id":"b1","question":"q","answers":[1]}`, "b1"},
		{`{not json`, ""},
		{`{"schema":1,"question":"q","answers":["a"]}`, ""},
		{`{"schema":1,"id":"b2","question":"q","answers":["a"],"scores":{"f1":null}}`, "b2"},
		{`{"schema":1,"id":"b3","question":"q","answers":["a"],"prediction":{"text":5}}`, "b3"},
		{`{"schema":2,"id":"b4","question":"q","answers":["a"]}`, "b4"},
		{`{"schema":1,"id":"b5","question":"` + strings.Repeat("x", 600) + `","answers":["a"]}`, "b5"}, // named by the id before the cut
		{`{"schema":1,"id":"b6","question":"q","answers":["a",null]}`, "b6"},
	}
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 11))
		var b strings.Builder
		var goodIDs, firstGood []string
		type badAt struct {
			no int
			id string
		}
		var badLines []badAt
		no := 0
		n := 12
		for i := range n {
			no++
			line := genRecord(r, i)
			if len(line) > 500 { // keep good records under --max-line
				line = fmt.Sprintf(`{"schema":1,"id":"r%d\u00e9","question":"Who wrote Hamlet?","answers":["Shakespeare"],"context":[{"text":"Hamlet was written by Shakespeare."}]}`, i)
			}
			if i == 0 {
				line = "\ufeff" + line
			}
			end := "\n"
			if r.IntN(3) == 0 {
				end = "\r\n"
			}
			if i == n-1 {
				end = ""
			}
			b.WriteString(line + end)
			goodIDs = append(goodIDs, fmt.Sprintf("r%d\u00e9", i))
			if len(badLines) == 0 {
				firstGood = append(firstGood, fmt.Sprintf("r%d\u00e9", i))
			}
			if i < n-1 && r.IntN(2) == 0 {
				no++
				bl := bads[r.IntN(len(bads))]
				b.WriteString(bl.line + "\n")
				badLines = append(badLines, badAt{no, bl.id})
			}
			if i < n-1 && r.IntN(5) == 0 {
				no++
				b.WriteString("  \n")
			}
		}
		if len(badLines) == 0 {
			continue
		}
		file := write(t, t.TempDir(), "in.jsonl", []byte(b.String()))
		for _, st := range []string{"predict", "judge", "score"} {
			for _, strict := range []bool{false, true} {
				name := fmt.Sprintf("seed%d/%s/strict=%v", seed, st, strict)
				args := []string{"--max-line", "500"}
				if strict {
					args = append(args, "--strict")
				}
				out, stderr, code := runStage(t, st, file, args...)
				want, wantIDs, reported := 3, goodIDs, badLines
				if strict {
					want, wantIDs, reported = 1, firstGood, badLines[:1]
				}
				if st == "score" && !strict {
					want = 3 // records without predictions score nothing, and bad lines make it 3
				}
				if code != want && !(code == 3 && !strict) {
					t.Errorf("%s: exit %d, want %d; stderr:\n%s", name, code, want, stderr)
				}
				if got := ids(t, out); !reflect.DeepEqual(got, wantIDs) && !(len(got) == 0 && len(wantIDs) == 0) {
					t.Errorf("%s: wrote %v, want %v; stderr:\n%s", name, got, wantIDs, stderr)
				}
				for _, bl := range reported {
					place := fmt.Sprintf("%s:%d", file, bl.no)
					if bl.id != "" {
						place += fmt.Sprintf(" (id %q)", bl.id)
					} else {
						place += ": "
					}
					if !strings.Contains(stderr, place) {
						t.Errorf("%s: stderr does not name %s:\n%s", name, place, stderr)
					}
				}
				if !strict && !strings.Contains(stderr, fmt.Sprintf("%d bad input line", len(badLines))) {
					t.Errorf("%s: stderr does not count %d bad input lines:\n%s", name, len(badLines), stderr)
				}
			}
		}
	}
}
