#!/usr/bin/env python3
"""Write what Python says of every code point, for the exhaustive check of qapipe's Python text
rules (textnorm.Lower, IsSpace, IsAlnum, DecimalValue and prompt.Repr):

    python3 scripts/unicode-facts.py > /tmp/unicode-facts.tsv
    QA_UNICODE_FACTS=/tmp/unicode-facts.tsv go test ./internal/python -run UnicodeFacts

With --digest it prints only the SHA-256 of those lines (the header left out), the value
TestUnicodeFactsDigest holds the Go functions to on every run.

One line per code point but the surrogates: hex code point, unicodedata.decimal (or -1),
str.isalnum, str.isspace, then JSON strings of str.lower() and repr(). The reference interpreter
is CPython 3.11 (Unicode 14.0), the one the golden outputs came from; another version gives other
facts for the code points Unicode added since.
"""
import json
import sys
import unicodedata

from codepoint_facts import write


def lines():
    for c in range(0x110000):
        if 0xD800 <= c < 0xE000:
            continue
        ch = chr(c)
        yield ("%x\t%d\t%d\t%d\t%s\t%s\n" % (c, unicodedata.decimal(ch, -1), ch.isalnum(), ch.isspace(),
                                                json.dumps(ch.lower()), json.dumps(repr(ch))))


write(lines(), "# python %s unicode %s\n" % (sys.version.split()[0], unicodedata.unidata_version))
