#!/usr/bin/env python3
"""Random LongMemEval entries read by LongMemEval's own run_generation.py against a fake model
client, recording every request, for a differential check of qa-predict's LongMemEval reader:

    /usr/bin/python3 scripts/random-longmemeval-requests.py \\
        --run-generation LongMemEval/src/generation/run_generation.py --cases 20 --seed 1 \\
        --out /tmp/longmemeval-requests
    QA_LONGMEMEVAL_REQUESTS=/tmp/longmemeval-requests go test ./internal/predict -run RandomLongMemEval

Each case folder holds entries.json (a LongMemEval file of a few entries), options.json (the
run's topk_context, history_format, useronly and cot, and the qa-predict flags that ask for the
same) and transcript.jsonl (each request run_generation.py sent, in the golden transcript's
layout, with the fake reply). The history is every session (orig-session, oracle-session), every turn
(orig-turn, oracle-turn), what a made-up retrieval log ranks (flat-session, flat-turn; its texts merged beside
the blocks or replacing them, or not) or none (no-retrieval); the reading is direct, con or con-separate (--cot true --con true:
a note request per session, then the reading request over the notes; json histories only, as
upstream fails on nl ones). Entries mix what the history must carry through: sessions whose
dates are out of order or equal (upstream sorts them, stably, as strings), turns marked
has_answer (dropped from the history), contents with quotes, backslashes, braces, newlines,
Python whitespace such as \\x1c at the ends (the nl format strips it), non-ASCII and non-BMP
characters (the json format escapes them), and text that looks like the history's own headers.
An entry whose question is blank is left out (qa-load refuses it); a case left with none is not
written.

The model is gpt-4o, whose budget is counted with tiktoken upstream; tiktoken is not here, so
it is replaced by a tokenizer that never cuts, and the histories are kept far below the budget
(qa-predict counts them with o200k_base and does not cut either). It needs the original script
(https://github.com/xiaowu0162/LongMemEval, MIT, not part of qapipe), numpy and tqdm; the openai,
backoff, transformers and tiktoken modules are replaced by small fakes.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import random
import sys
import types

PIECES = ["I bought a green bike", "'single'", '"double"', "back\\slash", "{braces} {}", "\n", "\n\n", "\t",
          "ünïcödé", "中文", "🙂", "\U0001f9d1\u200d\U0001f4bb", "\x1c", "\x7f", "\u00a0", "\u2028", "\u3000",
          "### Session 9:", "Session Date: 2020/01/01", "user: ", "assistant: ", "  ", "</s>", "%s %d",
          "\\n", "C:\\path", "<tag>", "&amp;", "line end  ", "Answer:", "\ud7ff", "\ue000"]
EDGES = ["", "", " ", "\n", "\x1c", "\x1f ", "\u3000", "\t", "\u00a0"]
TYPES = ["single-session-user", "single-session-assistant", "single-session-preference",
         "multi-session", "temporal-reasoning", "knowledge-update"]


def text(rng, k):
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, k)))


def date(rng):
    days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    return "2023/%02d/%02d (%s) %02d:%02d" % (rng.randint(1, 12), rng.randint(1, 28), rng.choice(days),
                                             rng.randint(0, 23), rng.randint(0, 59))


def entry(rng, i):
    sessions, dates, ids = [], [], []
    for s in range(rng.randint(1, 6)):
        turns = []
        for k in range(rng.randint(1, 5)):
            t = {"role": ["user", "assistant"][k % 2], "content": rng.choice(EDGES) + text(rng, 6) + rng.choice(EDGES)}
            if rng.random() < 0.3:
                t["has_answer"] = rng.random() < 0.5
            turns.append(t)
        sessions.append(turns)
        dates.append(dates[-1] if dates and rng.random() < 0.2 else date(rng))
        ids.append(rng.choice(["answer_%08x_%d" % (rng.getrandbits(32), s), "sharegpt_%s_%d" % (rng.choice("abc"), s),
                               "ultrachat_%d" % (i * 10 + s)]))
    qtype = rng.choice(TYPES)
    qid = "q%06d" % i + ("_abs" if rng.random() < 0.2 else "")
    return {"question_id": qid, "question_type": qtype, "question": text(rng, 4), "answer": text(rng, 2),
            "question_date": date(rng), "haystack_session_ids": ids, "haystack_dates": dates,
            "haystack_sessions": sessions, "answer_session_ids": ids[:1]}


def retrieval_text(rng, expansion, fmt):
    """A ranked item's text: what a key-expanded index holds (facts, a summary). Under a merge
    read as nl it must be a string (upstream concatenates it); otherwise also a dict or a list
    (for replace, one whose dicts carry has_answer, which upstream's clean-up pops)."""
    if expansion == "merge" and fmt == "nl" or rng.random() < 0.6:
        return text(rng, 3)
    return rng.choice([{"facts": [text(rng, 2), text(rng, 2)]}, [text(rng, 2)],
                       [{"fact": text(rng, 2), "has_answer": True}, text(rng, 1)]])


def ranking(rng, e, retriever, useronly, expansion="none", fmt="json"):
    """The retrieval_results of LongMemEval's retrieval log for entry e: its corpus ids (sessions,
    or turns "<session>_<k>" counted from 1, "answer" turned into "noans" for some) shuffled. For
    flat-session some turn ids join them (not with user-only reading, where upstream fails); for
    flat-turn, ids run_generation.py skips or reads with Python's int() and negative indexing."""
    ids = []
    for sid, sess in zip(e["haystack_session_ids"], e["haystack_sessions"]):
        noans = lambda c: c.replace("answer", "noans") if "answer" in c and rng.random() < 0.5 else c
        if retriever == "flat-session":
            ids.append(noans(sid))
            if useronly == "false" and rng.random() < 0.3:
                ids.append(noans("%s_%d" % (sid, rng.randint(1, len(sess)))))
            continue
        for k, t in enumerate(sess):
            if t["role"] == "user" or rng.random() < 0.3:
                ids.append(noans("%s_%d" % (sid, k + 1)))
        if rng.random() < 0.5:
            ids.append(rng.choice(["nosuch_1", "%s_%d" % (sid, len(sess) + 3), "%s_0" % sid, "%s_-1" % sid,
                                   "%s_+1" % sid, "%s_ 2" % sid, "%s_\u0661" % sid, sid]))
    if rng.random() < 0.2:
        ids.append(rng.choice(ids))  # an id twice: the last text counts for both
    rng.shuffle(ids)
    return {"query": e["question"], "ranked_items": [{"corpus_id": c, "text": retrieval_text(rng, expansion, fmt), "timestamp": ""} for c in ids],
            "metrics": {"session": {}, "turn": {}}}


def reply(seed):
    rng = random.Random(seed)
    return rng.choice(EDGES) + "The answer: " + text(rng, 4) + rng.choice(EDGES)


def install_fakes(transcript):
    openai = types.ModuleType("openai")

    class RateLimitError(Exception):
        pass

    class Completions:
        def create(self, model, messages, temperature=None, max_tokens=None, n=None, **kw):
            req = {"model": model, "messages": messages, "temperature": temperature, "max_tokens": max_tokens}
            key = json.dumps([model, messages], ensure_ascii=False).encode("utf-8", "surrogatepass")
            raw = reply(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))
            transcript.append({"call_index": len(transcript), "role": "client", "request": req, "raw_response": raw})
            msg = types.SimpleNamespace(content=raw)
            usage = types.SimpleNamespace(prompt_tokens=1, completion_tokens=1)
            return types.SimpleNamespace(choices=[types.SimpleNamespace(message=msg)], usage=usage)

    class OpenAI:
        def __init__(self, **kw):
            self.chat = types.SimpleNamespace(completions=Completions())

    openai.OpenAI, openai.RateLimitError = OpenAI, RateLimitError
    sys.modules["openai"] = openai
    backoff = types.ModuleType("backoff")
    backoff.constant = None
    backoff.on_exception = lambda *a, **kw: (lambda f: f)
    sys.modules["backoff"] = backoff
    transformers = types.ModuleType("transformers")
    transformers.AutoTokenizer = None
    sys.modules["transformers"] = transformers
    tiktoken = types.ModuleType("tiktoken")

    class NeverCut:  # the histories here are far below the budget: nothing to cut
        def encode(self, text, **kw):
            return [0]

    tiktoken.get_encoding = lambda name: NeverCut()
    sys.modules["tiktoken"] = tiktoken


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run-generation", required=True, help="path of LongMemEval's src/generation/run_generation.py")
    ap.add_argument("--cases", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    transcript = []
    install_fakes(transcript)
    spec = importlib.util.spec_from_file_location("longmemeval_generation", a.run_generation)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    for c in range(1, a.cases + 1):
        d = os.path.join(a.out, "case%03d" % c)
        os.makedirs(d, exist_ok=True)
        retriever = rng.choice(["orig-session", "orig-session", "orig-turn", "no-retrieval", "flat-session", "flat-turn",
                                "oracle-session", "oracle-turn"])
        flat = retriever.startswith("flat-")
        first = flat or retriever.startswith("oracle-")  # these keep [:topk], nothing for 0
        topk = rng.choice([1, 2, 3, 1000] if first else [0, 1, 2, 3, 1000])
        fmt, useronly = rng.choice(["json", "nl"]), rng.choice(["true", "false"])
        reading = rng.choice(["direct", "con", "con-separate"])
        if reading == "con-separate":
            fmt = "json"  # upstream fails on nl notes (KeyError 'role')
        expansion = rng.choice(["none", "none", "merge", "replace"]) if flat else "none"
        if expansion == "replace":
            fmt = "json"  # upstream fails on nl retrieval texts (TypeError)
        if retriever == "flat-turn" and expansion != "replace":
            useronly = "false"  # upstream fails on it (TypeError)
        entries = [entry(rng, c * 100 + i) for i in range(rng.randint(1, 4))]
        if flat:
            for e in entries:
                e["retrieval_results"] = ranking(rng, e, retriever, useronly, expansion, fmt)
        # qa-load refuses an entry whose question is blank, white space as Python's str.strip() and
        # run_generation.py know it (a model would be asked nothing): left out after every draw, so
        # the rest stay the same.
        entries = [e for e in entries if e["question"].strip()]
        if not entries:
            os.rmdir(d)
            continue
        cot, con = ("false" if reading == "direct" else "true"), ("true" if reading == "con-separate" else "false")
        with open(os.path.join(d, "entries.json"), "w", encoding="utf-8") as f:
            json.dump(entries, f, ensure_ascii=False, indent=1)
        flags = ["--retriever", retriever, "--key-expansion", expansion, "--history-format", fmt, "--history-sessions", str(topk), "--reading", reading]
        if useronly == "true":
            flags.append("--user-only")
        with open(os.path.join(d, "options.json"), "w", encoding="utf-8") as f:
            json.dump({"retriever_type": retriever, "merge_key_expansion_into_value": expansion, "topk_context": topk, "history_format": fmt, "useronly": useronly, "cot": cot, "con": con,
                       "qa_predict_flags": flags}, f, indent=1)
        del transcript[:]
        args = argparse.Namespace(in_file=os.path.join(d, "entries.json"), out_dir=d, out_file_suffix="",
                                  model_name="gpt-4o", model_alias="gpt-4o", openai_base_url=None,
                                  openai_key="fake", openai_organization=None, retriever_type=retriever,
                                  topk_context=topk, history_format=fmt, useronly=useronly, cot=cot, con=con,
                                  merge_key_expansion_into_value=expansion, gen_length=None)
        out = sys.stdout
        sys.stdout = open(os.devnull, "w")
        try:
            gen.main(args)
        finally:
            sys.stdout.close()
            sys.stdout = out
        for name in os.listdir(d):  # the answers file run_generation.py writes
            if "_testlog_" in name:
                os.remove(os.path.join(d, name))
        with open(os.path.join(d, "transcript.jsonl"), "w", encoding="utf-8") as f:
            for t in transcript:
                f.write(json.dumps(t, ensure_ascii=False) + "\n")


main()
