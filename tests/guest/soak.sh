#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Soak tests: scx_coresched under long, hostile load. Run as root in a
# tools/vm guest from the repository root:
#   SCX_TOPO=CxT tools/vm --cores C --threads T -- tests/guest/soak.sh [--short|--long]
# --short (default; tests/run, 2x2) keeps the whole run to a few minutes of
# guest time; --long (make soak) runs 60 s or more per stress case.
#
# Every case starts the outside observer (coresched-observe) before the
# scheduler, runs tenants of three or more cookies (tagged cgroups t_a and
# t_b, a prctl tenant started by 'coresched new', untagged work), each with
# a tracked worker, and checks: no ejection (state enabled, ops coresched,
# no "ejected" on the scheduler's stderr, no sched_ext error in dmesg),
# every tracked task's CPU time grew between every two checkpoints, and the
# observer saw 0 ns of incompatible sibling overlap, except where noted.
#
#   soak_stress_TOPO    stress-ng as the sched_ext CI runs it (-c N -f N
#                       --aggressive --affinity 1 --affinity-delay 1
#                       --affinity-pin -M) inside every cookie
#   soak_churn_TOPO     200 (long: 3,000) per-task cookies created and
#                       destroyed, a task moved between tagged and untagged
#                       cgroups while it runs (its windows are printed, not
#                       asserted: the observer reads a cookie at switch-in,
#                       a move changes it in between), tagged and untagged cgroups
#                       (nested too) created and removed, renice and
#                       taskset on running tenants, exec storms; afterwards
#                       cs_cgrp_tag holds only tags of live cgroups and no
#                       cookie slot is held by a dead cookie. The asserted
#                       observer exempts stop/RT/DL kernel threads: an
#                       affinity change of a running task runs the
#                       migration stopper beside the tenants, the window
#                       README "Semantics" documents (an IPI; 4.8 ms once
#                       in a TCG guest); a strict observer measures it
#   soak_hotplug_TOPO   single siblings and whole cores offline and online
#                       (never cpu0) under tagged load: survival and
#                       progress asserted; overlap printed, not asserted
#                       (a CPU in a hotplug transition runs what the
#                       kernel queued on it, its siblings preempted within
#                       an IPI: README "Semantics", Hotplug), by an
#                       observer that trusts kernel threads and a strict
#                       one
#   soak_kill_TOPO      SIGKILL of the loader 3 (long: 20) times at random
#                       moments: while it starts, while it prints --stats
#                       0.2, while 'coreschedctl cgroup tag' runs; each is
#                       restarted, the gap (kill until enabled again) is
#                       printed; tags are intact afterwards. Open mode
#                       leaves the gaps unprotected: overlap is printed.
#                       Then (long form; closed.sh runs it in make test)
#                       one kill cycle in --fail-mode closed, which must
#                       show 0 ns to an observer that trusts kernel
#                       threads (as closed.sh's)
#   soak_rtdl_TOPO      SCHED_FIFO and SCHED_DEADLINE periodic tasks (10 ms
#                       period, 1 ms run) in tagged cgroup t_a and an
#                       untagged FIFO one beside it, while t_b spins on all
#                       CPUs; overlap windows are printed, not asserted (RT
#                       and DL tasks are preempted by IPI, as upstream)
#
# Ends with a summary table (info lines): case, topology, load, faults,
# overlap, worst wait, ejections, gaps. Nothing asserts on time.
. tests/guest/lib.sh # cookie_of, tag_of_id, cgroup_tag, PIN, SMT

form=short
case "${1:-}" in
"" | --short) ;;
--long) form=long ;;
*)
	echo "usage: tests/guest/soak.sh [--short|--long]" >&2
	exit 2
	;;
esac

CORESCHED=$ROOT/build/coresched
CHURN=$ROOT/build/cookie_churn
PERIODIC=$ROOT/build/periodic
PIN=/sys/fs/bpf/scx_coresched
SMT=/sys/devices/system/cpu/smt/control
SYSCPU=/sys/devices/system/cpu

THREADS=$(awk -F, '{ n = 0; for (i = 1; i <= NF; i++) { split($i, r, "-");
	n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n }' \
	$SYSCPU/cpu0/topology/thread_siblings_list)
CORES=$((NCPU / THREADS))
topo=${SCX_TOPO:-${CORES}x$THREADS}

if [ $form = long ]; then
	STRESS_T=${SCX_SECS:-60}
	CHURN_SECS=${SCX_SECS:-60}
	COOKIES=3000
	CHURN_MIN=30 # moves, renices, 'coresched new' runs; cgroups: a quarter
	HP_SECS=${SCX_SECS:-60}
	HP_OPS=4 # at least, alternating a sibling and a whole core
	KILLS=20
	RT_SECS=${SCX_SECS:-60}
else
	STRESS_T=${SCX_SECS:-5}
	CHURN_SECS=${SCX_SECS:-4}
	COOKIES=200
	CHURN_MIN=3
	HP_SECS=${SCX_SECS:-2}
	HP_OPS=2
	KILLS=3
	RT_SECS=${SCX_SECS:-4}
fi
CHECK_EVERY=5 # seconds between progress checkpoints

rows=()
# uptime_in VAR: VAR = the guest's uptime in seconds, without a fork.
uptime_in() {
	sysread "$1" /proc/uptime
	printf -v "$1" '%s' "${!1%% *}"
}
# dbg MSG: an info line with the guest's uptime, only with V=1.
dbg() {
	local t
	[ -z "${V:-}" ] || { uptime_in t && info "[$t] $*"; }
}
now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

# ms FILE KEY: an observer figure in ns, printed in ms.
ms() {
	local v
	v=$(field "$1" "$2")
	echo $((${v:-0} / 1000000))
}

# --- checks common to every case -------------------------------------------

# Tracked tasks: name -> pid, and their CPU time at the last checkpoint.
declare -A trk_pid trk_last
stalled=
track() { trk_pid[$1]=$2; }
untrack_all() {
	trk_pid=()
	trk_last=()
	stalled=
	ckpt_ms=0
}

# checkpoint: every tracked task must have used CPU since the last one
# (CPU time counts in ticks: a checkpoint within 1 s of the last is
# skipped, or a task that runs 10% of the time could show none).
ckpt_ms=0
checkpoint() {
	local n t now
	now=$(now_ms)
	[ $((now - ckpt_ms)) -ge 1000 ] || return 0
	ckpt_ms=$now
	for n in "${!trk_pid[@]}"; do
		t=$(cpu_ticks "${trk_pid[$n]}")
		if [ "$t" = dead ] || [ -z "$t" ]; then
			[[ " $stalled " == *" $n(dead) "* ]] || stalled+=" $n(dead)"
		elif [ -n "${trk_last[$n]:-}" ] && [ "$t" -le "${trk_last[$n]}" ]; then
			stalled+=" $n(${trk_last[$n]}->$t)"
		fi
		trk_last[$n]=$t
	done
}

# run_for SECS: sleep SECS, taking a checkpoint every CHECK_EVERY seconds.
run_for() {
	local end=$(($(date +%s) + $1)) left
	while left=$((end - $(date +%s))) && [ $left -gt 0 ]; do
		sleep $((left < CHECK_EVERY ? left : CHECK_EVERY))
		checkpoint
	done
}

# bgrun OUT CGROUP|"" CMD...: CMD in the background (in CGROUP if given),
# output to OUT; its pid in LAST and in bg_pids.
bgrun() {
	local out=$1 cg=$2
	shift 2
	if [ -n "$cg" ]; then
		start_in "$cg" "$@" >"$out" 2>&1
	else
		"$@" >"$out" 2>&1 &
		LAST=$!
		bg_pids+=("$LAST")
	fi
}

# sched_errors: sched_ext error exits in the kernel log so far (a SIGKILL or
# a stop is "unregistered from user space", not an error).
sched_errors() {
	dmesg | grep 'sched_ext: BPF scheduler ".*" disabled' |
		grep -vc 'unregistered from user space'
}

# case_begin NAME [OBSERVER_ARGS...]: observer first, then the scheduler
# (SCHED_ARGS). Sets OBS_OUT; false if either does not start. With
# OBSERVER_ARGS, a strict observer (STRICT_OUT, STRICT_PID) is attached
# first too: it measures what the asserted one exempts.
case_begin() {
	cname=$1
	shift
	info "$cname $topo: starting"
	untrack_all
	OBS_OUT=$TMP/$cname.obs
	STRICT_OUT=$TMP/$cname.strict
	STRICT_PID=
	err0=$(sched_errors)
	ensure_pins || return 1
	if [ $# -gt 0 ]; then
		observe_bg "$STRICT_OUT" --duration 3600 || return 1
		STRICT_PID=$OBS_PID
	fi
	observe_bg "$OBS_OUT" --duration 3600 ${OBS_TRACE:+--trace "$OBS_TRACE"} "$@" || return 1
	uptime_in OBS_T0 # its start, within 0.25 s
	start_sched "${SCHED_ARGS[@]}"
}

# end_observers: stop the asserted observer (its status in OBS_RC) and the
# strict one, then the load: the checks and the report that follow start
# many programs, each of which took seconds to start beside it.
end_observers() {
	stop_observer
	OBS_RC=$?
	OBS_PID=
	[ -z "$STRICT_PID" ] || stop_observer "$STRICT_PID"
	STRICT_PID=
	stop_bg
}

# ejections ERRFILE: "ejected" lines of the loader plus kernel error exits
# since case_begin.
ejections() {
	local e k
	e=$(grep -c 'ejected' "$1" 2>/dev/null)
	k=$(($(sched_errors) - err0))
	echo $((${e:-0} + k))
}

# obs_summary FILE: overlap, windows, longest and worst wait, for info lines.
obs_summary() {
	echo "overlap_ns=$(field "$1" overlap_ns) windows=$(field "$1" overlap_windows)" \
		"longest_ns=$(field "$1" longest_overlap_ns) switches=$(field "$1" switches)" \
		"max_wait_ms=$(ms "$1" max_wait_ns) ($(field "$1" max_wait_comm))" \
		"lost=$(field "$1" lost_events)"
}

# row CASE LOAD FAULTS OVERLAP WAIT EJECTIONS GAPS: a summary table row.
row() {
	rows+=("$(printf '%-8s %-4s %-34s %-26s %-22s %-9s %-4s %s' "$1" "$topo" "$2" "$3" "$4" "$5" "$6" "$7")")
}

# verdict NAME WHY: PASS if WHY is empty, else FAIL with it.
verdict() {
	if [ -z "$2" ]; then
		pass "$1"
	else
		fail "$1" "$2"
		grep overlap_example "$OBS_OUT" 2>/dev/null | head -n 3 | sed 's/^/# /'
	fi
}

# common_why OBS_RC EJ [assert_zero]: the reasons a case fails, common part.
common_why() {
	local rc=$1 ej=$2 zero=${3:-1} why=
	[ "$(scx_state)" = enabled ] && [ "$(scx_ops)" = coresched ] ||
		why+="state $(scx_state) ops '$(scx_ops)'; "
	[ "$ej" = 0 ] || why+="$ej ejections ($(grep -m1 ejected "$TMP/sched.err" 2>/dev/null; dmesg | grep 'sched_ext: BPF scheduler ".*" disabled' | grep -v 'unregistered from user space' | tail -n 1)); "
	[ -z "$stalled" ] || why+="no progress:$stalled; "
	[ "$rc" = 2 ] && why+="observer failed: $(tail -n 1 "$OBS_OUT.err" 2>/dev/null); "
	[ "$(field "$OBS_OUT" lost_events)" = 0 ] || why+="observer lost events ($(field "$OBS_OUT" lost_events)), isolation unverified; "
	[ "$(field "$OBS_OUT" switches)" -gt 0 ] 2>/dev/null || why+="observer saw no switches (rc $rc); "
	[ "$zero" = 1 ] && [ "$(field "$OBS_OUT" overlap_ns)" != 0 ] &&
		why+="overlap_ns=$(field "$OBS_OUT" overlap_ns) in $(field "$OBS_OUT" overlap_windows) windows; "
	echo "$why"
}

# tenants: the standard tenants, each with a tracked progress worker:
# tagged cgroups t_a and t_b, a prctl tenant and untagged work. Sets CG_A,
# CG_B, PID_P (the prctl tenant's worker).
tenants() {
	local secs=3600 # stopped by case_end
	CG_A=$(tenant t_a)
	CG_B=$(tenant t_b)
	"$CTL" cgroup tag "$CG_A" >/dev/null && "$CTL" cgroup tag "$CG_B" >/dev/null ||
		return 1
	bgrun "$TMP/w_a" "$CG_A" "$PROGRESS" cpu "$secs" || return 1
	track A "$LAST"
	bgrun "$TMP/w_b" "$CG_B" "$PROGRESS" cpu "$secs" || return 1
	track B "$LAST"
	bgrun "$TMP/w_p" "" "$CORESCHED" new -- "$PROGRESS" cpu "$secs"
	track P "$LAST"
	PID_P=$LAST
	bgrun "$TMP/w_u" "" "$PROGRESS" mem "$secs"
	track U "$LAST"
}

# spin_load SECS [N]: stress-ng --cpu N (default NCPU) in every cookie of
# tenants (the prctl tenant's joins the worker's cookie with 'coresched
# copy'), half of it untagged.
spin_load() {
	local n=${2:-$NCPU}
	bgrun "$TMP/l_a" "$CG_A" stress-ng --quiet --cpu "$n" --timeout "$1"
	bgrun "$TMP/l_b" "$CG_B" stress-ng --quiet --cpu "$n" --timeout "$1"
	bgrun "$TMP/l_p" "" "$CORESCHED" copy -s "$PID_P" -- \
		stress-ng --quiet --cpu "$n" --timeout "$1"
	bgrun "$TMP/l_u" "" stress-ng --quiet --cpu $(((n + 1) / 2)) --timeout "$1"
}

case_end() {
	dbg "$cname: ending"
	[ -z "$STRICT_PID" ] || stop_observer "$STRICT_PID"
	STRICT_PID=
	# The asserted observer, if the case ended before end_observers.
	[ -z "${OBS_PID:-}" ] || kill -INT "$OBS_PID" 2>/dev/null
	stop_bg
	stop_sched
	cp "$TMP/sched.err" "$TMP/$cname.sched.err" 2>/dev/null
	find "$CG" -depth -mindepth 1 -type d -path "$CG/t_*" -exec rmdir {} + 2>/dev/null
}

# --- 1. stress as the sched_ext CI runs it ---------------------------------

# bogo FILE: the cpu stressor's bogo ops in stress-ng -M output.
bogo() {
	awk '/metrc:/ { for (i = 1; i < NF; i++) if ($i == "cpu") { print $(i + 1); exit } }' "$1"
}

case_stress() {
	local name=soak_stress_$topo rc ej why="" n=$NCPU pids=() p src st=""
	SCHED_ARGS=(--stats 2)
	# migration/N (the stopper), which the affinity stressor wakes all the
	# time, is a stop-class kthread no sched_ext scheduler controls: its
	# window is the documented IPI exception. Asserted without it, printed
	# with it.
	case_begin stress --exempt-foreign-kthreads || { fail $name "observer or scheduler did not start: $(tail -n 2 "$TMP/sched.err")"; case_end; return; }
	tenants || why+="could not tag the tenants; "
	local ci=(-t "$STRESS_T" --aggressive -M -c "$n" -f "$n" --affinity 1
		--affinity-delay 1 --affinity-pin)
	bgrun "$TMP/s_a" "$CG_A" stress-ng "${ci[@]}"
	pids+=("$LAST")
	bgrun "$TMP/s_b" "$CG_B" stress-ng "${ci[@]}"
	pids+=("$LAST")
	bgrun "$TMP/s_p" "" "$CORESCHED" copy -s "$PID_P" -- stress-ng "${ci[@]}"
	pids+=("$LAST")
	bgrun "$TMP/s_u" "" stress-ng -t "$STRESS_T" -M -c $(((n + 1) / 2)) -f 1
	pids+=("$LAST")
	sleep 2
	checkpoint
	run_for "$STRESS_T"
	for p in "${pids[@]}"; do
		wait "$p"
		st+="$? "
	done
	checkpoint
	end_observers
	rc=$OBS_RC
	ej=$(ejections "$TMP/sched.err")
	why+=$(common_why $rc "$ej")
	for src in a b p u; do
		[ "$(bogo "$TMP/s_$src")" -gt 0 ] 2>/dev/null ||
			why+="stress-ng in $src reported no cpu bogo ops (exit statuses $st): $(grep -m1 -iE 'fail|error' "$TMP/s_$src"); "
	done
	info "stress $topo: stress-ng -t $STRESS_T --aggressive -M -c $n -f $n --affinity 1 --affinity-delay 1 --affinity-pin in t_a, t_b and a prctl tenant, -c $(((n + 1) / 2)) -f 1 untagged; exit statuses $st"
	info "stress $topo (stop/RT/DL kthreads exempt, asserted): $(obs_summary "$OBS_OUT")"
	info "stress $topo (strict, measured): $(obs_summary "$STRICT_OUT")"
	grep overlap_example "$STRICT_OUT" | head -n 3 | sed 's/^/#   strict: /'
	info "stress $topo: cpu bogo ops (t_a t_b prctl untagged): $(for s in a b p u; do echo -n "$(bogo "$TMP/s_$s") "; done)"
	info "scheduler stats: $(tail -n 1 "$TMP/sched.out")"
	# Measured: runs of a task without its CPU's claim (0 expected here,
	# where no cookie changes; 0 to 2 a run, one an overlap, before
	# intrude() kept the claim of a task left behind the stopper).
	info "stress $topo: unclaimed runs (scheduler's count): $(grep -o 'unclaimed runs [0-9]*' "$TMP/sched.out" |
		awk '{ s += $3 } END { print s + 0 }')"
	row stress "4 cookies, -c$n -f$n affinity" "affinity 1 ns" \
		"$(field "$OBS_OUT" overlap_ns) (strict $(field "$STRICT_OUT" overlap_ns))" "$(ms "$OBS_OUT" max_wait_ns) ms" "$ej" -
	verdict $name "$why"
	case_end
}

# --- 2. churn ----------------------------------------------------------------

# cgrp_tag_leaks: tags in cs_cgrp_tag whose cgroup no longer exists; prints
# "TAGS LEAKED PATHS" (PATHS: the leaked ones by the paths in cgroups.ids).
cgrp_tag_leaks() {
	bpftool -j map dump pinned "$PIN/cs_cgrp_tag" 2>/dev/null | python3 -c '
import json, os, sys
live = set()
for d, _, _ in os.walk("/sys/fs/cgroup"):
    live.add(os.stat(d).st_ino)
names = {}
try:
    for line in open(sys.argv[1]):
        i, p = line.split()
        names[int(i)] = p
except OSError:
    pass
keys = []
for e in json.load(sys.stdin):
    k = e.get("formatted", {}).get("key") if "formatted" in e else None
    if k is None:
        k = int.from_bytes(bytes(int(x, 16) for x in e["key"]), "little")
    keys.append(int(k))
dead = [k for k in keys if k not in live]
print(len(keys), len(dead), ",".join(names.get(k, str(k)) for k in dead[:6]) or "-")' "$TMP/cgroups.ids"
}

# windows_of TRACE TID: the overlap windows in coresched-audit trace TRACE
# split by whether thread TID is one side: "NS N NS_TID N_TID".
windows_of() {
	python3 -c '
import json, sys
tid, other, mine = int(sys.argv[2]), [0, 0], [0, 0]
for line in open(sys.argv[1]):
    if "\"len_ns\"" not in line:
        continue
    a = json.loads(line.strip().strip(","))["args"]
    t = mine if tid in (a["a"]["tid"], a["b"]["tid"]) else other
    t[0] += a["len_ns"]
    t[1] += 1
print(*other, *mine)' "$1" "$2" 2>/dev/null || echo "? ? ? ?"
}

# slots_held: cookie slots the scheduler holds for tagged (non-zero)
# cookies, "HELD FREE COOKIES".
slots_held() {
	bpftool -j map dump name slot_tbl 2>/dev/null | python3 -c '
import json, sys
v = json.load(sys.stdin)[0]["formatted"]["value"]
held = [hex(c) for c, r in zip(v["cookie"], v["ref"]) if r and c]
print(len(held), v["nr_free"], ",".join(held[:6]) or "-")' 2>/dev/null || echo "? ? ?"
}

case_churn() {
	local name=soak_churn_$topo rc ej why="" end i cg cgu pid_m n_mv=0 n_cg=0 n_tag=0 \
		n_nice=0 n_aff=0 n_cli=0 n_clifail=0 hard loops=() tags leaked lpaths held free hcookies live \
		ov_ns ov_n m_ns m_n
	SCHED_ARGS=()
	local OBS_TRACE=$TMP/churn.trace # case_begin passes it; for windows_of
	case_begin churn --exempt-foreign-kthreads || { fail $name "observer or scheduler did not start: $(tail -n 2 "$TMP/sched.err")"; case_end; return; }
	dbg "churn: scheduler up"
	tenants || why+="could not tag the tenants; "
	cgu=$(tenant t_u)
	bgrun "$TMP/w_m" "$cgu" "$PROGRESS" cpu 3600
	track M "$LAST"
	pid_m=$LAST
	# Exec storms in a tagged cgroup and in a prctl tenant.
	bgrun "$TMP/x_b" "$CG_B" stress-ng --quiet --exec 2 --timeout "$CHURN_SECS"
	bgrun "$TMP/x_p" "" "$CORESCHED" new -- stress-ng --quiet --exec 1 --timeout "$CHURN_SECS"
	end=$(($(date +%s) + CHURN_SECS))
	hard=$((end + 120)) # the loops do some work even in a slow guest, not forever
	# Per-task cookies: the C helper, and util-linux syntax.
	(
		"$CHURN" "$COOKIES" 4
		ok=0 bad=0
		for i in $(seq 1 "$CHURN_MIN"); do
			if "$CORESCHED" new -- true; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
		done
		echo "cli $ok $bad"
	) >"$TMP/churn.out" 2>&1 &
	loops+=($!)
	# Moves of a running task between tagged and untagged cgroups.
	(
		n=0
		while [ "$(date +%s)" -lt $end ] || { [ $n -lt "$CHURN_MIN" ] && [ "$(date +%s)" -lt $hard ]; }; do
			for cg in "$CG_A" "$CG_B" "$cgu"; do
				echo "$pid_m" >"$cg/cgroup.procs" && n=$((n + 1))
				sleep 0.1
			done
		done
		echo $n
	) >"$TMP/moves.out" 2>&1 &
	loops+=($!)
	# Cgroups created and removed, tagged or not, nested, with a task in them.
	: >"$TMP/cgroups.ids"
	(
		n=0 t=0
		while [ "$(date +%s)" -lt $end ] || { [ $n -lt $((CHURN_MIN / 4 + 1)) ] && [ "$(date +%s)" -lt $hard ]; }; do
			n=$((n + 1))
			cg=$CG/t_c$n
			mkdir -p "$cg/sub"
			echo "$(stat -c %i "$cg") ${cg#"$CG"/}" >>"$TMP/cgroups.ids"
			echo "$(stat -c %i "$cg/sub") ${cg#"$CG"/}/sub" >>"$TMP/cgroups.ids"
			if [ $((n % 2)) = 1 ]; then
				"$CTL" cgroup tag "$cg" >/dev/null && t=$((t + 1))
			fi
			[ $((n % 4)) = 1 ] && "$CTL" cgroup tag "$cg/sub" >/dev/null && t=$((t + 1))
			start_in "$cg/sub" "$PROGRESS" cpu 0.3 >/dev/null
			wait "$LAST"
			rmdir "$cg/sub" "$cg"
		done
		echo "$n $t"
	) >"$TMP/cgroups.out" 2>&1 &
	loops+=($!)
	# nice and affinity changes on running tenant tasks.
	(
		a=0 f=0
		while [ "$(date +%s)" -lt $end ] || { [ $a -lt "$CHURN_MIN" ] && [ "$(date +%s)" -lt $hard ]; }; do
			for p in "${trk_pid[@]}"; do
				renice -n $((RANDOM % 20 - 5)) -p "$p" >/dev/null 2>&1 && a=$((a + 1))
				c1=$((RANDOM % NCPU))
				c2=$((RANDOM % NCPU))
				if [ $((RANDOM % 3)) = 0 ]; then
					taskset -pac "0-$((NCPU - 1))" "$p" >/dev/null 2>&1 && f=$((f + 1))
				else
					taskset -pac "$c1,$c2" "$p" >/dev/null 2>&1 && f=$((f + 1))
				fi
			done
			sleep 0.2
		done
		echo "$a $f"
	) >"$TMP/nice.out" 2>&1 &
	loops+=($!)
	sleep 2
	checkpoint
	dbg "churn: loops running"
	run_for "$CHURN_SECS"
	dbg "churn: waiting for the loops: $(cat "$TMP/churn.out" "$TMP/moves.out" "$TMP/cgroups.out" "$TMP/nice.out" | tr '\n' ' ')"
	wait "${loops[@]}"
	dbg "churn: loops done"
	checkpoint
	end_observers
	rc=$OBS_RC
	read -r n_mv <"$TMP/moves.out"
	read -r n_cg n_tag <"$TMP/cgroups.out"
	read -r n_nice n_aff <"$TMP/nice.out"
	read -r _ n_cli n_clifail < <(grep '^cli' "$TMP/churn.out")
	local created failed
	read -r _ created _ failed _ < <(grep '^created' "$TMP/churn.out")
	ej=$(ejections "$TMP/sched.err")
	why+=$(common_why $rc "$ej" 0)
	# The task moved while it runs (M) is audited at its switches only (a
	# move changes its cookie between two; README, coresched-audit): its
	# windows are printed, all others asserted.
	read -r ov_ns ov_n m_ns m_n < <(windows_of "$TMP/churn.trace" "$pid_m")
	if [ "$ov_ns" = "?" ]; then
		why+="the observer's trace is unreadable; "
	elif [ "$ov_ns" != 0 ]; then
		why+="overlap_ns=$ov_ns in $ov_n windows not involving the moved task; "
	elif [ $((ov_ns + m_ns)) != "$(field "$OBS_OUT" overlap_ns)" ]; then
		why+="the observer says overlap_ns=$(field "$OBS_OUT" overlap_ns), its trace $((ov_ns + m_ns)) (events dropped?); "
	fi
	[ "${created:-0}" = "$COOKIES" ] && [ "${failed:-1}" = 0 ] ||
		why+="cookie_churn: $(head -n 1 "$TMP/churn.out"); "
	[ "${n_clifail:-1}" = 0 ] || why+="'coresched new -- true' failed $n_clifail of $CHURN_MIN; "
	# Leaks, with t_a and t_b still tagged, their tenants stopped (what
	# checks starts runs faster then). A removed cgroup's tag goes when its
	# css goes offline (a kworker): wait for that, up to 20 s.
	stop_bg
	for i in $(seq 1 40); do
		[ "$(bpftool -j map dump pinned "$PIN/cs_cgrp_tag" | grep -o '"key"' | wc -l)" -le 2 ] && break
		nap 0.5
	done
	read -r tags leaked lpaths < <(cgrp_tag_leaks)
	[ "$leaked" = 0 ] || why+="cs_cgrp_tag holds $leaked tags of removed cgroups ($lpaths) after $i checks 0.5 s apart; "
	[ "$tags" = 2 ] || why+="cs_cgrp_tag holds $tags tags, want 2 (t_a, t_b); "
	dbg "churn: leak check done"
	# Cookie slots: with every tagged task gone (reaped; a task's slot is
	# released when it is freed, after an RCU grace period), none may stay
	# held.
	for i in $(seq 1 10); do
		read -r held free hcookies < <(slots_held)
		[ "$held" != 0 ] || break
		nap 0.5
	done
	live=$("$CTL" list 2>/dev/null | grep -c '^0x')
	[ "$held" = 0 ] || why+="$held cookie slots still held with no tagged task left ($hcookies; nr_free $free; coreschedctl list shows $live cookies); "
	info "churn $topo: $created per-task cookies ($failed failed) + $n_cli 'coresched new -- true' ($n_clifail failed), $n_mv cgroup moves, $n_cg cgroups created and removed ($n_tag tags, nested ones too), $n_nice renices, $n_aff affinity changes, exec storms in t_b and a prctl tenant"
	info "churn $topo: cs_cgrp_tag after: $tags tags, $leaked of removed cgroups ($lpaths); cookie slots held with no tenant left: $held (nr_free $free)"
	info "churn $topo: $(obs_summary "$OBS_OUT")"
	info "churn $topo: windows not involving the moved task (asserted): $ov_ns ns in $ov_n; involving it (measured): $m_ns ns in $m_n"
	info "churn $topo (strict, measured): $(obs_summary "$STRICT_OUT")"
	grep overlap_example "$STRICT_OUT" | head -n 2 | sed 's/^/#   strict: /'
	row churn "$COOKIES cookies,$n_cg cgroups,$n_mv moves" "renice $n_nice,taskset $n_aff,exec" \
		"$(field "$OBS_OUT" overlap_ns) (strict $(field "$STRICT_OUT" overlap_ns))" \
		"$(ms "$OBS_OUT" max_wait_ns) ms" "$ej" \
		"leaks: tags $leaked slots $held"
	verdict $name "$why"
	case_end
}

# --- 3. hotplug storms ----------------------------------------------------------

# core_cpus CORE: its CPUs (qemu numbers siblings consecutively).
core_cpus() { seq $(($1 * THREADS)) $(($1 * THREADS + THREADS - 1)); }

# set_online CPU 0|1: count failures in hp_fail; log it with the uptime
# before and after in hp.log.
set_online() {
	local t u
	uptime_in t
	echo "$2" >"$SYSCPU/cpu$1/online" 2>>"$TMP/hp.err" || hp_fail=$((hp_fail + 1))
	uptime_in u
	echo "$t $u cpu$1 $([ "$2" = 1 ] && echo online || echo offline)" >>"$TMP/hp.log"
}

# hp_near OBS: for each overlap example of observer output OBS, the hotplug
# writes around it (times in s from the observer's start, +-0.25 s).
hp_near() {
	awk -v t0="$OBS_T0" 'FNR == NR { op[++n] = $0; next }
		$1 == "overlap_example" { s = $5 / 1e9; near = "";
			for (i = 1; i <= n; i++) { split(op[i], f, " ");
				if (f[2] - t0 >= s - 3 && f[1] - t0 <= s + 1)
					near = near sprintf(" [%.2f-%.2f %s %s]", f[1] - t0, f[2] - t0, f[3], f[4]) }
			printf "#   window at %.3f s, %d ns (%s, cookies %s, cpus %s): hotplug writes nearby:%s\n", s, $7, $11, $13, $3, near ? near : " none" }' \
		"$TMP/hp.log" "$1"
}

case_hotplug() {
	local name=soak_hotplug_$topo rc ej why="" end cpu core c ops=0 sib=0 whole=0
	hp_fail=0
	: >"$TMP/hp.log"
	SCHED_ARGS=()
	case_begin hotplug --trust-kthreads || { fail $name "observer or scheduler did not start: $(tail -n 2 "$TMP/sched.err")"; case_end; return; }
	tenants || why+="could not tag the tenants; "
	# Short form: half the load (each hotplug step waits its turn on a core).
	local n=$NCPU
	[ $form = long ] || n=$(((NCPU + 1) / 2))
	spin_load $((HP_SECS + 60)) "$n"
	sleep 2
	checkpoint
	end=$(($(date +%s) + HP_SECS))
	while [ "$(date +%s)" -lt $end ] || [ $ops -lt $HP_OPS ]; do
		if [ $((ops % 2)) = 0 ] || [ "$CORES" = 1 ]; then
			cpu=$((1 + RANDOM % (NCPU - 1)))
			set_online $cpu 0
			sleep 0.5
			set_online $cpu 1
			sib=$((sib + 1))
		else
			core=$((1 + RANDOM % (CORES - 1)))
			for c in $(core_cpus $core | sort -rn); do set_online "$c" 0; done
			sleep 0.5
			for c in $(core_cpus $core); do set_online "$c" 1; done
			whole=$((whole + 1))
		fi
		ops=$((ops + 1))
		[ -z "${V:-}" ] || info "hotplug op $ops done: online $(cat $SYSCPU/online)"
		sleep 0.5
		checkpoint
	done
	for c in $(seq 1 $((NCPU - 1))); do
		[ "$(cat $SYSCPU/cpu$c/online)" = 1 ] || set_online "$c" 1
	done
	sleep 2
	checkpoint
	end_observers
	rc=$OBS_RC
	ej=$(ejections "$TMP/sched.err")
	why+=$(common_why $rc "$ej" 0)
	[ $hp_fail = 0 ] || why+="$hp_fail hotplug writes failed ($(sort -u "$TMP/hp.err" | head -n 2 | tr '\n' ' ')); "
	[ "$(cat $SYSCPU/online)" = "0-$((NCPU - 1))" ] ||
		why+="CPUs online afterwards: $(cat $SYSCPU/online); "
	info "hotplug $topo: $sib sibling and $whole whole-core offline/online cycles under 4 cookies of stress-ng"
	info "hotplug $topo (kthreads trusted, measured): $(obs_summary "$OBS_OUT")"
	info "hotplug $topo (strict, measured): $(obs_summary "$STRICT_OUT")"
	grep overlap_example "$STRICT_OUT" | head -n 2 | sed 's/^/#   strict: /'
	hp_near "$OBS_OUT"
	row hotplug "4 cookies x stress-ng" "$sib sibling,$whole core cycles" \
		"$(field "$OBS_OUT" overlap_ns) (strict $(field "$STRICT_OUT" overlap_ns))" \
		"$(ms "$OBS_OUT" max_wait_ns) ms" "$ej" -
	verdict $name "$why"
	case_end
}

# --- 4. kill loop ------------------------------------------------------------------

# launch ARGS...: start the loader (stderr appended to kill.err); pid in
# SCHED_PID. At the priority start_sched (lib.sh) gives it: the verifier
# runs in the loader, and beside busy tenants a load took several times its
# idle 5 s.
launch() {
	nice -n -15 "$SCHED" "$@" >>"$TMP/kill.out" 2>>"$TMP/kill.err" &
	SCHED_PID=$!
}

# up_or_gone: the scheduler is enabled, or its loader SCHED_PID has exited.
up_or_gone() {
	sched_is enabled coresched || ! kill -0 "$SCHED_PID" 2>/dev/null
}

# wait_up [SECS]: poll (every 0.05 s, up to SECS, 120 by default) until
# the scheduler is enabled; false if its loader exits first.
wait_up() { poll "${1:-120}" up_or_gone && sched_is enabled coresched; }

# relaunch ARGS...: once sched_ext is disabled, start the loader again
# (up to 5 tries); true once it is enabled.
# Failed tries are counted in retries, their last words kept in retry_why.
relaunch() {
	for _ in 1 2 3 4 5; do
		poll 60 sched_is disabled
		dbg "relaunch: sched_ext is $(scx_state)"
		launch "$@"
		wait_up 120 && { dbg "relaunch: enabled"; return 0; }
		kill -KILL $SCHED_PID 2>/dev/null
		wait $SCHED_PID 2>/dev/null
		retries=$((retries + 1))
		retry_why="$(tail -n 1 "$TMP/kill.err") (state $(scx_state))"
		dbg "relaunch failed: $retry_why"
		sleep 0.5
	done
	return 1
}

case_kill() {
	local name=soak_kill_$topo rc ej why="" i how t0 t1 d gaps=() gapl="" kinds=() \
		ta tb tp ta2 tb2 tp2 cg tagok=0 tagbad="" ctlpid ctlrc closed_ov="" \
		smt_kill smt_on start_ms d frozen closed_gap
	: >"$TMP/kill.err"
	retries=0
	retry_why=
	SCHED_ARGS=(--stats 0.2)
	untrack_all
	OBS_OUT=$TMP/kill.obs
	cname="kill"
	info "kill $topo: starting"
	err0=$(sched_errors)
	if ! ensure_pins || ! observe_bg "$OBS_OUT" --duration 3600; then
		fail $name "observer did not start"
		return
	fi
	t0=$(now_ms)
	launch --stats 0.2
	wait_up || { fail $name "scheduler did not start: $(tail -n 2 "$TMP/kill.err")"; stop_observer; case_end; return; }
	start_ms=$(($(now_ms) - t0))
	dbg "kill: first start took $start_ms ms"
	tenants || why+="could not tag the tenants; "
	# Lighter load than the other cases: the loader loads many times, and
	# under CPU load it loads slowly (it competes at nice 0). The short
	# form runs the four tracked workers only.
	[ $form = short ] || spin_load 3600 $(((NCPU + 1) / 2))
	sleep 2
	ta=$(cgroup_tag "$CG_A")
	tb=$(cgroup_tag "$CG_B")
	tp=$(cookie_of "$PID_P")
	checkpoint
	for i in $(seq 1 "$KILLS"); do
		how=$(((i - 1) % 3))
		case $how in
		0) # mid-load: a fresh loader, killed while it is still starting
			kill -INT $SCHED_PID
			wait $SCHED_PID 2>/dev/null
			poll 60 sched_is disabled
			launch --stats 0.2
			d=$((RANDOM % start_ms))
			sleep "$((d / 1000)).$(printf %03d $((d % 1000)))"
			if [ "$(scx_state)" = enabled ]; then
				kinds+=("load(enabled)")
			else
				kinds+=("load($(scx_state))")
			fi
			;;
		1) # mid-stats
			sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
			kinds+=(stats)
			;;
		2) # mid-tag
			cg=$(tenant t_k$i)
			"$CTL" cgroup tag "$cg" >/dev/null 2>"$TMP/k$i.ctl" &
			ctlpid=$!
			sleep "0.0$((RANDOM % 10))"
			kinds+=(tag)
			;;
		esac
		dbg "kill $i: ${kinds[-1]}, state $(scx_state)"
		t0=$(now_ms)
		kill -KILL $SCHED_PID
		wait $SCHED_PID 2>/dev/null
		if [ $how = 2 ]; then
			wait $ctlpid
			ctlrc=$?
			# A tag command that succeeded must have left its tag.
			if [ $ctlrc = 0 ]; then
				[ -n "$(cgroup_tag "$cg")" ] && tagok=$((tagok + 1)) ||
					tagbad+="t_k$i tagged (rc 0) but no tag; "
			else
				info "kill $i: the concurrent 'cgroup tag' failed: $(head -c 160 "$TMP/k$i.ctl")"
			fi
		fi
		dbg "kill $i: killed, state $(scx_state)"
		if relaunch --stats 0.2; then
			t1=$(now_ms)
			d=$((t1 - t0))
			gaps+=("$d")
			gapl+="${kinds[-1]}:${d}ms "
		else
			gapl+="${kinds[-1]}:never "
			why+="no restart after kill $i: $(tail -n 2 "$TMP/kill.err" | tr '\n' ' '); "
			break
		fi
		checkpoint
	done
	sleep 2
	checkpoint
	stop_observer
	rc=$?
	ta2=$(cgroup_tag "$CG_A")
	tb2=$(cgroup_tag "$CG_B")
	tp2=$(cookie_of "$PID_P")
	[ -n "$ta" ] && [ -n "$tb" ] && [ "$tp" != 0 ] && [ "$ta $tb $tp" = "$ta2 $tb2 $tp2" ] ||
		why+="tags changed: before '$ta $tb $tp', after '$ta2 $tb2 $tp2'; "
	why+=$tagbad
	ej=$(ejections "$TMP/kill.err")
	why+=$(common_why $rc "$ej" 0)
	local open_obs=$OBS_OUT
	local gmin gmax gmed
	read -r gmin gmed gmax < <(printf '%s\n' "${gaps[@]}" | sort -n |
		awk '{ a[NR] = $1 } END { if (NR) print a[1], a[int((NR + 1) / 2)], a[NR]; else print "- - -" }')
	info "kill $topo: ${#gaps[@]} of $KILLS SIGKILLs restarted; gaps (kill to enabled): $gapl"
	[ $retries = 0 ] || info "kill $topo: $retries restarts failed and were tried again; the last: $retry_why"
	info "kill $topo: gap min/median/max ${gmin}/${gmed}/${gmax} ms; mid-tag commands that succeeded kept their tag: $tagok; tags before '$ta $tb $tp' after '$ta2 $tb2 $tp2'"
	info "kill $topo (fail-mode open, gaps unprotected, measured): $(obs_summary "$OBS_OUT")"
	dbg "kill: loop done"
	# One more cycle in --fail-mode closed: must show 0 ns (kernel threads
	# trusted: cpuhp/N and migration/N run as SMT goes off). Between the
	# open-mode scheduler and the closed one nothing isolates, so the
	# tenants are stopped (SIGSTOP) until the closed one runs.
	# (Long form only: closed.sh runs the same cycle in make test.)
	frozen=$(pgrep -f "^(stress-ng|$PROGRESS)" | tr '\n' ' ')
	# shellcheck disable=SC2086 # a list of pids
	[ $form = short ] || kill -STOP $frozen 2>/dev/null
	kill -INT $SCHED_PID
	wait $SCHED_PID 2>/dev/null
	OBS_OUT=$TMP/kill_closed.obs
	closed_gap=-
	if [ $form = short ]; then
		info "kill $topo: the fail-mode closed cycle runs in the long form (and in closed.sh)"
	elif [ "$(cat $SMT 2>/dev/null)" != on ]; then
		why+="SMT control is '$(cat $SMT 2>/dev/null)', cannot run the closed cycle; "
	elif observe_bg "$OBS_OUT" --duration 3600 --trust-kthreads &&
		relaunch --fail-mode closed --stats 0.2; then
		# shellcheck disable=SC2086 # a list of pids
		kill -CONT $frozen 2>/dev/null
		sleep 2
		t0=$(now_ms)
		kill -KILL $SCHED_PID
		wait $SCHED_PID 2>/dev/null
		poll 60 sched_is disabled
		for i in $(seq 1 200); do
			[ "$(cat $SMT)" = off ] && break
			sleep 0.05
		done
		smt_kill=$(cat $SMT)
		relaunch --fail-mode closed --stats 0.2 || why+="closed: no restart; "
		t1=$(now_ms)
		for i in $(seq 1 200); do
			[ "$(cat $SMT)" = on ] && break
			sleep 0.05
		done
		smt_on=$(cat $SMT)
		sleep 2
		checkpoint
		stop_observer
		closed_ov=$(field "$OBS_OUT" overlap_ns)
		[ "$smt_kill" = off ] && [ "$smt_on" = on ] ||
			why+="closed: SMT after kill '$smt_kill', after restart '$smt_on'; "
		[ "$closed_ov" = 0 ] || why+="closed: overlap_ns=$closed_ov over the kill cycle; "
		closed_gap=$((t1 - t0))
		info "kill $topo (fail-mode closed, kernel threads trusted as in closed.sh, asserted): gap $closed_gap ms, SMT after kill '$smt_kill', after restart '$smt_on'; $(obs_summary "$OBS_OUT")"
		gapl+="closed:${closed_gap}ms"
		info "kill $topo (closed): the loader said: $(grep -E 'SMT|ejected|isolating' "$TMP/kill.err" | tail -n 4 | tr '\n' ';')"
		info "kill $topo (closed): sched_ext error exits: $(dmesg | grep 'sched_ext: BPF scheduler ".*" disabled' | grep -v 'unregistered from user space' | tail -n 2 | tr '\n' ';')"
	else
		why+="closed: observer or scheduler did not start; "
	fi
	ej=$(ejections "$TMP/kill.err")
	[ "$ej" = 0 ] || why+="$ej ejections during the closed cycle; "
	[ -z "$stalled" ] || why+="no progress:$stalled; "
	row kill "4 cookies $([ $form = short ] && echo "x 1 worker" || echo "x stress-ng -c $(((NCPU + 1) / 2))")" "$KILLS SIGKILL (${kinds[*]})" \
		"open $(field "$open_obs" overlap_ns)/$(field "$open_obs" overlap_windows)w closed ${closed_ov:-?}" \
		"$(ms "$open_obs" max_wait_ns) ms" "$ej" "ms ${gmin}/${gmed}/${gmax} closed $closed_gap"
	verdict $name "$why"
	# shellcheck disable=SC2086 # a list of pids
	kill -CONT $frozen 2>/dev/null
	stop_bg
	kill -INT $SCHED_PID 2>/dev/null
	wait $SCHED_PID 2>/dev/null
	SCHED_PID=
	echo on >$SMT 2>/dev/null
	cp "$TMP/kill.err" "$TMP/sched.err"
	find "$CG" -depth -mindepth 1 -type d -path "$CG/t_*" -exec rmdir {} + 2>/dev/null
}

# --- 5. RT and DL tasks in and beside tagged tenants ---------------------------------
case_rtdl() {
	local name=soak_rtdl_$topo rc ej why="" s
	SCHED_ARGS=()
	case_begin rtdl || { fail $name "observer or scheduler did not start: $(tail -n 2 "$TMP/sched.err")"; case_end; return; }
	tenants || why+="could not tag the tenants; "
	local rt=()
	bgrun "$TMP/rt_fifo" "$CG_A" chrt -f 50 "$PERIODIC" 10000 1000 3600
	track FIFO_A "$LAST"
	rt+=("$LAST")
	bgrun "$TMP/rt_dl" "$CG_A" chrt -d --sched-runtime 2000000 --sched-deadline 10000000 \
		--sched-period 10000000 0 "$PERIODIC" 10000 1000 3600
	track DL_A "$LAST"
	rt+=("$LAST")
	bgrun "$TMP/rt_fifo_u" "" chrt -f 40 "$PERIODIC" 10000 1000 3600
	track FIFO_U "$LAST"
	rt+=("$LAST")
	bgrun "$TMP/l_b" "$CG_B" stress-ng --quiet --cpu "$NCPU" --timeout $((RT_SECS + 30))
	sleep 2
	checkpoint
	run_for "$RT_SECS"
	checkpoint
	kill -INT "${rt[@]}" # they print their figures and exit
	wait "${rt[@]}"
	end_observers
	rc=$OBS_RC
	ej=$(ejections "$TMP/sched.err")
	why+=$(common_why $rc "$ej" 0)
	for s in rt_fifo rt_dl rt_fifo_u; do
		grep -q '^cycles [1-9]' "$TMP/$s" || why+="$s ran no cycle: $(head -c 200 "$TMP/$s"); "
	done
	info "rtdl $topo: periodic 10 ms/1 ms: FIFO 50 in t_a: $(cat "$TMP/rt_fifo"); DL 2/10/10 ms in t_a: $(cat "$TMP/rt_dl"); FIFO 40 untagged: $(cat "$TMP/rt_fifo_u")"
	info "rtdl $topo (measured, not asserted): $(obs_summary "$OBS_OUT")"
	grep overlap_example "$OBS_OUT" | head -n 3 | sed 's/^/#   /'
	row rtdl "FIFO+DL in t_a, FIFO beside, t_b spin" "-" \
		"$(field "$OBS_OUT" overlap_ns) in $(field "$OBS_OUT" overlap_windows)w, max $(($(ms "$OBS_OUT" longest_overlap_ns))) ms" \
		"$(ms "$OBS_OUT" max_wait_ns) ms" "$ej" -
	verdict $name "$why"
	case_end
}

# --- main ----------------------------------------------------------------------
info "soak --$form on $topo ($NCPU CPUs, $CORES cores x $THREADS threads)"
missing=
for b in "$CHURN" "$PERIODIC" "$PROGRESS" "$CORESCHED"; do
	[ -x "$b" ] || missing+=" $b"
done
for c in stress-ng chrt renice taskset bpftool python3; do
	command -v $c >/dev/null || missing+=" $c"
done
# SCX_SOAK_CASES: a subset, by name, separated by spaces or commas.
cases=${SCX_SOAK_CASES:-stress churn hotplug kill rtdl}
for c in ${cases//,/ }; do
	if [ -n "$missing" ]; then
		fail "soak_${c}_$topo" "missing:$missing (run make)"
		continue
	fi
	t0=$SECONDS
	"case_$c"
	info "time soak_${c}_$topo: $((SECONDS - t0)) s"
done
info "summary ($form):"
info "$(printf '%-8s %-4s %-34s %-26s %-22s %-9s %-4s %s' case topo load faults overlap_ns worst_wait ejct gaps)"
for r in "${rows[@]}"; do info "$r"; done
finish
