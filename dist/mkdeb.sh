#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dist/mkdeb.sh VERSION: build build/scx-coresched_VERSION_ARCH.deb (make deb).
# The package is 'make install' staged with Debian's paths, plus what
# Debian asks of every package (DEB_EXTRA below): its contents are the
# install tree and those files, nothing else (tests/install.sh checks).
# Maintainer scripts reload systemd only if systemd runs; the service is
# not enabled or started by installing the package.
set -euo pipefail
cd "$(dirname "$0")/.."

pkg=scx-coresched
version=${1:?usage: dist/mkdeb.sh VERSION}
make=${MAKE:-make}
arch=$(dpkg --print-architecture)
multiarch=$(gcc -print-multiarch)
deb=build/deb
root=$deb/root
out=build/${pkg}_${version}_$arch.deb
doc=usr/share/doc/$pkg
# The maintainer: DEBFULLNAME/DEBEMAIL as dch uses them, else git's user.
name=${DEBFULLNAME:-$(git config user.name 2>/dev/null || echo "scx_coresched developers")}
email=${DEBEMAIL:-$(git config user.email 2>/dev/null || echo "root@$(hostname -f)")}

# make install's variables for the package (tests/install.sh uses them).
DEB_INSTALL_VARS="PREFIX=/usr LIBDIR=/usr/lib/$multiarch UNITDIR=/lib/systemd/system DOCDIR=/$doc CORESCHED_ALIAS=no"
# Files the package has beyond the install tree (paths in the package).
DEB_EXTRA=("$doc/changelog.gz" "usr/share/lintian/overrides/$pkg")

die() {
	echo "dist/mkdeb.sh: $*" >&2
	exit 1
}

command -v dpkg-deb >/dev/null || die "dpkg-deb not found (a Debian system is needed)"
command -v dpkg-shlibdeps >/dev/null || die "dpkg-shlibdeps not found; run 'make deps' (dpkg-dev)"

rm -rf "$deb"
mkdir -p "$root"
# Debian 12 keeps systemd units in /lib/systemd/system (usrmerge moratorium).
# util-linux 2.40 and later ship /usr/bin/coresched: CORESCHED_ALIAS=no.
# shellcheck disable=SC2086 # one make variable a word
"$make" -s install DESTDIR="$PWD/$root" $DEB_INSTALL_VARS >/dev/null
# Debian ships stripped objects (the BPF programs are data, not symbols).
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
	"$root/usr/sbin/scx_coresched" "$root/usr/sbin/coresched-observe" \
	"$root/usr/bin/coreschedctl" "$root/usr/lib/$multiarch/libcoresched.so.1.0.0"
strip --strip-debug "$root/usr/lib/$multiarch/libcoresched.a"

# Native package: its changelog is one entry for this version.
{
	echo "$pkg ($version) unstable; urgency=medium"
	echo
	echo "  * Built from $(git describe --always --dirty 2>/dev/null || echo 'a source tree')."
	echo
	echo " -- $name <$email>  $(date -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n >"$root/$doc/changelog.gz"
mkdir -p "$root/usr/share/lintian/overrides"
cp dist/debian/lintian-overrides "$root/usr/share/lintian/overrides/$pkg"
chmod 644 "$root/$doc/changelog.gz" "$root/usr/share/lintian/overrides/$pkg"

mkdir -p "$root/DEBIAN"
# dpkg-shlibdeps wants a debian/control; give it a scratch one.
shl=$(mktemp -d)
trap 'rm -rf "$shl"' EXIT
mkdir "$shl/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$pkg" "$pkg" >"$shl/debian/control"
deps=$(cd "$shl" && dpkg-shlibdeps -O -e"$OLDPWD/$root/usr/lib/$multiarch/libcoresched.so.1" \
	2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$deps" ] || die "dpkg-shlibdeps found no dependencies of libcoresched.so.1"

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$deps/" \
	-e "s/@SIZE@/$size/" -e "s/@MAINTAINER@/$name <$email>/" -e "/^#/d" dist/debian/control.in >"$root/DEBIAN/control"
echo /etc/default/scx_coresched >"$root/DEBIAN/conffiles"
echo "libcoresched 1 $pkg (>= $version)" >"$root/DEBIAN/shlibs"
for s in postinst prerm postrm triggers; do
	install -m 755 "dist/debian/$s" "$root/DEBIAN/$s"
done
chmod 644 "$root/DEBIAN/triggers"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' |
	LC_ALL=C sort | xargs md5sum) >"$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums" \
	"$root/DEBIAN/shlibs"

dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "deb: $out"
if command -v lintian >/dev/null; then
	opts=(--fail-on "error,warning")
	[ "$(id -u)" != 0 ] || opts+=(--allow-root)
	lintian "${opts[@]}" "$out" || die "lintian found errors or warnings in $out"
else
	echo "deb: lintian not installed; not checked"
fi
# For tests/install.sh: the extra files, one a line, and the variables.
printf '%s\n' "${DEB_EXTRA[@]}" >"$deb/extra.list"
echo "$DEB_INSTALL_VARS" >"$deb/install.vars"
