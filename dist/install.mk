# SPDX-License-Identifier: GPL-2.0-only
#
# make install / uninstall / deb, included by the Makefile.
#   make install [DESTDIR=DIR] [PREFIX=/usr/local]
#   make uninstall [DESTDIR=DIR] [PREFIX=/usr/local]
#   make deb          build/scx-coresched_VERSION_ARCH.deb (PREFIX=/usr)
# The directories below may each be overridden on the command line.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DOCDIR ?= $(PREFIX)/share/doc/scx-coresched
SYSCONFDIR ?= /etc
# yes: also install coreschedctl as 'coresched' (util-linux's name), with
# its man page and completion; no where util-linux 2.40+ owns that name.
CORESCHED_ALIAS ?= yes

# One version: the tools' -V (src/coreschedctl.c).
VERSION := $(shell sed -n 's/^\#define CS_VERSION "\(.*\)"/\1/p' src/coreschedctl.c)
# libcoresched.so.1 (its soname) -> libcoresched.so.$(LIB_VERSION)
LIB_VERSION := 1.0.0
MAN8 := scx_coresched coreschedctl coresched-observe

INSTALL ?= install
SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@SBINDIR@|$(SBINDIR)|g' \
	-e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@VERSION@|$(VERSION)|g'

.PHONY: install uninstall deb

# Generated with the paths of this install; rebuilt every time, since
# PREFIX and friends may differ between calls.
$(O)/scx_coresched.service $(O)/libcoresched.pc: FORCE | $(O)
	$(SUBST) dist/$(notdir $@).in > $@.tmp
	mv $@.tmp $@

install: $(PROGS) $(O)/libcoresched.a $(O)/libcoresched.so.1 \
		$(O)/scx_coresched.service $(O)/libcoresched.pc
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSCONFDIR)/default
	$(INSTALL) -m 755 $(O)/scx_coresched $(O)/coresched-observe $(DESTDIR)$(SBINDIR)
	$(INSTALL) -m 755 $(O)/coreschedctl $(DESTDIR)$(BINDIR)
	if [ "$(CORESCHED_ALIAS)" = yes ]; then \
		ln -sf coreschedctl $(DESTDIR)$(BINDIR)/coresched && \
		ln -sf coreschedctl.8.gz $(DESTDIR)$(MANDIR)/man8/coresched.8.gz && \
		ln -sf coreschedctl $(DESTDIR)$(BASHCOMPDIR)/coresched; \
	fi
	$(INSTALL) -m 644 $(O)/libcoresched.a $(DESTDIR)$(LIBDIR)
	$(INSTALL) -m 644 $(O)/libcoresched.so.1 \
		$(DESTDIR)$(LIBDIR)/libcoresched.so.$(LIB_VERSION)
	ln -sf libcoresched.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/libcoresched.so.1
	ln -sf libcoresched.so.1 $(DESTDIR)$(LIBDIR)/libcoresched.so
	$(INSTALL) -m 644 $(O)/libcoresched.pc $(DESTDIR)$(PKGCONFIGDIR)
	$(INSTALL) -m 644 include/libcoresched.h $(DESTDIR)$(INCLUDEDIR)
	for m in $(MAN8); do \
		gzip -9n < man/$$m.8 > $(DESTDIR)$(MANDIR)/man8/$$m.8.gz || exit 1; \
		chmod 644 $(DESTDIR)$(MANDIR)/man8/$$m.8.gz; \
	done
	$(INSTALL) -m 644 dist/coreschedctl.bash-completion \
		$(DESTDIR)$(BASHCOMPDIR)/coreschedctl
	$(INSTALL) -m 644 $(O)/scx_coresched.service $(DESTDIR)$(UNITDIR)
	# An existing configuration is the administrator's: kept as it is.
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/scx_coresched ] || \
		$(INSTALL) -m 644 dist/scx_coresched.default \
			$(DESTDIR)$(SYSCONFDIR)/default/scx_coresched
	$(INSTALL) -m 644 README.md dist/copyright $(DESTDIR)$(DOCDIR)

# Leaves /etc/default/scx_coresched (a configuration file) in place.
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/scx_coresched \
		$(DESTDIR)$(SBINDIR)/coresched-observe \
		$(DESTDIR)$(BINDIR)/coreschedctl $(DESTDIR)$(BINDIR)/coresched \
		$(DESTDIR)$(LIBDIR)/libcoresched.a \
		$(DESTDIR)$(LIBDIR)/libcoresched.so \
		$(DESTDIR)$(LIBDIR)/libcoresched.so.1 \
		$(DESTDIR)$(LIBDIR)/libcoresched.so.$(LIB_VERSION) \
		$(DESTDIR)$(PKGCONFIGDIR)/libcoresched.pc \
		$(DESTDIR)$(INCLUDEDIR)/libcoresched.h \
		$(MAN8:%=$(DESTDIR)$(MANDIR)/man8/%.8.gz) \
		$(DESTDIR)$(MANDIR)/man8/coresched.8.gz \
		$(DESTDIR)$(BASHCOMPDIR)/coreschedctl \
		$(DESTDIR)$(BASHCOMPDIR)/coresched \
		$(DESTDIR)$(UNITDIR)/scx_coresched.service \
		$(DESTDIR)$(DOCDIR)/README.md $(DESTDIR)$(DOCDIR)/copyright
	-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null

deb: all
	@MAKE="$(MAKE)" dist/mkdeb.sh $(VERSION)
