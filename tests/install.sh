#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of installing (no guest): make install into a DESTDIR, the
# installed programs and library, the systemd unit, make deb, and a build
# from the repository's vmlinux.h with no test kernel. Run from the top of
# the tree after 'make' (tests/run does). One line per test, "PASS name" or
# "FAIL name: why"; '# ' lines are information (a test that cannot run here
# says so on such a line).
set -u
cd "$(dirname "$0")/.." || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nfail=0
pass() { echo "PASS $1"; }
fail() {
	echo "FAIL $1: $2"
	nfail=$((nfail + 1))
}
info() { echo "# $*"; }

# tree DIR: every file and symbolic link under DIR, relative, sorted.
tree() { (cd "$1" && find . ! -type d -printf '%P\n' | LC_ALL=C sort); }

# What make install puts under DESTDIR with the default PREFIX.
expected_install() {
	LC_ALL=C sort <<'EOF'
etc/default/scx_coresched
usr/local/bin/coresched
usr/local/bin/coreschedctl
usr/local/include/libcoresched.h
usr/local/lib/libcoresched.a
usr/local/lib/libcoresched.so
usr/local/lib/libcoresched.so.1
usr/local/lib/libcoresched.so.1.0.0
usr/local/lib/pkgconfig/libcoresched.pc
usr/local/lib/systemd/system/scx_coresched.service
usr/local/sbin/coresched-observe
usr/local/sbin/scx_coresched
usr/local/share/bash-completion/completions/coresched
usr/local/share/bash-completion/completions/coreschedctl
usr/local/share/doc/scx-coresched/README.md
usr/local/share/doc/scx-coresched/copyright
usr/local/share/man/man8/coresched-observe.8.gz
usr/local/share/man/man8/coresched.8.gz
usr/local/share/man/man8/coreschedctl.8.gz
usr/local/share/man/man8/scx_coresched.8.gz
EOF
}

dest=$tmp/dest
usr=$dest/usr/local
if ! make -s install DESTDIR="$dest" >"$tmp/install.log" 2>&1; then
	fail install_file_list "make install failed: $(tail -n 3 "$tmp/install.log")"
elif ! diff <(expected_install) <(tree "$dest") >"$tmp/diff"; then
	fail install_file_list "unexpected tree (< expected, > installed): $(tr '\n' ' ' <"$tmp/diff")"
else
	pass install_file_list
fi

# The installed programs run from the DESTDIR; every name answers --help
# (scx_coresched and coresched-observe have no -V).
bad=
for cmd in "sbin/scx_coresched --help" "sbin/coresched-observe --help" \
	"bin/coreschedctl --help" "bin/coreschedctl -V" "bin/coresched -V"; do
	# shellcheck disable=SC2086 # program and option
	set -- $cmd
	"$usr/$1" "$2" >"$tmp/out" 2>&1 || bad+="'$cmd' exited $?; "
done
grep -q "^coresched from scx_coresched" "$tmp/out" ||
	bad+="coresched -V printed '$(head -c 100 "$tmp/out")'; "
if [ -z "$bad" ]; then
	pass installed_programs_run
else
	fail installed_programs_run "$bad"
fi

# The man page of every program is found by man (through MANPATH).
bad=
for page in scx_coresched coreschedctl coresched coresched-observe; do
	MANPATH=$usr/share/man man -w "$page" 2>/dev/null | grep -q "^$usr/" ||
		bad+="$page "
done
if ! command -v man >/dev/null; then
	info "man is not installed: man pages not checked"
elif [ -z "$bad" ]; then
	pass installed_man_pages
else
	fail installed_man_pages "man finds no installed page for: $bad"
fi

# A program built against the installed header, pkg-config file and
# libraries: shared (through the soname link) and static.
cat >"$tmp/uselib.c" <<'EOF'
#include <stdio.h>
#include <libcoresched.h>
int main(void)
{
	printf("supported %d\n", cs_supported());
	return 0;
}
EOF
pc() {
	PKG_CONFIG_PATH=$usr/lib/pkgconfig pkg-config \
		--define-variable=libdir="$usr/lib" \
		--define-variable=includedir="$usr/include" "$@" libcoresched
}
# shellcheck disable=SC2046 # pkg-config's flags, one a word
if ! command -v pkg-config >/dev/null; then
	info "pkg-config is not installed: the library was not checked"
elif ! gcc -o "$tmp/uselib" "$tmp/uselib.c" $(pc --cflags --libs) 2>"$tmp/cc.err"; then
	fail installed_library "shared link failed: $(head -n 3 "$tmp/cc.err")"
elif ! LD_LIBRARY_PATH=$usr/lib "$tmp/uselib" | grep -q '^supported'; then
	fail installed_library "the program linked to libcoresched.so did not run"
elif ! readelf -d "$tmp/uselib" | grep -q 'NEEDED.*\[libcoresched.so.1\]'; then
	fail installed_library "not linked to libcoresched.so.1: $(readelf -d "$tmp/uselib" | grep NEEDED | tr '\n' ' ')"
elif ! gcc -static -o "$tmp/uselib.static" "$tmp/uselib.c" $(pc --static --cflags --libs) 2>"$tmp/cc.err"; then
	fail installed_library "static link failed: $(head -n 3 "$tmp/cc.err")"
elif ! "$tmp/uselib.static" | grep -q '^supported'; then
	fail installed_library "the program linked to libcoresched.a did not run"
else
	pass installed_library
fi

# The unit, with ExecStart pointing into the DESTDIR (verify checks that
# the program exists, and that the Documentation= man pages do).
unit=$usr/lib/systemd/system/scx_coresched.service
if ! command -v systemd-analyze >/dev/null; then
	info "systemd-analyze is not installed: unit_verify skipped"
else
	mkdir -p "$tmp/unit"
	sed "s|/usr/local/sbin/|$usr/sbin/|" "$unit" >"$tmp/unit/scx_coresched.service"
	if MANPATH=$usr/share/man systemd-analyze verify \
		"$tmp/unit/scx_coresched.service" >"$tmp/verify" 2>&1 &&
		! grep -q . "$tmp/verify"; then
		pass unit_verify
	else
		fail unit_verify "$(tr '\n' ' ' <"$tmp/verify")"
	fi
fi
bad=
for line in "ConditionPathIsDirectory=/sys/kernel/sched_ext" \
	"EnvironmentFile=-/etc/default/scx_coresched" "Restart=on-failure" \
	"KillSignal=SIGINT" "Conflicts=scx.service scx_loader.service"; do
	grep -qx -- "$line" "$unit" || bad+="'$line' "
done
grep -q '^Before=.*containerd.service' "$unit" && grep -q '^Before=.*libvirtd.service' "$unit" ||
	bad+="Before= containerd/libvirtd "
if [ -z "$bad" ]; then
	pass unit_contents
else
	fail unit_contents "missing: $bad"
fi

# A second install keeps the administrator's /etc/default/scx_coresched.
echo 'SCX_CORESCHED_FLAGS="--mode fill"' >"$dest/etc/default/scx_coresched"
if ! make -s install DESTDIR="$dest" >"$tmp/install.log" 2>&1; then
	fail reinstall_keeps_config "make install failed: $(tail -n 3 "$tmp/install.log")"
elif [ "$(cat "$dest/etc/default/scx_coresched")" != 'SCX_CORESCHED_FLAGS="--mode fill"' ]; then
	fail reinstall_keeps_config "make install replaced /etc/default/scx_coresched"
else
	pass reinstall_keeps_config
fi

if ! make -s uninstall DESTDIR="$dest" >"$tmp/uninstall.log" 2>&1; then
	fail uninstall "make uninstall failed: $(tail -n 3 "$tmp/uninstall.log")"
elif [ "$(tree "$dest")" != etc/default/scx_coresched ]; then
	fail uninstall "left behind: $(tree "$dest" | tr '\n' ' ')"
else
	pass uninstall
fi

# make deb: the package holds the install tree with Debian's paths, plus
# the files dist/mkdeb.sh lists as Debian's own; dpkg unpacks it.
if ! command -v dpkg-deb >/dev/null; then
	info "dpkg-deb is not installed: make deb not checked"
elif ! make -s deb >"$tmp/deb.log" 2>&1; then
	fail deb_contents "make deb failed: $(grep -v '^[IN]:' "$tmp/deb.log" | tail -n 5 | tr '\n' ' ')"
else
	deb=$(sed -n 's/^deb: \(.*\.deb\)$/\1/p' "$tmp/deb.log")
	# shellcheck disable=SC2046 # one make variable a word
	make -s install DESTDIR="$tmp/debdest" $(cat build/deb/install.vars) \
		>/dev/null 2>&1
	grep -q "^PREFIX=/usr " build/deb/install.vars ||
		fail deb_contents "the package is not PREFIX=/usr: $(cat build/deb/install.vars)"
	{ tree "$tmp/debdest"; cat build/deb/extra.list; } | LC_ALL=C sort >"$tmp/want"
	dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\.\//, "", $6); print $6 }' |
		LC_ALL=C sort >"$tmp/got"
	if ! diff "$tmp/want" "$tmp/got" >"$tmp/diff"; then
		fail deb_contents "(< install tree, > package): $(tr '\n' ' ' <"$tmp/diff")"
	else
		pass deb_contents
	fi

	# dpkg unpacks it into a scratch root (no maintainer scripts run, so
	# the conffile stays .dpkg-new).
	r=$tmp/root
	mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates"
	touch "$r/var/lib/dpkg/status"
	if ! dpkg --root="$r" --force-depends --force-not-root --unpack "$deb" \
		>"$tmp/dpkg.log" 2>&1; then
		fail deb_unpacks "dpkg --unpack failed: $(tail -n 3 "$tmp/dpkg.log" | tr '\n' ' ')"
	elif ! tree "$r" | grep -v '^var/lib/dpkg/' | sed 's/\.dpkg-new$//' |
		LC_ALL=C sort | diff - "$tmp/want" >"$tmp/diff"; then
		fail deb_unpacks "(< unpacked, > install tree): $(tr '\n' ' ' <"$tmp/diff")"
	elif ! "$r/usr/sbin/scx_coresched" --help >/dev/null; then
		fail deb_unpacks "the unpacked scx_coresched does not run"
	else
		pass deb_unpacks
	fi
fi

# A build from the repository's vmlinux.h, in a copy of the tree whose
# kernel/build.sh fails if called and whose kernel cache is empty.
src=$tmp/src
mkdir -p "$src"
git ls-files -z | xargs -0 cp --parents -t "$src"
# Uncommitted files of this change too (a test of the working tree).
git ls-files -z --others --exclude-standard | xargs -0 -r cp --parents -t "$src"
printf '#!/bin/sh\necho "kernel/build.sh called" >&2\nexit 99\n' >"$src/kernel/build.sh"
if ! SCX_CACHE_DIR=$tmp/nocache make -C "$src" -s VMLINUX_SOURCE=repo \
	build/scx_coresched build/coreschedctl build/coresched-observe \
	>"$tmp/build.log" 2>&1; then
	fail build_from_repo_vmlinux "$(tail -n 3 "$tmp/build.log" | tr '\n' ' ')"
elif ! grep -q "vmlinux.h: from the repository's" "$tmp/build.log"; then
	fail build_from_repo_vmlinux "the header did not come from the repository: $(grep vmlinux "$tmp/build.log")"
elif [ -e "$tmp/nocache" ]; then
	fail build_from_repo_vmlinux "the kernel cache was touched"
else
	pass build_from_repo_vmlinux
fi
# auto: the running kernel's BTF only if it has sched_ext.
if grep -q "STRUCT 'sched_ext_ops'" <(bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null); then
	want="the running kernel's BTF"
else
	want="the repository's"
fi
rm -f "$src/build/vmlinux.h"
if ! make -C "$src" -s build/vmlinux.h >"$tmp/auto.log" 2>&1; then
	fail vmlinux_auto "$(tail -n 3 "$tmp/auto.log" | tr '\n' ' ')"
elif ! grep -q "vmlinux.h: from $want" "$tmp/auto.log"; then
	fail vmlinux_auto "want the header from $want: $(grep vmlinux "$tmp/auto.log")"
else
	pass vmlinux_auto
fi

exit $((nfail > 0))
