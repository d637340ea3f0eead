#!/usr/bin/env python3
"""Check qa-score's LoCoMo judge aggregates (the summary's locomo_judge section) against mem0's and
MAGMA's own evaluation code over random judged runs:

    git --git-dir mem0/.git archive 9315e3036^ evaluation mem0/memory/utils.py | tar -x -C /tmp/mem0
    git --git-dir MAMGA/.git archive HEAD memory load_dataset.py test_fixed_memory.py | tar -x -C /tmp/magma
    /usr/bin/python3 scripts/random-locomo-judge-metrics.py --mem0 /tmp/mem0 --magma /tmp/magma \\
        --seed 1 --cases 300 --check bin/qa-score

(mem0 moved evaluation/ out of its repository in 9315e3036; the parent holds it.) Each case is a
run of 1 to 10 conversations of 1 to 60 questions each, categories 1 to 5 drawn at random, judged
in one of the two modes, and upstream's code is run as it is, its API clients stubbed:

mem0: evals.py's main (category 5 skipped there; its judge, metrics/llm_judge.py's
evaluate_llm_judge, reads the fake model's reply: CORRECT, WRONG, a fenced object, near misses
such as "correct") writes evaluation_metrics.json, and generate_scores.py reads it, its round(4)
made the identity, so that the means are compared unrounded. qa-score gets the run as qa-judge
--mode mem0 writes it: a judgment scored 1 iff the label is exactly "CORRECT", none on category 5.

MAGMA: test_fixed_memory.py's main over a LoCoMo-format dataset (--sample with every conversation,
--category-to-test 1,2,3,4 or 1,2,3,4,5, --no-parallel, --best-of-n 1; one quote in its banner changed for Python 3.11), its memory builder and
query engine stubbed and TestHarness.answer_question giving the drawn prediction; its Evaluator and
LLMJudge judge with the fake model's score (MAGMA's steps, 0.2 apart, other values, and values
outside 0 to 1, which it clamps) and decide category 5 by their own phrase rule. qa-score gets the
run as qa-judge --mode locomo-continuous writes it: the clamped score, and on category 5 the
verdict of qa-judge's own rule (run here: qa-judge --mode adversarial, the same rule). Upstream's
figures are read from the JSON it saves, unrounded (its printed ones are percentages to one
decimal): for one conversation the sample's overall, without-category-5 and per-category means
(against the pooled ones), for several the aggregate's mean over samples and per category (against
conversation_averaged, the counts being the conversations).

Means must agree to 1e-9 (upstream's percentages divided by 100), counts exactly. The script
prints the counts and every difference as a JSON line, and exits 1 when any differ. qa-judge is
taken from beside the qa-score binary (--judge-bin to name another).

It needs mem0's and MAGMA's code (https://github.com/mem0ai/mem0, Apache-2.0;
https://github.com/FredJiang0324/MAMGA, MIT; neither part of qapipe) and pandas and numpy (Debian
python3-pandas; run with /usr/bin/python3). It never reaches the network.
"""
import argparse
import ast
import contextlib
import importlib.util
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import types

TYPES = {1: 'multi_hop', 2: 'temporal', 3: 'open_domain', 4: 'single_hop', 5: 'adversarial'}
JUDGE = 'gpt-4o-mini'
PREDICTIONS = ['Paris', 'In May 2023', 'She went hiking', 'Yes', 'No', '', 'Not mentioned in the conversation',
               'unknown', 'N/A', 'none', 'No information available', 'I cannot answer that', 'The data is insufficient',
               'Unanswerable', 'not found anywhere', 'That is not provided', 'She likes cats', 'nothing known']
MEM0_REPLIES = [('{"label": "CORRECT"}', 'CORRECT'), ('{"label": "WRONG"}', 'WRONG'),
                ('```json\n{"label": "CORRECT"}\n```', 'CORRECT'), ('The answer matches. {"label": "CORRECT"}', 'CORRECT'),
                ('{"label": "correct"}', 'correct'), ('{"label": "CORRECT."}', 'CORRECT.'), ('{"label": "Wrong"}', 'Wrong')]


def draw_score(rng):
    """A MAGMA judge's raw score: its 0.2 steps mostly, else any value, a few outside 0 to 1."""
    r = rng.random()
    if r < 0.6:
        return rng.choice([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    if r < 0.9:
        return rng.random()
    return rng.choice([-0.5, 1.5, 2, -1, 0.95, 1e-300])


def draw_case(rng):
    mode = rng.choice(['mem0', 'magma'])
    cats = rng.choice([[1, 2, 3, 4], [1, 2, 3, 4, 5]]) if mode == 'magma' else [1, 2, 3, 4, 5]
    convs = []
    for c in range(rng.choice([1, 2, 3, rng.randint(1, 10)])):
        n = rng.choice([1, 3, 10, rng.randint(1, 60)])
        weights = [rng.random() for _ in cats]
        qs = []
        for i in range(n):
            cat = rng.choices(cats, weights)[0]
            q = {'index': i, 'category': cat, 'question': 'Q%d_%d?' % (c, i), 'answer': 'A%d' % i,
                 'prediction': rng.choice(PREDICTIONS)}
            if mode == 'mem0':
                q['reply'] = rng.choice(MEM0_REPLIES)
            else:
                q['raw'] = draw_score(rng)
            qs.append(q)
        if not any(q['category'] != 5 for q in qs):  # upstream needs a question it judges
            qs.append({'index': n, 'category': 4, 'question': 'Q%d_%d?' % (c, n), 'answer': 'A', 'prediction': 'x',
                       'reply': MEM0_REPLIES[0], 'raw': 1.0})
        convs.append({'sample_id': 'conv-%d' % (rng.randint(1, 99) * 100 + c), 'qa': qs})
    return {'mode': mode, 'categories': cats, 'convs': convs}


def fake_openai(reply):
    """A stand-in for the openai module whose client answers with reply(messages)."""
    m = types.ModuleType('openai')

    class Completions:
        def create(self, **kw):
            msg = types.SimpleNamespace(content=reply(kw['messages']))
            return types.SimpleNamespace(choices=[types.SimpleNamespace(message=msg)])

    class OpenAI:
        def __init__(self, *a, **kw):
            self.chat = types.SimpleNamespace(completions=Completions())
    m.OpenAI = OpenAI
    return m


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def question_of(messages):
    return re.search(r'Question: (Q\d+_\d+\?)\n', messages[-1]['content']).group(1)


@contextlib.contextmanager
def modules(stubs, cwd, argv):
    saved, old_cwd, old_argv, old_path = dict(sys.modules), os.getcwd(), sys.argv, list(sys.path)
    sys.modules.update(stubs)
    os.chdir(cwd)
    sys.argv = argv
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        os.chdir(old_cwd)
        sys.argv, sys.path[:] = old_argv, old_path
        sys.modules.clear()
        sys.modules.update(saved)


def upstream_mem0(root, case, tmp):
    """generate_scores.py's means and counts per category and its overall mean, unrounded."""
    import pandas as pd
    replies = {q['question']: q['reply'][0] for c in case['convs'] for q in c['qa']}
    src = open(os.path.join(root, 'mem0/memory/utils.py')).read()
    fn = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == 'extract_json')
    utils = types.ModuleType('mem0.memory.utils')
    exec('import re\n' + ast.get_source_segment(src, fn), utils.__dict__)
    metrics_utils = types.ModuleType('metrics.utils')
    metrics_utils.calculate_metrics = lambda p, g: {'f1': 0.0}
    metrics_utils.calculate_bleu_scores = lambda p, g: {'bleu1': 0.0}
    tqdm = types.ModuleType('tqdm')
    tqdm.tqdm = lambda it, **kw: it
    metrics = types.ModuleType('metrics')
    metrics.__path__ = [os.path.join(root, 'evaluation/metrics')]
    stubs = {'openai': fake_openai(lambda msgs: replies[question_of(msgs)]), 'mem0': types.ModuleType('mem0'),
             'mem0.memory': types.ModuleType('mem0.memory'), 'mem0.memory.utils': utils, 'metrics': metrics,
             'metrics.utils': metrics_utils, 'tqdm': tqdm}
    data = {str(i): [{'question': q['question'], 'answer': q['answer'], 'response': q['prediction'], 'category': q['category']}
                     for q in c['qa']] for i, c in enumerate(case['convs'])}
    with open(os.path.join(tmp, 'in.json'), 'w') as f:
        json.dump(data, f)
    rounds = pd.DataFrame.round, pd.Series.round
    with modules(stubs, tmp, ['evals.py', '--input_file', 'in.json', '--output_file', 'evaluation_metrics.json']):
        load('metrics.llm_judge', os.path.join(root, 'evaluation/metrics/llm_judge.py'))
        load('mem0_evals', os.path.join(root, 'evaluation/evals.py')).main()
        pd.DataFrame.round = pd.Series.round = lambda self, *a, **kw: self
        try:
            g = {'__name__': '__main__'}
            path = os.path.join(root, 'evaluation/generate_scores.py')
            exec(compile(open(path).read(), path, 'exec'), g)
        finally:
            pd.DataFrame.round, pd.Series.round = rounds
    cats = {int(c): (float(r['llm_score']), int(r['count'])) for c, r in g['result'].iterrows()}
    return {'categories': cats, 'overall': (float(g['overall_means']['llm_score']), int(sum(n for _, n in cats.values())))}


def upstream_magma(root, case, tmp):
    """test_fixed_memory.py's figures from the JSON it saves, as fractions (its are percentages)."""
    scores = {q['question']: q['raw'] for c in case['convs'] for q in c['qa']}
    preds = {q['question']: q['prediction'] for c in case['convs'] for q in c['qa']}
    dataset = []
    for c in case['convs']:
        qa = []
        for q in c['qa']:
            item = {'question': q['question'], 'evidence': [], 'category': q['category']}
            item['adversarial_answer' if q['category'] == 5 else 'answer'] = q['answer']
            qa.append(item)
        dataset.append({'qa': qa, 'conversation': {'speaker_a': 'A', 'speaker_b': 'B'}, 'event_summary': {},
                        'observation': {}, 'session_summary': {}})
    with open(os.path.join(tmp, 'locomo.json'), 'w') as f:
        json.dump(dataset, f)

    class Builder:
        def __init__(self, **kw):
            self.trg = types.SimpleNamespace(get_statistics=lambda: {'total_nodes': 0, 'links_created': 0, 'node_types': {}, 'link_types': {}})
            self.node_index, self.llm_controller, self.answer_formatter = {}, types.SimpleNamespace(), None

        def build_memory(self, sample):
            return {}

        def save(self):
            pass

        def load(self):
            pass
    mb = types.ModuleType('memory.memory_builder')
    mb.MemoryBuilder = Builder
    qe = types.ModuleType('memory.query_engine')
    qe.QueryEngine = lambda *a, **kw: types.SimpleNamespace(query=lambda q, top_k=None: (None, 'context'))
    uu = types.ModuleType('utils.utils')
    uu.calculate_metrics = lambda pred, gold, category=None: {'exact_match': False, 'f1': 0.0, 'bleu1': 0.0}
    tqdm = types.ModuleType('tqdm')

    class Bar:
        def __init__(self, it=None, **kw):
            self.it = it

        def __iter__(self):
            return iter(self.it)

        def set_postfix(self, *a, **kw):
            pass

        def close(self):
            pass
    tqdm.tqdm = Bar
    dotenv = types.ModuleType('dotenv')
    dotenv.load_dotenv = lambda *a, **kw: None
    memory = types.ModuleType('memory')
    memory.__path__ = [os.path.join(root, 'memory')]
    utils = types.ModuleType('utils')
    utils.__path__ = []
    reply = lambda msgs: json.dumps({'score': scores[question_of(msgs)]})  # noqa: E731
    stubs = {'openai': fake_openai(reply), 'dotenv': dotenv, 'tqdm': tqdm, 'memory': memory, 'memory.memory_builder': mb,
             'memory.query_engine': qe, 'utils': utils, 'utils.utils': uu}
    ids = [str(i) for i in range(len(case['convs']))]
    argv = ['test_fixed_memory.py', '--dataset', 'locomo.json', '--sample'] + ids + [
        '--max-questions', '100000', '--category-to-test', ','.join(map(str, case['categories'])),
        '--no-parallel', '--best-of-n', '1']
    os.environ.setdefault('OPENAI_API_KEY', 'none')
    with modules(stubs, tmp, argv):
        sys.path.insert(0, root)
        load('load_dataset', os.path.join(root, 'load_dataset.py'))
        th = load('memory.test_harness', os.path.join(root, 'memory/test_harness.py'))
        th.TestHarness.answer_question = lambda self, question, context, category=None, expected=None: preds[question]
        # One f-string of its banner nests quotes as Python 3.12 allows and 3.11 does not: its
        # default name for a category it does not know is dropped (every category here is known).
        path = os.path.join(root, 'test_fixed_memory.py')
        src = open(path).read().replace("category_names.get(c, 'Unknown')", 'category_names.get(c)')
        g = {'__name__': 'magma_main', '__file__': path}
        exec(compile(src, path, 'exec'), g)
        rc = g['main']()
    if rc != 0:
        raise SystemExit('test_fixed_memory.py returned %r' % rc)
    out = os.path.join(tmp, 'results_' + JUDGE.replace('.', '_').replace('-', '_'))
    if len(ids) == 1:
        st = json.load(open(os.path.join(out, 'fixed_results_sample0.json')))['stats']
        cats = {int(k.split('_')[1]): (v['avg_llm'] / 100, v['total']) for k, v in st['category_breakdown'].items()}
        return {'categories': cats, 'overall': (st['overall']['avg_llm'] / 100, st['overall']['total']),
                'without_category_5': (st['without_category5']['avg_llm'] / 100, st['without_category5']['total'])}
    agg = json.load(open(os.path.join(out, 'fixed_results_aggregate_samples_%s.json' % '_'.join(ids))))['aggregate']
    cats = {int(k): (v['avg_llm'] / 100, v['samples_count']) for k, v in agg['category_breakdown'].items()}
    return {'conversation_averaged': {'categories': cats, 'overall': (agg['avg_llm'] / 100, len(ids))}}


def records(case, judge_bin):
    """The run as qa-judge writes it."""
    recs, rule = [], []
    for c in case['convs']:
        for q in c['qa']:
            if q['category'] not in case['categories']:
                continue
            r = {'schema': 1, 'id': 'locomo:%s:%d' % (c['sample_id'], q['index']), 'dataset': 'locomo',
                 'type': TYPES[q['category']], 'question': q['question'], 'answers': [q['answer']],
                 'meta': {'category': q['category']}, 'prediction': {'text': q['prediction']}}
            if case['mode'] == 'mem0':
                if q['category'] != 5:
                    label = q['reply'][1]
                    r['judgments'] = {'mem0/' + JUDGE: {'score': 1 if label == 'CORRECT' else 0, 'label': label,
                                                        'mode': 'mem0', 'model': JUDGE}}
            elif q['category'] == 5:
                rule.append(len(recs))
            else:
                r['judgments'] = {'locomo-continuous/' + JUDGE: {'score': max(0.0, min(1.0, float(q['raw']))),
                                                                 'mode': 'locomo-continuous', 'model': JUDGE}}
            recs.append(r)
    if rule:  # category 5 by qa-judge's own rule, as locomo-continuous decides it
        p = subprocess.run([judge_bin, '--mode', 'adversarial'], input=''.join(json.dumps(recs[i]) + '\n' for i in rule),
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit('%s exited %d: %s' % (judge_bin, p.returncode, p.stderr))
        for i, line in zip(rule, p.stdout.splitlines()):
            j = json.loads(line)['judgments']['adversarial']
            recs[i]['judgments'] = {'locomo-continuous/' + JUDGE: {'score': j['score'], 'mode': 'locomo-continuous', 'model': JUDGE}}
    return recs


def qapipe(binary, recs):
    """qa-score's locomo_judge section for the run."""
    p = subprocess.run([binary, '--summary', '-', '--metrics', 'judge_score', '--bootstrap', '0'],
                       input=''.join(json.dumps(r) + '\n' for r in recs), capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit('%s exited %d: %s' % (binary, p.returncode, p.stderr))
    return json.loads(p.stdout).get('locomo_judge')


def compare(want, got):
    """The differences between upstream's figures and qa-score's section, as strings; and how many
    values were compared."""
    diffs, n = [], 0

    def check(name, w, g):
        nonlocal n
        n += 2
        if g is None or g.get('mean') is None or abs(w[0] - g['mean']) > 1e-9 or w[1] != g['count']:
            diffs.append('%s: upstream %r, qa-score %r' % (name, w, g))

    def categories(name, w, g):
        g = {c['category']: c for c in (g or [])}
        if set(w) != set(g):
            diffs.append('%s categories: upstream %r, qa-score %r' % (name, sorted(w), sorted(g)))
        for c in sorted(w):
            check('%s category %d' % (name, c), w[c], g.get(c))

    if got is None:
        return ['no locomo_judge section'], 1
    if 'conversation_averaged' in want:
        w, g = want['conversation_averaged'], got.get('conversation_averaged') or {}
        categories('conversation-averaged', w['categories'], g.get('categories'))
        check('conversation-averaged overall', w['overall'], g.get('overall'))
    else:
        categories('pooled', want['categories'], got['categories'])
        check('overall', want['overall'], got['overall'])
        if 'without_category_5' in want:
            check('without category 5', want['without_category_5'], got['without_category_5'])
    return diffs, n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--mem0', required=True, metavar='DIR', help="mem0's evaluation/ and mem0/memory/utils.py (9315e3036^)")
    ap.add_argument('--magma', required=True, metavar='DIR', help="MAGMA's memory/, load_dataset.py and test_fixed_memory.py")
    ap.add_argument('--check', required=True, metavar='BIN', help='the qa-score binary')
    ap.add_argument('--judge-bin', metavar='BIN', help='the qa-judge binary (default: beside --check)')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--cases', type=int, default=100)
    args = ap.parse_args()
    mem0, magma = os.path.abspath(args.mem0), os.path.abspath(args.magma)
    check = os.path.abspath(args.check)
    judge_bin = os.path.abspath(args.judge_bin or os.path.join(os.path.dirname(check), 'qa-judge'))
    rng = random.Random(args.seed)
    differ = values = 0
    for i in range(args.cases):
        case = draw_case(rng)
        with tempfile.TemporaryDirectory() as tmp:
            want = (upstream_mem0 if case['mode'] == 'mem0' else upstream_magma)(mem0 if case['mode'] == 'mem0' else magma, case, tmp)
        diffs, n = compare(want, qapipe(check, records(case, judge_bin)))
        values += n
        for d in diffs:
            differ += 1
            print(json.dumps({'case': i, 'mode': case['mode'], 'difference': d}))
    print('%d cases, %d values compared: %d differ' % (args.cases, values, differ))
    sys.exit(1 if differ else 0)


if __name__ == '__main__':
    main()
