#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the scx_coresched test kernel from Debian's linux-source-6.12 and
# cache it outside the clone, keyed by its inputs (source package version,
# config fragment, build recipe), so fresh clones on this machine reuse it.
#
#   kernel/build.sh [--variant V]        build if not cached, print the
#                                        cache directory
#   kernel/build.sh [--variant V] --dir  print the cache directory only
#
# A variant V merges kernel/V.fragment after config.fragment: 'nocore' is
# the same kernel without CONFIG_SCHED_CORE, for the tests of kernels that
# lack the kernel's own core scheduling (as Debian's own 6.12 kernels do).
#
# The cache lives in $SCX_CACHE_DIR (default: /var/cache/scx_coresched, or
# ~/.cache/scx_coresched for non-root users). A kernel directory holds
# bzImage, vmlinux (for BTF) and config.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fragment="$here/config.fragment"
variant=
dir_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--variant)
		variant=${2:?--variant needs a name}
		case "$variant" in
		*[!a-z0-9_-]* | "") echo "kernel/build.sh: bad variant name '$variant'" >&2; exit 2 ;;
		esac
		shift 2
		;;
	--dir) dir_only=1; shift ;;
	*) echo "kernel/build.sh: unknown argument '$1' (use [--variant NAME] [--dir])" >&2; exit 2 ;;
	esac
done
tarball=/usr/src/linux-source-6.12.tar.xz

if [ -z "${SCX_CACHE_DIR:-}" ]; then
	if [ "$(id -u)" = 0 ]; then
		SCX_CACHE_DIR=/var/cache/scx_coresched
	else
		SCX_CACHE_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/scx_coresched
	fi
fi

die() {
	echo "kernel/build.sh: $*" >&2
	exit 1
}

fragments=("$fragment")
if [ -n "$variant" ]; then
	[ -f "$here/$variant.fragment" ] ||
		die "no variant '$variant' (kernel/$variant.fragment does not exist)"
	fragments+=("$here/$variant.fragment")
fi

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	die "linux-source-6.12 is not installed; run 'make deps' first"
[ -f "$tarball" ] || die "$tarball is missing; run 'make deps' (reinstall linux-source-6.12)"

# Bump recipe when a change to this script changes the kernel it produces.
recipe=1
# The default kernel's key covers config.fragment only (unchanged by the
# variants); a variant's key also covers its name and fragment.
key=$( (echo "$srcver recipe $recipe"; cat "$fragment"
	[ -z "$variant" ] || { echo "variant $variant"; cat "${fragments[1]}"; }) |
	sha256sum | cut -c1-16)
out="$SCX_CACHE_DIR/kernel/6.12-$key${variant:+-$variant}"

if [ $dir_only = 1 ]; then
	echo "$out"
	exit 0
fi

# If the kernel is in the cache: print its directory and stop.
exit_if_cached() {
	if [ -f "$out/bzImage" ] && [ -f "$out/vmlinux" ]; then
		echo "$out"
		exit 0
	fi
}
exit_if_cached

mkdir -p "$SCX_CACHE_DIR/kernel"
# One build of a key at a time (two make test runs, or a build.sh started
# by hand beside one): the second waits for the first, then finds its
# kernel in the cache, instead of removing the first one's tree.
exec 9>"$SCX_CACHE_DIR/kernel/build-$key.lock"
if ! flock -n 9; then
	echo "kernel: another build of this kernel ($key) is running; waiting for it" >&2
	flock 9
fi
exit_if_cached
work="$SCX_CACHE_DIR/kernel/build-$key"
rm -rf "$work"
mkdir -p "$work"
log="$work/build.log"
jobs=$(($(nproc) + 1))

echo "kernel: building Linux $srcver (cache key $key) in $work" >&2
echo "kernel: this takes 6 to 15 minutes on 2 cores; log: $log" >&2
tar -C "$work" -xf "$tarball"
src="$work/linux-source-6.12"

(
	cd "$src"
	make tinyconfig
	# merge_config.sh merges the fragments and runs olddefconfig.
	./scripts/kconfig/merge_config.sh -m .config \
		kernel/configs/kvm_guest.config "${fragments[@]}"
	make olddefconfig
) >"$log" 2>&1 || die "configuration failed, see $log"

# Every line of the fragments must have survived the dependency solver,
# otherwise the kernel silently lacks something the tests rely on. A later
# fragment's line overrides an earlier one's.
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=* | "# CONFIG_"*" is not set")
		name=${line#\# }
		name=${name%%[= ]*}
		want=$(grep -hE "^(# )?$name[= ]" "${fragments[@]}" | tail -n 1)
		grep -qxF "$want" "$src/.config" || {
			case "$want" in
			"# "*) ! grep -q "^$name=" "$src/.config" && continue ;;
			esac
			echo "kernel: fragment line not in final config: $want" >&2
			missing=1
		}
		;;
	esac
done < <(cat "${fragments[@]}")
[ $missing = 0 ] || die "config fragment not satisfied, see $src/.config"

start=$(date +%s)
(cd "$src" && make -j"$jobs" bzImage vmlinux) >>"$log" 2>&1 &
pid=$!
# About 1530 objects for this config; print progress every 20 s.
expect=1530
while kill -0 $pid 2>/dev/null; do
	sleep 20
	n=$(find "$src" -name '*.o' 2>/dev/null | wc -l)
	pct=$((n * 100 / expect))
	[ $pct -gt 99 ] && pct=99
	echo "kernel: $((($(date +%s) - start)))s, $n objects (~$pct%)" >&2
done
wait $pid || {
	tail -n 30 "$log" >&2
	die "kernel build failed, see $log"
}

mkdir -p "$out.tmp"
cp "$src/arch/x86/boot/bzImage" "$src/vmlinux" "$out.tmp/"
cp "$src/.config" "$out.tmp/config"
rm -rf "$out"
mv "$out.tmp" "$out"
rm -rf "$work"
echo "kernel: built in $(($(date +%s) - start))s: $out" >&2
echo "$out"
