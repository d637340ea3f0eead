"""The output of the scripts that write facts of every code point (unicode-facts.py,
normalizer-facts.py): imported by them, not run."""
import hashlib
import os
import sys


def write(lines, header):
    """Write header (a "#" line naming the versions, which the digest leaves out) and lines as
    UTF-8 on standard output, or with --digest only the SHA-256 of lines. -h or --help prints the
    script's docstring instead; another argument is a usage error, not ignored."""
    args = sys.argv[1:]
    if "-h" in args or "--help" in args:
        print(sys.modules["__main__"].__doc__.strip())
        return
    if args not in ([], ["--digest"]):
        sys.exit("usage: %s [--digest]" % os.path.basename(sys.argv[0]))
    if args:
        h = hashlib.sha256()
        for line in lines:
            h.update(line.encode("utf-8"))
        print(h.hexdigest())
        return
    out = sys.stdout.buffer
    out.write(header.encode("utf-8"))
    for line in lines:
        out.write(line.encode("utf-8"))
