#!/usr/bin/env python3
"""Write the synonyms METEOR takes from WordNet for every code point in a few contexts, for the
exhaustive check of qa-score's WordNet lookup (pkg/metric):

    /usr/bin/python3 scripts/wordnet-facts.py /usr/share/wordnet > /tmp/wordnet-facts.tsv
    QA_WORDNET_FACTS=/tmp/wordnet-facts.tsv go test ./pkg/metric -run WordNetFacts

The synonyms of a word are those pkg/metric/testdata/wordnet_nltk38_gen.py writes: the lemma
names without '_' of every synset NLTK 3.8's wordnet.synsets(word) returns (the word lowercased,
then every part of speech through morphy), sorted, once each, space-separated. The folder is
WordNet 3.0's dict (Debian: wordnet-base); run it with Debian 12's CPython 3.11.2 and
python3-nltk 3.8.

Each code point c (the surrogates left out) is put in every template of TEMPLATES, beside a
lemma and the suffixes morphy strips. One line per code point: its hex value, then the synonyms
of each template, separated by tabs (no name holds a tab or a line end). The first line, starting
with "#", names the versions. It takes about a minute.
"""
import importlib.util
import os
import sys
from itertools import chain

import nltk

TEMPLATES = ["{c}", "{c}s", "dog{c}", "{c}es", "ax{c}s", "{c}ing", "dog{c}s"]


def main():
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return
    if len(sys.argv) != 2:
        sys.exit("usage: wordnet-facts.py WORDNET-DICT-FOLDER")
    if not os.path.isdir(sys.argv[1]):
        sys.exit("wordnet-facts.py: %s: no such folder (give WordNet 3.0's dict, such as /usr/share/wordnet)"
                 % sys.argv[1])
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pkg", "metric", "testdata",
                        "wordnet_nltk38_gen.py")
    spec = importlib.util.spec_from_file_location("wordnet_gen", path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    wn = gen.reader(sys.argv[1])
    out = sys.stdout.buffer
    out.write(("# python %s nltk %s\n" % (sys.version.split()[0], nltk.__version__)).encode())
    for c in range(0x110000):
        if 0xD800 <= c < 0xE000:
            continue
        outs = []
        for t in TEMPLATES:
            names = set(chain.from_iterable(
                (l.name() for l in s.lemmas() if "_" not in l.name()) for s in wn.synsets(t.replace("{c}", chr(c)))))
            outs.append(" ".join(sorted(names)))
        out.write(("%x\t%s\n" % (c, "\t".join(outs))).encode("utf-8"))


main()
