package prompt

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// How get_gpt_answers reads the reply to a batched query, written out step by step:
//
//	answer = reply.replace('\\"', "'").replace('json','').replace('`','').strip().replace("\\'", "")
//	answers = process_ouput(answer.strip())  # raises ValueError on failure: the run stops
//	for k, question:
//	  1. answers[str(k)]: category 5 get_cat_5_answer(it), else str(it) without "(a)" and "(b)", stripped
//	  2. json.loads(answer.strip())[k]: category 5 get_cat_5_answer(it), else it without "(a)" and "(b)", stripped
//	  3. category 5: get_cat_5_answer(answer.strip()); else json.loads(line k of answer.strip()
//	     without "(a)" and "(b)")[0], stored as it is
//
// A step that raises (a missing key, an index out of range, a list where a dict is looked up, a
// value that is not a str where a str method is called) passes to the next. Step 2's fallback of
// upstream, ', '.join of a dict value's values, is never reached: str() of any value succeeds, and
// the lookup that failed before it fails again inside it.

// ErrLoCoMoReply is the error of a batched reply LoCoMo's script cannot read as a whole: its
// process_ouput's json.loads refuses it, and upstream raises ValueError at the first trial.
var ErrLoCoMoReply = errors.New("LoCoMo's script cannot read the batched reply (process_ouput's json.loads raises; upstream stops with ValueError)")

// LoCoMoAnswer is what get_gpt_answers stores for one question of a batched reply: Text, or Err
// where upstream raises (the last reading of a question other than category 5 fails) and so
// stores nothing.
type LoCoMoAnswer struct {
	Text string
	Err  error
}

// LoCoMoBatchAnswers reads reply, the reply to a batched query of asks (LoCoMoBatchQA), as
// get_gpt_answers does, giving one answer per ask; it returns an error wrapping ErrLoCoMoReply,
// and no answers, when the reply cannot be read at all. Strings are Python's (str.strip,
// str.lower, len in characters, str() of any JSON value); a lone surrogate json.loads decodes is
// written as U+FFFD.
func LoCoMoBatchAnswers(reply string, asks []LoCoMoAsk) ([]LoCoMoAnswer, error) {
	answer := strings.ReplaceAll(reply, `\"`, "'")
	answer = strings.ReplaceAll(answer, "json", "")
	answer = strings.ReplaceAll(answer, "`", "")
	answer = strings.ReplaceAll(textnorm.Strip(answer), `\'`, "")
	text := textnorm.Strip(answer)
	answers, err := locomoProcessOutput(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLoCoMoReply, err)
	}
	out := make([]LoCoMoAnswer, len(asks))
	for k, ask := range asks {
		out[k] = locomoAnswerOf(answers, text, k, ask)
	}
	return out, nil
}

// locomoProcessOutput is process_ouput: when the text holds more ' than ", every " is dropped and
// every ' becomes " before json.loads.
func locomoProcessOutput(text string) (python.Value, error) {
	if strings.Count(text, "'") > strings.Count(text, `"`) {
		text = strings.ReplaceAll(strings.ReplaceAll(text, `"`, ""), "'", `"`)
	}
	return python.Loads(text)
}

// locomoAnswerOf is the answer get_gpt_answers stores for question k: see the steps above.
func locomoAnswerOf(answers python.Value, text string, k int, ask LoCoMoAsk) LoCoMoAnswer {
	if v, ok := answers.Get(strconv.Itoa(k)); ok && answers.Kind == python.Dict {
		switch {
		case ask.Options == nil:
			return LoCoMoAnswer{Text: textnorm.Strip(withoutLetters(python.UTF8(v.Str())))}
		case v.Kind == python.Str:
			return LoCoMoAnswer{Text: LoCoMoCat5Answer(python.UTF8(v.S), ask.Options)}
		}
	}
	if v, err := python.Loads(text); err == nil {
		if item, ok := pyItem(v, k); ok && item.Kind == python.Str {
			if ask.Options != nil {
				return LoCoMoAnswer{Text: LoCoMoCat5Answer(item.S, ask.Options)}
			}
			return LoCoMoAnswer{Text: textnorm.Strip(withoutLetters(item.S))}
		}
	}
	if ask.Options != nil {
		return LoCoMoAnswer{Text: LoCoMoCat5Answer(text, ask.Options)}
	}
	return locomoLastReading(text, k)
}

// locomoLastReading is the last step for question k: json.loads of line k (the reply without
// "(a)" and "(b)", split at "\n"), item 0. Where upstream raises, or stores a value that is not
// a str (which its scoring cannot read), the answer is an error.
func locomoLastReading(text string, k int) LoCoMoAnswer {
	fail := func(format string, args ...any) LoCoMoAnswer {
		return LoCoMoAnswer{Err: fmt.Errorf("question %d: not in the reply as LoCoMo's script reads it: its last reading, json.loads(line %d of the reply)[0], %s", k, k+1, fmt.Sprintf(format, args...))}
	}
	lines := strings.Split(withoutLetters(text), "\n")
	if k >= len(lines) { // the lines of the reply as upstream's clean-up leaves it, which the error shows as it came
		return fail("raises IndexError: the reply, cleaned up (json and ` taken out, stripped), has %s", english.Count(len(lines), "line", "lines"))
	}
	v, err := python.Loads(lines[k])
	if err != nil {
		return fail("raises JSONDecodeError: %v", err)
	}
	item, ok := pyItem(v, 0)
	switch {
	case !ok:
		return fail("raises %s", pyItemError(v))
	case item.Kind != python.Str:
		return fail("is the %s %s, which upstream stores as it is, not as text, and its scoring cannot read", item.TypeName(), python.UTF8(item.Repr()))
	}
	return LoCoMoAnswer{Text: item.S}
}

// pyItemError is the exception Python 3 raises for v[0] where pyItem finds no item 0.
func pyItemError(v python.Value) string {
	switch v.Kind {
	case python.Dict:
		return "KeyError: 0 (the line is a JSON object, whose keys are strings)"
	case python.List:
		return "IndexError: list index out of range"
	case python.Str:
		return "IndexError: string index out of range"
	}
	return fmt.Sprintf("TypeError: '%s' object is not subscriptable", v.TypeName())
}

// withoutLetters is s.replace('(a)', ”).replace('(b)', ”).
func withoutLetters(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "(a)", ""), "(b)", "")
}

// pyItem is Python's v[i] for an int i >= 0: a list's item or a str's character (strings are
// made UTF-8 first, see python.UTF8); ok is false where Python raises (out of range, a dict, whose
// keys json.loads makes str, or a value that cannot be indexed).
func pyItem(v python.Value, i int) (python.Value, bool) {
	switch v.Kind {
	case python.List:
		if i < len(v.Items) {
			item := v.Items[i]
			if item.Kind == python.Str {
				item.S = python.UTF8(item.S)
			}
			return item, true
		}
	case python.Str:
		s := python.UTF8(v.S)
		for j, r := range s {
			if i == 0 {
				return python.Value{Kind: python.Str, S: s[j : j+utf8.RuneLen(r)]}, true
			}
			i--
		}
	}
	return python.Value{}, false
}
