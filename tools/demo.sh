#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The demo, run inside a tools/vm guest by 'make demo': two tenants
# (cgroups, each its own cookie) of cpu-bound work plus untagged
# background work under scx_coresched, with live statistics, then the
# verdict of the independent isolation auditor.
. tests/guest/lib.sh

secs=${SCX_SECS:-12}
echo "== scx_coresched demo on $NCPU CPUs: $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list) are SMT siblings of core 0"
# The observer attaches first (see observe_bg in tests/guest/lib.sh).
ensure_pins && observe_bg "$TMP/obs" --duration 600 || { cat "$TMP/obs.err"; exit 1; }
start_sched --stats 2 || { cat "$TMP/sched.err"; exit 1; }
head -n 1 "$TMP/sched.err"

a=$(tenant t_tenant_a)
b=$(tenant t_tenant_b)
echo "== tenant A: $a, cookie $("$CTL" cgroup tag "$a")"
echo "== tenant B: $b, cookie $("$CTL" cgroup tag "$b")"
run_in "$a" stress-ng --quiet --cpu "$NCPU" --timeout $((secs + 10))
run_in "$b" stress-ng --quiet --cpu "$NCPU" --timeout $((secs + 10))
spawn stress-ng --quiet --cpu 1 --timeout $((secs + 10))
echo "== untagged background: 1 cpu-bound task; watching for ${secs}s"
tail -n 0 -f "$TMP/sched.out" &
tailer=$!
sleep "$secs"
kill -INT $OBS_PID
wait $OBS_PID
kill $tailer
stop_bg

ov=$(field "$TMP/obs" overlap_ns)
echo "== isolation check (coresched-audit, sched_switch tracepoint):"
echo "   $(field "$TMP/obs" switches) context switches on $(field "$TMP/obs" sibling_pairs) sibling pairs," \
	"incompatible overlap $ov ns, worst wait $(($(field "$TMP/obs" max_wait_ns) / 1000000)) ms"
if [ "$ov" = 0 ]; then
	echo "   VERDICT: PASS - siblings never ran different cookies at the same time"
else
	echo "   VERDICT: FAIL - $ov ns of overlap"
	exit 1
fi
stop_sched
tail -n 1 "$TMP/sched.err"
