#!/usr/bin/env python3
"""Random judge replies with the verdicts the LLM-judge protocols' own parse rules give them, for
a differential check of qa-judge's reply parsers (internal/judge: ParseMem0, ParseMAGMA,
ParseYesNo):

    scripts/random-judge-replies.py --seed 1 --n 50000 > /tmp/judge-replies.jsonl
    QA_JUDGE_REPLIES=/tmp/judge-replies.jsonl go test ./internal/judge -run ParseRandom

Each line is {"reply", "mem0", "magma", "longmemeval"}: a score, or "error" where the upstream
expression raises. The three rules are the upstream expressions, restated with Python's own
json, re and float (see ../shared/protocols/README.md for their sources):

  mem0 (evaluation/metrics/llm_judge.py): strip; first ```(?:json)?\\s*(.*?)\\s*``` (DOTALL) group
      or the whole text; json.loads(...)["label"]; 1 if == "CORRECT" else 0.
  MAGMA (memory/llm_judge.py): json.loads(content); max(0.0, min(1.0, float(obj.get("score", 0.0)))).
  LongMemEval (evaluate_qa.py): 'yes' in content.strip().lower().

Replies mix JSON objects with every kind of value (NaN, Infinity, 1e400, 10**400, strings that
float() reads such as "1_0", " ١ ", "inf"), broken JSON, fences of several spellings and Unicode
whitespace. Python 3.11's standard library only.
"""
import argparse
import json
import random
import re

SPACES = [" ", "\n", "\t", "\u00a0", "\u3000", "\x1c", "\r\n", "\x85", ""]
VALUES = ['"CORRECT"', '"WRONG"', '"correct"', '"CORRECT "', '"\\u0043ORRECT"', "1", "0", "-1", "2", "0.5",
          "1E-2", "-0.0", "null", "true", "false", '["CORRECT"]', "{}", "1e400", "-1e400", "NaN", "Infinity",
          "-Infinity", "12345678901234567890123", "1" + "0" * 400, '"0.7"', '" 1 "', '"nan"', '"-inf"',
          '"+Infinity"', '"1_0"', '"1__0"', '"0x1"', '"\\u0661"', '"\\u0663.\\u0665"', '" 0.5\\u3000"',
          '"\\u001c1"', '"1e5"', '"abc"', '""', '"1,5"']
KEYS = ['"label"', '"score"', '"reasoning"', '"x"', '"lab\\u0065l"', '"Score"']


def obj(rng):
    members = [rng.choice(KEYS) + rng.choice([":", ": ", " :\n"]) + rng.choice(VALUES)
               for _ in range(rng.randrange(0, 4))]
    s = "{" + rng.choice([", ", ","]).join(members) + "}"
    r = rng.random()
    if r < 0.05:
        s = "[" + s + "]"
    elif r < 0.1:
        s += " x"
    elif r < 0.13:
        s = s[:-1]
    elif r < 0.16:
        s += "\n" + s
    return s


def reply(rng):
    r = rng.random()
    if r < 0.08:
        return rng.choice(["", "Yes", "YES.", "no", "No, not really", "eyes", "Yesterday", "yeS", "YÉS",
                           "y e s", "\u3000yes\u3000", "ｙｅｓ"])
    s = obj(rng)
    if rng.random() < 0.4:
        s = (rng.choice(["```json", "```", "```JSON", "``` json"]) + rng.choice(SPACES) + s +
             rng.choice(SPACES) + rng.choice(["```", "``", "```\n```json{}```"]))
    if rng.random() < 0.3:
        s = rng.choice(["Here: ", "Yes. ", "no ", "EYES "]) + s
    return rng.choice(SPACES) + s + rng.choice(SPACES)


def mem0(t):
    try:
        s = t.strip()
        m = re.search(r"```(?:json)?\s*(.*?)\s*```", s, re.DOTALL)
        if m:
            s = m.group(1)
        return 1 if json.loads(s)["label"] == "CORRECT" else 0
    except Exception:
        return "error"


def magma(t):
    try:
        return max(0.0, min(1.0, float(json.loads(t).get("score", 0.0))))
    except Exception:
        return "error"


def longmemeval(t):
    return 1 if "yes" in t.strip().lower() else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=1000)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    for _ in range(a.n):
        t = reply(rng)
        print(json.dumps({"reply": t, "mem0": mem0(t), "magma": magma(t), "longmemeval": longmemeval(t)},
                         ensure_ascii=False))


if __name__ == "__main__":
    main()
