#!/usr/bin/env python3
"""Write random HotpotQA records with the answer, supporting-fact and joint scores that
HotpotQA's own hotpot_evaluate_v1.py gives them, for a differential check of qa-score's
hotpot_em, hotpot_f1, sp_em, sp_f1, joint_em and joint_f1:

    /usr/bin/python3 scripts/random-hotpot.py --evaluate hotpot/hotpot_evaluate_v1.py \\
        --seed 1 --n 50000 > /tmp/hotpot.jsonl
    QA_HOTPOT_VECTORS=/tmp/hotpot.jsonl go test ./internal/score -run HotpotRandom

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

It needs the original script (https://github.com/hotpotqa/hotpot, Apache-2.0, not part of
qapipe); its ujson import is served by the standard json module. Python 3.11's standard library
only.
"""
import argparse
import importlib.util
import json
import random
import sys

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--evaluate", required=True, help="path of hotpot_evaluate_v1.py")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=1000)
    args = ap.parse_args()
    sys.modules.setdefault("ujson", json)
    spec = importlib.util.spec_from_file_location("hotpot_evaluate_v1", args.evaluate)
    hotpot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hotpot)

    rng = random.Random(args.seed)
    for i in range(args.n):
        gold = answer(rng)
        pred = predicted_answer(rng, gold)
        gold_sp = facts(rng)
        pred_sp = predicted_facts(rng, gold_sp)
        metrics = {k: 0 for k in ["em", "f1", "prec", "recall", "sp_em", "sp_f1", "sp_prec", "sp_recall"]}
        em, prec, recall = hotpot.update_answer(metrics, pred, gold)
        sp_em, sp_prec, sp_recall = hotpot.update_sp(metrics, pred_sp, gold_sp)
        joint_prec, joint_recall = prec * sp_prec, recall * sp_recall
        joint_f1 = 2 * joint_prec * joint_recall / (joint_prec + joint_recall) if joint_prec + joint_recall > 0 else 0.
        record = {"schema": 1, "id": f"hotpot-random-{i}", "dataset": "hotpotqa", "question": "q",
                  "answers": [gold], "prediction": {"text": pred, "supporting_facts": pred_sp},
                  "meta": {"supporting_facts": gold_sp}}
        expected = {"hotpot_em": float(em), "hotpot_f1": float(metrics["f1"]), "sp_em": float(sp_em),
                    "sp_f1": float(metrics["sp_f1"]), "joint_em": float(em) * sp_em, "joint_f1": float(joint_f1)}
        print(json.dumps({"record": record, "expected": expected}, ensure_ascii=False))


main()
