#!/usr/bin/env python3
"""Write testdata/locomo/locomo_conv26_qa.json, the output file LoCoMo's task_eval/evaluate_qa.py
would write (its --out-file) for the shipped conversation and three runs, and beside it
locomo_conv26_qa_stats.json, the stats file it writes with it, for the check that
`qa-load --locomo-model NAME locomo_conv26_qa.json | qa-score --summary -` gives the stats file's
figures (internal/examples/locomo_evaluate_qa_test.go):

    git --git-dir LoCoMo/.git show 3eb6f2c:task_eval/evaluation.py > /tmp/locomo/evaluation.py
    git --git-dir LoCoMo/.git show 3eb6f2c:task_eval/evaluation_stats.py > /tmp/locomo/evaluation_stats.py
    /usr/bin/python3 scripts/locomo-evaluate-qa-output.py --upstream /tmp/locomo

The answers are synthetic (seeded, drawn from the gold: copied, cut, padded, recased, from
another question, empty), no model's: the runs are named model-a, model-b and, as a run with
--use-rag --rag-mode dialog --top-k 5 names its members, model-b_dialog_top_5 (its
<key>_prediction_context, the dia_ids retrieved, drawn too). A category-5 answer is one that
get_cat_5_answer stores (gpt_utils.py): an option, 'Not mentioned in the conversation' or the
question's answer, or the model's reply lowercased and stripped. Each run goes through upstream as
evaluate_qa.py's main() takes it: eval_question_answering(qa, prediction_key) on the
conversation's questions, each score stored round(score, 3) as <key>_f1 (and the recall as
<key>_recall with RAG), the samples dumped (indent=2) and analyze_aggr_acc(data file, out-file,
stats file, key, key + '_f1', rag=...) run on them, which adds the run's figures to the stats file.

The data file is testdata/locomo/locomo_conv26.json with each category-5 question given an
"answer", its adversarial_answer, where it has none: evaluate_qa.py at 3eb6f2c reads qa['answer']
in every category (KeyError on the 444 of locomo10.json's 446 category-5 questions without one),
so a file it wrote holds the questions of a data file that has one.

It needs the original scripts (https://github.com/snap-research/locomo, CC BY-NC 4.0, not part of
qapipe) and what they import: regex, numpy, NLTK 3.8 and tqdm (Debian: python3-regex python3-numpy
python3-nltk python3-tqdm, run with /usr/bin/python3); bert_score, which scores nothing here, is
stubbed.
"""
import argparse
import contextlib
import importlib.util
import io
import json
import os
import random
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(HERE, "..", "testdata", "locomo")
SAMPLE = os.path.join(DIR, "locomo_conv26.json")
RUNS = [("model-a", False, 11), ("model-b", False, 12), ("model-b_dialog_top_5", True, 13)]
NOT_MENTIONED = "Not mentioned in the conversation"


def load_upstream(path):
    """LoCoMo's evaluation.py and evaluation_stats.py, imported from the folder path."""
    stub = types.ModuleType("bert_score")

    def score(*args, **kwargs):
        raise RuntimeError("bert_score is stubbed")
    stub.score = score
    sys.modules["bert_score"] = stub
    mods = []
    for name in ("evaluation", "evaluation_stats"):
        spec = importlib.util.spec_from_file_location(name, os.path.join(path, name + ".py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mods.append(mod)
    return mods


def answer(rng, qa, others):
    """A synthetic answer to qa, as evaluate_qa.py would store it."""
    gold = str(qa["answer"])
    r = rng.random()
    if qa["category"] == 5:
        if r < 0.4:
            return NOT_MENTIONED  # option picked: get_cat_5_answer's answer_key value
        if r < 0.7:
            return qa["answer"]  # the other option
        # a reply that is no option: lowercased and stripped
        return rng.choice(["no information available.", "it is not mentioned in the conversation",
                           "she did not say", gold.lower(), "none"])
    words = gold.split()
    if r < 0.25:
        return gold
    if r < 0.4:
        return " ".join(words[: max(1, len(words) // 2)])
    if r < 0.5:
        return "I think " + gold + ", probably"
    if r < 0.6:
        return gold.upper().replace(" ", ", ")
    if r < 0.7:
        parts = [p.strip() for p in gold.split(",")]
        rng.shuffle(parts)
        return ", ".join(parts)
    if r < 0.9:
        return rng.choice(others)
    if r < 0.95:
        return ""
    return "Not mentioned in the conversation"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", required=True, help="folder holding evaluation.py and evaluation_stats.py")
    ap.add_argument("--out", default=DIR, help="folder to write the two files to")
    args = ap.parse_args()
    ev, st = load_upstream(args.upstream)
    with open(SAMPLE, encoding="utf-8") as f:
        samples = json.load(f)
    for s in samples:
        for qa in s["qa"]:
            if qa["category"] == 5 and "answer" not in qa:
                qa["answer"] = qa["adversarial_answer"]
    others = sorted({str(q["answer"]) for s in samples for q in s["qa"] if q["category"] != 5})
    out_file = os.path.join(args.out, "locomo_conv26_qa.json")
    stats_file = out_file.replace(".json", "_stats.json")
    with tempfile.TemporaryDirectory(prefix="locomo-qa-") as d:
        data_file = os.path.join(d, "locomo_conv26.json")
        with open(data_file, "w", encoding="utf-8") as f:
            json.dump(samples, f)
        out = {}
        for key, rag, seed in RUNS:
            rng = random.Random(seed)
            for s in samples:
                if s["sample_id"] in out:
                    qas = out[s["sample_id"]]["qa"]
                else:
                    qas = [dict(q) for q in s["qa"]]
                    out[s["sample_id"]] = {"sample_id": s["sample_id"], "qa": qas}
                dia_ids = [t["dia_id"] for k, v in s["conversation"].items()
                           if k.startswith("session_") and isinstance(v, list) for t in v]
                for qa in qas:
                    qa[key + "_prediction"] = answer(rng, qa, others)
                    if rag:
                        qa[key + "_prediction_context"] = rng.sample(dia_ids, 5) + rng.sample(qa["evidence"], min(1, len(qa["evidence"])))
                with contextlib.redirect_stdout(io.StringIO()):
                    ems, _, recall = ev.eval_question_answering(qas, key + "_prediction")
                for i, qa in enumerate(qas):
                    qa[key + "_f1"] = round(ems[i], 3)
                    if rag and len(recall) > 0:
                        qa[key + "_recall"] = round(recall[i], 3)
            with open(out_file, "w", encoding="utf-8") as f:
                json.dump(list(out.values()), f, indent=2)
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                st.analyze_aggr_acc(data_file, out_file, stats_file, key, key + "_f1", rag=rag)
    print("wrote %s and %s" % (out_file, stats_file))


if __name__ == "__main__":
    main()
