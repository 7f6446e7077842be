#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The benchmark harness end to end on its tiny profile (1 s runs): it runs,
# and writes results.json with a figure for every workload x configuration,
# report.md and well-formed SVG charts. Checks that it works, not speed.
. tests/guest/lib.sh

out=$TMP/bench
if bench/guest.sh tiny "$out" >"$TMP/bench.log" 2>&1; then
	pass bench_tiny_runs
else
	fail bench_tiny_runs "bench/guest.sh tiny exited $?: $(tail -n 3 "$TMP/bench.log" | tr '\n' '|')"
fi
grep '^# ' "$TMP/bench.log" | tail -n 3

# One PASS/FAIL line per check, from bench/check.py.
python3 bench/check.py "$out"
finish
