"""Writes wordnet_nltk38.tsv: for 5,000 words drawn from all of WordNet 3.0 (every lemma of the
four index files, every form of the exception lists, and variants of them: suffixes added or cut,
upper and title case, a few made-up tokens), the synonym names NLTK 3.8's METEOR takes from
wordnet.synsets(word): the lemma names without '_' of every synset, sorted, space-separated.
Run from pkg/metric with Debian's NLTK 3.8 (python3-nltk) and WordNet 3.0 (wordnet-base):

    /usr/bin/python3 testdata/wordnet_nltk38_gen.py /usr/share/wordnet > testdata/wordnet_nltk38.tsv

With --all it writes every word of the drawn list (about 217,000) instead of a sample, for a
one-off check of the whole vocabulary.
"""
import importlib.util
import os
import random
import sys
from itertools import chain

POS = ["noun", "verb", "adj", "adv"]


def reader(folder):
    """NLTK's reader over a WordNet dict folder, as scripts/random-pairs.py opens it."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts", "random-pairs.py")
    spec = importlib.util.spec_from_file_location("random_pairs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.wordnet_reader(folder)


def words(folder):
    base = set()
    for pos in POS:
        with open(os.path.join(folder, "index." + pos)) as f:
            base.update(line.split()[0] for line in f if not line.startswith(" "))
        with open(os.path.join(folder, pos + ".exc")) as f:
            for line in f:
                base.update(line.split())
    base = sorted(base)
    rng = random.Random(5)
    out = set(base)
    suffixes = ["s", "es", "ed", "ing", "er", "est", "ies", "ied", "ches", "shes", "men", "ful", "ly", "d", ""]
    for w in base:
        if rng.random() < 0.3:
            out.add(w + rng.choice(suffixes))
        if rng.random() < 0.05:
            out.add(w.upper() if rng.random() < 0.5 else w.capitalize())
        if rng.random() < 0.05 and len(w) > 3:
            out.update([w[:-1], w[:-2]])
    out.update(["", "s", "ss", "es", "ies", "ing", "ed", "men", "ful", "don't", "u.s.", "a.d.", "U.S.",
                "1990s", "24/7", "café", "naïve", "İstanbul", "ΣΑΣ", "\u212aelvin", "runnings", "axes",
                "bases", "wolves", "dies", "mice", "feet"])
    return sorted(w for w in out if not any(c in w for c in " \t\n"))


def main():
    folder = sys.argv[1]
    wn = reader(folder)
    drawn = words(folder)
    if "--all" not in sys.argv:
        drawn = sorted(random.Random(1).sample(drawn, 5000))
    for w in drawn:
        names = set(chain.from_iterable(
            (l.name() for l in s.lemmas() if l.name().find("_") < 0) for s in wn.synsets(w.lower())))
        sys.stdout.write(w + "\t" + " ".join(sorted(names)) + "\n")


if __name__ == "__main__":
    main()
