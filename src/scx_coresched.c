// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_coresched: load the core scheduling sched_ext scheduler, print its
 * statistics, and detach cleanly on SIGINT/SIGTERM (the kernel detaches it
 * by itself if this process dies, since the scheduler is held by a link).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cs_btf.h"
#include "cs_common.h"
#include "cs_ctlsock.h"
#include "cs_drain.h"
#include "cs_guard.h"
#include "cs_policy.h"
#include "cs_policy_apply.h" /* policy hook */
#include "cs_report.h"
#include "cs_statsfile.h"
#include "cs_tagging.h"
#include "cs_topo.h"

#include "cs_skel.h"

static const char usage[] =
	"Usage: scx_coresched [OPTIONS]\n"
	"\n"
	"SMT core scheduling as a sched_ext scheduler: tasks of different\n"
	"cookies (trust domains) never run on sibling hyperthreads at the same\n"
	"time. Tag tasks with coreschedctl. Stops on SIGINT/SIGTERM; every task\n"
	"then returns to the default scheduler.\n"
	"\n"
	"Options:\n"
	"  -m, --mode MODE      strict (default): only tasks of one cookie share a core;\n"
	"                       untagged tasks are one more cookie, as upstream.\n"
	"                       fill: as strict, but untagged tasks may also run beside\n"
	"                       any cookie (trusts untagged work; less forced idle).\n"
	"                       none: no isolation (the same scheduler without core\n"
	"                       scheduling, for comparison).\n"
	"  -k, --trust-kthreads kernel threads may run beside any cookie (default: they\n"
	"                       are untagged, cookie 0)\n"
	"  -s, --slice-us US    time slice in microseconds (default 5000)\n"
	"  -g, --grace-us US    how far (in weighted core time, microseconds) the\n"
	"                       cookie holding a core may get ahead of a waiting one\n"
	"                       before the core changes hands (default: the slice;\n"
	"                       four times that if the waiting one, tagged, owns\n"
	"                       as many cores). More: fewer handovers and less\n"
	"                       forced idle; less: finer fairness between cookies\n"
	"  -f, --fail-mode MODE what happens while no isolation is possible (after an\n"
	"                       ejection, a crash, or a stop):\n"
	"                       open (default): tasks run on, SMT on, not isolated;\n"
	"                       closed: SMT is switched off (" CS_SMT_CONTROL ")\n"
	"                       the moment isolation ends, and on again once it is back\n"
	"                       (a restart attaches first, with the siblings offline).\n"
	"                       A guard process covers a SIGKILL of this process.\n"
	"      --no-restart     exit after an ejection instead of loading again\n"
	"      --prctl MODE     serve (default): answer prctl(PR_SCHED_CORE) as the\n"
	"                       kernel's core scheduling does (util-linux coresched,\n"
	"                       cloud-hypervisor); refuse: fail it with EPERM, so\n"
	"                       only coreschedctl and the policy give cookies\n"
	"  -p, --policy FILE    tag cgroups as FILE says (default " CS_POLICY_DEFAULT ",\n"
	"                       if it exists): existing ones at start, new ones\n"
	"                       when they are created; see coreschedctl policy check\n"
	"      --uninstall      (scheduler stopped) detach the tagging programs and\n"
	"                       remove " CS_PIN_DIR ": every tag is lost and\n"
	"                       prctl(PR_SCHED_CORE) goes to the kernel again\n"
	"  -S, --stats SECS     print statistics every SECS seconds\n"
	"  -j, --json           print statistics as JSON lines\n"
	"  -v, --verbose        more messages, with the time each start step took\n"
	"                       (twice: also libbpf debug output)\n"
	"  -h, --help           this help\n"
	"\n"
	"Statistics: forced idle as % of CPU time (total and per core), each\n"
	"cookie's share of charged core time, cookie switches/s, sibling kicks/s\n"
	"and the worst enqueue-to-run wait in the interval. Those of the last\n"
	"interval (SECS, or 1 s without --stats) are also in " CS_CTL_DIR "/stats,\n"
	"stats.json and stats.prom (Prometheus): see coreschedctl stats.\n"
	"\n"
	"If the kernel ejects the scheduler (an error, the watchdog, sysrq-S), it is\n"
	"loaded again at once, then after growing delays (up to 8 s) if it keeps\n"
	"failing; each time the reason is logged.\n"
	"\n"
	"Tags live in maps pinned under " CS_PIN_DIR ", served by tagging programs\n"
	"whose links are pinned there too: tags are kept, given out through\n"
	"prctl(PR_SCHED_CORE) and inherited on fork whether or not the scheduler\n"
	"runs, and survive its restart, crash or ejection.\n";

static volatile sig_atomic_t stop;
static int verbose;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG && verbose < 2)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* -v: how long the start took so far, at each step (the unprotected gap). */
static void step(const char *what)
{
	static __u64 t0;
	__u64 now = cs_now_ns();

	if (!t0)
		t0 = now;
	if (verbose)
		fprintf(stderr, "scx_coresched: %8.1f ms: %s\n",
			(double)(now - t0) / 1e6, what);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "scx_coresched: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

struct opts {
	int mode;
	bool trust_kthreads;
	__u64 slice_ns;
	__u64 grace_ns; /* 0: the slice */
	double stats_secs;
	bool json;
	enum cs_fail_mode fail_mode;
	bool restart;
	bool uninstall;
	const char *policy; /* --policy; NULL: the default file, if any */
	enum cs_prctl_want prctl; /* --prctl */
	__u64 tick_ns; /* the kernel's tick (kernel_tick_ns), 0: unknown */
};

/* A duration option in microseconds, 100 us to 1 s, as ns. */
static __u64 parse_us(const char *opt, const char *arg)
{
	char *end;
	long us = strtol(arg, &end, 10);

	if (end == arg || *end || us < 100 || us > 1000000)
		die("%s '%s': give microseconds from 100 to 1000000", opt, arg);
	return (__u64)us * 1000;
}

/*
 * The kernel's tick (TICK_NSEC), the resolution of CLOCK_MONOTONIC_COARSE,
 * for the renewal rule (cs_renew_below); 0 if it is outside 100 us to 100
 * ms (HZ 10 to 10,000), which renews at half a slice alone.
 */
static __u64 kernel_tick_ns(void)
{
	struct timespec ts;
	__u64 ns;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &ts))
		return 0;
	ns = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
	return ns >= 100000 && ns <= 100000000 ? ns : 0;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "trust-kthreads", no_argument, NULL, 'k' },
		{ "slice-us", required_argument, NULL, 's' },
		{ "grace-us", required_argument, NULL, 'g' },
		{ "fail-mode", required_argument, NULL, 'f' },
		{ "no-restart", no_argument, NULL, 'R' },
		{ "prctl", required_argument, NULL, 'P' },
		{ "uninstall", no_argument, NULL, 'U' },
		{ "policy", required_argument, NULL, 'p' }, /* policy hook */
		{ "stats", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char *end;
	int c;

	o->mode = CS_MODE_STRICT;
	o->slice_ns = 5000000;
	o->restart = true;
	while ((c = getopt_long(argc, argv, "m:ks:g:f:S:p:jvh", lopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "strict"))
				o->mode = CS_MODE_STRICT;
			else if (!strcmp(optarg, "fill"))
				o->mode = CS_MODE_FILL;
			else if (!strcmp(optarg, "none"))
				o->mode = CS_MODE_NONE;
			else
				die("--mode '%s': use strict, fill or none", optarg);
			break;
		case 'k':
			o->trust_kthreads = true;
			break;
		case 'f':
			if (!strcmp(optarg, "open"))
				o->fail_mode = CS_FAIL_OPEN;
			else if (!strcmp(optarg, "closed"))
				o->fail_mode = CS_FAIL_CLOSED;
			else
				die("--fail-mode '%s': use open or closed", optarg);
			break;
		case 'R':
			o->restart = false;
			break;
		case 'U':
			o->uninstall = true;
			break;
		case 'P':
			if (!strcmp(optarg, "serve"))
				o->prctl = CS_PRCTL_SERVE;
			else if (!strcmp(optarg, "refuse"))
				o->prctl = CS_PRCTL_REFUSE;
			else
				die("--prctl '%s': use serve or refuse", optarg);
			break;
		case 'p': /* policy hook */
			o->policy = optarg;
			break;
		case 's':
			o->slice_ns = parse_us("--slice-us", optarg);
			break;
		case 'g':
			o->grace_ns = parse_us("--grace-us", optarg);
			break;
		case 'S':
			o->stats_secs = strtod(optarg, &end);
			if (*end || o->stats_secs <= 0 || o->stats_secs > 3600)
				die("--stats '%s': give seconds, e.g. --stats 1", optarg);
			break;
		case 'j':
			o->json = true;
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			fputs(usage, stderr);
			exit(2);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s' (see --help)", argv[optind]);
}

static void check_kernel(const struct opts *o)
{
	char state[64], ops[64], err[512];
	struct statfs sfs;

	if (geteuid() != 0)
		die("loading a BPF scheduler needs root (CAP_SYS_ADMIN); run it with sudo");
	if (!cs_scx_state(state, sizeof(state)))
		die("this kernel has no sched_ext (%s is missing); boot a 6.12+ kernel with CONFIG_SCHED_CLASS_EXT=y, or try it in a guest: tools/vm -- build/scx_coresched",
		    CS_SCX_SYSFS);
	if (strcmp(state, "disabled")) {
		if (cs_scx_ops(ops, sizeof(ops)))
			die("another sched_ext scheduler ('%s') is %s; stop it first",
			    ops, state);
		die("sched_ext is in state '%s'; wait until it is 'disabled'", state);
	}
	if (statfs("/sys/fs/bpf", &sfs) || sfs.f_type != BPF_FS_MAGIC)
		die("/sys/fs/bpf is not a bpf file system; mount it: mount -t bpf bpf /sys/fs/bpf");
	if (cs_pin_dir_secure(err, sizeof(err)))
		die("%s", err);
	if (o->fail_mode == CS_FAIL_CLOSED && cs_smt_check(err, sizeof(err)))
		die("%s", err);
}

/* The topology, before the scheduler is loaded; unknown CPUs are fenced. */
static void set_topology(struct coresched *skel, const struct cs_topo *t)
{
	struct coresched__bss *bss = skel->bss;
	int cpu, core, i;

	skel->rodata->nr_cpus = t->nr_cpus;
	for (cpu = 0; cpu < CS_MAX_CPUS; cpu++) {
		bss->cpu_core[cpu] = t->cpu_core[cpu] < 0 ? 0 :
							    t->cpu_core[cpu];
		bss->cpu_sib[cpu] = t->cpu_sib[cpu];
		bss->cpu_known[cpu] = t->cpu_core[cpu] >= 0;
		bss->cpu_llc[cpu] = t->cpu_llc[cpu] < 0 ? 0 : t->cpu_llc[cpu];
	}
	bss->nr_llcs = t->nr_llcs;
	for (core = 0; core < CS_MAX_CPUS; core++) {
		bss->core_nr[core] = t->core_nr[core];
		for (i = 0; i < CS_MAX_SMT; i++)
			bss->core_cpu[core][i] = t->core_cpu[core][i] < 0 ?
							 0xffff :
							 t->core_cpu[core][i];
	}
}

/*
 * Give the running scheduler @cpu's place, which @t holds, in the order
 * bpf/core_state.bpf.h needs (cpu_known last): from then on it is in its
 * core and runs tenants.
 */
static void unfence(struct coresched *skel, const struct cs_topo *t, int cpu)
{
	volatile struct coresched__bss *bss = skel->bss;
	int core = t->cpu_core[cpu], sib = t->cpu_sib[cpu];

	bss->core_cpu[core][sib] = cpu;
	bss->cpu_sib[cpu] = sib;
	bss->cpu_core[cpu] = core;
	bss->cpu_llc[cpu] = t->cpu_llc[cpu];
	bss->nr_llcs = t->nr_llcs;
	__atomic_store_n(&bss->core_nr[core], t->core_nr[core],
			 __ATOMIC_SEQ_CST);
	__atomic_store_n(&bss->cpu_known[cpu], 1, __ATOMIC_SEQ_CST);
}

_Static_assert(sizeof(((struct cs_snapshot *)0)->live_mask) ==
		       sizeof(((struct coresched__bss *)0)->live_mask),
	       "the snapshot's live_mask is the scheduler's");
_Static_assert(sizeof(((struct cs_snapshot *)0)->slot) <=
		       sizeof(((struct coresched__bss *)0)->slot_stats),
	       "the snapshot's slots are the scheduler's first ones");

static void snapshot(struct coresched *skel, struct cs_snapshot *s)
{
	int cpu;

	s->t_ns = cs_now_ns();
	memcpy(s->live_mask, skel->bss->live_mask, sizeof(s->live_mask));
	memcpy(s->cpu, skel->bss->cpu_stats, sizeof(s->cpu));
	memcpy(s->slot, skel->bss->slot_stats, sizeof(s->slot));
	s->slot_full = skel->bss->slot_full;
	s->max_wait_ns = 0;
	for (cpu = 0; cpu < CS_MAX_CPUS; cpu++) {
		if (s->cpu[cpu].max_wait_ns > s->max_wait_ns)
			s->max_wait_ns = s->cpu[cpu].max_wait_ns;
		skel->bss->cpu_stats[cpu].max_wait_ns = 0;
	}
}

static const char *mode_name(int mode)
{
	return mode == CS_MODE_FILL ? "fill" : mode == CS_MODE_NONE ? "none" : "strict";
}

/* The start-up line: what runs, on what, with which settings. */
static void print_enabled(const struct opts *o, const struct cs_topo *topo)
{
	char tick[32] = "unknown";

	if (o->tick_ns)
		snprintf(tick, sizeof(tick), "%llu us",
			 (unsigned long long)(o->tick_ns / 1000));
	fprintf(stderr,
		"scx_coresched: enabled, mode %s, %d CPUs in %d cores (SMT %d) and %d last-level caches, slice %llu us (tick %s), kernel threads %s, fail-mode %s\n",
		mode_name(o->mode), topo->nr_cpus, topo->nr_cores, topo->smt,
		topo->nr_llcs, (unsigned long long)(o->slice_ns / 1000), tick,
		o->trust_kthreads ? "trusted" : "untagged",
		o->fail_mode == CS_FAIL_CLOSED ? "closed" : "open");
}

/* One attached instance of the scheduler. */
struct sched {
	struct coresched *skel;
	struct bpf_link *ops_link, *commit_link, *dead_link;
	struct ring_buffer *exit_rb; /* and online_rb */
	bool ended; /* the kernel disabled it (exit_rb) */
	__u64 asks_seen; /* topo_asks served, ~0 before the first pass */
	int asks_retry; /* sysfs reads left for them (it may lag) */
};

enum run_end { RUN_STOPPED, RUN_EJECTED };

static int on_exit_event(void *ctx, void *data, size_t len)
{
	(void)data;
	(void)len;
	((struct sched *)ctx)->ended = true;
	return 0;
}

/* A fenced CPU came online: sched_wait() sees topo_asks move. */
static int on_online_event(void *ctx, void *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	return 0;
}

static void sched_destroy(struct sched *s)
{
	ring_buffer__free(s->exit_rb);
	bpf_link__destroy(s->ops_link);
	bpf_link__destroy(s->commit_link);
	bpf_link__destroy(s->dead_link);
	coresched__destroy(s->skel);
	memset(s, 0, sizeof(*s));
}

/*
 * If we switched SMT off (fail-mode closed), switch it on again, once the
 * scheduler is attached: attaching runs sched_ext's enable transition, in
 * which every task runs in bypass mode, without isolation, so it must
 * happen while the siblings are offline (the topology comes from the
 * cache then). They come up under the scheduler, which isolates them as
 * it does any CPU coming online. If SMT stays off, isolation holds still.
 */
static void smt_back_on(void)
{
	char err[256];
	__u64 t0 = cs_now_ns();
	int ret = cs_smt_restore(err, sizeof(err));

	if (ret < 0)
		fprintf(stderr, "scx_coresched: %s; SMT stays off\n", err);
	else if (ret > 0)
		fprintf(stderr,
			"scx_coresched: isolating; SMT switched back on in %.1f ms, after the scheduler was attached\n",
			(double)(cs_now_ns() - t0) / 1e6);
}

/*
 * Wait until sched_ext's enable transition is over (first_dispatch_ns in
 * bpf/coresched.bpf.c), then one default slice (20 ms) more, for the
 * tasks it left running to be preempted by their first tick; at most
 * CS_SETTLE_WAIT_MS, then say so.
 */
#define CS_SETTLE_WAIT_MS 5000
static void settle(struct sched *s)
{
	__u64 t0 = cs_now_ns();

	while (!__atomic_load_n(&s->skel->bss->first_dispatch_ns,
				__ATOMIC_SEQ_CST)) {
		if (cs_now_ns() - t0 > CS_SETTLE_WAIT_MS * 1000000ULL) {
			fprintf(stderr,
				"scx_coresched: no CPU has asked the scheduler for work %d ms after it was attached; tasks queued while sched_ext attached it may still run unclaimed\n",
				CS_SETTLE_WAIT_MS);
			return;
		}
		usleep(1000);
	}
	usleep(20000);
	step("enable transition over");
}

/* Attach tracing program @prog; NULL, with a message naming @what, if not. */
static struct bpf_link *attach_hook(struct bpf_program *prog, const char *what,
				    char *err, size_t len)
{
	struct bpf_link *link = bpf_program__attach(prog);

	if (!link)
		snprintf(err, len, "cannot attach the %s: %s", what,
			 strerror(errno));
	return link;
}

/* Load and attach the scheduler. 0, or -1 with a message in @err. */
static int sched_start(struct sched *s, const struct opts *o,
		       const struct cs_topo *topo, char *err, size_t len)
{
	/* -vv: also the verifier's statistics for every program. */
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .pin_root_path = CS_PIN_DIR,
		    .kernel_log_level = verbose >= 2 ? 4 : 0);
	int ret;

	memset(s, 0, sizeof(*s));
	s->skel = coresched__open_opts(&open_opts);
	if (!s->skel) {
		snprintf(err, len, "cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	set_topology(s->skel, topo);
	s->skel->rodata->mode = o->mode;
	s->skel->rodata->trust_kthreads = o->trust_kthreads;
	s->skel->rodata->slice_ns = o->slice_ns;
	s->skel->rodata->grace_ns = o->grace_ns ? o->grace_ns : o->slice_ns;
	s->skel->rodata->renew_below_ns =
		cs_renew_below(o->slice_ns, o->tick_ns);
	s->skel->rodata->renew_slice_ns =
		cs_renew_slice(o->slice_ns, o->tick_ns);
	s->skel->rodata->tick_ns = o->tick_ns;
	/* Without it (no CPU hotplug in the kernel) no CPU dies under us. */
	bpf_program__set_autoload(s->skel->progs.cs_cpu_dead,
				  cs_kernel_has("takedown_cpu", BTF_KIND_FUNC,
						NULL));

	step("scheduler opened");
	ret = coresched__load(s->skel);
	step("scheduler loaded (verified)");
	if (ret) {
		snprintf(err, len,
			 "cannot load the BPF scheduler (%s); if %s holds maps of an older version, stop every scx_coresched and remove it: rm -rf %s (tags are lost)",
			 strerror(-ret), CS_PIN_DIR, CS_PIN_DIR);
		goto fail;
	}
	s->exit_rb = ring_buffer__new(bpf_map__fd(s->skel->maps.exit_rb),
				      on_exit_event, s, NULL);
	if (!s->exit_rb ||
	    ring_buffer__add(s->exit_rb, bpf_map__fd(s->skel->maps.online_rb),
			     on_online_event, s)) {
		snprintf(err, len, "cannot open the exit ring buffers: %s",
			 strerror(errno));
		goto fail;
	}
	s->asks_seen = ~0ULL;
	s->commit_link =
		attach_hook(s->skel->progs.cs_commit,
			    "context-switch commit hook (sched_switch)", err,
			    len);
	if (!s->commit_link)
		goto fail;
	if (bpf_program__autoload(s->skel->progs.cs_cpu_dead)) {
		s->dead_link =
			attach_hook(s->skel->progs.cs_cpu_dead,
				    "CPU-death hook (fexit on takedown_cpu)",
				    err, len);
		if (!s->dead_link)
			goto fail;
	}
	step("hooks attached");
	s->ops_link = bpf_map__attach_struct_ops(s->skel->maps.coresched_ops);
	step("scheduler attached (enabled)");
	if (!s->ops_link) {
		snprintf(err, len,
			 "cannot attach the scheduler: %s (is another sched_ext scheduler loading?)",
			 strerror(errno));
		goto fail;
	}
	settle(s);
	smt_back_on();
	return 0;
fail:
	sched_destroy(s);
	return -1;
}

/*
 * CPUs whose siblings were unknown (offline at load) came online, or may
 * have between the topology read and the attach: read their siblings from
 * sysfs, place them in @topo and unfence them. If sysfs shows none of them
 * yet, read it again at the next intervals, CS_ASK_RETRIES times.
 */
#define CS_ASK_RETRIES 5
static void serve_fenced(struct sched *s, struct cs_topo *topo)
{
	__u64 asks =
		__atomic_load_n(&s->skel->bss->topo_asks, __ATOMIC_SEQ_CST);
	int added[CS_MAX_CPUS], n, i, cpu;
	char err[512];

	if (asks != s->asks_seen) {
		s->asks_seen = asks;
		s->asks_retry = CS_ASK_RETRIES;
	}
	if (s->asks_retry <= 0)
		return;
	s->asks_retry--;
	if (!cs_topo_nr_unknown(topo)) { /* none fenced */
		s->asks_retry = 0;
		return;
	}
	n = cs_topo_place_online(topo, "/sys/devices/system/cpu", added,
				 CS_MAX_CPUS, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr,
			"scx_coresched: CPUs that came online stay fenced (they run only their own kernel threads): %s\n",
			err);
		s->asks_retry = 0;
		return;
	}
	if (err[0])
		fprintf(stderr, "scx_coresched: %s\n", err);
	for (i = 0; i < n; i++) {
		cpu = added[i];
		unfence(s->skel, topo, cpu);
		fprintf(stderr,
			"scx_coresched: CPU %d came online: thread %d of core %d (%d threads), isolated from now on\n",
			cpu, topo->cpu_sib[cpu] + 1, topo->cpu_core[cpu],
			topo->core_nr[topo->cpu_core[cpu]]);
	}
	if (n || err[0])
		s->asks_retry = 0;
	/* Every CPU placed: a closed-mode restart may use this topology. */
	if (n && !cs_topo_nr_unknown(topo))
		cs_topo_save(topo);
}

/*
 * Print statistics until a signal stops us or the kernel disables the
 * scheduler. The exit ring buffer wakes us the moment ops.exit runs, the
 * online one when a fenced CPU comes online.
 */
static enum run_end sched_wait(struct sched *s, const struct opts *o,
			       struct cs_topo *topo)
{
	int wait_ms = o->stats_secs > 0 ? (int)(o->stats_secs * 1000) : 1000;
	/* aligned_alloc: the per-CPU stats are cache-line aligned. */
	struct cs_snapshot *prev = aligned_alloc(64, sizeof(*prev));
	struct cs_snapshot *cur = aligned_alloc(64, sizeof(*cur));
	static struct cs_interval iv;
	__u64 next = cs_now_ns() + (__u64)wait_ms * 1000000;

	if (!prev || !cur)
		die("out of memory");
	memset(prev, 0, sizeof(*prev));
	memset(cur, 0, sizeof(*cur));
	snapshot(s->skel, prev);
	while (!stop && !s->ended && !s->skel->bss->exit_info.kind) {
		__u64 now = cs_now_ns();

		serve_fenced(s, topo);
		if (now < next) {
			ring_buffer__poll(s->exit_rb,
					  (int)((next - now) / 1000000) + 1);
			continue;
		}
		next = now + (__u64)wait_ms * 1000000;
		snapshot(s->skel, cur);
		cs_interval_compute(topo, prev, cur, &iv);
		if (o->stats_secs > 0)
			cs_interval_print(stdout, topo, cur, &iv, o->json);
		cs_stats_publish(topo, cur, &iv); /* coreschedctl stats */
		*prev = *cur;
	}
	free(prev);
	free(cur);
	return stop ? RUN_STOPPED : RUN_EJECTED;
}

/*
 * The kernel's debug dump of an ejection, each line marked so that logs
 * can be filtered: what every CPU ran and held queued, which is where a
 * stalled task waited.
 */
static void print_dump(const char *dump, size_t size)
{
	size_t n = strnlen(dump, size);
	const char *p = dump, *end = dump + n, *nl;

	fprintf(stderr, "scx_coresched: the kernel's state at the ejection:\n");
	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		fprintf(stderr, "scx_coresched: dump: %.*s\n", (int)(nl - p), p);
		p = nl + 1;
	}
	/* bpf_probe_read_kernel_str() keeps a NUL: a full buffer holds size - 1 */
	if (n + 1 >= size)
		fprintf(stderr, "scx_coresched: dump: (cut at %zu bytes)\n", n);
}

static void log_exit(struct sched *s)
{
	struct cs_exit_info *ei = &s->skel->bss->exit_info;

	fprintf(stderr, "scx_coresched: detached: %s%s%s\n",
		ei->reason[0] ? ei->reason : "unknown", ei->msg[0] ? ": " : "",
		ei->msg);
	if (ei->dump[0])
		print_dump(ei->dump, sizeof(ei->dump));
}

/*
 * The SMT topology from sysfs; else the one cached at the last start with
 * every CPU online (SMT switched off by --fail-mode closed); else that of
 * the online CPUs, the others fenced until they come online.
 */
static void read_topology(struct cs_topo *topo)
{
	char err[512], err2[512];

	if (!cs_topo_read(topo, "/sys/devices/system/cpu", err, sizeof(err))) {
		cs_topo_save(topo);
		return;
	}
	if (!cs_topo_load(topo)) {
		fprintf(stderr,
			"scx_coresched: using the topology cached at the last start instead of sysfs, which says: %s\n",
			err);
		return;
	}
	if (cs_topo_read_online(topo, "/sys/devices/system/cpu", err2,
				sizeof(err2)))
		die("%s", err2);
	fprintf(stderr,
		"scx_coresched: %d possible CPUs are offline, their siblings unknown: each runs only its own kernel threads until it comes online and its siblings are read\n",
		cs_topo_nr_unknown(topo));
}

/* Delay before restart number @n after an ejection: 0, 250 ms, ... 8 s. */
static unsigned int restart_delay_ms(int n)
{
	return n <= 1 ? 0 : n > 6 ? 8000 : 250u << (n - 2);
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct cs_tagging_plan plan;
	struct cs_topo topo;
	struct drain_arg drain = { 0 };
	struct sched s;
	char err[768];
	int restarts = 0, gfd = -1;
	__u64 lost_at = 0, started_at = 0;
	pid_t guard = 0;
	enum run_end end;

	parse_opts(argc, argv, &o);
	o.tick_ns = kernel_tick_ns();
	libbpf_set_print(libbpf_print);
	if (o.uninstall) {
		if (geteuid() != 0)
			die("--uninstall needs root");
		if (cs_tagging_uninstall(err, sizeof(err)))
			die("%s", err);
		return 0;
	}
	step("start");
	check_kernel(&o);
	step("kernel checked");
	read_topology(&topo);
	step("topology read");
	if (cs_tagging_install(topo.smt > 1, o.prctl, verbose, &restarts,
			       &plan, err, sizeof(err)))
		die("%s", err);
	fprintf(stderr, "scx_coresched: %s\n", cs_plan_describe(&plan));
	if (cs_fork_lost())
		fprintf(stderr,
			"scx_coresched: WARNING: %llu children of tagged tasks (since the tagging programs were first installed) could not inherit their parent's cookie at fork, nor be recorded for it: those still alive, and their children, run alone on their cores (cookie 'lost'); restart those tenants to give them their cookies back\n",
			(unsigned long long)cs_fork_lost());
	if (restarts)
		fprintf(stderr,
			"scx_coresched: %d tasks held cookies of the kernel's own core scheduling: they keep their trust domains under ours\n",
			restarts);
	step("tagging programs installed");
	restarts = cs_prune_cgroup_tags();
	if (restarts && verbose)
		fprintf(stderr,
			"scx_coresched: dropped the tags of %d removed cgroups\n",
			restarts);
	/* policy hook: tag cgroups as the policy file says, now and later */
	if (cs_policy_apply(o.policy, verbose, err, sizeof(err)))
		die("%s", err);
	step("tags pruned, policy applied");
	restarts = 0;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	for (;;) {
		if (sched_start(&s, &o, &topo, err, sizeof(err))) {
			if (!lost_at)
				die("%s", err);
			fprintf(stderr, "scx_coresched: restart failed: %s\n", err);
			goto again;
		}
		started_at = cs_now_ns();
		if (o.fail_mode == CS_FAIL_CLOSED) {
			drain.skel = s.skel;
			guard = cs_guard_start(&gfd, cs_drain_siblings, &drain);
			if (guard < 0)
				die("cannot start the guard process: %s",
				    strerror(errno));
		}
		if (lost_at)
			fprintf(stderr,
				"scx_coresched: isolating again %.1f ms after it was lost (restart %d)\n",
				(double)(started_at - lost_at) / 1e6, restarts);
		else
			print_enabled(&o, &topo);
		lost_at = 0;
		/* Unprivileged cgroup tagging; once, stopped at exit. */
		cs_ctlsock_start(verbose);

		end = sched_wait(&s, &o, &topo);
		if (end == RUN_EJECTED)
			lost_at = cs_now_ns();
		/* Closed: SMT goes off before the scheduler lets go (if it still holds). */
		if (o.fail_mode == CS_FAIL_CLOSED) {
			/* Still attached after a stop: drain first. */
			if (end == RUN_STOPPED)
				cs_drain_siblings(&drain);
			if (cs_smt_off(err, sizeof(err)))
				fprintf(stderr, "scx_coresched: %s\n", err);
			else if (end == RUN_EJECTED)
				fprintf(stderr,
					"scx_coresched: SMT off %.1f ms after isolation was lost\n",
					(double)(cs_now_ns() - lost_at) / 1e6);
			cs_guard_stop(guard, gfd);
			guard = 0;
			gfd = -1;
		}
		/* Detaching runs ops.exit, which fills in the exit reason. */
		bpf_link__destroy(s.ops_link);
		s.ops_link = NULL;
		log_exit(&s);
		sched_destroy(&s);
		if (end == RUN_STOPPED) {
			if (o.fail_mode == CS_FAIL_CLOSED)
				fprintf(stderr,
					"scx_coresched: SMT stays off (fail-mode closed); start scx_coresched again, or switch it on: echo on > %s\n",
					CS_SMT_CONTROL);
			return 0;
		}
		fprintf(stderr, "scx_coresched: the kernel ejected the scheduler: isolation is %s\n",
			o.fail_mode == CS_FAIL_CLOSED ? "closed by SMT off" : "OFF until it restarts");
		if (!o.restart)
			return 1;
		if (cs_now_ns() - started_at > 30ULL * 1000000000)
			restarts = 0;
again:
		restarts++;
		usleep(restart_delay_ms(restarts) * 1000);
		if (stop)
			return 1;
	}
}
