#!/usr/bin/env bash
# fuzz.sh: fuzz every fuzz target of the module, one after another, and say which found a failure.
# Usage: scripts/fuzz.sh [REGEXP]   (only the targets whose name matches, e.g. 'Squad|Rouge')
# FUZZTIME (default 30s) is each target's time; FUZZMINIMIZETIME (default 200x) bounds the
# minimising of each new input, which by default takes up to a minute during which the target
# makes no progress. A failing input is written under the package's testdata/fuzz, as go test
# writes it; the script exits 1 if any target failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
pattern=${1:-.}
fuzztime=${FUZZTIME:-30s}
minimize=${FUZZMINIMIZETIME:-200x}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

targets=$(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(' . |
	sed -E 's|^\./(.*)/[^/]*:[0-9]+:func (Fuzz[A-Za-z0-9_]*)\(.*|\1 \2|' | sort -u |
	awk -v re="$pattern" '$2 ~ re')
if [ -z "$targets" ]; then
	echo "fuzz.sh: no fuzz target matches $pattern" >&2
	exit 2
fi

n=0
failed=()
while read -r dir name; do
	n=$((n + 1))
	for _ in 1 2; do
		go test "./$dir" -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" >"$log" 2>&1
		rc=$?
		# With Go 1.26 a run given a duration can end in a bare "context deadline exceeded"
		# with no input written (golang/go#75804, a race in the fuzzing coordinator when the
		# time is up, not a finding): run the target once more.
		if [ $rc -ne 0 ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
			echo "$dir $name: the fuzzing coordinator's deadline race (golang/go#75804); again" >&2
			continue
		fi
		break
	done
	execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1)
	if [ "$rc" -eq 0 ]; then
		printf 'ok    %-22s %-24s %s\n' "$dir" "$name" "$execs"
	else
		printf 'FAIL  %-22s %-24s %s\n' "$dir" "$name" "$execs"
		sed 's/^/    /' "$log"
		failed+=("$dir $name")
	fi
done <<<"$targets"

echo "fuzzed $n of the module's fuzz targets, $fuzztime each: ${#failed[@]} failed"
for f in "${failed[@]}"; do
	echo "  $f"
done
[ ${#failed[@]} -eq 0 ]
