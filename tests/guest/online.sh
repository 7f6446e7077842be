#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Possible CPUs offline at load, onlined under load. The guest boots with
# only its first SCX_ONLINE vCPUs online (tools/vm --online N, the kernel's
# maxcpus=N): the others' siblings are unknown until they come online.
# scx_coresched must load anyway, fence them (they run only their own
# kernel threads), and place them in their cores when they come online,
# while two tagged cgroups, a prctl tenant and untagged work spin on every
# CPU; the outside observer, attached before the scheduler, places them
# too (it reads their siblings when their first records come).
#   SCX_TOPO=2x2 SCX_ONLINE=2 tools/vm --cores 2 --threads 2 --online 2 -- tests/guest/online.sh
#
#   online_fenced_at_load     the scheduler loads, saying how many CPUs it
#                             fenced, with CPUs offline
#   online_placed             each onlined CPU is placed (a loader line
#                             naming it) within 30 s
#   online_runs_tenants       each onlined CPU then runs tenants (user time
#                             grows on it): it is not fenced any more
#   online_isolation_TOPO     0 ns of incompatible overlap, kernel threads
#                             trusted (a CPU coming up runs its hotplug
#                             threads before any scheduler sees it); the
#                             strict figure is printed
#   online_observer_placed    the observer watched the onlined CPUs
#   online_no_ejection        the scheduler ran throughout
. tests/guest/lib.sh

topo=${SCX_TOPO:-2x2}
online=${SCX_ONLINE:-2}
[ "$NCPU" = "$online" ] || info "$NCPU CPUs online, SCX_ONLINE says $online"
SYSCPU=/sys/devices/system/cpu

# user_ticks CPU: user + nice ticks of CPU in /proc/stat; no fork.
user_ticks() {
	local l f
	while read -r l; do
		case "$l" in "cpu$1 "*) read -ra f <<<"$l"; echo $((f[1] + f[2])); return ;; esac
	done </proc/stat
	echo 0
}

# Which ones: the kernel brings up each core's first thread first, so
# with maxcpus=2 on 2x2 CPUs 0 and 2 are online and 1 and 3 are not.
offline=()
for f in $SYSCPU/cpu[0-9]*/online; do
	c=${f#$SYSCPU/cpu}
	c=${c%/online}
	[ "$(cat "$f")" = 0 ] && offline+=("$c")
done
info "$NCPU CPUs online at boot, offline: ${offline[*]:-none}"
if [ ${#offline[@]} = 0 ]; then
	fail online_fenced_at_load "no CPU is offline: boot with tools/vm --online $online"
	finish
fi

if ! ensure_pins || ! observe_bg "$TMP/strict" --duration 600 ||
	! { STRICT_PID=$OBS_PID; observe_bg "$TMP/obs" --duration 600 --trust-kthreads; }; then
	fail online_fenced_at_load "observer did not start: $(tail -n 2 "$TMP"/*.err)"
	finish
fi
if start_sched --stats 1 &&
	grep -q "${#offline[@]} possible CPUs are offline" "$TMP/sched.err"; then
	pass online_fenced_at_load
else
	fail online_fenced_at_load "$(tail -n 3 "$TMP/sched.err" | tr '\n' '|')"
	finish
fi
spin_tenants || fail online_tenants "could not tag the tenants"

why=
for c in "${offline[@]}"; do
	echo 1 >$SYSCPU/cpu$c/online || why+="echo 1 > cpu$c/online failed; "
done
for c in "${offline[@]}"; do
	poll 30 file_has "$TMP/sched.err" "CPU $c came online" ||
		why+="no 'CPU $c came online' line; "
done
if [ -z "$why" ]; then
	pass online_placed
	grep 'came online' "$TMP/sched.err" | sed 's/^/# /'
else
	fail online_placed "$why $(tail -n 2 "$TMP/sched.err" | tr '\n' '|')"
fi

declare -A t0
for c in "${offline[@]}"; do t0[$c]=$(user_ticks "$c"); done
nap 6
why=
for c in "${offline[@]}"; do
	d=$(($(user_ticks "$c") - t0[$c]))
	info "cpu$c: $d user ticks in 6 s"
	[ $d -ge 100 ] || why+="cpu$c ran $d user ticks in 6 s (fenced CPUs run none); "
done
if [ -z "$why" ]; then pass online_runs_tenants; else fail online_runs_tenants "$why"; fi

stop_observer
rc=$?
[ -n "${STRICT_PID:-}" ] && stop_observer "$STRICT_PID"
ov=$(field "$TMP/obs" overlap_ns)
sw=$(field "$TMP/obs" switches)
info "online $topo, kthreads trusted: overlap_ns=$ov windows=$(field "$TMP/obs" overlap_windows) switches=$sw lost=$(field "$TMP/obs" lost_events)"
info "online $topo, strict (measured): overlap_ns=$(field "$TMP/strict" overlap_ns) windows=$(field "$TMP/strict" overlap_windows) longest=$(field "$TMP/strict" longest_overlap_ns)"
if [ $rc = 0 ] && [ "$ov" = 0 ] && [ "${sw:-0}" -gt 0 ]; then
	pass "online_isolation_$topo"
else
	grep overlap_example "$TMP/obs" | head -n 3 | sed 's/^/# /'
	fail "online_isolation_$topo" "observer rc=$rc overlap_ns=$ov ($(tail -n 1 "$TMP/obs.err"))"
fi
why=
for c in "${offline[@]}"; do
	grep -q "CPU $c came online" "$TMP/obs.err" || why+="cpu$c; "
done
if [ -z "$why" ]; then
	pass online_observer_placed
else
	fail online_observer_placed "the observer did not place $why$(tail -n 2 "$TMP/obs.err" | tr '\n' '|')"
fi

if sched_is enabled coresched && ! grep -q 'ejected' "$TMP/sched.err"; then
	pass online_no_ejection
else
	fail online_no_ejection "state $(scx_state): $(grep -m 2 'ejected\|detached' "$TMP/sched.err" | tr '\n' '|')"
fi
stop_sched
finish
