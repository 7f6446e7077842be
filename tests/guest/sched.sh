#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Behaviour of scx_coresched on a 2x2 guest: fairness between cookies, the
# LKML starvation case, bounded wait, the weight and task floors, a
# cookie bound to one CPU (affinity), CPU hotplug and load/unload cycles.
#   tools/vm --cores 2 --threads 2 -- tests/guest/sched.sh
. tests/guest/lib.sh

secs=${SCX_SECS:-10}

# usage_us VAR CGROUP: VAR = the CPU time CGROUP used so far, in
# microseconds (0 if unreadable). Read by the shell itself: with every
# vCPU spinning, starting awk for it took 20 to 33 s (weight floor).
usage_us() {
	local _k _v
	printf -v "$1" 0
	while read -r _k _v; do
		[ "$_k" = usage_usec ] && printf -v "$1" '%s' "$_v" && return 0
	done <"$2/cpu.stat"
	return 1
}

# stats FILE: intervals, min, mean and coefficient of variation of the
# counts a progress worker printed.
stats() { awk '{ n++; s += $1; ss += $1 * $1; if (min == "" || $1 < min) min = $1 }
	END { m = n ? s / n : 0; v = n ? ss / n - m * m : 0; if (v < 0) v = 0;
	printf "%d %.0f %.0f %.3f\n", n, min, m, (m > 0 ? sqrt(v) / m : 0) }' "$1"; }

# restart_observed OUT OBSERVER_ARGS...: restart the scheduler with the
# observer attached first (see observe_bg in lib.sh); stop_observer ends it.
restart_observed() {
	local out=$1
	shift
	stop_sched
	ensure_pins && observe_bg "$out" --duration 600 "$@" &&
		start_sched --stats 2 --json
}

# spin_two A NA B NB: tag cgroups A and B, run NA and NB stress-ng
# spinners in them, and set da and db to the CPU time (us) each used in
# $secs s, after 2 s to settle. False, with the reason in spin_err, if
# the tenants could not be set up, or if together they used less than a
# quarter of the CPUs in the window (nothing was measured: both starved,
# or the window's clock ran away from their work).
spin_two() {
	local ua ub
	spin_err=
	if ! "$CTL" cgroup tag "$1" >/dev/null || ! "$CTL" cgroup tag "$3" >/dev/null ||
		! run_in "$1" stress-ng --quiet --cpu "$2" --timeout $((secs + 10)) ||
		! run_in "$3" stress-ng --quiet --cpu "$4" --timeout $((secs + 10)); then
		stop_bg
		spin_err="could not tag $1 and $3 and start their spinners"
		return 1
	fi
	nap 2
	usage_us ua "$1"
	usage_us ub "$3"
	nap "$secs"
	usage_us da "$1"
	usage_us db "$3"
	da=$((da - ua)) db=$((db - ub))
	stop_bg
	if [ $((da + db)) -lt $((NCPU * secs * 1000000 / 4)) ]; then
		spin_err="$1 used ${da} us and $3 ${db} us of CPU in ${secs}s: under a quarter of the CPUs"
		return 1
	fi
}

# in_mode MODE NAME CMD...: restart the scheduler in MODE, run CMD, and
# restart it in strict mode; NAME fails if MODE does not start.
in_mode() {
	local m=$1 name=$2
	shift 2
	stop_sched
	if start_sched --mode "$m" --stats 2 --json; then
		"$@"
		stop_sched
	else
		fail "$name" "$m mode did not start: $(tail -n 2 "$TMP/sched.err")"
	fi
	start_sched --stats 2 --json ||
		fail scheduler_start "$(tail -n 2 "$TMP/sched.err")"
}

# fair_run NAME: two tagged cgroups, stress-ng on every CPU in each, for
# $secs s; NAME passes if each got 50 +- 10 % of their CPU time.
fair_run() {
	local name=$1 a b da db share
	a=$(tenant t_fa)
	b=$(tenant t_fb)
	if ! spin_two "$a" "$NCPU" "$b" "$NCPU"; then
		fail "$name" "$spin_err"
		return
	fi
	share=$((100 * da / (da + db + 1)))
	info "$name: cgroup A ${da} us, B ${db} us of CPU in ${secs}s: A has $share%"
	info "scheduler stats: $(tail -n 1 "$TMP/sched.out")"
	if [ $share -ge 40 ] && [ $share -le 60 ]; then
		pass "$name"
	else
		fail "$name" "A got $share% (want 50 +- 10)"
	fi
}

# Two tagged cgroups spinning on every CPU: besides the shares, each core
# should keep one of them (cs_yield_grace). Before, both cores yielded at
# once to whichever was behind, and they swapped tenants: on 2x2, 237
# and 219 cookie switches a second in two runs; with the four-grace rule,
# 107, 144 and 161 (two boots). Asserted: the mean over the run's
# statistics intervals is at most SWITCH_MAX_PER_S, between the two.
SWITCH_MAX_PER_S=${SWITCH_MAX_PER_S:-190}
test_fairness() {
	local from sw
	from=$(wc -l <"$TMP/sched.out")
	fair_run fairness_two_cgroups
	# the intervals after the first (which began before the spinners)
	sw=$(tail -n +$((from + 2)) "$TMP/sched.out" |
		sed -n 's/.*"cookie_switches_per_s":\([0-9.]*\).*/\1/p' |
		awk '{ s += $1; n++ } END { if (n) printf "%.0f %d", s / n, n }')
	info "cores_kept_two_cgroups: ${sw%% *} cookie switches/s (mean of ${sw##* } intervals)"
	if [ -n "$sw" ] && [ "${sw%% *}" -le "$SWITCH_MAX_PER_S" ]; then
		pass cores_kept_two_cgroups
	else
		fail cores_kept_two_cgroups "${sw%% *} cookie switches/s (${sw:+mean of ${sw##* } intervals}), over $SWITCH_MAX_PER_S"
	fi
}

# Fill mode with untagged work that wakes often (a task every 2 ms, 50 us
# each): the untagged cookie keeps the lowest vtime, and it runs beside
# any cookie, so a core's handover must look past it to the tagged cookie
# that waits; stopping at it starved one of the two tenants.
fill_waker_run() {
	local w
	"$ROOT/build/periodic" 2000 50 $((secs + 12)) >"$TMP/waker" &
	w=$!
	fair_run fairness_fill_untagged_waker
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
	info "untagged waker (measured): $(cat "$TMP/waker")"
}
test_fairness_fill() {
	local secs=6 # 0 us per cgroup before its fix: a short window tells
	in_mode fill fairness_fill_untagged_waker fill_waker_run
}

# None mode (no core scheduling, the benchmark's ceiling) still shares
# CPUs fairly between cookies: each CPU hands over to a more deserving
# cookie by itself. It kept whichever cookie it ran for as long as that
# cookie had tasks queued, and the first tenant to fill every CPU starved
# the other (and the test's shell) until it ended.
test_fairness_none() {
	local secs=6 # 0 % before the fix: a short window tells
	in_mode none fairness_none_mode fair_run fairness_none_mode
}

# Unequal weights while a cookie holding a core still waits: A (weight
# 100) runs NCPU spinners, B (weight 300) NCPU - 1. B is owed three
# quarters of the core time: one core and half of the other, about 2.5 of
# the 3.5 CPUs the two use (71 %); ignoring the weights gives each a core
# (50 %). B's waiting task sits on B's own core, so the core that runs A
# must hand over to B although the task is not queued there (due_here).
# (A due_here without that rule passed too: B's tasks waited a slice often
# enough to let the other core yield.)
test_fairness_weight() {
	local a b da db share secs=6
	a=$(tenant t_wa)
	b=$(tenant t_wb)
	if ! echo 100 >"$a/cpu.weight" || ! echo 300 >"$b/cpu.weight"; then
		fail fairness_weight_held_cookie "could not set the weights of $a, $b"
		return
	fi
	if ! spin_two "$a" "$NCPU" "$b" $((NCPU - 1)); then
		fail fairness_weight_held_cookie "$spin_err"
		return
	fi
	share=$((100 * db / (da + db + 1)))
	info "fairness_weight_held_cookie: A (100) ${da} us, B (300) ${db} us: B has $share% (owed about 71%)"
	if [ $share -ge 62 ] && [ $share -le 82 ]; then
		pass fairness_weight_held_cookie
	else
		fail fairness_weight_held_cookie "B at weight 300 got $share% (want 62-82)"
	fi
}

# Renewal (slice_renew): two CPU-bound tasks of one cookie, both bound to
# CPU 1, the other CPUs idle but for untagged work (placed on the idle
# core, away from CPU 1). The running one is renewed only while the other
# does not wait a slice or more behind it, so the two take turns every
# few slices. Asserted: slices were renewed (at least one a second, the
# mean of the run's statistics intervals), both progressed in every 1 s
# interval but one, and the one served less got at least RENEW_MIN_PCT %
# of the mean. A renewal blind to the waiting task keeps the running one
# on until something else ends its slice (untagged work's turns on the
# core): tried, the one served less got 74, 81, 83 and 91 % of the mean
# (four runs), against 100 % in each of two runs with the check, whose
# turns keep the two within a few slices. (Six spinners on every CPU did
# not tell them apart: the cores' turns rotated those enough.)
RENEW_MIN_PCT=${RENEW_MIN_PCT:-95}
test_renewal() {
	local cg pids=() t0=() t1=() i j t d min='' sum=0 mean from rn both=0
	cg=$(tenant t_renew)
	if ! "$CTL" cgroup tag "$cg" >/dev/null; then
		fail renewal_turns_on_one_cpu "could not tag $cg"
		return
	fi
	from=$(wc -l <"$TMP/sched.out")
	for i in 0 1; do
		# shellcheck disable=SC2016 # a loop for that sh
		if ! start_in "$cg" taskset -c 1 sh -c 'while :; do :; done'; then
			stop_bg
			fail renewal_turns_on_one_cpu "could not start spinner $i in $cg"
			return
		fi
		pids+=("$LAST")
	done
	nap 2
	for i in 0 1; do
		t0+=("$(cpu_ticks "${pids[i]}")")
	done
	t1=("${t0[@]}")
	for ((j = 0; j < secs; j++)); do
		nap 1
		d=0
		for i in 0 1; do
			t=$(cpu_ticks "${pids[i]}")
			[ "$t" != dead ] || t=${t1[i]}
			[ "$t" -gt "${t1[i]}" ] && d=$((d + 1))
			t1[i]=$t
		done
		[ $d -eq 2 ] && both=$((both + 1))
	done
	for i in 0 1; do
		t=$((t1[i] - t0[i]))
		sum=$((sum + t))
		[ -n "$min" ] && [ "$min" -le "$t" ] || min=$t
	done
	stop_bg
	mean=$((sum / 2))
	rn=$(tail -n +$((from + 2)) "$TMP/sched.out" |
		sed -n 's/.*"renewals_per_s":\([0-9.]*\).*/\1/p' |
		awk '{ s += $1; n++ } END { if (n) printf "%.0f", s / n }')
	info "renewal: 2 spinners of one cookie bound to CPU 1 for ${secs}s: CPU ticks min $min, mean $mean; both progressed in $both of $secs 1 s intervals; slices renewed ${rn:-?}/s"
	if [ -n "$rn" ] && [ "$rn" -ge 1 ]; then
		pass renewal_slices_renewed
	else
		fail renewal_slices_renewed "${rn:-no} slices renewed a second"
	fi
	if [ $both -ge $((secs - 1)) ] && [ "$mean" -gt 0 ] &&
		[ $((min * 100)) -ge $((mean * RENEW_MIN_PCT)) ]; then
		pass renewal_turns_on_one_cpu
	else
		fail renewal_turns_on_one_cpu "both progressed in $both of $secs intervals; the one served less got $min ticks, the mean $mean (want at least $RENEW_MIN_PCT %)"
	fi
}

# starve_run TAG: cpu-bound vs memory-bound worker on the two siblings of
# core 0, in cookies A and B (TAG=ours) or untagged (TAG=none).
starve_run() {
	local a b
	a=$(tenant t_sa)
	b=$(tenant t_sb)
	if [ "$1" = ours ]; then
		"$CTL" cgroup tag "$a" >/dev/null && "$CTL" cgroup tag "$b" >/dev/null
	fi
	sh -c 'echo $$ > "$0/cgroup.procs"; exec taskset -c 0,1 "$1" cpu "$2"' \
		"$a" "$PROGRESS" "$secs" >"$TMP/cpu.$1" &
	bg_pids+=($!)
	sh -c 'echo $$ > "$0/cgroup.procs"; exec taskset -c 0,1 "$1" mem "$2"' \
		"$b" "$PROGRESS" "$secs" >"$TMP/mem.$1" &
	bg_pids+=($!)
	wait "${bg_pids[@]}"
	bg_pids=()
}

test_starvation() {
	local c m cd md
	stop_sched
	starve_run none
	start_sched || return
	starve_run ours
	read -r c cmin cmean ccv < <(stats "$TMP/cpu.ours")
	read -r m mmin mmean mcv < <(stats "$TMP/mem.ours")
	read -r _ _ cd _ < <(stats "$TMP/cpu.none")
	read -r _ _ md _ < <(stats "$TMP/mem.none")
	info "starvation: cpu worker $c intervals, min $cmin, mean $cmean/s = $(awk -v a="$cmean" -v b="$cd" 'BEGIN { printf "%.2f", b ? a / b : 0 }')x default, cv $ccv"
	info "starvation: mem worker $m intervals, min $mmin, mean $mmean/s = $(awk -v a="$mmean" -v b="$md" 'BEGIN { printf "%.2f", b ? a / b : 0 }')x default, cv $mcv"
	if [ "$c" -ge $((secs - 1)) ] && [ "$m" -ge $((secs - 1)) ] &&
		[ "$cmin" -gt 0 ] && [ "$mmin" -gt 0 ]; then
		pass starvation_both_progress_every_second
	else
		fail starvation_both_progress_every_second "cpu: $c intervals min $cmin; mem: $m intervals min $mmin"
	fi
}

test_bounded_wait() {
	local i cgs=()
	restart_observed "$TMP/wait" || { fail wait_four_cookies "could not start"; return; }
	for i in 1 2 3 4; do
		cgs+=("$(tenant t_w$i)")
		"$CTL" cgroup tag "${cgs[-1]}" >/dev/null
		run_in "${cgs[-1]}" stress-ng --quiet --cpu "$NCPU" --timeout $((secs + 10))
	done
	sleep $((secs + 2))
	stop_observer
	stop_bg
	local w
	w=$(field "$TMP/wait" max_wait_ns)
	info "bounded wait, 4 cookies x $NCPU threads: worst wait $((w / 1000000)) ms" \
		"($(field "$TMP/wait" max_wait_comm)), overlap_ns=$(field "$TMP/wait" overlap_ns)"
	# The worst wait is a measurement (guest timing swings with the host's
	# load); asserted: waits were observed, 0 ns of overlap, and no task
	# starved long enough for the sched_ext watchdog to eject us.
	if [ -n "$w" ] && [ "$w" -gt 0 ] && [ "$(field "$TMP/wait" overlap_ns)" = 0 ] &&
		[ "$(scx_state)" = enabled ] && ! grep -q "ejected" "$TMP/sched.err"; then
		pass wait_four_cookies
	else
		fail wait_four_cookies "worst wait ${w:-?} ns, overlap $(field "$TMP/wait" overlap_ns), state $(scx_state): $(grep ejected "$TMP/sched.err" | tail -n 1)"
	fi
}

# sched_of PID: the task's time on a CPU so far in RN (ns), and the times
# it was run in RC (/proc/PID/schedstat); RN is "dead" if it is gone. No
# fork: the reading shell is untagged work, which gets little of the CPUs
# beside a busy cookie of high weight.
sched_of() {
	local s
	sysread s "/proc/$1/schedstat"
	RN=${s%% *} RC=${s##* }
	[ -n "$s" ] || RN=dead RC=0
}

# watch_windows MIN PID...: FLOOR_WINDOWS windows of 10 s, in each of
# which every PID should be switched in MIN times or more (sched_of, no
# fork). Sets ww_ran (the PID-windows that were), ww_runs (the PIDs'
# runs in all the windows) and ww_why (the PID-windows that were not).
watch_windows() {
	local min=$1 w j last=()
	shift
	ww_ran=0 ww_runs=0 ww_why=
	for ((j = 1; j <= $#; j++)); do
		sched_of "${!j}"
		last[j]=$RC
	done
	for ((w = 1; w <= FLOOR_WINDOWS; w++)); do
		nap 10
		for ((j = 1; j <= $#; j++)); do
			sched_of "${!j}"
			[ "$RN" = dead ] || ww_runs=$((ww_runs + RC - last[j]))
			if [ "$RN" != dead ] && [ "$RC" -ge $((last[j] + min)) ]; then
				ww_ran=$((ww_ran + 1))
			else
				ww_why+="window $w: task ${!j} ran $((RC - last[j])) times (RN $RN); "
			fi
			last[j]=$RC
		done
	done
}

# Weight floor (bpf/guard.bpf.h, cookie_guard): cookie A at cpu.weight 1
# beside B at 10000, NCPU spinners each, for FLOOR_WINDOWS windows of 10 s
# (past sched_ext's 30 s watchdog), the observer attached before the
# scheduler. By weight alone A's turn comes once per 10,000 of B's
# slices, 50 s at 5 ms: the watchdog ejected the scheduler ("runnable
# task stall") and isolation was off until SMT went off. Asserted: no
# ejection, 0 ns of overlap, every A spinner ran in every window, and
# the guard rescued A (cookie_rescues in the statistics).
FLOOR_WINDOWS=4
test_weight_floor() {
	local name=weight_floor_1_to_10000 a b i from pids=() ran need why \
		rescues share ua ub ia ib turns ov sw t0 worst
	if ! restart_observed "$TMP/floor"; then
		fail $name "the observer or the scheduler did not start"
		return
	fi
	a=$(tenant t_fa)
	b=$(tenant t_fb)
	from=$(wc -l <"$TMP/sched.out")
	if ! echo 1 >"$a/cpu.weight" || ! echo 10000 >"$b/cpu.weight" ||
		! "$CTL" cgroup tag "$a" >/dev/null || ! "$CTL" cgroup tag "$b" >/dev/null; then
		fail $name "could not weigh and tag $a and $b"
		stop_observer
		return
	fi
	# The untagged cookie's weight is that of its runnable tasks: at nice
	# -20 this shell keeps its pace beside B (it sleeps meanwhile). Before
	# the spinners start: renice took 27 s after. They inherit it, which
	# changes nothing between A and B (their cgroups' weights).
	renice -n -20 $$ >/dev/null
	for ((i = 0; i < NCPU; i++)); do
		# shellcheck disable=SC2016 # a loop for that sh
		if ! start_in "$a" sh -c 'while :; do :; done' ||
			! { pids+=("$LAST") && start_in "$b" sh -c 'while :; do :; done'; }; then
			fail $name "could not start the spinners"
			stop_bg
			renice -n 0 $$ >/dev/null
			stop_observer
			return
		fi
	done
	nap 1
	usage_us ua "$a"
	usage_us ub "$b"
	t0=$SECONDS
	watch_windows 1 "${pids[@]}"
	ran=$ww_ran turns=$ww_runs why=${ww_why//task/A spinner}
	usage_us ia "$a"
	usage_us ib "$b"
	ua=$((ia - ua)) ub=$((ib - ub))
	stop_bg
	renice -n 0 $$ >/dev/null
	stop_observer
	echo 100 >"$a/cpu.weight"
	echo 100 >"$b/cpu.weight"
	need=$((FLOOR_WINDOWS * ${#pids[@]}))
	rescues=$(stats_sum cookie_rescues $((from + 1)))
	share=$(awk -v a="$ua" -v b="$ub" 'BEGIN { printf "%.2f", a + b ? 100 * a / (a + b) : 0 }')
	worst=$(tail -n +$((from + 1)) "$TMP/sched.out" |
		sed -n 's/.*"max_wait_ms":\([0-9.]*\).*/\1/p' | sort -g | tail -n 1)
	ov=$(field "$TMP/floor" overlap_ns)
	sw=$(field "$TMP/floor" switches)
	info "weight floor, 1:10000, $NCPU spinners each, $FLOOR_WINDOWS x 10 s (took $((SECONDS - t0)) s): A ran in $ran of $need spinner-windows ($turns runs), A's share of the two $share % (by weight 0.01 %), cookie rescues $rescues, worst wait ${worst:-?} ms, overlap_ns=$ov switches=$sw"
	if grep -qE "ejected|runnable task stall" "$TMP/sched.err"; then
		why+="the scheduler was ejected: $(grep -E "ejected|runnable task stall" "$TMP/sched.err" | head -n 2 | tr '\n' ' '); "
	fi
	[ "$ov" = 0 ] && [ "${sw:-0}" -gt 0 ] || why+="overlap_ns '$ov', switches '$sw'; "
	[ "$rescues" -gt 0 ] || why+="no cookie rescue counted; "
	[ "$(scx_state)" = enabled ] || why+="state $(scx_state); "
	if [ $ran = "$need" ] && [ -z "$why" ]; then
		pass $name
	else
		fail $name "$why"
	fi
}

# Task floor (bpf/guard.bpf.h, task_guard): inside one queue, tasks are
# ordered by vtime charged at 100 / weight, and a nice 19 task (sched_ext
# weight 1) beside 2 x NCPU spinners at nice -20 (weight 8668) of its
# cookie waits 86 s after each slice it runs: past sched_ext's 30 s
# watchdog. TASK_FLOOR_LIGHT such tasks (each rescued one goes back to
# the tail, and the guard must pass over it to the others), in a tagged
# cgroup, then untagged, the observer attached first. Asserted: no
# ejection, 0 ns of overlap, task rescues counted, and every nice 19
# task ran TASK_FLOOR_RUNS times or more in every one of FLOOR_WINDOWS
# windows of 10 s. (On the code before the guard: 0 of the 32.)
TASK_FLOOR_LIGHT=4
TASK_FLOOR_RUNS=3 # of a task in a window; the floor gives about ten
task_floor_run() {
	local cg=$1 label=$2 i hogs=() lights=()
	for ((i = 0; i < 2 * NCPU + TASK_FLOOR_LIGHT; i++)); do
		# shellcheck disable=SC2016 # a loop for that sh
		start_in "$cg" sh -c 'while :; do :; done' || {
			stop_bg
			return 1
		}
		if [ $i -lt $((2 * NCPU)) ]; then hogs+=("$LAST"); else lights+=("$LAST"); fi
	done
	# Absolute nice values (this shell's own is -20 meanwhile).
	renice -n -20 -p "${hogs[@]}" >/dev/null
	renice -n 19 -p "${lights[@]}" >/dev/null
	nice_of "${lights[0]}"
	i=$NI
	nice_of "${hogs[0]}"
	if [ "$i" != 19 ] || [ "$NI" != -20 ]; then
		tf_why+="$label: nice $i and $NI, not 19 and -20; "
		stop_bg
		return 0
	fi
	nap 1
	watch_windows $TASK_FLOOR_RUNS "${lights[@]}"
	tf_ran=$((tf_ran + ww_ran))
	[ -z "$ww_why" ] || tf_why+="$label: ${ww_why//task/nice 19 task}"
	tf_runs+="$label $ww_runs runs; "
	stop_bg
}

test_task_floor() {
	local name=task_floor_nice19 a u ov sw from rescues
	local need=$((2 * FLOOR_WINDOWS * TASK_FLOOR_LIGHT))
	tf_ran=0 tf_why= tf_runs=
	if ! restart_observed "$TMP/tfloor"; then
		fail $name "the observer or the scheduler did not start"
		return
	fi
	a=$(tenant t_ta)
	u=$(tenant t_tu)
	from=$(wc -l <"$TMP/sched.out")
	if ! "$CTL" cgroup tag "$a" >/dev/null; then
		fail $name "could not tag $a"
		stop_observer
		return
	fi
	renice -n -20 $$ >/dev/null
	task_floor_run "$a" tagged || tf_why+="could not start the tagged spinners; "
	task_floor_run "$u" untagged || tf_why+="could not start the untagged spinners; "
	renice -n 0 $$ >/dev/null
	stop_observer
	rescues=$(stats_sum task_rescues $((from + 1)))
	ov=$(field "$TMP/tfloor" overlap_ns)
	sw=$(field "$TMP/tfloor" switches)
	info "task floor: $TASK_FLOOR_LIGHT nice 19 spinners beside $((2 * NCPU)) at nice -20, in a tagged cgroup, then untagged, $FLOOR_WINDOWS x 10 s each: they ran $TASK_FLOOR_RUNS times or more in $tf_ran of $need task-windows (${tf_runs% }), task rescues $rescues, overlap_ns=$ov switches=$sw"
	if grep -qE "ejected|runnable task stall" "$TMP/sched.err"; then
		tf_why+="the scheduler was ejected: $(grep -E "ejected|runnable task stall" "$TMP/sched.err" | head -n 2 | tr '\n' ' '); "
	fi
	[ "$ov" = 0 ] && [ "${sw:-0}" -gt 0 ] || tf_why+="overlap_ns '$ov', switches '$sw'; "
	[ "$(scx_state)" = enabled ] || tf_why+="state $(scx_state); "
	[ "$rescues" -gt 0 ] || tf_why+="no task rescue counted; "
	if [ "$tf_ran" = "$need" ] && [ -z "$tf_why" ]; then
		pass $name
	else
		fail $name "$tf_why"
	fi
}

# affinity_phase WEIGHT: cookie B's two tasks bound to CPU 0 (B at
# cpu.weight WEIGHT), cookies C and D (two spinners each) bound to CPUs 2-3,
# for $secs s; sets ub, uc, ud (permille of one CPU) and idle (CPUs 2-3
# together, permille of one CPU). False if a tenant could not start.
affinity_phase() {
	local b0 c0 d0 i0 t0 el
	echo "$1" >"$AB/cpu.weight" || return 1
	run_in "$AB" taskset -c 0 stress-ng --quiet --cpu 2 --timeout $((secs + 10)) &&
		run_in "$AC" taskset -c 2,3 stress-ng --quiet --cpu 2 --timeout $((secs + 10)) &&
		run_in "$AD" taskset -c 2,3 stress-ng --quiet --cpu 2 --timeout $((secs + 10)) ||
		return 1
	nap 2
	usage_us b0 "$AB"
	usage_us c0 "$AC"
	usage_us d0 "$AD"
	idle_ticks i0 2 3
	t0=${EPOCHREALTIME/./}
	nap "$secs"
	usage_us ub "$AB"
	usage_us uc "$AC"
	usage_us ud "$AD"
	ub=$((ub - b0)) uc=$((uc - c0)) ud=$((ud - d0))
	idle_ticks idle 2 3
	idle=$((idle - i0))
	el=$((${EPOCHREALTIME/./} - t0))
	stop_bg
	ub=$((ub * 1000 / el))
	uc=$((uc * 1000 / el))
	ud=$((ud * 1000 / el))
	# idle ticks are 1/CLK_TCK s
	idle=$((idle * 1000000 / $(getconf CLK_TCK) * 1000 / el))
	info "affinity, B at weight $1: B (bound to CPU 0) ran $ub permille of one CPU, C $uc and D $ud (bound to CPUs 2-3), which idled $idle permille"
}

# Affinity: cookie B bound to CPU 0, cookies C and D to the other core.
# Core {2,3} must pass B over (B can never run there) and be shared by C
# and D, rather than idle for B or let one of them hold it; B must get its
# share of core {0,1}. One observer, attached first, over both phases.
#   affinity_core_not_idled        B at the default weight: B >= 250
#                                  permille of one CPU, CPUs 2-3 idle
#                                  <= 250 together (before the scheduler
#                                  looked at affinity they idled 314-350)
#   affinity_bound_best_passed     B at weight 10000, so it stays the most
#                                  deserving cookie: B >= 250 (before, B
#                                  got 0 over 10 s), C and D >= 150 each
# Both also: the three cookies distinct, 0 ns of overlap.
test_affinity() {
	local k ub uc ud idle why1="" why2="" ov
	if [ "$(cat /sys/devices/system/cpu/cpu2/topology/thread_siblings_list 2>/dev/null)" != 2-3 ] ||
		[ "$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)" != 0-1 ]; then
		fail affinity_core_not_idled "needs cores {0,1} and {2,3} (a 2x2 guest)"
		fail affinity_bound_best_passed "needs cores {0,1} and {2,3} (a 2x2 guest)"
		return
	fi
	restart_observed "$TMP/aff" || why1="could not start; "
	AB=$(tenant t_ab)
	AC=$(tenant t_ac)
	AD=$(tenant t_ad)
	for k in "$AB" "$AC" "$AD"; do
		"$CTL" cgroup tag "$k" >/dev/null || why1+="could not tag $k; "
	done
	[ "$(printf '%s\n' "$(cgroup_tag "$AB")" "$(cgroup_tag "$AC")" "$(cgroup_tag "$AD")" | sort -u | grep -c .)" = 3 ] ||
		why1+="the three cgroups do not have three cookies; "
	why2=$why1
	if [ -z "$why1" ]; then
		if affinity_phase 100; then
			[ $ub -ge 250 ] || why1+="B $ub permille (want >= 250); "
			[ $idle -le 250 ] || why1+="CPUs 2-3 idle $idle permille (want <= 250); "
		else
			why1+="a tenant did not start; "
		fi
		if affinity_phase 10000; then
			[ $ub -ge 250 ] || why2+="B $ub permille (want >= 250); "
			[ $uc -ge 150 ] && [ $ud -ge 150 ] ||
				why2+="C $uc and D $ud permille (want >= 150 each); "
		else
			why2+="a tenant did not start; "
		fi
	fi
	stop_observer
	ov=$(field "$TMP/aff" overlap_ns)
	info "affinity: overlap_ns=$ov over both phases"
	[ "$ov" = 0 ] || { why1+="overlap_ns=$ov; "; why2+="overlap_ns=$ov; "; }
	if [ -z "$why1" ]; then pass affinity_core_not_idled; else fail affinity_core_not_idled "$why1"; fi
	if [ -z "$why2" ]; then pass affinity_bound_best_passed; else fail affinity_bound_best_passed "$why2"; fi
}

# idle_ticks VAR CPU...: VAR = the CPUs' idle time so far (/proc/stat), in
# ticks (read by the shell, as usage_us).
idle_ticks() {
	local _w=" ${*:2} " _f _s=0
	while read -r -a _f; do
		[[ ${_f[0]} == cpu* ]] || break # the cpu lines come first
		[[ ${_f[0]} == cpu[0-9]* && $_w == *" ${_f[0]#cpu} "* ]] &&
			_s=$((_s + _f[4]))
	done </proc/stat
	printf -v "$1" '%s' "$_s"
}

# While a CPU goes down or comes up, sched_ext runs what is queued on it
# without asking the BPF scheduler: its hotplug kthreads (cpuhp/N,
# migration/N), and tenants the kernel itself re-queued onto its local
# queue once sched_ext treats the CPU as offline (seen in traces with and
# without the cpuset controller, which narrows their affinity then).
# The scheduler learns of such a task only when it starts, and then
# preempts conflicting siblings: isolation there holds within an IPI, not
# strictly (README, Hotplug). So this test asserts that the scheduler
# survives hotplug under tagged load and measures the overlap; isolation.sh
# asserts 0 ns outside hotplug.
test_hotplug() {
	local a b i ok=1 ov
	a=$(tenant t_ha)
	b=$(tenant t_hb)
	restart_observed "$TMP/hp" --trust-kthreads || {
		fail hotplug_survives_under_load "observer or scheduler did not start: $(tail -n 2 "$TMP/sched.err")"
		[ -n "${OBS_PID:-}" ] && kill $OBS_PID 2>/dev/null
		stop_sched
		return
	}
	"$CTL" cgroup tag "$a" >/dev/null && "$CTL" cgroup tag "$b" >/dev/null
	run_in "$a" stress-ng --quiet --cpu "$NCPU" --timeout 40
	run_in "$b" stress-ng --quiet --cpu "$NCPU" --timeout 40
	sleep 2
	for i in 1 2 3 4 5; do
		echo 0 >/sys/devices/system/cpu/cpu1/online || ok=0
		sleep 0.5
		echo 1 >/sys/devices/system/cpu/cpu1/online || ok=0
		sleep 1
	done
	stop_observer
	stop_bg
	ov=$(field "$TMP/hp" overlap_ns)
	info "hotplug measured: 5 offline/online cycles of cpu1 under two tagged tenants; overlap_ns=${ov:-?} windows=$(field "$TMP/hp" overlap_windows) longest_ns=$(field "$TMP/hp" longest_overlap_ns), state $(scx_state)"
	grep overlap_example "$TMP/hp" | head -n 3 | sed 's/^/# /'
	if [ $ok = 1 ] && [ "$(scx_state)" = enabled ] && [ -n "$ov" ]; then
		pass hotplug_survives_under_load
	else
		fail hotplug_survives_under_load "hotplug ok=$ok state=$(scx_state) observer figure '${ov:-}': $(tail -n 2 "$TMP/sched.err")"
	fi
}

# A CPU going offline beside a tagged task pinned to its sibling. The dying
# CPU switches to idle after it is marked offline, where the commit hook no
# longer fires, and while it goes down the kernel runs kthreads there
# unclaimed, whose claims no dispatch releases. Either left its state
# blocking every cookie but 0 on the sibling: the offline write took about
# 27 s (its last step runs in a kworker bound to CPU 0, behind the pinned
# task) and the watchdog ejected the scheduler; once offline, the pinned
# task never ran again. Asserted: no ejection, and the pinned task runs
# while its sibling is offline.
test_hotplug_pinned() {
	local a pa ej t1 t2 why=
	a=$(tenant t_pin)
	"$CTL" cgroup tag "$a" >/dev/null
	run_in "$a" taskset -c 0 "$PROGRESS" cpu 120
	pa=${bg_pids[-1]}
	sleep 2
	ej=$(grep -c ejected "$TMP/sched.err")
	echo 0 >/sys/devices/system/cpu/cpu1/online || why+="cpu1 did not go offline; "
	t1=$(cpu_ticks "$pa")
	sleep 3
	t2=$(cpu_ticks "$pa")
	echo 1 >/sys/devices/system/cpu/cpu1/online || why+="cpu1 did not come back; "
	sleep 1
	[ "$(grep -c ejected "$TMP/sched.err")" = "$ej" ] ||
		why+="ejected: $(grep ejected "$TMP/sched.err" | tail -n 1); "
	sched_is enabled coresched || why+="state $(scx_state); "
	[ "$t2" -gt "$t1" ] 2>/dev/null ||
		why+="the task pinned to cpu0 did not run while cpu1 was offline (CPU ticks $t1 -> $t2); "
	stop_bg
	info "hotplug pinned: cpu1 offline 3 s beside a tagged task pinned to cpu0: its CPU ticks $t1 -> $t2"
	if [ -z "$why" ]; then
		pass hotplug_pinned_sibling
	else
		fail hotplug_pinned_sibling "$why"
	fi
}

test_lifecycle() {
	local a i w ok=1 pids=()
	stop_sched
	a=$(tenant t_la)
	for w in 1 2 3; do
		sh -c 'echo $$ > "$0/cgroup.procs"; exec "$1" cpu 600' "$a" "$PROGRESS" >"$TMP/life.$w" &
		pids+=($!)
	done
	"$PROGRESS" mem 600 >"$TMP/life.4" &
	pids+=($!)
	for i in 1 2 3 4; do
		start_sched || ok=0
		[ $i = 1 ] && "$CTL" cgroup tag "$a" >/dev/null
		sleep 2
		if [ $((i % 2)) = 0 ]; then stop_sched KILL || ok=0; else stop_sched INT || ok=0; fi
		sleep 1
	done
	sleep 2
	local alive=0
	for w in "${pids[@]}"; do kill -0 "$w" 2>/dev/null && alive=$((alive + 1)); done
	local progressing=0
	for w in 1 2 3 4; do
		[ "$(tail -n 1 "$TMP/life.$w")" -gt 0 ] 2>/dev/null && progressing=$((progressing + 1))
	done
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	info "lifecycle: 4 load/unload cycles (INT, KILL); $alive/4 workers alive, $progressing/4 progressing; state $(scx_state)"
	if [ $ok = 1 ] && [ $alive = 4 ] && [ $progressing = 4 ] && [ "$(scx_state)" = disabled ]; then
		pass lifecycle_reload_under_load
	else
		fail lifecycle_reload_under_load "ok=$ok alive=$alive progressing=$progressing state=$(scx_state)"
	fi
}

if ! start_sched --stats 2 --json; then
	fail scheduler_start "$(tail -n 2 "$TMP/sched.err")"
	finish
fi
for t in ${SCX_TESTS:-fairness fairness_fill fairness_none fairness_weight renewal bounded_wait weight_floor task_floor affinity hotplug hotplug_pinned starvation lifecycle}; do
	t0=$SECONDS
	"test_$t"
	info "time $t: $((SECONDS - t0)) s"
done
finish
