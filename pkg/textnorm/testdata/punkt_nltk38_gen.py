"""Writes punkt_nltk38.jsonl: random English-like and punctuation-heavy strings with the sentences
and tokens NLTK 3.8 gives them (PunktSentenceTokenizer with the parameters of ../punkt_english.tsv,
then NLTKWordTokenizer, i.e. nltk.word_tokenize). Run from pkg/textnorm with Debian's
python3-nltk 3.8: python3 testdata/punkt_nltk38_gen.py > testdata/punkt_nltk38.jsonl"""
import json, random
from nltk_english import sents, words

WORDS = ["dr.", "Dr.", "mr.", "Mr.", "u.s.", "U.S.", "a.m.", "p.m.", "etc.", "inc.", "Inc.", "co.",
    "jan.", "no.", "vs.", "e.g.", "i.e.", "J.", "j.", "S.", "A.", "b.", "smith", "Smith", "He", "he",
    "The", "the", "However", "went", "home", "home.", "It", "it", "left", "3.5", "1,000", "2.",
    "1998.", "12", "-5", "3,5", ".5", "can't", "cannot", "Cannot", "gonna", "gimme", "wanna",
    "lemme", "gotta", "'tis", "'Twas", "d'ye", "more'n", "don't", "I'm", "they'll", "we're",
    "you've", "he'd", "it's", "O'Neil", "rock'n'roll", "'a'", "ca", "Magnin", "i.", "magnin", "Bach",
    "S.A.", "n't", "'s", "'", "''", "``", '"', "(", ")", "[", "]", "{", "}", "<", ">", "--", "-",
    "...", ". . .", "..", "?", "!", "?!", "!!!", ",", ";", ":", "@", "#", "$", "%", "&", "*", "«",
    "»", "“", "”", "‘", "’", "„", "`", "´", "hello,world", "a:b", "10:30", "北京", "大学", "é",
    "Ünïcode", "ǅ", "ΣΑΣ", "straße", "İstanbul", "x-ray", "re-elect", "co-op.", "1.", "a.", "_",
    "__init__", "x_y.", "²", "Ⅻ", "sales", "Sales", "Meanwhile", "meanwhile", "aug.", "Aug.",
    "cbot", "CBOT", "##number##", "ſ", "K", "'m", "'S", "N'T", "'LL", "'re"]
SPACES = [" "] * 12 + ["  ", "\n", "\t", "\u3000", "\xa0", "\x1c", " \n\n ", "\r\n", "\x0b", "\u2028"]
CHARS = list("abcdeimnstAMST.'\"` ,;:?!()[]{}<>-–—…*@#$%&«»“”‘’„_01259ſıİΣσ北 \n\t\u3000\xa0\x1c\x85")

def phrase(rng):
    s = ""
    for _ in range(rng.randint(1, 12)):
        w = rng.choice(WORDS)
        if rng.random() < 0.15: w = w.upper()
        if rng.random() < 0.3 and s and s[-1] not in " \n": s += w
        else: s += (rng.choice(SPACES) if s else "") + w
    if rng.random() < 0.3: s = rng.choice(SPACES) + s
    if rng.random() < 0.3: s += rng.choice(SPACES)
    return s.lower() if rng.random() < 0.3 else s

rng = random.Random(38)
for i in range(2000):
    s = phrase(rng) if i % 3 else "".join(rng.choice(CHARS) for _ in range(rng.randint(0, 25)))
    out = sents.tokenize(s)
    print(json.dumps({"text": s, "sentences": out, "tokens": [t for x in out for t in words.tokenize(x)]}, ensure_ascii=False))
