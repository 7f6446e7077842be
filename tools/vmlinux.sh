#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Write the vmlinux.h the BPF programs are compiled against. The programs
# are CO-RE (libbpf relocates every field access and resolves every kfunc
# against the running kernel's BTF at load time), so one header serves
# every kernel from 6.12 on; it only has to declare sched_ext's types.
#
#   tools/vmlinux.sh SOURCE OUT    write OUT from SOURCE:
#     auto    the running kernel's BTF if it has sched_ext, else repo
#     btf     the running kernel's BTF (/sys/kernel/btf/vmlinux)
#     repo    the header the repository carries for this architecture
#             (include/vmlinux/ARCH/vmlinux.h.xz)
#     kernel  the test kernel's BTF (builds the test kernel if needed)
#   tools/vmlinux.sh --update      regenerate the repository's header from
#                                  the test kernel (make vmlinux-h)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
btf=/sys/kernel/btf/vmlinux
arch=$(uname -m)
repo_h="$here/include/vmlinux/$arch/vmlinux.h.xz"
bpftool=${BPFTOOL:-$(command -v bpftool || echo /usr/sbin/bpftool)}

die() {
	echo "tools/vmlinux.sh: $*" >&2
	exit 1
}

need_bpftool() {
	[ -x "$bpftool" ] || die "bpftool not found; run 'make deps' (Debian) or install your distribution's bpftool"
}

# has_sched_ext FILE: FILE's BTF declares struct sched_ext_ops.
has_sched_ext() {
	local n

	n=$("$bpftool" btf dump file "$1" format raw 2>/dev/null |
		grep -c "^\[[0-9]*\] STRUCT 'sched_ext_ops' ") || true
	[ "${n:-0}" -gt 0 ]
}

from_kernel() {
	local kdir

	"$here/tools/deps.sh" --check >/dev/null 2>&1 || "$here/tools/deps.sh"
	"$here/kernel/build.sh" >/dev/null
	kdir=$("$here/kernel/build.sh" --dir)
	"$bpftool" btf dump file "$kdir/vmlinux" format c >"$1"
}

if [ "${1:-}" = "--update" ]; then
	need_bpftool
	[ "$arch" = x86_64 ] || die "the test kernel is x86_64; run --update on x86_64"
	tmp=$(mktemp)
	trap 'rm -f "$tmp"' EXIT
	from_kernel "$tmp"
	mkdir -p "$(dirname "$repo_h")"
	xz -9 -T1 -c "$tmp" >"$repo_h.tmp"
	mv "$repo_h.tmp" "$repo_h"
	echo "vmlinux.h: ${repo_h#"$here"/} updated from the test kernel ($(wc -c <"$repo_h") bytes)"
	exit 0
fi

[ $# = 2 ] || die "usage: tools/vmlinux.sh auto|btf|repo|kernel OUT, or --update"
source=$1
out=$2
need_bpftool
if [ "$source" = auto ]; then
	source=repo
	[ -r "$btf" ] && has_sched_ext "$btf" && source=btf
fi

tmp="$out.tmp"
case "$source" in
btf)
	[ -r "$btf" ] || die "$btf is missing: this kernel has no BTF; build with VMLINUX_SOURCE=repo"
	has_sched_ext "$btf" ||
		die "$btf has no struct sched_ext_ops: this kernel lacks sched_ext; build with VMLINUX_SOURCE=repo"
	"$bpftool" btf dump file "$btf" format c >"$tmp"
	what="the running kernel's BTF ($btf)"
	;;
repo)
	[ -f "$repo_h" ] ||
		die "the repository has no vmlinux.h for $arch (${repo_h#"$here"/}); build on a kernel with sched_ext (VMLINUX_SOURCE=btf)"
	xz -dc "$repo_h" >"$tmp"
	what="the repository's ${repo_h#"$here"/} (Linux 6.12)"
	;;
kernel)
	from_kernel "$tmp"
	what="the test kernel's BTF"
	;;
*)
	die "VMLINUX_SOURCE '$source': use auto, btf, repo or kernel"
	;;
esac
mv "$tmp" "$out"
echo "vmlinux.h: from $what" >&2
