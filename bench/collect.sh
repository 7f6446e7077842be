# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Measurement window of one benchmark run (sourced by bench/guest.sh):
# snapshots of /proc/stat, of each tenant cgroup's CPU time, of the BPF
# programs' run_time_ns / run_cnt
# (kernel.bpf_stats_enabled, set by bench/guest.sh) and of scx_coresched's
# --stats JSON lines, and of the isolation observer's per-second JSON
# lines, taken when the tenants start and when they are done.

# snapshot RUNDIR N: snapshot number N (0: start, 1: end).
snapshot() {
	local run=$1 n=$2
	local t
	date +%s.%N >"$run/time$n"
	head -n 1 /proc/stat >"$run/stat$n"
	# Each tenant's CPU time (its cgroup's usage_usec): what it was given,
	# apart from what it made of it.
	for t in "${!TEN_CG[@]}"; do
		awk '$1 == "usage_usec" { print $2 }' "${TEN_CG[$t]}/cpu.stat" \
			>"$run/cg.$t.usec$n" 2>/dev/null
	done
	if [ -n "$SCHED_PID" ]; then
		bpftool -j prog show >"$run/bpf$n.json" 2>/dev/null
		wc -l <"$TMP/sched.out" >"$run/sched$n"
	fi
	if [ "$CFG_AUDIT" = 1 ]; then
		wc -l <"$AUDIT_OUT" >"$run/audit$n"
	fi
}

# lines_between RUNDIR NAME FILE: FILE's lines that were written between
# the snapshots NAME0 and NAME1 of RUNDIR.
lines_between() {
	local run=$1 name=$2 file=$3
	sed -n "$(($(cat "$run/${name}0") + 1)),$(cat "$run/${name}1")p" "$file"
}

# window RUNDIR: the tenants of this run have started; snapshot, wait until
# they are all done, snapshot again, and keep the scheduler's stats lines
# and the observer's interval lines of the window: whole seconds, from the
# one under way when the window opened to the one under way when it
# closed, so that the window's overlap is never missed (it may take in up
# to a second on each side).
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
		lines_between "$run" sched "$TMP/sched.out" >"$run/sched.jsonl"
	fi
	if [ "$CFG_AUDIT" = 1 ]; then
		# The observer prints an interval 0.25-0.3 s after it ends
		# (its reorder delay): wait for the one under way to come out.
		sleep 1.5
		wc -l <"$AUDIT_OUT" >"$run/audit1"
		lines_between "$run" audit "$AUDIT_OUT" >"$run/audit.jsonl"
	fi
}
