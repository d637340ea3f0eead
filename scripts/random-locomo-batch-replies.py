#!/usr/bin/env python3
"""Random replies to LoCoMo's batched query with what LoCoMo's own get_gpt_answers
(task_eval/gpt_utils.py, snap-research/locomo @ 3eb6f2c) stores from each, for a differential
check of internal/prompt's LoCoMoBatchAnswers:

    scripts/random-locomo-batch-replies.py --git-dir LoCoMo/.git --seed 1 --n 100000 > /tmp/batch.jsonl
    QA_LOCOMO_BATCH_VECTORS=/tmp/batch.jsonl go test ./internal/prompt -run BatchAnswersRandom

Upstream's code is executed from the git directory as scripts/locomo-requests.py loads it (its
load_upstream, with a fake OpenAI client answering the random reply); nothing of it is copied
here. tiktoken is replaced by a count of characters: it only sizes the conversation, a few
words here, and never the reading of the reply. Each reply is read for a batch of 1 to 20
questions (evaluate_qa.py --batch-size 2 to 20) whose category-5 positions, options and option
order are drawn at random.

Each line: "reply", "questions" ({"category"}, with "options": [(a), (b)] for category 5),
and either "raises": "ValueError" (the trial loop gives up on the whole reply) or
"answers", one per question, each one of
  {"stored": str}                 upstream stores this str,
  {"type": name, "repr": repr}    upstream stores a value that is not a str (its last reading),
  {"raises": exception name}      upstream raises at this question,
and "reached": false for the questions after one that raises, which upstream never reaches: their
outcome is upstream's for the same reply with the questions before them made category 5 (which
never raise; a question's reading depends only on the reply, its index and whether it is
category 5). A stored str's surrogates (json.loads keeps a lone one, and removing "(a)" or "(b)"
can bring two together, which Python holds as two characters) are each written as U+FFFD, as
LoCoMoBatchAnswers writes them: JSON's escapes cannot tell two such characters from the one they
would encode as a pair.

Replies: JSON dicts keyed "0".."N-1" with keys missing, extra, repeated, spaced or escaped and
values of every JSON type; single-quoted pseudo-JSON and mixed quotes; \\" and \\' escapes; the
words json and `json` and code fences, around the reply and anywhere inside it; lists of
answers; one answer per line; (a)/(b) and single letters; Unicode (İ, final sigma, non-BMP
characters, surrogate escapes, Python's extra whitespace); empty and garbage replies. Python
3.11's standard library, plus git.
"""
import argparse
import contextlib
import importlib.util
import io
import json
import os
import random
import re
import types

ABSTAIN = "Not mentioned in the conversation"
SURROGATE = re.compile("[\ud800-\udfff]")
ADVERSARIAL = ["Paris", "pottery", "A", "b", "(a)", "İstanbul", "ΟΔΟΣ", "Zoë's", "7 May 2023", " x "]

# Pieces of text inside a quoted value (raw reply text, escapes included).
PIECES = ["a", "b", "A", "B", "(a)", "(b)", "(A)", "(B)", " ", "  ", "Mel", "May 2023", "Caroline", "pottery",
          "the week before 9 June", "json", "`json`", "```", "```json\n", "`", "jsonify", "JSON", "it's", "'",
          "Caroline's", '\\"', "\\'", "\\\\", "\\/", "\\n", "\\t", "\\u00e9", "\\u0130", "\\u03a3", "\\ud800",
          "\\udc00", "\\ud83d\\ude00", "\\ud83d(a)", "(b)\\ude00", "\\ud83d(a)\\ude00", "\\ud800(b)\\udc00", "\\u0028a)", "İ", "Σ", "ΑΣ", "é", "日本", "😀", "\u00a0", "\u3000",
          "\u2028", "\x85", ",", ":", "{", "}", "[", "]", ABSTAIN, "not mentioned", "1",
          "null", "True", "a.", "ab", "abc"]
# Rarer pieces that json.loads refuses inside a string or as a number.
BAD_PIECES = ["\x1c", "\t", "\n", "\x00", "\\x", "\\u12"]
NUMS = ["0", "-0", "1", "2023", "1.5", "-2", "1e16", "1E400", "-1e400", "NaN", "Infinity", "-Infinity",
        "12345678901234567890", "0.1", "1.0", "-1e-7", "1e5", "3.0e2"]
BAD_NUMS = ["01", "1.", "+1", "-NaN", ".5", "1e", "0x1"]
SPACES = ["", " ", "\n", "\n  ", "\t", "\r\n", "\u00a0", "\u3000", "\x85", "\x1c", "\u2028"]
FENCES = [("```json\n", "\n```"), ("```\n", "\n```"), ("```json", "```"), ("json\n", ""), ("`", "`"),
          ("```json\n", "\n```"), ("```JSON\n", "\n```"), ("Here are the answers:\n```json\n", "\n```")]


def content(rng):
    if rng.random() < 0.1:
        return padded(rng)
    return bare_content(rng)


def padded(rng):
    pad = ["", " ", "  ", "\u00a0", "\u3000", "\x85", "\u2028", "\\n", "\\t", "\\u3000"]
    return rng.choice(pad) + bare_content(rng) + rng.choice(pad)


def bare_content(rng):
    r = rng.random()
    if r < 0.55:
        return rng.choice(["a", "b", "(a)", "(b)", "A", "Mel", "May 2023", "Caroline", "pottery", ABSTAIN])
    if r < 0.6:
        return ""
    if r < 0.97:
        return "".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 3)))
    return rng.choice(PIECES) + rng.choice(BAD_PIECES)


def string(rng, text):
    """text quoted in the reply's style (rng.quote): double, single, or mixed quotes."""
    r = rng.random()
    if rng.quote == "'" and r < 0.9 or rng.quote == "mixed" and r < 0.4:
        return "'" + text + "'"
    if rng.quote != "mixed" and r < 0.97 or r < 0.8:
        return '"' + text + '"'
    return rng.choice(['"' + text + "'", "'" + text + '"', '\\"' + text + '\\"'])


def value(rng, depth=0):
    r = rng.random()
    if depth > 2 or r < 0.6:
        return string(rng, content(rng))
    if r < 0.75:
        return rng.choice(NUMS) if rng.random() < 0.95 else rng.choice(BAD_NUMS)
    if r < 0.82:
        return rng.choice(["true", "false", "null"]) if rng.random() < 0.95 else rng.choice(["True", "None"])
    if r < 0.91:
        return "[" + ", ".join(value(rng, depth + 1) for _ in range(rng.randrange(0, 4))) + "]"
    keys = [string(rng, rng.choice(["a", "city", "answer", "0", "b"])) for _ in range(rng.randrange(0, 3))]
    return "{" + ", ".join(k + ": " + value(rng, depth + 1) for k in keys) + "}"


def keys(rng, n):
    ks = list(range(n))
    if rng.random() < 0.3:
        for _ in range(rng.randrange(1, 3)):
            if ks:
                ks.pop(rng.randrange(len(ks)))
    if rng.random() < 0.2:
        ks.append(rng.choice([n, n + 1, ks[0] if ks else 0]))
    if rng.random() < 0.1:
        rng.shuffle(ks)
    out = []
    for k in ks:
        r = rng.random()
        if r < 0.95:
            out.append(string(rng, str(k)))
        else:
            out.append(rng.choice([str(k), '" %d"' % k, '"%d "' % k, '"0%d"' % k, '"\\u003%d"' % (k % 10),
                                   '"%d.0"' % k, '"-%d"' % k, '"q%d"' % k, "'%d'" % k]))
    return out


def dict_reply(rng, n):
    sep = rng.choice([", ", ",", ",\n", ",\n  ", " ,\n"])
    colon = rng.choice([": ", ":", " : "])
    members = [k + colon + value(rng) for k in keys(rng, n)]
    open_, close = rng.choice([("{", "}"), ("{\n  ", "\n}"), ("{\n", "\n}"), ("{", "}")])
    return open_ + sep.join(members) + close


def list_reply(rng, n):
    m = max(0, n + rng.choice([-2, -1, 0, 0, 0, 1]))
    sep = rng.choice([", ", ",\n", "\n,", ","])
    return "[" + sep.join(value(rng) for _ in range(m)) + "]"


def line(rng):
    r = rng.random()
    if r < 0.15:
        return string(rng, rng.choice(["(a)", "(b)", "(a)(b)", "((a)b)"]) + content(rng))
    if r < 0.25:
        return "[" + string(rng, padded(rng)) + "]"
    if r < 0.6:
        return "[" + ", ".join(value(rng, 2) for _ in range(rng.choice([0, 1, 1, 1, 2]))) + "]"
    if r < 0.9:
        return value(rng, 2)
    return content(rng)


def lines_reply(rng, n):
    """A list, or lines of text, with an item on each line, which upstream's last reading reads
    line by line."""
    items = [line(rng) for _ in range(max(1, n + rng.choice([-1, 0, 0, 1])))]
    if rng.random() < 0.3:
        return "\n".join(items)
    sep = rng.choice(["\n,", ",\n", "\n,\n", "\n,\n", "\n,\n", "\n ,"])
    return rng.choice(["[", "[\n", "[\n"]) + sep.join(items) + rng.choice(["]", "\n]"])


QUOTEY = ["'", "''", "it's", '\\"', "\\'", "Caroline's", "'a'", "\\\"b\\\"", ""]


def cleaned(s):
    """upstream's clean-up of the reply, to steer the quote counts (not the checked code)."""
    return s.replace('\\"', "'").replace("json", "").replace("`", "").strip().replace("\\'", "")


def tie_reply(rng, n):
    """Double-quoted strings holding apostrophes, as many as the double quotes or one more or
    less: either side of process_ouput's swap."""
    cs = [rng.choice(QUOTEY) + content(rng) + rng.choice(QUOTEY) for _ in range(max(1, n + rng.choice([-1, 0, 0])))]
    as_dict = rng.random() < 0.6

    def build():
        if as_dict:
            return "{" + ", ".join('"%d": "%s"' % (k, c) for k, c in enumerate(cs)) + "}"
        return "[" + rng.choice([", ", ",\n", "\n,"]).join('"%s"' % c for c in cs) + "]"

    t = cleaned(build())
    more = t.count('"') - t.count("'") + rng.choice([-1, 0, 0, 1])
    if more > 0:
        cs[-1] += "'" * more
    return build()


def letters_reply(rng, n):
    return rng.choice(["a", "b", "A", "(a)", "(B)", " a ", "ab", "abc", "a\nb", "İ", "ΑΣ", '"a"', '"(a)"',
                       "'b'", '"ab"', '"abc"', "(a)\n(b)", '"(a)(b)x"'])


def garbage_reply(rng, n):
    return rng.choice(["", " ", "\n", "Sure! Here are the answers.", "{", "}", "[", "null", "[]", "{}", "[[]]",
                       "```", "```json\n```", "json", "`json`", "1, 2, 3", "None", "true", "\u3000", "\ufeff{}",
                       "Mel, May 2023, a, b, pottery", "0: Mel\n1: May", '{"0": "a"} {"1": "b"}'])


def reply(rng, n):
    rng.quote = rng.choices(['"', "'", "mixed"], [65, 27, 8])[0]
    kind = rng.choices([dict_reply, list_reply, lines_reply, tie_reply, letters_reply, garbage_reply],
                       [50, 15, 15, 8, 6, 6])[0]
    s = kind(rng, n)
    if rng.random() < 0.25:
        before, after = rng.choice(FENCES)
        s = before + s + after
    for _ in range(rng.choice([0, 0, 0, 0, 0, 1, 1, 2])):
        i = rng.randrange(len(s) + 1)
        s = s[:i] + rng.choice(["json", "`json`", "`", "```", "\\'", '\\"', "'", '"', "\n", "(a)", "(b)"]) + s[i:]
    if rng.random() < 0.2:
        s = rng.choice(SPACES) + s + rng.choice(SPACES)
    if rng.random() < 0.05:  # whitespace that only the strip after removing \' reaches
        s = rng.choice(["\\'", ""]) + rng.choice(SPACES) + s + rng.choice(SPACES) + rng.choice(["\\'", ""])
    return s


def questions(rng):
    n = rng.choice([1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 8, 10, 12, 20])
    qs = []
    p5 = rng.choice([0.0, 0.2, 0.5, 1.0])
    for _ in range(n):
        if rng.random() < p5:
            adv = rng.choice(ADVERSARIAL)
            qs.append({"category": 5, "options": [ABSTAIN, adv] if rng.random() < 0.5 else [adv, ABSTAIN]})
        else:
            qs.append({"category": rng.randrange(1, 5)})
    return qs


class Upstream:
    """get_gpt_answers of the LoCoMo checkout, run on one batch with a fake client."""

    def __init__(self, git_dir):
        here = os.path.dirname(os.path.abspath(__file__))
        spec = importlib.util.spec_from_file_location("locomo_requests", os.path.join(here, "locomo-requests.py"))
        self.lr = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.lr)
        self.gpt = self.lr.load_upstream(git_dir, CharCount(), [])
        self.conv = {"speaker_a": "Mel", "speaker_b": "Caroline", "session_1_date_time": "1 May 2023",
                     "session_1": [{"speaker": "Mel", "dia_id": "D1:1", "text": "Hi"},
                                   {"speaker": "Caroline", "dia_id": "D1:2", "text": "Hello"}]}

    def run(self, reply, qs, batch_size):
        """out_data's qa list after get_gpt_answers, the exception it raised, and whether its
        trial loop gave up on the reply."""
        qa, draws = [], []
        for q in qs:
            item = {"question": "q", "category": q["category"]}
            if q["category"] == 5:
                abstain_first = q["options"][0] == ABSTAIN
                item["answer"] = q["options"][1 if abstain_first else 0]
                draws.append(0.25 if abstain_first else 0.75)
            qa.append(item)
        self.gpt.random = types.SimpleNamespace(random=lambda: draws.pop(0))
        self.lr.REPLY[0] = lambda kw: reply
        out = {"qa": [{} for _ in qs]}
        args = types.SimpleNamespace(model="gpt-4-turbo", batch_size=batch_size, use_rag=False, overwrite=True)
        printed = io.StringIO()
        err = None
        try:
            with contextlib.redirect_stdout(printed):
                self.gpt.get_gpt_answers({"sample_id": "s", "conversation": self.conv, "qa": qa}, out, "p", args)
        except Exception as e:  # noqa: BLE001 - upstream's own exceptions are the data
            err = e
        gave_up = "Error at trial" in printed.getvalue()
        assert not draws and (err is None or isinstance(err, Exception))
        return out["qa"], err, gave_up


class CharCount:
    """Stands for locomo-requests.py's tiktoken process: one token per character."""

    def ask(self, q):
        return {"name": "chars"} if "model" in q else {"n": len(q["text"])}


def outcome(stored):
    if isinstance(stored, str):
        return {"stored": SURROGATE.sub("\ufffd", stored)}
    return {"type": type(stored).__name__, "repr": repr(stored)}


def vector(up, rng):
    qs = questions(rng)
    text = reply(rng, len(qs))
    bs = rng.randrange(max(2, len(qs)), 21)
    qa, err, gave_up = up.run(text, qs, bs)
    v = {"reply": text, "questions": qs}
    if gave_up:
        assert type(err) is ValueError and not any("p" in q for q in qa)
        v["raises"] = "ValueError"
        return v
    answers = []
    for k, q in enumerate(qa):
        if "p" in q:
            answers.append(outcome(q["p"]))
        elif err is not None and not any("raises" in a for a in answers):
            answers.append({"raises": type(err).__name__})
        else:
            # Not reached: the same reply with the questions before k made category 5.
            alone = [{"category": 5, "options": [ABSTAIN, "x"]} for _ in range(k)] + [qs[k]]
            qa2, err2, _ = up.run(text, alone, bs)
            a = outcome(qa2[k]["p"]) if "p" in qa2[k] else {"raises": type(err2).__name__}
            a["reached"] = False
            answers.append(a)
    v["answers"] = answers
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--git-dir", required=True, help="a LoCoMo checkout's git directory, holding commit 3eb6f2c")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=1000)
    a = ap.parse_args()
    up = Upstream(a.git_dir)
    rng = random.Random(a.seed)
    for _ in range(a.n):
        print(json.dumps(vector(up, rng), ensure_ascii=False))


if __name__ == "__main__":
    main()
