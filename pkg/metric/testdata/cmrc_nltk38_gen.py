"""Writes cmrc_nltk38.jsonl: random (prediction, references) pairs cut and glued from the zh golden
pairs plus tricky pieces, scored by the official CMRC 2018 v6 script (ymcui/cmrc2018
baseline/cmrc2018_evaluate.py) on NLTK 3.8, with nltk.word_tokenize given the english Punkt
parameters of pkg/textnorm/punkt_english.tsv (nltk_data is not installed here). Run from pkg/metric:

    python3 testdata/cmrc_nltk38_gen.py PATH/TO/cmrc2018_evaluate.py > testdata/cmrc_nltk38.jsonl

Optional SEED N LONG arguments (defaults 2018 1200 0, which write the committed file) draw other
pairs for a differential check with ../shared/tools/check-metrics --pairs; a fraction LONG of
them are glued from 20 to 200 pieces instead of up to 4. A fifth argument, a JSON file (a CMRC
2018 dataset such as ../shared/data/cmrc2018/cmrc2018_dev_sample.json), takes the pieces from its
strings (contexts, questions, answers) in place of the zh golden pairs', so that the tokenizers
meet real text. --odd, anywhere among the arguments, adds to the tricky pieces the characters of
the golden corpus's edge pairs (Python whitespace such as U+001C and U+0085, ZWSP, BOM, controls,
emoji, CJK Ext-A, ideographs past U+9FA5, ligatures, final sigma, …) and more ASCII punctuation.
"""
import importlib.util, json, os, random, sys
import nltk

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "textnorm", "testdata"))
from nltk_english import word_tokenize  # noqa: E402 (found through the path above)
nltk.word_tokenize = word_tokenize

ODD = "--odd" in sys.argv
sys.argv = [a for a in sys.argv if a != "--odd"]
spec = importlib.util.spec_from_file_location("cmrc", sys.argv[1])
cmrc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cmrc)

gold = [json.loads(l) for l in open("testdata/pairs.jsonl", encoding="utf-8")]
pieces = [s for g in gold if g["lang"] == "zh" for s in [g["prediction"]] + g["references"]]
if len(sys.argv) > 5:  # a dataset's strings, the long ones cut into sentence-sized pieces
    def strings(v):
        if isinstance(v, str):
            yield v
        elif isinstance(v, list):
            for x in v:
                yield from strings(x)
        elif isinstance(v, dict):
            for x in v.values():
                yield from strings(x)
    with open(sys.argv[5], encoding="utf-8") as f:
        pieces = [s[i:i + 60] for s in strings(json.load(f)) for i in range(0, max(len(s), 1), 60)]
extra = ["Dr. Smith went home. He left", "U.S. Army", "don't", "3.5", "(", ")", "……", "…", "——",
         " ", "é", "“", "”", "‘", "’", "can not", "cannot", "  ", "a.", "ABC.", "x--y", "İ", "Σ",
         "\u3000", "北京", "大学", "〇", "ｱ", "１２", "Ａ", "ⅰ", "'s", '"', "«»"]
if ODD:
    extra += ["\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u200b", "\ufeff", "\u0301", "ﬁ", "\U0001F600",
              "㐀", "䶵", "\u9fa6", "\u9fff", "\x00", "\x01", "\x7f", "\t", "\n", "ΟΔΟΣ", "ß", "ẞ", "\u212a",
              "ǅ", "Ⅻ", "①", "²", "٣", "e.g.", "Mr.", "1.", "?!", "--", "''", "``", "[", "]", "{", "}", "<",
              ">", "&", "%", "$", "#", "@", "*", ":", ";", "/", "\\", "|", "~", "^", "_", "+", "="]
args = sys.argv[2:] + ["2018", "1200", "0"][len(sys.argv[2:]):]
rng, N, LONG = random.Random(int(args[0])), int(args[1]), float(args[2])

def text():
    parts = []
    for _ in range(rng.randint(20, 200) if LONG and rng.random() < LONG else rng.randint(0, 4)):
        s = rng.choice(pieces) if rng.random() < 0.6 else rng.choice(extra)
        if rng.random() < 0.5 and s:
            a = rng.randint(0, len(s)); s = s[a:rng.randint(a, len(s))]
        parts.append(s)
    return "".join(parts)

for i in range(N):
    pred, refs = text(), [text() for _ in range(rng.randint(1, 3))]
    print(json.dumps({"id": "r%04d" % i, "prediction": pred, "references": refs, "lang": "zh",
        "source": "random", "expected": {"cmrc_em": cmrc.calc_em_score(refs, pred),
        "cmrc_f1": cmrc.calc_f1_score(refs, pred)}}, ensure_ascii=False))
