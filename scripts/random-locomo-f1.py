#!/usr/bin/env python3
"""Write random LoCoMo records with the locomo_f1 that LoCoMo's own task_eval/evaluation.py gives
them, and the per-category and overall means its scripts print, for a differential check of
qa-score's locomo_f1 and its summary's LoCoMo section:

    git --git-dir LoCoMo/.git show 9228632:task_eval/evaluation.py > /tmp/locomo/evaluation.py
    git --git-dir LoCoMo/.git show 9228632:task_eval/evaluation_stats.py > /tmp/locomo/evaluation_stats.py
    /usr/bin/python3 scripts/random-locomo-f1.py --evaluation /tmp/locomo/evaluation.py \\
        --seed 1 --n 5000 --check bin/qa-score

Commit 9228632 ("Code commit", on the code branch and an ancestor of main's 3eb6f2c) is the one
this script drives: later ones (3eb6f2c, and the code branch's head since) give
eval_question_answering a list of questions in place of a file's path and drop analyze_acc,
with the scoring functions unchanged.

Each record goes through upstream as evaluate_gpts.py's main() sends a file of them: its
questions are written as {"qa": [...]} with the prediction under the key "prediction" and read by
eval_question_answering (the per-record scores, its category rules included); the scores are
stored as save_eval stores them, but rounded to three places as 3eb6f2c's evaluate_qa.py stores
them, and read back by evaluation_stats.py's analyze_acc, whose category counts and sums (those of
3eb6f2c's analyze_aggr_acc too) give each category's mean (it prints them rounded to three
places, and they are compared unrounded) and the summary's locomo overall, the sums in the order
4, 1, 2, 3, 5 over the count, as analyze_aggr_acc takes it; the overall group's mean is main()'s
sum(ems)/len(ems) of the unrounded scores (evaluate_gpts.py itself imports an OpenAI client and
runs main() on import, so that line is restated here).

--check BIN runs BIN --metrics locomo_f1 over the records, and again with --summary -, and
compares each record's score and the summary's locomo section (each category's mean and count,
the micro overall) and overall mean to 1e-9, printing the counts and every difference as a JSON
line; the exit code is 1 when any differ. Without it each line is {"record": a qapipe record,
"expected": {"locomo_f1": value}}, and --aggregates FILE writes upstream's means as JSON.

The inputs steer the rules: words of LoCoMo's own answers (testdata/locomo) mixed with pieces that
normalise away or not (ASCII punctuation and others, "a", "an", "the" and "and" in any case,
alone, glued or inside words, commas inside numbers), words the Porter stemmer changes, Python
whitespace and case (İ, Σ, ß, marks, CJK, full-width letters), empty texts; golds of one to three
comma-separated parts (and rarely 9 to 140, past numpy's pairwise summation blocks) for category
1, with ';' for category 3, and the two phrases category 5 looks for, cased, glued, spaced or
nearly; predictions random or the gold edited (recased, punctuated, parts reordered, dropped or
split, words inflected, articles or "and" added). The records name their category as qa-load
writes it (meta.category a number, type the category's type) or otherwise as qapipe reads it (a
string or 3.0, type alone), and the dataset in any case. --surrogates F makes a fraction F of the
texts hold a lone surrogate (written as its \\u escape), which qapipe reads as U+FFFD: a record
whose prediction and gold hold two different ones (more likely as F grows; seed 98828 at 0.2 has
two) scores a match where upstream, which keeps them apart, scores none, and so differs.

It needs the original scripts (https://github.com/snap-research/locomo, branch code, CC BY-NC
4.0, not part of qapipe) and what they import: regex, numpy, NLTK 3.8 and tqdm (Debian:
python3-regex python3-numpy python3-nltk python3-tqdm, run with /usr/bin/python3); bert_score,
which scores no record here, is stubbed.
"""
import argparse
import contextlib
import importlib.util
import io
import json
import os
import random
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "..", "testdata", "locomo", "locomo_conv26.json")
sys.path.insert(0, HERE)
import score_check  # noqa: E402

TYPES = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial"}

PIECES = [
    "and", "And", "AND", "aNd", "a", "A", "an", "An", "the", "The", "THE", "andy", "band", "Anderson", "thee",
    "the,", "and,", ",and", "and.", "a-n", "t.h.e", "a.n.d", "'the'", "(and)", "an'", "_and", "and_", "a_the",
    "1,000", "2,022", "7", "2022", "3.5", "May", "7 May 2023", "½", "²", "٣", "①", "1st", "0",
    "running", "runs", "ran", "ponies", "skies", "Skies", "dying", "lying", "generously", "happiness",
    "agreed", "feed", "hopping", "caresses", "conditional", "relational", "dies", "news", "sky", "painted",
    "painting", "paintings", "adoption", "agencies", "agency", "classes", "counseling", "psychology", "is",
    "was", "has", "this", "sized", "ties", "flies", "mice", "meeting", "meetings", "LGBTQ", "LGBTQ+",
    "és", "日s", "ées", "ïed", "ςs", "ying",
    "İ", "İstanbul", "Σ", "ΟΔΟΣ", "ς", "ß", "ẞ", "é", "e\u0301", "\u0301", "café", "naïve", "Zoë's", "日本",
    "東京", "ﬁsh", "\u212a", "\u212b", "ǅ", "ａｎｄ", "ＴＨＥ", "\U0001F600", "Ⅻ", "a\u0307nd", "\u0430nd",
    ".", ",", ";", ":", "!", "?", "'", '"', "-", "—", "–", "“", "”", "’", "(", ")", "[", "]", "/", "\\", "_",
    "@", "#", "&", "%", "*", "`", "~", "{", "}", "|", "^", "<", ">", "=", "+", "$", "…", "。", "，", "、", "¿",
    "\u00a0", "\u2000", "\u3000", "\u200b", "\x1c", "\x1f", "\x85", "\u2028", "\t", "\n", "\x00", "\x7f",
]
# What category 5 looks for, and near misses.
PHRASES = [
    "no information available", "No Information Available", "NO INFORMATION AVAILABLE", "not mentioned",
    "Not mentioned", "NOT MENTIONED", "Not mentioned in the conversation", "not  mentioned", "not-mentioned",
    "notmentioned", "no information", "information available", "no\u00a0information available",
    "n\u03bft mentioned", "not mentione", "(not mentioned)", "İnformation", "no İnformation available",
]
PIECES += PHRASES
SEPARATORS = [" ", " ", " ", "", ", ", ",", "; ", ";", " and ", " , ", "  ", "\t", "\u00a0", "-", "\n"]
SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff", "\ud83d"]


def sample_answers():
    """LoCoMo's answers in testdata (str() of the numbers, as upstream reads them) with their
    categories, and the words of them and of the questions."""
    with open(SAMPLE, encoding="utf-8") as f:
        qa = json.load(f)[0]["qa"]
    answers, words = [], set()
    for q in qa:
        gold = q.get("answer", q.get("adversarial_answer"))
        if gold is None:
            continue
        answers.append((str(gold), q["category"]))
        words.update(str(gold).split())
        words.update(q["question"].split())
    return answers, sorted(words)


class Draw:
    """The random texts, from one random source."""

    def __init__(self, rng, surrogates):
        self.rng = rng
        self.surrogates = surrogates
        self.answers, self.words = sample_answers()

    def piece(self):
        r = self.rng.random()
        if r < 0.5:
            return self.rng.choice(self.words)
        if r < 0.97:
            return self.rng.choice(PIECES)
        return self.rng.choice(PIECES) + self.rng.choice(PIECES)  # glued

    def text(self, most=6):
        rng = self.rng
        parts = [self.piece() for _ in range(rng.randint(0, most))]
        out = ""
        for i, p in enumerate(parts):
            out += (rng.choice(SEPARATORS) if i else "") + p
        if rng.random() < 0.1:
            out = rng.choice([" ", ",", ";", ", ", "\t", "The ", "and "]) + out
        if rng.random() < 0.1:
            out += rng.choice([" ", ",", ";", ".", "\n", " and", ", the"])
        if self.surrogates and rng.random() < self.surrogates:
            at = rng.randint(0, len(out))
            out = out[:at] + rng.choice(SURROGATES) + out[at:]
        return out

    def gold(self, category):
        rng = self.rng
        if rng.random() < 0.3:
            same = [a for a, c in self.answers if c == category]
            if same:
                return rng.choice(same)
        if category == 1:
            r = rng.random()
            n = rng.randint(130, 140) if r < 0.003 else rng.randint(9, 40) if r < 0.03 else rng.randint(1, 3)
            return rng.choice([",", ", ", " , "]).join(self.text(3) for _ in range(n))
        if category == 3 and rng.random() < 0.5:
            return rng.choice([";", "; ", " ; "]).join(self.text(4) for _ in range(rng.randint(1, 3)))
        return self.text()

    def prediction(self, gold, category):
        rng = self.rng
        r = rng.random()
        if r < 0.25:
            return self.text(8 if category != 1 else 4)
        if r < 0.3:
            return rng.choice(["", " ", ",", ", ,", "the", "and", "a, an, the"])
        if category == 5 and r < 0.5:
            return self.text(3) + rng.choice(PHRASES) + self.text(3)
        if r < 0.4:
            return gold
        if r < 0.5:
            return rng.choice([gold.upper(), gold.lower(), gold.title(), gold + ".", "The " + gold,
                               gold + ", and", "(" + gold + ")", gold.replace(" ", "  ")])
        if category == 1 and r < 0.7:
            parts = gold.split(",")
            rng.shuffle(parts)
            if len(parts) > 1 and rng.random() < 0.5:
                parts.pop(rng.randrange(len(parts)))
            if rng.random() < 0.3:
                parts.append(self.text(3))
            if rng.random() < 0.2:
                parts = parts * rng.randint(2, 12)  # repeated parts, many of them
            return rng.choice([",", ", ", " and ", " ,"]).join(parts)
        words = gold.split(" ")
        for _ in range(rng.randint(1, 3)):
            x = rng.random()
            if x < 0.3 and len(words) > 1:
                words.pop(rng.randrange(len(words)))
            elif x < 0.6:
                words.insert(rng.randint(0, len(words)), self.piece())
            elif words:
                i = rng.randrange(len(words))
                words[i] += rng.choice(["s", "es", "ed", "ing", "ly", "'s", ",", ";", ".", "ness", "ies"])
        return " ".join(words)

    def record(self, i, pred, gold, category):
        """A qapipe record of the question, its category named as qa-load names it or as
        qapipe reads it otherwise."""
        rng = self.rng
        rec = {"schema": 1, "id": "locomo-random-%d" % i,
               "dataset": rng.choice(["locomo"] * 8 + ["LoCoMo", "LOCOMO"]), "lang": "en",
               "type": TYPES[category], "question": "q", "answers": [gold],
               "meta": {"category": category, "evidence": []}, "prediction": {"text": pred}}
        r = rng.random()
        if r < 0.05:
            rec["meta"]["category"] = rng.choice([str(category), " %d" % category, float(category)])
        elif r < 0.1:
            del rec["meta"]["category"]  # the type names it
        elif r < 0.15:
            del rec["type"]
        if rng.random() < 0.05:
            rec["answers"].append(self.text())  # qapipe reads the first, upstream's one answer
        return rec


def load_upstream(evaluation, stats):
    """LoCoMo's evaluation.py and evaluation_stats.py, imported from their files."""
    if "bert_score" not in sys.modules:
        stub = types.ModuleType("bert_score")

        def score(*args, **kwargs):
            raise RuntimeError("bert_score is stubbed: no record here asks for it")
        stub.score = score
        sys.modules["bert_score"] = stub
    mods = []
    for name, path in (("evaluation", evaluation), ("evaluation_stats", stats)):
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mods.append(mod)
    return mods


def upstream_scores(evaluation, stats, items):
    """Upstream's score of each (prediction, gold, category) and its aggregates: each category's
    count and mean from analyze_acc, and main()'s overall mean."""
    ev, st = load_upstream(evaluation, stats)
    with tempfile.TemporaryDirectory(prefix="locomo-f1-") as d:
        data = os.path.join(d, "random.json")
        qa = [{"question": "q", "answer": gold, "category": cat, "evidence": [], "prediction": pred}
              for pred, gold, cat in items]
        with open(data, "w") as f:
            json.dump({"qa": qa}, f)  # ASCII: lone surrogates read back as they were
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
            ems, _, _ = ev.eval_question_answering(data, "prediction")
            # The scores beside the questions, in *_scores.json, as save_eval writes them, but
            # rounded as 3eb6f2c's evaluate_qa.py stores them (numpy's rounding for category 1's
            # numpy means, Python's for the others).
            for q, em in zip(qa, ems):
                q["qapipe_f1"] = round(em, 3)
            scores = data.replace(".json", "_scores.json")
            with open(scores, "w") as f:
                json.dump({"qa": qa}, f, indent=2)
            out = data.replace(".json", "_score_stats.json")
            st.analyze_acc(scores, out, "qapipe", "qapipe_f1")
        with open(out) as f:
            report = json.load(f)["qapipe"]
    counts, sums = report["category_counts"], report["cum_accuracy_by_category"]
    categories = {int(k): {"count": n, "mean": float(sums[k]) / n} for k, n in counts.items()}
    # evaluate_qa.py's stats (analyze_aggr_acc): the category sums in the order 4, 1, 2, 3, 5 over all.
    total = 0
    for k in ("4", "1", "2", "3", "5"):
        total += sums.get(k, 0)
    stats = {"count": len(ems), "mean": float(total) / len(ems)}
    overall = {"count": len(ems), "mean": sum(ems) / len(ems)}  # evaluate_gpts.py main()
    return [float(x) for x in ems], {"categories": categories, "stats": stats, "overall": overall,
                                     "printed": printed.getvalue().splitlines()}


def aggregates(upstream):
    """The (name, upstream's value, getter from qa-score's summary) triples to compare."""
    def category(c, key):
        return lambda s: next(x for x in s["locomo"]["categories"] if x["category"] == c)[key]
    out = []
    for c, v in sorted(upstream["categories"].items()):
        out.append(("locomo category %d count" % c, v["count"], category(c, "count")))
        out.append(("locomo category %d mean" % c, v["mean"], category(c, "mean")))
    o = upstream["stats"]
    out.append(("locomo overall count", o["count"], lambda s: s["locomo"]["overall"]["count"]))
    out.append(("locomo overall mean", o["mean"], lambda s: s["locomo"]["overall"]["mean"]))
    o = upstream["overall"]
    out.append(("overall locomo_f1 mean", o["mean"], lambda s: s["overall"]["metrics"]["locomo_f1"]["mean"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--evaluation", required=True, help="path of LoCoMo's task_eval/evaluation.py")
    ap.add_argument("--stats", help="path of its evaluation_stats.py (default: beside --evaluation)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--surrogates", type=float, default=0.0, help="fraction of texts with a lone surrogate")
    ap.add_argument("--check", metavar="BIN", help="run qa-score BIN over the records and compare")
    ap.add_argument("--aggregates", metavar="FILE", help="write upstream's means to FILE as JSON")
    a = ap.parse_args()
    stats = a.stats or os.path.join(os.path.dirname(a.evaluation), "evaluation_stats.py")

    rng = random.Random(a.seed)
    draw = Draw(rng, a.surrogates)
    items, records = [], []
    for i in range(a.n):
        category = rng.randint(1, 5)
        gold = draw.gold(category)
        pred = draw.prediction(gold, category)
        items.append((pred, gold, category))
        records.append(draw.record(i, pred, gold, category))
    ems, upstream = upstream_scores(a.evaluation, stats, items)
    expected = [{"locomo_f1": em} for em in ems]
    if a.check:
        sys.exit(1 if score_check.check(a.check, records, expected, "locomo_f1", aggregates(upstream)) else 0)
    if a.aggregates:
        with open(a.aggregates, "w") as f:
            json.dump(upstream, f, indent=1, sort_keys=True)
    for rec, want in zip(records, expected):
        sys.stdout.write(score_check.record_line({"record": rec, "expected": want}))


if __name__ == "__main__":
    main()
