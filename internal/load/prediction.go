package load

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/pkg/record"
)

// takePrediction returns the prediction of a generic item, made by another tool, whose fields
// take gives: its text from the prediction source, a string or a number (its JSON text), and its
// model, score and supporting facts from their sources, if the item gives them not null (a model
// or score cell left empty is none; see takeScore and takeFacts). An item without the prediction
// source, or with null there, has no prediction (nil), as a record not yet sent to qa-predict,
// and its model, score and facts sources, if any, go to meta with the other fields. A CSV cell is
// text: one left empty is the empty answer "", which declines to answer. nested is false for a
// CSV row.
//
// Note: nothing else is made up for such a prediction: no provider, usage, cost, latency or
// prompt hash, which qapipe could not know; a cost left out is unknown, not free.
func takePrediction(take func(string) (jsonRaw, bool), m Mapping, nested bool) (*record.Prediction, error) {
	pred := &record.Prediction{}
	raw, ok := take("prediction")
	switch {
	case ok:
		text, ok := scalarText(raw)
		if !ok { // a list or an object: which of its parts is the answer cannot be told
			hint := ""
			if obj, _, isObj := members(raw); isObj && obj["text"] != nil {
				hint = fmt.Sprintf(` (an object with "text": give --map prediction=%s.text)`, m.source("prediction"))
			} else if nested && record.Kind(raw) == "a list" {
				hint = fmt.Sprintf(` (a list: give --map prediction=%s[0] for its first item)`, m.source("prediction"))
			}
			return nil, fmt.Errorf("field %q: prediction must be a string or a number%s", m.source("prediction"), hint)
		}
		pred.Text = text
	default:
		// HotpotQA's supporting facts without an answer, which hotpot_evaluate_v1.py scores
		// (its answer counted missing): a prediction without a text, as qa-load --predictions
		// makes of an id its file gives "sp" and no "answer" for.
		raw, ok := take("prediction_supporting_facts")
		if !ok {
			return nil, nil
		}
		fs, err := takeFacts(raw, m.source("prediction_supporting_facts"))
		if err != nil {
			return nil, err
		}
		pred.SupportingFacts = fs
		pred.ClearText()
	}
	if raw, ok := take("prediction_model"); ok {
		if pred.Model, ok = scalarText(raw); !ok {
			return nil, fmt.Errorf("field %q: prediction_model must be a string or a number", m.source("prediction_model"))
		}
	}
	var err error
	if raw, ok := take("prediction_score"); ok {
		if pred.Score, err = takeScore(raw, nested); err != nil {
			return nil, fmt.Errorf("field %q: prediction_score: %v", m.source("prediction_score"), err)
		}
	}
	if raw, ok := take("prediction_supporting_facts"); ok {
		if pred.SupportingFacts, err = takeFacts(raw, m.source("prediction_supporting_facts")); err != nil {
			return nil, err
		}
	}
	return pred, nil
}

// takeScore reads a prediction's positive-class score (qa-score's auc and ranking metrics read
// it): in JSON Lines a number, in a CSV cell a decimal number as a float flag reads one
// (command.ParseDecimal), blanks around it ignored. A cell left empty (or of blanks) is no score
// (nil), as pandas writes a NaN; NaN, an infinity or a number past a float64's range is an error,
// as is anything else.
func takeScore(raw jsonRaw, nested bool) (*float64, error) {
	text := string(trimSpace(raw))
	if !nested {
		var cell string
		jsonUnmarshal(raw, &cell) //nolint:errcheck // a CSV cell is a JSON string
		if text = strings.TrimSpace(cell); text == "" {
			return nil, nil
		}
	} else if record.Kind(raw) != "a number" {
		return nil, fmt.Errorf("want a number, got %s", record.Kind(raw))
	}
	f, err := command.ParseDecimal(text)
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// takeFacts reads a prediction's supporting facts at the source src, a list of [title, sentence
// index] pairs read and checked as qa-score reads them (record.FactsError names the pair at
// fault): HotpotQA's sp_* and joint_* compare them with meta.supporting_facts. A CSV cell has
// been read so already, as JSON (factsCell).
func takeFacts(raw jsonRaw, src string) ([]record.Fact, error) {
	if k := record.Kind(raw); k != "a list" {
		return nil, fmt.Errorf("field %q: prediction_supporting_facts: want a list of [title, sentence index] pairs, got %s", src, k)
	}
	var fs []record.Fact
	if jsonUnmarshal(raw, &fs) != nil {
		return nil, fmt.Errorf("field %q: %v", src, record.FactsError("", raw))
	}
	return fs, nil
}

// factsColumns returns the CSV columns that hold HotpotQA's supporting facts: gold, the column
// supporting_facts (which goes to meta.supporting_facts, as in JSON Lines) unless m gives it to
// another field, and pred, the source of prediction_supporting_facts; "" for none.
func factsColumns(m Mapping) (gold, pred string) {
	if m.takenBy("supporting_facts") == "" {
		gold = "supporting_facts"
	}
	if src := m.source("prediction_supporting_facts"); src != "" {
		pred = column(src)
	}
	return gold, pred
}

// factsCell reads a CSV cell of HotpotQA supporting facts as the JSON list of [title, sentence
// index] pairs it is, or as Python's str() of a list of [title, index] lists or tuples, the text
// pandas' to_csv writes for such a column ([["Arthur's Magazine", 0], ['First for Women', 1]];
// numpy 2's scalars too, [('Title', np.int64(0))], as python.ParseStrIntPairs reads them),
// checked as qa-score checks them (record.FactsError names the pair at fault). A cell left
// empty, or of blanks, is none (nil), as pandas writes a NaN; any other text is an error.
//
// Note: the cell was kept as a string, which qa-score then refused as a bad line (meta) or
// qa-load as a bad item (prediction); facts from a spreadsheet or a DataFrame are lists written
// as text, as answers are (python.ParseStrList).
func factsCell(cell string) (jsonRaw, error) {
	t := strings.TrimSpace(cell)
	if t == "" {
		return nil, nil
	}
	if json.Valid([]byte(t)) {
		if err := factsError(jsonRaw(t)); err != nil {
			return nil, err
		}
		return jsonRaw(t), nil
	}
	pairs, ok := python.ParseStrIntPairs(t)
	if !ok {
		return nil, fmt.Errorf(`want a list of [title, sentence index] pairs, as JSON ([["Title", 0]]) or Python's str() of one ([['Title', 0]]), got %s`, shortText(t))
	}
	fs := make([]record.Fact, len(pairs))
	for i, p := range pairs {
		fs[i] = record.Fact{Title: p.Str, Sentence: p.Int}
	}
	b, err := jsonMarshal(fs)
	return b, err
}

// factsError returns the fault of raw, JSON for a list of supporting facts, when qa-score would
// not read it: its kind, or the pair at fault named by its index ("[0][1]: want an integer, got a
// string"), as record.FactsError, qa-score's own check, finds it; else nil.
func factsError(raw jsonRaw) error {
	if k := record.Kind(raw); k != "a list" {
		if columnarFacts(raw) {
			return fmt.Errorf(`want a list of [title, sentence index] pairs, got an object of two lists, as Hugging Face's hotpot_qa holds them: make pairs of them first (jq -c '.supporting_facts |= ([.title, .sent_id] | transpose)'), or leave the field out`)
		}
		return fmt.Errorf("want a list of [title, sentence index] pairs, got %s", k)
	}
	return record.FactsError("", raw)
}

// columnarFacts reports whether raw is supporting facts as Hugging Face's hotpot_qa dataset
// holds them, {"title": [...], "sent_id": [...]}.
func columnarFacts(raw jsonRaw) bool {
	var c struct {
		Title  *[]json.RawMessage `json:"title"`
		SentID *[]json.RawMessage `json:"sent_id"`
	}
	return record.Kind(raw) == "an object" && jsonUnmarshal(raw, &c) == nil && c.Title != nil && c.SentID != nil
}

// shortText quotes t for an error, cut to its first 40 characters.
func shortText(t string) string {
	if r := []rune(t); len(r) > 40 {
		return strconv.Quote(string(r[:40])) + "..."
	}
	return strconv.Quote(t)
}
