#!/usr/bin/env python3
"""Write the code points the third-party regex module (mrab-regex) matches with \\w on str, as
ranges, for textnorm's exhaustive check of the word rule of LoCoMo's normalize_answer (its \\b):

    /usr/bin/python3 scripts/regex-word.py > pkg/textnorm/testdata/regex_word_ranges.txt

Run it with Debian 12's python3-regex (2022.x, the one LoCoMo's vectors came from): the module
carries its own Unicode tables (15.0 there, while CPython 3.11 has 14.0). One line per range of
consecutive code points, "first last" in hex; surrogates are left out.
"""
import sys

import regex

if sys.argv[1:] in (["-h"], ["--help"]):
    print(__doc__.strip())
    sys.exit(0)
if sys.argv[1:]:
    sys.exit("usage: regex-word.py")
out = sys.stdout
out.write("# regex %s: code points matched by \\w\n" % regex.__version__)
start = None
for c in range(0x110001):
    word = c < 0x110000 and not 0xD800 <= c < 0xE000 and regex.match(r"\w", chr(c)) is not None
    if word and start is None:
        start = c
    elif not word and start is not None:
        out.write("%x %x\n" % (start, c - 1))
        start = None
