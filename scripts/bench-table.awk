# bench-table.awk: the throughput table scripts/bench.sh prints from `go test -bench` output: each
# benchmark's package, name and rate (the pairs/s or records/s it reports, else op/s, or s/op for
# one of under 10 operations a second), and its CPU time a record where it reports one.
# Run in the C locale: LC_ALL=C awk -f scripts/bench-table.awk bench.out
/^pkg: / { pkg = $2; sub(".*/qapipe/", "", pkg) }
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	rate = ""; unit = ""; cpu = ""
	for (i = 3; i < NF; i++) {
		if ($(i+1) ~ /\/s$/) { rate = $i; unit = $(i+1) }
		if ($(i+1) == "ns/op") ns = $i
		if ($(i+1) == "cpu-ns/record") cpu = sprintf("  (%.1f µs CPU/record)", $i / 1000)
	}
	# A benchmark of under 10 operations a second is given in seconds an operation, which
	# op/s rounded to a whole number would show as 0 (or 1).
	if (rate == "" && ns >= 1e8) { rate = sprintf("%.2f", ns / 1e9); unit = "s/op" }
	else if (rate == "") { rate = sprintf("%.0f", 1e9 / ns); unit = "op/s" }
	else rate = sprintf("%.0f", rate)
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
		printf "  %-" pw "s %s%s%12s %-10s%s\n", pkgs[i], names[i], pad, rates[i], units[i], cpus[i]
	}
}
