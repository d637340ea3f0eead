#!/usr/bin/env python3
"""Check qa-score's LongMemEval aggregates against LongMemEval's own print_qa_metrics.py over
random judged runs:

    git --git-dir LongMemEval/.git show HEAD:src/evaluation/print_qa_metrics.py > /tmp/lme/print_qa_metrics.py
    /usr/bin/python3 scripts/random-longmemeval-metrics.py \\
        --print-qa-metrics /tmp/lme/print_qa_metrics.py --seed 1 --cases 300 --check bin/qa-score

Each case is a run of 1 to 300 judged questions: question types drawn from the six (all six
present, as in the benchmark's 500 questions; now and then a question judged twice, which both
count), question ids that hold "_abs" or not (at the end as
LongMemEval writes them, elsewhere, twice, or near misses such as "_ABS", "abs" and "_ab_s",
which print_qa_metrics.py's substring test does not count), and verdicts 0 or 1. Upstream reads
the run as evaluate_qa.py writes it (one JSON line per question with autoeval_label {"model",
"label"}) beside the reference file (a JSON list with question_id and question_type), and its
script is run as it is, but for round(), which it applies only to what it prints, so that the
means are compared unrounded. qa-score reads the same run as qa-judge writes it (a record per
question, its id "longmemeval:" and the question id, its judgment "longmemeval/gpt-4o" with the
verdict as score) and prints its summary (--summary - --metrics judge_score --bootstrap 0); each
type's mean and count, the task-averaged, overall and abstention accuracies (and the abstention
count) must agree exactly, to the last bit (numpy prints a float64 as the shortest text that reads
back as it). Now and then every type has one accuracy, whose six copies summed and divided by six
are not always that accuracy (six of 0.1 give 0.09999999999999999). The script prints the counts and every difference as
a JSON line, and exits 1 when any differ.

It needs LongMemEval's script (https://github.com/xiaowu0162/LongMemEval, MIT, not part of
qapipe) and numpy (Debian python3-numpy; run with /usr/bin/python3).
"""
import argparse
import contextlib
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import warnings

TYPES = ['single-session-user', 'single-session-preference', 'single-session-assistant',
         'multi-session', 'temporal-reasoning', 'knowledge-update']
MODEL = 'gpt-4o-2024-08-06'


def question_id(rng, n):
    """A question id: LongMemEval's hex-like ids, with "_abs" where its abstention questions
    have it, elsewhere, or a near miss."""
    base = '%08x' % rng.getrandbits(32) + '_%d' % n
    r = rng.random()
    if r < 0.25:
        return base + '_abs'
    if r < 0.30:
        return '_abs' + base
    if r < 0.35:
        return base[:4] + '_abs' + base[4:] + '_abs'
    if r < 0.45:
        return base + rng.choice(['_ABS', 'abs', '_ab_s', '-abs', '_Abs', ' abs'])
    return base


def draw_case(rng):
    if rng.random() < 0.15:
        # Every type with one accuracy: the six equal means' sum over six is not always that
        # mean (six of 0.1 give 0.09999999999999999), which a mean held to its values' range hid.
        k = rng.randint(1, 20)
        j = rng.randint(0, k)
        types = [t for t in TYPES for _ in range(k)]
        labels = [i < j for _ in TYPES for i in range(k)]
        order = list(range(len(types)))
        rng.shuffle(order)
        return [{'question_id': question_id(rng, n), 'question_type': types[i], 'label': labels[i]}
                for n, i in enumerate(order)]
    n = rng.choice([6, 7, 12, 30, 100, rng.randint(6, 300)])
    types = TYPES + [rng.choice(TYPES) for _ in range(n - len(TYPES))]
    rng.shuffle(types)
    p = rng.random()  # this run's accuracy
    case = [{'question_id': question_id(rng, i), 'question_type': t, 'label': rng.random() < p}
            for i, t in enumerate(types)]
    if rng.random() < 0.2:  # a question judged twice (a run concatenated with its rerun): both count
        for _ in range(rng.randint(1, 5)):
            q = dict(rng.choice(case), label=rng.random() < p)
            case.insert(rng.randrange(len(case) + 1), q)
    return case


def upstream(script, case, tmp):
    """print_qa_metrics.py's figures for case, unrounded."""
    in_file, ref_file = os.path.join(tmp, 'in.jsonl'), os.path.join(tmp, 'ref.json')
    with open(in_file, 'w') as f:
        for q in case:
            f.write(json.dumps({'question_id': q['question_id'], 'hypothesis': 'x',
                                'autoeval_label': {'model': MODEL, 'label': q['label']}}) + '\n')
    with open(ref_file, 'w') as f:
        json.dump([{'question_id': q['question_id'], 'question_type': q['question_type']} for q in case], f)
    src = open(script).read()
    out = io.StringIO()
    warnings.simplefilter('ignore', RuntimeWarning)  # numpy's over a run without "_abs" ids (nan)
    argv = sys.argv
    sys.argv = ['print_qa_metrics.py', in_file, ref_file]
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(src, script, 'exec'), {'__name__': '__main__', 'round': lambda x, n=None: x})
    finally:
        sys.argv = argv
    got = {'by_type': {}}
    for line in out.getvalue().splitlines():
        line = line.strip()
        if line.startswith('Task-averaged Accuracy:'):
            got['task_averaged'] = float(line.split(':', 1)[1])
        elif line.startswith('Overall Accuracy:'):
            got['overall'] = float(line.split(':', 1)[1])
        elif line.startswith('Abstention Accuracy:'):
            v, n = line.split(':', 1)[1].rsplit('(', 1)
            got['abstention'] = (float(v), int(n.rstrip(')')))
        elif ': ' in line and line.split(':', 1)[0] in TYPES:
            t, rest = line.split(': ', 1)
            v, n = rest.rsplit(' (', 1)
            got['by_type'][t] = (float(v), int(n.rstrip(')')))
    return got


def qapipe(binary, case):
    """qa-score's LongMemEval summary section for case."""
    lines = []
    for q in case:
        lines.append(json.dumps({
            'schema': 1, 'id': 'longmemeval:' + q['question_id'], 'dataset': 'longmemeval',
            'type': q['question_type'], 'question': 'q', 'answers': ['a'], 'prediction': {'text': 'x'},
            'judgments': {'longmemeval/gpt-4o': {'score': 1 if q['label'] else 0, 'label': 'yes' if q['label'] else 'no',
                                                 'mode': 'longmemeval', 'model': MODEL}}}))
    p = subprocess.run([binary, '--summary', '-', '--metrics', 'judge_score', '--bootstrap', '0'],
                       input='\n'.join(lines) + '\n', capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit('%s exited %d: %s' % (binary, p.returncode, p.stderr))
    return json.loads(p.stdout)['longmemeval']


def compare(want, got):
    """The differences between upstream's figures and qa-score's section, as strings."""
    diffs = []

    def close(a, b):  # to the last bit: np.mean of 0/1 verdicts, and of six type means, is exact to mimic
        return a is not None and b is not None and a == b

    for t in TYPES:
        w, g = want['by_type'].get(t), got['by_type'].get(t)
        if g is None or not close(w[0], g['mean']) or w[1] != g['count']:
            diffs.append('type %s: upstream %r, qa-score %r' % (t, w, g))
    for k in ('task_averaged',):
        if not close(want[k], got[k]):
            diffs.append('%s: upstream %r, qa-score %r' % (k, want[k], got[k]))
    if not close(want['overall'], got['overall']['mean']) or got['overall']['count'] != sum(n for _, n in want['by_type'].values()):
        diffs.append('overall: upstream %r, qa-score %r' % (want['overall'], got['overall']))
    wa, ga = want['abstention'], got.get('abstention')
    if wa[1] == 0:  # upstream prints nan over no question
        if ga is not None and ga.get('count', 0) != 0:
            diffs.append('abstention: upstream none, qa-score %r' % (ga,))
    elif ga is None or not close(wa[0], ga['mean']) or wa[1] != ga['count']:
        diffs.append('abstention: upstream %r, qa-score %r' % (wa, ga))
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--print-qa-metrics', required=True, help="LongMemEval's src/evaluation/print_qa_metrics.py")
    ap.add_argument('--check', required=True, metavar='BIN', help='the qa-score binary')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--cases', type=int, default=100)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    differ = values = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.cases):
            case = draw_case(rng)
            diffs = compare(upstream(args.print_qa_metrics, case, tmp), qapipe(args.check, case))
            values += len(TYPES) * 2 + 4
            for d in diffs:
                differ += 1
                print(json.dumps({'case': i, 'difference': d}))
    print('%d cases, %d values compared: %d differ' % (args.cases, values, differ))
    sys.exit(1 if differ else 0)


if __name__ == '__main__':
    main()
