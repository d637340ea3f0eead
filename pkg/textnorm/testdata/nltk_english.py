"""NLTK 3.8's nltk.word_tokenize as the NLTK-checked testdata scripts run it: english Punkt with
the parameters of ../punkt_english.tsv (nltk_data is not installed here), then NLTKWordTokenizer
on each sentence. Imported by punkt_nltk38_gen.py and wordtok_shapes_nltk38.py beside it, and by
pkg/metric/testdata/cmrc_nltk38_gen.py; needs Debian's python3-nltk 3.8."""
import os

from nltk.tokenize.destructive import NLTKWordTokenizer
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer


def punkt_parameters():
    p = PunktParameters()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "punkt_english.tsv")
    for line in open(path, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if f[0] == "a": p.abbrev_types.add(f[1])
        elif f[0] == "c": p.collocations.add((f[1], f[2]))
        elif f[0] == "s": p.sent_starters.add(f[1])
        elif f[0] == "o": p.ortho_context[f[1]] = int(f[2])
    return p


sents, words = PunktSentenceTokenizer(punkt_parameters()), NLTKWordTokenizer()


def word_tokenize(text):
    return [t for s in sents.tokenize(text) for t in words.tokenize(s)]
