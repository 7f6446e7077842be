#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host test of tools/vm's output channels: one guest runs a command that
# writes a binary file and a line to stdout, a line to stderr, and exits 3.
# tools/vm's stdout must be those bytes exactly (no CR added), its stderr
# the stderr line only, and its status 3. Then, with a stand-in qemu that
# dies of SIGSEGV: a crash while the guest boots is retried (3 boots in
# all), a crash while the command runs exits 123 and is not retried. It boots a guest, so run it
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
# FAKE_CRASHES boots die of SIGSEGV before the command starts (counted in
# $tmp/boots); with FAKE_RUN_CRASH=1 the next one dies after it started;
# otherwise it runs, prints "ran" and exits 0.
mkdir -p "$tmp/bin" "$tmp/kernel"
: >"$tmp/kernel/bzImage"
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF2'
#!/bin/bash
ulimit -c 0
for a in "$@"; do
	case "$a" in local,id=run,path=*) run=${a#local,id=run,path=}; run=${run%%,*} ;; esac
done
n=$(($(cat "$FAKE_DIR/boots" 2>/dev/null || echo 0) + 1))
echo $n >"$FAKE_DIR/boots"
[ $n -le "$FAKE_CRASHES" ] && kill -SEGV $$
: >"$run/started"
[ "${FAKE_RUN_CRASH:-0}" = 1 ] && kill -SEGV $$
echo ran
echo 0 >"$run/status"
EOF2
chmod +x "$tmp/bin/qemu-system-x86_64"

# fake_vm CRASHES RUN_CRASH: tools/vm with the stand-in; sets rc, boots.
fake_vm() {
	rm -f "$tmp/boots"
	PATH="$tmp/bin:$PATH" FAKE_DIR=$tmp FAKE_CRASHES=$1 FAKE_RUN_CRASH=$2 \
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
