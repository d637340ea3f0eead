package predict

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/clitest"
	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/prompt"
)

// historyTokensModels are the models --history-tokens auto is read for: one LongMemEval counts
// with o200k_base, one it counts with its own tokenizer, and one outside its table.
var historyTokensModels = []string{"gpt-4o", "llama-3.1-70b-instruct", "x"}

// runHistoryTokens runs qa-predict's --history-tokens flag (QA_HISTORY_TOKENS) with args, and
// returns the budget and warning configureHistoryTokens sets for model.
func runHistoryTokens(t *testing.T, args []string, model string) (maxTokens int, warn string, err error) {
	t.Helper()
	a := &app{prompts: &prompter{}, modelName: model}
	_, err = clitest.RunFlag(t, flags(), "history-tokens", args, func(c *cli.Context) error { return a.configureHistoryTokens(c) })
	return a.prompts.history.MaxTokens, a.prompts.historyWarn, err
}

// FuzzHistoryTokens: --history-tokens, given on the command line or (env) in QA_HISTORY_TOKENS,
// is none (no budget), auto (the default, which QA_HISTORY_TOKENS set empty is too) (LongMemEval's budget for a model it counts with o200k_base, none with
// a warning naming the model for one it counts otherwise, none for another), or a positive
// decimal count, which is the budget and reads back, written as a number, to the same; anything
// else is a usage error (exit 2) `--history-tokens: want auto, none or a positive number of
// tokens, not "VALUE"`, Go-quoted, that a value from the variable ends by naming it. Every
// message is valid UTF-8.
func FuzzHistoryTokens(f *testing.F) {
	for _, v := range []string{"auto", "none", "1", "8000", "0", "-1", "+5", "007", "Auto", "NONE", " 5", "5 ", "1e3", "0x10",
		"1_000", "99999999999999999999", "", "\xff", "QA_HISTORY_TOKENS", "٣"} {
		f.Add(v, false, uint8(0))
	}
	f.Add("QA_HISTORY_TOKENS", true, uint8(1))
	f.Add("", true, uint8(2))
	for i, v := range clitest.FlagValues(f, "history-tokens", "QA_HISTORY_TOKENS") {
		f.Add(v.Text, v.FromEnv, uint8(i))
	}
	f.Fuzz(func(t *testing.T, value string, env bool, m uint8) {
		model := historyTokensModels[int(m)%len(historyTokensModels)]
		args, ok := clitest.FlagArgs(t, "history-tokens", "QA_HISTORY_TOKENS", value, env)
		if !ok {
			return
		}
		if env && value == "" {
			value = "auto" // an exported QA_HISTORY_TOKENS= is as if unset: the default
		}
		got, warn, err := runHistoryTokens(t, args, model)
		n, nerr := strconv.Atoi(value)
		switch {
		case err != nil:
			msg := err.Error()
			want := "--history-tokens: want auto, none or a positive number of tokens, not " + strconv.Quote(value)
			if command.ExitCode(err) != command.ExitUsage || !strings.HasPrefix(msg, want) || !utf8.ValidString(msg) ||
				env && !strings.HasSuffix(msg, " (from QA_HISTORY_TOKENS)") || value == "auto" || value == "none" || nerr == nil && n >= 1 {
				t.Errorf("--history-tokens %q (env %v): error %q (exit %d), want a usage error beginning %q", value, env, msg, command.ExitCode(err), want)
			}
		case value == "none":
			if got != 0 || warn != "" {
				t.Errorf("--history-tokens none: budget %d, warning %q; want none", got, warn)
			}
		case value == "auto":
			limit, o200k, known := prompt.LongMemEvalHistoryLimit(model, prompt.LongMemEvalGenLength)
			wantLimit := 0
			if o200k {
				wantLimit = limit
			}
			if got != wantLimit || (known && !o200k) != strings.Contains(warn, model+"'s history") {
				t.Errorf("--history-tokens auto for %s: budget %d, warning %q; want %d", model, got, warn, wantLimit)
			}
		case nerr != nil || n < 1:
			t.Errorf("--history-tokens %q (env %v) accepted (budget %d), want a usage error", value, env, got)
		default:
			if got != n || warn != "" {
				t.Errorf("--history-tokens %q: budget %d, warning %q; want %d", value, got, warn, n)
			}
			if again, _, err := runHistoryTokens(t, []string{"--history-tokens", strconv.Itoa(got)}, model); err != nil || again != got {
				t.Errorf("--history-tokens %d read again: %d, %v", got, again, err)
			}
		}
	})
}
