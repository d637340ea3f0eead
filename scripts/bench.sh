#!/usr/bin/env bash
# bench.sh: run the metric, record, qa-predict and qa-score benchmarks and print their throughput.
# Usage: scripts/bench.sh [extra go test flags, e.g. -count=5 or -benchtime=3x]
# The raw `go test` output is kept in bench.out for benchstat.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${BENCH_OUT:-bench.out}
# qa-score's benchmarks take about a second an iteration: three iterations, so that the figure is
# not the first, cold one alone (flags given to this script come after and win).
{
	go test -run '^$' -bench . -benchmem "$@" ./pkg/metric/ ./pkg/record/ ./internal/predict/
	go test -run '^$' -bench . -benchmem -benchtime=3x "$@" ./internal/score/
} | tee "$out"
echo
echo "Throughput (per benchmark; pairs/s or records/s where the benchmark reports it):"
LC_ALL=C awk -f "$(dirname "$0")/bench-table.awk" "$out"
echo
echo "qa-score's target: BenchmarkCommand at least half BenchmarkDecodeEncode's records/s. Wall-clock"
echo "rates depend on free cores (the command uses all of them, the bare pass one); the CPU figures do not."
