package predict

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/internal/textfile"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// genericPrompt is the prompt for records of no known dataset: the passages (title, date and text),
// then the question. It is a text/template over the record, like --template files.
const genericPrompt = `Answer the question using the context. Reply with the answer only, as short as possible.
{{with .Context}}
Context:
{{passages .}}
{{end}}
Question: {{.Question}}
Answer:`

var templateFuncs = template.FuncMap{
	"join":     strings.Join,
	"passages": passages,
}

// passages renders passages one after the other, each as "Title (date):" then its text.
func passages(ps []record.Passage) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString("\n\n")
		}
		head := p.Title
		if p.Date != "" {
			head = strings.TrimSpace(head + " (" + p.Date + ")")
		}
		if head != "" {
			b.WriteString(head + ":\n")
		}
		if p.Text != "" || p.Sentences == nil {
			b.WriteString(p.Text)
		} else {
			b.WriteString(strings.Join(p.Sentences, ""))
		}
	}
	return b.String()
}

// prompter renders the user prompt of a record.
type prompter struct {
	custom  *template.Template // --template, nil for the built-in choice
	generic *template.Template
	seed    int64

	// LongMemEval's reader: the history options (format, sessions, turns, the token budget),
	// the reading method, and a warning printed at the first LongMemEval record when the budget
	// cannot be kept.
	history     prompt.HistoryOptions
	con         bool // the step-by-step reading prompt
	notes       bool // con-separate: notes on each session first (notes.go)
	historyWarn string
	stderr      io.Writer
	warnOnce    sync.Once
	cut         atomic.Int64 // histories cut to the budget

	// LoCoMo: the model setting of its script that records are asked as (nil: the conversation
	// whole, as a user message), a note printed at the first LoCoMo record, and the contexts cut.
	locomo     *prompt.LoCoMoVariant
	locomoNote string
	locomoOnce sync.Once
	locomoCut  atomic.Int64
	// conversations keeps the conversations read last: a conversation's questions come one
	// after another, each carrying it whole.
	conversations prompt.LoCoMoConversations

	// textOnce gives, at the first LoCoMo or LongMemEval record whose conversation is rebuilt
	// from its passages' text, the warning that its prompt is not the benchmark's own.
	textOnce sync.Once

	// unsent: the prompts are rendered only for prompt_sha256, by the extractive baseline, which
	// sends none and takes no --template: nothing is said of what they lack, nor of a template.
	unsent bool
}

func newPrompter(file string, seed int64) (*prompter, error) {
	p := &prompter{seed: seed, generic: template.Must(template.New("generic").Funcs(templateFuncs).Parse(genericPrompt)),
		history: prompt.HistoryOptions{Format: "json"}, stderr: io.Discard}
	if file == "" {
		return p, nil
	}
	b, err := textfile.ReadFile(file)
	if err != nil {
		return nil, err
	}
	t, err := template.New(file).Funcs(templateFuncs).Option("missingkey=error").Parse(string(b))
	if err != nil {
		return nil, err
	}
	// A field a record does not have ({{.question}} for {{.Question}}) fails every record alike:
	// found by a trial run now, it is one usage error rather than an error on each record.
	trial := &record.Record{ID: "id", Question: "q", Answers: []string{"a"}, Context: []record.Passage{{Title: "t", Text: "x"}}}
	if err := t.Execute(io.Discard, trial); err != nil && strings.Contains(err.Error(), "can't evaluate field") {
		return nil, fmt.Errorf("%w (a record's fields: .ID .Question .Answers .Context .Meta .Type …)", err)
	}
	p.custom = t
	return p, nil
}

// blankQuestion returns the error of rec when its question is empty or only blanks (as qa-load's
// emptyQuestion finds them) and the prompt is one of the built-in ones, all of which ask it: a
// model would be asked nothing, and paid for it. A record of the records format is not checked
// at load, so qa-predict is where it is found. A --template prompt need not hold the question,
// which the error says but for the extractive baseline, which takes none (and finds nothing to
// look for in the context).
func (p *prompter) blankQuestion(rec *record.Record) error {
	switch {
	case p.custom != nil || textnorm.Strip(rec.Question) != "":
		return nil
	case p.unsent:
		return errNothingToAsk
	}
	return fmt.Errorf("%w (a --template prompt need not hold the question)", errNothingToAsk)
}

// errNothingToAsk is the error of a record whose question is empty or only blanks.
var errNothingToAsk = errors.New("the question is empty or only blanks: there is nothing to ask")

// render returns the prompt for rec and, for LoCoMo category 5, the two options in order.
func (p *prompter) render(rec *record.Record) (string, []string, error) {
	if p.custom != nil {
		text, _, err := execute(p.custom, newTemplateRecord(rec))
		if err == nil && textnorm.Strip(text) == "" {
			// {{if .Type}}…{{end}} over a record without one: a model would be asked nothing,
			// and paid for it.
			err = errors.New("the --template prompt is empty or only blanks for this record: there is nothing to ask")
		}
		return text, nil, err
	}
	switch strings.ToLower(rec.Dataset) {
	case "hotpotqa":
		return prompt.HotpotQA(rec), nil, nil
	case "locomo":
		if p.locomoNote != "" {
			p.locomoOnce.Do(func() { fmt.Fprintln(p.stderr, p.locomoNote) })
		}
		p.textNotice(rec)
		first := p.abstainFirst(rec.ID)
		maxLength := 0
		if p.locomo != nil {
			maxLength = p.locomo.MaxLength
		}
		s, cut, err := p.conversations.QA(rec, first, maxLength)
		if err != nil {
			return "", nil, err
		}
		if cut {
			p.locomoCut.Add(1)
		}
		ask, _ := prompt.LoCoMoAskOf(rec, first) // LoCoMoQA has read it
		return s, ask.Options, nil
	case "longmemeval":
		p.readerNotice()
		p.textNotice(rec)
		s, cut, err := prompt.LongMemEvalPrompt(rec, p.history, p.con)
		if cut {
			p.cut.Add(1)
		}
		return s, nil, err
	}
	return execute(p.generic, rec)
}

// reportCut says on w how many LongMemEval histories, and the conversations of how many LoCoMo
// questions, were cut to their token budgets, if any.
func (p *prompter) reportCut(w io.Writer) {
	if n := p.cut.Load(); n > 0 {
		fmt.Fprintf(w, "qa-predict: %s cut to %s first %s\n", english.Count(int(n), "LongMemEval history", "LongMemEval histories"),
			english.Form(int(n), "its", "their"), english.Count(p.history.MaxTokens, "o200k_base token", "o200k_base tokens"))
	}
	if n := p.locomoCut.Load(); n > 0 {
		fmt.Fprintf(w, "qa-predict: LoCoMo: the conversation cut to fit %s's %d cl100k_base tokens (the oldest sessions kept) in %s (a batch of questions is one)\n",
			p.locomo.Name, p.locomo.MaxLength, english.Count(int(n), "request", "requests"))
	}
}

// locomoRole is the role of a LoCoMo query's message: the variant's, else user.
func (p *prompter) locomoRole() string {
	if p.locomo != nil {
		return p.locomo.Role
	}
	return "user"
}

// readerNotice prints the reader's budget warning, if any, at the first LongMemEval record.
func (p *prompter) readerNotice() {
	if p.historyWarn != "" {
		p.warnOnce.Do(func() { fmt.Fprintln(p.stderr, p.historyWarn) })
	}
}

// textNotice warns, once a run, when rec's conversation is rebuilt from its passages' text
// (prompt.RebuiltFromText): qa-load --context text keeps no raw turns, and the prompt then lacks
// what only they hold. A prompt not sent (the extractive baseline's, which reads the passages'
// text whether or not they hold their turns) lacks nothing that matters: no warning.
func (p *prompter) textNotice(rec *record.Record) {
	if p.unsent || !prompt.RebuiltFromText(rec) {
		return
	}
	p.textOnce.Do(func() {
		fmt.Fprintln(p.stderr, "qa-predict: warning: a LoCoMo or LongMemEval record carries no raw turns (qa-load --context text): its conversation is rebuilt from the passages' \"speaker: text\" lines, without LoCoMo's image captions (\"and shared ...\") or LongMemEval's has_answer marks, so its prompt is not the benchmark's own; qa-load --context full keeps the turns")
	})
}

func execute(t *template.Template, data any) (string, []string, error) {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", nil, err
	}
	return b.String(), nil, nil
}

// templateRecord is what a --template file is executed over: the record, with its meta values
// and unknown top-level fields decoded from their JSON. Kept as json.RawMessage, which is a byte
// slice, {{.Meta.level}} printed "[34 101 97 115 121 34]" in place of easy.
//
// Note: a value decodes as text/template reads Go values: a string as its text, a number as a
// json.Number (0.10 written 0.10, as meta keeps it), an object as a jsonObject and an array as a
// jsonArray, which a template can index and range over and which print as compact JSON, not as
// Go's map[a:1], and null as a jsonNull, which prints null where a nil printed "<no value>" and
// is false to if and with, as a nil is.
type templateRecord struct {
	*record.Record
	Meta  map[string]any
	Extra map[string]any
}

// newTemplateRecord returns rec as a --template sees it.
func newTemplateRecord(rec *record.Record) *templateRecord {
	return &templateRecord{Record: rec, Meta: decodeRaw(rec.Meta), Extra: decodeRaw(rec.Extra)}
}

// decodeRaw decodes each of m's JSON values; nil for a nil map, so that a template's
// {{with .Meta}} reads a record without one as before.
func decodeRaw(m map[string]json.RawMessage) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, raw := range m {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			out[k] = string(raw) // a record's values are JSON; its text should one not be
			continue
		}
		out[k] = templateValue(v)
	}
	return out
}

// templateValue gives the objects and arrays of the decoded JSON value v their printing types.
func templateValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = templateValue(e)
		}
		return jsonObject(v)
	case []any:
		for i, e := range v {
			v[i] = templateValue(e)
		}
		return jsonArray(v)
	case nil:
		return jsonNull(nil)
	}
	return v
}

// jsonObject is a JSON object in a --template's data; it prints as compact JSON.
type jsonObject map[string]any

// jsonArray is a JSON array in a --template's data; it prints as compact JSON.
type jsonArray []any

// jsonNull is a JSON null in a --template's data: an empty map, false to if and with, that
// prints as null.
type jsonNull map[string]any

func (o jsonObject) String() string { return compactJSON(map[string]any(o)) }
func (jsonNull) String() string     { return "null" }
func (a jsonArray) String() string  { return compactJSON([]any(a)) }

// compactJSON encodes v without HTML escaping or a trailing newline (object keys sorted).
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v) // decoded JSON always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// abstainFirst draws LoCoMo's random.random() < 0.5 from the seed and the record id, so the option
// order is reproducible and independent of record order.
func (p *prompter) abstainFirst(id string) bool {
	h := sha256.New()
	binary.Write(h, binary.BigEndian, p.seed)
	h.Write([]byte(id))
	return h.Sum(nil)[0]&1 == 0
}

// promptSHA256 is the hex SHA-256 of the compact JSON array of messages sent
// ([{"role":…,"content":…}], no HTML escaping, no trailing newline).
func promptSHA256(msgs []model.Message) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msgs); err != nil {
		panic(fmt.Sprintf("marshal messages: %v", err)) // plain strings always marshal
	}
	h := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return hex.EncodeToString(h[:])
}
