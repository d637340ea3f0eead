#!/usr/bin/env python3
"""Random JSON documents with what Python makes of them, for a differential check of
internal/python (Loads, Value.Dumps, Value.Without, Value.Str):

    scripts/random-json-values.py --seed 1 --n 100000 > /tmp/values.jsonl
    QA_PYTHON_VALUES=/tmp/values.jsonl go test ./internal/python -run RandomValues

Each line: "raw" (the document), "dumps" (json.dumps(json.loads(raw))), "dumps_drop" (the same
with every "has_answer" key removed, as LongMemEval's history is written) and "str"
(json.dumps(str(json.loads(raw))), so that lone surrogates survive the trip). Documents mix ints
(-0, 4,300-digit limits aside), floats in every notation (1e400 is inf, 5e-324), strings with
escapes, lone surrogates and non-ASCII, repeated keys, nesting. Python 3.11's standard library.
"""
import argparse
import json
import random

NUMS = ["0", "-0", "1", "-12", "1.0", "-0.0", "0.1", "1e5", "1E5", "1e16", "1e15", "1.5e-5", "0.0001",
        "0.00001", "123456789012345678901234567890", "1e400", "-1e400", "1e-400", "2.5", "100.0", "1e+2",
        "3.141592653589793", "0.1e1", "9007199254740993", "9007199254740993.0", "1.7976931348623157e308",
        "5e-324", "123456789.123456789", "NaN", "Infinity", "-Infinity", "1e22", "1e-7", "12345678901234567.0"]
STRS = ['"a"', '"it\'s"', '"\\"q\\""', '"\\u00e9"', '"\\ud83d\\ude00"', '"\\u0000\\u001f\\u007f"',
        '"\\n\\t\\r\\b\\f"', '"/<>&\\/"', '"\\u2028"', '""', '"\\u00a0x"', '"日本"', '"\\ud800"', '"\\udc00x"',
        '"x\\\\y"', '"\'\\""', '"\\ud83d"', '"\\ude00\\ud83d"', '"\\u0085\\u00ad"', '"🩵"']
KEYS = ['"a"', '"b"', '"has_answer"', '"c\\u00e9"', '"a"', '""', '"\\ud800"', '"role"']


def val(rng, d):
    r = rng.random()
    if d > 2 or r < 0.4:
        return rng.choice(NUMS)
    if r < 0.7:
        return rng.choice(STRS)
    if r < 0.75:
        return rng.choice(["true", "false", "null"])
    sp = rng.choice(["", " ", "\n  ", "\t"])
    if r < 0.87:
        return "[" + sp + ("," + sp).join(val(rng, d + 1) for _ in range(rng.randrange(0, 4))) + sp + "]"
    keys = [rng.choice(KEYS) for _ in range(rng.randrange(0, 4))]
    return "{" + sp + ("," + sp).join(k + sp + ":" + sp + val(rng, d + 1) for k in keys) + sp + "}"


def drop(x):
    if isinstance(x, dict):
        return {k: drop(w) for k, w in x.items() if k != "has_answer"}
    if isinstance(x, list):
        return [drop(w) for w in x]
    return x


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=1000)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    for _ in range(a.n):
        raw = val(rng, 0)
        v = json.loads(raw)
        print(json.dumps({"raw": raw, "dumps": json.dumps(v), "dumps_drop": json.dumps(drop(v)),
                          "str": json.dumps(v if isinstance(v, str) else str(v))}))


if __name__ == "__main__":
    main()
