#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# util-linux's test cases for coresched(1) (tests/ts/schedutils/coresched
# and tests/expected/schedutils/coresched-*), reproduced against our
# build/coresched, plus util-linux's error behaviour. Run as root in a
# tools/vm guest with SMT from the repository root:
#
#   tools/vm -- tests/guest/utilcli.sh
#   SCX_BACKEND=ours tools/vm -- tests/guest/utilcli.sh
#
# SCX_BACKEND says who serves prctl(PR_SCHED_CORE): "kernel" (default:
# the kernel's own core scheduling) or "ours" (scx_coresched, started
# here as lib.sh's start_sched does). CORESCHED overrides the binary under
# test (default build/coresched), e.g. a real util-linux coresched, to
# check this test against the reference.
#
# One line per test, "PASS name" or "FAIL name: why"; '#' lines are
# information. Exits 1 if a test failed.
. "$(dirname "$0")/lib.sh"

CS=${CORESCHED:-$ROOT/build/coresched}
BACKEND=${SCX_BACKEND:-kernel}

# run CMD...: $out, $err (whole stderr), $rc.
run() {
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

# check NAME GOT WANT: exact comparison of two outputs.
check() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "got '$(tr '\n' '|' <<<"$2")', want '$(tr '\n' '|' <<<"$3")'"
	fi
}

# The util-linux cases. They change the cookie of the shell that runs
# them ($$), so they run in a bash of their own: utilcli.sh --cases.
util_linux_cases() {
	local p=ul_ out parent_cookie

	# The skip test of util-linux: with SMT and core scheduling, running
	# coresched must not say that it is unsupported.
	out=$("$CS" 2>&1)
	if [[ $out == *CONFIG_SCHED_CORE* ]]; then
		fail ${p}supported "coresched says: $out (util-linux would skip the suite)"
		return
	fi
	pass ${p}supported

	# set-cookie-parent-pid: -v reports the new cookie on stderr, and
	# nothing goes to stdout.
	# util-linux's script replaces the PID first, and so fails whenever
	# the cookie's hex digits contain the PID's decimal ones (CI saw
	# 0x8760942f beside PID 942). Here the cookie is read and replaced
	# first, and the PID only as a whole word.
	out=$( ("$CS" -v new -d $$ >"$TMP/stdout") 3>&1 1>&2 2>&3)
	parent_cookie=$(echo "$out" | sed -n 's/^.* \(0x[0-9a-f]*\)$/\1/p')
	if [ -z "$parent_cookie" ] || [ "$parent_cookie" = 0x0 ]; then
		fail ${p}set-cookie-parent-pid "no cookie in '$out'"
		return
	fi
	out=$(echo "$out" | sed -e "s/$parent_cookie/PARENT_COOKIE/g" \
		-e "s/\\b$$\\b/PARENT_PID/g")
	check ${p}set-cookie-parent-pid "$out|$(cat "$TMP/stdout")" \
		"coresched: set cookie of PID PARENT_PID to PARENT_COOKIE|"
	info "cookie of this shell: $parent_cookie"

	# get-cookie-parent-pid
	out=$("$CS" get -s $$ 2>"$TMP/err" |
		sed -e "s/$parent_cookie/PARENT_COOKIE/g" \
			-e "s/\\b$$\\b/PARENT_PID/g")
	check ${p}get-cookie-parent-pid "$out$(cat "$TMP/err")" \
		"cookie of PID PARENT_PID is PARENT_COOKIE"

	# get-cookie-own-pid: coresched inherited the shell's cookie.
	out=$("$CS" get 2>"$TMP/err" |
		sed -e "s/$parent_cookie/PARENT_COOKIE/g" \
			-e "s/PID [0-9]\+/PID OWN_PID/g")
	check ${p}get-cookie-own-pid "$out$(cat "$TMP/err")" \
		"cookie of PID OWN_PID is PARENT_COOKIE"
	out=$("$CS" get)
	[[ $out == "cookie of PID $$ "* ]] &&
		fail ${p}get-own-pid-is-own "get printed the shell's PID: $out" ||
		pass ${p}get-own-pid-is-own

	# new-child-with-new-cookie
	out=$("$CS" new -- "$CS" get 2>"$TMP/err" |
		sed -e 's/^.*\(0x.*$\)/\1/g' \
			-e "s/$parent_cookie/SAME_COOKIE/g" \
			-e "s/0x.*$/DIFFERENT_COOKIE/g")
	check ${p}new-child-with-new-cookie "$out$(cat "$TMP/err")" \
		DIFFERENT_COOKIE

	# copy-from-parent-to-nested-child
	out=$("$CS" new -- /bin/bash -c \
		"$CS copy -s $$ -- $CS get" 2>"$TMP/err" |
		sed -e 's/^.*\(0x.*$\)/\1/g' \
			-e "s/$parent_cookie/SAME_COOKIE/g" \
			-e "s/0x.*$/DIFFERENT_COOKIE/g")
	check ${p}copy-from-parent-to-nested-child "$out$(cat "$TMP/err")" \
		SAME_COOKIE

	# copy-from-child-to-parent
	"$CS" new -- /bin/bash -c "$CS copy -s \$\$ -d $$"
	out=$("$CS" get 2>"$TMP/err" |
		sed -e 's/^.*\(0x.*$\)/\1/g' \
			-e "s/$parent_cookie/SAME_COOKIE/g" \
			-e "s/0x.*$/DIFFERENT_COOKIE/g")
	check ${p}copy-from-child-to-parent "$out$(cat "$TMP/err")" \
		DIFFERENT_COOKIE
}

if [ "${1:-}" = --cases ]; then
	trap 'rm -rf "$TMP"' EXIT
	util_linux_cases
	exit $((nfail > 0))
fi

if [ ! -x "$CS" ]; then
	fail utilcli_built "$CS not built (make build/coresched)"
	exit 1
fi
info "binary $CS, backend $BACKEND, sched_ext $(scx_state 2>/dev/null)"
case "$BACKEND" in
kernel)
	[ "$(scx_state 2>/dev/null)" = enabled ] &&
		info "warning: a sched_ext scheduler ($(scx_ops)) is loaded"
	;;
ours)
	if ! start_sched; then
		fail utilcli_backend "cannot start $SCHED"
		exit 1
	fi
	info "scx_coresched running"
	;;
*)
	fail utilcli_backend "SCX_BACKEND='$BACKEND': use kernel or ours"
	exit 1
	;;
esac

# The util-linux cases, in a shell of their own.
bash "$0" --cases >"$TMP/cases" 2>&1
cases_rc=$?
cat "$TMP/cases"
ncases_failed=$(grep -c '^FAIL ' "$TMP/cases")
nfail=$((nfail + ncases_failed))
if [ $cases_rc != 0 ] && [ "$ncases_failed" = 0 ]; then
	fail ul_cases "the cases exited $cases_rc without a FAIL line"
fi

# util-linux's behaviour around the cases: messages and exit codes.
p=ul_
nopid=99999
while [ -e /proc/$nopid ]; do nopid=$((nopid + 1)); done

run "$CS" get -s $nopid
check ${p}get-missing-pid "$rc|$(head -n 1 <<<"$err")" \
	"1|coresched: Failed to get cookie from PID $nopid: No such process"

run "$CS" new -d $nopid
check ${p}new-missing-pid "$rc|$(head -n 1 <<<"$err")" \
	"1|coresched: Failed to create cookie for PID $nopid: No such process"

run "$CS" copy -s $nopid -d $$
check ${p}copy-missing-source "$rc|$(head -n 1 <<<"$err")" \
	"1|coresched: Failed to pull cookie from PID $nopid: No such process"

run "$CS" copy -d $nopid
check ${p}copy-missing-dest "$rc|$(head -n 1 <<<"$err")" \
	"1|coresched: Failed to push cookie to PID $nopid: No such process"

run "$CS" get -s 12ab
check ${p}bad-pid "$rc|$err" \
	"1|coresched: Failed to parse PID for -s/--source: '12ab'"

run "$CS" new -t bogus -d $$
check ${p}bad-type "$rc|$err" "1|coresched: 'bogus' is an invalid option. Must be one of pid/tgid/pgid
Try 'coresched --help' for more information."

run "$CS" get -d 1
check ${p}get-dest "$rc|$err" "1|coresched: get does not accept the --dest option
Try 'coresched --help' for more information."

run "$CS" new
check ${p}new-nothing "$rc|$err" "1|coresched: new requires either a -d/--dest or a command
Try 'coresched --help' for more information."

run "$CS" copy -d 1 -- true
check ${p}copy-both "$rc|$err" "1|coresched: copy requires either a -d/--dest or a command
Try 'coresched --help' for more information."

run "$CS" new -s 1 -d 1
check ${p}new-source "$rc|$err" "1|coresched: new does not accept the --source option
Try 'coresched --help' for more information."

run "$CS" get extra
check ${p}get-extra "$rc|$err" "1|coresched: bad usage of the get function
Try 'coresched --help' for more information."

run "$CS" --bogus
[ $rc = 1 ] && [ "$(tail -n 1 <<<"$err")" = "Try 'coresched --help' for more information." ] &&
	pass ${p}unknown-option || fail ${p}unknown-option "exit $rc: $err"

run "$CS" bogus
[ $rc = 1 ] && grep -q "^coresched: Unknown function" <<<"$err" &&
	[ "$(tail -n 1 <<<"$err")" = "Try 'coresched --help' for more information." ] &&
	pass ${p}unknown-function || fail ${p}unknown-function "exit $rc: $err"

run "$CS" new -- no-such-command-xyz
check ${p}exec-not-found "$rc|$err" \
	"127|coresched: failed to execute no-such-command-xyz: No such file or directory"

run "$CS" new -- /etc/passwd
check ${p}exec-not-executable "$rc|$err" \
	"126|coresched: failed to execute /etc/passwd: Permission denied"

run "$CS" new -- sh -c 'exit 7'
check ${p}exec-status "$rc" 7

run "$CS" --help
[ $rc = 0 ] && grep -q '^Usage:' <<<"$out" && grep -q -- '--dest-type' <<<"$out" &&
	[ -z "$err" ] && pass ${p}help || fail ${p}help "exit $rc, stderr '$err'"

run "$CS" -V
[ $rc = 0 ] && [[ $out == "coresched from "* ]] && pass ${p}version ||
	fail ${p}version "exit $rc: $out"

# Default scope tgid: new -d PID changes every thread of the process;
# -t pid only the one thread.
python3 -c 'import threading, time
threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
time.sleep(1000)' &
mt=$!
bg_pids+=($mt)
for i in $(seq 1 50); do
	[ "$(ls /proc/$mt/task 2>/dev/null | wc -l)" -ge 2 ] && break
	sleep 0.1
done
tid=$(ls /proc/$mt/task | grep -vx $mt | head -n 1)
cookie_of() { "$CS" get -s "$1" | sed 's/.* is //'; }
if [ -z "$tid" ]; then
	fail ${p}scope "no second thread in $mt"
else
	"$CS" new -t pid -d "$tid"
	a=$(cookie_of $mt) b=$(cookie_of "$tid")
	if [ "$a" != 0x0 ] || [ "$b" = 0x0 ]; then
		fail ${p}scope-pid "-t pid on thread $tid: main thread $a, thread $b"
	else
		pass ${p}scope-pid
	fi
	"$CS" new -d $mt
	a=$(cookie_of $mt) b=$(cookie_of "$tid")
	if [ "$a" = 0x0 ] || [ "$a" != "$b" ]; then
		fail ${p}scope-tgid-default "new -d $mt: main thread $a, thread $b"
	else
		pass ${p}scope-tgid-default
	fi
fi

[ "$BACKEND" = ours ] && stop_sched
finish
