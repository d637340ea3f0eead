package model

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// This file reads the thinking that open reasoning models (DeepSeek-R1 and its distills, Qwen3,
// QwQ between <think> and </think>; Mistral's Magistral between [THINK] and [/THINK]; OpenAI's
// gpt-oss in its analysis channel before its final one) write into their reply's text when the
// server that runs them has no reasoning parser.

// Thought is a reply's text read for the thinking a reasoning model wrote into it.
type Thought struct {
	// Answer is the text after the thinking, or the whole text when none was taken out.
	Answer string
	// Thinking is the thinking without its tags, trimmed; "" when none was taken out.
	Thinking string
	// Found is set when the text held thinking, taken out of Answer (an empty one too).
	Found bool
	// Cut is set, with Found, when the text starts with an opening tag ("<think>") and holds no
	// closing one of its pair ("</think>"): the reply ended in its thinking (at max_tokens, as a
	// rule) and has no answer; Answer is then "".
	Cut bool
	// Close is the tag that ends the thinking, "</think>", "[/THINK]" or gpt-oss's
	// "<|channel|>final<|message|>", when Found: the one the text holds, or, when Cut, the one it
	// lacks.
	Close string
}

// thinkTags are the pairs of tags that open and close a reasoning model's thinking: most open
// models' (DeepSeek-R1, Qwen3, QwQ), those of Mistral's Magistral, and gpt-oss's harmony channels
// (analysis, then final), whose servers, without a reasoning parser (vLLM without
// --reasoning-parser mistral, llama-server with --reasoning-format none), write those tokens into
// the text.
var thinkTags = [...]struct{ open, close string }{
	{"<think>", "</think>"},
	{"[THINK]", "[/THINK]"},
	{"<|channel|>analysis<|message|>", harmonyFinal},
}

// harmonyFinal opens gpt-oss's final channel, its answer: "<|channel|>analysis<|message|>…<|end|>
// <|start|>assistant<|channel|>final<|message|>Paris", the analysis message its thinking.
const harmonyFinal = "<|channel|>final<|message|>"

// trimHarmony takes gpt-oss's message ends off thought, read by harmonyFinal: the "<|end|>" and
// "<|start|>assistant" that close its thinking's message and start the final one, and the
// "<|return|>" or "<|end|>" that a server which keeps its special tokens leaves after the answer.
func trimHarmony(th Thought) Thought {
	t := strings.TrimSuffix(th.Thinking, "<|start|>assistant")
	th.Thinking = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "<|end|>"))
	for _, end := range []string{"<|return|>", "<|end|>"} {
		th.Answer = strings.TrimSuffix(th.Answer, end)
	}
	return th
}

// pickTags picks the pair of thinkTags that text, whose leading white space lead is without, is
// read by: the pair whose opening tag starts lead, or else the pair whose closing tag comes last
// in text (the first pair when it holds neither).
func pickTags(text, lead string) (open, close string) {
	for _, p := range thinkTags {
		if strings.HasPrefix(lead, p.open) {
			return p.open, p.close
		}
	}
	best, last := 0, -1
	for i, p := range thinkTags {
		if at := strings.LastIndex(text, p.close); at > last {
			best, last = i, at
		}
	}
	return thinkTags[best].open, thinkTags[best].close
}

// ReadThought reads text, a reply's text, for the thinking written into it, as vLLM, llama.cpp's
// llama-server and Ollama's /v1 pass it on without a reasoning parser: "<think>\n…\n</think>\n\nParis",
// or, where the chat template put the opening tag into the prompt (DeepSeek-R1's distills, QwQ),
// "…\n</think>\n\nParis". Thinking is taken out when text holds "</think>" and either starts,
// after white space, with "<think>" or holds no "<think>" at all: the answer is the text after
// the last "</think>", its leading white space trimmed. Text that starts with "<think>" and holds
// no "</think>" is Cut. Any other text is the answer whole, so that an answer that speaks of the
// tags ("wrap it in <think> and </think>") is left as it is; so is a text without "<think>" that
// is one JSON object or array whole (in a code fence or not), as a judge's verdict is
// ({"score": 0.9, "reasoning": "… a stray </think> …"}): thinking before a closing tag is prose,
// and cutting the object at the tag would lose a verdict its judge's script reads.
//
// Magistral's "[THINK]…[/THINK]Paris" is read by the same rules with its own tags, and so is
// gpt-oss's "<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final<|message|>Paris"
// with the analysis channel's opening and the final one's as its tags (the message ends around them
// are taken off: trimHarmony): the pair a text is read by is the one whose opening tag starts it,
// or else the one whose closing tag comes last in it (pickTags), and the other pairs' tags are text
// like any other.
//
// Note: the last "</think>" ends the thinking, not the first, as a model that thinks in several
// blocks (or quotes the tag while thinking) answers after all of them; the tags inside are left
// in Thinking, which is the text between the opening tag and the last closing one.
func ReadThought(text string) Thought {
	lead := strings.TrimLeftFunc(text, unicode.IsSpace)
	openTag, closeTag := pickTags(text, lead)
	opens := strings.HasPrefix(lead, openTag)
	end := strings.LastIndex(text, closeTag)
	switch {
	case end < 0 && opens:
		// The thinking so far is kept, as a reply cut in thinking its server sent apart keeps it.
		return Thought{Found: true, Cut: true, Close: closeTag, Thinking: strings.TrimSpace(lead[len(openTag):])}
	case end < 0, !opens && (strings.Contains(text, openTag) || wholeJSON(text)):
		return Thought{Answer: text}
	}
	thinking := text[:end]
	if opens {
		thinking = strings.TrimLeftFunc(thinking, unicode.IsSpace)[len(openTag):]
	}
	th := Thought{
		Answer:   strings.TrimLeftFunc(text[end+len(closeTag):], unicode.IsSpace),
		Thinking: strings.TrimSpace(thinking),
		Found:    true,
		Close:    closeTag,
	}
	if closeTag == harmonyFinal {
		th = trimHarmony(th)
	}
	return th
}

// wholeJSON reports whether text, trimmed and out of a Markdown code fence if it is in one, is
// a JSON object or array.
func wholeJSON(text string) bool {
	t := strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(t, "```"); ok {
		_, body, _ := strings.Cut(rest, "\n") // past the fence's language tag
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body), "```"))
	}
	return (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t))
}

// ErrCutThinking marks a reply that ended in its thinking (Thought.Cut): it holds no answer. The
// error that wraps it names the closing tag the reply lacks.
var ErrCutThinking = errors.New("reply cut in its thinking")

// Thinking is a Client that takes the thinking out of the text of every reply of Next
// (ReadThought), as --think strip asks: Text is the answer, Raw the text as it came, and the
// thinking is added to Reasoning. A reply cut in its thinking is the error ErrCutThinking, which
// names the max_tokens that ran out as an empty reply's error does; one with nothing after its
// thinking is ErrEmptyReply. Both keep the response, paid for, with its Raw.
//
// Thinking wraps a client from outside the cache, so that the cache keeps the replies as they
// came: a run with another --think reads them again without a call. Forget, when set, takes a
// reply with nothing after its thinking (but one stopped at its budget there) out of the cache
// (its error then names a failure to), so that a rerun asks for another: unlike one cut in its thinking, which the same max_tokens would
// cut again, it is no reply the request must give again, and, kept, it would be served to every
// --retry-errors. (qa-judge sets none: it asks such a reply again at once, as a new sample, and a
// rerun from the cache reads the samples it stored on to the verdict they reached.)
//
// KeepStopped, when set, leaves in the cache a reply with nothing after its thinking that stopped
// of itself (Response.Stopped), as qa-predict --empty-reply keep, which keeps it as the answer "",
// asks: a rerun then reads the answer it kept without a call.
type Thinking struct {
	Next        Client
	Forget      func(context.Context, Request) error
	KeepStopped bool
}

// Generate asks Next and reads the reply's thinking.
func (t Thinking) Generate(ctx context.Context, req Request) (Response, error) {
	resp, err := t.Next.Generate(ctx, req)
	if err != nil {
		return resp, err
	}
	th := ReadThought(resp.Text)
	resp.Raw = resp.Text
	if !th.Found {
		return resp, nil
	}
	resp.Text = th.Answer
	if th.Thinking != "" {
		resp.Reasoning = strings.TrimSpace(resp.Reasoning + "\n\n" + th.Thinking)
	}
	switch {
	case th.Cut:
		why := ""
		switch {
		case resp.Window:
			why = " (the model's context window filled up before the answer)"
		case resp.Cut:
			why = " (" + cmp.Or(spent(req.Provider, req.MaxTokens, "before the answer"), "it stopped at the server's token limit before the answer") + ")"
		}
		return resp, &CallError{Attempts: resp.Attempts, Err: fmt.Errorf("%s %s: %w: no %s, so no answer%s", req.Provider, req.Model, ErrCutThinking, th.Close, why)}
	case blank(th.Answer) && (resp.Cut || resp.Window):
		// Its budget ran out at the end of its thinking: the same request is cut there again,
		// so the reply stays in the cache, as one cut in its thinking does, and the error says
		// why, as an empty reply's does when its server sent the thinking apart.
		why := "the model's context window filled up after it"
		if !resp.Window {
			why = cmp.Or(spent(req.Provider, req.MaxTokens, "after it"), "it stopped at the server's token limit after it")
		}
		return resp, &CallError{Attempts: resp.Attempts, Err: fmt.Errorf("%s %s: %w (nothing after %s: %s)", req.Provider, req.Model, ErrEmptyReply, th.Close, why)}
	case blank(th.Answer):
		kept := ""
		if t.Forget != nil && !(t.KeepStopped && resp.Stopped) {
			if err := t.Forget(context.WithoutCancel(ctx), req); err != nil {
				kept = "; it stays in the cache: " + err.Error()
			}
		}
		return resp, &CallError{Attempts: resp.Attempts, Err: fmt.Errorf("%s %s: %w (nothing after %s)%s", req.Provider, req.Model, ErrEmptyReply, th.Close, kept)}
	}
	return resp, nil
}
