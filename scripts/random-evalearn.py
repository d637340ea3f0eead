#!/usr/bin/env python3
"""Random EvaLearn results files and judge replies, scored by EvaLearn's own evaluate_metric.py,
for a differential check of qa-load --format evalearn-results | qa-learncurve:

    scripts/random-evalearn.py --evalearn EvaLearn/Evaluate/evaluate_metric.py \\
        --cases 200 --seed 1 --out /tmp/evalearn-random
    ../shared/tools/check-learncurve --golden /tmp/evalearn-random --bin bin

    scripts/random-evalearn.py --evalearn EvaLearn/Evaluate/evaluate_metric.py \\
        --replies 20000 --seed 1 > /tmp/replies.jsonl

--cases writes case folders in the layout of the golden set: results.json (the JSON array the
original reads), results.jsonl (the same records, one per line, written with the same JSON text),
report_M{M}_K{K}.json and .stdout.txt (what the original wrote and printed, run as
`python evaluate_metric.py --results results.json --problems M --warmup K --output report_M{M}_K{K}.json`
in the case folder). Each case draws M (1-9), K (0 to M+1), sequences of 1 to 10 made-up task types
and edits them the ways results files go wrong: shuffled, dropped and duplicated records,
positions missing or beyond M, positions and sequence ids written as 3.0, 3e0, "3", true, -0,
string ids beside numeric ones, records without type, sequence_id or position, types that are
"", numbers (1, 1.0 and true are one type) or null, and judge replies of every shape the reply
generator makes, or not strings at all.

--replies writes {"reply": ..., "outcome": 0|1} lines: replies built to steer the reply rule
(fenced JSON by Python's json grammar, the inline {"answer_score": N} pattern with Unicode
digits and spaces, numbers, booleans, strings, NaN, Infinity, escapes, broken JSON), each scored
by loading it into the original's EvaLearnMetrics as a sequence of one problem.

It needs the original script (https://github.com/ByteDance-Seed/EvaLearn, Apache-2.0, not part
of qapipe) and what it imports: numpy, pandas, scikit-learn (Debian: python3-numpy
python3-pandas python3-sklearn, run with /usr/bin/python3).
"""
import argparse
import contextlib
import importlib.util
import io
import json
import logging
import os
import random
import subprocess
import sys
import tempfile

NUMBER_TYPES = ["1", "1.0", "true", "2", "2.5", "-3", "1e2", "100", "99999999999999999999", "0", "false",
                "-0.0", "1e400", "0.1"]
TYPES = ["Logic", "Maths", "Extraction", "Summaries", "Reading", "Ordering", "Données", "排序", "a b"]

SPACES = [" ", "\t", "\n", "\r", "\u00a0", "\u2003", "\u3000", "\x1c", "\x1f", "\x85", "\x0b", "\x0c"]
DIGITS = ["0", "1", "2", "7", "00", "01", "10", "٣", "٠", "۱", "߀", "१", "０", "１", "𝟎", "𝟏", "𝟙", "²", "①", "Ⅰ"]


def score_literal(rng):
    """A JSON value for answer_score, as text; some of them are not valid JSON."""
    return rng.choice([
        "1", "0", "2", "-1", "-0", "0.0", "-0.0", "0.5", "1e-400", "1e400", "-1e400", "1E2", "1e+0",
        "true", "false", "null", '"1"', '"0"', "[1]", "{}", '{"answer_score": 1}', "NaN", "Infinity",
        "-Infinity", "01", "1.", ".5", "+1", "- 1", "0x1", "1_0", "99999999999999999999999", "-",
        "4.9e-324", "-4.9e-324", "2.5e-324", "1e-324", "tru", "nan", "inf", '"\\u0031"',
    ])


def fenced_json(rng):
    key = rng.choice(['"answer_score"', '"answer_score"', '"answer_score"', '"answer\\u005fscore"',
                      '"Answer_score"', '"answer_score "', "answer_score", "'answer_score'"])
    sep = rng.choice([":", ": ", " : ", ":\n", "：", "=" if rng.random() < 0.1 else ":"])
    members = []
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        members.append(rng.choice(['"reason": "ok"', '"reason": "a\\"b\\n\\u00e9"', '"x": [1, {"y": null}]',
                                   '"r": "\\ud83d\\ude00"', '"r": "\\ud800"', '"r": "\t"', '"r": "\\q"',
                                   '"answer_score": 1', '"answer_score": 0', '"n": -12.5e3']))
    members.insert(rng.randrange(len(members) + 1), key + sep + score_literal(rng))
    if rng.random() < 0.15:
        members = members[:-1]
    body = "{" + rng.choice([", ", ",", ",\n  "]).join(members) + rng.choice(["}", "}", " }", ",}", ""]) + ""
    if rng.random() < 0.08:
        body = rng.choice(["[" + body + "]", '"text"', "1", "", body + " extra", body + body])
    return body


def inline(rng):
    pre = rng.choice(["", "{", '{"answer_score":', "score ", '{"answer_score" : 1} '])
    sp = "".join(rng.choice(SPACES) for _ in range(rng.choice([0, 0, 1, 1, 2, 3])))
    digits = "".join(rng.choice(DIGITS) for _ in range(rng.choice([0, 1, 1, 1, 2, 3])))
    close = rng.choice(["}", "}", "}", " }", "", "}}"])
    lead = rng.choice(['{"answer_score":', '{"answer_score":', '{ "answer_score":', '{"answer_score" :',
                       "{'answer_score':", '{"ANSWER_SCORE":'])
    return pre + lead + sp + digits + close


def reply(rng):
    """One judge reply."""
    kind = rng.random()
    around = lambda s: rng.choice(["", "Verdict: ", "The answer is right.\n", "判定："]) + s + \
        rng.choice(["", "\nDone.", " ```", "\n```json\n{\"answer_score\": 1}\n```"])
    if kind < 0.5:
        pad_l = "".join(rng.choice(SPACES) for _ in range(rng.choice([0, 1, 1, 2])))
        pad_r = "".join(rng.choice(SPACES) for _ in range(rng.choice([0, 1, 1, 2])))
        fence = rng.choice(["```json", "```json", "```json", "```JSON", "``` json", "```json\n```json"])
        end = rng.choice(["```", "```", "\n```", "", "``", "```\n```"])
        return around(fence + pad_l + fenced_json(rng) + pad_r + end)
    if kind < 0.85:
        return around(inline(rng))
    return rng.choice(["", "correct", "answer_score: 1", '{"answer_score": "1"}', "```", "```json",
                       "```json```", '```\n{"answer_score": 1}\n```', '{"answer_score":1}{"answer_score":0}',
                       '{"answer_score":0}{"answer_score":1}', '{"answer_score":1.0}', '{"answer_score":-1}'])


def load_original(path):
    logging.disable(logging.CRITICAL)
    spec = importlib.util.spec_from_file_location("evaluate_metric", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write_replies(args, rng):
    replies = [reply(rng) for _ in range(args.replies)]
    with tempfile.TemporaryDirectory() as tmp:
        cwd = os.getcwd()
        os.chdir(tmp)  # the original logs to evaluation_metrics.log in the working folder
        try:
            mod = load_original(os.path.join(cwd, args.evalearn))
            with open("results.json", "w", encoding="utf-8") as f:
                json.dump([{"sequence_id": i, "position_in_sequence": 1, "type": "t", "gpt4judge": r}
                           for i, r in enumerate(replies)], f)
            with contextlib.redirect_stdout(io.StringIO()):
                outcomes = mod.EvaLearnMetrics("results.json", 1).sequence_outcomes
        finally:
            os.chdir(cwd)
    for i, r in enumerate(replies):
        print(json.dumps({"reply": r, "outcome": outcomes[i][0]}, ensure_ascii=False))


def number(rng, n):
    """n written as a JSON number some other way that Python's dict keys still take as n."""
    forms = [str(n), str(n), str(n), "%d.0" % n, "%de0" % n, "%d.00" % n]
    if n == 1:
        forms += ["true"]
    if n == 0:
        forms += ["false", "-0", "-0.0", "0e5"]
    if n % 10 == 0 and n:
        forms += ["%de1" % (n // 10)]
    return rng.choice(forms)


def make_case(rng):
    m = rng.choice([1, 2, 3, 5, 7, 7, 7, 7, 9])
    k = rng.choice([0, 1, 2, 3, 3, m - 1, m, m + 1])
    k = max(0, k)
    n = rng.choice([1, 2, 3, 8, 20, 40])
    # Types as JSON text. Most cases use names; some use "" among names, numbers (which Python
    # keys by value: 1, 1.0 and true are one type) or null, one kind per case, since the original
    # cannot sort types of different kinds.
    mode = rng.random()
    if mode < 0.15:
        pool = ['""'] + [json.dumps(t) for t in TYPES]
    elif mode < 0.3:
        pool = NUMBER_TYPES
    elif mode < 0.35:
        pool = ["null"]
    else:
        pool = [json.dumps(t) for t in TYPES]
    types = rng.sample(pool, min(len(pool), rng.choice([1, 2, 3, 5, 5, 8, 9, 10])))
    lines = []
    ids = rng.sample(range(0, 60), n)
    for sid in ids:
        typ = rng.choice(types)
        p = rng.random()
        quoted = rng.random() < 0.1  # a string id, a separate sequence from the number
        for pos in range(1, m + 1 + rng.choice([0, 0, 0, 1, 2])):
            if rng.random() < 0.08:
                continue  # missing position
            rec = {}
            if quoted != (rng.random() < 0.03):
                rec["sequence_id"] = json.dumps(str(sid))
            else:
                rec["sequence_id"] = number(rng, sid)
            r = rng.random()
            if r < 0.04:
                rec["position_in_sequence"] = json.dumps(str(pos))
            elif r < 0.06:
                rec["position_in_sequence"] = rng.choice(["%d.5" % pos, "0", "-1", "null", "1e20"])
            else:
                rec["position_in_sequence"] = number(rng, pos)
            r = rng.random()
            if r < 0.03 and (mode < 0.15 or mode >= 0.35):
                pass  # no type: "unknown", a name
            else:
                t = rng.choice(pool) if r < 0.06 else typ
                if t.startswith('"'):  # a name, spelled with or without \u escapes
                    t = json.dumps(json.loads(t), ensure_ascii=rng.random() < 0.5)
                rec["type"] = t
            r = rng.random()
            if r < 0.03:
                pass  # no judge reply
            elif r < 0.06:
                rec["gpt4judge"] = rng.choice(["null", "1", "true", '["```json"]', '{"```json": 1}', "[]"])
            elif rng.random() < 0.7:
                good = rng.random() < p
                rec["gpt4judge"] = json.dumps(
                    "```json\n" + json.dumps({"answer_score": 1 if good else 0}) + "\n```", ensure_ascii=False)
            else:
                rec["gpt4judge"] = json.dumps(reply(rng), ensure_ascii=rng.random() < 0.5)
            if rng.random() < 0.02:
                del rec[rng.choice(["sequence_id", "position_in_sequence"])]
            elif rng.random() < 0.02:
                rec[rng.choice(["sequence_id", "position_in_sequence"])] = "null"
            rec["gpt4res"] = json.dumps("answer %d.%d" % (sid, pos))
            lines.append(rec)
    if rng.random() < 0.5:
        rng.shuffle(lines)
    for _ in range(rng.choice([0, 0, 1, 3])):  # duplicates: a later record wins
        if lines:
            dup = dict(rng.choice(lines))
            dup["gpt4judge"] = json.dumps("```json\n{\"answer_score\": %d}\n```" % rng.randrange(2))
            lines.insert(rng.randrange(len(lines) + 1), dup)
    text = ["{" + ", ".join('"%s": %s' % kv for kv in rec.items()) + "}" for rec in lines]
    return m, k, text


def write_cases(args, rng):
    py = os.path.abspath(args.evalearn)
    os.makedirs(args.out, exist_ok=True)
    made = 0
    while made < args.cases:
        m, k, text = make_case(rng)
        d = os.path.join(args.out, "random%03d" % (made + 1))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "results.json"), "w", encoding="utf-8") as f:
            f.write("[\n" + ",\n".join(text) + "\n]\n")
        with open(os.path.join(d, "results.jsonl"), "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t in text))
        name = "report_M%d_K%d.json" % (m, k)
        run = subprocess.run([sys.executable, py, "--results", "results.json", "--problems", str(m),
                              "--warmup", str(k), "--output", name], cwd=d, capture_output=True, text=True)
        if "ModuleNotFoundError" in run.stderr or "ImportError" in run.stderr:
            # Not a case the original refused: it could not run here at all.
            sys.exit("%s cannot run: %s (it needs numpy, pandas and scikit-learn: Debian's "
                     "python3-numpy, python3-pandas, python3-sklearn; run with /usr/bin/python3)"
                     % (args.evalearn, run.stderr.strip().splitlines()[-1]))
        log = os.path.join(d, "evaluation_metrics.log")
        if os.path.exists(log):
            os.remove(log)
        if run.returncode != 0:
            # The original fails on some inputs (no sequence at all); those are not cases.
            for f in os.listdir(d):
                os.remove(os.path.join(d, f))
            os.rmdir(d)
            continue
        with open(os.path.join(d, name[:-len(".json")] + ".stdout.txt"), "w", encoding="utf-8") as f:
            f.write(run.stdout)
        made += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--evalearn", required=True, help="path of EvaLearn's Evaluate/evaluate_metric.py")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=0)
    ap.add_argument("--out", help="folder for --cases")
    ap.add_argument("--replies", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    if args.replies:
        write_replies(args, rng)
    if args.cases:
        if not args.out:
            ap.error("--cases needs --out")
        write_cases(args, rng)


if __name__ == "__main__":
    main()
