package format

// The parts of the detection of the format as they were before Detect decoded a head once: the
// reference that TestDetectSame, FuzzDetectSame and the tests of the one-pass decoding compare
// the new functions with. Detect's switch of rules is in detect.go alone.

import (
	"bytes"
	"encoding/json"
	"io"
)

// refMostlyHan is mostlyHan as it was: a json.Decoder's tokens.
func refMostlyHan(head []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(head))
	var han, latin int
	var objects []bool // for each open object or array: whether it is an object
	key, last := false, ""
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				objects = append(objects, t == '{')
				key = t == '{'
				continue
			default:
				objects = objects[:len(objects)-1]
			}
		case string:
			if key {
				key, last = false, t
				continue
			}
			if last != "title" && last != "context" && last != "question" && last != "text" {
				break
			}
			h, l := scripts(t)
			han, latin = han+h, latin+l
		}
		// A value ended: in an object, a key comes next.
		key = len(objects) > 0 && objects[len(objects)-1]
	}
	return han > 0 && han >= latin
}

// refSQuADExport is SQuADExport as it was.
func refSQuADExport(head []byte) bool {
	ms, _, _, _ := refFirstMembers(head)
	if ms["question"] == nil || ms["context"] == nil {
		return false
	}
	var answers map[string]json.RawMessage
	if json.Unmarshal(ms["answers"], &answers) != nil || answers == nil {
		return false
	}
	return isList(answers["text"]) && isList(answers["answer_start"])
}

// refLocomoSample is locomoSample as it was.
func refLocomoSample(ms map[string]json.RawMessage) bool {
	if ms["conversation"] != nil && (ms["sample_id"] != nil || isList(ms["qa"])) {
		return true
	}
	return refAnyItem(ms["qa"], func(q map[string]json.RawMessage) bool { return q["evidence"] != nil && q["category"] != nil })
}

// cmrcTrialArticle reports whether ms are the members of an article of CMRC 2018's first layout
// (its trial file): a context_text and qas of questions with a query_id.
// refCmrcTrialArticle is cmrcTrialArticle as it was.
func refCmrcTrialArticle(ms map[string]json.RawMessage) bool {
	return ms["context_text"] != nil && refAnyItem(ms["qas"], func(q map[string]json.RawMessage) bool { return q["query_id"] != nil })
}

// squadLayout reports whether ms are the members of a file of SQuAD's layout, {"data":
// [articles]}, an article of whose data list has paragraphs of which one has qas, or of such an
// article (a JSON array of them, the data list alone).
// refSquadLayout is squadLayout as it was.
func refSquadLayout(ms map[string]json.RawMessage) bool {
	article := func(art map[string]json.RawMessage) bool {
		return refAnyItem(art["paragraphs"], func(p map[string]json.RawMessage) bool { return p["qas"] != nil })
	}
	return refAnyItem(ms["data"], article) || article(ms)
}

// anyItem reports whether raw is a JSON list one of whose items is an object whose members are
// as ok says.
// refAnyItem is anyItem as it was, which unmarshalled raw and its items.
func refAnyItem(raw json.RawMessage, ok func(map[string]json.RawMessage) bool) bool {
	var items []json.RawMessage
	if !isList(raw) || json.Unmarshal(raw, &items) != nil {
		return false
	}
	for _, item := range items {
		var ms map[string]json.RawMessage
		if isObject(item) && json.Unmarshal(item, &ms) == nil && ok(ms) {
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

// refHotpotItem is hotpotItem as it was, which decoded head again.
func refHotpotItem(head []byte, has func(key string) bool) bool {
	ms, _, _, whole := refFirstMembers(head)
	if facts := ms["supporting_facts"]; facts != nil {
		if isString(ms["_id"]) {
			return true
		}
		var hf map[string]json.RawMessage
		if isString(ms["id"]) && json.Unmarshal(facts, &hf) == nil && isList(hf["title"]) && isList(hf["sent_id"]) {
			return true
		}
	}
	return !whole && has("supporting_facts") && (has("_id") || has("sent_id"))
}

// hotpotTestItem reports whether head opens HotpotQA items as its test files hold them, with no
// supporting facts, answer, type or level: its first object (the first line's, or a JSON array's
// first item) has a string "_id", a string "question" and a "context" that is a list whose first
// item is a [title, [sentence, ...]] pair, as JSON Lines or a JSON array (the official test
// file's), whatever the file's name. A context cut by the end of head counts by its opening, a
// title and the opening of its sentence list. Members nested deeper (an evaluation log's "doc"),
// an "_id" that is no string (a MongoDB export's {"$oid": ...}), and a context of texts,
// passages or [title, text] pairs (a generic file's) do not count.
// refHotpotTestItem is hotpotTestItem as it was, which decoded head again.
func refHotpotTestItem(head []byte) bool {
	ms, cut, rest, _ := refFirstMembers(head)
	if !isString(ms["_id"]) || !isString(ms["question"]) {
		return false
	}
	if cut == "context" {
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

// refFirstMembers is firstMembers as it was: a json.Decoder over head, each value copied.
func refFirstMembers(head []byte) (ms map[string]json.RawMessage, cut string, rest []byte, whole bool) {
	ms = map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(head))
	tok, err := dec.Token()
	if err == nil && tok == json.Delim('[') {
		tok, err = dec.Token()
	}
	if err != nil || tok != json.Delim('{') {
		return ms, "", nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return ms, "", nil, false
		}
		at := dec.InputOffset()
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			if err == io.ErrUnexpectedEOF {
				return ms, key, head[at:], false
			}
			return ms, "", nil, false
		}
		ms[key] = value
	}
	tok, err = dec.Token()
	return ms, "", nil, err == nil && tok == json.Delim('}')
}

// refRecordLine is recordLine as it was, which checked the line with json.Valid before it
// unmarshalled it.
func refRecordLine(line []byte) (record, isJSON bool) {
	if !json.Valid(line) {
		return false, false
	}
	var probe struct {
		Schema *float64        `json:"schema"`
		ID     json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &probe) != nil || probe.Schema == nil || len(probe.ID) == 0 {
		return false, true
	}
	return probe.ID[0] == '"' || probe.ID[0] == '-' || '0' <= probe.ID[0] && probe.ID[0] <= '9', true
}
