package prompt

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qapipe/qapipe/internal/bpe"
)

// LoCoMo's evaluate_qa.py takes a --model name and, in task_eval/gpt_utils.py, asks the model that
// name stands for in its own way: get_input_context fills the conversation up to MAX_LENGTH[name]
// cl100k_base tokens (tiktoken.encoding_for_model gives cl100k_base for every name of the
// table), and run_chatgpt sends the query as a system message to gpt-3.5-turbo for the gpt-3.5
// names ('chatgpt'), as a user message to the model named for the gpt-4 ones.

// Note: the repository's older `code` branch (task_eval/evaluate_gpts.py) walks the sessions the
// other way, newest first, so that its text reads oldest first and its cut keeps the newest
// sessions; it writes captions as "[shares …]" and reads turns' compressed_text or clean_text,
// which the released data does not have. qapipe follows the
// released gpt_utils.py @ 3eb6f2c, whose prompts and context it reproduces for every model.

// locomoMaxLength is gpt_utils.py's MAX_LENGTH. gpt-4-32k's 320000 (not 32000) is upstream's.
var locomoMaxLength = map[string]int{
	"gpt-4-turbo":       128000,
	"gpt-4":             4096,
	"gpt-3.5-turbo-16k": 16000,
	"gpt-3.5-turbo-12k": 12000,
	"gpt-3.5-turbo-8k":  8000,
	"gpt-3.5-turbo-4k":  4000,
	"gpt-3.5-turbo":     4096,
	"gpt-4-32k":         320000,
}

// locomoPerQABudget is gpt_utils.py's PER_QA_TOKEN_BUDGET: tokens kept for each answer of a batch,
// evaluate_qa.py's --batch-size of them (its default 1 asks one question per call).
const locomoPerQABudget = 50

// LoCoMoBatchMaxTokens is the max_tokens of LoCoMo's batched call for its --batch-size n (n > 1):
// PER_QA_TOKEN_BUDGET for each question the batch may hold, however many it asks.
func LoCoMoBatchMaxTokens(n int) int { return n * locomoPerQABudget }

// locomoChatGPT is the model run_chatgpt calls for every gpt-3.5 name (its model='chatgpt').
const locomoChatGPT = "gpt-3.5-turbo"

// LoCoMoVariant is how LoCoMo asks the model one of evaluate_qa.py's --model names stands for.
type LoCoMoVariant struct {
	Name      string // the --model name: gpt-4-turbo, gpt-3.5-turbo-16k, …
	MaxLength int    // MAX_LENGTH[Name]: the query's budget in cl100k_base tokens
	Role      string // the query's message role: "system" for the gpt-3.5 names, else "user"
	Model     string // the model run_chatgpt calls: gpt-3.5-turbo for the gpt-3.5 names, else Name
}

// LoCoMoVariantNamed returns the variant of name, one of MAX_LENGTH's keys; ok is false for any
// other name (evaluate_qa.py stops on those with a KeyError).
func LoCoMoVariantNamed(name string) (v LoCoMoVariant, ok bool) {
	n, ok := locomoMaxLength[name]
	if !ok {
		return LoCoMoVariant{}, false
	}
	v = LoCoMoVariant{Name: name, MaxLength: n, Role: "user", Model: name}
	if strings.Contains(name, "gpt-3.5") { // run_chatgpt(model='chatgpt' if 'gpt-3.5' in args.model …)
		v.Role, v.Model = "system", locomoChatGPT
	}
	return v, true
}

// LoCoMoVariantNames returns the names LoCoMoVariantNamed knows, sorted.
func LoCoMoVariantNames() []string {
	names := make([]string, 0, len(locomoMaxLength))
	for n := range locomoMaxLength {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// locomoBudget is what get_input_context leaves the conversation of a query: MAX_LENGTH less
// PER_QA_TOKEN_BUDGET for each of the batchSize questions a batch may hold (evaluate_qa.py's
// --batch-size, not the number asked), less the tokens of the conversation start and, counted
// apart, of the questions as QA_PROMPT_BATCH words them ("0: " and each question text), which
// upstream counts even for a batch of one, though the query it then sends uses QA_PROMPT.
func locomoBudget(maxLength, batchSize int, convStart string, questions []string) (int, error) {
	prompt := locomoBatchPrompt(questions)
	fixed := 0
	for _, s := range []string{prompt, convStart} {
		n, err := cl100kTokens(s)
		if err != nil {
			return 0, err
		}
		fixed += n
	}
	return maxLength - locomoPerQABudget*batchSize - fixed, nil
}

// cl100kTokens counts s as tiktoken's encode does: a text that holds a special token is refused.
func cl100kTokens(s string) (int, error) {
	if sp := bpe.Cl100k.Special(s); sp != "" {
		return 0, fmt.Errorf("the text holds %s, which tiktoken refuses to encode (LoCoMo's script stops there)", sp)
	}
	return bpe.Cl100k.Count(s), nil
}

// LoCoMoContextWithin renders get_input_context's conversation over sessions given oldest first,
// cut to budget cl100k_base tokens, and reports whether it was cut. Sessions are taken oldest
// first and each one's turns newest first, each placed before what is kept; a turn is kept while
// the tokens of its session header and itself, counted alone, and those of the conversation kept
// so far (with its "\n\n" per session begun) are fewer than budget. At the first turn that does
// not fit the cut stops: that session keeps its newer turns and its header, the newer sessions
// are left out. The text is LoCoMoContext's when nothing is cut.
//
// A text that holds a special token such as "<|endoftext|>" is an error when it comes to be
// counted, as tiktoken refuses it there.
func LoCoMoContextWithin(sessions []LoCoMoSession, budget int) (string, bool, error) {
	var conv locomoConv
	for _, s := range sessions {
		header := locomoHeader(s)
		conv.tail++ // query_conv += "\n\n"
		for i := len(s.Turns) - 1; i >= 0; i-- {
			turn := locomoTurn(s.Turns[i])
			n, err := cl100kTokens(header + turn)
			if err != nil {
				return "", false, err
			}
			kept, err := conv.tokens()
			if err != nil {
				return "", false, err
			}
			if n+kept >= budget {
				conv.prepend(header)
				return conv.String(), true, nil
			}
			conv.prepend(turn)
		}
		conv.prepend(header)
	}
	return conv.String(), false, nil
}

// locomoConv is get_input_context's query_conv as it grows: parts (turns and headers) placed
// before it, "\n\n" added after it once per session. Its cl100k_base count is kept as it grows,
// not taken again from the whole text at every turn: a text that ends in a newline followed by
// one that starts with no whitespace has the tokens of the two counted apart, as no pre-token of
// cl100k_base holds a newline and a non-space after it. Every part ends in a newline; when one
// starts with whitespace (a speaker named " Ann"), the whole text is counted instead.
type locomoConv struct {
	parts   []string // last part first: parts[0] ends the text, before the tail
	tail    int      // the "\n\n" added after the parts
	head    int      // the tokens of parts[1:], the text before parts[0]
	whole   bool     // a part starts with whitespace: count the whole text
	special string   // a special token a part holds: counting the text is refused
}

func (c *locomoConv) prepend(p string) {
	if r, _ := utf8.DecodeRuneInString(p); p == "" || unicode.IsSpace(r) || !strings.HasSuffix(p, "\n") {
		c.whole = true
	}
	if c.special == "" {
		c.special = bpe.Cl100k.Special(p)
	}
	if len(c.parts) > 0 {
		c.head += bpe.Cl100k.Count(p)
	}
	c.parts = append(c.parts, p)
}

// tokens is the count of the text as tiktoken's encode gives it, or its refusal.
func (c *locomoConv) tokens() (int, error) {
	if c.special != "" {
		return cl100kTokens(c.special)
	}
	tail := strings.Repeat("\n\n", c.tail)
	switch {
	case c.whole:
		return bpe.Cl100k.Count(c.String()), nil
	case len(c.parts) == 0:
		return bpe.Cl100k.Count(tail), nil
	}
	return c.head + bpe.Cl100k.Count(c.parts[0]+tail), nil
}

// String is the text: the parts, then the tail.
func (c *locomoConv) String() string {
	var b strings.Builder
	for i := len(c.parts) - 1; i >= 0; i-- {
		b.WriteString(c.parts[i])
	}
	b.WriteString(strings.Repeat("\n\n", c.tail))
	return b.String()
}
