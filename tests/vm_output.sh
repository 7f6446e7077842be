#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host test of tools/vm's output channels: one guest runs a command that
# writes a binary file and a line to stdout, a line to stderr, and exits 3.
# tools/vm's stdout must be those bytes exactly (no CR added), its stderr
# the stderr line only, and its status 3. Then, with a stand-in qemu that
# dies of SIGSEGV: a crash while the guest boots is retried (3 boots in
# all), a crash while the command runs exits 123 and is not retried; and
# one whose guest panics on an int3 trap: 123 if memory no longer holds
# the int3 (a stale translation), 125 if it does, and a stale one while
# the guest boots is retried like a crash; a boot that hangs before the
# command starts is ended and retried. It boots a guest, so run it
# under the guest lock from the repository root (tests/run --guest-only
# does):  flock /tmp/scx-guest.lock tests/vm_output.sh
set -u
cd "$(dirname "$0")/.."

bin=build/scx_coresched
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -f "$bin" ] || { echo "FAIL vm_output: no $bin; run make"; exit 1; }
# The file must hold what a tty would change, or the test could not fail.
if [ "$(tr -cd '\r' <"$bin" | wc -c)" = 0 ] || [ "$(tr -cd '\n' <"$bin" | wc -c)" = 0 ]; then
	echo "FAIL vm_output: $bin holds no CR or no LF to check"
	exit 1
fi

tools/vm --timeout 300 -- sh -c "cat $bin; echo out; echo err >&2; exit 3" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
{ cat "$bin"; echo out; } >"$tmp/want"

if [ $rc = 3 ]; then
	echo "PASS vm_output_status"
else
	echo "FAIL vm_output_status: tools/vm exited $rc, expected the command's 3"
fi
if cmp -s "$tmp/out" "$tmp/want"; then
	echo "PASS vm_output_stdout_bytes"
else
	echo "FAIL vm_output_stdout_bytes: stdout ($(wc -c <"$tmp/out") bytes) differs from $bin + 'out' ($(wc -c <"$tmp/want") bytes): $(cmp "$tmp/out" "$tmp/want" 2>&1 | head -n 1)"
fi
if printf 'err\n' | cmp -s - "$tmp/err"; then
	echo "PASS vm_output_stderr_separate"
else
	echo "FAIL vm_output_stderr_separate: stderr is '$(head -c 200 "$tmp/err" | od -c | head -n 3)', expected 'err'"
fi
echo "# vm_output: $(wc -c <"$tmp/out") bytes on stdout, $(wc -c <"$tmp/err") on stderr"

# --- qemu crashes: a stand-in qemu-system-x86_64 first on PATH ---------------
# It finds the run directory in its -fsdev arguments and plays a guest:
# FAKE_CRASHES boots die of SIGSEGV before the command starts, after a
# console line without an oops (boots counted in
# $tmp/boots); with FAKE_RUN_CRASH=1 the next one dies after it started;
# otherwise it runs, prints "ran" and exits 0.
mkdir -p "$tmp/bin" "$tmp/kernel"
: >"$tmp/kernel/bzImage"
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF2'
#!/bin/bash
ulimit -c 0
for a in "$@"; do
	case "$a" in
	local,id=run,path=*) run=${a#local,id=run,path=}; run=${run%%,*} ;;
	file:*) con=${a#file:} ;;
	esac
done
n=$(($(cat "$FAKE_DIR/boots" 2>/dev/null || echo 0) + 1))
echo $n >"$FAKE_DIR/boots"
# a crash at boot comes after some console output without an oops, as
# a real one 3 s into a boot did
[ -z "$con" ] || echo "Linux version 6.12 (stand-in)" >"$con"
[ $n -le "$FAKE_CRASHES" ] && kill -SEGV $$
# oops BYTE: the guest panics on an int3 trap; BYTE is the byte memory
# holds where it trapped (cc: a real breakpoint; else a stale one)
oops() {
	cat >"$con" <<EOF3
Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
RIP: 0010:bpf_lsm_task_alloc+0x5/0xc
Code: c3 f3 0f 1e fa $1 <1f> 44 00 00 31 c0 c3
Kernel panic - not syncing: Fatal exception in interrupt
EOF3
	exit 0
}
[ $n -le "${FAKE_BOOT_INT3:-0}" ] && oops 0f
# a hung boot: it never starts the command (TERM ends it, through timeout)
[ $n -le "${FAKE_BOOT_HANG:-0}" ] && exec -a scx-fake-hang sleep 600
: >"$run/started"
[ "${FAKE_RUN_CRASH:-0}" = 1 ] && kill -SEGV $$
[ -z "${FAKE_INT3:-}" ] || oops "$FAKE_INT3"
echo ran
echo 0 >"$run/status"
EOF2
chmod +x "$tmp/bin/qemu-system-x86_64"

# fake_vm CRASHES RUN_CRASH [INT3 [BOOT_INT3 [BOOT_HANG]]]: tools/vm with
# the stand-in; BOOT_INT3 boots oops on a stale int3 before the command
# starts, BOOT_HANG boots hang (tools/vm gives each 2 s to start it).
# Sets rc, boots.
fake_vm() {
	rm -f "$tmp/boots"
	PATH="$tmp/bin:$PATH" FAKE_DIR=$tmp FAKE_CRASHES=$1 FAKE_RUN_CRASH=$2 FAKE_INT3=${3:-} \
		FAKE_BOOT_INT3=${4:-0} FAKE_BOOT_HANG=${5:-0} SCX_VM_START_SECS=2 \
		tools/vm --kernel "$tmp/kernel" --timeout 60 -- true \
		>"$tmp/fout" 2>"$tmp/ferr"
	rc=$?
	boots=$(cat "$tmp/boots" 2>/dev/null)
}

fake_vm 2 0
if [ $rc = 0 ] && [ "$boots" = 3 ] && [ "$(cat "$tmp/fout")" = ran ] &&
	[ "$(grep -c 'booting again' "$tmp/ferr")" = 2 ]; then
	echo "PASS vm_qemu_crash_boot_retried"
else
	echo "FAIL vm_qemu_crash_boot_retried: rc=$rc after $boots boots, stdout '$(head -c 100 "$tmp/fout")', stderr: $(tail -n 2 "$tmp/ferr" | tr '\n' '|')"
fi
fake_vm 3 0
if [ $rc = 125 ] && [ "$boots" = 3 ] && grep -q 'SIGSEGV while the guest booted, 3 times' "$tmp/ferr"; then
	echo "PASS vm_qemu_crash_boot_gives_up"
else
	echo "FAIL vm_qemu_crash_boot_gives_up: rc=$rc after $boots boots (want 125 after 3), stderr: $(tail -n 2 "$tmp/ferr" | tr '\n' '|')"
fi
fake_vm 0 1
if [ $rc = 123 ] && [ "$boots" = 1 ] && grep -q 'SIGSEGV while the command ran' "$tmp/ferr"; then
	echo "PASS vm_qemu_crash_running_123"
else
	echo "FAIL vm_qemu_crash_running_123: rc=$rc after $boots boots (want 123 after 1), stderr: $(tail -n 2 "$tmp/ferr" | tr '\n' '|')"
fi
fake_vm 0 0 0f
if [ $rc = 123 ] && [ "$boots" = 1 ] && grep -q 'int3 its memory no longer holds' "$tmp/ferr" &&
	grep -q '^RIP: 0010:bpf_lsm_task_alloc' "$tmp/ferr"; then
	echo "PASS vm_stale_int3_123"
else
	echo "FAIL vm_stale_int3_123: rc=$rc after $boots boots (want 123 after 1, the oops printed), stderr: $(head -n 3 "$tmp/ferr" | tr '\n' '|')"
fi
fake_vm 0 0 '' 2
if [ $rc = 0 ] && [ "$boots" = 3 ] && [ "$(cat "$tmp/fout")" = ran ] &&
	[ "$(grep -c 'int3 its memory no longer holds while the guest booted.*booting again' "$tmp/ferr")" = 2 ]; then
	echo "PASS vm_stale_int3_boot_retried"
else
	echo "FAIL vm_stale_int3_boot_retried: rc=$rc after $boots boots (want 0 after 3), stdout '$(head -c 100 "$tmp/fout")', stderr: $(head -n 3 "$tmp/ferr" | tr '\n' '|')"
fi
fake_vm 0 0 '' 3
if [ $rc = 125 ] && [ "$boots" = 3 ] && grep -q 'no longer holds while the guest booted, 3 times' "$tmp/ferr"; then
	echo "PASS vm_stale_int3_boot_gives_up"
else
	echo "FAIL vm_stale_int3_boot_gives_up: rc=$rc after $boots boots (want 125 after 3), stderr: $(tail -n 2 "$tmp/ferr" | tr '\n' '|')"
fi
fake_vm 0 0 cc
if [ $rc = 125 ] && grep -q '^Oops: int3' "$tmp/ferr"; then
	echo "PASS vm_real_int3_125"
else
	echo "FAIL vm_real_int3_125: rc=$rc (want 125, the oops printed), stderr: $(head -n 3 "$tmp/ferr" | tr '\n' '|')"
fi
fake_vm 0 0 '' 0 2
if [ $rc = 0 ] && [ "$boots" = 3 ] && [ "$(cat "$tmp/fout")" = ran ] &&
	[ "$(grep -c 'did not start the command in 2s (a hung boot).*booting again' "$tmp/ferr")" = 2 ]; then
	echo "PASS vm_hung_boot_retried"
else
	echo "FAIL vm_hung_boot_retried: rc=$rc after $boots boots (want 0 after 3), stdout '$(head -c 100 "$tmp/fout")', stderr: $(head -n 3 "$tmp/ferr" | tr '\n' '|')"
fi
fake_vm 0 0 '' 0 3
if [ $rc = 125 ] && [ "$boots" = 3 ] && grep -q 'a hung boot) while the guest booted, 3 times' "$tmp/ferr" &&
	! pgrep -f scx-fake-hang >/dev/null; then
	echo "PASS vm_hung_boot_gives_up"
else
	echo "FAIL vm_hung_boot_gives_up: rc=$rc after $boots boots (want 125 after 3, no stand-in left running), stderr: $(tail -n 2 "$tmp/ferr" | tr '\n' '|')"
fi
