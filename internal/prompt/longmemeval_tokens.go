package prompt

import (
	"errors"
	"strings"

	"github.com/qapipe/qapipe/internal/bpe"
)

// LongMemEval's reader (src/generation/run_generation.py) cuts the chat history to a token budget
// before filling the prompt: model2maxlength[model] − gen_length − 1000 tokens, counted with
// tiktoken's o200k_base for GPT models ('gpt-4' or 'gpt-3.5' in the lowered name; the table has
// no gpt-3.5 model) and with the model's Hugging Face tokenizer otherwise. Only the first tokens
// are kept: the oldest sessions.

// longMemEvalMaxLength is run_generation.py's model2maxlength. It counts the GPT models' tokens
// with o200k_base and the others' with their Hugging Face tokenizers.
var longMemEvalMaxLength = map[string]int{
	"gpt-4o":                                 128000,
	"gpt-4o-2024-08-06":                      128000,
	"gpt-4o-mini-2024-07-18":                 128000,
	"meta-llama/Meta-Llama-3.1-8B-Instruct":  128000,
	"meta-llama/Meta-Llama-3.1-70B-Instruct": 128000,
	"microsoft/Phi-3-medium-128k-instruct":   120000,
	"microsoft/Phi-3.5-mini-instruct":        120000,
	"microsoft/phi-4":                        16000,
	"mistral-7b-instruct-v0.2":               32000,
	"mistral-7b-instruct-v0.3":               32000,
	"In2Training/FILM-7B":                    32000,
}

// longMemEvalReaderAliases is run_generation.sh's model_zoo: the names its command line takes and
// the models they stand for.
var longMemEvalReaderAliases = map[string]string{
	"gpt-4o":                     "gpt-4o-2024-08-06",
	"gpt-4o-mini":                "gpt-4o-mini-2024-07-18",
	"llama-3-8b-instruct":        "meta-llama/Meta-Llama-3-8B-Instruct",
	"llama-3-70b-instruct":       "meta-llama/Meta-Llama-3-70B-Instruct",
	"llama-3.1-8b-instruct":      "meta-llama/Meta-Llama-3.1-8B-Instruct",
	"llama-3.1-70b-instruct":     "meta-llama/Meta-Llama-3.1-70B-Instruct",
	"mistral-7b-instruct-v0.2":   "mistralai/Mistral-7B-Instruct-v0.2",
	"mistral-7b-instruct-v0.3":   "mistralai/Mistral-7B-Instruct-v0.3",
	"film-7b":                    "In2Training/FILM-7B",
	"phi-3-medium-128k-instruct": "microsoft/Phi-3-medium-128k-instruct",
	"phi-3.5-mini-instruct":      "microsoft/Phi-3.5-mini-instruct",
	"phi-4":                      "microsoft/phi-4",
}

// LongMemEvalGenLength is run_generation.py's max_tokens when --gen_length is not given, for
// either reading. The script reads `500 if not args.cot else 800`, meaning 500 for the direct
// prompt, but args.cot is the string "true" or "false", never false as a condition: it sends 800
// either way (and budgets the history as 128,000 − 800 − 1,000 tokens), and so does qapipe.
const LongMemEvalGenLength = 800

// LongMemEvalHistoryLimit returns the history budget run_generation.py gives model when it
// generates up to genLength tokens, and how it counts them: isO200k is true for the GPT models
// (o200k_base, which TruncateHistory reproduces) and false for the open models, counted with
// their Hugging Face tokenizers. A name of run_generation.sh's model_zoo (gpt-4o-mini, say)
// counts as the model it stands for. known is false for a model outside its table (the script
// stops on those).
func LongMemEvalHistoryLimit(model string, genLength int) (limit int, isO200k, known bool) {
	n, known := longMemEvalMaxLength[model]
	if m, ok := longMemEvalReaderAliases[model]; ok && !known {
		model = m
		n, known = longMemEvalMaxLength[model]
	}
	if !known {
		return 0, false, false
	}
	// Upstream tests for 'gpt-4' or 'gpt-3.5' in the lowered name, but only after
	// model2maxlength[model_name], which holds no gpt-3.5 model, so the second test is never
	// true there (TestLongMemEvalHistoryLimitTable checks every name with both).
	return n - genLength - 1000, strings.Contains(strings.ToLower(model), "gpt-4"), true
}

const (
	endOfText   = "<|endoftext|>"   // allowed by run_generation.py: one token
	endOfPrompt = "<|endofprompt|>" // o200k_base's other special token: tiktoken refuses it
)

// TruncateHistory keeps the first limit o200k_base tokens of history, as run_generation.py does
// with tiktoken: encode with "<|endoftext|>" allowed as the special token, keep tokens[:limit],
// decode with errors="replace" (a character cut in two becomes U+FFFD). It returns the history
// and whether it was cut. A history holding "<|endofprompt|>" is an error: tiktoken refuses to
// encode it, and run_generation.py stops there.
//
// The count goes a piece at a time and stops once the budget is spent. Pieces are cut before
// every "#" that follows a newline, as every session header does: no o200k_base pre-token spans
// such a point (a newline only joins whitespace, "#" is no whitespace), so the pieces' tokens
// are the whole text's tokens.
func TruncateHistory(history string, limit int) (string, bool, error) {
	if strings.Contains(history, endOfPrompt) {
		return "", false, errors.New("the history holds " + endOfPrompt + ", which tiktoken refuses to encode")
	}
	if len(history) <= limit {
		return history, false, nil // a token is at least a byte
	}
	used := 0 // tokens before history[start:]
	for start := 0; start < len(history); {
		end := nextPiece(history, start)
		if strings.HasPrefix(history[start:], endOfText) {
			end = start + len(endOfText)
			if used == limit {
				return history[:start], true, nil
			}
			used++
			start = end
			continue
		}
		piece := history[start:end]
		if n := bpe.O200k.Count(piece); used+n <= limit {
			used += n
			start = end
			continue
		}
		cut := start
		if keep := limit - used; keep > 0 {
			cut += bpe.O200k.Ends(nil, piece)[keep-1]
		}
		// Only the end of a prefix of valid UTF-8 can be invalid: one maximal subpart, which
		// Python's errors="replace" turns into one U+FFFD, as ToValidUTF8 does.
		return strings.ToValidUTF8(history[:cut], "\uFFFD"), true, nil
	}
	return history, false, nil
}

// nextPiece returns where the piece of history that starts at start ends: before the next "#"
// that follows a newline, or before the next "<|endoftext|>".
func nextPiece(history string, start int) int {
	end := len(history)
	if i := strings.Index(history[start+1:], "\n#"); i >= 0 {
		end = start + 1 + i + 1
	}
	if i := strings.Index(history[start+1:end], endOfText); i >= 0 {
		end = start + 1 + i
	}
	return end
}
