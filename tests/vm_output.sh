#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host test of tools/vm's output channels: one guest runs a command that
# writes a binary file and a line to stdout, a line to stderr, and exits 3.
# tools/vm's stdout must be those bytes exactly (no CR added), its stderr
# the stderr line only, and its status 3. It boots a guest, so run it
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
