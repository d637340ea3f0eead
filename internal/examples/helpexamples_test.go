package examples

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"

	"github.com/qapipe/qapipe/internal/clitest"
)

// helpHeading opens the examples of a command's --help; they run to the next blank line.
var helpHeading = regexp.MustCompile(`^\s+Examples?:$`)

// helpExamples returns the example lines of the --help of the command args names.
func helpExamples(t *testing.T, bin string, args ...string) []string {
	t.Helper()
	var lines []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(helpText(t, bin, args...)))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case helpHeading.MatchString(line):
			in = true
		case in && strings.TrimSpace(line) == "":
			in = false
		case in:
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	return lines
}

// helpRuns says how TestHelpExamples runs each example line of the commands' --help, in a folder
// holding the files they name: "" runs the line as it is; another script runs in its place, the
// line as it is with its judge calls sent to the loopback judge of $JUDGE_URL (judgeScript), or
// its server the loopback one of $TEI_URL. A line not in the table fails the test, so that a new
// example is run too.
var helpRuns = map[string]string{
	"qa-judge --mode rules preds.jsonl > judged.jsonl":                                             "",
	"qa-judge --dry-run --model gpt-4o-mini preds.jsonl | sed -n 1p   # the first request, unsent": "",
	"qa-judge --provider openai --model gpt-4o-2024-08-06 --cache judge.sqlite preds.jsonl > judged.jsonl": judgeScript(
		"qa-judge --provider openai --model gpt-4o-2024-08-06 --cache judge.sqlite preds.jsonl > judged.jsonl"),
	"qa-judge --model gpt-4o-mini --concurrency 16 --rpm 500 --tpm 200000 --prices prices.yaml preds.jsonl > judged.jsonl": judgeScript(
		"qa-judge --model gpt-4o-mini --concurrency 16 --rpm 500 --tpm 200000 --prices prices.yaml preds.jsonl > judged.jsonl"),
	"qa-judge --name mini --model gpt-4o-mini preds.jsonl | qa-judge --name rules --mode rules | qa-judge agree": judgeScript(
		"qa-judge --name mini --model gpt-4o-mini preds.jsonl | qa-judge --name rules --mode rules | qa-judge agree"),

	"qa-load hotpot_dev_distractor_v1.json > records.jsonl":                             "",
	"qa-load --types temporal,multi_hop --limit 50 locomo10.json > locomo.jsonl":        "",
	"qa-load EvaLearn_Problem.json EvaLearn_Sequence.json > sequences.jsonl":            "",
	"qa-load --map question=q,answers=gold,id=qid,type=category qa.csv > records.jsonl": "",
	"qa-load --shard 1/4 --summary hotpot_dev_distractor_v1.json > part1.jsonl":         "",
	"qa-load --format records --sample 10 --seed 7 preds.jsonl > sample.jsonl":          "",

	"qa-load --map answers=gold,prediction=model_answer preds.csv | qa-score --summary - --format table": "",
	"qa-load --predictions predictions.json dev-v2.0.json | qa-score --summary - --format table":         "",
	"qa-load --locomo-model gpt-4-turbo locomo10_qa.json | qa-score --summary - --format table":          "",
	"qa-load --predictions hyp.jsonl.eval-results-gpt-4o longmemeval_s.json | qa-score --summary -":      "",

	"qa-predict --provider extractive records.jsonl > preds.jsonl   # offline: a span of each record's context":          "",
	"qa-predict --dry-run --provider openai --model gpt-4o-mini records.jsonl | sed -n 1p   # the first request, unsent": "",
	"qa-predict --provider openai --model gpt-4o-mini --cache run.sqlite --max-cost 5 records.jsonl > preds.jsonl": "" +
		"qa-predict --dry-run --provider openai --model gpt-4o-mini --cache run.sqlite --max-cost 5 records.jsonl > preds.jsonl",
	"qa-predict --provider openai --model gpt-4o-mini --cache run.sqlite --retry-errors preds.jsonl > retried.jsonl": "" +
		"qa-predict --dry-run --provider openai --model gpt-4o-mini --cache run.sqlite --retry-errors preds.jsonl > retried.jsonl",
	"qa-predict --provider openai --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B --concurrency 16 records.jsonl > preds.jsonl": "" +
		"qa-predict --dry-run --provider openai --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B --concurrency 16 records.jsonl > preds.jsonl",
	"qa-load EvaLearn_Problem.json EvaLearn_Sequence.json | qa-predict --provider openai --model gpt-4o-mini --judge-model gpt-4o > solved.jsonl": "" +
		"qa-load EvaLearn_Problem.json EvaLearn_Sequence.json | qa-predict --dry-run --provider openai --model gpt-4o-mini --judge-model gpt-4o > solved.jsonl",

	"qa-score preds.jsonl > scored.jsonl":                                                                 "",
	"qa-score --metrics f1,rougeL --summary - --format table preds.jsonl":                                 "",
	"qa-score --summary summary.json --mismatches low.jsonl preds.jsonl > scored.jsonl":                   "",
	"qa-score --metrics classification,auc --label-map yes=1,no=0 --summary - --format table preds.jsonl": "",
	"qa-score --metrics sbert,bertscore_f1 --embed-provider tei --embed-model bge --embed-base-url http://127.0.0.1:8080 preds.jsonl": "" +
		`qa-score --metrics sbert,bertscore_f1 --embed-provider tei --embed-model bge --embed-base-url "$TEI_URL" preds.jsonl`,

	"qa-load --format evalearn-results results.json | qa-learncurve --problems 7 --warmup 3 --plot curve.png": "",
	"qa-learncurve --output report.json --plot - --plot-format svg judged.jsonl > curve.svg":                  "",
}

// judgeScript is line run as it is, the judge model it names called through the loopback judge
// of $JUDGE_URL (judgeServer) with a made-up key, so that every record it judges is judged.
func judgeScript(line string) string {
	return "export OPENAI_API_KEY=loopback-key QA_JUDGE_BASE_URL=\"$JUDGE_URL/v1\"\n" + line
}

// helpOutputs holds, for some example lines, text their output must hold: that agree compared
// every record, both judges having judged it (with set -o pipefail, exit 0 alone says that no
// judgment failed, not that any record was compared).
var helpOutputs = map[string][]string{
	"qa-judge --name mini --model gpt-4o-mini preds.jsonl | qa-judge --name rules --mode rules | qa-judge agree": {
		"judges: mini, rules (Cohen's kappa", "records: 20 compared, 0 left out", "\ndisagreements: "},
}

// helpCommands are the commands whose --help the tests read: every command, and qa-judge agree.
var helpCommands = [][]string{{"qa-load"}, {"qa-predict"}, {"qa-judge"}, {"qa-judge", "agree"}, {"qa-score"}, {"qa-learncurve"}}

// helpText returns the --help of the command args names (a command, then a subcommand), of the
// commands built in bin.
func helpText(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(bin, args[0]), append(args[1:], "--help")...).Output()
	if err != nil {
		t.Fatalf("%s --help: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// TestHelpExamples runs every example of the commands' --help as helpRuns says, each in a folder
// of its own with the files they read: the benchmarks' files under their upstream names
// (hotpot_dev_distractor_v1.json, a JSON array of the HotpotQA sample; locomo10.json, the LoCoMo
// sample; locomo10_qa.json, LoCoMo's evaluate_qa.py output for it; EvaLearn_Problem.json and EvaLearn_Sequence.json) and a generic qa.csv, preds.csv (a
// model's answers to questions, made by another tool), dev-v2.0.json and predictions.json (the
// SQuAD v2.0 sample and answers to it in SQuAD's official layout), longmemeval_s.json and
// hyp.jsonl.eval-results-gpt-4o (the LongMemEval sample and evaluate_qa.py's results on it),
// records.jsonl (HotpotQA records),
// preds.jsonl (LoCoMo records predicted by the extractive baseline), prices.yaml, results.json
// (EvaLearn's results, as its evaluate.py writes them: a JSON array) and judged.jsonl (those
// results as records). Each must exit 0, one that calls the loopback judge must have called it,
// and stdout must hold what helpOutputs gives.
func TestHelpExamples(t *testing.T) {
	bin := commands(t)
	fixtures := helpFixtures(t, bin)
	tei := teiServer(t)
	judgeURL, judgeCalls := judgeServer(t)
	seen := map[string]bool{}
	for _, args := range helpCommands {
		for _, line := range helpExamples(t, bin, args...) {
			seen[line] = true
			script, ok := helpRuns[line]
			if !ok {
				t.Errorf("%s --help: example %q is not in helpRuns: say how it runs offline", strings.Join(args, " "), line)
				continue
			}
			if script == "" {
				script = line
			}
			t.Run(line, func(t *testing.T) {
				dir := t.TempDir()
				for name, b := range fixtures {
					if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				before := judgeCalls()
				stdout, stderr, err := bash(t, dir, bin, "set -euo pipefail\nTEI_URL="+shellQuote(tei)+"\nJUDGE_URL="+shellQuote(judgeURL)+"\n"+script)
				if err != nil {
					t.Fatalf("%s: %v\nstdout:\n%.500s\nstderr:\n%s", script, err, stdout, stderr)
				}
				if strings.Contains(script, "$JUDGE_URL") && judgeCalls() == before {
					t.Errorf("%s: no call reached the loopback judge\nstderr:\n%s", script, stderr)
				}
				for _, want := range helpOutputs[line] {
					if !strings.Contains(stdout, want) {
						t.Errorf("%s: stdout has no %q:\n%s", script, want, stdout)
					}
				}
			})
		}
	}
	for line := range helpRuns {
		if !seen[line] {
			t.Errorf("helpRuns holds %q, which no --help shows", line)
		}
	}
}

// helpFixtures makes the files the --help examples read.
func helpFixtures(t *testing.T, bin string) map[string][]byte {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	td := filepath.Join(abs, "testdata")
	run := func(script string) []byte {
		stdout, stderr, err := bash(t, abs, bin, "set -euo pipefail\n"+script)
		if err != nil {
			t.Fatalf("%s: %v\nstderr:\n%s", script, err, stderr)
		}
		return []byte(stdout)
	}
	results, err := os.ReadFile(filepath.Join(td, "evalearn-results", "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	for _, line := range strings.Split(strings.TrimSpace(string(results)), "\n") {
		items = append(items, json.RawMessage(line))
	}
	array, err := json.MarshalIndent(items, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) []byte {
		b, err := os.ReadFile(filepath.Join(td, path))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var hotpot []json.RawMessage
	for _, line := range strings.Split(strings.TrimSpace(string(read("hotpotqa/hotpotqa_sample50.jsonl"))), "\n") {
		hotpot = append(hotpot, json.RawMessage(line))
	}
	hotpotArray, err := json.Marshal(hotpot)
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"hotpot_dev_distractor_v1.json": hotpotArray,
		"locomo10.json":                 read("locomo/locomo_conv26.json"),
		// the output file of LoCoMo's evaluate_qa.py, its run model-a named as the example names it
		"locomo10_qa.json":              bytes.ReplaceAll(read("locomo/locomo_conv26_qa.json"), []byte(`"model-a_`), []byte(`"gpt-4-turbo_`)),
		"EvaLearn_Problem.json":         read("evalearn/EvaLearn_Problem.json"),
		"EvaLearn_Sequence.json":        read("evalearn/EvaLearn_Sequence.json"),
		"qa.csv":                        read("generic/qa.csv"),
		"preds.csv":                     read("generic/answers.csv"),
		"dev-v2.0.json":                 read("squad/squad_v20_synthetic.json"),
		"predictions.json":              read("squad/squad_v20_synthetic_predictions.json"),
		"longmemeval_s.json":            read("longmemeval/longmemeval_synthetic.json"),
		"hyp.jsonl.eval-results-gpt-4o": read("longmemeval/longmemeval_synthetic.hyp.jsonl.eval-results-gpt-4o"),
		"records.jsonl":                 run("qa-load --limit 20 testdata/hotpotqa/hotpotqa_sample50.jsonl"),
		"preds.jsonl":                   run("qa-load --limit 20 --context text testdata/locomo/locomo_conv26.json | qa-predict --provider extractive"),
		"prices.yaml":                   []byte("gpt-4o-mini: {input: 0.15, output: 0.60}\n"),
		"results.json":                  array,
		"judged.jsonl":                  run("qa-load --format evalearn-results testdata/evalearn-results/results.jsonl"),
	}
}

// teiServer is a loopback text-embeddings-inference server: /embed gives each text a vector, and
// /tokenize and /embed_all each whitespace-separated word, between [CLS] and [SEP], a vector of
// its own, all drawn from the SHA-256 of the word, so that equal words get equal vectors.
func teiServer(t *testing.T) string {
	t.Helper()
	vec := func(word string) []float32 {
		h := sha256.Sum256([]byte(word))
		v := make([]float32, 8)
		for i := range v {
			v[i] = float32(h[i]%7) + 1
		}
		return v
	}
	words := func(text string) []string {
		return append(append([]string{"[CLS]"}, strings.Fields(text)...), "[SEP]")
	}
	type token struct {
		ID      int    `json:"id"`
		Text    string `json:"text"`
		Special bool   `json:"special"`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Inputs []string `json:"inputs"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		var reply []any
		for _, text := range req.Inputs {
			switch r.URL.Path {
			case "/embed":
				reply = append(reply, vec(text))
			case "/embed_all":
				var vs [][]float32
				for _, w := range words(text) {
					vs = append(vs, vec(w))
				}
				reply = append(reply, vs)
			case "/tokenize":
				var ts []token
				for i, w := range words(text) {
					ts = append(ts, token{ID: i + 1, Text: w, Special: strings.HasPrefix(w, "[")})
				}
				reply = append(reply, ts)
			default:
				http.NotFound(w, r)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(reply) //nolint:errcheck // the client sees a cut reply
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// judgeServer is a loopback judge speaking OpenAI's chat completions, and the count of the
// requests it has answered. It grades as MAGMA's judge is asked to, with a JSON object: score 1
// when the generated answer shares a word with the gold answer (in any case), else 0, so that
// the judgments of a run over preds.jsonl differ from record to record.
func judgeServer(t *testing.T) (string, func() int64) {
	t.Helper()
	var calls atomic.Int64
	line := func(prompt, label string) []string {
		_, rest, _ := strings.Cut(prompt, "\n"+label+": ")
		text, _, _ := strings.Cut(rest, "\n")
		return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := clitest.ReadChat(w, r)
		if !ok {
			return
		}
		calls.Add(1)
		prompt := req.Prompt
		generated := line(prompt, "Generated answer")
		reply := `{"score": 0.0, "reasoning": "no word of the gold answer"}`
		if slices.ContainsFunc(line(prompt, "Gold answer"), func(w string) bool { return slices.Contains(generated, w) }) {
			reply = `{"score": 1.0, "reasoning": "a word of the gold answer"}`
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{ //nolint:errcheck // the client sees a cut reply
			"id": "loopback", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": reply}}},
			"usage": map[string]any{"prompt_tokens": 300, "completion_tokens": 12, "total_tokens": 312},
		})
	}))
	t.Cleanup(srv.Close)
	return srv.URL, calls.Load
}

// TestREADMEEmbedding runs the README's example with a local text-embeddings-inference server
// against the loopback one, on preds.jsonl as helpFixtures makes it: the flags must reach the
// server and the summary must hold both embedding metrics.
func TestREADMEEmbedding(t *testing.T) {
	const marker, url = "# with a local text-embeddings-inference server\n", "http://127.0.0.1:8080"
	bin := commands(t)
	blocks, lines := shellBlocks(t, filepath.Join(root, "README.md"))
	k := slices.IndexFunc(blocks, func(b string) bool { return strings.HasPrefix(b, marker) })
	if k < 0 {
		t.Fatalf("README.md has no block starting %q", marker)
	}
	if !strings.Contains(blocks[k], url) {
		t.Fatalf("README.md:%d: the block names no server at %s", lines[k], url)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "preds.jsonl"), helpFixtures(t, bin)["preds.jsonl"], 0o644); err != nil {
		t.Fatal(err)
	}
	script := strings.ReplaceAll(blocks[k], url, teiServer(t))
	stdout, stderr, err := bash(t, dir, bin, "set -euo pipefail\n"+script)
	if err != nil {
		t.Fatalf("README.md:%d: %v\nstderr:\n%s", lines[k], err, stderr)
	}
	for _, m := range []string{`"sbert"`, `"bertscore_f1"`} {
		if !strings.Contains(stdout, m) {
			t.Errorf("README.md:%d: the summary has no %s:\n%.500s", lines[k], m, stdout)
		}
	}
}
