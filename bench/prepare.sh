#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/prepare.sh: on the host, prepare what the benchmark guest copies to
# its tmpfs, so that the slow TCG guest does not build it at each boot:
#   build/bench/zlib  Debian's zlib source (downloaded once from the Debian
#                     archive into the cache next to the test kernel's),
#                     configured with bench/cc-count as the compiler and
#                     -O0 (at zlib's -O3 a compile outlasts a quick run in
#                     the TCG guest)
#   build/bench/db    a MariaDB data directory (mariadb-install-db), and
#                     build/bench/db.tar.gz of it, which the guest unpacks
#                     (34 MB, mostly zeros, took 25 s to copy over 9p)
set -eu
cd "$(dirname "$0")/.."

ZLIB_URL=http://deb.debian.org/debian/pool/main/z/zlib/zlib_1.2.13.dfsg.orig.tar.bz2
ZLIB_SHA256=71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1
out=build/bench

die() {
	echo "bench/prepare.sh: $*" >&2
	exit 1
}

dir=$(dirname "$(dirname "$(kernel/build.sh --dir)")")/bench
tar=$dir/$(basename "$ZLIB_URL")
if ! echo "$ZLIB_SHA256  $tar" | sha256sum -c --status 2>/dev/null; then
	mkdir -p "$dir"
	curl -sSfL -o "$tar.tmp" "$ZLIB_URL" ||
		die "cannot download $ZLIB_URL into $dir (the parallel-build workload needs it)"
	echo "$ZLIB_SHA256  $tar.tmp" | sha256sum -c --status || {
		rm -f "$tar.tmp"
		die "$ZLIB_URL: checksum mismatch, want $ZLIB_SHA256"
	}
	mv "$tar.tmp" "$tar"
fi

mkdir -p "$out"
stamp="cflags=-O0 cc=$(pwd -P)/bench/cc-count"
if [ "$(cat "$out/zlib/.bench-stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$out/zlib"
	mkdir -p "$out/zlib"
	tar -xjf "$tar" -C "$out/zlib" --strip-components=1
	cc=$(pwd -P)/bench/cc-count
	(cd "$out/zlib" && CC=$cc CFLAGS=-O0 ./configure --static >/dev/null) ||
		die "zlib's configure failed in $out/zlib"
	echo "$stamp" >"$out/zlib/.bench-stamp"
fi

# The redo log at the size the guests' mysqld runs with (16M, bench/
# workloads.sh): the default 96M was copied into the guest twice per boot
# and rewritten at each start.
if [ ! -d "$out/db/mysql" ] ||
	[ "$(stat -c %s "$out/db/ib_logfile0" 2>/dev/null)" != 16777216 ]; then
	command -v mariadb-install-db >/dev/null ||
		die "mariadb-install-db not found: run 'make deps' (mariadb-server)"
	rm -rf "$out/db"
	mariadb-install-db --no-defaults --datadir="$PWD/$out/db" --user="$(id -un)" \
		--auth-root-authentication-method=normal --skip-test-db \
		--innodb-log-file-size=16M \
		>"$out/db-install.log" 2>&1 ||
		die "mariadb-install-db failed: see $out/db-install.log"
	rm -f "$out/db.tar.gz"
fi
if [ ! -f "$out/db.tar.gz" ]; then
	tar -czf "$out/db.tar.gz.tmp" -C "$out/db" . &&
		mv "$out/db.tar.gz.tmp" "$out/db.tar.gz" ||
		die "cannot pack $out/db into $out/db.tar.gz"
fi
