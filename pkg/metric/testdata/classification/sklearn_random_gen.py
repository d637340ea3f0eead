#!/usr/bin/python3
"""Write random accuracy/precision/recall/F1 and ROC AUC cases, in the golden case format, with
the values scikit-learn itself gives them, for a differential check of pkg/metric:

    pkg/metric/testdata/classification/sklearn_random_gen.py --seed 1 --n 300

writes accuracy_prf_sklearn.jsonl and auc_sklearn.jsonl beside this script (--out DIR to put them
elsewhere; `QA_SKLEARN_DIR=DIR/ go test ./pkg/metric -run Sklearn` then checks those). It needs scikit-learn 1.2.1 and numpy 1.24.2, the golden reference versions
(Debian 12: python3-sklearn). The inputs steer the rules of the golden README: int and string
labels (with "", NFC/NFD and code-point order), the labels parameter (absent labels, subsets,
any order, no true sample), zero_division warn/0/1, pos_label on binary, multiclass and absent
classes; ROC scores with ties, near-equal floats, ints, negatives and one-class inputs.
"""
import argparse
import json
import math
import os
import random
import warnings

import numpy as np
from sklearn.metrics import (accuracy_score, auc, confusion_matrix, multilabel_confusion_matrix,
                             precision_recall_fscore_support, roc_curve)

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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    rng = random.Random(a.seed)
    for name, make in (("accuracy_prf_sklearn.jsonl", prf_case), ("auc_sklearn.jsonl", auc_case)):
        with open(os.path.join(a.out, name), "w", encoding="utf-8") as f:
            for i in range(a.n):
                f.write(json.dumps(make(rng, i), ensure_ascii=False) + "\n")


main()
