# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Benchmark configurations and tenants (sourced by bench/guest.sh, after
# tests/guest/lib.sh). A configuration is entered once per round and runs
# every workload; a tenant is a cgroup t_b_NAME whose tasks share one
# cookie, set up by the workload and dropped after it:
#   default      SMT on, no cookies
#   upstream     the kernel's core scheduling: one prctl(PR_SCHED_CORE)
#                cookie per tenant (scx_coresched's tagging programs are
#                uninstalled first: while installed they answer prctl)
#   smt-off      no cookies, every CPU but the first thread of each core
#                offline (/sys/devices/system/cpu/smt/control)
#   ours-strict  scx_coresched --mode strict, one cgroup tag per tenant
#   ours-fill    scx_coresched --mode fill, one cgroup tag per tenant
#   ours-none    scx_coresched --mode none: our scheduler without core
#                scheduling, the ceiling of our own speed
#   ours-strict-s20
#                ours-strict with a 20 ms slice (--slice-us 20000; the
#                default is 5 ms), so also a 20 ms grace
#   ours-strict-g20
#                ours-strict with the 5 ms slice and a 20 ms grace
#                (--grace-us 20000): a core changes cookie less often
#   ours-strict-tk
#                ours-strict with --trust-kthreads (the observer told
#                too): kernel threads run beside any cookie, what the
#                untagged kernel threads' handovers cost
#   ours-strict-alt
#                ours-strict run by another build of scx_coresched, the
#                binary named by SCX_BENCH_ALT (an A/B of two versions in
#                one boot)
#   empty        a sched_ext scheduler that does nothing but queue (one
#                global FIFO, the kernel's default CPU choice:
#                tests/guest/broken.bpf.c), no cookies: the cost of
#                sched_ext itself

# shellcheck disable=SC2034 # used by bench/guest.sh
CONFIGS=(default upstream smt-off ours-strict ours-fill)
# Also known, run when asked for (SCX_BENCH_CONFIGS, bench/throughput):
# shellcheck disable=SC2034
EXTRA_CONFIGS=(ours-none empty ours-strict-s20 ours-strict-g20 ours-strict-tk
	ours-strict-alt)

# Tenants with a cookie in this run: cgroup path per tenant name, and for
# upstream the PID whose prctl cookie the tenant's tasks copy.
declare -A TEN_CG=() TEN_HOLDER=()
CFG=
CFG_AUDIT=0
SCHED_MAIN=$SCHED # the build under test; SCX_BENCH_ALT's for *-alt
AUDIT_OUT=

# cfg_enter CFG DIR: switch to CFG; the isolation observer (lib.sh's
# observe_bg, the benchmark's one call of it; if SCX_BENCH_AUDIT=1, output
# AUDIT_OUT=DIR/audit.json) is attached before the scheduler, so that it
# sees every commit; it watches every workload of the round and prints its
# figures every second (--interval 1), so that each run's window can take
# the seconds it spanned (bench/collect.sh).
cfg_enter() {
	CFG=$1
	local run=$2 src=upstream mode=strict tune=() trust=()
	stop_sched || return 1
	SCHED=$SCHED_MAIN
	case $CFG in
	ours-*-[sg][0-9]*) # ours-MODE-sMS: slice, ours-MODE-gMS: grace
		mode=${CFG#ours-}
		case ${mode##*-} in
		s*) tune=(--slice-us $((${mode##*-s} * 1000))) ;;
		g*) tune=(--grace-us $((${mode##*-g} * 1000))) ;;
		esac
		mode=${mode%-*}
		src=ours ;;
	ours-*-tk)
		mode=${CFG#ours-}; mode=${mode%-tk}; src=ours
		trust=(--trust-kthreads) ;;
	ours-*-alt)
		mode=${CFG#ours-}; mode=${mode%-alt}; src=ours
		SCHED=${SCX_BENCH_ALT:?ours-MODE-alt needs SCX_BENCH_ALT} ;;
	ours-*) mode=${CFG#ours-}; src=ours ;;
	*) "$SCHED" --uninstall >/dev/null 2>&1 ;;
	esac
	if [ "$CFG" = smt-off ]; then
		echo off >"$SMT" || return 1
	elif [ "$(cat "$SMT")" != on ]; then
		echo on >"$SMT" || return 1
	fi
	[ $src = ours ] && { ensure_pins || return 1; }
	CFG_AUDIT=0
	if [ "${SCX_BENCH_AUDIT:-1}" = 1 ]; then
		# Run in every configuration, so that all of them pay its cost.
		AUDIT_OUT=$run/audit.json
		observe_bg "$AUDIT_OUT" --source $src --mode "$mode" "${trust[@]}" \
			--duration 3600 --interval 1 --json || return 1
		CFG_AUDIT=1
	fi
	case $CFG in
	ours-*) start_sched --mode "$mode" "${tune[@]}" "${trust[@]}" \
		--stats 1 --json ||
		return 1 ;;
	empty) start_empty || return 1 ;;
	esac
	return 0
}

# start_empty: load the empty scheduler (build/broken_sched) as SCHED_PID,
# so that stop_sched stops it and the snapshots record its BPF cost.
start_empty() {
	: >"$TMP/sched.err" # before file_has reads it
	"$ROOT/build/broken_sched" >"$TMP/sched.out" 2>"$TMP/sched.err" &
	SCHED_PID=$!
	local i
	for ((i = 0; i < 240; i++)); do
		file_has "$TMP/sched.err" attached &&
			sched_is enabled broken_fifo && return 0
		kill -0 $SCHED_PID 2>/dev/null || break
		nap 0.25
	done
	info "the empty scheduler did not start: $(tail -n 2 "$TMP/sched.err")"
	return 1
}

# cfg_leave DIR: stop the scheduler (its stats lines to DIR) and the
# observer.
cfg_leave() {
	local run=$1
	if [ -n "$SCHED_PID" ]; then
		cp "$TMP/sched.out" "$run/sched.all.jsonl" 2>/dev/null
		stop_sched
	fi
	if [ $CFG_AUDIT = 1 ]; then
		kill -INT "$OBS_PID" 2>/dev/null
		wait "$OBS_PID" 2>/dev/null
		CFG_AUDIT=0
	fi
}

# tenants_drop: after a workload, drop the cookies of long-lived tenant
# tasks (mysqld: its prctl cookie or its cgroup's tag, so that no tagged
# task is left when the scheduler loads or unloads, moments at which
# sched_ext runs every task in bypass mode) and remove the other tenants.
tenants_drop() {
	local t
	for t in "${!TEN_CG[@]}"; do
		case $CFG:$t in
		ours-*:db*) "$CTL" cgroup untag "${TEN_CG[$t]}" >/dev/null 2>&1 ;;
		esac
	done
	for t in "${!TEN_HOLDER[@]}"; do
		case $t in
		db*) "$CTL" clear -t tgid -d "${TEN_HOLDER[$t]}" >/dev/null 2>&1 ;;
		*) kill "${TEN_HOLDER[$t]}" 2>/dev/null
			wait "${TEN_HOLDER[$t]}" 2>/dev/null ;;
		esac
	done
	TEN_HOLDER=()
	for t in "${!TEN_CG[@]}"; do
		case $t in db*) ;; *) rmdir "${TEN_CG[$t]}" 2>/dev/null ;; esac
	done
	TEN_CG=()
}

# tenant_cg NAME [HOLDER_PID]: set TEN_PATH to the tenant's cgroup, created
# and given its cookie under this configuration on first use. HOLDER_PID
# (db tenants: mysqld, which outlives the run) is a task of the tenant
# that carries the cookie; otherwise a sleeping task holds it.
tenant_cg() {
	local name=$1 holder=${2:-}
	TEN_PATH=$CG/t_b_$name
	[ -n "${TEN_CG[$name]:-}" ] && return 0
	mkdir -p "$TEN_PATH"
	TEN_CG[$name]=$TEN_PATH
	case $CFG in
	ours-*) "$CTL" cgroup tag "$TEN_PATH" >/dev/null || return 1 ;;
	upstream)
		if [ -z "$holder" ]; then
			sleep 100000 &
			holder=$!
			echo $holder >"$TEN_PATH/cgroup.procs"
		fi
		TEN_HOLDER[$name]=$holder
		"$CTL" new -t tgid -d "$holder" >/dev/null || return 1 ;;
	esac
}

# tenant_run NAME OUT CMD...: run CMD in the background as a task of tenant
# NAME (its cgroup and cookie), output to OUT; its PID joins bg_pids.
tenant_run() {
	local name=$1 out=$2
	shift 2
	if ! tenant_cg "$name"; then
		echo "tenant $name: its cookie could not be set under $CFG" >>"${out%/*}/error"
		return 1
	fi
	if [ "$CFG" = upstream ]; then
		set -- "$CTL" copy -s "${TEN_HOLDER[$name]}" -- "$@"
	fi
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$TEN_PATH" "$@" \
		>"$out" 2>&1 </dev/null &
	bg_pids+=($!)
}
