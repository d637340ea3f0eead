"""Writes locomo_f1.jsonl: random (prediction, gold, category) triples scored the way
snap-research/locomo task_eval/evaluation.py (eval_question_answering) scores them.

Run with Debian 12's /usr/bin/python3 (CPython 3.11.2, python3-nltk 3.8, python3-regex, numpy):
    /usr/bin/python3 gen.py > locomo_f1.jsonl
The scoring below restates the script's normalize_answer, f1_score, f1 and category rules; the
script itself imports bert_score, which is not needed for these categories.
"""
import json
import random
import string
from collections import Counter

import numpy as np
import regex
from nltk.stem import PorterStemmer

stemmer = PorterStemmer()


def normalize(s):
    s = s.replace(",", "").lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = regex.sub(r"\b(a|an|the|and)\b", " ", s)
    return " ".join(s.split())


def stemmed_f1(pred, gold):
    p = [stemmer.stem(w) for w in normalize(pred).split()]
    g = [stemmer.stem(w) for w in normalize(gold).split()]
    same = sum((Counter(p) & Counter(g)).values())
    if same == 0:
        return 0
    precision, recall = 1.0 * same / len(p), 1.0 * same / len(g)
    return (2 * precision * recall) / (precision + recall)


def score(pred, gold, category):
    if category == 3:
        gold = gold.split(";")[0].strip()
    if category in (2, 3, 4):
        return stemmed_f1(pred, gold)
    if category == 1:
        preds = [p.strip() for p in pred.split(",")]
        golds = [g.strip() for g in gold.split(",")]
        return float(np.mean([max(stemmed_f1(p, g) for p in preds) for g in golds]))
    low = pred.lower()
    return 1 if "no information available" in low or "not mentioned" in low else 0


WORDS = ["the", "a", "an", "and", "And", "running", "runs", "dogs", "dog", "Paris", "paris,",
         "cats;", "no", "information", "available", "not", "mentioned", "Not Mentioned", ",", ";",
         "x", "é", "a\u0301", "a\u0cf3", "the\U00011f00", "İ", "ΑΣ", "²", "日本", "1,000", "7 May 2023", "hiking", "painting",
         "generously", "happily", "Caroline", "LGBTQ", "sunsets", "pottery", "camping", "2022"]
SEPS = [" ", ", ", ",", "; ", "  ", "\u00a0", "-", " and "]


def text(rng):
    return "".join(rng.choice(WORDS) + rng.choice(SEPS) for _ in range(rng.randrange(0, 12)))


def main():
    rng = random.Random(20261130)
    for _ in range(1000):
        pred, gold, category = text(rng), text(rng), rng.randrange(1, 6)
        print(json.dumps({"prediction": pred, "gold": gold, "category": category,
                          "locomo_f1": score(pred, gold, category)}, ensure_ascii=False))


main()
