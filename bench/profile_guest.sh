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
# the run's length to OUT/NAME.ns; bench/profile_report.py reads them.
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

# in_cg CGROUP CMD...: run CMD in CGROUP, in the background.
in_cg() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$@" >/dev/null 2>&1 &
	bg_pids+=($!)
}

# measure NAME: the bg_pids of the run, waited for between two snapshots.
measure() {
	local t1
	wait "${bg_pids[@]}"
	bg_pids=()
	t1=$(date +%s%N)
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
in_cg "$CG/t_pa" sysbench cpu --threads="$NCPU" --time=10 run
in_cg "$CG/t_pb" sysbench cpu --threads="$NCPU" --time=10 run
measure cpu2

start_run hackbench
in_cg "$CG/t_pa" hackbench -g 4 -f 5 -l 4000
measure hackbench

start_run pipe
for _ in $(seq 1 $(((NCPU + 1) / 2))); do
	in_cg "$CG/t_pa" perf bench sched pipe -l 20000
done
measure pipe

stop_sched
echo "# profile: $NCPU vCPUs, written to $out"
finish
