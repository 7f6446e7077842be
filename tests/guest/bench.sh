#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The benchmark harness end to end on its tiny profile (1 s runs): it runs,
# and writes results.json with a figure for every workload x configuration
# asked for, report.md and well-formed SVG charts. Checks that it works,
# not speed. To stay short it runs every workload under two
# configurations (default, ours-strict), then one workload under the other
# three and a tuned one of ours (ours-strict-g20: --grace-us) beside
# default; 'make bench' runs the whole matrix.
. tests/guest/lib.sh

# harness PREFIX CONFIGS WORKLOADS: one run of bench/guest.sh tiny on a
# subset, then bench/check.py's PASS/FAIL lines, named PREFIX*.
harness() {
	local prefix=$1 configs=$2 workloads=$3 out=$TMP/bench.$1 rc
	SCX_BENCH_CONFIGS=$configs SCX_BENCH_WORKLOADS=$workloads \
		bench/guest.sh tiny "$out" >"$TMP/bench.log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		pass ${prefix}tiny_runs
	else
		fail ${prefix}tiny_runs "bench/guest.sh tiny exited $rc: $(tail -n 3 "$TMP/bench.log" | tr '\n' '|')"
	fi
	grep '^# ' "$TMP/bench.log" | tail -n 3
	python3 bench/check.py "$out" "$prefix" "$configs" "$workloads"
}

harness bench_ "default ours-strict" \
	"cpu2 cpu_db four pipe hackbench onecore light build latency"
harness bench_configs_ "default upstream smt-off ours-fill ours-strict-g20" pipe
# A name outside the set is refused before anything runs.
if SCX_BENCH_CONFIGS="default bogus" bench/guest.sh tiny "$TMP/bench.bad" \
	>"$TMP/bad.log" 2>&1; then
	fail bench_subset_unknown "an unknown configuration was accepted"
elif grep -q "unknown 'bogus'" "$TMP/bad.log"; then
	pass bench_subset_unknown
else
	fail bench_subset_unknown "no message naming it: $(tail -n 2 "$TMP/bad.log" | tr '\n' '|')"
fi
finish
