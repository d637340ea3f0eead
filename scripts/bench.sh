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
LC_ALL=C awk '
/^pkg: / { pkg = $2; sub(".*/qapipe/", "", pkg) }
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	rate = ""; unit = ""; cpu = ""
	for (i = 3; i < NF; i++) {
		if ($(i+1) ~ /\/s$/) { rate = $i; unit = $(i+1) }
		if ($(i+1) == "ns/op") ns = $i
		if ($(i+1) == "cpu-ns/record") cpu = sprintf("  (%.1f µs CPU/record)", $i / 1000)
	}
	if (rate == "") { rate = sprintf("%.0f", 1e9 / ns); unit = "op/s" }
	n++; pkgs[n] = pkg; names[n] = name; rates[n] = rate; units[n] = unit; cpus[n] = cpu
	if (length(pkg) > pw) pw = length(pkg)
	if (chars(name) > nw) nw = chars(name)
}
# chars counts the characters of UTF-8 s (sub-benchmark names can hold any), not its bytes (awk
# runs in the C locale, where every awk counts bytes and its regexps match bytes).
function chars(s) { gsub(/[\200-\277]/, "", s); return length(s) }
# The columns are as wide as their longest entry, so that the figures line up.
END {
	for (i = 1; i <= n; i++) {
		pad = sprintf("%" (nw - chars(names[i]) + 1) "s", "")
		printf "  %-" pw "s %s%s%12.0f %-10s%s\n", pkgs[i], names[i], pad, rates[i], units[i], cpus[i]
	}
}' "$out"
echo
echo "qa-score's target: BenchmarkCommand at least half BenchmarkDecodeEncode's records/s. Wall-clock"
echo "rates depend on free cores (the command uses all of them, the bare pass one); the CPU figures do not."
