// Package format tells the format of a benchmark or records file from its name and first bytes,
// for qa-load, which reads it, and for the other stages, whose message for a file that holds no
// records names the qa-load format that would read it.
package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qapipe/qapipe/pkg/record"
)

// Detect guesses the format of a file from its name and the first bytes of its content (head),
// or returns "" when it cannot tell. A file whose first line is a qapipe record (an object with a
// numeric schema and a string id), or whose second line is when the first is cut, is records,
// whatever its name, and so is a JSON array whose first item opens as a record line does.
// Otherwise content wins over the name, except that a SQuAD-layout file is cmrc2018 when its name
// says cmrc or its text is Chinese (mostlyHan), and that a .csv, .tsv or .tab file is csv: no
// benchmark is a table, and a spreadsheet export named squad_subset.csv, or with JSON cells that
// name a benchmark's keys, would otherwise be read as JSON and fail. When the content says
// nothing, a benchmark's name in the file name decides, then the extension (.jsonl, .ndjson). A
// ".gz" suffix (in any case) is ignored: head is the decompressed text (textfile.NewReader).
//
// A benchmark's file is told by its first object's own members (the first line's, the top-level
// object's or a JSON array's first item), as each rule below names them: a benchmark's key nested
// in another field (a generic row's meta), a key's name as a value, or a later line's key, leaves
// a generic file generic. Only when that object is not whole in head (longer than the MaxHead
// bytes Head reads, or not read as one, or a SQuAD file's object, which Head ends after its first
// article) does the text decide, the keys found anywhere in head (has).
//
// Note: the text decided every rule but HotpotQA's, so a JSON Lines file whose rows held
// {"meta": {"gpt4res": ...}} was read as EvaLearn's results, every row loading (exit 0) as
// evalearn:problem:<id> with no answers and its question moved to meta, and one with a
// question_id and a question_type ("factoid") as LongMemEval's, every item bad.
func Detect(name string, head []byte) string {
	f, _ := DetectWhy(name, head)
	return f
}

// DetectWhy is Detect, and reports whether the format is a benchmark's that the file's name
// picked, its content telling none (a generic locomo_extra.jsonl is locomo): a file whose items
// are then all bad is most likely in another format, for qa-load to say so.
func DetectWhy(name string, head []byte) (found string, byName bool) {
	base := strings.ToLower(filepath.Base(TrimGz(name)))
	has := quotedHas(head)
	switch {
	case Records(head):
		return "records", false
	case slices.Contains([]string{".csv", ".tsv", ".tab"}, Ext(name)):
		return "csv", false
	}
	first := firstMembers(head) // read once, for every rule below
	ms, whole := first.ms, first.whole
	// tell is what the first object's own members say (own), or the text (text) when that object
	// is not whole in head and its whole members do not tell.
	tell := func(own func(map[string]json.RawMessage) bool, text func() bool) bool {
		return own(ms) || !whole && text()
	}
	switch {
	case tell(evaLearnResult, func() bool { return has("gpt4judge") || has("gpt4res") || has("position_in_sequence") }):
		return "evalearn-results", false
	case tell(evaLearnSequence, func() bool { return has("question_ids") }) || strings.HasPrefix(base, "evalearn_"):
		return "evalearn", false
	case hotpotItem(first, has): // official, or the Hugging Face export
		return "hotpotqa", false
	// The test files' items hold no supporting facts: their fields tell them (hotpotTestItem).
	case hotpotTestItem(first):
		return "hotpotqa", false
	case tell(longMemEvalItem, func() bool {
		return has("haystack_sessions") || has("haystack_session_ids") || has("question_id") && has("question_type")
	}):
		return "longmemeval", false
	// A LoCoMo sample lists its questions first: cut, its first lines hold only their keys.
	case tell(locomoSample, func() bool {
		return has("sample_id") && has("conversation") || has("qa") && (has("session_1") || has("evidence") && has("category"))
	}):
		return "locomo", false
	case tell(cmrcTrialArticle, func() bool { return has("context_text") && has("query_id") }): // CMRC 2018's first layout
		return "cmrc2018", false
	case tell(squadLayout, func() bool { return has("paragraphs") && has("qas") }):
		if strings.Contains(base, "cmrc") || mostlyHan(head) {
			return "cmrc2018", false
		}
		return "squad", false
	// A Hugging Face export of SQuAD (or of a dataset in its features: CMRC 2018's), a question
	// an object: its first object's own members tell it, not a nested one's.
	case squadExport(ms):
		if strings.Contains(base, "cmrc") || mostlyHan(head) {
			return "cmrc2018", false
		}
		return "squad", false
	case tell(evaLearnProblem, func() bool { return has("rubric") && has("prompt") && has("canonical_answer") }):
		return "evalearn", false
	}
	for _, f := range []string{"hotpotqa", "locomo", "longmemeval", "cmrc2018", "squad"} {
		if strings.Contains(base, strings.TrimSuffix(f, "qa")) {
			return f, true
		}
	}
	switch filepath.Ext(base) {
	case ".jsonl", ".ndjson":
		return "jsonl", false
	}
	return "", false
}

// quotedHas returns has, which reports whether head holds key in quotes ("key"), as
// bytes.Contains would find it: the textKeys read in one pass over head when first asked.
func quotedHas(head []byte) (has func(key string) bool) {
	var quoted map[string]bool // the textKeys head holds in quotes, read when first asked
	return func(key string) bool {
		if !textKeys[key] {
			return bytes.Contains(head, []byte(`"`+key+`"`))
		}
		if quoted == nil {
			quoted = quotedKeys(head)
		}
		return quoted[key]
	}
}

// textKeys are the keys whose text (in quotes, anywhere in head) Detect's rules look for when the
// first object's own members do not tell its format; textKeyMax is the length of the longest.
var textKeys, textKeyMax = func() (map[string]bool, int) {
	keys, longest := map[string]bool{}, 0
	for _, k := range strings.Fields(`_id canonical_answer category context_text conversation evidence gpt4judge gpt4res
		haystack_session_ids haystack_sessions paragraphs position_in_sequence prompt qa qas query_id question_id
		question_ids question_type rubric sample_id sent_id session_1 supporting_facts`) {
		keys[k], longest = true, max(longest, len(k))
	}
	return keys, longest
}()

// quotedKeys returns the textKeys that head holds in quotes, "key", as bytes.Contains finds
// them, in one pass over head for them all: as a key holds no quote, "key" is the text between
// two quotes in a row.
//
// Note: bytes.Contains for each key read a SQuAD file's cut first article, 16 MiB, a dozen times.
func quotedKeys(head []byte) map[string]bool {
	found := map[string]bool{}
	for q := bytes.IndexByte(head, '"'); q >= 0; {
		n := bytes.IndexByte(head[q+1:], '"')
		if n < 0 {
			break
		}
		if text := head[q+1 : q+1+n]; n <= textKeyMax && textKeys[string(text)] && !found[string(text)] {
			found[string(text)] = true
		}
		q += n + 1
	}
	return found
}

// isRecordLine reports whether head opens with a qapipe record line: a JSON object with a numeric
// "schema" and a string or numeric "id" at its top level, or a line that opens with one and holds
// more text after it (two records joined, no JSON). The first non-blank line decides, unless it
// is not JSON at all and opens with no record: a file cut at its start (by tail -c, split -b, a
// download resumed at the wrong byte) begins with the end of a line, and the next line decides
// then; the Records loader reports the cut line as a bad one. Where such a first line opens with
// a record, a next line that is JSON decides too: the cut may have fallen just before a record
// that a row nests ({"schema":1,"id":"a"}}, "n": 1}), and a file of joined records goes on with
// records. A line that head cuts cannot be decoded (one longer than
// MaxHead, or one that Head ends within, after a SQuAD article or a JSON array's first item); it
// is one when it opens with those two members, as every stage writes them. Detect is not told
// where its head was cut: a line that ends head without its newline is taken as cut when it is
// no JSON and head is HeadSize bytes or more, and read whole otherwise (a line that is JSON is
// whole, as Head gives a first line, up to its object's end; a shorter one that is no JSON is a
// record line cut short where the file ends, no record). A cut line hides the next one: --format
// records reads such a file.
//
// Note: an id that is a number makes a bad record, as every other stage reads it, not a generic
// row: read as one, a record written by another program with "id": 7 would load with its
// prediction, judgments and scores moved into meta, and exit 0. Only one line is looked past:
// a file that is cut has one cut line, and one with more lines that are not JSON at its start is
// no file of records, nor JSON Lines (a JSON document laid out on lines, a table). A first line
// of HeadSize bytes or more, which Head gives whole (without its newline), was taken as cut and
// told by its opening, so that a record another program wrote, its id first, was a generic row
// when it ran past 64 kB, and a record when it did not.
func isRecordLine(head []byte) bool {
	rest := bytes.TrimLeft(head, " \t\r\n")
	for looked := 0; ; looked++ {
		line, after, found := bytes.Cut(rest, []byte("\n"))
		record, isJSON := recordLine(line)
		if !isJSON && joinedRecord(line) {
			if looked == 0 && found { // or a row's nested record, the file cut at its start before it
				next, _, _ := bytes.Cut(bytes.TrimLeft(after, " \t\r\n"), []byte("\n"))
				if record, isJSON := recordLine(next); isJSON {
					return record
				}
			}
			return true
		}
		if !found && !isJSON && len(head) >= HeadSize { // cut by the end of head
			return recordStart.Match(line)
		}
		if isJSON || !found || looked == 1 {
			return record
		}
		rest = bytes.TrimLeft(after, " \t\r\n")
	}
}

// joinedRecord reports whether line, no JSON, opens with a record line's object whole and holds
// more after it: two records joined, as cat joins a file whose last line has no line end to the
// next file's first. It is a record line, bad: the Records loader names what follows the record.
// So is a first line of a file cut at its start just before a record that a row nests
// ({"schema":1,"id":"a"}}, "n": 1}): isRecordLine lets a next line that is JSON tell that.
func joinedRecord(line []byte) bool {
	t := bytes.TrimLeft(line, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	end := valueEnd(t)
	if end <= 0 {
		return false
	}
	record, _ := recordLine(t[:end])
	return record
}

// Records reports whether head, the bytes of a file that Head reads (or HeadOf), opens a file of
// qapipe records as Detect tells one: record lines, or a JSON array of records.
func Records(head []byte) bool { return isRecordLine(head) || isRecordArray(head) }

// isRecordArray reports whether head opens a JSON array whose first item opens as a qapipe
// record line does (recordStart): a list of records saved as one JSON document, which qa-load's
// records format reads an item at a time.
func isRecordArray(head []byte) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("["))
	return ok && recordStart.Match(bytes.TrimLeft(rest, " \t\r\n"))
}

// recordLine reports whether line, whole, is a qapipe record line (see isRecordLine), and whether
// it is JSON at all. A line whose quotes and brackets do not close at its end is no JSON, told
// without decoding it (a first line of megabytes that head cuts); json.Unmarshal tells the others,
// its syntax error where it is no JSON.
func recordLine(line []byte) (record, isJSON bool) {
	t := bytes.Trim(line, " \t\r\n")
	if len(t) > 0 && (t[0] == '{' || t[0] == '[' || t[0] == '"') && valueEnd(t) != len(t) {
		return false, false
	}
	var probe struct {
		Schema *float64        `json:"schema"`
		ID     json.RawMessage `json:"id"`
	}
	switch err := json.Unmarshal(line, &probe); {
	case errors.As(err, new(*json.SyntaxError)):
		return false, false
	case err != nil || probe.Schema == nil || len(probe.ID) == 0:
		return false, true
	}
	return probe.ID[0] == '"' || probe.ID[0] == '-' || '0' <= probe.ID[0] && probe.ID[0] <= '9', true
}

// HeadSize is the size of the buffer that a file's head is first read into (Head grows it, up to
// MaxHead, to hold the first object whole), and the length from which a head whose last line,
// without its newline, is no JSON is taken as cut within that line (isRecordLine).
const HeadSize = 1 << 16

// recordStart matches the start of a record line as qapipe's writer (and json.dumps of one)
// lays it out.
var recordStart = regexp.MustCompile(`^\{\s*"schema"\s*:\s*-?[0-9][0-9.eE+-]*\s*,\s*"id"\s*:\s*["0-9-]`)

// mostlyHan reports whether the text of the SQuAD-layout JSON head (the strings under title,
// context, question and text; a cut at the end is ignored) holds at least as many Chinese
// characters as ASCII letters: Chinese text, not English text that names a Chinese place or
// person.
//
// It reads head's tokens as a json.Decoder's Token would, up to the first that it would not give
// (jsonTokens), but decodes no string but the keys and the text it counts.
//
// Note: a json.Decoder's tokens took 175 ms, and 2 million allocations, of a SQuAD file's first
// article of 14 MB.
func mostlyHan(head []byte) bool {
	var han, latin int
	var objects []bool        // for each open object or array: whether it is an object
	key, text := false, false // a key comes next; the last key was one of text
	toks := jsonTokens{text: head}
	for {
		kind, raw := toks.next()
		if kind == tokenNone {
			break
		}
		switch kind {
		case '{', '[':
			objects = append(objects, kind == '{')
			key = kind == '{'
			continue
		case '}', ']':
			objects = objects[:len(objects)-1]
		case '"':
			if key {
				key, text = false, textKey(raw)
				continue
			}
			if !text {
				break
			}
			h, l := stringScripts(raw)
			han, latin = han+h, latin+l
		}
		// A value ended: in an object, a key comes next.
		key = len(objects) > 0 && objects[len(objects)-1]
	}
	return han > 0 && han >= latin
}

// textKey reports whether raw, a valid JSON string with its quotes, is the key of a text that
// mostlyHan counts: title, context, question or text.
func textKey(raw []byte) bool {
	key := raw[1 : len(raw)-1]
	if bytes.IndexByte(key, '\\') >= 0 {
		key = []byte(unquote(raw))
	}
	switch string(key) {
	case "title", "context", "question", "text":
		return true
	}
	return false
}

// MostlyHan reports whether texts hold at least as many Chinese characters as ASCII letters, as
// a SQuAD-layout file's text is told Chinese (mostlyHan): a question of CMRC 2018, not one of
// SQuAD that names a Chinese place.
func MostlyHan(texts ...string) bool {
	var han, latin int
	for _, t := range texts {
		h, l := scripts(t)
		han, latin = han+h, latin+l
	}
	return han > 0 && han >= latin
}

// scripts counts the Chinese characters and the ASCII letters of s.
func scripts(s string) (han, latin int) {
	for _, r := range s {
		h, l := script(r)
		han, latin = han+h, latin+l
	}
	return han, latin
}

// script reports whether r is a Chinese character (han 1) or an ASCII letter (latin 1).
func script(r rune) (han, latin int) {
	switch {
	case r < utf8.RuneSelf && ('a' <= r|0x20 && r|0x20 <= 'z'):
		return 0, 1
	case r >= 0x2E80 && unicode.Is(unicode.Han, r):
		return 1, 0
	}
	return 0, 0
}

// SQuADExport reports whether head opens a Hugging Face export of SQuAD's questions
// (Dataset.to_json, a question a line; a JSON array of them with lines=False): its first object
// (the first line's, or the array's first item) has a question, a context and answers that are
// an object of the lists "text" and "answer_start", {"text": [...], "answer_start": [...]}, as
// the squad and squad_v2 datasets (and others in their features, CMRC 2018's, XQuAD's) hold
// them. Members nested deeper (an lm-evaluation-harness log's "doc") do not count, and an
// object cut by the end of head counts by the members it holds whole.
func SQuADExport(head []byte) bool { return squadExport(firstMembers(head).ms) }

// squadExport reports whether ms, a first object's members, are those of a question of a Hugging
// Face export of SQuAD (SQuADExport).
func squadExport(ms map[string]json.RawMessage) bool {
	if ms["question"] == nil || ms["context"] == nil {
		return false
	}
	answers := members(ms["answers"])
	return answers != nil && isList(answers["text"]) && isList(answers["answer_start"])
}

// evaLearnResult reports whether ms, a first object's members, are those of an object of
// EvaLearn's results (evaluate.py's output): a problem with the model's reply (gpt4res), the
// judge's text (gpt4judge) or its place in a sequence (position_in_sequence).
func evaLearnResult(ms map[string]json.RawMessage) bool {
	return ms["gpt4judge"] != nil || ms["gpt4res"] != nil || ms["position_in_sequence"] != nil
}

// evaLearnSequence reports whether ms are the members of a sequence of EvaLearn_Sequence.json:
// its question_ids.
func evaLearnSequence(ms map[string]json.RawMessage) bool { return ms["question_ids"] != nil }

// evaLearnProblem reports whether ms are the members of a problem of EvaLearn_Problem.json: a
// prompt, a rubric and a canonical_answer.
func evaLearnProblem(ms map[string]json.RawMessage) bool {
	return ms["rubric"] != nil && ms["prompt"] != nil && ms["canonical_answer"] != nil
}

// longMemEvalItem reports whether ms are the members of a LongMemEval entry: its haystack
// (haystack_sessions or haystack_session_ids), or, without one, a question_id and a
// question_type that is one of LongMemEval's six or comes with the question_date every entry
// has. A generic row's question_id and question_type ("factoid") are not.
func longMemEvalItem(ms map[string]json.RawMessage) bool {
	if ms["haystack_sessions"] != nil || ms["haystack_session_ids"] != nil {
		return true
	}
	if ms["question_id"] == nil || ms["question_type"] == nil {
		return false
	}
	var typ string
	return ms["question_date"] != nil ||
		json.Unmarshal(ms["question_type"], &typ) == nil && slices.Contains(record.LongMemEvalTypes, typ)
}

// locomoSample reports whether ms are the members of a LoCoMo sample: a conversation with a
// sample_id or a qa list, or a qa list of questions with evidence and a category (as the output
// of LoCoMo's evaluate_qa.py, a sample_id and its qa, holds them).
func locomoSample(ms map[string]json.RawMessage) bool {
	if ms["conversation"] != nil && (ms["sample_id"] != nil || isList(ms["qa"])) {
		return true
	}
	return anyItem(ms["qa"], func(q map[string]json.RawMessage) bool { return q["evidence"] != nil && q["category"] != nil })
}

// cmrcTrialArticle reports whether ms are the members of an article of CMRC 2018's first layout
// (its trial file): a context_text and qas of questions with a query_id.
func cmrcTrialArticle(ms map[string]json.RawMessage) bool {
	return ms["context_text"] != nil && anyItem(ms["qas"], func(q map[string]json.RawMessage) bool { return q["query_id"] != nil })
}

// squadLayout reports whether ms are the members of a file of SQuAD's layout, {"data":
// [articles]}, an article of whose data list has paragraphs of which one has qas, or of such an
// article (a JSON array of them, the data list alone).
func squadLayout(ms map[string]json.RawMessage) bool {
	article := func(art map[string]json.RawMessage) bool {
		return anyItem(art["paragraphs"], func(p map[string]json.RawMessage) bool { return p["qas"] != nil })
	}
	return anyItem(ms["data"], article) || article(ms)
}

// anyItem reports whether raw, a member's value (valid JSON, as firstMembers gives it), is a JSON
// list one of whose items is an object whose members are as ok says.
func anyItem(raw json.RawMessage, ok func(map[string]json.RawMessage) bool) bool {
	if !isList(raw) {
		return false
	}
	for item := range items(raw) {
		if isObject(item) && ok(members(item)) {
			return true
		}
	}
	return false
}

// hotpotItem reports whether head opens HotpotQA items with their supporting facts: its first
// object (the first line's, or a JSON array's first item) has supporting_facts and a string "_id"
// (the official files'), or a string "id" and supporting_facts as the Hugging Face export writes
// them, {"title": [...], "sent_id": [...]}, its members in any order. Members nested deeper, an
// "_id" that is no string (a MongoDB export's {"$oid": ...}), and the text "_id" or "sent_id" in a
// value do not count: a generic file with a supporting_facts column is no HotpotQA file for them.
// Only when the first object is not whole in head (cut by its end, or not read as one), and its
// whole members do not tell, does the text decide, as has finds "supporting_facts" with "_id" or
// "sent_id" in it.
func hotpotItem(first firstObject, has func(key string) bool) bool {
	ms := first.ms
	if facts := ms["supporting_facts"]; facts != nil {
		if isString(ms["_id"]) {
			return true
		}
		if hf := members(facts); isString(ms["id"]) && isList(hf["title"]) && isList(hf["sent_id"]) {
			return true
		}
	}
	return !first.whole && has("supporting_facts") && (has("_id") || has("sent_id"))
}

// hotpotTestItem reports whether head opens HotpotQA items as its test files hold them, with no
// supporting facts, answer, type or level: its first object (the first line's, or a JSON array's
// first item) has a string "_id", a string "question" and a "context" that is a list whose first
// item is a [title, [sentence, ...]] pair, as JSON Lines or a JSON array (the official test
// file's), whatever the file's name. A context cut by the end of head counts by its opening, a
// title and the opening of its sentence list. Members nested deeper (an evaluation log's "doc"),
// an "_id" that is no string (a MongoDB export's {"$oid": ...}), and a context of texts,
// passages or [title, text] pairs (a generic file's) do not count.
func hotpotTestItem(first firstObject) bool {
	ms := first.ms
	if !isString(ms["_id"]) || !isString(ms["question"]) {
		return false
	}
	if cut, rest := first.cut(); cut == "context" {
		return hotpotContextStart.Match(rest)
	}
	var pairs []json.RawMessage
	if json.Unmarshal(ms["context"], &pairs) != nil || len(pairs) == 0 {
		return false
	}
	var pair []json.RawMessage
	var sentences []string
	return json.Unmarshal(pairs[0], &pair) == nil && len(pair) == 2 && isString(pair[0]) &&
		isList(pair[1]) && json.Unmarshal(pair[1], &sentences) == nil
}

// hotpotContextStart matches the opening of a HotpotQA context cut short, after its key: a list
// whose first item is a pair of a title and a list.
var hotpotContextStart = regexp.MustCompile(`^\s*:\s*\[\s*\[\s*"(?:[^"\\]|\\.)*"\s*,\s*\[`)

// isString reports whether raw, a member's value (nil if there is none), is a JSON string.
func isString(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '"'
}

// isObject reports whether raw, a member's value (nil if there is none), is a JSON object.
func isObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// isList reports whether raw, a member's value (nil if there is none), is a JSON list.
func isList(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '['
}

// FirstMembers returns the members of the first JSON object that head opens, as the top-level
// value or as the first item of a top-level array, by key, each value whole (a key given twice
// gives its last); a value cut by the end of head, and what follows it, is left out. The values
// are head's bytes, not copies.
func FirstMembers(head []byte) map[string]json.RawMessage { return firstMembers(head).ms }

// Ext is the extension of the file name, in lower case, without its ".gz" suffix: ".tsv" for
// dev.TSV.gz and DEV.TSV.GZ.
func Ext(name string) string {
	return strings.ToLower(filepath.Ext(TrimGz(name)))
}

// TrimGz returns name without its ".gz" suffix, in any case, as an output named so is written
// gzip-compressed (command.GzipNamed): DEV.CSV.GZ is DEV.CSV.
//
// Note: only ".gz" was trimmed, so DEV.CSV.GZ, whose DEV.CSV loads as csv, had no format its
// name gave, and a row of it without an id got "DEV.CSV.GZ:2".
func TrimGz(name string) string {
	if n := len(name) - len(".gz"); n >= 0 && strings.EqualFold(name[n:], ".gz") {
		return name[:n]
	}
	return name
}

// MaxHead is the most of a file's text detection reads to find the end of its first object (or
// line): a first object longer than it is told by the text of its first MaxHead bytes.
const MaxHead = 16 << 20
