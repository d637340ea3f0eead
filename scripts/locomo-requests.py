#!/usr/bin/env python3
"""LoCoMo's own get_gpt_answers (task_eval/gpt_utils.py) and run_chatgpt (global_methods.py) run
on qapipe LoCoMo records with a fake OpenAI client, recording each request (and, with --batch,
what it stores from chosen replies), for the golden tests of internal/prompt's LoCoMo context cut,
model settings and batches:

    npm install --prefix /tmp/tt tiktoken@1.0.22
    go run ./cmd/qa-load testdata/locomo/locomo_conv26.json > /tmp/conv26.jsonl
    NODE_PATH=/tmp/tt/node_modules python3 scripts/locomo-requests.py \\
        --git-dir LoCoMo/.git \\
        --records golden=internal/prompt/testdata/golden/locomo_records.jsonl \\
        --records synthetic=internal/prompt/testdata/golden/locomo_cut_records.jsonl \\
        --records conv26=/tmp/conv26.jsonl \\
        > internal/prompt/testdata/golden/locomo_cut.json
    NODE_PATH=/tmp/tt/node_modules python3 scripts/locomo-requests.py --batch \\
        --git-dir LoCoMo/.git \\
        --records golden=internal/prompt/testdata/golden/locomo_records.jsonl \\
        --records synthetic=internal/prompt/testdata/golden/locomo_cut_records.jsonl \\
        --records conv26=/tmp/conv26.jsonl \\
        > internal/prompt/testdata/golden/locomo_batch.json

The upstream files are read from the git directory at commit 3eb6f2c (snap-research/locomo,
CC BY-NC 4.0, not part of qapipe); tiktoken is the npm package's WebAssembly build of its Rust
core, run by node. Upstream's other imports (openai, numpy, tqdm, the Gemini and Anthropic
clients, its RAG code) are replaced by small fakes, and time.sleep by nothing.

Three choices make upstream's run deterministic and equal to qapipe's:
- random.random() is 0.25 for abstain_first (option (a) is "Not mentioned in the conversation")
  and 0.75 otherwise;
- the conversation start names speaker_a then speaker_b: upstream takes list(set(speakers of
  session 1)), whose order depends on PYTHONHASHSEED, so the speakers of session 1 are strings
  hashed to 0 and 1, which a two-element set iterates in that order;
- a category-5 question offers meta.adversarial_answer (else the first answer) as upstream's
  qa['answer'], which the released data lacks for category 5 (its unmerged fix reads
  adversarial_answer).

With --batch the option order is qapipe's own draw for --seed 1 (sha256 of the seed as 8
big-endian bytes and the record id: option (a) is "Not mentioned in the conversation" when the
first byte is even), fed to upstream's random.random() in the order it draws, so that the
requests are those qa-predict --seed 1 sends.

Output, one JSON document:
- "cut": for a record and an option order, the query get_gpt_answers sends for each of a range
  of MAX_LENGTH values [lo, hi] (MAX_LENGTH['gpt-3.5-turbo-4k'] set to each), and whether it
  holds the whole conversation: every range from 1 to the whole conversation for the records of
  --sweep, and the range around each of --limits for the others;
- "requests": the request run_chatgpt sends for each of MAX_LENGTH's names on the records of
  --request-records: model, role, max_tokens, temperature, n, and the query's bytes and sha256.

With --batch (evaluate_qa.py --batch-size N > 1), instead:
- "requests": for a conversation (the records of a label, as its qa list), a batch size, a
  MAX_LENGTH name (and a limit put in its place, if any) and the items already answered (which
  upstream's include_idxs skips), every request get_gpt_answers sends: the items asked, model,
  role, max_tokens, temperature, n, the query's bytes and sha256, and the query itself for the
  small conversations;
- "cut": the batched query of items of the synthetic conversation over every range of limits;
- "replies": chosen replies fed to upstream's reading of a batch of five questions (categories
  5, 2, 1, 5, 4): what it stores for each question, or the exception it raises (ValueError with
  no message where its trial loop gives up on the whole reply), and the questions after an
  exception, which it never reaches.
"""
import argparse
import ast
import contextlib
import hashlib
import json
import os
import struct
import subprocess
import sys
import types

COMMIT = "3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376"


class Node:
    """tiktoken's encoding_for_model and encode, in a node process fed JSON lines."""

    JS = r"""
const { get_encoding, encoding_for_model } = require("tiktoken");
const encs = {};
require("readline").createInterface({ input: process.stdin }).on("line", (l) => {
  const q = JSON.parse(l);
  let out;
  try {
    if (q.model !== undefined) {
      const e = encoding_for_model(q.model);
      out = { name: e.name };
      e.free();
    } else {
      encs[q.enc] = encs[q.enc] || get_encoding(q.enc);
      out = { n: encs[q.enc].encode(q.text).length };
    }
  } catch (err) {
    out = { error: String(err) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
});
"""

    def __init__(self):
        self.p = subprocess.Popen(["node", "-e", self.JS], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, q):
        self.p.stdin.write(json.dumps(q) + "\n")
        self.p.stdin.flush()
        out = json.loads(self.p.stdout.readline())
        if "error" in out:
            raise ValueError(out["error"])
        return out


class Encoding:
    def __init__(self, node, name):
        self.node, self.name = node, name

    def encode(self, text):
        return [0] * self.node.ask({"enc": self.name, "text": text})["n"]


class Speaker(str):
    """A speaker name with a chosen hash, so that list(set(...)) of two gives them in order."""

    def __new__(cls, s, h):
        o = str.__new__(cls, s)
        o.h = h
        return o

    def __hash__(self):
        return self.h

    def __eq__(self, other):
        return str.__eq__(self, other)


def git_show(git_dir, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{COMMIT}:{path}"], check=True, capture_output=True, text=True).stdout


def load_upstream(git_dir, node, requests):
    openai = types.ModuleType("openai")
    openai.error = types.SimpleNamespace(**{n: type(n, (Exception,), {}) for n in ["APIError", "APIConnectionError", "RateLimitError", "ServiceUnavailableError"]})

    def create(**kw):
        requests.append(kw)
        msg = types.SimpleNamespace(content=REPLY[0](kw) if REPLY[0] else "fake reply")
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=msg)])

    openai.ChatCompletion = types.SimpleNamespace(create=create)
    openai.Completion = types.SimpleNamespace(create=create)
    tiktoken = types.ModuleType("tiktoken")

    def encoding_for_model(model):
        return Encoding(node, node.ask({"model": model})["name"])

    tiktoken.encoding_for_model = encoding_for_model
    fakes = {
        "openai": openai,
        "numpy": types.ModuleType("numpy"),
        "google": types.ModuleType("google"),
        "google.generativeai": types.ModuleType("google.generativeai"),
        "anthropic": types.SimpleNamespace(Anthropic=None),
        "tqdm": types.SimpleNamespace(tqdm=lambda it, **kw: it),
        "task_eval": types.ModuleType("task_eval"),
        "task_eval.rag_utils": types.SimpleNamespace(get_embeddings=None),
        "tiktoken": tiktoken,
    }
    fakes["google"].generativeai = fakes["google.generativeai"]
    sys.modules.update(fakes)
    for name, path in [("global_methods", "global_methods.py"), ("gpt_utils", "task_eval/gpt_utils.py")]:
        mod = types.ModuleType(name)
        mod.__file__ = os.path.join("/nonexistent", path)
        exec(compile(git_show(git_dir, path), path, "exec"), mod.__dict__)
        sys.modules[name] = mod
    gpt = sys.modules["gpt_utils"]
    gpt.time = types.SimpleNamespace(sleep=lambda s: None)
    return gpt


def upstream_input(rec):
    """The conversation and QA item of a qapipe record, as LoCoMo's data file holds them."""
    meta = rec.get("meta", {})
    a, b = meta.get("speaker_a"), meta.get("speaker_b")
    conv = {"speaker_a": a, "speaker_b": b}
    for i, p in enumerate(rec["context"]):
        n = int(p["title"].split("_")[-1]) if p.get("title") else i + 1
        turns = [dict(t) for t in p["turns"]]
        if n == 1:
            for t in turns:
                t["speaker"] = Speaker(t["speaker"], 0 if t["speaker"] == a else 1)
        conv["session_%d" % n] = turns
        conv["session_%d_date_time" % n] = p["date"]
    cat = meta["category"]
    qa = {"question": rec["question"], "category": cat}
    if cat == 5:
        qa["answer"] = meta.get("adversarial_answer", rec["answers"][0])
    return conv, qa


def ask(gpt, requests, rec, abstain_first, model, max_length=None):
    """The request get_gpt_answers sends for rec, with MAX_LENGTH[model] = max_length if given."""
    conv, qa = upstream_input(rec)
    if max_length is not None:
        gpt.MAX_LENGTH[model] = max_length
    gpt.random = types.SimpleNamespace(random=lambda: 0.25 if abstain_first else 0.75)
    args = types.SimpleNamespace(model=model, batch_size=1, use_rag=False, overwrite=True)
    del requests[:]
    gpt.get_gpt_answers({"sample_id": rec["id"], "conversation": conv, "qa": [qa]}, {"qa": [{}]}, "p", args)
    (req,) = requests
    return req


def query(gpt, requests, rec, abstain_first, limit):
    return ask(gpt, requests, rec, abstain_first, "gpt-3.5-turbo-4k", limit)["messages"][0]["content"]


def ranges(f, lo, hi):
    """The ranges [a, b] of lo..hi over which f, nondecreasing in what it keeps, is constant."""
    out = []
    memo = {}

    def g(x):
        if x not in memo:
            memo[x] = f(x)
        return memo[x]

    def walk(a, b):
        if g(a) == g(b):
            if out and out[-1][2] == g(a):
                out[-1][1] = b
            else:
                out.append([a, b, g(a)])
            return
        if b == a + 1:
            walk(a, a)
            walk(b, b)
            return
        m = (a + b) // 2
        walk(a, m)
        walk(m, b)

    walk(lo, hi)
    return out


def around(f, x, lo, hi):
    """The range [a, b] around x over which f equals f(x), within lo..hi."""
    want = f(x)
    a, b = x, x
    for step_dir in (-1, 1):
        # gallop, then bisect, to the last limit that still gives want
        edge, step = x, 1
        while lo <= edge + step_dir * step <= hi and f(edge + step_dir * step) == want:
            edge += step_dir * step
            step *= 2
        while step > 1:
            step //= 2
            if lo <= edge + step_dir * step <= hi and f(edge + step_dir * step) == want:
                edge += step_dir * step
        if step_dir < 0:
            a = edge
        else:
            b = edge
    return a, b, want


def qapipe_abstain_first(rec_id, seed=1):
    """qa-predict's draw of upstream's random.random() < 0.5 for a record (internal/predict)."""
    return hashlib.sha256(struct.pack(">q", seed) + rec_id.encode("utf-8")).digest()[0] & 1 == 0


def run_batch(gpt, requests, recs, answered, model, batch_size, max_length=None, replies=None):
    """get_gpt_answers over recs as one conversation's qa list, batch_size at a time, the items of
    answered already predicted; replies (a function of the request) answer the fake client.
    Returns out_data's qa list and the exception raised, if any."""
    conv, _ = upstream_input(recs[0])
    qas = [upstream_input(r)[1] for r in recs]
    if max_length is not None:
        gpt.MAX_LENGTH[model] = max_length
    draws = [0.25 if qapipe_abstain_first(r["id"]) else 0.75
             for i, r in enumerate(recs) if i not in answered and r["meta"]["category"] == 5]
    gpt.random = types.SimpleNamespace(random=lambda: draws.pop(0))
    out = {"qa": [{"p": "earlier"} if i in answered else {} for i in range(len(recs))]}
    args = types.SimpleNamespace(model=model, batch_size=batch_size, use_rag=False, overwrite=False)
    del requests[:]
    REPLY[0] = replies
    try:
        with contextlib.redirect_stdout(sys.stderr):  # its trial loop prints "Trial 1/3"
            gpt.get_gpt_answers({"sample_id": "s", "conversation": conv, "qa": qas}, out, "p", args)
    except Exception as e:  # noqa: BLE001 - upstream's own exceptions are the data
        return out["qa"], e
    return out["qa"], None


def batch_requests(gpt, requests, recs, answered, model, batch_size, max_length, full):
    """The requests of run_batch, each with the items it asks."""
    asked = []

    def reply(kw):
        return json.dumps({str(k): "answer %d" % k for k in range(batch_size)})

    qa, err = run_batch(gpt, requests, recs, answered, model, batch_size, max_length, reply)
    if err is not None:
        raise err
    out = []
    for block_start in range(0, len(recs), batch_size):
        items = [i for i in range(block_start, min(block_start + batch_size, len(recs))) if i not in answered]
        if items:
            asked.append(items)
    assert len(asked) == len(requests), (asked, len(requests))
    for items, req in zip(asked, requests):
        (msg,) = req["messages"]
        content = msg["content"].encode("utf-8")
        r = {"asked": items, "model": req["model"], "role": msg["role"], "max_tokens": req["max_tokens"],
             "temperature": req["temperature"], "n": req["n"], "bytes": len(content),
             "sha256": hashlib.sha256(content).hexdigest()}
        if full:
            r["query"] = msg["content"]
        out.append(r)
    return out


REPLIES = [
    ("well-formed dict", '{"0": "a", "1": "7 May 2023", "2": "Caroline (a) and Mel (b)", "3": "(b)", "4": "  LGBTQ support group "}'),
    ("code fence", '```json\n{"0": "(a)", "1": "May 2023", "2": "Sweden", "3": "B", "4": "pottery"}\n```'),
    ("single-quoted", "{'0': 'b', '1': 'the week before 9 June', '2': 'Caroline', '3': 'a', '4': 'counseling'}"),
    ("single-quoted apostrophe", "{'0': 'b', '1': 'June', '2': 'Caroline's friend', '3': 'a', '4': 'x'}"),
    ("escaped quotes", '{"0": "a", "1": "the \\"summer\\" of 2022", "2": "the \\\'Sweden\\\' trip", "3": "b", "4": "jsonify"}'),
    ("list form", '["b", "2022", "Mel (a)", "(A)", "a talk"]'),
    ("list of non-strings", '[1, 2023, ["x"], null, {"k": "v"}]'),
    ("values not strings", '{"0": 1, "1": 2023, "2": {"city": "Paris", "country": "France"}, "3": ["a"], "4": [1.5, true, null, "x"]}'),
    ("cat-5 letters", '{"0": " A ", "1": "x", "2": "y", "3": "(A)", "4": "z"}'),
    ("cat-5 words", '{"0": "Not mentioned in the conversation", "1": "x", "2": "y", "3": "abc", "4": "z"}'),
    ("missing last", '{"0": "a", "1": "May", "2": "Mel", "3": "b"}'),
    ("missing category 5", '{"1": "May", "2": "Mel", "4": "z"}'),
    ("missing middle", '{"0": "a", "1": "May", "3": "b", "4": "z"}'),
    ("string", '"ab(a)cde"'),
    ("short string", '"ab"'),
    ("lines", '[\n"Mel"\n,"x"]'),
    ("lines of lists", '[["Mel"],\n["2022"],\n["x"]]'),
    ("last reading", '[\n"Mel"\n]'),
    ("last reading not text", '[\n[1]\n]'),
    ("last reading letters", '["(a)"\n,"(b)x"]'),
    ("number", '42'),
    ("empty dict", '{}'),
    ("malformed", 'Mel, May 2023, a, b, pottery'),
    ("trailing text", '{"0": "a"}\nThese are my answers.'),
    ("keys with spaces", '{" 0": "a", "1 ": "b"}'),
    ("unicode", '{"0": "İ", "1": "Zoë \\u00e9", "2": "\\ud83d\\ude00 ok", "3": "\\u0130", "4": "ÅNGSTRÖM"}'),
    ("repeated keys", '{"0": "a", "0": "b", "1": "x", "2": "y", "3": "a", "4": "z", "4": "w"}'),
    ("NaN", '{"0": "a", "1": NaN, "2": Infinity, "3": "b", "4": 1e400}'),
]


def batch_replies(gpt, requests, recs):
    """What upstream stores for each of REPLIES over recs asked as one batch."""
    out = []
    questions = []
    for r in recs:
        q = {"id": r["id"], "category": r["meta"]["category"]}
        if q["category"] == 5:
            adv = r["meta"].get("adversarial_answer", r["answers"][0])
            nm = "Not mentioned in the conversation"
            q["options"] = [nm, adv] if qapipe_abstain_first(r["id"]) else [adv, nm]
        questions.append(q)
    for name, reply in REPLIES:
        qa, err = run_batch(gpt, requests, recs, set(), "gpt-4-turbo", len(recs), None, lambda kw: reply)
        case = {"name": name, "reply": reply, "questions": questions}
        if isinstance(err, ValueError) and type(err) is ValueError and err.args == ():
            case["raises"] = "ValueError"
            assert all("p" not in q for q in qa)
        else:
            answers = []
            for q in qa:
                if "p" in q:
                    answers.append({"stored": q["p"], "type": type(q["p"]).__name__})
                elif err is not None and not any("raises" in a for a in answers):
                    answers.append({"raises": type(err).__name__})
                else:
                    answers.append({"not_reached": True})
            case["answers"] = answers
        out.append(case)
    return out


def batch_main(a, files, gpt, requests, node):
    out = {"requests": [], "cut": [], "replies": []}
    cases = [
        ("golden", 3, "gpt-3.5-turbo-4k", 1500, [1, 5]),
        ("golden", 20, "gpt-4-turbo", None, []),
        ("golden", 10, "gpt-3.5-turbo-16k", None, [0, 1, 2]),
        ("golden", 3, "gpt-4", None, [3, 4, 5]),
        ("golden", 2, "gpt-3.5-turbo-4k", None, [6]),
        ("conv26", 10, "gpt-3.5-turbo-16k", None, []),
        ("conv26", 10, "gpt-3.5-turbo-4k", None, list(range(0, 199, 3))),
        ("conv26", 20, "gpt-4-turbo", None, []),
    ]
    max_length = dict(gpt.MAX_LENGTH)
    for label, bs, name, limit, answered in cases:
        recs = files[label]
        gpt.MAX_LENGTH.update(max_length)
        reqs = batch_requests(gpt, requests, recs, set(answered), name, bs, limit, label != "conv26")
        out["requests"].append({"records": label, "batch_size": bs, "variant": name, "max_length": limit or max_length[name],
                                "answered": answered, "abstain_first": [qapipe_abstain_first(r["id"]) for r in recs],
                                "requests": reqs})
        print("%s bs %d %s: %d requests" % (label, bs, name, len(reqs)), file=sys.stderr)
    gpt.MAX_LENGTH.update(max_length)
    syn = [files["synthetic"][0], files["synthetic"][2]]
    for bs in (2, 5):
        def f(n):
            reqs = batch_requests(gpt, requests, syn, set(), "gpt-3.5-turbo-4k", bs, n, True)
            return reqs[0]["query"]
        whole, top = f(1 << 20), 100
        while f(top) != whole:
            top *= 2
        for lo, hi, q in ranges(f, 1, top):
            out["cut"].append({"records": "synthetic", "indexes": [0, 2], "batch_size": bs,
                               "abstain_first": [qapipe_abstain_first(r["id"]) for r in syn],
                               "limits": [lo, hi], "whole": q == whole, "query": q})
    gpt.MAX_LENGTH.update(max_length)
    g = files["golden"]
    out["replies"] = batch_replies(gpt, requests, [g[5], g[0], g[3], g[6], g[4]])
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


REPLY = [None]  # the fake client's reply: a function of the request, or None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--records", action="append", required=True, help="LABEL=FILE of qapipe records")
    ap.add_argument("--sweep", default="synthetic", help="label whose records are swept")
    ap.add_argument("--limits", default="golden:0,3,5:3000,1500,600", help="LABEL:INDEXES:LIMITS")
    ap.add_argument("--request-records", default="synthetic:0,2;conv26:0,152", help="LABEL:INDEXES;...")
    ap.add_argument("--batch", action="store_true", help="write the batched golden (evaluate_qa.py --batch-size N)")
    a = ap.parse_args()
    files = {}
    for spec in a.records:
        label, path = spec.split("=", 1)
        files[label] = [json.loads(l) for l in open(path, encoding="utf-8")]
    node, requests = Node(), []
    gpt = load_upstream(a.git_dir, node, requests)
    if a.batch:
        batch_main(a, files, gpt, requests, node)
        return
    max_length = dict(gpt.MAX_LENGTH)
    out = {"cut": [], "requests": []}

    def orders(rec):
        return [True, False] if rec["meta"]["category"] == 5 else [True]

    for i, rec in enumerate(files[a.sweep]):
        for first in orders(rec):
            f = lambda n: query(gpt, requests, rec, first, n)
            whole, top = f(1 << 20), 100
            while f(top) != whole:
                top *= 2
            for lo, hi, q in ranges(f, 1, top):
                out["cut"].append({"records": a.sweep, "index": i, "abstain_first": first, "limits": [lo, hi], "whole": q == whole, "query": q})
    label, idx, limits = a.limits.split(":")
    for i in map(int, idx.split(",")):
        rec = files[label][i]
        for first in orders(rec):
            for n in map(int, limits.split(",")):
                f = lambda m: query(gpt, requests, rec, first, m)
                lo, hi, q = around(f, n, 1, 1 << 20)
                out["cut"].append({"records": label, "index": i, "abstain_first": first, "limits": [lo, hi], "whole": q == f(1 << 20), "query": q})
    names = sorted(max_length)
    for spec in a.request_records.split(";"):
        label, idx = spec.split(":")
        for i in map(int, idx.split(",")):
            rec = files[label][i]
            for first in orders(rec):
                for name in names:
                    req = ask(gpt, requests, rec, first, name, max_length[name])
                    (msg,) = req["messages"]
                    content = msg["content"].encode("utf-8")
                    out["requests"].append({"records": label, "index": i, "abstain_first": first, "variant": name,
                                            "model": req["model"], "role": msg["role"], "max_tokens": req["max_tokens"],
                                            "temperature": req["temperature"], "n": req["n"], "bytes": len(content),
                                            "sha256": hashlib.sha256(content).hexdigest()})
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
