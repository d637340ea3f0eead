#!/usr/bin/env python3
"""Write what CMRC 2018's own segmentation and punctuation removal make of every code point in a
few contexts, for the exhaustive check of qa-score's cmrc_em and cmrc_f1 (pkg/metric):

    /usr/bin/python3 scripts/cmrc-facts.py PATH/TO/cmrc2018_evaluate.py > /tmp/cmrc-facts.tsv
    QA_CMRC_FACTS=/tmp/cmrc-facts.tsv go test ./pkg/metric -run CMRCFacts

cmrc2018_evaluate.py is ymcui/cmrc2018's baseline/cmrc2018_evaluate.py (v6, @ c0eb1b6); its
nltk.word_tokenize is NLTK 3.8's with the english Punkt parameters of
pkg/textnorm/punkt_english.tsv (pkg/textnorm/testdata/nltk_english.py; nltk_data is not
installed here). Run it with Debian 12's CPython 3.11.2 and python3-nltk 3.8.

Each code point c (the surrogates left out) is put in every template of TEMPLATES, where it meets
an ideograph, a sentence end, a clitic, quotes, an abbreviation and an ellipsis, and starts or
ends a word beside a period that Punkt may take for a sentence's end (its orthographic heuristic
reads the case of the word after it). One line per code point: its hex value, then for each
template mixed_segmentation(text, rm_punc=True) with its tokens joined by spaces (no token holds
Python whitespace) and remove_punctuation(text), separated by tabs; a backslash, tab, carriage
return or line feed is written \\\\, \\t, \\r or \\n. The first line, starting with "#", names
the versions.

It takes about seven minutes on one core: FIRST and LAST (hex, LAST excluded) write a part, so
that parts can run side by side and be joined in order (only the first part writes the "#" line):

    scripts/cmrc-facts.py EVAL 0 60000 > a.tsv & scripts/cmrc-facts.py EVAL 60000 110000 > b.tsv
"""
import importlib.util
import os
import sys

import nltk

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pkg", "textnorm", "testdata"))
from nltk_english import word_tokenize  # noqa: E402 (found through the path above)

TEMPLATES = ["{c}", "a{c}b.", "{c}'s", "\"{c}\"", "\u4e2d{c}\u6587", "{c}... x", "don{c}t", "Mr.{c} X", "x. {c}y z",
             "{c}. he"]


def escape(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\r", "\\r").replace("\n", "\\n")


def main():
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return
    if len(sys.argv) not in (2, 4):
        sys.exit("usage: cmrc-facts.py PATH/TO/cmrc2018_evaluate.py [FIRST LAST]")
    if not os.path.isfile(sys.argv[1]):
        sys.exit("cmrc-facts.py: %s: no such file (give the path of cmrc2018_evaluate.py)" % sys.argv[1])
    nltk.word_tokenize = word_tokenize
    spec = importlib.util.spec_from_file_location("cmrc", sys.argv[1])
    cmrc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cmrc)
    first, last = (int(sys.argv[2], 16), int(sys.argv[3], 16)) if len(sys.argv) == 4 else (0, 0x110000)
    out = sys.stdout.buffer
    if first == 0:
        out.write(("# python %s nltk %s\n" % (sys.version.split()[0], nltk.__version__)).encode())
    for c in range(first, min(last, 0x110000)):
        if 0xD800 <= c < 0xE000:
            continue
        outs = []
        for t in TEMPLATES:
            s = t.replace("{c}", chr(c))
            outs += [" ".join(cmrc.mixed_segmentation(s, rm_punc=True)), cmrc.remove_punctuation(s)]
        out.write(("%x\t%s\n" % (c, "\t".join(escape(o) for o in outs))).encode("utf-8"))


main()
