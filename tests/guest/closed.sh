#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest tests of --fail-mode closed and of restarts after an ejection:
#   tools/vm -- tests/guest/closed.sh
#
#   failsafe_closed_kill          --fail-mode closed: SIGKILL of the loader;
#                                 its guard switches SMT off before the
#                                 scheduler lets go, and a restart (which
#                                 attaches with the siblings offline, from
#                                 the cached topology) switches SMT on once
#                                 enabled: SMT off after the kill, on after
#                                 the restart, the scheduler enabled. The
#                                 overlap over the cycle is printed, not
#                                 asserted: switching SMT off and on is CPU
#                                 hotplug, with its window (README
#                                 "Semantics", Hotplug), measured by an
#                                 observer that trusts kernel threads and
#                                 by a strict one
#   failsafe_eject_restart_{open,closed}  sysrq-S ejects the scheduler; it
#                                 is loaded again by itself, SMT on (the
#                                 gap is printed, not asserted)
source "$(dirname "$0")/lib.sh"

[ -x "$SPIN" ] || {
	fail closed_build "no $SPIN: run make"
	finish
}

ensure_pins || fail closed_pins "scheduler did not start once"

# --- fail-mode closed: SIGKILL of the loader ---------------------------------
name=failsafe_closed_kill
if ! smt_is on; then
	fail $name "SMT control is '$(cat $SMT 2>/dev/null)', not on"
elif observe_bg "$TMP/k.strict" --duration 300 && strict_pid=$OBS_PID &&
	observe_bg "$TMP/k.obs" --duration 300 --trust-kthreads &&
	start_sched --fail-mode closed; then
	spin_tenants
	sleep 2
	info "closed kill: [$(cut -d' ' -f1 /proc/uptime)] kill"
	kill -KILL $SCHED_PID
	wait $SCHED_PID 2>/dev/null
	SCHED_PID=
	poll 20 smt_is off
	poll 20 sched_is disabled
	sysread smt_after_kill $SMT
	cp "$TMP/sched.err" "$TMP/killed.err" # the guard's words
	info "closed kill: [$(cut -d' ' -f1 /proc/uptime)] SMT $smt_after_kill, restart"
	start_sched --fail-mode closed
	info "closed kill: [$(cut -d' ' -f1 /proc/uptime)] enabled"
	poll 20 smt_is on
	sysread smt_after_restart $SMT
	info "closed kill: [$(cut -d' ' -f1 /proc/uptime)] SMT $smt_after_restart"
	sleep 3
	end_observer "$TMP/k.obs"
	ov=$OBS_OV
	stop_observer "$strict_pid"
	info "closed kill: SMT after kill '$smt_after_kill', after restart '$smt_after_restart'"
	for f in k.obs k.strict; do
		info "closed kill ($([ $f = k.obs ] && echo "kernel threads trusted" || echo strict), measured): overlap_ns=$(field "$TMP/$f" overlap_ns) windows=$(field "$TMP/$f" overlap_windows) longest_ns=$(field "$TMP/$f" longest_overlap_ns) switches=$(field "$TMP/$f" switches)"
		grep overlap_example "$TMP/$f" | head -n 3 | sed 's/^/#   /'
	done
	info "closed kill: the killed loader's guard said: $(grep -aE 'SMT|isolat' "$TMP/killed.err" | tr '\n' ';')"
	info "closed kill: the new loader said: $(grep -aE 'SMT|isolat' "$TMP/sched.err" | tr '\n' ';')"
	if [ "$smt_after_kill" = off ] && [ "$smt_after_restart" = on ] &&
		sched_is enabled coresched && [ -n "$ov" ]; then
		pass $name
	else
		fail $name "SMT after kill '$smt_after_kill', after restart '$smt_after_restart', state $(scx_state), observer figure '${ov:-}'"
	fi
	stop_sched
	echo on >$SMT 2>/dev/null
	stop_bg
else
	fail $name "observer or scheduler did not start"
	[ -z "${strict_pid:-}" ] || stop_observer "$strict_pid"
fi

# --- ejection: the loader loads again by itself ------------------------------
for fm in open closed; do
	name=failsafe_eject_restart_$fm
	start_sched --fail-mode $fm || { fail $name "did not start"; continue; }
	spin_tenants
	echo S >/proc/sysrq-trigger
	ok=0
	poll 30 file_has "$TMP/sched.err" "isolating again" && ok=1
	wait_enabled || ok=0
	poll 20 smt_is on
	info "eject ($fm): $(grep -aE 'detached|isolating again|SMT off' "$TMP/sched.err" | tr '\n' ';')"
	if [ $ok = 1 ] && smt_is on; then
		pass $name
	else
		fail $name "not loaded again (state $(scx_state), SMT $(cat $SMT)): $(tail -n 3 "$TMP/sched.err" | tr '\n' ';')"
	fi
	stop_bg
	stop_sched
	echo on >$SMT 2>/dev/null
done

finish
