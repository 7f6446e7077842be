# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Measurement window of one benchmark run (sourced by bench/guest.sh):
# snapshots of /proc/stat, of the BPF programs' run_time_ns / run_cnt
# (kernel.bpf_stats_enabled, set by bench/guest.sh) and of scx_coresched's
# --stats JSON lines, taken when the tenants start and when they are done.

# snapshot RUNDIR N: snapshot number N (0: start, 1: end).
snapshot() {
	local run=$1 n=$2
	date +%s.%N >"$run/time$n"
	head -n 1 /proc/stat >"$run/stat$n"
	if [ -n "$SCHED_PID" ]; then
		bpftool -j prog show >"$run/bpf$n.json" 2>/dev/null
		wc -l <"$TMP/sched.out" >"$run/sched$n"
	fi
}

# window RUNDIR: the tenants of this run have started; snapshot, wait until
# they are all done, snapshot again, and keep the scheduler's stats lines
# of the window.
window() {
	local run=$1 pid rc=0
	snapshot "$run" 0
	for pid in "${bg_pids[@]}"; do
		wait "$pid"
		# 124: the build's timeout, its normal end
		case $? in 0 | 124) ;; *) rc=1 ;; esac
	done
	bg_pids=()
	snapshot "$run" 1
	[ $rc = 0 ] || echo "a tenant exited with an error" >>"$run/error"
	if [ -n "$SCHED_PID" ]; then
		sed -n "$(($(cat "$run/sched0") + 1)),$(cat "$run/sched1")p" \
			"$TMP/sched.out" >"$run/sched.jsonl"
	fi
}
