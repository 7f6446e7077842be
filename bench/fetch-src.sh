#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/fetch-src.sh: print the path of Debian's zlib source tarball, which
# the benchmark's parallel-build workload compiles; downloaded once from
# the Debian archive into the cache next to the test kernel's.
set -eu
cd "$(dirname "$0")/.."

ZLIB_URL=http://deb.debian.org/debian/pool/main/z/zlib/zlib_1.2.13.dfsg.orig.tar.bz2
ZLIB_SHA256=71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1

dir=$(dirname "$(dirname "$(kernel/build.sh --dir)")")/bench
f=$dir/$(basename "$ZLIB_URL")
if ! echo "$ZLIB_SHA256  $f" | sha256sum -c --status 2>/dev/null; then
	mkdir -p "$dir"
	curl -sSfL -o "$f.tmp" "$ZLIB_URL" || {
		echo "bench/fetch-src.sh: cannot download $ZLIB_URL into $dir (the parallel-build workload needs it)" >&2
		exit 1
	}
	echo "$ZLIB_SHA256  $f.tmp" | sha256sum -c --status || {
		rm -f "$f.tmp"
		echo "bench/fetch-src.sh: $ZLIB_URL: checksum mismatch, want $ZLIB_SHA256" >&2
		exit 1
	}
	mv "$f.tmp" "$f"
fi
echo "$f"
