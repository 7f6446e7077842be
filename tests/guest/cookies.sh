#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The cookie limit, at its edge: CS_MAX_TAGGED (4,096) tagged cookies and
# one more, live at once, each a task of its own (build/cookie_duty: busy
# 1 ms, asleep 9 ms) beside untagged stress-ng, with the outside observer
# attached before the scheduler:
#   cookies_all_progress  every one of the 4,097 tasks finishes busy
#                         periods while they all live (the one whose
#                         cookie found no slot too: it runs alone)
#   cookies_max_wait      no task of the guest waited runnable for half
#                         the window (15 s) or more, by the outside
#                         observer: two turns fit in the window
#   cookies_all_slots     4,096 tagged cookies held slots at once, and
#                         slot_full counted the one left over
#   cookies_isolation     0 ns of overlap between incompatible siblings
#   cookies_no_ejection   the kernel never ejected the scheduler
# and prints measurements: how the tasks' first turns went, and the BPF
# cost per call of the main callbacks over the run (kernel bpf stats).
#
#   SCX_TOPO=8x2 tools/vm --cores 8 --threads 2 --mem 4G -- tests/guest/cookies.sh
. tests/guest/lib.sh

n=4096 # CS_MAX_TAGGED: the checks below are about this edge
secs=${SCX_SECS:-30}

check_topology

# The most task cookies one JSON interval listed (live slots, or ran).
peak_task_cookies() {
	awk '{ c = gsub(/"name":"task:/, ""); if (c > m) m = c } END { print m + 0 }' \
		"$TMP/sched.out"
}

# intervals_after N: wait until the scheduler has printed N more intervals
# than now (its counters then include everything before this call).
intervals_after() {
	local want=$(($(wc -l <"$TMP/sched.out") + $1)) end=$((SECONDS + 60))
	while [ "$(wc -l <"$TMP/sched.out")" -lt $want ] && [ $SECONDS -lt $end ]; do
		nap 0.5
	done
}

if ! ensure_pins || ! observe_bg "$TMP/obs" --duration 3600 --require-zero; then
	fail cookies_isolation "observer did not start: $(tail -n 1 "$TMP/obs.err")"
	finish
fi
# The BPF cost per call of the scheduler's callbacks (a measurement).
sysctl -qw kernel.bpf_stats_enabled=1 || info "no BPF statistics: no cost figures"
if ! start_sched --stats 2 --json; then
	fail cookies_all_progress "scheduler did not start"
	finish
fi
spawn stress-ng --quiet --cpu $(((NCPU + 3) / 4)) --timeout 3600

prog_stats "$TMP/prog0"
start=$SECONDS
CD_RUNS=$TMP/runs "$ROOT/build/cookie_duty" $((n + 1)) $((n + 1)) "$secs" 1 9 \
	>"$TMP/duty" 2>"$TMP/duty.err"
rc=$?
took=$((SECONDS - start))
prog_stats "$TMP/prog1"
result=$(tail -n 1 "$TMP/duty")
info "cookie_duty $((n + 1)) cookies: $result in $took s (rc $rc)"
# Over the whole cookie_duty run (forks and exits too), TCG time.
costs=$(prog_cost "$TMP/prog0" "$TMP/prog1" | while read -r name calls ns; do
	case $name in
	cs_select_cpu | cs_enqueue | cs_dispatch | cs_tick | cs_commit | cs_running | cs_stopping)
		printf '%s %s (%s); ' "${name#cs_}" "$ns" "$calls" ;;
	esac
done)
costs=${costs%; }
info "BPF ns a call (calls): ${costs:-none (no BPF statistics)}"
# Measurements, not checks (cookie_duty's write_runs): of the tasks that
# finished no busy period, those whose first timestamp after the go came
# after the window; the spread of the first timestamps. A task preempted
# on its way out of its wait ran before its timestamp.
if [ -s "$TMP/runs" ]; then
	# The first busy period (1 ms of wall time) of the ones cut and of the
	# others, to first.cut and first.others (summed up below).
	: >"$TMP/first.cut"
	: >"$TMP/first.others"
	awk -v w=$((secs * 1000)) -v to="$TMP/first." '
		$5 == 0 { next } # its cookie or its fork failed
		{ c = $2 == 0 && $3 < w } # cut: not finished, started inside
		$2 == 0 && !c { late++ }
		c { cut++ }
		$2 > 0 && $3 > first { first = $3 }
		$2 > 0 && $4 > gap { gap = $4 }
		{ periods += $2 }
		$6 > 0 { print $6, $7, $8, $9 >(to (c ? "cut" : "others")) }
		END {
			printf "# none finished: %d with a first timestamp after the window, %d inside it; of the others, the latest first timestamp %d ms after the go, the longest gap %d ms\n",
				late, cut, first, gap
			# The turns the guest gave: at one busy period a turn,
			# a round over every task takes tasks / this.
			printf "# busy periods finished in the window, all tasks: %d, %.0f a second\n",
				periods, periods * 1000 / w
		}' "$TMP/runs"
	# Those first periods: their CPU time, the longest step of the loop,
	# the switches (medians and maxima). One that took tens of ms of CPU
	# time for its 1 ms was charged for time its loop did not run: likely
	# its vCPU, which the host did not run while the guest's clock went on
	# (README, Limits (cookies)). The steps include the waits after
	# preemptions.
	for sel in cut others; do
		k=$(wc -l <"$TMP/first.$sel")
		[ "$k" -gt 0 ] || continue
		for c in 1 2 3 4; do
			sort -n -k$c,$c "$TMP/first.$sel" |
				awk -v c=$c -v k=$k 'NR == int((k + 1) / 2) { m = $c } { x = $c } END { printf "%d/%d ", m, x }'
		done | {
			read -r cpu step inv vol
			echo "# first busy period of the $k $sel (median/max): CPU $cpu us, longest step $step us, switches $inv involuntary, $vol voluntary"
		}
	done
	awk '$5 > 0 { print int($3 / 5000) * 5 }' "$TMP/runs" | sort -n | uniq -c |
		awk '{ printf "%s %d-%d s: %d;", (NR == 1 ? "# first timestamps after the go:" : ""), $2, $2 + 5, $1 } END { print "" }'
fi
read -r _ _ _ _ _ failed _ started _ progressed _ <<<"$result"
if [ $rc = 0 ] && [ "$started" = $((n + 1)) ] && [ "$progressed" = $((n + 1)) ]; then
	pass cookies_all_progress
else
	fail cookies_all_progress "$result $(head -n 2 "$TMP/duty.err" | tr '\n' '|')"
fi
intervals_after 2
full=$(stats_sum slot_full) peak=$(peak_task_cookies)
info "task cookies in one interval at most: $peak; slot_full: $full"
if [ "$peak" = "$n" ] && [ "$full" -gt 0 ] && [ "${failed:-1}" = 0 ]; then
	pass cookies_all_slots
else
	fail cookies_all_slots "peak $peak task cookies (want $n), slot_full $full (want > 0), cookies not created ${failed:-?}"
fi

end_observer "$TMP/obs"
wait_ns=$(field "$TMP/obs" max_wait_ns)
info "observer: overlap_ns=$OBS_OV switches=$OBS_SW windows=$(field "$TMP/obs" overlap_windows) lost=$(field "$TMP/obs" lost_events) max_wait_ns=$wait_ns ($(field "$TMP/obs" max_wait_comm))"
# The observer, attached before the scheduler, measures each wait from a
# wakeup or preemption to the switch-in, apart from its ring buffer; it
# ends after cookie_duty, whose tasks have all run to their exit by then.
# Half the window: a task whose turn is lost (README, Limits (cookies))
# needs a second one within the window. The kernel's watchdog fires at 30 s.
if [ -n "$wait_ns" ] && [ "$wait_ns" -lt $((secs * 1000000000 / 2)) ]; then
	pass cookies_max_wait
else
	fail cookies_max_wait "longest wait ${wait_ns:-?} ns (want < $((secs / 2)) s)"
fi
if [ "$OBS_RC" = 0 ] && [ "$OBS_OV" = 0 ] && [ "${OBS_SW:-0}" -gt 0 ]; then
	pass cookies_isolation
else
	fail cookies_isolation "observer rc=$OBS_RC overlap_ns=$OBS_OV switches=$OBS_SW: $(tail -n 2 "$TMP/obs.err" | tr '\n' '|')"
	grep overlap_example "$TMP/obs" | head -n 3 | sed 's/^/# /'
fi
if [ "$(scx_state)" = enabled ] && ! grep -q "ejected the scheduler" "$TMP/sched.err"; then
	pass cookies_no_ejection
else
	fail cookies_no_ejection "state $(scx_state): $(grep -m 4 -E "detached|ejected|isolating again" "$TMP/sched.err" | tr '\n' '|')"
fi
finish
