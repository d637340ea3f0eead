package predict

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/gemini"
	"github.com/qapipe/qapipe/internal/model"
)

// --top-p and --top-k: sampling parameters sent as given, or not at all; and --num-ctx, Ollama's
// context window.

// configureSampling reads --top-p (0 to 1) and --top-k (0 up), each 0 for none sent, so that the
// provider applies its own (googleai langchaingo's), and a request without them keys the cache
// as before they were flags. One set that the provider's call cannot carry (model.Request's
// SentTopP and SentTopK) is a usage error that says why, not a value silently never sent; the
// extractive baseline ignores both, as it does --temperature. Every prediction's model call
// carries them, EvaLearn's student's too; qa-predict's EvaLearn judge keeps its protocol's
// parameters, as it keeps its temperature (unless --judge-temperature). --num-ctx (0 up, 0 for
// none sent) is likewise refused for a provider other than ollama, the only one with such an
// option; every prediction's call carries it, and so does the EvaLearn judge's when it calls the
// same Ollama server (--judge-num-ctx). --max-tokens-field, the member an OpenAI call carries
// --max-tokens in, is refused for another provider when it names one (not auto).
func (a *app) configureSampling(c *cli.Context) error {
	p, err := command.FloatBetween(c, "top-p", 0, 1)
	if err != nil {
		return err
	}
	// genai and Ollama's server hold top_k in 32 bits; a larger one would reach them wrapped.
	k, err := command.IntBetween(c, "top-k", 0, math.MaxInt32, "")
	if err != nil {
		return err
	}
	if p > 0 {
		a.topP = &p
	}
	if k > 0 {
		a.topK = &k
	}
	if a.stop, err = stopSequences(c); err != nil {
		return err
	}
	if most, api := model.MaxStops(a.provider, a.baseURL); most > 0 && len(a.stop) > most {
		// every call would be refused (HTTP 400), a failure on every record
		return command.Usagef("--stop%s: %d stop sequences, and %s takes at most %d in a call", command.FromEnv(c, "stop"), len(a.stop), api, most)
	}
	probe := model.Request{Provider: a.provider, TopP: a.topP, TopK: a.topK}
	switch {
	case a.topP != nil && probe.SentTopP() == nil:
		// Only openai's: its chat request has a top_p that langchaingo never fills.
		return command.Usagef("--top-p %v%s: langchaingo v0.1.14, through which qapipe calls %s, sends no top_p; leave it to the model's default, or set it on an OpenAI-compatible server itself (vLLM's --override-generation-config, llama-server's --top-p)",
			p, command.FromEnv(c, "top-p"), a.provider)
	case a.topK != nil && probe.SentTopK() == nil && a.provider == "openai":
		return command.Usagef("--top-k %d%s: OpenAI's API has no top_k, and langchaingo v0.1.14, through which qapipe calls openai, sends none to a compatible server either; set it on the server itself (vLLM's --override-generation-config, llama-server's --top-k), or call an Ollama server with --provider ollama, which sends it",
			k, command.FromEnv(c, "top-k"))
	case a.topK != nil && probe.SentTopK() == nil:
		// anthropic's: its request has no top_k.
		return command.Usagef("--top-k %d%s: langchaingo v0.1.14, through which qapipe calls %s, sends no top_k; leave it to the model's default",
			k, command.FromEnv(c, "top-k"), a.provider)
	}
	if a.numCtx, err = command.NumCtx(c, "num-ctx", a.provider); err != nil {
		return err
	}
	judge, err := a.judgeProvider(c)
	if err != nil {
		return err
	}
	if a.geminiSafety, err = gemini.SafetyFlag(c, "gemini-safety", a.provider, judge); err != nil {
		return err
	}
	if a.maxTokensField, err = command.MaxTokensField(c, "max-tokens-field", a.provider, model.MaxTokensFields); err != nil {
		return err
	}
	if a.topP != nil && a.provider == "anthropic" {
		// anthropicclient's request has temperature without omitempty.
		fmt.Fprintf(a.stderr, "qa-predict: warning: --top-p %v%s: langchaingo sends anthropic a temperature with every call (%v here), and Claude models from Opus 4.1 and Sonnet 4.5 on refuse temperature and top_p together (\"temperature and top_p cannot both be specified for this model\"); older ones take both\n",
			p, command.FromEnv(c, "top-p"), a.temperature)
	}
	return nil
}

// stopFlag is --stop's value: each time it is given, one stop sequence as written (stopSequences
// reads its escapes), never split at commas, as urfave/cli splits a string slice's: a stop
// sequence may hold one.
type stopFlag struct{ raw []string }

func (f *stopFlag) Set(v string) error {
	f.raw = append(f.raw, v)
	return nil
}

func (f *stopFlag) String() string {
	if f == nil || len(f.raw) == 0 {
		return ""
	}
	return fmt.Sprintf("%q", f.raw)
}

// stopSequences reads --stop's sequences with Go's escapes of a double-quoted string (\n, \t, \\,
// \", \uXXXX; a double quote may also stand bare), so that a line break can be given in a
// Makefile or an environment variable. An empty one, which stops nothing, or one that is not
// UTF-8 once read, is a usage error. A QA_STOP set to the empty string is as if unset, as every
// QA_* variable is (see command.Execute): no stop sequence.
func stopSequences(c *cli.Context) ([]string, error) {
	f, ok := c.Generic("stop").(*stopFlag)
	if !ok {
		return nil, nil
	}
	var seqs []string
	for _, raw := range f.raw {
		seq, err := unescape(raw)
		switch {
		case err != nil:
			return nil, command.Usagef("--stop %q%s: %v", raw, command.FromEnv(c, "stop"), err)
		case seq == "":
			return nil, command.Usagef("--stop %q%s: an empty stop sequence, which would stop nothing", raw, command.FromEnv(c, "stop"))
		case !utf8.ValidString(seq):
			return nil, command.Usagef("--stop %q%s: not UTF-8 text once its escapes are read", raw, command.FromEnv(c, "stop"))
		}
		seqs = append(seqs, seq)
	}
	return seqs, nil
}

// unescape reads s with Go's escapes of a double-quoted string, a bare double quote kept.
func unescape(s string) (string, error) {
	var b strings.Builder
	for s != "" {
		if s[0] != '\\' {
			_, size := utf8.DecodeRuneInString(s)
			b.WriteString(s[:size]) // as it is, a byte that is not UTF-8 too
			s = s[size:]
			continue
		}
		r, multibyte, tail, err := strconv.UnquoteChar(s, '"')
		if err != nil {
			return "", fmt.Errorf("a backslash must begin an escape such as \\n, \\t, \\\\ or \\u00e9 (at %q)", s)
		}
		if multibyte || r < utf8.RuneSelf {
			b.WriteRune(r)
		} else {
			b.WriteByte(byte(r)) // \xHH and octal escapes are bytes
		}
		s = tail
	}
	return b.String(), nil
}
