package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Facts about a record that several stages read the same way. Each is read here once, so that a
// prompt, a judge and a score never disagree on what kind of question a record is, and a fact
// that is present but unreadable is an error wherever it is read, never taken as absent.

// InDataset reports whether r belongs to the named dataset. Names compare without regard to case
// ("LoCoMo" is locomo), so every stage picks a benchmark's prompt, judge and scores alike.
func (r *Record) InDataset(name string) bool { return strings.EqualFold(r.Dataset, name) }

// IsChinese reports whether r's language is Chinese, in any case and with white space around it
// ignored (" zh", a CSV cell written after ", ", would score Chinese text by English rules without
// a word, and slip past qa-load's warning of Chinese text with no lang): lang zh, or its three-letter
// codes (zho, chi), or a Chinese language of ISO 639-3 (cmn Mandarin, yue Cantonese, wuu, nan,
// hak, gan, hsn, lzh Literary Chinese, …), alone or tagged (zh-CN, zh-Hans, zh_TW, cmn-Hans).
// Chinese text is scored and judged by CMRC 2018's rules (its characters as tokens, its
// punctuation), which other languages' normalisation gets wrong.
//
// Min Nan's code, nan, counts only tagged (nan-Hant, nan_TW): alone it is more likely a missing
// value written as text (Python's str(float("nan"))) than a language.
func (r *Record) IsChinese() bool {
	l := strings.ToLower(strings.TrimSpace(r.Lang))
	if l == "nan" {
		return false
	}
	if i := strings.IndexAny(l, "-_"); i >= 0 {
		l = l[:i]
	}
	return chineseLangs[l]
}

// chineseLangs are the language codes IsChinese takes: ISO 639-1 zh, ISO 639-2 zho and chi, and
// the ISO 639-3 languages of the zh macrolanguage, with Literary Chinese.
var chineseLangs = map[string]bool{"zh": true, "zho": true, "chi": true,
	"cdo": true, "cjy": true, "cmn": true, "cnp": true, "cpx": true, "csp": true, "czh": true, "czo": true,
	"gan": true, "hak": true, "hsn": true, "lzh": true, "mnp": true, "nan": true, "wuu": true, "yue": true}

// LongMemEvalTypes are LongMemEval's six question types, as its data writes them, in the order
// of its print_qa_metrics.py. Its judge has a prompt for these alone (evaluate_qa.py raises on
// another), and its task-averaged accuracy is the mean of their six accuracies.
var LongMemEvalTypes = []string{"single-session-user", "single-session-preference", "single-session-assistant",
	"multi-session", "temporal-reasoning", "knowledge-update"}

// locomoTypes are the record types of LoCoMo's question categories. The numbering is LoCoMo's
// own and not in name order: 4 is single-hop.
var locomoTypes = [...]string{1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial"}

// LoCoMoType returns the record type of LoCoMo category n (1 multi_hop, 2 temporal, 3 open_domain,
// 4 single_hop, 5 adversarial), or "" when n is no category.
func LoCoMoType(n int) string {
	if n < 1 || n >= len(locomoTypes) {
		return ""
	}
	return locomoTypes[n]
}

// LoCoMoCategory returns r's LoCoMo category number (1–5): meta.category when it is present and
// not null (ParseLoCoMoCategory), else the category r.Type names. ok is false when neither gives a
// category. err is set when meta.category is present and not null but holds no category; n and
// ok are then zero.
func (r *Record) LoCoMoCategory() (n int, ok bool, err error) {
	if raw, present := r.Meta["category"]; present && !isNull(raw) {
		n, err := ParseLoCoMoCategory(raw)
		if err != nil {
			return 0, false, fmt.Errorf("meta.category: %w", err)
		}
		return n, true, nil
	}
	for n := range locomoTypes {
		if n > 0 && locomoTypes[n] == r.Type {
			return n, true, nil
		}
	}
	return 0, false, nil
}

// ParseLoCoMoCategory reads a LoCoMo category, 1 to 5, from JSON: a number (5 or 5.0) or a string
// holding one ("5").
func ParseLoCoMoCategory(raw json.RawMessage) (int, error) {
	var v any
	n := 0
	if unmarshal(raw, &v) == nil {
		switch v := v.(type) {
		case float64:
			if v >= 1 && v <= 5 && v == math.Trunc(v) {
				n = int(v)
			}
		case string:
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if LoCoMoType(n) == "" {
		return 0, fmt.Errorf("want a LoCoMo category, 1 to 5, got %s", excerpt(raw))
	}
	return n, nil
}

// Abstention reports whether r's question is one whose right answer is to decline: its id holds
// "_abs" after its last ":" (LongMemEval's rule: evaluate_qa.py and print_qa_metrics.py test the
// question id so, which follows "longmemeval:" in the record's id) or meta.abstention is true. err
// is set when meta.abstention is present and not null but is no boolean.
//
// Note: the whole id was tested, so that every row of a generic file whose name holds "_abs"
// (paper_abstracts.csv, semeval14_absa.jsonl), whose default id is FILE:LINE, was a question to
// decline, and the rules judge scored each right answer 0.
func (r *Record) Abstention() (bool, error) {
	var abs bool
	if raw, present := r.Meta["abstention"]; present && !isNull(raw) {
		if err := unmarshal(raw, &abs); err != nil {
			return false, fmt.Errorf("meta.abstention: want true or false, got %s", excerpt(raw))
		}
	}
	question := r.ID[strings.LastIndexByte(r.ID, ':')+1:]
	return abs || strings.Contains(question, "_abs"), nil
}

// excerpt returns raw, or its first 40 bytes and "…" when it is longer.
func excerpt(raw []byte) string {
	if raw = bytes.TrimSpace(raw); len(raw) <= 40 {
		return string(raw)
	}
	return strings.ToValidUTF8(string(raw[:40]), "") + "…"
}

// isNull reports whether raw is the JSON literal null.
func isNull(raw []byte) bool { return string(bytes.TrimSpace(raw)) == "null" }
