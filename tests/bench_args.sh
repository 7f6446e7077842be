#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host test of the benchmark scripts' argument checks, made before they
# build or boot anything:
#   bench_out_outside   bench/run (and bench/throughput, through it) and
#                       bench/profile refuse an --out outside the
#                       repository, which tools/vm shares with the guest:
#                       exit 2, name the directory, create nothing (a
#                       report written there stayed in the guest while the
#                       script said where to find it)
#   bench_threads       bench/run --threads 1 is refused: no SMT
set -u
cd "$(dirname "$0")/.." || exit

nfail=0
pass() { echo "PASS $1"; }
fail() {
	echo "FAIL $1: $2"
	nfail=$((nfail + 1))
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for cmd in bench/run bench/throughput bench/profile; do
	name=bench_out_outside_${cmd#bench/}
	err=$("$cmd" --out "$tmp/out" 2>&1 >/dev/null)
	rc=$?
	if [ $rc != 2 ]; then
		fail $name "$cmd --out $tmp/out exited $rc, not 2: $err"
	elif ! grep -q "'$tmp/out' is outside" <<<"$err"; then
		fail $name "no message naming $tmp/out: $err"
	elif [ -e "$tmp/out" ]; then
		fail $name "$tmp/out was created"
	else
		pass $name
	fi
done

err=$(bench/run --threads 1 2>&1 >/dev/null)
rc=$?
if [ $rc = 2 ] && grep -q "needs SMT" <<<"$err"; then
	pass bench_threads
else
	fail bench_threads "bench/run --threads 1 exited $rc: $err"
fi
[ $nfail = 0 ]
