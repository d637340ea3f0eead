#!/usr/bin/env python3
"""Write random HotpotQA records with the answer, supporting-fact and joint scores that
HotpotQA's own hotpot_evaluate_v1.py gives them, for a differential check of qa-score's
twelve HotpotQA scores (the group hotpot: hotpot_em, hotpot_f1, hotpot_prec, hotpot_recall, and
the sp_ and joint_ scores likewise):

    /usr/bin/python3 scripts/random-hotpot.py --evaluate hotpot/hotpot_evaluate_v1.py \\
        --seed 1 --n 50000 > /tmp/hotpot.jsonl
    QA_HOTPOT_VECTORS=/tmp/hotpot.jsonl go test ./internal/score -run HotpotRandom
    /usr/bin/python3 scripts/random-hotpot.py --evaluate hotpot/hotpot_evaluate_v1.py \\
        --seed 1 --n 5000 --odd 0.5 --check bin/qa-score

Each line is {"record": a qapipe record, "expected": {score name: value}}: the record's answers
hold the one gold answer, prediction.supporting_facts the predicted facts and
meta.supporting_facts the gold ones, as qa-load writes HotpotQA. The values come from the
script's update_answer and update_sp, run on the prediction and the gold as its eval() runs
them, and from eval()'s joint formulas (joint precision and recall the products of the answer's
and the facts', joint F1 their harmonic mean, joint EM the product of the EMs).

The inputs steer the rules: answers glued from pieces that normalise to "yes", "no" or
"noanswer" or nearly (case, punctuation, articles, Python whitespace), and fact lists that repeat
a fact (the script takes them as sets), share titles with other sentence numbers, hold empty,
spaced, non-ASCII or look-alike titles, are empty on either side, or are the gold's shuffled with
a fact added or dropped; predictions are random or the gold answer changed (cased, punctuated,
an article or a piece added, a piece dropped).

--check BIN runs BIN --metrics with the twelve names over the records,
and again with --summary -, and compares each record's scores, and the overall mean and count of
each, to 1e-9, printing the counts and every difference as a JSON line (exit code 1 when any
differ). The means are what the script's eval() prints when it is run on the records written as
its gold and prediction files (eval() divides every sum by the number of gold questions); the
counts must be that number. --aggregates FILE writes eval()'s printed metrics as JSON.

These options draw more, after the draws above (so that a seed gives the records it gave before
when they are left at 0):
  --odd F         a fraction F of the records has its titles replaced, the same on both sides,
                  by ones with quotes, backslashes, line and paragraph separators, NUL, a BOM,
                  NFC/NFD pairs, full-width or long text, and some sentence indices written as
                  floats (1.0, -0.0, 2.0**53) or large integers (2**53 + 1, 2**62) on either
                  side, where Python's tuples still equal the integer's;
  --surrogates F  a fraction F of the records holds titles with a lone surrogate (written as its
                  \\u escape, which qapipe reads as U+FFFD);
  --unreadable F  a fraction F of the records holds a fact that is no [title, integer] pair
                  qapipe can hold, which the script takes as it is: true for 1, "1", null for
                  the title or the index, a list of one or three, a number for a title, an
                  index past 2**63 or a float past 2**53 (qapipe's reader is to refuse them:
                  the record a bad line, its scores differing);
  --missing-sp F  a fraction F of the predictions carries no supporting_facts (eval() prints
                  "missing sp fact" and counts 0 for it, qapipe leaves the record's sp and joint
                  scores out);
  --missing-answer F  a fraction F of the predictions carries no answer, its supporting facts
                  alone, as qa-load --predictions writes an id the file's "sp" has and its
                  "answer" has not (eval() prints "missing answer" and counts 0 for it in the
                  answer's and the joint scores, qapipe leaves those out); one that misses both
                  is a record without a prediction. With either, the summary is run with
                  --missing-as-zero, whose means and counts are to be eval()'s.

It needs the original script (https://github.com/hotpotqa/hotpot, Apache-2.0, not part of
qapipe); its ujson import is served by the standard json module. Python 3.11's standard library
only.
"""
import argparse
import ast
import contextlib
import importlib.util
import io
import json
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import score_check  # noqa: E402

PIECES = ["yes", "no", "noanswer", "Yes.", "NO", "No!", "no-answer", "yes yes", "the", "a", "an", "The",
          "Paris", "paris", "France", "1,000", "1844", "first", "Magazine", "Arthur's", "don't", "-", "  ",
          "\u00a0", "\x1c", "\u3000", "İ", "Σ", "日本", "é", "e\u0301", "no answer", "the yes", "(yes)"]
TITLES = ["Paris", "paris", "Paris ", " Paris", "France", "Arthur's Magazine", "First for Women", "",
          "日本", "a", "A", "Σ", "ς", "e\u0301", "é", "Tab\tTitle", "Emoji 🙂"]


def answer(rng):
    return rng.choice([" ", "", "  "]).join(rng.choice(PIECES) for _ in range(rng.randrange(0, 5)))


def predicted_answer(rng, gold):
    r = rng.random()
    if r < 0.4:
        return answer(rng)
    if r < 0.55:
        return gold
    if r < 0.7:
        return rng.choice([gold.upper(), gold.lower(), gold + ".", "The " + gold, gold + " ,"])
    words = gold.split(" ")
    if r < 0.85 and len(words) > 1:
        words.pop(rng.randrange(len(words)))
    else:
        words.insert(rng.randrange(len(words) + 1), rng.choice(PIECES))
    return " ".join(words)


def facts(rng):
    out = [[rng.choice(TITLES), rng.randrange(0, 6)] for _ in range(rng.randrange(0, 6))]
    if out and rng.random() < 0.3:
        out.append(list(rng.choice(out)))
    if out and rng.random() < 0.3:
        title, _ = rng.choice(out)
        out.append([title, rng.randrange(0, 6)])
    return out


def predicted_facts(rng, gold):
    r = rng.random()
    if r < 0.4:
        return facts(rng)
    pred = [list(f) for f in gold]
    if r < 0.6 and pred:
        pred.pop(rng.randrange(len(pred)))
    elif r < 0.8:
        pred.append([rng.choice(TITLES), rng.randrange(0, 6)])
    rng.shuffle(pred)
    return pred


ODD_TITLES = ['say "hi"', "back\\slash", "\\", "line\u2028sep", "para\u2029sep", "nul\x00", "\ufeffBOM",
              "Caf\u00e9", "Cafe\u0301", "ＰＡＲＩＳ", "PARIS", "x" * 300, "[1, 2]", "a, b", "\x85", "\u200b",
              "\u00a0", " ", "\t", "\U0001F600", "\x7f", "İ", "i\u0307", "ß", "SS", "null", "0"]
SURROGATE_TITLES = ["\ud800", "\udbff", "\udc00", "\udfff", "Paris\ud83d", "Paris\ude00", "\ufffd"]


def odd_facts(rng, gold, pred, titles):
    """gold and pred with their titles mapped to titles (the same on both sides) and some
    sentence indices written in another form that Python's tuples take as the same number."""
    names = {t: rng.choice(titles) for f in gold + pred for t in [f[0]]}

    def index(i):
        r = rng.random()
        if r < 0.2 and abs(i) <= 2**53:  # a float past 2**53 is refused (a second call gets the big one)
            return float(i)
        if r < 0.25:
            return -0.0 if i == 0 else i
        return i
    big = rng.choice([2**53 + 1, 2**62, 2**53, 10**15])
    gold = [[names[t], index(i)] for t, i in gold]
    pred = [[names[t], index(i)] for t, i in pred]
    if rng.random() < 0.2:
        gold.append([rng.choice(titles), big])
        if rng.random() < 0.5:
            pred.append([gold[-1][0], float(big) if big == 2**53 else big])
    return gold, pred


def unreadable_fact(rng, facts):
    """facts with one fact added that is no [title, integer] pair qapipe can hold; often it
    shares the title of another."""
    title = rng.choice(facts)[0] if facts else "Paris"
    bad = rng.choice([[title, True], [title, "1"], [title, None], [title], [title, 1, 2], [1, 1], [None, 0],
                      [title, 2**63], [title, -(2**63) - 1], [title, 2.0**60], [title, 1e300], [title, 1.5]])
    out = [list(f) for f in facts]
    out.insert(rng.randint(0, len(out)), bad)
    return out


def upstream_eval(hotpot, golds, preds):
    """What eval() prints for the gold and prediction files it is given: its metrics, each sum
    divided by the number of gold questions."""
    with tempfile.TemporaryDirectory(prefix="hotpot-") as d:
        gold_file, pred_file = os.path.join(d, "gold.json"), os.path.join(d, "pred.json")
        with open(gold_file, "w") as f:
            json.dump(golds, f)  # ASCII: lone surrogates read back as they were
        with open(pred_file, "w") as f:
            json.dump(preds, f)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            hotpot.eval(pred_file, gold_file)
    return ast.literal_eval(printed.getvalue().splitlines()[-1])


# qa-score's names of the figures eval() prints, in its order, with eval()'s keys
HOTPOT_KEYS = [("hotpot_em", "em"), ("hotpot_f1", "f1"), ("hotpot_prec", "prec"), ("hotpot_recall", "recall"),
               ("sp_em", "sp_em"), ("sp_f1", "sp_f1"), ("sp_prec", "sp_prec"), ("sp_recall", "sp_recall"),
               ("joint_em", "joint_em"), ("joint_f1", "joint_f1"), ("joint_prec", "joint_prec"),
               ("joint_recall", "joint_recall")]
HOTPOT_SCORES = [name for name, _ in HOTPOT_KEYS]


def aggregates(metrics, n):
    """The (name, eval()'s value, getter from qa-score's summary) triples to compare."""
    def stat(name, key):
        return lambda s: s["overall"]["metrics"][name][key]
    out = []
    for name, key in HOTPOT_KEYS:
        out.append((name + " mean", metrics[key], stat(name, "mean")))
        out.append((name + " count", n, stat(name, "count")))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--evaluate", required=True, help="path of hotpot_evaluate_v1.py")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--odd", type=float, default=0.0, help="fraction of records with odd titles and indices")
    ap.add_argument("--surrogates", type=float, default=0.0, help="fraction of records with lone surrogates in titles")
    ap.add_argument("--unreadable", type=float, default=0.0, help="fraction of records with a fact that is no [title, integer] pair")
    ap.add_argument("--missing-sp", type=float, default=0.0, help="fraction of predictions without supporting facts")
    ap.add_argument("--missing-answer", type=float, default=0.0, help="fraction of predictions without an answer")
    ap.add_argument("--check", metavar="BIN", help="run qa-score BIN over the records and compare")
    ap.add_argument("--aggregates", metavar="FILE", help="write the metrics eval() prints to FILE as JSON")
    args = ap.parse_args()
    sys.modules.setdefault("ujson", json)
    spec = importlib.util.spec_from_file_location("hotpot_evaluate_v1", args.evaluate)
    hotpot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hotpot)

    rng = random.Random(args.seed)
    records, expected, golds, preds = [], [], [], {"answer": {}, "sp": {}}
    for i in range(args.n):
        gold = answer(rng)
        pred = predicted_answer(rng, gold)
        gold_sp = facts(rng)
        pred_sp = predicted_facts(rng, gold_sp)
        if args.odd and rng.random() < args.odd:
            gold_sp, pred_sp = odd_facts(rng, gold_sp, pred_sp, ODD_TITLES + TITLES)
        if args.surrogates and rng.random() < args.surrogates:
            gold_sp, pred_sp = odd_facts(rng, gold_sp, pred_sp, SURROGATE_TITLES)
            if pred_sp and rng.random() < 0.5:
                pred_sp[0][0] = rng.choice(SURROGATE_TITLES)
        if args.unreadable and rng.random() < args.unreadable:
            if rng.random() < 0.5:
                gold_sp = unreadable_fact(rng, gold_sp)
            else:
                pred_sp = unreadable_fact(rng, pred_sp)
        missing = args.missing_sp and rng.random() < args.missing_sp
        unanswered = args.missing_answer and rng.random() < args.missing_answer
        metrics = {k: 0 for k in ["em", "f1", "prec", "recall", "sp_em", "sp_f1", "sp_prec", "sp_recall"]}
        em, prec, recall = hotpot.update_answer(metrics, pred, gold)
        sp_em, sp_prec, sp_recall = hotpot.update_sp(metrics, pred_sp, gold_sp)
        joint_prec, joint_recall = prec * sp_prec, recall * sp_recall
        joint_f1 = 2 * joint_prec * joint_recall / (joint_prec + joint_recall) if joint_prec + joint_recall > 0 else 0.
        record = {"schema": 1, "id": f"hotpot-random-{i}", "dataset": "hotpotqa", "question": "q",
                  "answers": [gold], "prediction": {"text": pred, "supporting_facts": pred_sp},
                  "meta": {"supporting_facts": gold_sp}}
        want = {"hotpot_em": float(em), "hotpot_f1": float(metrics["f1"]), "hotpot_prec": float(prec),
                "hotpot_recall": float(recall), "sp_em": float(sp_em), "sp_f1": float(metrics["sp_f1"]),
                "sp_prec": float(sp_prec), "sp_recall": float(sp_recall), "joint_em": float(em) * sp_em,
                "joint_f1": float(joint_f1), "joint_prec": float(joint_prec), "joint_recall": float(joint_recall)}
        golds.append({"_id": record["id"], "answer": gold, "supporting_facts": gold_sp})
        if unanswered:
            del record["prediction"]["text"]
            for k in ["hotpot_em", "hotpot_f1", "hotpot_prec", "hotpot_recall", "joint_em", "joint_f1", "joint_prec", "joint_recall"]:
                del want[k]
        else:
            preds["answer"][record["id"]] = pred
        if missing:
            del record["prediction"]["supporting_facts"]
            for k in ["sp_em", "sp_f1", "sp_prec", "sp_recall", "joint_em", "joint_f1", "joint_prec", "joint_recall"]:
                want.pop(k, None)
        else:
            preds["sp"][record["id"]] = pred_sp
        if not record["prediction"]:
            del record["prediction"]
        records.append(record)
        expected.append(want)
    if args.check:
        metrics = upstream_eval(hotpot, golds, preds)
        bad = score_check.check(args.check, records, expected, ",".join(HOTPOT_SCORES),
                                aggregates(metrics, args.n),
                                summary_args=["--missing-as-zero"] if args.missing_sp or args.missing_answer else [])
        sys.exit(1 if bad else 0)
    if args.aggregates:
        with open(args.aggregates, "w") as f:
            json.dump(upstream_eval(hotpot, golds, preds), f, indent=1, sort_keys=True)
    for record, want in zip(records, expected):
        sys.stdout.write(score_check.record_line({"record": record, "expected": want}))


if __name__ == "__main__":
    main()
