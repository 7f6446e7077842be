#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# One guest of bench/scale: with kernel.bpf_stats_enabled, load
# scx_coresched and, for each cookie count in SCX_SCALE_COOKIES (default
# "8 256 4096"), run that many prctl cookies of tasks that work 6 ms and sleep
# 4 ms (build/cookie_duty: wakeups, enqueues, dispatches and ticks on
# every CPU; 2 tasks per CPU, at least one per cookie), then measure for
# SCX_SCALE_SECS (default 10) seconds: the BPF cost per call of each
# callback (run_time_ns / run_cnt of its program) and forced idle. Prints
#   scale ncpu=N cookies=K window_s=S reads_s=R0,R1
#   scale ncpu=N cookies=K secs=S prog=NAME calls=C ns_per_call=X
#   scale ncpu=N cookies=K forced_idle_pct=F
#   scale ncpu=N cookies=K ejections=E
#   scale ncpu=N cookies=K calib=1 batches=B ns_per_run=X ns_median=M ns_min=Y
# (S: the window measured, from the middle of the first read of the
# programs' statistics to the middle of the second, R0 and R1 the reads'
# seconds: longer than SCX_SCALE_SECS when the guest is overloaded;
# E: times the kernel ejected the scheduler during that count's run; a
# restart makes new programs, whose counts start again: the figures of
# that count's run are then missing, or wrong if the new counts passed
# the old ones, programs being matched by name. The calib
# line: build/calib's fixed BPF work, run beside the load during the same
# window, the yardstick of the guest's own slowdown: bench/calib.c.)
# Run from the repository root in a tools/vm guest (bench/scale does).
. tests/guest/lib.sh

secs=${SCX_SCALE_SECS:-10}
cookies=${SCX_SCALE_COOKIES:-8 256 4096}
progs="cs_select_cpu cs_enqueue cs_dispatch cs_tick cs_commit cs_running"

sysctl -qw kernel.bpf_stats_enabled=1
if ! start_sched --stats 1 --json; then
	echo "scale: the scheduler did not start: $(tail -n 2 "$TMP/sched.err")" >&2
	exit 1
fi
ej0=0
for k in $cookies; do
	# 2 x NCPU tasks in all (at least one per cookie), prctl cookies
	n=$((2 * NCPU > k ? 2 * NCPU : k))
	spawn "$ROOT/build/cookie_duty" "$k" "$n" $((secs + 8)) >"$TMP/duty"
	# every task started (4,096 cookies take a minute or more to fork)
	for ((i = 0; i < 1200; i++)); do
		grep -q '^go ' "$TMP/duty" && break
		nap 0.5
	done
	nap 3
	r0=${EPOCHREALTIME/./}
	prog_stats "$TMP/p0"
	r1=${EPOCHREALTIME/./}
	l0=$(wc -l <"$TMP/sched.out")
	"$ROOT/build/calib" "$secs" >"$TMP/calib" 2>&1 &
	calib=$!
	nap "$secs"
	r2=${EPOCHREALTIME/./}
	prog_stats "$TMP/p1"
	r3=${EPOCHREALTIME/./}
	# The window: from the middle of one read to the middle of the other
	# (an overloaded guest can take minutes to run bpftool).
	win=$(awk -v a=$(((r0 + r1) / 2)) -v b=$(((r2 + r3) / 2)) \
		'BEGIN { printf "%.3f", (b - a) / 1e6 }')
	echo "scale ncpu=$NCPU cookies=$k window_s=$win reads_s=$(((r1 - r0) / 1000000)),$(((r3 - r2) / 1000000))"
	wait "$calib" || echo "scale: calib failed: $(cat "$TMP/calib")" >&2
	l1=$(wc -l <"$TMP/sched.out")
	prog_cost "$TMP/p0" "$TMP/p1" | while read -r name calls ns; do
		case " $progs " in *" $name "*) ;; *) continue ;; esac
		echo "scale ncpu=$NCPU cookies=$k secs=$win prog=$name calls=$calls ns_per_call=$ns"
	done
	fi=$(sed -n "$((l0 + 1)),${l1}p" "$TMP/sched.out" |
		python3 -c '
import json, sys
v = [json.loads(l)["forced_idle_pct"] for l in sys.stdin if l.startswith("{")]
print("%.2f" % (sum(v) / len(v)) if v else "nan")')
	echo "scale ncpu=$NCPU cookies=$k forced_idle_pct=$fi"
	sed -n "s/^calib /scale ncpu=$NCPU cookies=$k calib=1 /p" "$TMP/calib"
	ej=$(grep -c 'ejected the scheduler' "$TMP/sched.err")
	echo "scale ncpu=$NCPU cookies=$k ejections=$((ej - ej0))"
	ej0=$ej
	stop_bg
	pkill -f cookie_duty
done
stop_sched
