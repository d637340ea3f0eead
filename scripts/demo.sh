#!/usr/bin/env bash
# demo.sh: run qapipe offline on the small samples shipped in testdata/ and print what came out.
# Run from the repository root after `make build` (binaries in ./bin); `make demo` does both.
# Records are written to $OUT so later steps can use them: a folder that is kept when OUT names
# it (OUT=DIR make demo), else a temporary one, removed when the script exits (on an error or a
# signal too).
set -euo pipefail

BIN=${BIN:-./bin}
temporary=
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
else
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/qapipe-demo.XXXXXX")
	trap 'rm -rf "$OUT"' EXIT
	temporary="removed at the end; OUT=DIR make demo keeps them in DIR"
fi

# load NAME ARGS...: qa-load ARGS into $OUT/NAME.jsonl, its per-type summary into $OUT/NAME.summary.
load() {
	local name=$1
	shift
	"$BIN/qa-load" --summary "$@" >"$OUT/$name.jsonl" 2>"$OUT/$name.summary"
}

load hotpotqa testdata/hotpotqa/hotpotqa_sample50.jsonl
load locomo testdata/locomo/locomo_conv26.json
load cmrc2018 testdata/cmrc2018/cmrc2018_dev_sample10.json
load squad testdata/squad/squad_v20_synthetic.json
load longmemeval testdata/longmemeval/longmemeval_synthetic.json
load evalearn testdata/evalearn/EvaLearn_Problem.json testdata/evalearn/EvaLearn_Sequence.json
load evalearn-results --format evalearn-results testdata/evalearn/results_sample.jsonl
load generic-csv --format csv --map question=q,answers=gold,id=qid,type=category testdata/generic/qa.csv
load generic-jsonl --format jsonl --map question=q,answers=gold,id=qid,type=category testdata/generic/qa.jsonl

echo "qa-load: records per type for each sample (records ${temporary:-in $OUT})"
printf '%-18s %-26s %8s\n' sample type records
for f in "$OUT"/*.summary; do
	sample=$(basename "$f" .summary)
	# Summary lines are "dataset type records"; types may contain spaces; skip header and total.
	awk -v s="$sample" 'NR > 1 && $1 != "total" {
		n = $NF; $1 = ""; $NF = ""; sub(/^ +/, ""); sub(/ +$/, "")
		printf "%-18s %-26s %8d\n", s, $0, n
	}' "$f"
done

# The whole pipeline, offline: the extractive predictor (BM25 over the context), the approximate
# rule judge, and the official metrics with bootstrap intervals.
pipeline() {
	local name=$1 metrics=$2
	"$BIN/qa-predict" --provider extractive <"$OUT/$name.jsonl" 2>"$OUT/$name.predict.log" |
		"$BIN/qa-judge" --mode rules 2>"$OUT/$name.judge.log" |
		"$BIN/qa-score" --metrics "$metrics" --summary "$OUT/$name.summary.md" --format markdown \
			>"$OUT/$name.scored.jsonl" 2>"$OUT/$name.score.log"
	echo
	echo "$name: qa-load | qa-predict --provider extractive | qa-judge --mode rules | qa-score"
	grep -v '^$' "$OUT/$name.summary.md"
}
pipeline hotpotqa em,f1,rougeL,bleu1,meteor,judge_score
pipeline locomo f1,locomo_f1,judge_score

echo
echo "qa-learncurve: EvaLearn's metrics on a shipped EvaLearn results sample (M=7, K=3)"
"$BIN/qa-load" --format evalearn-results testdata/evalearn-results/results.jsonl |
	"$BIN/qa-learncurve" --problems 7 --warmup 3 --format evalearn-text --output "$OUT/learncurve.json" \
		--plot "$OUT/learncurve.png" >"$OUT/learncurve.txt" 2>"$OUT/learncurve.log"
# The overall figures; the per-type sections, six of them, are left in the file.
awk '/^=== METRICS BY TASK TYPE ===$/ { exit } { print }' "$OUT/learncurve.txt"
if [ -n "$temporary" ]; then
	echo "per task type: learncurve.txt; learning-curve plot: learncurve.png (with the records and summaries, $temporary)"
else
	echo "per task type: $OUT/learncurve.txt; learning-curve plot: $OUT/learncurve.png (records and summaries: $OUT)"
fi
