package predict

import (
	"fmt"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/prompt"
)

// configureReader sets how LongMemEval records are asked: the reading method, the history's
// format and sessions, and its token budget from --history-tokens. auto is run_generation.py's
// budget for the model and its max tokens, kept for the models it counts with o200k_base; for
// the open models of its table, counted by their own tokenizers, histories go whole with a
// warning.
func (a *app) configureReader(c *cli.Context) error {
	p := a.prompts
	p.stderr = a.stderr
	if err := p.parseReading(c); err != nil {
		return err
	}
	if err := p.parseRetriever(c); err != nil {
		return err
	}
	if err := p.parseKeyExpansion(c); err != nil {
		return err
	}
	p.history.Format = c.String("history-format")
	if p.history.Format != "json" && p.history.Format != "nl" {
		return command.Usagef("--history-format: want json or nl, not %q%s", p.history.Format,
			english.DidYouMean(p.history.Format, []string{"json", "nl"}))
	}
	if p.notes && p.history.Format == "nl" {
		return command.Usagef("--reading con-separate: its notes are read as json only (LongMemEval's script fails on --history-format nl)")
	}
	p.history.TopK = c.Int("history-sessions")
	p.history.UserOnly = c.Bool("user-only")
	return a.configureHistoryTokens(c)
}

// parseReading sets p's reading method from --reading: direct, con (chain of note), or
// con-separate (notes asked apart first).
func (p *prompter) parseReading(c *cli.Context) error {
	switch r := c.String("reading"); r {
	case "direct", "con", "con-separate":
		p.con, p.notes = r != "direct", r == "con-separate"
	default:
		return command.Usagef("--reading: want direct, con or con-separate, not %q%s", r,
			english.DidYouMean(r, []string{"direct", "con", "con-separate"}))
	}
	return nil
}

// parseRetriever sets the history's retriever from --retriever, the full-history names being
// LongMemEval's older names of orig-session and orig-turn.
func (p *prompter) parseRetriever(c *cli.Context) error {
	switch r := c.String("retriever"); r {
	case "orig-session", "full-history-session":
		p.history.Retriever = prompt.RetrieverSession
	case "orig-turn", "full-history-turn":
		p.history.Retriever = prompt.RetrieverTurn
	case "no-retrieval", "flat-session", "flat-turn", "oracle-session", "oracle-turn":
		p.history.Retriever = r
	default:
		return command.Usagef("--retriever: want orig-session, orig-turn, oracle-session, oracle-turn, flat-session, flat-turn or no-retrieval (or full-history-session, full-history-turn), not %q%s", r,
			english.DidYouMean(r, []string{"orig-session", "orig-turn", "oracle-session", "oracle-turn", "flat-session", "flat-turn",
				"no-retrieval", "full-history-session", "full-history-turn"}))
	}
	return nil
}

// parseKeyExpansion sets the history's key expansion from --key-expansion, refusing the flag
// settings under which LongMemEval's script fails.
func (p *prompter) parseKeyExpansion(c *cli.Context) error {
	p.history.KeyExpansion = c.String("key-expansion")
	switch x := p.history.KeyExpansion; {
	case x != "none" && x != "merge" && x != "replace":
		return command.Usagef("--key-expansion: want none, merge or replace, not %q%s", x,
			english.DidYouMean(x, []string{"none", "merge", "replace"}))
	case x == "merge" && !p.history.FromRetrievalLog() && p.history.Retriever != prompt.RetrieverNone:
		return command.Usagef("--key-expansion merge: needs --retriever flat-session or flat-turn (LongMemEval's script fails on full histories)")
	case x == "replace" && c.String("history-format") == "nl":
		return command.Usagef("--key-expansion replace: the history is retrieval texts, json only (LongMemEval's script fails on nl)")
	case p.history.Retriever == prompt.RetrieverFlatTurn && x != "replace" && c.Bool("user-only"):
		return command.Usagef("--retriever flat-turn: no --user-only (LongMemEval's script fails on it)")
	}
	return nil
}

// configureHistoryTokens sets the history's token budget from --history-tokens: none, a count,
// or auto, run_generation.py's budget for the model when it counts with o200k_base (for the
// open models of its table, a warning that histories go whole).
func (a *app) configureHistoryTokens(c *cli.Context) error {
	p := a.prompts
	switch v := c.String("history-tokens"); v {
	case "none":
	case "auto":
		limit, o200k, known := prompt.LongMemEvalHistoryLimit(a.modelName, a.genLength())
		switch {
		case o200k:
			p.history.MaxTokens = limit
		case known:
			p.historyWarn = fmt.Sprintf("qa-predict: warning: LongMemEval cuts %s's history to %d tokens of its Hugging Face tokenizer, which qapipe does not have: histories go whole (--history-tokens N cuts them at N o200k_base tokens)", a.modelName, limit)
		}
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return command.Usagef("--history-tokens: want auto, none or a positive number of tokens, not %q%s", v,
				english.DidYouMean(v, []string{"auto", "none"}))
		}
		p.history.MaxTokens = n
	}
	return nil
}
