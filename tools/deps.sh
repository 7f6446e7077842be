#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian 12 packages scx_coresched needs. libbpf-dev 1.4 and
# bpftool 7.5 come from bookworm-backports: Debian 12's libbpf 1.1 cannot
# load sleepable struct_ops programs or .struct_ops.link maps, and its
# bpftool cannot generate skeletons for them.
#   tools/deps.sh          install what is missing (root)
#   tools/deps.sh --check  exit 0 if everything is installed
set -euo pipefail

pkgs=(linux-source-6.12 qemu-system-x86 busybox-static flex bison bc
	libelf-dev zlib1g-dev libssl-dev pahole clang-19 llvm-19 lld-19 cpio
	make gcc xz-utils sysbench stress-ng rt-tests dpkg-dev pkg-config lintian
	mariadb-server linux-perf curl) # bench: the database, perf bench, zlib source
bpo_pkgs=(libbpf-dev bpftool)
bpo_min_libbpf=1:1.4

missing=()
for p in "${pkgs[@]}" "${bpo_pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
libbpf_ver=$(dpkg-query -W -f='${Version}' libbpf-dev 2>/dev/null || true)
if [ -n "$libbpf_ver" ] && dpkg --compare-versions "$libbpf_ver" lt "$bpo_min_libbpf"; then
	missing+=("libbpf-dev(>=1.4)")
fi

if [ "${1:-}" = "--check" ]; then
	[ ${#missing[@]} = 0 ] && exit 0
	echo "missing packages: ${missing[*]}" >&2
	exit 1
fi
if [ ${#missing[@]} = 0 ]; then
	echo "deps: all packages installed"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: ${missing[*]}" >&2
	echo "deps: run as root: sudo make deps" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
bpo=/etc/apt/sources.list.d/scx-coresched-backports.list
if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "deps: enabling bookworm-backports for libbpf-dev 1.4 and bpftool 7.5"
	echo "deb http://deb.debian.org/debian bookworm-backports main" >"$bpo"
fi
echo "deps: installing ${missing[*]}"
apt-get update -q
apt-get install -y -q --no-install-recommends "${pkgs[@]}"
apt-get install -y -q --no-install-recommends -t bookworm-backports "${bpo_pkgs[@]}"
echo "deps: done"
