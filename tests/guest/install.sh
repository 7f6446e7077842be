#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The installed scheduler on the test kernel (Linux 6.12): make install
# into a DESTDIR, start scx_coresched from there as the systemd unit does
# (options from the DESTDIR's /etc/default/scx_coresched), check that it
# attaches, that the renamed kfuncs resolved to their 6.12 names, and that
# SIGINT (the unit's KillSignal) detaches it with exit status 0; and
# coreschedctl stats while it runs and after.
#   tools/vm -- tests/guest/install.sh
. tests/guest/lib.sh

if xz -dc include/vmlinux/x86_64/vmlinux.h.xz | cmp -s - build/vmlinux.h; then
	info "build/vmlinux.h is the repository's header (Linux 6.12)"
else
	info "build/vmlinux.h is not the repository's header (VMLINUX_SOURCE=$(cat build/vmlinux.source 2>/dev/null))"
fi

dest=$TMP/dest
if ! make -s install DESTDIR="$dest" >"$TMP/install.log" 2>&1; then
	fail installed_sched_attaches "make install failed: $(tail -n 3 "$TMP/install.log")"
	finish
fi
SCHED=$dest/usr/local/sbin/scx_coresched
# What the unit runs: ExecStart with the flags of /etc/default/scx_coresched.
echo 'SCX_CORESCHED_FLAGS="--mode strict --slice-us 4000"' >>"$dest/etc/default/scx_coresched"
# shellcheck disable=SC1091 # the file is written above
. "$dest/etc/default/scx_coresched"
# shellcheck disable=SC2086 # split as systemd splits $SCX_CORESCHED_FLAGS
if start_sched $SCX_CORESCHED_FLAGS; then
	if grep -q "slice 4000 us" "$TMP/sched.err"; then
		pass installed_sched_attaches
	else
		fail installed_sched_attaches "the flags of /etc/default/scx_coresched were not used: $(head -n 1 "$TMP/sched.err")"
	fi

	# One object for 6.12 and later: on 6.12 the ___old names resolve and
	# the calls of the 6.13 names are gone as dead code.
	calls=$(for p in cs_enqueue cs_dispatch; do
		bpftool prog dump xlated name "$p"
	done 2>/dev/null | grep -o 'scx_bpf_[a-z_]*' | sort -u | tr '\n' ' ')
	info "kfuncs called by cs_enqueue and cs_dispatch: $calls"
	want="scx_bpf_dispatch scx_bpf_dispatch_vtime scx_bpf_consume"
	missing=
	for k in $want; do
		grep -qw "$k" <<<"$calls" || missing+="$k "
	done
	if [ -n "$missing" ]; then
		fail compat_kfuncs_6_12 "not called: $missing"
	elif grep -q 'scx_bpf_dsq_insert\|scx_bpf_dsq_move_to_local' <<<"$calls"; then
		fail compat_kfuncs_6_12 "a 6.13 name is called on 6.12: $calls"
	else
		pass compat_kfuncs_6_12
	fi

	# Statistics on demand, written every interval (1 s without --stats).
	CTL=$dest/usr/local/bin/coreschedctl
	for _ in $(seq 1 40); do
		[ -e /run/scx_coresched/stats.prom ] && break
		sleep 0.25
	done
	bad=
	run "$CTL" stats --json
	python3 -c 'import json, sys; d = json.loads(sys.stdin.read()); assert "forced_idle_pct" in d and d["cores"]' <<<"$out" 2>/dev/null ||
		bad+="--json (exit $rc): '${out:0:100}' $err; "
	run "$CTL" stats --prometheus
	[ $rc = 0 ] && grep -q '^scx_coresched_forced_idle_percent [0-9.]*$' <<<"$out" &&
		grep -q '^scx_coresched_core_forced_idle_percent{core="1",cpus="2,3"} ' <<<"$out" &&
		! grep -Ev '^(# (HELP|TYPE) .*|scx_coresched_[a-z_]+(\{[^}]*\})? [0-9.e+-]+)$' <<<"$out" >/dev/null ||
		bad+="--prometheus (exit $rc): $(grep -Ev '^(# (HELP|TYPE) .*|scx_coresched_[a-z_]+(\{[^}]*\})? [0-9.e+-]+)$' <<<"$out" | head -n 2) $err; "
	run "$CTL" stats
	[ $rc = 0 ] && grep -q "^forced idle" <<<"$out" || bad+="text (exit $rc): '${out:0:60}' $err; "
	if [ -z "$bad" ]; then
		pass stats_on_demand
	else
		fail stats_on_demand "$bad"
	fi

	kill -INT "$SCHED_PID"
	wait "$SCHED_PID"
	rc=$?
	SCHED_PID=
	for _ in $(seq 1 80); do
		[ "$(scx_state)" = disabled ] && break
		sleep 0.25
	done
	if [ $rc = 0 ] && [ "$(scx_state)" = disabled ] &&
		grep -q "detached: unregistered from user space" "$TMP/sched.err"; then
		pass installed_sched_sigint_stop
	else
		fail installed_sched_sigint_stop "exit $rc, state '$(scx_state)': $(tail -n 1 "$TMP/sched.err")"
	fi
	run "$CTL" stats
	if [ $rc = 1 ] && grep -q "not running" <<<"$err" && [ ! -e /run/scx_coresched/stats ]; then
		pass stats_gone_after_stop
	else
		fail stats_gone_after_stop "exit $rc: $err; $(ls /run/scx_coresched)"
	fi
else
	fail installed_sched_attaches "did not attach"
fi
finish
