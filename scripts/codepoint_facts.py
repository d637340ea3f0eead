"""The output of the scripts that write facts of every code point (unicode-facts.py,
normalizer-facts.py): imported by them, not run."""
import hashlib
import sys


def write(lines, header):
    """Write header (a "#" line naming the versions, which the digest leaves out) and lines as
    UTF-8 on standard output, or with --digest among the arguments only the SHA-256 of lines."""
    if "--digest" in sys.argv[1:]:
        h = hashlib.sha256()
        for line in lines:
            h.update(line.encode("utf-8"))
        print(h.hexdigest())
        return
    out = sys.stdout.buffer
    out.write(header.encode("utf-8"))
    for line in lines:
        out.write(line.encode("utf-8"))
