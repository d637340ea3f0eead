#!/usr/bin/env python3
"""Check the summary's aggregates against the figures the benchmarks' own evaluation scripts print,
run as their users run them, on real questions and a made-up system's answers:

    git --git-dir SQuAD-explorer/.git show HEAD:evaluate-v2.0.py > /tmp/official/evaluate-v2.0.py
    git --git-dir cmrc2018/.git show c0eb1b6:baseline/cmrc2018_evaluate.py > /tmp/official/cmrc2018_evaluate.py
    git --git-dir cmrc2018/.git show c0eb1b6:squad-style-data/cmrc2018_dev.json > /tmp/official/cmrc2018_dev.json
    git --git-dir hotpot/.git show HEAD:hotpot_evaluate_v1.py > /tmp/official/hotpot_evaluate_v1.py
    (evaluate-v1.1.py, from SQuAD's site, to /tmp/official/evaluate-v1.1.py too)
    /usr/bin/python3 scripts/official-aggregates.py --official /tmp/official \\
        --hotpot-data ../shared/data/hotpotqa/hotpotqa_train_sample200.jsonl --seed 1

It writes, into a temporary folder, a dataset and an official prediction file for each benchmark,
runs the script on them and `qa-load --predictions PRED DATA | qa-score --metrics M --bootstrap 0
--summary -`, and prints each figure on both sides, "ok" or "DIFF" (exit code 1 when any differ):

  SQuAD v1.1 (evaluate-v1.1.py): exact_match and f1, 100 times the em and f1 means under
    --missing-as-zero, and the number of questions, their count; the script's "Unanswered
    question" lines, the summary's missing_as_zero.
  SQuAD v2.0 (evaluate-v2.0.py, without --na-prob-file): exact, f1 and total, and the HasAns_ and
    NoAns_ ones, from squad2_em and squad2_f1 overall and in the types has_answer and no_answer.
    Every question has an answer in the file, the empty one for many unanswerable questions: the
    script stops on a missing one (KeyError).
  CMRC 2018 (cmrc2018_evaluate.py v6): F1, EM and AVERAGE as the script prints them ("%.3f" of 100
    times cmrc_f1's and cmrc_em's means under --missing-as-zero, and of their mean), TOTAL their
    count and SKIP the summary's missing_as_zero. The script's nltk.word_tokenize is NLTK 3.8's
    with the Punkt parameters of pkg/textnorm/testdata/nltk_english.py, as in
    scripts/cmrc-facts.py.
  HotpotQA (hotpot_evaluate_v1.py): the twelve figures eval() prints, the means of --metrics hotpot
    under --missing-as-zero, and each count the number of gold questions (its ujson import is
    served by the standard json module).

The questions are HotpotQA's (--hotpot-data, JSON Lines or one JSON list) for SQuAD, laid out as
SQuAD's files are, a passage of each question's first two paragraphs, 1 to 3 questions a passage,
1 to 3 answers each; in v2.0 about 30% unanswerable (answers [], is_impossible true) and 3%
answerable with an answer SQuAD's normalisation empties ("The", "."), and about 5% without
is_impossible and 5% with it saying the opposite of the answers (the script reads the answers
alone; the file's "version": "2.0" before "data" makes qa-load read all as v2.0's); and CMRC 2018's first
--cmrc-articles articles of --cmrc-data. The answers are the gold, recased, punctuated, cut or
padded with words of the passage, a random span of it, empty, one of "the", ".", " ", "yes",
"no", "noanswer", or missing (about 10%); CMRC's also a number, true or null, which its script
reads as str() does; HotpotQA's facts the gold's with one dropped, one added, none or repeated,
each side missing for about 10% of the questions.

Debian 12's /usr/bin/python3 (3.11) with python3-numpy and python3-nltk (3.8) runs the scripts;
none of them is part of qapipe (SQuAD: CC BY-SA 4.0; CMRC 2018: CC BY-SA 4.0; HotpotQA:
Apache-2.0).
"""
import argparse
import ast
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable


def perturb(rng, ans, words):
    r = rng.random()
    if r < 0.12:
        return ""
    if r < 0.2:
        return " ".join(rng.sample(words, min(len(words), rng.randint(1, 6))))
    if r < 0.3:
        return "The " + ans + "."
    if r < 0.4:
        return ans.upper()
    if r < 0.5:
        w = ans.split()
        return " ".join(w[:-1]) if len(w) > 1 else ans + " " + rng.choice(words)
    if r < 0.55:
        return rng.choice(["the", ".", " ", "a an", "yes", "no", "noanswer"])
    if r < 0.65:
        return ans + " " + " ".join(rng.sample(words, min(len(words), 3)))
    return ans


def passage_words(h):
    return " ".join("".join(s) for _, s in h["context"][:2]).split() or ["x"]


def write_squad(rng, hot, version, d):
    data, preds = [], {}
    for h in hot:
        ctx = " ".join("".join(s) for _, s in h["context"][:2])
        words = passage_words(h)
        qas = []
        for k in range(rng.randint(1, 3)):
            qid = "%s_%d" % (h["_id"], k)
            ans = [h["answer"]] + [perturb(rng, h["answer"], words) for _ in range(rng.randint(0, 2))]
            ans = [a for a in ans if a] or [h["answer"]]
            q = {"id": qid, "question": h["question"], "answers": [{"text": a, "answer_start": 0} for a in ans]}
            r = rng.random()
            if version == "2.0":
                q["is_impossible"] = r < 0.3
                if r < 0.3:
                    q["answers"] = []
                    q["plausible_answers"] = [{"text": h["answer"], "answer_start": 0}]
                elif r < 0.33:
                    q["answers"] = [{"text": rng.choice(["The", ".", "a", "an!"]), "answer_start": 0}]
                f = rng.random()
                if f < 0.05:
                    del q["is_impossible"]  # the script goes by the answers alone
                elif f < 0.1:
                    q["is_impossible"] = not q["is_impossible"]
            qas.append(q)
            m = rng.random()
            if version == "1.1" and m < 0.1:
                continue
            preds[qid] = "" if not q["answers"] and m < 0.5 else perturb(rng, h["answer"], words)
        data.append({"title": h["question"][:20], "paragraphs": [{"context": ctx, "qas": qas}]})
    data_path, pred_path = os.path.join(d, "squad%s.json" % version), os.path.join(d, "squad%s_pred.json" % version)
    with open(data_path, "w", encoding="utf-8") as f:
        json.dump({"version": version, "data": data}, f, ensure_ascii=False)
    with open(pred_path, "w", encoding="utf-8") as f:
        json.dump(preds, f, ensure_ascii=False)
    return data_path, pred_path


def write_cmrc(rng, path, articles, d):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    data["data"] = data["data"][:articles]
    preds = {}
    for a in data["data"]:
        for p in a["paragraphs"]:
            ctx = p["context"]
            for q in p["qas"]:
                m, g = rng.random(), rng.choice(q["answers"])["text"]
                if m < 0.1:
                    continue
                elif m < 0.18:
                    preds[q["id"]] = ""
                elif m < 0.3:
                    s = rng.randrange(len(ctx))
                    preds[q["id"]] = ctx[s:s + rng.randint(1, 15)]
                elif m < 0.4:
                    preds[q["id"]] = g + "。"
                elif m < 0.5:
                    preds[q["id"]] = g[1:] if len(g) > 1 else g + "的"
                elif m < 0.55:
                    preds[q["id"]] = "The " + g + " Mr. Smith's"
                elif m < 0.6:
                    preds[q["id"]] = "  " + g.upper() + "\n"
                elif m < 0.62:
                    preds[q["id"]] = rng.choice([2018, 1.5, None, True])
                else:
                    preds[q["id"]] = g
    data_path, pred_path = os.path.join(d, "cmrc.json"), os.path.join(d, "cmrc_pred.json")
    with open(data_path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)
    with open(pred_path, "w", encoding="utf-8") as f:
        json.dump(preds, f, ensure_ascii=False)
    return data_path, pred_path


def write_hotpot(rng, hot, d):
    ans, sp = {}, {}
    for h in hot:
        if rng.random() > 0.1:
            ans[h["_id"]] = perturb(rng, h["answer"], passage_words(h))
        if rng.random() > 0.1:
            facts, r = [list(f) for f in h["supporting_facts"]], rng.random()
            if r < 0.2:
                facts = facts[:-1]
            elif r < 0.4:
                facts.append([h["context"][0][0], 0])
            elif r < 0.5:
                facts = []
            elif r < 0.6:
                facts = facts + facts
            sp[h["_id"]] = facts
    data_path, pred_path = os.path.join(d, "hotpot.json"), os.path.join(d, "hotpot_pred.json")
    with open(data_path, "w", encoding="utf-8") as f:
        json.dump(hot, f, ensure_ascii=False)
    with open(pred_path, "w", encoding="utf-8") as f:
        json.dump({"answer": ans, "sp": sp}, f, ensure_ascii=False)
    return data_path, pred_path


class Check:
    def __init__(self, bin_dir):
        self.bin, self.differ, self.compared = bin_dir, 0, 0

    def summary(self, data, pred, metrics, extra=()):
        load = subprocess.run([os.path.join(self.bin, "qa-load"), "--predictions", pred, data], capture_output=True)
        if load.returncode != 0:
            sys.exit("qa-load: exit %d\n%s" % (load.returncode, load.stderr.decode()))
        run = subprocess.run([os.path.join(self.bin, "qa-score"), "--metrics", metrics, "--bootstrap", "0", "--summary", "-"]
                             + list(extra), input=load.stdout, capture_output=True)
        if run.returncode != 0:
            sys.exit("qa-score: exit %d\n%s" % (run.returncode, run.stderr.decode()))
        return json.loads(run.stdout)

    def same(self, name, want, got, scale=1.0):
        got = None if got is None else got * scale
        ok = got is not None and abs(want - got) <= 1e-9 * max(1.0, abs(want))
        self.report(name, want, got, ok)

    def report(self, name, want, got, ok):
        self.compared += 1
        self.differ += not ok
        print("%-4s %-30s official %-22r qapipe %r" % ("ok" if ok else "DIFF", name, want, got))


def stat(s, group, metric, field="mean"):
    node = s["overall"] if group == "overall" else s.get("by_type", {}).get(group, {})
    v = node.get("metrics", {}).get(metric)
    return None if v is None else v[field]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--official", required=True,
                    help="folder of evaluate-v1.1.py, evaluate-v2.0.py, cmrc2018_evaluate.py, hotpot_evaluate_v1.py "
                         "and cmrc2018_dev.json (the squad-style one)")
    ap.add_argument("--hotpot-data", required=True, help="HotpotQA questions (JSON Lines or one JSON list)")
    ap.add_argument("--cmrc-data", help="CMRC 2018's squad-style dev file (default: OFFICIAL/cmrc2018_dev.json)")
    ap.add_argument("--cmrc-articles", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "bin"), help="folder of qa-load and qa-score")
    args = ap.parse_args()
    off = args.official
    with open(args.hotpot_data, encoding="utf-8") as f:
        text = f.read()
    hot = json.loads(text) if text.lstrip().startswith("[") else [json.loads(l) for l in text.splitlines() if l.strip()]
    rng = random.Random(args.seed)
    c = Check(args.bin)
    with tempfile.TemporaryDirectory(prefix="official-aggregates-") as d:
        data, pred = write_squad(rng, hot, "1.1", d)
        r = subprocess.run([PY, os.path.join(off, "evaluate-v1.1.py"), data, pred], capture_output=True, text=True, check=True)
        figures = json.loads(r.stdout)
        s = c.summary(data, pred, "em,f1", ["--missing-as-zero"])
        c.same("v1.1 exact_match", figures["exact_match"], stat(s, "overall", "em"), 100)
        c.same("v1.1 f1", figures["f1"], stat(s, "overall", "f1"), 100)
        with open(data, encoding="utf-8") as f:
            total = sum(len(p["qas"]) for a in json.load(f)["data"] for p in a["paragraphs"])
        c.same("v1.1 questions", total, stat(s, "overall", "em", "count"))
        c.same("v1.1 unanswered", r.stderr.count("Unanswered question"), s.get("missing_as_zero", 0))

        data, pred = write_squad(rng, hot, "2.0", d)
        r = subprocess.run([PY, os.path.join(off, "evaluate-v2.0.py"), data, pred], capture_output=True, text=True, check=True)
        figures = json.loads(r.stdout)
        s = c.summary(data, pred, "squad2_em,squad2_f1")
        for prefix, group in (("", "overall"), ("HasAns_", "has_answer"), ("NoAns_", "no_answer")):
            c.same("v2.0 %sexact" % prefix, figures[prefix + "exact"], stat(s, group, "squad2_em"), 100)
            c.same("v2.0 %sf1" % prefix, figures[prefix + "f1"], stat(s, group, "squad2_f1"), 100)
            c.same("v2.0 %stotal" % prefix, figures[prefix + "total"], stat(s, group, "squad2_em", "count"))

        data, pred = write_cmrc(rng, args.cmrc_data or os.path.join(off, "cmrc2018_dev.json"), args.cmrc_articles, d)
        wrap = ("import sys, runpy, nltk\n"
                "sys.path.insert(0, %r)\n"
                "from nltk_english import word_tokenize\n"
                "nltk.word_tokenize = word_tokenize\n"
                "sys.argv = sys.argv[1:]\n"
                "runpy.run_path(sys.argv[0], run_name='__main__')\n") % os.path.join(HERE, "..", "pkg", "textnorm", "testdata")
        r = subprocess.run([PY, "-c", wrap, os.path.join(off, "cmrc2018_evaluate.py"), data, pred],
                           capture_output=True, text=True, check=True)
        figures = json.loads(r.stdout)
        s = c.summary(data, pred, "cmrc_em,cmrc_f1", ["--missing-as-zero"])
        em, f1 = stat(s, "overall", "cmrc_em"), stat(s, "overall", "cmrc_f1")
        for name, v in (("F1", f1), ("EM", em), ("AVERAGE", (em + f1) / 2)):
            got = "%.3f" % (100 * v)
            c.report("cmrc " + name, figures[name], got, got == figures[name])
        c.same("cmrc TOTAL", figures["TOTAL"], stat(s, "overall", "cmrc_em", "count"))
        c.same("cmrc SKIP", figures["SKIP"], s.get("missing_as_zero", 0))

        data, pred = write_hotpot(rng, hot, d)
        shim = os.path.join(d, "shim")
        os.mkdir(shim)
        with open(os.path.join(shim, "ujson.py"), "w") as f:
            f.write("from json import *\n")
        r = subprocess.run([PY, os.path.join(off, "hotpot_evaluate_v1.py"), pred, data], capture_output=True, text=True,
                           check=True, env=dict(os.environ, PYTHONPATH=shim))
        figures = ast.literal_eval(r.stdout.strip().splitlines()[-1])
        s = c.summary(data, pred, "hotpot", ["--missing-as-zero"])
        for k, v in figures.items():
            name = k if k.startswith(("sp_", "joint_")) else "hotpot_" + k
            c.same("hotpot " + k, v, stat(s, "overall", name))
            c.same("hotpot %s count" % k, len(hot), stat(s, "overall", name, "count"))
    print("%d figures compared, %d differ" % (c.compared, c.differ))
    sys.exit(1 if c.differ else 0)


if __name__ == "__main__":
    main()
