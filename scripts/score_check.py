"""The differential check of random-locomo-f1.py and random-hotpot.py --check: run qa-score over
their records and compare its scores and summary with what the benchmark's own script gave
(imported by them, not run)."""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

TOLERANCE = 1e-9
ESCAPED = re.compile("[\ud800-\udfff\x85\u2028\u2029]")
SURROGATE = re.compile("[\ud800-\udfff]")


def record_line(rec, separators=False):
    """rec (a record, or any JSON value) as one JSON line of UTF-8 text: characters written as
    they are, but a lone surrogate, which UTF-8 cannot hold, as its \\u escape, which Python's
    json reads back as that surrogate, and U+0085, U+2028 and U+2029 as theirs, as qapipe's
    stages write them, so that Python's splitlines() does not cut the line (with separators, they
    are written as they are, as JSON allows)."""
    text = json.dumps(rec, ensure_ascii=False)
    return (SURROGATE if separators else ESCAPED).sub(lambda m: "\\u%04x" % ord(m.group()), text) + "\n"


BAD_LINE = re.compile(r':\d+ \(id "(.*?)"\): (.*)')


def qa_score(binary, path, args):
    """The stdout and stderr of binary run with args over the records file path; an exit code
    other than 0 or 3 (bad records, which the comparison names) is reported on stderr."""
    run = subprocess.run([binary] + args + [path], capture_output=True, text=True)
    if run.returncode not in (0, 3):
        sys.stderr.write("%s %s: exit %d\n%s" % (binary, " ".join(args), run.returncode, run.stderr[-4000:]))
    return run.stdout, run.stderr


def differs(want, got):
    return got is None or not isinstance(got, (int, float)) or math.isnan(got) or abs(got - want) > TOLERANCE


def check(binary, records, expected, metrics, aggregates, out=sys.stdout, summary_args=()):
    """Run binary --metrics metrics over records, then with --summary -, and compare: each
    record's scores with expected (a dict per record: score name to upstream's value; a selected
    score that upstream has not must be absent), and each aggregate, a tuple (name, upstream's
    value, a function from qa-score's JSON summary to its value). Writes the counts and every
    difference, one JSON line each, to out (a record qa-score refused as a bad line with its
    message, its values counted as differing); returns the number of differences. The records'
    ids must be distinct. summary_args are given to the summary's run alone (--missing-as-zero)."""
    with tempfile.TemporaryDirectory(prefix="qa-score-check-") as d:
        path = os.path.join(d, "records.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for rec in records:
                f.write(record_line(rec, separators=True))  # qa-score reads lines to \n
        stdout, stderr = qa_score(binary, path, ["--metrics", metrics])
        summary = json.loads(qa_score(binary, path, ["--metrics", metrics, "--bootstrap", "0", "--summary", "-"] + list(summary_args))[0]
                             or "null")
    scored = {r["id"]: r for r in map(json.loads, stdout.splitlines())}
    refused = {}  # id: qa-score's message for a record it took for a bad line
    for line in stderr.splitlines():
        m = BAD_LINE.search(line)
        if m:
            refused.setdefault(json.loads('"%s"' % m.group(1)), m.group(2))
    selected = set(metrics.split(","))
    compared = same = bad = 0
    for rec, want in zip(records, expected):
        if rec["id"] not in scored:
            compared += len(want)
            bad += len(want)
            out.write(record_line({"id": rec["id"], "refused": refused.get(rec["id"], "no record written"),
                                   "upstream": want, "record": rec}))
            continue
        scores = scored[rec["id"]].get("scores", {})
        for name in sorted(selected & (set(want) | set(scores))):
            compared += 1
            w, g = want.get(name), scores.get(name)
            if w is not None and g == w:
                same += 1
            elif w is None or differs(w, g):
                bad += 1
                out.write(record_line({"id": rec["id"], "metric": name, "upstream": w, "qapipe": g, "record": rec}))
    for name, w, get in aggregates:
        compared += 1
        try:
            g = get(summary)
        except (KeyError, IndexError, TypeError, StopIteration):
            g = None
        if g == w:
            same += 1
        elif differs(w, g):
            bad += 1
            out.write(record_line({"aggregate": name, "upstream": w, "qapipe": g}))
    out.write("%d records, %d values compared (%d per record, %d aggregates): %d differ by more than %g, "
              "%d bit-identical\n" % (len(records), compared, compared - len(aggregates), len(aggregates),
                                     bad, TOLERANCE, same))
    return bad
