#!/usr/bin/python3
"""Write random cases, in the golden case format, with the values the reference implementations
give them, for a differential check of pkg/metric's classification, ranking and corpus-level
metrics:

    pkg/metric/testdata/classification/random_cases.py --family sklearn --seed 1 --n 300
    pkg/metric/testdata/classification/random_cases.py --family nltk --seed 1 --n 300
    pkg/metric/testdata/classification/random_cases.py --family definitions --seed 1 --n 200

write their files beside this script (--out DIR to put them elsewhere; then
`QA_SKLEARN_DIR=DIR/`, `QA_NLTK_DIR=DIR/` or `QA_DEFS_DIR=DIR/ go test ./pkg/metric -run
'Sklearn|NLTK|Definitions'` checks those). Debian 12 has the golden's versions: python3-sklearn
1.2.1, python3-numpy 1.24.2, python3-nltk 3.8.

--family sklearn: accuracy_prf_sklearn.jsonl and auc_sklearn.jsonl, every value from
scikit-learn itself. The inputs steer the rules of the golden README: int and string labels
(with "", NFC/NFD and code-point order), the labels parameter (absent labels, subsets, any
order, no true sample), zero_division warn/0/1, pos_label on binary, multiclass and absent
classes; ROC scores with ties, near-equal floats, ints, negatives and one-class inputs.

--family nltk: corpus_bleu_nltk.jsonl. The top-level fields are NLTK's corpus_bleu (no
smoothing, auto_reweigh False), modified_precision, closest_ref_length and brevity_penalty;
`gen_eval` restates the golden README's ERNIE-kit _compute_bleu for uniform weights. The corpora
steer the rules: clipping by repeated words, hypotheses shorter than the order, empty
references, equally close references, case and CJK tokens, 1 to 4 orders, uniform or not.

--family definitions: chunk_random.jsonl, ranking_random.jsonl, pairwise_random.jsonl and
ppl_random.jsonl, whose values restate the references apart from the Go code: chunks as
seqeval's get_entities finds them over the sentences joined by "O" (ERNIE-kit's
ChunkEvaluator), valid tags only; MRR/MAP as the GLUE-style evaluate_mrr and evaluate_map on
sorted(zip(qids, scores, labels), key=(qid, -score)); Pn and pairwise accuracy as ERNIE-kit's
Pn/PairWiseAcc, and propeller's PNRatio for ties skipped (as a float64, like the golden
vectors); perplexity as ERNIE-kit's Ppl with numpy's mean.
"""
import argparse
import json
import math
import os
import random
import warnings
from fractions import Fraction

import numpy as np

INT_LABELS = [0, 1, 2, 3, -1, -3, 7, 42, 100, 1000]
STR_LABELS = ["a", "B", "Z", "_", "10", "2", "", "cat", "caf\u00e9", "cafe\u0301", "\u4e2d"]


def py(x):
    """numpy scalars and arrays as plain JSON values."""
    if isinstance(x, np.ndarray):
        return [py(v) for v in x.tolist()]
    if isinstance(x, list):
        return [py(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        return float(x)
    return x


def prf_case(rng, i):
    pool = rng.sample(INT_LABELS if rng.random() < 0.5 else STR_LABELS, rng.randint(1, 5))
    n = rng.randint(1, 30)
    y_true = [rng.choice(pool) for _ in range(n)]
    right = rng.random()
    y_pred = [t if rng.random() < right else rng.choice(pool) for t in y_true]
    if rng.random() < 0.2:  # a class only predicted, or only true
        extra = rng.choice([l for l in (INT_LABELS if isinstance(pool[0], int) else STR_LABELS)])
        (y_pred if rng.random() < 0.5 else y_true)[rng.randrange(n)] = extra
    zd = rng.choice(["warn", 0, 1])
    labels = None
    if rng.random() < 0.4:
        universe = sorted(set(y_true) | set(y_pred) | set(rng.sample(
            INT_LABELS if isinstance(pool[0], int) else STR_LABELS, 2)), key=lambda v: (str(type(v)), v))
        labels = rng.sample(universe, rng.randint(1, len(universe)))
    pos_label = None
    if rng.random() < 0.5:
        pos_label = rng.choice(sorted(set(y_true) | set(y_pred) | {pool[0]}, key=str) +
                               [rng.choice(INT_LABELS if isinstance(pool[0], int) else STR_LABELS)])

    def prfs(**kw):
        return precision_recall_fscore_support(y_true, y_pred, zero_division=zd, **kw)

    p, r, f, _ = prfs(labels=labels, average=None)
    mcm = multilabel_confusion_matrix(y_true, y_pred, labels=labels)
    tp = mcm[:, 1, 1]
    out_labels = labels if labels is not None else sorted(set(y_true) | set(y_pred))
    expected = {
        "accuracy": float(accuracy_score(y_true, y_pred)),
        "per_class": {"labels": out_labels, "tp": py(tp), "predicted": py(tp + mcm[:, 0, 1]),
                      "support": py(tp + mcm[:, 1, 0]), "precision": py(p), "recall": py(r), "f1": py(f)},
    }
    for avg in ("macro", "micro", "weighted"):
        ap, ar, af, _ = prfs(labels=labels, average=avg)
        expected[avg] = {"precision": float(ap), "recall": float(ar), "f1": float(af)}
    mp, mr = expected["macro"]["precision"], expected["macro"]["recall"]
    expected["f1_of_macro_pr"] = 2 * mp * mr / (mp + mr) if mp + mr > 0 else 0.0
    expected["binary"] = None
    if pos_label is not None:
        try:
            bp, br, bf, _ = prfs(average="binary", pos_label=pos_label)
            expected["binary"] = {"precision": float(bp), "recall": float(br), "f1": float(bf)}
        except ValueError:
            pass
    cm_labels = sorted(set(y_true) | set(y_pred))
    expected["cm_labels"] = cm_labels
    expected["confusion_matrix"] = py(confusion_matrix(y_true, y_pred, labels=cm_labels))
    return {"id": "prf-sk%04d" % i, "kind": "random_sklearn",
            "input": {"y_true": y_true, "y_pred": y_pred},
            "params": {"zero_division": zd, "labels": labels, "pos_label": pos_label},
            "expected": expected}


def auc_case(rng, i):
    n = rng.randint(1, 25)
    form = rng.choice(["01", "-11", "str", "int", "one_class"])
    pos_label = None
    if form == "01":
        y_true = [rng.randint(0, 1) for _ in range(n)]
    elif form == "-11":
        y_true = [rng.choice([-1, 1]) for _ in range(n)]
    elif form == "str":
        pool = rng.sample(STR_LABELS, rng.randint(2, 3))
        y_true = [rng.choice(pool) for _ in range(n)]
        pos_label = rng.choice(pool)
    elif form == "int":
        pool = rng.sample(INT_LABELS, rng.randint(2, 3))
        y_true = [rng.choice(pool) for _ in range(n)]
        pos_label = rng.choice(pool)
    else:
        y_true = [rng.choice([0, 1])] * n
    kind = rng.choice(["floats", "ties", "near", "ints", "wide"])
    if kind == "floats":
        y_score = [round(rng.random(), 6) for _ in range(n)]
    elif kind == "ties":
        pool = [round(rng.random(), 2) for _ in range(rng.randint(1, 4))]
        y_score = [rng.choice(pool) for _ in range(n)]
    elif kind == "near":
        y_score = [rng.choice([0.3, 0.1 + 0.2, 0.7, 0.7000000000000001, 1e-17, 0.0]) for _ in range(n)]
    elif kind == "ints":
        y_score = [rng.randint(-3, 3) for _ in range(n)]
    else:
        y_score = [rng.choice([-1e9, -2.5, 0.0, 3.25, 1e12, -1e-300]) for _ in range(n)]
    pos = pos_label if pos_label is not None else 1
    n_pos = sum(1 for y in y_true if y == pos)
    expected = {"n_pos": n_pos, "n_neg": n - n_pos}
    if n_pos == 0 or n_pos == n:
        expected.update({"auc": None, "roc_fpr": None, "roc_tpr": None, "roc_thresholds": None})
    else:
        fpr, tpr, thr = roc_curve(y_true, y_score, pos_label=pos_label, drop_intermediate=True)
        a = float(auc(fpr, tpr))
        assert not math.isnan(a)
        expected.update({"auc": a, "roc_fpr": py(fpr), "roc_tpr": py(tpr), "roc_thresholds": py(thr)})
    return {"id": "auc-sk%04d" % i, "kind": "random_sklearn_" + form + "_" + kind,
            "input": {"y_true": y_true, "y_score": y_score}, "params": {"pos_label": pos_label},
            "expected": expected}


VOCAB = ["the", "The", "cat", "sat", "on", "mat", "a", "dog", "is", "\u732b", "\u5728", ".", ""]


def gen_eval(hyps, refs, n):
    """The golden README's ERNIE-kit _compute_bleu (max_order n), or None when it raises."""
    matches, possible = [0] * n, [0] * n
    for h, rs in zip(hyps, refs):
        for k in range(1, n + 1):
            matches[k - 1] += modified_precision(rs, h, k).numerator
            possible[k - 1] += max(0, len(h) - k + 1)
    tl = sum(len(h) for h in hyps)
    rl = sum(min(len(r) for r in rs) for rs in refs)
    if rl == 0:
        return None
    precisions = [m / p if p > 0 else 0.0 for m, p in zip(matches, possible)]
    ratio = tl / rl
    bp = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / (ratio + 1e-4))
    geo = 0.0
    if min(precisions) > 0:
        s = 0
        for p in precisions:
            s += (1.0 / n) * math.log(p)
        geo = math.exp(s)
    return {"bleu": geo * bp, "precisions": precisions, "bp": bp, "ratio": ratio,
            "translation_length": tl, "reference_length": rl, "matches": matches, "possible_matches": possible}


def bleu_case(rng, i):
    vocab = rng.sample(VOCAB, rng.randint(2, len(VOCAB)))
    n = rng.randint(1, 4)
    if rng.random() < 0.6:
        weights = [1.0 / n] * n
    else:
        raw = [rng.choice([0, 0.1, 0.2, 0.5, 1]) for _ in range(n)]
        if sum(raw) == 0:
            raw[0] = 1
        weights = [w / sum(raw) for w in raw]
    hyps, refs = [], []
    for _ in range(rng.randint(1, 4)):
        h = [rng.choice(vocab) for _ in range(rng.randint(0, 9))]
        rs = []
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.1:
                rs.append([])
            elif rng.random() < 0.6:  # a noisy copy of the hypothesis
                r = [w if rng.random() < 0.7 else rng.choice(vocab) for w in h]
                rs.append(r[:rng.randint(0, len(r) + 1)] + [rng.choice(vocab) for _ in range(rng.randint(0, 2))])
            else:
                rs.append([rng.choice(vocab) for _ in range(rng.randint(0, 9))])
        hyps.append(h)
        refs.append(rs)
    nums, dens = [0] * n, [0] * n
    for h, rs in zip(hyps, refs):
        for k in range(1, n + 1):
            p = modified_precision(rs, h, k)
            nums[k - 1] += p.numerator
            dens[k - 1] += p.denominator
    hyp_len = sum(len(h) for h in hyps)
    ref_len = sum(closest_ref_length(rs, len(h)) for h, rs in zip(hyps, refs))
    if ref_len == 0:
        return None  # the golden corpus has no such case: its ratio is undefined
    expected = {
        "bleu": corpus_bleu(refs, hyps, weights=tuple(weights)),
        "precisions": [float(Fraction(a, b, _normalize=False)) for a, b in zip(nums, dens)],
        "precision_numerators": nums, "precision_denominators": dens,
        "bp": brevity_penalty(ref_len, hyp_len), "hyp_len": hyp_len, "ref_len": ref_len,
        "ratio": hyp_len / ref_len,
        "gen_eval": gen_eval(hyps, refs, n) if weights == [1.0 / n] * n else None,
    }
    return {"id": "bleu-nltk%04d" % i, "kind": "random_nltk",
            "input": {"hypotheses": hyps, "references": refs}, "params": {"weights": weights},
            "expected": expected}


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


def sklearn_files():
    global accuracy_score, auc, confusion_matrix, multilabel_confusion_matrix
    global precision_recall_fscore_support, roc_curve
    from sklearn.metrics import (accuracy_score, auc, confusion_matrix, multilabel_confusion_matrix,
                                 precision_recall_fscore_support, roc_curve)
    return [("accuracy_prf_sklearn.jsonl", prf_case), ("auc_sklearn.jsonl", auc_case)]


def nltk_files():
    global brevity_penalty, closest_ref_length, corpus_bleu, modified_precision
    from nltk.translate.bleu_score import brevity_penalty, closest_ref_length, corpus_bleu, modified_precision
    return [("corpus_bleu_nltk.jsonl", bleu_case)]


def definitions_files():
    return [("chunk_random.jsonl", chunk_case), ("ranking_random.jsonl", ranking_case),
            ("pairwise_random.jsonl", pairwise_case), ("ppl_random.jsonl", ppl_case)]


FAMILIES = {"sklearn": sklearn_files, "nltk": nltk_files, "definitions": definitions_files}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", choices=sorted(FAMILIES), required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    rng = random.Random(a.seed)
    for name, make in FAMILIES[a.family]():
        with open(os.path.join(a.out, name), "w", encoding="utf-8") as f:
            written = 0
            while written < a.n:
                c = make(rng, written)
                if c is not None:  # a corpus whose ratio is undefined (nltk) is drawn again
                    f.write(json.dumps(c, ensure_ascii=False) + "\n")
                    written += 1


main()
