#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/profile_guest.sh OUT: in a tools/vm guest, from the repository
# root (bench/profile boots it). Loads build/prof/scx_coresched (make prof)
# in strict mode, tags cgroups t_pa and t_pb, and runs the throughput
# rows one after the other: cpu2 (sysbench cpu, NCPU threads in each of
# the two), hackbench (-g 4 -f 5 in t_pa) and pipe (perf bench sched pipe
# pairs in t_pa). Before and after each it writes the scheduler's .bss
# (bpftool JSON: the section profile) to OUT/NAME.{before,after}.json and
# the run's length to OUT/NAME.ns, its output to OUT/NAME*.log;
# bench/profile_report.py reads them. A workload that fails fails the run.
# shellcheck source=tests/guest/lib.sh
source "$(dirname "$0")/../tests/guest/lib.sh"

out=${1:?usage: bench/profile_guest.sh OUT}
SCHED=$ROOT/build/prof/scx_coresched

# bss NAME: the scheduler's .bss, as bpftool's JSON, to OUT/NAME.json.
bss() {
	local id
	id=$(bpftool -j map show | python3 -c '
import json, sys
print(next(m["id"] for m in json.load(sys.stdin)
	   if m.get("name", "").endswith(".bss") and "coresch" in m["name"]))') &&
		bpftool -j map dump id "$id" >"$out/$1.json"
}

# in_cg LOG CGROUP CMD...: run CMD in CGROUP, in the background, its
# output to OUT/LOG.
in_cg() {
	local log=$out/$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$@" >"$log" 2>&1 &
	bg_pids+=($!)
}

# measure NAME: the bg_pids of the run, waited for between two snapshots;
# a workload that failed fails the run (no figures for it).
measure() {
	local t1 pid rc=0
	for pid in "${bg_pids[@]}"; do
		wait "$pid" || rc=$?
	done
	bg_pids=()
	t1=$(date +%s%N)
	if [ $rc != 0 ]; then
		fail "profile_$1" "a workload exited $rc: see $out/$1.*.log"
		return 1
	fi
	bss "$1.after" || return 1
	echo $((t1 - T0)) >"$out/$1.ns"
}

start_run() {
	bss "$1.before" || return 1
	T0=$(date +%s%N)
}

[ -x "$SCHED" ] || { fail profile_build "no $SCHED: run make prof"; finish; }
mkdir -p "$out" "$CG/t_pa" "$CG/t_pb"
echo "$NCPU" >"$out/ncpu"
start_sched --mode strict || { fail profile_start "the profiled scheduler did not start"; finish; }
if ! "$CTL" cgroup tag "$CG/t_pa" >/dev/null ||
	! "$CTL" cgroup tag "$CG/t_pb" >/dev/null; then
	fail profile_tag "could not tag t_pa and t_pb"
	finish
fi

start_run cpu2
in_cg cpu2.a.log "$CG/t_pa" sysbench cpu --threads="$NCPU" --time=10 run
in_cg cpu2.b.log "$CG/t_pb" sysbench cpu --threads="$NCPU" --time=10 run
measure cpu2

start_run hackbench
in_cg hackbench.log "$CG/t_pa" hackbench -g 4 -f 5 -l 4000
measure hackbench

start_run pipe
for k in $(seq 1 $(((NCPU + 1) / 2))); do
	in_cg "pipe.$k.log" "$CG/t_pa" perf bench sched pipe -l 20000
done
measure pipe

stop_sched
echo "# profile: $NCPU vCPUs, written to $out"
finish
