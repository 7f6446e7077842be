#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The benchmark, run inside one tools/vm guest (see bench/run):
#   bench/guest.sh PROFILE OUTDIR
# Each round enters each configuration (bench/configs.sh) once, in an order
# rotated per round, and runs every workload (bench/workloads.sh) under it.
# Raw output goes to OUTDIR/raw/rR/WORKLOAD/CONFIG/, the observer's and the
# scheduler's output for the whole configuration to OUTDIR/raw/rR/_session/CONFIG/;
# bench/report.py then writes OUTDIR/results.json, report.md and the SVGs.
# Profiles: full (3 rounds, 10 s runs), quick (1 round, 2 s), tiny (1
# round, 1 s: only checks that everything runs). SCX_BENCH_CONFIGS and
# SCX_BENCH_WORKLOADS (space-separated names) run a subset, for the
# harness test; the report then covers that subset.
. tests/guest/lib.sh
. bench/configs.sh
. bench/workloads.sh
. bench/collect.sh

profile=${1:-}
out=${2:-}
case $profile in
# BUILD_TARGETS: zlib make targets (a compile takes seconds in the TCG
# guest); ONECORE_SECS: case 6 is judged on its per-second series.
full) ROUNDS=3 SECS=10 ONECORE_SECS=20 PIPE_LOOPS=20000 HACK_LOOPS=400 DB_ROWS=10000
	BUILD_TARGETS=libz.a ;;
quick) ROUNDS=1 SECS=2 ONECORE_SECS=5 PIPE_LOOPS=3000 HACK_LOOPS=40 DB_ROWS=1000
	BUILD_TARGETS="adler32.o compress.o crc32.o gzclose.o gzlib.o uncompr.o" ;;
tiny) ROUNDS=1 SECS=1 ONECORE_SECS=2 PIPE_LOOPS=500 HACK_LOOPS=10 DB_ROWS=200
	BUILD_TARGETS="adler32.o compress.o" ;;
*) echo "bench/guest.sh: unknown profile '$profile' (full, quick or tiny)" >&2; exit 2 ;;
esac
[ -n "$out" ] && mkdir -p "$out/raw" ||
	{ echo "bench/guest.sh: cannot create the results directory '$out'" >&2; exit 2; }
ROUNDS=${SCX_BENCH_ROUNDS:-$ROUNDS}
# subset NAME WANTED KNOWN...: print WANTED if every word is KNOWN.
subset() {
	local name=$1 want=$2 w
	shift 2
	for w in $want; do
		[[ " $* " == *" $w "* ]] || {
			echo "bench/guest.sh: $name: unknown '$w' (known: $*)" >&2
			return 1
		}
	done
	echo "$want"
}
if [ -n "${SCX_BENCH_CONFIGS:-}" ]; then
	list=$(subset SCX_BENCH_CONFIGS "$SCX_BENCH_CONFIGS" "${CONFIGS[@]}" \
		"${EXTRA_CONFIGS[@]}") ||
		exit 2
	read -ra CONFIGS <<<"$list"
fi
if [ -n "${SCX_BENCH_WORKLOADS:-}" ]; then
	list=$(subset SCX_BENCH_WORKLOADS "$SCX_BENCH_WORKLOADS" "${WORKLOADS[@]}") ||
		exit 2
	read -ra WORKLOADS <<<"$list"
fi

sysctl -q -w kernel.bpf_stats_enabled=1 ||
	info "kernel.bpf_stats_enabled could not be set: no BPF cost figures"
trap 'wl_cleanup; echo on >"$SMT" 2>/dev/null; cleanup' EXIT
wl_setup
{
	echo "profile=$profile"
	echo "rounds=$ROUNDS"
	echo "secs=$SECS"
	echo "onecore_secs=$ONECORE_SECS"
	echo "ncpu=$NCPU"
	echo "topo=${SCX_TOPO:-}"
	echo "siblings=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)"
	echo "kernel=$(uname -r)"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "db_note=$DB_NOTE"
	echo "audit=${SCX_BENCH_AUDIT:-1}"
	echo "configs=${CONFIGS[*]}"
	echo "workloads=${WORKLOADS[*]}"
} >"$out/env.txt"

nc=${#CONFIGS[@]}
for r in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $((nc - 1))); do
		c=${CONFIGS[$(((k + r - 1) % nc))]}
		sess=$out/raw/r$r/_session/$c
		mkdir -p "$sess"
		if ! cfg_enter "$c" "$sess"; then
			echo "configuration $c could not be entered: $(tail -n 2 "$TMP/sched.err" 2>/dev/null | tr '\n' ' ')" >>"$sess/error"
			info "round $r $c: $(head -n 1 "$sess/error")"
		fi
		for w in "${WORKLOADS[@]}"; do
			run=$out/raw/r$r/$w/$c
			mkdir -p "$run"
			if [ -f "$sess/error" ]; then
				cp "$sess/error" "$run/error"
			else
				"wl_$w" "$run" || echo "workload $w failed" >>"$run/error"
			fi
			stop_bg
			tenants_drop
			if [ -f "$run/error" ]; then
				info "round $r $c $w: $(head -n 1 "$run/error")"
			else
				info "round $r $c $w"
			fi
		done
		cfg_leave "$sess"
	done
done
echo on >"$SMT"
python3 bench/report.py "$out"
