#!/usr/bin/env python3
"""Write what the reference normalisers, the Porter stemmer and Python's lower() make of every code
point in a few contexts, for the exhaustive check of textnorm's SquadNormalize, LocomoNormalize,
AppendRougeText, Stem and Lower:

    /usr/bin/python3 scripts/normalizer-facts.py > /tmp/normalizer-facts.tsv
    QA_NORMALIZER_FACTS=/tmp/normalizer-facts.tsv go test ./pkg/textnorm -run NormalizerFacts

With --digest it prints only the SHA-256 of those lines, the value TestNormalizerFactsDigest
holds the Go functions to on every run.

The functions, restated here with what they call:
  squad   evaluate-v1.1.py's normalize_answer (also hotpot_evaluate_v1.py's and evaluate-v2.0.py's):
          lower, drop string.punctuation, re.sub(r'\\b(a|an|the)\\b', ' '), ' '.join(split());
  locomo  LoCoMo task_eval/evaluation.py's normalize_answer: commas dropped first, then as squad
          with "and" among the articles and the third-party regex module's \\b;
  rouge   rouge-score 0.1.2's tokenize (no stemming): lower, runs of [a-z0-9], joined by spaces;
  stem    NLTK 3.8's PorterStemmer().stem (NLTK_EXTENSIONS), which METEOR, ROUGE and LoCoMo call;
  lower   str.lower() of a whole text, as BLEU, METEOR and CMRC take it: a capital sigma lowers to
          final sigma by the characters around it.
Each code point c (the surrogates left out) is put in every template of TEMPLATES, where the
neighbours test what c does to \\b (a word character or not), to an article beside it, to a
final capital sigma, to İ's lowering and to a No number such as ², of STEM_TEMPLATES, where they
meet the stemmer's suffixes, its y and double-consonant rules and the two-character limit, and of
LOWER_TEMPLATES, beside capital sigmas. One line per code point: its hex value, then the three
normalisers' outputs of each template in turn, then the stems, then the lowered texts, separated
by tabs; a backslash, tab, carriage return or line feed in an output (a stem or a lowered text can
keep c whole) is written \\\\, \\t, \\r or \\n. A first line starting with "#" names the
versions; the digest leaves it out.

Run it with Debian 12's CPython 3.11.2, python3-regex 2022.10.31 and python3-nltk 3.8, the
versions of the golden outputs (CPython's Unicode tables are 14.0, the regex module's its own
15.0); other versions can give other facts for the code points Unicode added since.
"""
import re
import string
import sys

import nltk
import regex
from nltk.stem.porter import PorterStemmer

from codepoint_facts import write

TEMPLATES = ["{c}", "a{c}a", "x{c}the", "the{c}x", "A{c} an", "{c}{c}The", "\u03a3{c}", "\u0130{c}",
             "an{c}and", "_{c}a", "{c}\u03a3 x", "1{c}\u00b2"]
STEM_TEMPLATES = ["{c}", "{c}s", "a{c}", "{c}ing", "hop{c}ing", "y{c}y", "{c}ational", "ab{c}e",
                  "{c}{c}ed", "\u0130{c}s", "run{c}ies", "{c}yli"]
LOWER_TEMPLATES = ["\u03a3{c}", "{c}\u03a3", "A\u03a3{c}", "{c}A\u03a3 x", "A{c}\u03a3", "A\u03a3{c}a", "\u0130{c}",
                   "{c}\u03a3\u03a3"]
PUNCT = set(string.punctuation)
STEMMER = PorterStemmer()


def squad(s):
    s = "".join(ch for ch in s.lower() if ch not in PUNCT)
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", s).split())


def locomo(s):
    s = "".join(ch for ch in s.replace(",", "").lower() if ch not in PUNCT)
    return " ".join(regex.sub(r"\b(a|an|the|and)\b", " ", s).split())


def rouge(s):
    return " ".join(re.sub(r"[^a-z0-9]+", " ", s.lower()).split())


def escape(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\r", "\\r").replace("\n", "\\n")


def lines():
    for c in range(0x110000):
        if 0xD800 <= c < 0xE000:
            continue
        outs = []
        for t in TEMPLATES:
            s = t.replace("{c}", chr(c))
            outs += [squad(s), locomo(s), rouge(s)]
        outs += [STEMMER.stem(t.replace("{c}", chr(c))) for t in STEM_TEMPLATES]
        outs += [t.replace("{c}", chr(c)).lower() for t in LOWER_TEMPLATES]
        yield "%x\t%s\n" % (c, "\t".join(escape(o) for o in outs))


write(lines(), "# python %s regex %s nltk %s\n" % (sys.version.split()[0], regex.__version__, nltk.__version__))
