#!/usr/bin/env python3
"""Write what the reference normalisers make of every code point in a few contexts, for the
exhaustive check of textnorm's SquadNormalize, LocomoNormalize and AppendRougeText:

    /usr/bin/python3 scripts/normalizer-facts.py > /tmp/normalizer-facts.tsv
    QA_NORMALIZER_FACTS=/tmp/normalizer-facts.tsv go test ./pkg/textnorm -run NormalizerFacts

With --digest it prints only the SHA-256 of those lines, the value TestNormalizerFactsDigest
holds the Go functions to on every run.

The normalisers, restated here with what they call:
  squad   evaluate-v1.1.py's normalize_answer (also hotpot_evaluate_v1.py's and evaluate-v2.0.py's):
          lower, drop string.punctuation, re.sub(r'\\b(a|an|the)\\b', ' '), ' '.join(split());
  locomo  LoCoMo task_eval/evaluation.py's normalize_answer: commas dropped first, then as squad
          with "and" among the articles and the third-party regex module's \\b;
  rouge   rouge-score 0.1.2's tokenize (no stemming): lower, runs of [a-z0-9], joined by spaces.
Each code point c (the surrogates left out) is put in every template of TEMPLATES, where the
neighbours test what c does to \\b (a word character or not), to an article beside it, to a
final capital sigma, to İ's lowering and to a No number such as ². One line per code point: its
hex value, then the three outputs of each template in turn, separated by tabs. No output holds a
tab or a line end: split() removes them (and rouge keeps only [a-z0-9 ]).

Run it with Debian 12's CPython 3.11.2 and python3-regex 2022.10.31, the versions of the golden
outputs (CPython's Unicode tables are 14.0, the regex module's its own 15.0); other versions can
give other facts for the code points Unicode added since.
"""
import hashlib
import re
import string
import sys

import regex

TEMPLATES = ["{c}", "a{c}a", "x{c}the", "the{c}x", "A{c} an", "{c}{c}The", "\u03a3{c}", "\u0130{c}",
             "an{c}and", "_{c}a", "{c}\u03a3 x", "1{c}\u00b2"]
PUNCT = set(string.punctuation)


def squad(s):
    s = "".join(ch for ch in s.lower() if ch not in PUNCT)
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", s).split())


def locomo(s):
    s = "".join(ch for ch in s.replace(",", "").lower() if ch not in PUNCT)
    return " ".join(regex.sub(r"\b(a|an|the|and)\b", " ", s).split())


def rouge(s):
    return " ".join(re.sub(r"[^a-z0-9]+", " ", s.lower()).split())


def lines():
    for c in range(0x110000):
        if 0xD800 <= c < 0xE000:
            continue
        outs = []
        for t in TEMPLATES:
            s = t.replace("{c}", chr(c))
            outs += [squad(s), locomo(s), rouge(s)]
        yield "%x\t%s\n" % (c, "\t".join(outs))


if "--digest" in sys.argv[1:]:
    h = hashlib.sha256()
    for line in lines():
        h.update(line.encode("utf-8"))
    print(h.hexdigest())
    sys.exit(0)
out = sys.stdout.buffer
for line in lines():
    out.write(line.encode("utf-8"))
