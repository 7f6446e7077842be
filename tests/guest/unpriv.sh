#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest tests of unprivileged cgroup tagging through scx_coresched's
# control socket (src/cs_ctlsock.c): a user may tag the cgroups delegated
# to them (directory and cgroup.procs theirs) and nothing else; refusals
# change nothing and say why; hostile clients do not hurt the loader.
# Run as root in a tools/vm guest from the repository root, e.g.
#   tools/vm -- tests/guest/unpriv.sh
# One line per test, "PASS NAME" or "FAIL NAME: WHY"; '#' lines are
# information. Exits 1 if a test failed.
. "$(dirname "$0")/lib.sh"

RAW=$ROOT/build/ctl_raw
SOCK=/run/scx_coresched/ctl.sock
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
LINK=/tmp/t_unpriv_link

# own_cookie CGROUP: the cookie of CGROUP's own tag as root sees it, or
# "none" if it has no tag of its own.
own_cookie() {
	local line
	line=$("$CTL" cgroup get "$1" 2>&1)
	case "$line" in
	*"(inherited"* | *" is 0x0") echo none ;;
	"cookie of cgroup $1 is "*) echo "${line##* is }" ;;
	*) echo "error: $line" ;;
	esac
}

cgroup_cookie() {
	printf '0x%x' $(((1 << 63) | $(stat -c %i "$1")))
}

# delegate CGROUP: chown it to nobody as systemd's Delegate=yes does.
delegate() {
	chown 65534:65534 "$1" "$1/cgroup.procs" "$1/cgroup.subtree_control" \
		"$1/cgroup.threads"
}

# loader_alive NAME: the loader runs and scx_coresched is still enabled.
loader_alive() {
	if kill -0 "$SCHED_PID" 2>/dev/null && [ "$(scx_state)" = enabled ] &&
		[ "$(scx_ops)" = coresched ]; then
		pass "$1"
	else
		fail "$1" "loader gone or scheduler off (sched_ext $(scx_state)): $(tail -n 3 "$TMP/sched.err" | tr '\n' '|')"
	fi
}

# wait_for CMD...: up to 5 s for CMD to succeed (the loader starts serving
# the socket right after the scheduler is enabled).
wait_for() {
	local i
	for i in $(seq 1 50); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

for bin in "$SCHED" "$CTL" "$RAW"; do
	if [ ! -x "$bin" ]; then
		fail unpriv_built "$bin not built (make)"
		exit 1
	fi
done
trap 'rm -f "$LINK"; cleanup' EXIT

# --- No scheduler: a clear message ----------------------------------------------

del=$(tenant t_unpriv_del)
delegate "$del"
expect_fail unpriv_not_running "scx_coresched is not running" \
	"${NOBODY[@]}" "$CTL" cgroup tag "$del"

if ! start_sched -v; then
	fail unpriv_scheduler_start "$SCHED did not start"
	finish
fi
pass unpriv_scheduler_start

# --- The socket --------------------------------------------------------------------

wait_for test -S "$SOCK"
modes="$(stat -c '%U %a %F' /run/scx_coresched) / $(stat -c '%U %a %F' "$SOCK" 2>&1)"
[ "$modes" = "root 755 directory / root 666 socket" ] && pass unpriv_socket_modes ||
	fail unpriv_socket_modes "dir / socket: $modes"

# --- Delegated cgroups may be tagged ------------------------------------------

want=$(cgroup_cookie "$del")
run "${NOBODY[@]}" "$CTL" -v cgroup tag "$del"
got=$(own_cookie "$del")
[ $rc = 0 ] && [ "$got" = "$want" ] && pass unpriv_tag_delegated ||
	fail unpriv_tag_delegated "exit $rc ($err), map has '$got', want $want"

run "${NOBODY[@]}" "$CTL" cgroup untag "$del"
got=$(own_cookie "$del")
[ $rc = 0 ] && [ "$got" = none ] && pass unpriv_untag_delegated ||
	fail unpriv_untag_delegated "exit $rc ($err), map has '$got'"

# A cgroup the user makes inside the delegated one is theirs too.
run "${NOBODY[@]}" sh -c "mkdir '$del/child' && '$CTL' cgroup tag '$del/child' && '$CTL' cgroup tag '$del'"
child_want=$(cgroup_cookie "$del/child")
[ $rc = 0 ] && [ "$(own_cookie "$del/child")" = "$child_want" ] &&
	[ "$(own_cookie "$del")" = "$want" ] && pass unpriv_tag_own_child ||
	fail unpriv_tag_own_child "exit $rc: $err; child '$(own_cookie "$del/child")'"

run "${NOBODY[@]}" "$CTL" cgroup share "$del" "$del/child"
[ $rc = 0 ] && [ "$(own_cookie "$del/child")" = "$want" ] && pass unpriv_share_delegated ||
	fail unpriv_share_delegated "exit $rc: $err; child has '$(own_cookie "$del/child")'"

# --- Anything else is refused and unchanged -----------------------------------

rootcg=$(tenant t_unpriv_root)
expect_fail unpriv_tag_root_owned \
	"permission denied: cgroup $rootcg is not delegated to you \(owner uid 0, you are uid 65534\).*nothing was changed" \
	"${NOBODY[@]}" "$CTL" cgroup tag "$rootcg"
got=$(own_cookie "$rootcg")
[ "$got" = none ] && pass unpriv_tag_root_owned_unchanged ||
	fail unpriv_tag_root_owned_unchanged "map has '$got' for $rootcg"

"$CTL" cgroup tag "$rootcg"
rootwant=$(cgroup_cookie "$rootcg")
expect_fail unpriv_untag_root_owned "not delegated to you \(owner uid 0" \
	"${NOBODY[@]}" "$CTL" cgroup untag "$rootcg"
expect_fail unpriv_share_from_other "$rootcg is not delegated to you" \
	"${NOBODY[@]}" "$CTL" cgroup share "$rootcg" "$del"
expect_fail unpriv_share_to_other "$rootcg is not delegated to you" \
	"${NOBODY[@]}" "$CTL" cgroup share "$del" "$rootcg"
got="$(own_cookie "$rootcg") $(own_cookie "$del")"
[ "$got" = "$rootwant $want" ] && pass unpriv_refused_unchanged ||
	fail unpriv_refused_unchanged "root's / delegated cookies '$got', want '$rootwant $want'"

half=$(tenant t_unpriv_half)
chown 65534:65534 "$half"
expect_fail unpriv_tag_procs_not_owned \
	"not delegated to you: you own the directory, but its cgroup.procs belongs to uid 0" \
	"${NOBODY[@]}" "$CTL" cgroup tag "$half"
got=$(own_cookie "$half")
[ "$got" = none ] && pass unpriv_tag_procs_not_owned_unchanged ||
	fail unpriv_tag_procs_not_owned_unchanged "map has '$got' for $half"

ln -sfn "$del/child" "$LINK"
expect_fail unpriv_tag_symlink "refused: $LINK is not under /sys/fs/cgroup \(symbolic links are not followed\)" \
	"${NOBODY[@]}" "$CTL" cgroup tag "$LINK"
expect_fail unpriv_tag_dotdot "refused: cgroup path $del/child/\.\./\.\./t_unpriv_half contains '\.\.'" \
	"${NOBODY[@]}" "$CTL" cgroup tag "$del/child/../../t_unpriv_half"
run "${NOBODY[@]}" "$RAW" "tag /sys/fs/cgroup/t_unpriv_del/../../../tmp"
[[ $out == "err 13 refused: "*"contains '..'"* ]] && pass unpriv_raw_dotdot ||
	fail unpriv_raw_dotdot "reply: $out $err"
run "${NOBODY[@]}" "$RAW" "tag /sys/fs/cgroup%2ft_unpriv_root"
[[ $out == "err 13 permission denied: cgroup /sys/fs/cgroup/t_unpriv_root is not delegated"* ]] &&
	pass unpriv_raw_encoded || fail unpriv_raw_encoded "reply: $out $err"
got="$(own_cookie "$rootcg") $(own_cookie "$half") $(own_cookie "$del/child")"
[ "$got" = "$rootwant none $want" ] && pass unpriv_paths_unchanged ||
	fail unpriv_paths_unchanged "cookies '$got', want '$rootwant none $want'"

# --- Reading needs no root --------------------------------------------------------

run "${NOBODY[@]}" "$CTL" get
[ $rc = 0 ] && [[ $out == "cookie of PID "*" is 0x0" ]] && pass unpriv_get_task ||
	fail unpriv_get_task "exit $rc: $out $err"
run "${NOBODY[@]}" "$CTL" cgroup get "$rootcg"
[ $rc = 0 ] && [ "$out" = "cookie of cgroup $rootcg is $rootwant" ] && pass unpriv_get_cgroup ||
	fail unpriv_get_cgroup "exit $rc: $out $err"
run "${NOBODY[@]}" "$CTL" list
if [ $rc = 0 ] && grep -q "^  cgroup $rootcg$" <<<"$out" &&
	grep -q "^  cgroup $del$" <<<"$out"; then
	pass unpriv_list
else
	fail unpriv_list "exit $rc: $(tr '\n' '|' <<<"$out") $err"
fi

# --- Hostile clients ----------------------------------------------------------------

run "${NOBODY[@]}" "$RAW" "hello world"
[[ $out == "err 22 unknown request"* ]] && pass unpriv_garbage ||
	fail unpriv_garbage "reply: $out $err"
run "${NOBODY[@]}" "$RAW" $'tag \x01\x7f\xff'
[[ $out == "err 22 "*"printable"* ]] && pass unpriv_binary ||
	fail unpriv_binary "reply: $out $err"
run "${NOBODY[@]}" "$RAW" --bytes 1000000
[[ $out == "err 7 request longer than the limit of 4096 bytes"* ]] && pass unpriv_huge_line ||
	fail unpriv_huge_line "reply: $out $err"
run "${NOBODY[@]}" "$RAW" --silent
ms=$(sed -n 's/^EOF (\([0-9]*\) ms)$/\1/p' <<<"$out")
[ -n "$ms" ] && [ "$ms" -ge 1500 ] && [ "$ms" -le 4500 ] && pass unpriv_silent_timeout ||
	fail unpriv_silent_timeout "reply: $out $err (want EOF after about 2000 ms)"

# A flood of idle connections from one user: others are still served.
for i in $(seq 1 12); do
	"${NOBODY[@]}" "$RAW" --silent >"$TMP/flood.$i" 2>&1 &
	bg_pids+=($!)
done
sleep 0.5
run "$RAW" ping
wait "${bg_pids[@]}" 2>/dev/null
bg_pids=()
ms=$(sed -n 's/^ok 0 (\([0-9]*\) ms)$/\1/p' <<<"$out")
refused=$(cat "$TMP"/flood.* | grep -c "too many connections")
[ -n "$ms" ] && [ "$ms" -lt 1000 ] && [ "$refused" -ge 1 ] && pass unpriv_flood ||
	fail unpriv_flood "root's ping: '$out'; $refused of nobody's 12 idle connections refused"

loader_alive unpriv_loader_alive
run "${NOBODY[@]}" "$CTL" cgroup untag "$del"
[ $rc = 0 ] && pass unpriv_still_serving || fail unpriv_still_serving "exit $rc: $err"

# --- Stopped: the socket goes, and the message is clear ----------------------

"$CTL" cgroup untag "$rootcg"
stop_sched || fail unpriv_scheduler_stop "sched_ext not disabled after SIGINT"
[ ! -e "$SOCK" ] && pass unpriv_socket_removed || fail unpriv_socket_removed "$SOCK still exists"
expect_fail unpriv_after_stop "scx_coresched is not running" \
	"${NOBODY[@]}" "$CTL" cgroup tag "$del"

# --- A socket path planted by someone else is not replaced -----------------
# (It can only be planted by root here: the directory is root's 0755.)

mkdir -p /run/scx_coresched
touch "$SOCK"
chown 65534 "$SOCK"
if start_sched; then
	if wait_for grep -q "refusing to replace it" "$TMP/sched.err" &&
		[ "$(stat -c '%U %F' "$SOCK")" = "nobody regular empty file" ]; then
		pass unpriv_planted_socket
	else
		fail unpriv_planted_socket "$(stat -c '%U %F' "$SOCK"): $(tr '\n' '|' <"$TMP/sched.err")"
	fi
	expect_fail unpriv_planted_socket_message "serves no control socket" \
		"${NOBODY[@]}" "$CTL" cgroup tag "$del"
	loader_alive unpriv_planted_socket_isolates
	stop_sched || fail unpriv_scheduler_stop "sched_ext not disabled after SIGINT"
else
	fail unpriv_planted_socket "the scheduler did not start beside a planted $SOCK"
fi
rm -f "$SOCK"

if [ $nfail != 0 ]; then
	info "last lines of the scheduler's stderr:"
	tail -n 20 "$TMP/sched.err" | sed 's/^/# /'
fi
finish
