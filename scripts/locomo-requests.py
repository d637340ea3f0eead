#!/usr/bin/env python3
"""LoCoMo's own get_gpt_answers (task_eval/gpt_utils.py) and run_chatgpt (global_methods.py) run
on qapipe LoCoMo records with a fake OpenAI client, recording each request, for the golden test
of internal/prompt's LoCoMo context cut and model settings:

    npm install --prefix /tmp/tt tiktoken@1.0.22
    go run ./cmd/qa-load testdata/locomo/locomo_conv26.json > /tmp/conv26.jsonl
    NODE_PATH=/tmp/tt/node_modules python3 scripts/locomo-requests.py \\
        --git-dir LoCoMo/.git \\
        --records golden=internal/prompt/testdata/golden/locomo_records.jsonl \\
        --records synthetic=internal/prompt/testdata/golden/locomo_cut_records.jsonl \\
        --records conv26=/tmp/conv26.jsonl \\
        > internal/prompt/testdata/golden/locomo_cut.json

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

Output, one JSON document:
- "cut": for a record and an option order, the query get_gpt_answers sends for each of a range
  of MAX_LENGTH values [lo, hi] (MAX_LENGTH['gpt-3.5-turbo-4k'] set to each), and whether it
  holds the whole conversation: every range from 1 to the whole conversation for the records of
  --sweep, and the range around each of --limits for the others;
- "requests": the request run_chatgpt sends for each of MAX_LENGTH's names on the records of
  --request-records: model, role, max_tokens, temperature, n, and the query's bytes and sha256.
"""
import argparse
import ast
import hashlib
import json
import os
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
        msg = types.SimpleNamespace(content="fake reply")
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--records", action="append", required=True, help="LABEL=FILE of qapipe records")
    ap.add_argument("--sweep", default="synthetic", help="label whose records are swept")
    ap.add_argument("--limits", default="golden:0,3,5:3000,1500,600", help="LABEL:INDEXES:LIMITS")
    ap.add_argument("--request-records", default="synthetic:0,2;conv26:0,152", help="LABEL:INDEXES;...")
    a = ap.parse_args()
    files = {}
    for spec in a.records:
        label, path = spec.split("=", 1)
        files[label] = [json.loads(l) for l in open(path, encoding="utf-8")]
    node, requests = Node(), []
    gpt = load_upstream(a.git_dir, node, requests)
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


main()
