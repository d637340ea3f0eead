"""Prints the largeShapes table of treebank_large_test.go from NLTK 3.8 itself: for each unit, the
tokens nltk.word_tokenize (english Punkt with the parameters of ../punkt_english.tsv, then
NLTKWordTokenizer) gives n copies of it, as head + body * (n - trim) + tail, found on 20 to 40
copies and then checked on 256 kB (the size the test uses). Run from pkg/textnorm with Debian's
python3-nltk 3.8: /usr/bin/python3 testdata/wordtok_shapes_nltk38.py"""
import json
from nltk_english import word_tokenize as tokenize

UNITS = ["!", "?!", ".)", "a!b!c!", "! ", ". ", ". . . ", "... ", "A. B. C. ", "Dr. ", "U.S. ", "x.) ",
    '." ', "?' ", 'He said "hi". ', '"', "''", "x' ", "'a ", " 'x", "'s ", "don't ", "can't won't ",
    "cannot ", "'tis ", "«", "“", "` ", "(", "--", "a,b,", "a:b:", "1,234.5 "]

def pattern(unit):
    toks = {n: tokenize(unit * n) for n in range(20, 41)}
    step = len(toks[21]) - len(toks[20])
    for h in range(12):
        for trim in range(-3, 6):
            body = toks[30][h:h + step]
            if all(toks[n] == toks[20][:h] + body * (n - trim) + toks[20][h + step * (20 - trim):]
                   for n in range(20, 41)):
                return toks[20][:h], body, trim, toks[20][h + step * (20 - trim):]
    raise ValueError("no pattern for %r" % unit)

def go(x):
    return "`%s`" % x if '"' in x and "`" not in x else json.dumps(x, ensure_ascii=False)

for unit in UNITS:
    head, body, trim, tail = pattern(unit)
    n = (256 << 10) // len(unit.encode())
    assert tokenize(unit * n) == head + body * (n - trim) + tail, unit
    fields = ["unit: " + go(unit)]
    if head: fields.append("head: []string{%s}" % ", ".join(map(go, head)))
    fields.append("body: []string{%s}" % ", ".join(map(go, body)))
    if trim: fields.append("trim: %d" % trim)
    if tail: fields.append("tail: []string{%s}" % ", ".join(map(go, tail)))
    print("\t{%s}," % ", ".join(fields))
