#!/usr/bin/env python3
"""Write random (prediction, references) pairs with the scores the reference implementations
give them, in the golden pairs' format, for a differential check of qa-score:

    scripts/random-pairs.py --family squad --seed 1 --n 30000 > /tmp/squad.jsonl
    ../shared/tools/check-metrics --pairs /tmp/squad.jsonl --qa-score bin/qa-score

--family squad: em/f1 (SQuAD v1.1), squad2_em/squad2_f1 (v2.0) and hotpot_em/hotpot_f1 over
strings of characters that steer the normaliser (Python whitespace, articles, punctuation, İ and
Σ, marks, CJK, controls, yes/no/noanswer). The scoring restates evaluate-v1.1.py,
evaluate-v2.0.py and hotpot_evaluate_v1.py with the Python standard library alone.

--family rouge: rouge1_f/rouge2_f/rougeL_f and their _nostem forms over English words mixed with
characters that steer rouge-score's tokenizer (non-ASCII letters, some of which lower to ASCII,
punctuation inside words, digits), scored by a restatement of rouge-score 0.1.2 (tokenize.py and
rouge_scorer.py, score_multi) with NLTK's PorterStemmer, so it needs NLTK like the nltk family.

--family nltk: bleu1/bleu2/bleu4, meteor and meteor_nosyn over English words (the golden pairs'
vocabulary and some inflected forms), scored by NLTK itself. It needs NLTK 3.8 (Debian:
python3-nltk, run with /usr/bin/python3) and WordNet 3.0 (Debian: wordnet-base); --wordnet names
the folder of its dict files, and a missing `lexnames` file is written into a copy.

--long F makes a fraction F of the pairs long (hundreds of words, or of the squad family's
pieces), so that the paths qa-score takes for long texts (hash tables, the bit-parallel LCS,
BLEU's n-gram tables) are compared too; references then share a larger part of the prediction.

--long-pred F (nltk family) makes a fraction F of the pairs a long prediction (40 to 800 words,
sometimes over a vocabulary of a few words, so that n-grams repeat) against short references
(24 words at most in all, pieces of the prediction and other words), the shape of the golden
corpus's long_pred pairs, which BLEU counts from the references' side.

--odd F (nltk family) makes a fraction F of the words one to three pieces of the squad family's
characters (Python whitespace, İ, Σ, marks, controls, …) and of the golden pairs' Chinese texts,
glued, so that BLEU's and METEOR's lower() and split(), the stemmer and the WordNet lookups meet
the characters of the golden corpus's edge and Chinese pairs.

--vocab FILE draws the words from FILE's text, or from its strings when it is one JSON document
(a dataset such as LoCoMo's locomo10.json), instead of the golden pairs' vocabulary (the squad
family: half its pieces, each a word and a space), so that METEOR's WordNet lookups, the Porter
stemmer and the normalisers and tokenizers meet the words of real data.

--family cmrc: cmrc_em/cmrc_f1 (CMRC 2018 v6) over texts that mix CJK ideographs (and the
characters around the script's [\u4e00-\u9fa5]: 〇, Ext-A, U+9FA6, compatibility ideographs), CJK
and full-width punctuation, ASCII words, abbreviations and clitics (Mr. U.S. don't), numbers with
decimals and commas, quotes, ellipses, sentences that Punkt splits, Python whitespace of all
kinds, emoji, combining marks, case-changing letters, any character of some blocks (Latin, Greek,
Cyrillic, symbols, CJK, full-width, astral) and pieces of real Chinese text (the golden pairs'
"zh" texts, or --vocab FILE's strings); one to four references, some of them the prediction with
punctuation, case or surrounding whitespace changed, some empty. The pairs are scored by the
official script itself, calc_em_score(refs, pred) and calc_f1_score(refs, pred) (a maximum over
references), imported from --cmrc PATH (ymcui/cmrc2018's baseline/cmrc2018_evaluate.py @ c0eb1b6,
not in this repository) with nltk.word_tokenize replaced by NLTK 3.8's own tokenizer and Punkt
parameters of pkg/textnorm/testdata/nltk_english.py (nltk_data is not installed here), as
scripts/cmrc-facts.py does; run it with /usr/bin/python3 and python3-nltk 3.8. Its pairs carry
"lang": "zh", so qa-score computes the cmrc fields for them. --long F makes F of the pairs 100 to
400 pieces long (past the 255 tokens where qa-score's longest-run search changes method);
find_lcs is quadratic in Python, so keep --n small then. --cmrc defaults to
/tmp/cmrc2018_evaluate.py, for instance from a clone of ymcui/cmrc2018:

    git show c0eb1b6:baseline/cmrc2018_evaluate.py > /tmp/cmrc2018_evaluate.py
    /usr/bin/python3 scripts/random-pairs.py --family cmrc --seed 9501 --n 20000 > /tmp/cmrc.jsonl

check-metrics reports the fields a family does not produce as "not produced" and so ends with
FAIL; what counts is "differ 0" on the fields the family has.
"""
import argparse
import json
import os
import random
import re
import string
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "pkg", "metric", "testdata", "pairs.jsonl")


def normalize_answer(s):
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def token_f1(pred_toks, gold_toks):
    same = sum((Counter(pred_toks) & Counter(gold_toks)).values())
    if same == 0:
        return 0
    precision, recall = 1.0 * same / len(pred_toks), 1.0 * same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


def squad2_f1(gold, pred):
    g = normalize_answer(gold).split() if gold else []
    p = normalize_answer(pred).split() if pred else []
    if len(g) == 0 or len(p) == 0:
        return int(g == p)
    return token_f1(p, g)


def hotpot_f1(pred, gold):
    p, g = normalize_answer(pred), normalize_answer(gold)
    if (p in ("yes", "no", "noanswer") or g in ("yes", "no", "noanswer")) and p != g:
        return 0
    return token_f1(p.split(), g.split())


SQUAD_ALPHABET = [
    "a", "an", "the", "The", "THE", "A", "x", "yes", "no", "noanswer", "No", "answer", "Paris", "1,000",
    "t.he", "a-n", " ", " ", " ", "  ", "\t", "\n", "\x1c", "\x1f", "\x85", "\xa0", "\u2000", "\u3000",
    "\u200b", "\u2028", ".", ",", "'", '"', "-", "_", "(", ")", "!", "?", "\u2019", "\u201c", "\u2014",
    "、", "。", "，", "é", "É", "ß", "ẞ", "İ", "ı", "Σ", "ΟΔΟΣ", "ς", "σ", "\u212a", "\u212b", "ﬁ", "ǅ",
    "Ⅻ", "ⅻ", "①", "²", "٣", "\u0301", "\u0307", "日本", "東京", "の", "ア", "ａ", "Ａ", "１",
    "\U0001F600", "\x00", "\x01", "\x7f", "€", "·", "ª", "º", "µ",
]


def squad_pairs(rng, n, long=0.0):
    words = golden_vocab() if VOCAB else None

    def piece():
        if words and rng.random() < 0.5:  # --vocab: a word of the dataset and a space
            return rng.choice(words) + " "
        return rng.choice(SQUAD_ALPHABET)

    def text(pieces=12):
        return "".join(piece() for _ in range(rng.randint(0, pieces)))

    for i in range(n):
        # Drawn only when --long is given, so that a seed gives the pairs it gave before it.
        pieces = rng.randint(100, 1500) if long and rng.random() < long else 12
        pred = text(pieces)
        refs = [text(pieces) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.2:
            refs.append(pred)
        if rng.random() < 0.1:
            refs.append(refs[0])
        gold2 = [a for a in refs if normalize_answer(a)] or [""]
        em = max(int(normalize_answer(pred) == normalize_answer(g)) for g in refs)
        yield pred, refs, {
            "squad_em": em,
            "squad_f1": max(token_f1(normalize_answer(pred).split(), normalize_answer(g).split()) for g in refs),
            "squad2_em": max(int(normalize_answer(g) == normalize_answer(pred)) for g in gold2),
            "squad2_f1": max(squad2_f1(g, pred) for g in gold2),
            "hotpot_em": em,
            "hotpot_f1": max(hotpot_f1(pred, g) for g in refs),
        }


LEXNAMES = ("adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute "
            "noun.body noun.cognition noun.communication noun.event noun.feeling noun.food noun.group "
            "noun.location noun.motive noun.object noun.person noun.phenomenon noun.plant "
            "noun.possession noun.process noun.quantity noun.relation noun.shape noun.state "
            "noun.substance noun.time verb.body verb.change verb.cognition verb.communication "
            "verb.competition verb.consumption verb.contact verb.creation verb.emotion verb.motion "
            "verb.perception verb.possession verb.social verb.stative verb.weather adj.ppl").split()


def wordnet_reader(folder):
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    if not os.path.exists(os.path.join(folder, "lexnames")):
        # NLTK reads lexnames at start; WordNet's dict folders do not always ship it.
        copy = tempfile.mkdtemp(prefix="wordnet-")
        for name in os.listdir(folder):
            os.symlink(os.path.join(folder, name), os.path.join(copy, name))
        pos = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}
        with open(os.path.join(copy, "lexnames"), "w") as f:
            for i, name in enumerate(LEXNAMES):
                f.write("%02d\t%s\t%d\n" % (i, name, pos[name.split(".")[0]]))
        folder = copy
    return WordNetCorpusReader(folder, None)


VOCAB = None  # --vocab FILE: draw words from its text instead of the golden pairs'
ODD = 0.0  # --odd F: the nltk family's fraction of odd words


def vocab_texts():
    """--vocab FILE's strings when it is one JSON document (a dataset's), else its lines."""
    with open(VOCAB, encoding="utf-8") as f:
        text = f.read()
    try:
        doc = json.loads(text)
    except ValueError:
        return text.splitlines()  # not one JSON document: its text as it is
    strings = []

    def walk(v):
        if isinstance(v, str):
            strings.append(v)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
    walk(doc)
    return strings


def golden_vocab():
    """The words of the golden pairs' English texts, sorted; or, with --vocab FILE, the
    whitespace-separated words of FILE's text (a JSON file's strings), such as a dataset's."""
    if VOCAB:
        return sorted(set("\n".join(vocab_texts()).split()))
    vocab = set()
    with open(GOLDEN, encoding="utf-8") as f:
        for line in f:
            p = json.loads(line)
            if p["lang"] == "en":
                for t in [p["prediction"]] + p["references"]:
                    vocab.update(t.split())
    return sorted(vocab)


ROUGE_PIECES = [
    "café", "Beyoncé", "Beyonce", "İstanbul", "İ", "\u212aelvin", "\u212a", "naïve", "1990s", "co-operate",
    "U.S.", "don't", "日本語", "ﬁle", "ǅemal", "Straße", "running", "runs", "ran", "studies", "studying",
    "this", "was", "has", "is", "generalizations", "happiness", "ponies", "dying", "skies", "news",
    "a", "the", "of", "2012", "3rd", "x2", "ＡＢＣ", "é", "\u0301", "--", "...", "\t", "\n", "_", "a_b",
]


SUFFIXES = ["s", "es", "ed", "ing", "ly", "ness", "ation", "er", "'s", "ful", "ize", "ions"]


def rouge_scores(pred, refs, stemmer):
    """The rouge fields rouge-score 0.1.2 gives: score_multi(refs, pred)[t].fmeasure, stemmed and
    not (tokenize.py and rouge_scorer.py restated)."""

    def tokenize(text, stem):
        text = re.sub(r"[^a-z0-9]+", " ", text.lower())
        tokens = re.split(r"\s+", text)
        if stem:
            tokens = [stemmer.stem(x) if len(x) > 3 else x for x in tokens]
        return [x for x in tokens if re.match(r"^[a-z0-9]+$", x)]

    def fmeasure(p, r):
        return 2 * p * r / (p + r) if p + r > 0 else 0.0

    def ngrams(tokens, k):
        return Counter(tuple(tokens[i:i + k]) for i in range(len(tokens) - k + 1))

    def rouge_n(target, pred, k):
        t, p = ngrams(target, k), ngrams(pred, k)
        overlap = sum(min(c, p[g]) for g, c in t.items())
        return fmeasure(overlap / max(sum(p.values()), 1), overlap / max(sum(t.values()), 1))

    def rouge_l(target, pred):
        if not target or not pred:
            return 0.0
        row = [0] * (len(pred) + 1)
        for a in target:
            prev = 0  # row[j-1] of the previous target token
            for j, b in enumerate(pred, 1):
                cur = row[j]
                row[j] = prev + 1 if a == b else max(row[j], row[j - 1])
                prev = cur
        lcs = row[-1]
        return fmeasure(lcs / len(pred), lcs / len(target))

    expected = {}
    for stem, suffix in ((True, ""), (False, "_nostem")):
        p = tokenize(pred, stem)
        ts = [tokenize(r, stem) for r in refs]
        # score_multi keeps, per type, the reference with the highest F.
        expected["rouge1_f" + suffix] = max(rouge_n(t, p, 1) for t in ts)
        expected["rouge2_f" + suffix] = max(rouge_n(t, p, 2) for t in ts)
        expected["rougeL_f" + suffix] = max(rouge_l(t, p) for t in ts)
    return expected


def rouge_pairs(rng, n, long=0.0):
    from nltk.stem import porter
    stemmer = porter.PorterStemmer()

    vocab = golden_vocab()

    def sentence(most=14):
        words = []
        for _ in range(rng.randint(0, most)):
            x = rng.random()
            w = rng.choice(vocab) if x < 0.6 else rng.choice(ROUGE_PIECES)
            if x > 0.95:
                w += rng.choice(ROUGE_PIECES)  # glued: "Beyoncé's", "ran日本語"
            words.append(w.upper() if rng.random() < 0.05 else w)
        return rng.choice([" ", " ", "  ", "\t"]).join(words)

    for _ in range(n):
        # Drawn only when --long is given, and without it the references take the first 10 and 5
        # words they took before it, so that a seed gives the pairs it gave then.
        most = rng.randint(40, 400) if long and rng.random() < long else 14
        cut = (max(10, most), max(5, most // 3)) if long else (10, 5)
        pred, other = sentence(most), sentence(most).split()
        refs = []
        for _ in range(rng.randint(1, 3)):
            words = pred.split()[:rng.randint(0, cut[0])] + other[:rng.randint(0, cut[1])]
            # Inflect some words, so that stemmed and unstemmed scores part.
            words = [w + rng.choice(SUFFIXES) if rng.random() < 0.25 else w for w in words]
            if rng.random() < 0.3:
                rng.shuffle(words)
            refs.append(" ".join(words) if rng.random() < 0.9 else sentence(most))
        expected = rouge_scores(pred, refs, stemmer)
        yield pred, refs, expected


def nltk_pairs(rng, n, wordnet_dir, long=0.0, long_pred=0.0):
    import warnings
    warnings.filterwarnings("ignore")
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
    from nltk.translate.meteor_score import meteor_score

    wn = wordnet_reader(wordnet_dir)

    class NoSynonyms:
        def synsets(self, *args, **kwargs):
            return []

    vocab = golden_vocab()
    forms = ["running", "ran", "runs", "better", "best", "geese", "goose", "children", "child", "cars",
             "automobile", "auto", "dogs", "cad", "went", "gone", "Was", "is", "are", "the", "a", "an",
             "of", "US", "America", "happily", "happier"]

    zh = []  # --odd: the golden pairs' Chinese texts, cut into pieces of up to 8 characters
    if ODD:
        with open(GOLDEN, encoding="utf-8") as f:
            for line in f:
                p = json.loads(line)
                if p["lang"] == "zh":
                    for t in [p["prediction"]] + p["references"]:
                        zh += [t[i:i + rng.randint(1, 8)] for i in range(0, len(t), 8)]

    def word():
        w = rng.choice(vocab) if rng.random() < 0.7 else rng.choice(forms)
        if ODD and rng.random() < ODD:  # glued with characters that steer lower() and split()
            w = "".join(rng.choice(SQUAD_ALPHABET) if rng.random() < 0.6 else rng.choice(zh or [w])
                        for _ in range(rng.randint(1, 3)))
        return w

    def sentence(most=14):
        words = [word() for _ in range(rng.randint(0, most))]
        return " ".join(w.upper() if rng.random() < 0.05 else w for w in words)

    def long_pred_pair():
        few = rng.sample(vocab + forms, rng.randint(2, 12)) if rng.random() < 0.5 else vocab + forms
        pred = [rng.choice(few) for _ in range(rng.randint(40, 800))]
        refs, room = [], rng.randint(1, 24)
        for _ in range(rng.randint(1, 3)):
            size = rng.randint(0, room)
            room -= size
            at = rng.randint(0, len(pred) - 1)
            words = pred[at:at + size]
            words += [rng.choice(few) for _ in range(size - len(words))]
            if rng.random() < 0.3:
                rng.shuffle(words)
            refs.append(" ".join(w.upper() if rng.random() < 0.05 else w for w in words))
        return " ".join(pred), refs

    method1 = SmoothingFunction().method1

    def scores(pred, refs):
        r = [x.lower().split() for x in refs]
        h = pred.lower().split()
        return {
            "bleu1": sentence_bleu(r, h, weights=(1, 0, 0, 0), smoothing_function=method1),
            "bleu2": sentence_bleu(r, h, weights=(0.5, 0.5, 0, 0), smoothing_function=method1),
            "bleu4": sentence_bleu(r, h, weights=(0.25, 0.25, 0.25, 0.25), smoothing_function=method1),
            "meteor": meteor_score(r, h, wordnet=wn),
            "meteor_nosyn": meteor_score(r, h, wordnet=NoSynonyms()),
        }

    for _ in range(n):
        if long_pred and rng.random() < long_pred:
            pred, refs = long_pred_pair()
            yield pred, refs, scores(pred, refs)
            continue
        # Drawn only when --long is given, and without it the references take the first 10 and 5
        # words they took before it, so that a seed gives the pairs it gave then.
        most = rng.randint(40, 400) if long and rng.random() < long else 14
        cut = (max(10, most), max(5, most // 3)) if long else (10, 5)
        pred, other = sentence(most), sentence(most).split()
        refs = []
        for _ in range(rng.randint(1, 3)):
            # References share words with the prediction, so that matches happen.
            words = pred.split()[:rng.randint(0, cut[0])] + other[:rng.randint(0, cut[1])]
            if rng.random() < 0.3:
                rng.shuffle(words)
            refs.append(" ".join(words) if rng.random() < 0.9 else sentence(most))
        yield pred, refs, scores(pred, refs)


CMRC_HAN = list("中文北京大学的年月日人国一二三士兵战史演武不知道") + [
    "\u4e00", "\u9fa5", "\u9fa6", "\u9fff", "\u3007", "\u3400", "\u4db5", "\uf900", "\U00020000"]
CMRC_PUNCT = list("，。！？「」《》、：；（）『』“”‘’－～·〈〉【】〔〕．＂＇｀＃％＆＊＋／＜＝＞＠＼＾＿｜") + [
    "……", "…", "——", "〜", "﹏", "︰", "﹐"]
CMRC_WORDS = [
    "Mr.", "Mrs.", "Dr.", "U.S.", "e.g.", "etc.", "vs.", "No.", "St.", "Jan.", "p.m.", "Inc.", "don't",
    "can't", "won't", "I'm", "it's", "they'll", "we've", "he'd", "gonna", "wanna", "cannot", "Smith",
    "Army", "home", "He", "went", "the", "THE", "a", "Paris", "iPhone", "COVID-19", "e-mail", "AT&T",
    "C++", "O'Neil", "rock'n'roll", "x", "I", "went home.", "Dr. Smith went home. He left",
    "U.S. Army", "ω-force", "DEV_0", "http://a.b/c?d=1", "a@b.com", "Mr.X", "J. K. Rowling", "'tis",
    "'twas", "gimme", "gotta", "lemme", "more'n", "d'ye", "--", "---", "\u2014", "a.", "b.", "5. 6.",
    "(a.)", "x.)", 'x."', "x.'", "x.]", "?)", '!"', "##", "-.", "&amp;", "[", "]", "{", "}", "<", ">",
]
CMRC_BLOCKS = [(0x20, 0x7E), (0x80, 0x24F), (0x300, 0x3FF), (0x400, 0x52F), (0x1E00, 0x1FFF), (0x2000, 0x206F),
               (0x2100, 0x218F), (0x2460, 0x24FF), (0x2E80, 0x2FDF), (0x3000, 0x30FF), (0x3400, 0x4DBF),
               (0x9F00, 0x9FFF), (0xF900, 0xFAFF), (0xFE10, 0xFE6F), (0xFF00, 0xFFEF), (0x10400, 0x1044F),
               (0x1D400, 0x1D7FF), (0x1F000, 0x1FAFF), (0x20000, 0x2A6DF), (0, 0x10FFFF)]
CMRC_ENDS = [".", ".", ".", "?", "!", "...", '."', ".'", ".)", "?!", ". .", ".\n", "!)", ".--", ".\u201d"]
CMRC_NUMBERS = ["3.5", "1,000", "1,234.56", "2018", "12:30", "-5", "+3", "50%", "$3.50", "1.", "3.14159",
                "10,000,000", "0.5", "1/2", "2nd", "1990s", "１２３", "٣", "1998年", ".5", "5."]
CMRC_QUOTES = ['"', "'", "``", "''", "«", "»", "\u2018", "\u2019", "\u201c", "\u201d", "'s", "s'", "'ll", "n't"]
CMRC_ELLIPSES = ["...", "…", "……", ". . .", "..", "....", "!!", "?!", "!?", ".", ". ", "? ", "! "]
CMRC_ASCII = list(".,!?();:-_*^/\\~`+=[]{}<>&#@%|$")
CMRC_SPACES = [" ", " ", " ", "  ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f",
               "\x85", "\xa0", "\u1680", "\u2000", "\u2003", "\u200a", "\u2028", "\u2029", "\u202f",
               "\u205f", "\u3000", "\u200b", "\ufeff", "\u180e", "\x00"]
CMRC_ODD = ["😀", "👍🏽", "👨\u200d👩\u200d👧", "❤️", "🇨🇳", "✨", "\u0301", "\u0307", "\u0308", "\u20dd",
            "e\u0301", "é", "İ", "Σ", "ς", "ΟΔΟΣ", "ß", "ẞ", "\u212a", "ﬁ", "ǅ", "Ⅻ", "ａ", "Ａ", "ｶ", "の",
            "ア", "한", "À", "Ω", "\u10fc", "\ua7f2", "\ua7f4", "\uab69", "\u02b0", "\u1d2c", "ª", "ⅰ", "Ⅰ"]
# The last nine: Lowercase/Uppercase letters outside Ll/Lu, the first four lowercase only in Unicode
# 15.0 (not for CPython 3.11), which Punkt's orthographic heuristic reads after a sentence end.


def cmrc_texts():
    """Real Chinese text for the cmrc family: the golden pairs' "zh" texts or, with --vocab FILE,
    FILE's strings (a JSON document's, such as /work/shared/data/cmrc2018's) or its lines."""
    texts = []
    if VOCAB:
        texts = vocab_texts()
    else:
        with open(GOLDEN, encoding="utf-8") as f:
            for line in f:
                p = json.loads(line)
                if p["lang"] == "zh":
                    texts += [p["prediction"]] + p["references"]
    return [t for t in texts if t]


def cmrc_pairs(rng, n, script, long=0.0):
    import importlib.util

    import nltk
    sys.path.insert(0, os.path.join(HERE, "..", "pkg", "textnorm", "testdata"))
    from nltk_english import word_tokenize
    nltk.word_tokenize = word_tokenize  # the script calls nltk.word_tokenize at run time
    spec = importlib.util.spec_from_file_location("cmrc2018_evaluate", script)
    cmrc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cmrc)
    texts = cmrc_texts()
    kinds = [(CMRC_HAN, 25), (CMRC_PUNCT, 10), (CMRC_WORDS, 12), (CMRC_NUMBERS, 6), (CMRC_QUOTES, 5),
             (CMRC_ELLIPSES, 5), (CMRC_ASCII, 6), (CMRC_SPACES, 6), (CMRC_ODD, 6), (CMRC_ENDS, 8),
             (CMRC_BLOCKS, 6), (None, 19)]  # None: a piece of real text
    weights = [w for _, w in kinds]

    def piece():
        pieces = rng.choices(kinds, weights)[0][0]
        if pieces is CMRC_ENDS:  # a sentence: Punkt splits the run, or takes an abbreviation
            words = [rng.choice(CMRC_WORDS) for _ in range(rng.randint(1, 5))]
            return " ".join(w.capitalize() if rng.random() < 0.3 else w for w in words) + rng.choice(CMRC_ENDS)
        if pieces is CMRC_BLOCKS:  # any character of a block, so that unlisted neighbours meet
            lo, hi = rng.choice(CMRC_BLOCKS)
            c = rng.randint(lo, hi)
            return chr(c) if not 0xD800 <= c < 0xE000 else "\ufffd"
        if pieces is None:  # a piece of real text
            t = rng.choice(texts)
            at = rng.randrange(len(t))
            return t[at:at + rng.randint(1, 10)]
        p = rng.choice(pieces)
        return p.upper() if rng.random() < 0.05 else p

    def pieces(most):
        out = []
        for _ in range(rng.randint(0, most)):
            out.append(piece())
            x = rng.random()
            if x < 0.35:
                out.append(" ")
            elif x < 0.45:
                out.append(rng.choice(CMRC_SPACES))
        return out

    def perturb(s):
        """s with the script's punctuation, case or surrounding whitespace changed, which EM
        ignores, or with a character dropped or added, which it does not."""
        for _ in range(rng.randint(1, 3)):
            x, at = rng.random(), rng.randint(0, len(s))
            if x < 0.35:
                s = s[:at] + rng.choice(["-", ":", "_", "*", "/", "\\", "~", "`", "+", "=", "，", "。", "：",
                                         "？", "！", "“", "”", "；", "’", "《", "》", "·", "、", "「", "」",
                                         "（", "）", "－", "～", "『", "』"]) + s[at:]
            elif x < 0.5:
                s = s.upper() if rng.random() < 0.5 else s.swapcase()
            elif x < 0.7:
                s = rng.choice(CMRC_SPACES) + s + rng.choice(CMRC_SPACES)
            elif x < 0.85 and s:
                s = s[:at] + s[at + 1:]
            else:
                s = s[:at] + piece() + s[at:]
        return s

    for _ in range(n):
        most = rng.randint(100, 400) if rng.random() < long else 12
        pp = pieces(most)
        pred = "".join(pp)
        refs = []
        for _ in range(rng.randint(1, 4)):
            x = rng.random()
            if x < 0.08:
                refs.append("")
            elif x < 0.18:
                refs.append(pred)
            elif x < 0.4:
                refs.append(perturb(pred))
            elif x < 0.75:  # a slice of the prediction's pieces among others
                at = rng.randint(0, len(pp))
                r = pieces(max(2, most // 4)) + pp[at:at + rng.randint(0, most)] + pieces(max(2, most // 4))
                refs.append("".join(r))
            else:
                refs.append("".join(pieces(most)))
        if rng.random() < 0.03:
            pred = rng.choice(["", " ", "\u3000", "\x85", "，", "……"])
        yield pred, refs, {
            "cmrc_em": cmrc.calc_em_score(refs, pred),
            "cmrc_f1": float(cmrc.calc_f1_score(refs, pred)),
        }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", choices=["squad", "rouge", "nltk", "cmrc"], required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--wordnet", default="/usr/share/wordnet", help="WordNet 3.0 dict folder (nltk family)")
    ap.add_argument("--long", type=float, default=0.0, help="fraction of long pairs (0 to 1)")
    ap.add_argument("--long-pred", type=float, default=0.0,
                    help="nltk family: fraction of long predictions against short references (0 to 1)")
    ap.add_argument("--vocab", help="draw words from this file's text (a JSON file's strings), a dataset's, "
                    "instead of the golden pairs' (squad family: half its pieces; cmrc family: its "
                    "strings are the real text cut into pieces)")
    ap.add_argument("--cmrc", default="/tmp/cmrc2018_evaluate.py",
                    help="cmrc family: path of ymcui/cmrc2018's baseline/cmrc2018_evaluate.py (@ c0eb1b6)")
    ap.add_argument("--odd", type=float, default=0.0,
                    help="nltk family: fraction of words made of the squad family's pieces and Chinese text")
    a = ap.parse_args()
    global VOCAB, ODD
    VOCAB, ODD = a.vocab, a.odd
    rng = random.Random(a.seed)
    if a.family == "squad":
        pairs = squad_pairs(rng, a.n, a.long)
    elif a.family == "rouge":
        pairs = rouge_pairs(rng, a.n, a.long)
    elif a.family == "cmrc":
        if not os.path.isfile(a.cmrc):
            sys.exit("random-pairs.py: %s: no such file (give --cmrc the path of cmrc2018_evaluate.py)" % a.cmrc)
        pairs = cmrc_pairs(rng, a.n, a.cmrc, a.long)
    else:
        pairs = nltk_pairs(rng, a.n, a.wordnet, a.long, a.long_pred)
    for i, (pred, refs, expected) in enumerate(pairs):
        json.dump({"id": "%s%d" % (a.family, i), "prediction": pred, "references": refs,
                   "lang": "zh" if a.family == "cmrc" else "en",
                   "expected": expected}, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main()
