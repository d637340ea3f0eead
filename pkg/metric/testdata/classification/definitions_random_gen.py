#!/usr/bin/python3
"""Write random chunk, ranking, pairwise and perplexity cases, in the golden case format, for a
differential check of pkg/metric:

    pkg/metric/testdata/classification/definitions_random_gen.py --seed 1 --n 200

writes chunk_random.jsonl, ranking_random.jsonl, pairwise_random.jsonl and ppl_random.jsonl
beside this script (--out DIR to put them elsewhere; `QA_DEFS_DIR=DIR/ go test ./pkg/metric -run
Definitions` then checks those). Needs numpy (Debian 12: python3-numpy 1.24.2).

The expected values restate, independently of the Go code, what the references do (see the
golden README): chunks as seqeval's get_entities finds them over the sentences joined by "O"
(ERNIE-kit's ChunkEvaluator), valid tags only; MRR/MAP as the GLUE-style evaluate_mrr and
evaluate_map on sorted(zip(qids, scores, labels), key=(qid, -score)); Pn and pairwise accuracy as
ERNIE-kit's Pn/PairWiseAcc, and propeller's PNRatio for ties skipped (as a float64, like the
golden vectors); perplexity as
ERNIE-kit's Ppl with numpy's mean.
"""
import argparse
import json
import math
import os
import random

import numpy as np

TYPES = ["PER", "LOC", "ORG-X", "\u4eba\u540d", ""]


def split_tag(tag):
    """(prefix, type) of a tag: the first character, and the rest after its first '-'."""
    rest = tag[1:]
    if "-" in rest:
        rest = rest.split("-", 1)[1]
    return tag[0], rest or "_"


def ends(prev, prev_type, cur, cur_type):
    return (prev in "ES" or (prev in "BI" and cur in "BSO")
            or (prev not in "O." and prev_type != cur_type))


def starts(prev, prev_type, cur, cur_type):
    return (cur in "BS" or (prev in "ESO" and cur in "EI")
            or (cur not in "O." and prev_type != cur_type))


def entities(sentences):
    """seqeval's chunks of the sentences joined with an "O" after each, as (type, start, end
    inclusive) over the joined sequence, and where each sentence starts in it."""
    flat, offsets = [], []
    for s in sentences:
        offsets.append(len(flat))
        flat += s + ["O"]
    out, prev, prev_type, begin = [], "O", "", 0
    for i, tag in enumerate(flat + ["O"]):
        cur, cur_type = split_tag(tag)
        if ends(prev, prev_type, cur, cur_type):
            out.append((prev_type, begin, i - 1))
        if starts(prev, prev_type, cur, cur_type):
            begin = i
        prev, prev_type = cur, cur_type
    return out, offsets


def located(sentences):
    """The chunks as [sentence, type, start, end exclusive]."""
    chunks, offsets = entities(sentences)
    out = []
    for typ, b, e in chunks:
        k = max(j for j, off in enumerate(offsets) if off <= b)
        out.append([k, typ, b - offsets[k], e + 1 - offsets[k]])
    return sorted(out, key=lambda c: (c[0], c[2]))


def prf(correct, infer, label):
    p = correct / infer if infer else 0.0
    r = correct / label if label else 0.0
    return p, r, ((2 * p) * r) / (p + r) if correct else 0.0


def chunk_case(rng, i):
    def tag():
        x = rng.random()
        if x < 0.35:
            return "O"
        return rng.choice("BIES") + ("" if rng.random() < 0.1 else "-" + rng.choice(TYPES))
    gold, pred = [], []
    for _ in range(rng.randint(0, 4)):
        g = [tag() for _ in range(rng.randint(0, 8))]
        gold.append(g)
        pred.append([t if rng.random() < 0.6 else tag() for t in g])
    gc, pc = located(gold), located(pred)
    gs, ps = {tuple(c) for c in gc}, {tuple(c) for c in pc}
    types = sorted({c[1] for c in gc} | {c[1] for c in pc})
    per_type = {}
    for t in types:
        g = {c for c in gs if c[1] == t}
        p = {c for c in ps if c[1] == t}
        pp, rr, ff = prf(len(g & p), len(p), len(g))
        per_type[t] = {"label_chunks": len(g), "infer_chunks": len(p), "correct_chunks": len(g & p),
                       "precision": pp, "recall": rr, "f1": ff}
    tokens = sum(len(s) for s in gold)
    same = sum(a == b for gs_, ps_ in zip(gold, pred) for a, b in zip(gs_, ps_))
    p, r, f = prf(len(gs & ps), len(ps), len(gs))
    expected = {"num_label_chunks": len(gs), "num_infer_chunks": len(ps), "num_correct_chunks": len(gs & ps),
                "precision": p, "recall": r, "f1": f, "tokens": tokens,
                "token_accuracy": same / tokens if tokens else None, "per_type": per_type,
                "gold_chunks": gc, "pred_chunks": pc}
    return {"id": "chk-r%04d" % i, "kind": "random_seqeval", "input": {"gold": gold, "pred": pred},
            "params": {"tagging": "mixed"}, "expected": expected}


def ranking_case(rng, i):
    n = rng.randint(1, 20)
    qpool = rng.sample([1, 2, 3, 10, 42] if rng.random() < 0.5 else ["q1", "q2", "Q", "10", "2"], rng.randint(1, 4))
    qids = [rng.choice(qpool) for _ in range(n)]
    labels = [rng.choice([0, 0, 1, 2, -1, 0.5, 0.0, 3]) for _ in range(n)]
    scores = [rng.choice([0.1, 0.5, 0.9, 0.5, 2, -1.5, 0.30000000000000004, 0.3]) for _ in range(n)]
    rows = sorted(zip(qids, scores, labels), key=lambda e: (e[0], -e[1]))
    per = []
    for q in sorted(set(qids)):
        ranked = [lab for qq, _, lab in rows if qq == q]
        rr = next((1.0 / (k + 1) for k, lab in enumerate(ranked) if lab != 0), 0.0)
        hits, s = 0, 0.0
        for k, lab in enumerate(ranked):
            if int(lab) != 0:
                hits += 1
                s += hits / (k + 1)
        per.append({"qid": q, "n": len(ranked), "n_relevant_mrr": sum(1 for lab in ranked if lab != 0),
                    "n_relevant_map": sum(1 for lab in ranked if int(lab) != 0), "rr": rr,
                    "ap": s / hits if hits else 0.0})
    expected = {"num_queries": len(per), "mrr": sum(p["rr"] for p in per) / len(per),
                "map": sum(p["ap"] for p in per) / len(per), "per_query": per}
    return {"id": "rank-r%04d" % i, "kind": "random_glue", "input": {"qids": qids, "labels": labels, "scores": scores},
            "params": {}, "expected": expected}


def pairwise_case(rng, i):
    vals = [0.1, 0.5, 0.5, 0.9, 1, 2, -3, 0.30000000000000004, 0.3]
    if rng.random() < 0.4:
        n = rng.randint(0, 12)
        pos = [rng.choice(vals) for _ in range(n)]
        neg = [rng.choice(vals) for _ in range(n)]
        pairs = list(zip(pos, neg))
        inp = {"pos_scores": pos, "neg_scores": neg}
    else:
        n = rng.randint(1, 15)
        qpool = rng.sample([1, 2, 3] if rng.random() < 0.5 else ["a", "b", "B"], rng.randint(1, 3))
        qids = [rng.choice(qpool) for _ in range(n)]
        labels = [rng.choice([0, 1, 2, 3] if rng.random() < 0.5 else [-1, 1]) for _ in range(n)]
        scores = [rng.choice(vals) for _ in range(n)]
        pairs = []
        for a in range(n):
            for b in range(a + 1, n):
                if qids[a] == qids[b] and labels[a] != labels[b]:
                    hi, lo = (a, b) if labels[a] > labels[b] else (b, a)
                    pairs.append((scores[hi], scores[lo]))
        inp = {"qids": qids, "labels": labels, "scores": scores}
    right = sum(1 for p, q in pairs if p > q)
    wrong = sum(1 for p, q in pairs if p <= q)
    ties = sum(1 for p, q in pairs if p == q)
    pn_inf = wrong == 0
    skipped = wrong - ties
    expected = {"pairs": len(pairs), "right_cnt": right, "wrong_cnt": wrong, "tie_cnt": ties,
                "pn": 128.0 if pn_inf else right / wrong, "pn_inf": pn_inf,
                "pairwise_acc": right / (right + wrong) if pairs else None,
                # The golden README says propeller's float32; its vectors hold the float64
                # ratio (pw-0014: 1/7 = 0.14285714285714285), which is what this keeps.
                "pn_ties_skipped": right / skipped if skipped > 0 else 0.0}
    return {"id": "pw-r%04d" % i, "kind": "random_ernie", "input": inp, "params": {"pn_inf_value": 128.0},
            "expected": expected}


def ppl_case(rng, i):
    n = rng.randint(1, 12)
    counts = [rng.randint(1, 60) for _ in range(n)]
    loss = [round(c * rng.uniform(0, 6), rng.choice([2, 6, 12])) for c in counts]
    mean = float(np.mean(np.array(loss, dtype=np.float64)))
    total = mean * n
    ave = total / sum(counts)
    ppl = math.exp(ave)
    return {"id": "ppl-r%04d" % i, "kind": "random_numpy", "input": {"token_counts": counts, "loss": loss},
            "params": {}, "expected": {"word_count": sum(counts), "mean_loss": mean, "total_loss": total,
                                       "ave_loss": ave, "ppl": ppl, "ppl_int": int(ppl)}}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    for name, make in (("chunk_random.jsonl", chunk_case), ("ranking_random.jsonl", ranking_case),
                       ("pairwise_random.jsonl", pairwise_case), ("ppl_random.jsonl", ppl_case)):
        with open(os.path.join(a.out, name), "w", encoding="utf-8") as f:
            for i in range(a.n):
                f.write(json.dumps(make(rng, i), ensure_ascii=False) + "\n")


main()
