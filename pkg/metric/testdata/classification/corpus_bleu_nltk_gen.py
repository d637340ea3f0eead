#!/usr/bin/python3
"""Write random corpus BLEU cases, in the golden case format, scored by NLTK 3.8 itself, for a
differential check of pkg/metric's CorpusBLEU:

    pkg/metric/testdata/classification/corpus_bleu_nltk_gen.py --seed 1 --n 300

writes corpus_bleu_nltk.jsonl beside this script (--out DIR to put it elsewhere;
`QA_NLTK_DIR=DIR/ go test ./pkg/metric -run NLTK` then checks it). It needs NLTK 3.8 (Debian 12:
python3-nltk). The top-level fields are NLTK's corpus_bleu (no smoothing, auto_reweigh False),
modified_precision, closest_ref_length and brevity_penalty; `gen_eval` restates the golden
README's ERNIE-kit _compute_bleu for uniform weights. The corpora steer the rules: clipping by
repeated words, hypotheses shorter than the order, empty references, equally close references,
several references, case and CJK tokens, weights of 1 to 4 orders, uniform or not.
"""
import argparse
import json
import math
import os
import random
import warnings
from fractions import Fraction

from nltk.translate.bleu_score import brevity_penalty, closest_ref_length, corpus_bleu, modified_precision

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


def case(rng, i):
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    rng = random.Random(a.seed)
    with open(os.path.join(a.out, "corpus_bleu_nltk.jsonl"), "w", encoding="utf-8") as f:
        written = 0
        while written < a.n:
            c = case(rng, written)
            if c is not None:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
                written += 1


main()
