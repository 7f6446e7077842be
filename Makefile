# SPDX-License-Identifier: GPL-2.0-only
#
# scx_coresched build. Targets:
#   make deps     install Debian packages (root)
#   make kernel   build (or reuse the cached) test kernel
#   make          build the BPF objects, scx_coresched, coreschedctl,
#                 coresched-audit and the host unit tests; no kernel
#                 build (see VMLINUX_SOURCE)
#   make vmlinux-h  regenerate include/vmlinux/x86_64/vmlinux.h.xz from
#                 the test kernel (commit the result)
#   make test     host unit tests, then guest tests (ends "N passed, N failed")
#   make demo     two tenants plus background work under scx_coresched, in a guest
#   make soak     long soak tests on 2x2, 4x2 and 2x4 guests (stress, churn,
#                 hotplug, SIGKILL loop, RT/DL)
#   make audit-compare  two tenants under scx_coresched and under the
#                 kernel's core scheduling, audited alike (AUDIT_RESULTS)
#   make bench    the benchmark (bench/run): five configurations, nine
#                 workloads, 3 rounds; QUICK=1 for one short round
#   make prof     scx_coresched with its section profile, in build/prof
#                 (bench/profile)

CLANG ?= $(shell command -v clang-19 || echo clang)
BPFTOOL ?= $(shell command -v bpftool || echo /usr/sbin/bpftool)
CC ?= gcc
O := build

WARN := -Wall -Wextra -Werror
CFLAGS := -std=gnu11 -O2 -g $(WARN) -Iinclude -I$(O) -D_GNU_SOURCE
LDLIBS := -lbpf -lelf -lz
LDFLAGS := -static
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 $(WARN) \
	-Wno-unused-function -Wno-unused-parameter -Iinclude -Ibpf -I$(O) \
	-I/usr/include/x86_64-linux-gnu -DBPF_NO_KFUNC_PROTOTYPES $(BPF_DEFS)

# Where build/vmlinux.h comes from: auto (the running kernel's BTF if it
# has sched_ext, else repo), btf, repo (include/vmlinux/ARCH/vmlinux.h.xz)
# or kernel (the test kernel); see tools/vmlinux.sh. The BPF objects are
# CO-RE and load on 6.12 and later whichever header built them.
VMLINUX_SOURCE ?= auto

PROGS := $(O)/scx_coresched $(O)/coreschedctl $(O)/coresched-audit
PROGS += $(O)/coresched-observe # audit: its old name
CTL_BINS := $(O)/coresched $(O)/libcoresched.a $(O)/libcoresched.so
HOST_TESTS := $(O)/test_policy $(O)/test_model $(O)/test_topo $(O)/test_ctl $(O)/test_ctl_lib
HOST_TESTS += $(O)/test_policy_file # policy
HOST_TESTS += $(O)/test_features
HOST_TESTS += $(O)/test_report # statistics writers
HOST_TESTS += $(O)/test_topo_scan # topology
HOST_TESTS += $(O)/test_audit # audit
GUEST_BINS := $(O)/progress $(O)/prctl_check $(O)/prctl_parity
GUEST_BINS += $(O)/cookie_churn $(O)/periodic # soak
GUEST_BINS += $(O)/cookie_spin $(O)/cookie_get # prctl tenants, cookie_of
GUEST_BINS += $(O)/cookie_duty $(O)/calib # bench/scale
GUEST_BINS += $(O)/ctl_raw # control socket
GUEST_BINS += $(O)/topo_dump # topology
GUEST_BINS += $(O)/broken_sched # audit: a scheduler that ignores cookies
GUEST_BINS += $(O)/tag_many # the cgroup tag limit
COMMON := $(O)/cs_common.o

.PHONY: all deps kernel vmlinux-h test test-host test-guest demo clean format FORCE
.SECONDARY:

all: $(PROGS) $(CTL_BINS) $(HOST_TESTS) $(GUEST_BINS)

deps:
	@tools/deps.sh --check 2>/dev/null || tools/deps.sh

kernel: deps
	@kernel/build.sh >/dev/null

$(O):
	mkdir -p $(O)

# Regenerated when VMLINUX_SOURCE or the repository's header changes.
$(O)/vmlinux.source: FORCE | $(O)
	@echo $(VMLINUX_SOURCE) | cmp -s - $@ || echo $(VMLINUX_SOURCE) > $@

$(O)/vmlinux.h: $(O)/vmlinux.source $(wildcard include/vmlinux/*/vmlinux.h.xz) | $(O)
	@BPFTOOL=$(BPFTOOL) tools/vmlinux.sh $(VMLINUX_SOURCE) $@

vmlinux-h:
	@BPFTOOL=$(BPFTOOL) tools/vmlinux.sh --update

$(O)/%.bpf.o: bpf/%.bpf.c bpf/*.h include/*.h $(O)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# bpftool 7.5 emits skeletons for libbpf 1.5, which record struct_ops links
# in the map skeleton; libbpf 1.4 has no such member, and we attach the
# struct_ops link ourselves, so drop that line.
$(O)/%.skel.h: $(O)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*) > $@.tmp
	sed -n '/^struct bpf_map_skeleton {/,/^};/p' /usr/include/bpf/libbpf.h | \
		grep -q link || \
		sed -i '/map->link = /d' $@.tmp
	mv $@.tmp $@

$(O)/%.o: src/%.c include/*.h src/*.h | $(O)
	$(CC) $(CFLAGS) -c $< -o $@

$(O)/scx_coresched.o $(O)/cs_drain.o: $(O)/coresched.skel.h
$(O)/cs_tagging.o: $(O)/tagging.skel.h
$(O)/cs_policy_apply.o: $(O)/policy.skel.h # policy
$(O)/cs_audit_bpf.o: $(O)/audit.skel.h

$(O)/scx_coresched: $(O)/scx_coresched.o $(O)/cs_topo.o $(O)/cs_report.o \
		$(O)/cs_tagging.o $(O)/cs_features.o $(O)/cs_guard.o $(COMMON) \
		$(O)/cs_btf.o $(O)/cs_drain.o \
		$(O)/cs_policy_apply.o $(O)/cs_policy_file.o # policy
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# control socket: unprivileged cgroup tagging, through libcoresched's code.
$(O)/scx_coresched: $(O)/cs_ctlsock.o $(O)/libcoresched.o
$(O)/scx_coresched: LDFLAGS += -pthread
# statistics on demand (/run/scx_coresched/stats*)
$(O)/scx_coresched: $(O)/cs_statsfile.o

# libcoresched: one set of position-independent objects (cs_common.o
# included) for the static and the shared library; the shared one exports
# only the CS_API calls of libcoresched.h.
LIB_OBJS := $(O)/pic/libcoresched.o $(O)/pic/cs_common.o

$(O)/pic/%.o: src/%.c include/*.h src/*.h | $(O)
	@mkdir -p $(O)/pic
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(O)/libcoresched.a: $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(O)/libcoresched.so.1: $(LIB_OBJS)
	$(CC) -shared -Wl,-soname,libcoresched.so.1 -Wl,--no-undefined \
		-o $@ $^ -lbpf -pthread

$(O)/libcoresched.so: $(O)/libcoresched.so.1
	ln -sf libcoresched.so.1 $@

$(O)/coreschedctl: $(O)/coreschedctl.o $(O)/coreschedctl_args.o \
		$(O)/coreschedctl_policy.o $(O)/cs_policy_file.o \
		$(O)/coreschedctl_stats.o $(O)/libcoresched.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The same binary under util-linux's name.
$(O)/coresched: $(O)/coreschedctl
	ln -f $< $@

$(O)/test_ctl: tests/test_ctl.c tests/harness.h src/coreschedctl_args.c src/coreschedctl.h src/cs_common.h | $(O)
	$(CC) $(CFLAGS) -Isrc -o $@ tests/test_ctl.c src/coreschedctl_args.c

# Linked against the shared library, to check what it exports.
$(O)/test_ctl_lib: tests/test_ctl_lib.c tests/harness.h include/libcoresched.h $(O)/libcoresched.so
	$(CC) $(CFLAGS) -o $@ $< -L$(O) -lcoresched -Wl,-rpath,'$$ORIGIN'

# audit: the outside isolation auditor, and its old name.
AUDIT_OBJS := $(O)/coresched-audit.o $(O)/cs_audit_bpf.o $(O)/cs_btf.o \
	$(O)/cs_audit_report.o $(O)/cs_sweep.o $(O)/cs_trace.o \
	$(O)/cs_trace_read.o $(O)/cs_svg.o \
	$(O)/cs_topo.o $(O)/cs_report.o $(O)/coreschedctl_args.o $(COMMON)

$(O)/coresched-audit: $(AUDIT_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lm

$(O)/coresched-observe: $(O)/coresched-audit
	ln -sf coresched-audit $@

$(O)/test_audit: tests/test_audit.c tests/harness.h src/cs_sweep.c \
		src/cs_sweep.h src/cs_trace.c src/cs_trace_read.c src/cs_svg.c src/cs_trace.h \
		src/cs_report.c src/cs_report.h include/cs_observe.h $(COMMON) | $(O)
	$(CC) $(CFLAGS) -Isrc -o $@ tests/test_audit.c src/cs_sweep.c \
		src/cs_trace.c src/cs_trace_read.c src/cs_svg.c src/cs_report.c $(COMMON) \
		$(LDFLAGS) $(LDLIBS) -lm

# A sched_ext scheduler that ignores cookies (global FIFO), for the audit's
# tests only.
$(O)/broken.bpf.o: tests/guest/broken.bpf.c bpf/*.h include/*.h $(O)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(O)/broken_sched.o: tests/guest/broken_sched.c $(O)/broken.skel.h | $(O)
	$(CC) $(CFLAGS) -c $< -o $@

$(O)/broken_sched: $(O)/broken_sched.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# bench/scale's yardstick: a fixed amount of BPF work, timed in the guest.
$(O)/calib.bpf.o: bench/calib.bpf.c $(O)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(O)/calib: bench/calib.c $(O)/calib.skel.h | $(O)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) $(LDLIBS)

$(O)/test_policy: tests/test_policy.c tests/harness.h include/*.h | $(O)
	$(CC) $(CFLAGS) -o $@ $<

$(O)/test_model: tests/test_model.c tests/harness.h include/*.h | $(O)
	$(CC) $(CFLAGS) -o $@ $<

# policy: the policy file parser alone.
$(O)/test_policy_file: tests/test_policy_file.c tests/harness.h src/cs_policy_file.c src/cs_policy_file.h include/cs_policy_rules.h | $(O)
	$(CC) $(CFLAGS) -Isrc -o $@ tests/test_policy_file.c src/cs_policy_file.c

$(O)/test_features: tests/test_features.c tests/harness.h src/cs_features.c src/cs_features.h $(COMMON) | $(O)
	$(CC) $(CFLAGS) -Isrc -o $@ tests/test_features.c src/cs_features.c $(COMMON) $(LDLIBS)

$(O)/test_report: tests/test_report.c tests/harness.h src/cs_report.c src/cs_common.c src/*.h include/*.h | $(O)
	$(CC) $(CFLAGS) -Isrc -o $@ tests/test_report.c src/cs_report.c src/cs_common.c -lbpf

$(O)/test_topo $(O)/test_topo_scan: $(O)/%: tests/%.c tests/harness.h tests/fake_sysfs.h src/cs_topo.c src/cs_topo.h include/*.h | $(O)
	$(CC) $(CFLAGS) -Isrc -o $@ $< src/cs_topo.c

$(O)/topo_dump: tests/guest/topo_dump.c src/cs_topo.c src/cs_topo.h include/*.h | $(O)
	$(CC) $(CFLAGS) -Isrc -o $@ tests/guest/topo_dump.c src/cs_topo.c

$(O)/tag_many: tests/guest/tag_many.c include/libcoresched.h $(O)/libcoresched.a | $(O)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libcoresched.a $(LDLIBS)

# Small programs the guest tests run.
$(O)/%: tests/guest/%.c | $(O)
	$(CC) $(CFLAGS) -pthread -o $@ $<

test: deps kernel all
	@tests/run

test-host: $(HOST_TESTS)
	@tests/run --host-only

test-guest: deps kernel all
	@tests/run --guest-only

demo: deps kernel all
	@tools/vm --cores 2 --threads 2 --timeout 300 -- tools/demo.sh

# Soak tests, long form (60 s or more per stress case), on three topologies;
# tests/run runs the short form on 2x2.
.PHONY: soak
soak: deps kernel all
	@rc=0; for t in 2x2 4x2 2x4; do \
		SCX_TOPO=$$t tools/vm --cores $${t%x*} --threads $${t#*x} \
			--timeout 5400 -- tests/guest/soak.sh --long || rc=1; \
	done; exit $$rc

# The cookie limit at its edge (tests/guest/cookies.sh, 8x2, 4 GiB, about 3
# minutes): not part of 'make test' while it fails (README, Limits (cookies)).
.PHONY: test-cookies
test-cookies: deps kernel all
	@SCX_TOPO=8x2 tools/vm --cores 8 --threads 2 --mem 4G --timeout 900 \
		-- tests/guest/cookies.sh

# audit: both audits printed, traces and SVGs in AUDIT_RESULTS.
AUDIT_RESULTS ?= build/audit-compare
.PHONY: audit-compare
audit-compare: deps all
	@tools/vm --cores 2 --threads 2 --timeout 600 -- \
		tools/audit-compare.sh $(AUDIT_RESULTS)

format:
	clang-format -i bpf/*.c bpf/*.h src/*.c src/*.h include/*.h tests/*.c tests/guest/*.c

clean:
	rm -rf $(O)

# make install, uninstall, deb
include dist/install.mk

# The scheduler with its section profile compiled in (bpf/prof.bpf.h), in
# build/prof/, for bench/profile; the normal build has none of it.
.PHONY: prof
prof:
	@$(MAKE) -s O=build/prof BPF_DEFS=-DCS_PROF build/prof/scx_coresched

# The benchmark: results/bench-DATE-PROFILE/ (report.md, results.json, SVGs).
.PHONY: bench
bench: deps all
	@bench/run $(if $(QUICK),--quick)
