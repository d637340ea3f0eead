#!/usr/bin/env python3
"""Random EvaLearn problems and sequences solved by EvaLearn's own evaluate.py against fake
model clients, recording every request, for a differential check of qa-predict's sequential
solving (history, prompts, judge calls) on inputs beyond the recorded transcript:

    /usr/bin/python3 scripts/random-evalearn-transcript.py \\
        --evaluate EvaLearn/Evaluate/evaluate.py --cases 20 --seed 1 --out /tmp/evalearn-transcripts
    QA_EVALEARN_TRANSCRIPTS=/tmp/evalearn-transcripts go test ./internal/predict -run RandomTranscripts

Each case folder holds EvaLearn_Problem.json and EvaLearn_Sequence.json (the released files'
layout; problems also carry the unique_id = id that evaluate.py indexes by), transcript.jsonl (the
requests evaluate.py sent, in order, with the fake replies, in the layout of the golden
transcript) and results.json (what evaluate.py wrote). Problem texts, rubrics and types mix what
the history format must carry through: quotes of both kinds, backslashes, braces, newlines,
tabs, Python whitespace such as \\x1c at the ends, controls, non-ASCII and non-BMP characters, and
text that looks like the history's own markers. Student answers and judge verdicts are drawn
from a generator seeded by the request, so a rerun gives the same replies; they carry spaces and
\\x1c..\\x1f at their ends (evaluate.py strips them with Python's strip()). A sequence never asks
a problem whose question or rubric is blank (qa-load refuses the one, qa-predict's EvaLearn judge
the other); a case left with no sequence is not written, and its number is not given to the next.

It needs the original script (https://github.com/ByteDance-Seed/EvaLearn, Apache-2.0, not part
of qapipe) and what it imports but the OpenAI client: pandas, numpy and tqdm (Debian:
python3-pandas python3-tqdm). The openai and pydantic modules are replaced by small fakes.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import random
import sys
import types

PIECES = ["plain words", "'single'", '"double"', "back\\slash", "{braces} {question}", "\n", "\n\n", "\t",
          "ünïcödé", "中文", "🙂", "\U0001f9d1\u200d\U0001f4bb", "\x1c", "\x7f", "\u00a0", "\u2028",
          "[History Record 1 Start]", "**All history records end", "user: ", "assistant: ", "  ", "```json",
          '{"answer": "x"}', "%s %d", "\\n", "C:\\path", "$HOME", "<tag>", "&amp;", "line end  "]
EDGES = ["", "", " ", "  ", "\n", "\x1c", "\x1f ", "\u3000", "\t"]
TYPES = ["Logical Reasoning", "Math", "Données [x]", "Sequential {Type}", "推理"]


def text(rng, k, pieces=PIECES):
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, k)))


# Verdict text around the score: no fence of its own, so that EvaLearn's reply rule reads the
# score (a verdict it cannot read is an error in qa-predict, a 0 upstream: a documented departure).
JUDGE_PIECES = [p for p in PIECES if "`" not in p and "answer" not in p]


def make_case(rng, mixed=False):
    types_ = rng.sample(TYPES, rng.randint(1, 3))
    problems = []
    for i in range(rng.randint(6, 24)):
        pid = rng.randint(1, 10**6) if rng.random() < 0.9 else 10**12 + i
        if any(p["id"] == pid for p in problems):
            continue
        turns = [text(rng, 6) for _ in range(rng.choice([1, 1, 1, 3, 5]))]
        problems.append({"id": pid, "unique_id": pid, "type": rng.choice(types_), "source": "random",
                         "level": rng.randint(1, 3), "prompt": turns, "rubric": text(rng, 5),
                         "canonical_answer": text(rng, 2) if rng.random() < 0.5 else ""})
    sequences = []
    for s in range(rng.randint(1, 4)):
        typ = rng.choice(types_)
        ids = [p["id"] for p in problems if p["type"] == typ or mixed]
        if not ids or not any(p["type"] == typ for p in problems):
            continue  # evaluate.py makes system prompts only for the types its problems have
        m = rng.randint(1, 7)
        sequences.append({"sequence_id": rng.randint(1, 500) * 10 + s, "type": typ,
                          "question_ids": [rng.choice(ids) for _ in range(m)]})
    return problems, sequences


def reply(seed, role):
    """The fake model's reply to a request, drawn from a generator seeded by it."""
    rng = random.Random(seed)
    if role == "judge":
        score = rng.randint(0, 1)
        body = rng.choice([
            "[Grading Basis]: %s\n[Score]: %d points\n[JSON]:\n```json\n{\"answer_score\": %d}\n```",
            "Reasoning: %s\n```json\n{\"answer_score\": %d}\n```\n%s",
            "%s {\"answer_score\": %d} %s",
        ])
        n = body.count("%")
        args = [text(rng, 3, JUDGE_PIECES) if i != 1 else score for i in range(n)]
        if body.startswith("[Grading"):
            args = [text(rng, 3, JUDGE_PIECES), score, score]
        return rng.choice(EDGES) + body % tuple(args) + rng.choice(EDGES)
    answer = ""
    while not answer.strip():  # an empty answer is an error in qa-predict, sent on upstream
        answer = text(rng, 8)
    return rng.choice(EDGES) + answer + rng.choice(EDGES)


def install_fakes(transcript):
    openai = types.ModuleType("openai")

    class Completions:
        def create(self, model, messages, temperature=None, max_tokens=None, **kw):
            req = {"model": model, "messages": messages, "temperature": temperature}
            if max_tokens is not None:
                req["max_tokens"] = max_tokens
            key = json.dumps([model, messages], ensure_ascii=False).encode("utf-8")
            role = "judge" if model == "fake-judge" else "client"
            raw = reply(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"), role)
            transcript.append({"call_index": len(transcript), "role": role, "request": req, "raw_response": raw})
            msg = types.SimpleNamespace(content=raw)
            return types.SimpleNamespace(choices=[types.SimpleNamespace(message=msg)])

    class OpenAI:
        def __init__(self, **kw):
            self.chat = types.SimpleNamespace(completions=Completions())

    openai.OpenAI = openai.AzureOpenAI = OpenAI
    sys.modules["openai"] = openai
    pydantic = types.ModuleType("pydantic")
    pydantic.BaseModel = object
    sys.modules["pydantic"] = pydantic


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--evaluate", required=True, help="path of EvaLearn's Evaluate/evaluate.py")
    ap.add_argument("--cases", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--mixed-types", action="store_true",
                    help="let a sequence ask problems of any type, not only its own (evaluate.py names "
                         "the sequence's type in the student's system prompt)")
    a = ap.parse_args()
    transcript = []
    install_fakes(transcript)
    os.makedirs(a.out, exist_ok=True)
    here = os.getcwd()
    os.chdir(a.out)  # evaluate.py logs to sequence_eval.log in the working folder
    spec = importlib.util.spec_from_file_location("evalearn_evaluate", os.path.join(here, a.evaluate))
    ev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ev)
    ev.logger.setLevel("WARNING")
    rng = random.Random(a.seed)
    made = 0
    while made < a.cases:
        problems, sequences = make_case(rng, a.mixed_types)
        if not sequences:
            continue
        made += 1
        # qa-load refuses a record whose problem's question (its last prompt) is blank, white space
        # as Python's str.strip() and evaluate.py know it (a model would be asked nothing), and
        # qa-predict's EvaLearn judge one whose rubric is (it would grade against nothing; a
        # documented departure: evaluate.py sends it), so no sequence asks either.
        blank = {p["id"] for p in problems if not p["prompt"][-1].strip() or not p["rubric"].strip()}
        for s in sequences:  # after every draw: the rest of the case, and the cases after it, stay the same
            s["question_ids"] = [q for q in s["question_ids"] if q not in blank]
        sequences = [s for s in sequences if s["question_ids"]]
        if not sequences:
            continue  # its number stays taken, so that the cases after it keep theirs
        d = "case%03d" % made
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "EvaLearn_Problem.json"), "w", encoding="utf-8") as f:
            json.dump(problems, f, ensure_ascii=False, indent=1)
        with open(os.path.join(d, "EvaLearn_Sequence.json"), "w", encoding="utf-8") as f:
            json.dump(sequences, f, ensure_ascii=False, indent=1)
        del transcript[:]
        ev.sequentialEval(os.path.join(d, "EvaLearn_Problem.json"), os.path.join(d, "EvaLearn_Sequence.json"),
                          os.path.join(d, "results.json"), worker_nums=1, check_empty=False,
                          judge_api_key="fake", client_api_key="fake", judge_model="fake-judge",
                          client_model="fake-client")
        with open(os.path.join(d, "transcript.jsonl"), "w", encoding="utf-8") as f:
            for c in transcript:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
    for name in ("sequence_eval.log",):
        if os.path.exists(name):
            os.remove(name)


main()
