#!/usr/bin/python3
"""Write random cases of the classification, ranking and corpus-level golden files, with the values
the reference implementations give them, for a differential check of qa-score. The committed
cases, from the repository's root:

    scripts/random-classification.py --seed 1 --n 250 --out pkg/metric/testdata/classification/random

The golden tests read them after the golden files: pkg/metric checks every expected field of
every case on the functions, internal/score the summary fields qa-score reports, run in-process
on records built from each case it can express. More cases, of another seed or --n:

    scripts/random-classification.py --seed 2 --n 2000 --out /tmp/cls-2
    QA_CLASSIFICATION_GOLDEN=/tmp/cls-2 go test -count=1 \\
        -run '(Classify|AUC|Pairwise|Chunk|Rank|Perplexity|CorpusBLEU)Golden$' ./pkg/metric
    QA_CLASSIFICATION_GOLDEN=/tmp/cls-2 go test -count=1 \\
        -run 'TestGolden(Classification|AUC|Pairwise|Ranking|Chunk|Perplexity|CorpusBLEU)$' ./internal/score

(give that folder as an absolute path).

--out DIR gets the seven files of the golden set, under the golden names (accuracy_prf.jsonl,
auc.jsonl, pairwise.jsonl, chunk.jsonl, ranking.jsonl, corpus_bleu.jsonl, ppl.jsonl), each with
--n cases in the golden record format: {"id", "kind", "input", "params", "expected"}, floats as
Python's repr, counts as integers, null where the reference gives none. Ids are unique per seed
("prf-s1-00042"), so several seeds can be checked side by side. --only FILE writes one file.

Each file cycles through kinds of edge case: the golden files' kinds (their "kind" names, "random"
among them) and a few more, so every kind gets about --n / kinds cases:

  accuracy_prf  int and string labels ("", NFC/NFD, "10" < "2", " 1", emoji), one class, classes
                only predicted or only true, the labels parameter (absent labels, subsets in any
                order, no true sample), zero_division warn/0/1, pos_label on binary, one-class and
                multiclass targets and absent from the data, more than 8 classes, integers that
                float64 cannot tell apart (2^53 and 2^53+1, neighbouring 19-digit ids).
  auc           ties, near-equal floats (0.1+0.2 vs 0.3, nextafter, -0.0 vs 0.0), int scores,
                large and tiny magnitudes, one class present, -1/1 and 0/1 targets, string and
                int targets with pos_label (pos_label 0 included), "01" and "1.0" beside "1"; a
                kind of target meets every kind of score (and the reverse) in some cases.
  pairwise      pairs with ties, all right/wrong/tied, no pair at all, ratios at and around 128;
                groups with one label, single records, graded and -1/1 labels, interleaved qids,
                tied scores, 1.0 beside 1, qids past 2^53, strings of digits and qids apart by
                case alone ("b", "B").
  chunk         BIO, IOB1, IOBES and mixed tags, I- without B-, type changes, B- after I-, runs
                that would continue into the next sentence, bare and hyphenated tags ("B",
                "I-ORG-X", "BPER", "E-"), Unicode and case in types, empty corpora and sentences,
                typed tags with prefixes outside BIESO ("U-PER", "O-LOC", ".-X").
  ranking       relevant at rank k, no relevant record in a query or anywhere, tied scores that
                the input order breaks (-0.0 vs 0.0 too), fractional and negative labels (0.5
                and -0.0 for MRR vs MAP), interleaved string and int qids, one-record queries,
                int qids that float64 cannot tell apart, qids "1", "01" and "-0" beside "0", qids
                apart by case alone.
  corpus_bleu   clipping, closest-length ties, empty hypotheses and references, hypotheses
                shorter than the order, no n-gram overlap of some order, case, CJK characters
                alone and among words with punctuation and the empty token, orders 1-4, uniform
                and other weights (equal ones that are not 1/n, and zeros, among them), every
                segment with an empty reference at each order (gen_eval null).
  ppl           zero loss, one record, one-token records, low and high losses, many records, a
                ppl just under an integer, losses with 2 to 12 decimals.

Where the values come from (all computed here, nothing fetched):
  accuracy_prf  scikit-learn: accuracy_score, precision_recall_fscore_support (average None,
                macro, micro, weighted, binary), multilabel_confusion_matrix (tp, predicted,
                support) and confusion_matrix; a ValueError from the binary call is null.
                f1_of_macro_pr is the README's formula over sklearn's macro P and R.
  auc           scikit-learn roc_curve(drop_intermediate=True) and auc; NaN gives nulls.
  corpus_bleu   NLTK corpus_bleu, modified_precision, closest_ref_length and brevity_penalty.
  ppl           numpy's mean, then the README's formulas.
The README has no library for the rest, so this script restates its definitions in plain
Python: pairwise (ERNIE-kit Pn and PairWiseAcc, propeller PNRatio), chunk (the seqeval rules as
the README spells them, one sentence at a time), ranking (the GLUE-style evaluate_mrr and
evaluate_map; each query's AP is also checked against sklearn's average_precision_score when
its labels are 0/1, it has a relevant record and no tied scores), gen_eval (ERNIE-kit
_compute_bleu) and n_pos/n_neg. pn_ties_skipped is the float64 ratio, as the golden files hold
it (pw-0014: 1/7 = 0.14285714285714285), not rounded to float32.

Cases whose value the README leaves undefined are drawn again: a chunk that would end without a
start in its sentence (possible only with "." and prefixes outside BIESO). Scores, relevance
labels and losses stay where float64 is exact (no integer score past 2^53, which sklearn would
compare as int64 and the README as float64); class labels and qids go past it on purpose.

--verify DIR recomputes the expected values of the golden-format files in DIR and names any case
that differs (to 1e-9; integers, strings and nulls exactly): on the golden set it checks the
restatements above; every one of its 283 cases agrees.

Needs Debian 12's python3-sklearn 1.2.1, python3-numpy 1.24.2 and python3-nltk 3.8, the
versions the golden files name; run it with /usr/bin/python3. The output depends on --seed,
--n and --only alone.
"""
import argparse
import json
import math
import os
import random
import sys
import unicodedata
import warnings
from collections import Counter

import numpy as np

FILES = ["accuracy_prf", "auc", "pairwise", "chunk", "ranking", "corpus_bleu", "ppl"]

INT_LABELS = [0, 1, 2, 3, 5, -1, -3, 7, 10, 42, 99, 100, 1000, 123456789]
# Integers float64 cannot tell apart: 2^53 and 2^53+1, neighbouring 19-digit ids, int64's ends.
BIG_INTS = [2 ** 53, 2 ** 53 + 1, 2 ** 53 + 2, -2 ** 53, -2 ** 53 - 1, 1234567890123456789, 1234567890123456790,
            1234567890123456791, 2 ** 63 - 1, -2 ** 63, 0, 1]
STR_LABELS = ["a", "b", "B", "Z", "_", "10", "2", "1", "01", "-1", "", " 1", "a b", "cat", "Cat",
              "caf\u00e9", unicodedata.normalize("NFD", "caf\u00e9"), "\u4e2d", "\u6b63", "\u8d1f",
              "yes", "Yes", "\uff5a", "\U0001F600", "entailment", "neutral", "contradiction"]


def py(x):
    """numpy scalars and arrays as plain JSON values."""
    if isinstance(x, np.ndarray):
        return [py(v) for v in x.tolist()]
    if isinstance(x, (list, tuple)):
        return [py(v) for v in x]
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


# ---------------------------------------------------------------------------------------------
# accuracy_prf: scikit-learn

def label_pool(rng, k):
    """k distinct labels, all ints or all strings, and the pool they come from."""
    pool = INT_LABELS if rng.random() < 0.5 else STR_LABELS
    return rng.sample(pool, min(k, len(pool))), pool


def noisy(rng, y, pool, right):
    return [t if rng.random() < right else rng.choice(pool) for t in y]


def prf_input(rng, kind):
    """The input and params of an accuracy_prf case of the kind."""
    zd = rng.choice(["warn", 0, 1])
    labels = pos_label = None
    k = rng.randint(2, 5)
    classes, universe = label_pool(rng, k)
    n = rng.randint(1, 40)
    y_true = [rng.choice(classes) for _ in range(n)]
    y_pred = noisy(rng, y_true, classes, rng.random())
    absent = [x for x in universe if x not in classes]
    if kind == "perfect":
        y_pred = list(y_true)
    elif kind == "all_wrong":
        y_pred = [rng.choice([c for c in classes if c != t]) for t in y_true]
    elif kind == "single_class_all_correct":
        y_true = [classes[0]] * n
        y_pred = list(y_true)
        pos_label = rng.choice([classes[0], absent[0], None])
    elif kind == "all_true_only_one_class_binary_pos_absent":
        y_true = [classes[0]] * n
        y_pred = list(y_true)
        pos_label = absent[0]
    elif kind == "single_true_class_mixed_pred":
        y_true = [classes[0]] * n
        y_pred = [rng.choice(classes) for _ in range(n)]
    elif kind == "pred_only_class":
        extra = absent[0]
        y_pred = [extra if rng.random() < 0.2 else p for p in y_pred]
        y_pred[rng.randrange(n)] = extra
    elif kind == "true_only_class":
        extra = absent[0]
        y_true = [extra if rng.random() < 0.2 else t for t in y_true]
        y_true[rng.randrange(n)] = extra
        y_pred = [p if p != extra else classes[0] for p in y_pred]
    elif kind == "labels_param_with_absent_label":
        present = sorted(set(y_true) | set(y_pred))
        labels = present + rng.sample(absent, rng.randint(1, 2))
        rng.shuffle(labels)
    elif kind == "labels_param_subset_unsorted":
        present = sorted(set(y_true) | set(y_pred))
        labels = rng.sample(present, rng.randint(1, len(present)))
        if rng.random() < 0.3:
            labels.append(absent[0])
    elif kind == "labels_param_no_true_samples":
        pool = [x for x in universe if x not in set(y_true)]
        labels = rng.sample(pool, rng.randint(1, 3))
        if rng.random() < 0.5:  # some of them predicted
            y_pred = [rng.choice(labels) if rng.random() < 0.3 else p for p in y_pred]
    elif kind == "binary_pos_label":
        two = classes[:2]
        y_true = [rng.choice(two) for _ in range(n)]
        y_pred = noisy(rng, y_true, two, rng.random())
        pos_label = rng.choice(two)
    elif kind == "binary_average_on_multiclass":
        three = classes[:2] + absent[:1]
        y_true = [rng.choice(three) for _ in range(max(n, 3))]
        y_true[:3] = three
        y_pred = noisy(rng, y_true, three, rng.random())
        pos_label = rng.choice(three + absent[1:2])
    elif kind == "binary_pos_absent":
        two = classes[:rng.randint(1, 2)]
        y_true = [rng.choice(two) for _ in range(n)]
        y_pred = noisy(rng, y_true, two, rng.random())
        pos_label = absent[0]
    elif kind == "one_sample":
        y_true, y_pred = [rng.choice(classes)], [rng.choice(classes)]
        pos_label = rng.choice([y_true[0], y_pred[0], absent[0]])
    elif kind == "string_label_order":
        classes = rng.sample(["10", "2", "1", "01", "-1", "", " 1", "B", "_", "a", "Z", "\uff5a",
                              "\U0001F600", "caf\u00e9", unicodedata.normalize("NFD", "caf\u00e9"),
                              "cafe", "Cafe"], rng.randint(2, 6))
        universe = STR_LABELS + ["cafe", "Cafe"]
        y_true = [rng.choice(classes) for _ in range(n)]
        y_pred = noisy(rng, y_true, classes, rng.random())
    elif kind == "zero_division_rule":
        zd = rng.choice([0, 1])
        present = sorted(set(y_true) | set(y_pred))
        labels = present + rng.sample(absent, rng.randint(1, 3))
    elif kind == "large_int_labels":
        classes = rng.sample(BIG_INTS, rng.randint(2, 6))
        universe = BIG_INTS
        y_true = [rng.choice(classes) for _ in range(n)]
        y_pred = noisy(rng, y_true, classes, rng.random())
    elif kind == "many_classes":
        classes, universe = label_pool(rng, rng.randint(8, 14))
        y_true = [rng.choice(classes) for _ in range(rng.randint(8, 80))]
        y_pred = noisy(rng, y_true, classes, rng.random())
    absent = [x for x in universe if x not in set(y_true) | set(y_pred)]
    # "random" keeps the draw above; some kinds also get a labels list or a pos_label.
    if kind in ("random", "many_classes", "string_label_order", "pred_only_class", "true_only_class",
                "large_int_labels"):
        r = rng.random()
        if r < 0.25:
            some = sorted(set(y_true) | set(y_pred)) + absent[:2]
            labels = rng.sample(some, rng.randint(1, len(some)))
        if rng.random() < 0.4:
            pos_label = rng.choice(sorted(set(y_true) | set(y_pred)) + absent[:1])
    every = y_true + y_pred + (labels or []) + ([] if pos_label is None else [pos_label])
    assert len({type(x) for x in every}) == 1, every  # never ints and strings together
    return {"y_true": y_true, "y_pred": y_pred}, {"zero_division": zd, "labels": labels, "pos_label": pos_label}


def prf_expected(inp, params):
    from sklearn.metrics import (accuracy_score, confusion_matrix, multilabel_confusion_matrix,
                                 precision_recall_fscore_support)
    y_true, y_pred = inp["y_true"], inp["y_pred"]
    zd, labels, pos_label = params["zero_division"], params["labels"], params["pos_label"]

    def prfs(**kw):
        return precision_recall_fscore_support(y_true, y_pred, zero_division=zd, **kw)

    p, r, f, _ = prfs(labels=labels, average=None)
    mcm = multilabel_confusion_matrix(y_true, y_pred, labels=labels)
    mcm = mcm.astype(np.int64)  # sklearn gives float zeros when no label of the list occurs
    tp = mcm[:, 1, 1]
    cm_labels = sorted(set(y_true) | set(y_pred))
    expected = {
        "accuracy": float(accuracy_score(y_true, y_pred)),
        "per_class": {"labels": list(labels) if labels is not None else cm_labels, "tp": py(tp),
                      "predicted": py(tp + mcm[:, 0, 1]), "support": py(tp + mcm[:, 1, 0]),
                      "precision": py(p), "recall": py(r), "f1": py(f)},
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
    expected["cm_labels"] = cm_labels
    expected["confusion_matrix"] = py(confusion_matrix(y_true, y_pred, labels=cm_labels))
    return expected


PRF_KINDS = ["perfect", "all_wrong", "single_class_all_correct", "all_true_only_one_class_binary_pos_absent",
             "single_true_class_mixed_pred", "pred_only_class", "true_only_class",
             "labels_param_with_absent_label", "labels_param_subset_unsorted",
             "labels_param_no_true_samples", "binary_pos_label", "binary_average_on_multiclass",
             "binary_pos_absent", "one_sample", "string_label_order", "zero_division_rule",
             "many_classes", "large_int_labels", "random"]


# ---------------------------------------------------------------------------------------------
# auc: scikit-learn

def auc_scores(rng, n, kind):
    if kind == "all_scores_equal":
        return [rng.choice([0.5, 0.0, -1, 3])] * n
    if kind == "many_ties":
        pool = [round(rng.uniform(-3, 3), 1) for _ in range(rng.randint(1, 5))]
        return [rng.choice(pool) for _ in range(n)]
    if kind == "near_equal_floats":
        base = rng.choice([0.3, 0.7, 1e-3, 1.0, 100.0])
        pool = [base, math.nextafter(base, 2 * base + 1), math.nextafter(base, -1.0), base + 1e-12,
                0.1 + 0.2 if base == 0.3 else base * (1 + 2e-16)]
        return [rng.choice(pool) for _ in range(n)]
    if kind == "float_sum_not_tie":
        return [rng.choice([0.3, 0.1 + 0.2, 0.7, 0.7000000000000001, 0.0, -0.0, 1e-17]) for _ in range(n)]
    if kind == "integer_scores":
        return [rng.randint(-3, 5) for _ in range(n)]
    if kind == "large_or_negative_scores":
        return [rng.choice([float(rng.randint(-3 * 10 ** 9, 3 * 10 ** 9)), -rng.random() * 1e6, 1e300,
                            -1e300, 5e-324, -5e-324, 1e-300, 0.0]) for _ in range(n)]
    if kind == "mixed_int_float":
        return [rng.choice([rng.randint(-2, 2), round(rng.uniform(-2, 2), 1), 1.0, 1]) for _ in range(n)]
    return [round(rng.gauss(0, 1), rng.choice([2, 3, 6])) for _ in range(n)]


def auc_target(rng, n, kind):
    """y_true and pos_label of an auc case of the kind."""
    pools = {"string_labels_pos_label": STR_LABELS, "large_int_labels": BIG_INTS, "int_labels_pos_label": INT_LABELS}
    if kind in pools:
        pool = rng.sample(pools[kind], rng.randint(2, 3))
        return [rng.choice(pool) for _ in range(n)], rng.choice(pool)
    if kind == "numeric_looking_string_labels":  # "01" and "1.0" are not "1"
        pool = ["1"] + rng.sample(["01", "1.0", "+1", "1e0", " 1", "0", "-1", "10"], rng.randint(1, 3))
        return [rng.choice(pool) for _ in range(n)], rng.choice(pool[:1] * 3 + pool)
    if kind == "single_class_pos_label":
        pool, _ = label_pool(rng, 2)
        return [pool[0]] * n, rng.choice(pool)
    if kind == "labels_minus1_plus1":
        return [rng.choice([-1, 1]) for _ in range(n)], None
    if kind == "pos_label_0":
        return [rng.randint(0, 1) for _ in range(n)], 0
    if kind == "single_class_positive":
        return [1] * n, None
    if kind == "single_class_negative":
        return [rng.choice([0, -1])] * n, None
    return [rng.randint(0, 1) for _ in range(n)], None


# The kinds that say what the targets are, and those that say what the scores are. A case draws
# what its kind leaves open by another kind half the time ("random" always), so that targets and
# scores of every kind meet.
AUC_TARGET_KINDS = ["labels_minus1_plus1", "string_labels_pos_label", "numeric_looking_string_labels",
                    "large_int_labels", "int_labels_pos_label", "pos_label_0", "single_class_positive",
                    "single_class_negative", "single_class_pos_label"]
AUC_SCORE_KINDS = ["all_scores_equal", "many_ties", "near_equal_floats", "float_sum_not_tie", "integer_scores",
                   "large_or_negative_scores", "mixed_int_float"]


def auc_input(rng, kind):
    n = rng.randint(2, 40) if rng.random() < 0.8 else rng.randint(41, 300)
    if kind == "two_samples":
        n = 2
    elif kind == "tiny_n":
        n = rng.randint(1, 3)
    target = scores = kind
    if kind not in AUC_TARGET_KINDS and (kind == "random" or rng.random() < 0.5):
        target = rng.choice(AUC_TARGET_KINDS + ["random"])
    if kind not in AUC_SCORE_KINDS and (kind == "random" or rng.random() < 0.5):
        scores = rng.choice(AUC_SCORE_KINDS + ["random"])
    y_true, pos_label = auc_target(rng, n, target)
    y_score = auc_scores(rng, n, scores)
    if kind == "perfect_separation" or kind == "reversed":
        pos = 1 if pos_label is None else pos_label
        y_score = [abs(s) + 10 if (y == pos) == (kind == "perfect_separation") else -abs(s) - 10
                   for s, y in zip(y_score, y_true)]
    return {"y_true": y_true, "y_score": y_score}, {"pos_label": pos_label}


def auc_expected(inp, params):
    from sklearn.metrics import auc, roc_curve
    y_true, y_score, pos_label = inp["y_true"], inp["y_score"], params["pos_label"]
    pos = 1 if pos_label is None else pos_label
    n_pos = sum(1 for y in y_true if y == pos)
    expected = {"n_pos": n_pos, "n_neg": len(y_true) - n_pos}
    fpr, tpr, thr = roc_curve(y_true, y_score, pos_label=pos_label, drop_intermediate=True)
    a = float(auc(fpr, tpr)) if len(fpr) >= 2 else float("nan")
    if math.isnan(a):
        expected.update({"auc": None, "roc_fpr": None, "roc_tpr": None, "roc_thresholds": None})
    else:
        expected.update({"auc": a, "roc_fpr": py(fpr), "roc_tpr": py(tpr), "roc_thresholds": py(thr)})
    return expected


AUC_KINDS = ["float_sum_not_tie", "two_samples", "perfect_separation", "reversed", "all_scores_equal",
             "many_ties", "single_class_positive", "single_class_negative", "single_class_pos_label",
             "labels_minus1_plus1", "string_labels_pos_label", "int_labels_pos_label", "pos_label_0",
             "near_equal_floats", "integer_scores", "mixed_int_float", "large_or_negative_scores",
             "numeric_looking_string_labels", "large_int_labels", "tiny_n", "random"]


# ---------------------------------------------------------------------------------------------
# pairwise: the README's definitions (ERNIE-kit Pn, PairWiseAcc; propeller PNRatio)

SCORE_POOL = [0.1, 0.5, 0.9, 1, 2, -3, 0.3, 0.1 + 0.2, 0.0, -0.0, 1e-300]


def group_pairs(qids, labels, scores):
    """(pos score, neg score) for every two records of a qid with different labels."""
    out = []
    for a in range(len(qids)):
        for b in range(a + 1, len(qids)):
            if qids[a] == qids[b] and labels[a] != labels[b]:
                hi, lo = (a, b) if labels[a] > labels[b] else (b, a)
                out.append((scores[hi], scores[lo]))
    return out


def qid_pool(rng, k, kind=""):
    if kind == "large_int_qids":
        return rng.sample(BIG_INTS, min(k, len(BIG_INTS)))
    if kind == "digit_string_qids":  # strings: "01" is not "1", and "10" < "2"
        return rng.sample(["1", "01", "001", "2", "02", "10", "7", "007", "-1", "0", "-0"], k)
    x = rng.random()
    if x < 0.4:
        return rng.sample(range(-50, 400), k)
    if x < 0.6:  # apart by case alone
        return rng.sample(["a", "A", "b", "B", "q", "Q", "\u00e9", "\u00c9"], k)
    return rng.sample(["q%03d" % i for i in range(1000)] + ["q2", "q10", "Q", "", "\u4e2d", "10", "9"], k)


def pairwise_input(rng, kind):
    if kind.startswith("pairs_") or kind in ("pn_large_ratio", "pn_exactly_128_not_inf", "pn_around_128",
                                             "random_pairs"):
        n = rng.randint(1, 30)
        pos = [rng.choice(SCORE_POOL) if rng.random() < 0.3 else round(rng.gauss(0.5, 0.5), 2) for _ in range(n)]
        neg = [rng.choice(SCORE_POOL) if rng.random() < 0.3 else round(rng.gauss(0.3, 0.5), 2) for _ in range(n)]
        if kind == "pairs_empty":
            pos, neg = [], []
        elif kind == "pairs_all_right":
            neg = [p - abs(x) - 0.5 for p, x in zip(pos, neg)]
        elif kind == "pairs_all_wrong":
            neg = [p + abs(x) + 0.5 for p, x in zip(pos, neg)]
        elif kind == "pairs_all_ties":
            neg = list(pos)
        elif kind == "pairs_with_ties":
            neg = [p if rng.random() < 0.4 else x for p, x in zip(pos, neg)]
        elif kind in ("pn_large_ratio", "pn_exactly_128_not_inf", "pn_around_128"):
            right = {"pn_large_ratio": rng.randint(129, 400), "pn_exactly_128_not_inf": 128}.get(
                kind, rng.choice([127, 128, 129, 256]))
            wrong = 1 if kind != "pn_large_ratio" else rng.randint(1, 3)
            ties = rng.randint(0, wrong)
            pos = [1.0] * right + [0.0] * (wrong - ties) + [0.5] * ties
            neg = [0.0] * right + [1.0] * (wrong - ties) + [0.5] * ties
            order = list(range(len(pos)))
            rng.shuffle(order)
            pos, neg = [pos[i] for i in order], [neg[i] for i in order]
        return {"pos_scores": pos, "neg_scores": neg}, {"pn_inf_value": 128.0}
    n = rng.randint(1, 30)
    qpool = qid_pool(rng, rng.randint(1, 6), kind)
    qids = [rng.choice(qpool) for _ in range(n)]
    if kind not in ("groups_string_qids_interleaved", "random_groups", "large_int_qids", "digit_string_qids"):
        qids.sort(key=lambda q: qpool.index(q))  # adjacent groups
    graded = kind == "groups_graded_labels" or (kind == "random_groups" and rng.random() < 0.4)
    if kind == "groups_labels_minus1_plus1":
        labels = [rng.choice([-1, 1]) for _ in range(n)]
    elif kind == "groups_fractional_labels":
        labels = [rng.choice([0, 0.5, 1, 1.5, -0.5]) for _ in range(n)]
    elif kind == "groups_float_valued_labels":  # 1.0 and 1 are one label: no pair
        labels = [rng.choice([0, 0.0, -0.0, 1, 1.0, 2, 2.0]) for _ in range(n)]
    elif graded:
        labels = [rng.randint(0, 3) for _ in range(n)]
    else:
        labels = [rng.randint(0, 1) for _ in range(n)]
    if kind == "groups_only_one_label_each":
        first = {}
        labels = [first.setdefault(q, rng.randint(0, 1)) for q in qids]
    elif kind == "groups_some_single_label":
        one = set(rng.sample(qpool, max(1, len(qpool) // 2)))
        labels = [1 if q in one else x for q, x in zip(qids, labels)]
        qids.append("lone" if isinstance(qids[0], str) else 9999)  # a group of one record
        labels.append(0)
    if kind == "groups_score_ties":
        scores = [rng.choice([0.0, -0.0, 1.0, 2.0, -1.0, 0.5]) for _ in qids]
    elif kind == "groups_all_right":
        scores = [x * 10 + rng.random() for x in labels]
    else:
        scores = [round(rng.gauss(0, 1), rng.choice([1, 6])) if rng.random() < 0.8 else rng.choice(SCORE_POOL)
                  for _ in qids]
    if kind == "groups_empty":
        qids, labels, scores = [], [], []
    return {"qids": qids, "labels": labels, "scores": scores}, {"pn_inf_value": 128.0}


def pairwise_expected(inp, params):
    if "pos_scores" in inp:
        pairs = list(zip(inp["pos_scores"], inp["neg_scores"]))
    else:
        pairs = group_pairs(inp["qids"], inp["labels"], inp["scores"])
    right = sum(1 for p, q in pairs if p > q)
    wrong = sum(1 for p, q in pairs if p <= q)
    ties = sum(1 for p, q in pairs if p == q)
    skipped = wrong - ties
    expected = {"pairs": len(pairs), "right_cnt": right, "wrong_cnt": wrong, "tie_cnt": ties,
                "pn": right / wrong if wrong else params["pn_inf_value"], "pn_inf": wrong == 0,
                "pairwise_acc": right / (right + wrong) if pairs else None,
                "pn_ties_skipped": right / skipped if skipped > 0 else 0.0}
    return expected


PAIRWISE_KINDS = ["pairs_empty", "pn_exactly_128_not_inf", "pn_around_128", "pairs_all_right",
                  "pairs_all_wrong", "pairs_all_ties", "pairs_with_ties", "pn_large_ratio",
                  "groups_only_one_label_each", "groups_some_single_label", "groups_graded_labels",
                  "groups_string_qids_interleaved", "groups_score_ties", "groups_labels_minus1_plus1",
                  "groups_all_right", "groups_fractional_labels", "groups_float_valued_labels",
                  "large_int_qids", "digit_string_qids", "groups_empty", "random_pairs",
                  "random_groups"]


# ---------------------------------------------------------------------------------------------
# chunk: the README's rules, one sentence at a time

class Undefined(Exception):
    """An input whose value the README does not define; the case is drawn again."""


def split_tag(tag):
    rest = tag[1:]
    if "-" in rest:
        rest = rest.split("-", 1)[1]
    return tag[0], rest or "_"


def sentence_chunks(tags):
    """The chunks of one sentence as (type, start, end exclusive)."""
    out = []
    pt, pty, begin = "O", "", None
    for i, tag in enumerate(tags + ["O"]):
        t, ty = split_tag(tag)
        if pt in "ES" or (pt in "BI" and t in "BSO") or (pt not in "O." and pty != ty):
            if begin is None:
                raise Undefined("chunk %s ends at %d with no start" % (pty, i))
            out.append((pty, begin, i))
            begin = None
        if t in "BS" or (pt in "ESO" and t in "EI") or (t not in "O." and pty != ty):
            begin = i
        pt, pty = t, ty
    return out


def chunk_tag(rng, scheme, types):
    x = rng.random()
    if x < 0.4:
        return "O"
    typ = rng.choice(types)
    prefixes = {"BIO": "BI", "IOB1": "I" * 4 + "B", "IOBES": "BIES", "mixed": "BIES"}[scheme]
    return rng.choice(prefixes) + "-" + typ


def chunk_run(rng, scheme, typ, k, before):
    """The tags of one chunk of k tokens of type typ, in the scheme, after the tags before."""
    if scheme == "IOBES":
        return ["S-" + typ] if k == 1 else ["B-" + typ] + ["I-" + typ] * (k - 2) + ["E-" + typ]
    # IOB1 begins a chunk with I-, and mostly with B- right after another chunk.
    first = "B" if scheme == "BIO" or (before and before[-1] != "O" and rng.random() < 0.8) else "I"
    return [first + "-" + typ] + ["I-" + typ] * (k - 1)


def chunk_sentence(rng, n, scheme, types):
    if scheme not in ("BIO", "IOB1", "IOBES"):
        return [chunk_tag(rng, scheme, types) for _ in range(n)]
    out = []
    while len(out) < n:
        if rng.random() < 0.5:
            out.append("O")
            continue
        typ, k = rng.choice(types), rng.randint(1, 4)
        out += chunk_run(rng, scheme, typ, k, out)
    return out[:n]


def perturb(rng, gold, types, p, odd=()):
    out = []
    for tag in gold:
        if rng.random() >= p:
            out.append(tag)
            continue
        x = rng.random()
        pre, typ = (tag[0], tag[2:]) if len(tag) > 2 else ("O", rng.choice(types))
        if x < 0.25:
            out.append("O")
        elif x < 0.5:
            out.append(rng.choice("BIES") + "-" + typ)
        elif x < 0.75:
            out.append(pre + "-" + rng.choice(types) if pre != "O" else "B-" + rng.choice(types))
        else:
            out.append(rng.choice(list(odd) or ["I-" + typ, "B-" + typ]))
    return out


BASIC_TYPES = ["PER", "LOC", "ORG", "MISC"]


def chunk_input(rng, kind):
    scheme = {"iobes": "IOBES", "iobes_basic": "IOBES", "iob1_both": "IOB1"}.get(kind, "BIO")
    types = list(BASIC_TYPES)
    odd = ()
    if kind == "unicode_and_case_types":
        types = ["\u4eba\u540d", "\u5730\u540d", "\u673a\u6784", "per", "PER", "Per", "caf\u00e9",
                 unicodedata.normalize("NFD", "caf\u00e9")]
    elif kind == "bare_and_hyphenated_tags":
        scheme, types = "mixed", ["ORG-X", "ORG", "X-", "-X", "a-b-c"]
        odd = ("B", "I", "E", "S", "B-", "I-", "E-", "S-", "BPER", "IPER", "B-PER", "Ix-PER", "S-ORG-X", "E")
    elif kind == "prefixes_outside_bieso":
        scheme = "mixed"
        odd = ("U-PER", "L-PER", "M-LOC", "O-PER", "O-LOC", ".-PER", "U", ".", "X-ORG")
    elif kind in ("random", "boundary_and_type_errors", "type_change_inside_i_run",
                  "chunks_never_cross_sentences", "i_without_b_at_start"):
        scheme = rng.choice(["BIO", "IOB1", "IOBES", "mixed"])
    n_sent = rng.randint(1, 5)
    if kind == "empty_corpus":
        n_sent = 0
    gold, pred = [], []
    for _ in range(n_sent):
        n = rng.randint(0, 14) if rng.random() < 0.9 else 0
        if kind == "only_empty_sentences":
            n = 0
        g = chunk_sentence(rng, n, scheme, types)
        if kind in ("all_o", "gold_all_o"):
            g = ["O"] * n
        if odd:
            g = [rng.choice(odd) if rng.random() < 0.3 else t for t in g]
        p = perturb(rng, g, types, {"perfect": 0.0, "all_o": 0.0}.get(kind, rng.choice([0.1, 0.3, 0.6])), odd)
        if kind == "pred_all_o":
            p = ["O"] * n
        elif kind == "all_o":
            p = ["O"] * n
        elif kind == "bio_gold_iob1_pred_same_spans":
            g = chunk_sentence(rng, n, "BIO", types)
            p = [("I" + t[1:] if t[0] == "B" and (i == 0 or g[i - 1] == "O" or g[i - 1][2:] != t[2:]) else t)
                 for i, t in enumerate(g)]
        elif kind == "i_after_o_starts_chunk" or kind == "i_without_b_at_start":
            p = ["I" + t[1:] if t[0] == "B" else t for t in p]
        elif kind == "type_change_inside_i_run":
            p = [t[:2] + rng.choice(types) if t[0] == "I" and rng.random() < 0.5 else t for t in p]
        elif kind == "b_after_i_same_type_splits":
            p = ["B" + t[1:] if t[0] == "I" and rng.random() < 0.4 else t for t in p]
        elif kind == "chunks_never_cross_sentences" or kind == "continuation_across_sentences":
            if gold and gold[-1] and g and rng.random() < 0.8:
                last = gold[-1][-1]
                if last != "O" and len(last) > 2:
                    g[0] = "I" + last[1:]
                    p[0] = "I" + last[1:]
        elif kind == "some_empty_sentences" and rng.random() < 0.5:
            g, p = [], []
        gold.append(g)
        pred.append(p)
    return {"gold": gold, "pred": pred}, {"tagging": scheme}


def chunk_expected(inp, params):
    gold, pred = inp["gold"], inp["pred"]

    def located(sents):
        return [[k, typ, b, e] for k, s in enumerate(sents) for typ, b, e in sentence_chunks(s)]

    gc, pc = located(gold), located(pred)
    gs, ps = {tuple(c) for c in gc}, {tuple(c) for c in pc}

    def prf(correct, infer, label):
        p = correct / infer if infer else 0.0
        r = correct / label if label else 0.0
        return p, r, ((2 * p) * r) / (p + r) if correct else 0.0

    per_type = {}
    for typ in sorted({c[1] for c in gc} | {c[1] for c in pc}):
        g = {c for c in gs if c[1] == typ}
        p = {c for c in ps if c[1] == typ}
        pp, rr, ff = prf(len(g & p), len(p), len(g))
        per_type[typ] = {"label_chunks": len(g), "infer_chunks": len(p), "correct_chunks": len(g & p),
                         "precision": pp, "recall": rr, "f1": ff}
    tokens = sum(len(s) for s in gold)
    same = sum(a == b for gsent, psent in zip(gold, pred) for a, b in zip(gsent, psent))
    p, r, f = prf(len(gs & ps), len(ps), len(gs))
    expected = {"num_label_chunks": len(gs), "num_infer_chunks": len(ps), "num_correct_chunks": len(gs & ps),
                "precision": p, "recall": r, "f1": f, "tokens": tokens,
                "token_accuracy": same / tokens if tokens else None, "per_type": per_type,
                "gold_chunks": gc, "pred_chunks": pc}
    return expected


CHUNK_KINDS = ["empty_corpus", "only_empty_sentences", "i_without_b_at_start", "type_change_inside_i_run",
               "continuation_across_sentences", "bare_and_hyphenated_tags", "iobes_basic", "perfect",
               "bio_gold_iob1_pred_same_spans", "i_after_o_starts_chunk", "type_change_splits_chunk",
               "b_after_i_same_type_splits", "iob1_both", "some_empty_sentences", "all_o", "pred_all_o",
               "gold_all_o", "chunks_never_cross_sentences", "iobes", "unicode_and_case_types",
               "boundary_and_type_errors", "prefixes_outside_bieso", "random"]


# ---------------------------------------------------------------------------------------------
# ranking: the README's definitions (GLUE-style evaluate_mrr / evaluate_map)

def ranking_input(rng, kind):
    nq = rng.randint(1, 6)
    if kind == "string_qids_interleaved":
        qpool = rng.sample(["q%03d" % i for i in range(1000)] + ["q2", "q10", "Q", "", "10", "9"], nq)
    else:
        qpool = qid_pool(rng, nq, kind)
    sizes = [1 if kind == "single_item_queries" else rng.randint(1, 8) for _ in qpool]
    qids = [q for q, k in zip(qpool, sizes) for _ in range(k)]
    if kind in ("string_qids_interleaved", "random", "large_int_qids", "digit_string_qids") and rng.random() < 0.7:
        rng.shuffle(qids)
    n = len(qids)
    labels = [1 if rng.random() < 0.3 else 0 for _ in range(n)]
    scores = [round(rng.gauss(0, 1), rng.choice([1, 2, 6])) for _ in range(n)]
    if kind == "no_relevant_anywhere" or kind == "no_query_has_relevant":
        labels = [0] * n
    elif kind == "queries_without_relevant":
        none = set(rng.sample(qpool, max(1, nq // 2)))
        labels = [0 if q in none else x for q, x in zip(qids, labels)]
    elif kind == "relevant_always_on_top":
        top = {}
        for i, q in enumerate(qids):
            if q not in top or scores[i] > scores[top[q]]:
                top[q] = i
        labels = [1 if top[q] == i else 0 for i, q in enumerate(qids)]
    elif kind == "single_relevant_at_rank_k":
        labels = [0] * n
        for q in qpool:
            idx = [i for i, x in enumerate(qids) if x == q]
            labels[rng.choice(idx)] = 1
    elif kind == "graded_labels":
        labels = [rng.choice([0, 0, 1, 2, 3]) for _ in range(n)]
    elif kind == "negative_label_is_relevant":
        labels = [rng.choice([0, 0, -1, 1, -2]) for _ in range(n)]
    elif kind in ("fractional_labels", "fractional_label_mrr_vs_map"):
        labels = [rng.choice([0, 0, 0.5, 0.25, 1, 2.5, -0.5, -0.0, -1.5, 0.0]) for _ in range(n)]
    elif kind == "many_relevant":
        labels = [1 if rng.random() < 0.8 else 0 for _ in range(n)]
    if kind in ("score_ties", "tie_input_order_decides") or (kind == "random" and rng.random() < 0.3):
        scores = [rng.choice([0.0, -0.0, 1.0, 0.5, 0.3, 0.1 + 0.2, 2]) for _ in range(n)]
    if kind in ("relevant_first", "relevant_third"):
        labels = [0] * n
        for q in qpool:  # the record at rank 1 (or 3, or the last) of each query
            ranked = sorted((i for i in range(n) if qids[i] == q), key=lambda i: -scores[i])
            labels[ranked[min(len(ranked), 1 if kind == "relevant_first" else 3) - 1]] = 1
    return {"qids": qids, "labels": labels, "scores": scores}, {}


def ranking_expected(inp, params):
    from sklearn.metrics import average_precision_score
    qids, labels, scores = inp["qids"], inp["labels"], inp["scores"]
    rows = sorted(zip(qids, scores, labels), key=lambda e: (e[0], -e[1]))
    per = []
    for q in sorted(set(qids)):
        ranked = [(s, lab) for qq, s, lab in rows if qq == q]
        rr = next((1.0 / (k + 1) for k, (_, lab) in enumerate(ranked) if lab != 0), 0.0)
        hits, total = 0, 0.0
        for k, (_, lab) in enumerate(ranked):
            if int(lab) != 0:
                hits += 1
                total += hits / (k + 1)
        ap = total / hits if hits else 0.0
        ss = [s for s, _ in ranked]
        if hits and set(lab for _, lab in ranked) <= {0, 1} and len(set(ss)) == len(ss):
            ref = average_precision_score([lab for _, lab in ranked], ss)
            assert abs(ref - ap) < 1e-12, (q, ranked, ref, ap)
        per.append({"qid": q, "n": len(ranked), "n_relevant_mrr": sum(1 for _, lab in ranked if lab != 0),
                    "n_relevant_map": sum(1 for _, lab in ranked if int(lab) != 0), "rr": rr, "ap": ap})
    expected = {"num_queries": len(per), "mrr": sum(p["rr"] for p in per) / len(per),
                "map": sum(p["ap"] for p in per) / len(per), "per_query": per}
    return expected


RANKING_KINDS = ["relevant_first", "relevant_third", "no_relevant_anywhere", "tie_input_order_decides",
                 "fractional_label_mrr_vs_map", "relevant_always_on_top", "single_relevant_at_rank_k",
                 "queries_without_relevant", "no_query_has_relevant", "score_ties", "graded_labels",
                 "negative_label_is_relevant", "string_qids_interleaved", "single_item_queries",
                 "many_relevant", "fractional_labels", "large_int_qids", "digit_string_qids", "random"]


# ---------------------------------------------------------------------------------------------
# corpus_bleu: NLTK 3.8, and the README's gen_eval (ERNIE-kit _compute_bleu)

WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "is", "ran", "quick", "brown", "fox", "over", "lazy",
         "he", "she", "it", "we", "to", "of", "and", "in", "was", "big", "red"]
CJK = list("\u4eca\u5929\u5929\u6c14\u6674\u6717\u6211\u4eec\u53bb\u516c\u56ed\u73a9\u5f88\u5f00\u5fc3\u7684\u4e86")


def ngram_counts(tokens, k):
    return Counter(tuple(tokens[i:i + k]) for i in range(len(tokens) - k + 1))


def gen_eval(hyps, refs, n):
    """ERNIE-kit _compute_bleu with max_order n, as the README restates it; None when it raises."""
    matches, possible = [0] * n, [0] * n
    for h, rs in zip(hyps, refs):
        for k in range(1, n + 1):
            hc = ngram_counts(h, k)
            best = Counter()
            for r in rs:
                best |= ngram_counts(r, k)
            matches[k - 1] += sum((hc & best).values())
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
    return {"bleu": geo * bp, "precisions": precisions, "bp": bp, "ratio": ratio, "translation_length": tl,
            "reference_length": rl, "matches": matches, "possible_matches": possible}


def normalised_weights(rng, n):
    """n weights of a few sizes, zeros among them, divided by their sum."""
    raw = [rng.choice([0, 0.1, 0.2, 0.5, 1]) for _ in range(n)]
    if sum(raw) == 0:
        raw[0] = 1
    return [w / sum(raw) for w in raw]


def bleu_weights(rng, kind):
    if kind == "uniform_weights_order_1":
        return [1.0]
    if kind == "uniform_weights_order_2":
        return [0.5, 0.5]
    if kind == "uniform_weights_order_3":
        return [1 / 3] * 3
    if kind == "non_uniform_weights":
        if rng.random() < 0.5:
            return normalised_weights(rng, rng.randint(1, 4))
        return rng.choice([[0.4, 0.3, 0.2, 0.1], [0.5, 0.5, 0.0, 0.0], [0.7, 0.3], [0.0, 1.0],
                           [0.1, 0.2, 0.7], [0.25, 0.25, 0.5, 0.0], [0.6, 0.2, 0.1, 0.1],
                           [1.0, 1.0], [0.3, 0.3, 0.3], [0.5, 0.5, 0.5, 0.5], [2.0]])  # equal, not 1/n
    if kind == "random":
        n = rng.randint(1, 4)
        return [1 / n] * n if rng.random() < 0.6 else normalised_weights(rng, n)
    if kind == "an_empty_reference":  # gen_eval is null where every segment has one, at any order
        n = rng.randint(1, 4)
        return [1 / n] * n
    return [0.25] * 4


def bleu_vocab(rng, kind):
    if kind == "cjk_character_tokens":
        return CJK
    vocab = rng.sample(WORDS, rng.randint(3, len(WORDS)))
    if kind == "case_sensitive_tokens":
        vocab = vocab + [w.capitalize() for w in vocab[:5]] + [w.upper() for w in vocab[:2]]
    elif kind == "mixed_tokens" or (kind == "random" and rng.random() < 0.3):
        # CJK characters among words, punctuation and the empty token: tokens as a list may hold them
        vocab = vocab + [w.capitalize() for w in vocab[:2]] + rng.sample(CJK, 3) + [".", ",", ""]
    return vocab


def bleu_input(rng, kind):
    vocab = bleu_vocab(rng, kind)

    def sent(lo, hi):
        return [rng.choice(vocab) for _ in range(rng.randint(lo, hi))]

    def noisy_copy(h):
        r = [w if rng.random() < 0.7 else rng.choice(vocab) for w in h]
        if rng.random() < 0.5:
            r = r[:rng.randint(0, len(r))]
        return r + sent(0, 3)

    hyps, refs = [], []
    for _ in range(rng.randint(1, 5)):
        h = sent(0 if kind == "random" else 1, 14)
        rs = [noisy_copy(h) if rng.random() < 0.7 else sent(0, 14) for _ in range(rng.randint(1, 3))]
        hyps.append(h)
        refs.append(rs)
    if kind == "random":  # some references empty, under any order
        refs = [[[] if rng.random() < 0.1 else r for r in rs] for rs in refs]
    if kind == "identical_single":
        hyps, refs = hyps[:1], [[list(hyps[0])]]
    elif kind == "identical_to_a_reference":
        for h, rs in zip(hyps, refs):
            rs.insert(rng.randrange(len(rs) + 1), list(h))
    elif kind == "clipping_repeated_word":
        w = rng.choice(vocab)
        hyps[0] = [w] * rng.randint(2, 9)
        refs[0].append([w] * rng.randint(1, 3) + sent(0, 4))
    elif kind == "clipping_max_over_references":
        w = rng.choice(vocab)
        hyps[0] = [w] * rng.randint(3, 9) + sent(0, 2)
        refs[0] = [[w] * rng.randint(0, 3) + sent(0, 4) for _ in range(rng.randint(2, 4))]
    elif kind in ("closest_length_tie_picks_shorter", "closest_ref_length_ties"):
        for h, rs in zip(hyps, refs):  # one reference d shorter, one d longer
            d = rng.randint(1, 3)
            shorter = [w if rng.random() < 0.7 else rng.choice(vocab) for w in h][:max(0, len(h) - d)]
            rs[:] = [shorter, h + sent(d, d)][:: rng.choice([1, -1])]
    elif kind == "all_hypotheses_empty":
        hyps = [[] for _ in hyps]
    elif kind == "one_empty_hypothesis":
        hyps[rng.randrange(len(hyps))] = []
    elif kind in ("hyp_shorter_than_4", "hypotheses_shorter_than_max_order"):
        hyps = [h[:rng.randint(0, 3)] for h in hyps]
    elif kind == "unigram_only_overlap" or kind == "no_bigram_overlap":
        for i, h in enumerate(hyps):
            refs[i] = [list(reversed(h)) + sent(0, 2)] if rng.random() < 0.5 else [rng.sample(h, len(h))]
            hyps[i] = h
    elif kind == "no_unigram_overlap":
        other = ["x", "y", "z", "w"]
        hyps = [[rng.choice(other) for _ in h] for h in hyps]
    elif kind == "short_hypotheses_bp":
        hyps = [h[:max(1, len(h) // 2)] for h in hyps]
        refs = [[r + sent(2, 6) for r in rs] for rs in refs]
    elif kind == "long_hypotheses":
        hyps = [h + sent(3, 10) for h in hyps]
    elif kind == "many_references":
        refs = [rs + [noisy_copy(h) for _ in range(rng.randint(3, 6))] for h, rs in zip(hyps, refs)]
    elif kind == "an_empty_reference":
        for rs in refs:
            if rng.random() < 0.6:
                rs.insert(rng.randrange(len(rs) + 1), [])
        if rng.random() < 0.2:  # every reference empty: ref_len may be 0
            refs = [[[]] for _ in refs]
    return {"hypotheses": hyps, "references": refs}, {"weights": bleu_weights(rng, kind)}


def bleu_expected(inp, params):
    from nltk.translate.bleu_score import brevity_penalty, closest_ref_length, corpus_bleu, modified_precision
    hyps, refs, weights = inp["hypotheses"], inp["references"], params["weights"]
    n = len(weights)
    nums, dens = [0] * n, [0] * n
    for h, rs in zip(hyps, refs):
        for k in range(1, n + 1):
            p = modified_precision(rs, h, k)
            nums[k - 1] += p.numerator
            dens[k - 1] += p.denominator
    hyp_len = sum(len(h) for h in hyps)
    ref_len = sum(closest_ref_length(rs, len(h)) for h, rs in zip(hyps, refs))
    uniform = all(w == 1 / n for w in weights)
    expected = {"bleu": corpus_bleu(refs, hyps, weights=tuple(weights)),
                "precisions": [a / b for a, b in zip(nums, dens)],
                "precision_numerators": nums, "precision_denominators": dens,
                "bp": brevity_penalty(ref_len, hyp_len), "hyp_len": hyp_len, "ref_len": ref_len,
                "ratio": hyp_len / ref_len if ref_len else None,
                "gen_eval": gen_eval(hyps, refs, n) if uniform else None}
    return expected


BLEU_KINDS = ["identical_single", "clipping_repeated_word", "closest_length_tie_picks_shorter",
              "all_hypotheses_empty", "hyp_shorter_than_4", "unigram_only_overlap", "identical_to_a_reference",
              "short_hypotheses_bp", "long_hypotheses", "closest_ref_length_ties",
              "hypotheses_shorter_than_max_order", "no_bigram_overlap", "no_unigram_overlap",
              "one_empty_hypothesis", "clipping_max_over_references", "many_references", "cjk_character_tokens",
              "uniform_weights_order_3", "uniform_weights_order_2", "uniform_weights_order_1",
              "an_empty_reference", "case_sensitive_tokens", "mixed_tokens", "non_uniform_weights", "random"]


# ---------------------------------------------------------------------------------------------
# ppl: numpy's mean, then the README's formulas

def ppl_input(rng, kind):
    n = {"one_record": 1, "single_record": 1, "many_records": rng.randint(50, 100)}.get(kind, rng.randint(1, 60))
    counts = [1 if kind == "one_token_records" else rng.randint(1, 60) for _ in range(n)]
    per_token = {"low_loss": (0.0, 0.5), "high_loss": (5.0, 9.0), "random": (0.0, 6.0)}.get(kind, (0.5, 5.0))
    digits = rng.choice([2, 6, 12]) if kind == "random" else 6
    loss = [round(c * rng.uniform(*per_token), digits) for c in counts]
    if kind == "zero_loss":
        loss = [0.0] * n
    elif kind == "one_record":  # ppl a hair below an integer, as ppl-0002
        k = rng.randint(2, 60)
        loss = [round(counts[0] * math.log(k) - rng.choice([1e-5, 3e-5]), 5)]
    return {"token_counts": counts, "loss": loss}, {}


def ppl_expected(inp, params):
    counts, loss = inp["token_counts"], inp["loss"]
    mean = float(np.mean(np.array(loss, dtype=np.float64)))
    total = mean * len(loss)
    ave = total / sum(counts)
    ppl = math.exp(ave)
    return {"word_count": sum(counts), "mean_loss": mean, "total_loss": total, "ave_loss": ave, "ppl": ppl,
            "ppl_int": int(ppl)}


PPL_KINDS = ["zero_loss", "one_record", "single_record", "low_loss", "high_loss", "one_token_records",
             "many_records", "random"]


# ---------------------------------------------------------------------------------------------

MAKERS = {
    "accuracy_prf": ("prf", PRF_KINDS, prf_input, prf_expected),
    "auc": ("auc", AUC_KINDS, auc_input, auc_expected),
    "pairwise": ("pw", PAIRWISE_KINDS, pairwise_input, pairwise_expected),
    "chunk": ("chk", CHUNK_KINDS, chunk_input, chunk_expected),
    "ranking": ("rank", RANKING_KINDS, ranking_input, ranking_expected),
    "corpus_bleu": ("bleu", BLEU_KINDS, bleu_input, bleu_expected),
    "ppl": ("ppl", PPL_KINDS, ppl_input, ppl_expected),
}


def write_file(name, seed, n, out):
    """Write n cases of one golden file; each file has its own random stream, so --only gives
    the same cases as a full run."""
    prefix, kinds, draw, expect = MAKERS[name]
    rng = random.Random("%s:%d" % (name, seed))
    with open(os.path.join(out, name + ".jsonl"), "w", encoding="utf-8") as f:
        for i in range(n):
            kind = kinds[i % len(kinds)]
            while True:
                inp, params = draw(rng, kind)
                try:
                    expected = expect(inp, params)
                    break
                except Undefined:
                    continue
            case = {"id": "%s-s%d-%05d" % (prefix, seed, i + 1), "kind": kind, "input": inp, "params": params,
                    "expected": expected}
            f.write(json.dumps(case, ensure_ascii=False, allow_nan=False) + "\n")


def same(got, want):
    """Whether two JSON values agree: numbers to 1e-9 (bools, ints and nulls exactly)."""
    if isinstance(want, bool) or want is None or isinstance(want, str):
        return got == want and type(got) is type(want)
    if isinstance(want, (int, float)):
        return not isinstance(got, bool) and isinstance(got, (int, float)) and abs(got - want) <= 1e-9
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))
    return (isinstance(got, dict) and sorted(got) == sorted(want)
            and all(same(got[k], want[k]) for k in want))


def verify(folder):
    """Recompute the expected values of the golden-format files in folder; True when all agree."""
    ok = True
    for name in FILES:
        path = os.path.join(folder, name + ".jsonl")
        if not os.path.exists(path):
            continue
        expect, checked = MAKERS[name][3], 0
        with open(path, encoding="utf-8") as f:
            for line in f:
                c = json.loads(line)
                got = expect(c["input"], c["params"])
                if not same(got, c["expected"]):
                    ok = False
                    print("%s: %s differs:\n  file %s\n  here %s" % (path, c["id"], json.dumps(c["expected"]),
                                                                  json.dumps(got)), file=sys.stderr)
                checked += 1
        print("%s: %d cases recomputed" % (path, checked), file=sys.stderr)
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=400, help="cases per file")
    ap.add_argument("--out", help="folder for the seven files (made if missing)")
    ap.add_argument("--only", choices=FILES, action="append", help="write this file only (repeatable)")
    ap.add_argument("--verify", metavar="DIR",
                    help="recompute the expected values of DIR's files (the golden set) and report any that differ")
    a = ap.parse_args()
    warnings.filterwarnings("ignore")  # sklearn's UndefinedMetricWarning, NLTK's zero-count warning
    if a.verify:
        sys.exit(0 if verify(a.verify) else 1)
    if not a.out:
        ap.error("--out or --verify is required")
    os.makedirs(a.out, exist_ok=True)
    for name in a.only or FILES:
        write_file(name, a.seed, a.n, a.out)
        print("%s: %d cases" % (os.path.join(a.out, name + ".jsonl"), a.n), file=sys.stderr)


if __name__ == "__main__":
    main()
