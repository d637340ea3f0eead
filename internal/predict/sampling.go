package predict

import (
	"fmt"
	"math"

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
