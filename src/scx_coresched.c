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
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cs_common.h"
#include "cs_policy.h"
#include "cs_report.h"
#include "cs_topo.h"

/* The skeleton spells the BPF side's global variables with kernel types. */
typedef __u8 u8;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
#include "coresched.skel.h"

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
	"  -S, --stats SECS     print statistics every SECS seconds\n"
	"  -j, --json           print statistics as JSON lines\n"
	"  -v, --verbose        more messages (twice: libbpf debug output)\n"
	"  -h, --help           this help\n"
	"\n"
	"Statistics: forced idle as % of CPU time (total and per core), each\n"
	"cookie's share of charged core time, cookie switches/s, sibling kicks/s\n"
	"and the worst enqueue-to-run wait in the interval.\n"
	"\n"
	"Tags live in maps pinned under " CS_PIN_DIR " and survive a restart.\n";

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
	double stats_secs;
	bool json;
};

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "trust-kthreads", no_argument, NULL, 'k' },
		{ "slice-us", required_argument, NULL, 's' },
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
	while ((c = getopt_long(argc, argv, "m:ks:S:jvh", lopts, NULL)) != -1) {
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
		case 's': {
			long us = strtol(optarg, &end, 10);

			if (*end || us < 100 || us > 1000000)
				die("--slice-us '%s': give microseconds from 100 to 1000000", optarg);
			o->slice_ns = (__u64)us * 1000;
			break;
		}
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

static void check_kernel(void)
{
	char state[64], ops[64];
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
	if (mkdir(CS_PIN_DIR, 0700) && errno != EEXIST)
		die("cannot create %s: %s", CS_PIN_DIR, strerror(errno));
}

/* Forget per-task tags of tasks that died while no scheduler ran. */
static void prune_task_tags(int fd)
{
	__u32 key, next, *prev = NULL;
	__u32 dead[256];
	int n = 0, i;
	char path[64];

	while (!bpf_map_get_next_key(fd, prev, &next) && n < 256) {
		snprintf(path, sizeof(path), "/proc/%u", next);
		if (access(path, F_OK))
			dead[n++] = next;
		key = next;
		prev = &key;
	}
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &dead[i]);
	if (n && verbose)
		fprintf(stderr, "scx_coresched: dropped %d tags of exited tasks\n", n);
}

static void set_topology(struct coresched *skel, const struct cs_topo *t)
{
	int cpu, core, i;

	skel->rodata->nr_cpus = t->nr_cpus;
	for (cpu = 0; cpu < CS_MAX_CPUS; cpu++) {
		skel->rodata->cpu_core[cpu] = t->cpu_core[cpu] < 0 ? 0 : t->cpu_core[cpu];
		skel->rodata->cpu_sib[cpu] = t->cpu_sib[cpu];
	}
	for (core = 0; core < CS_MAX_CPUS; core++) {
		skel->rodata->core_nr[core] = t->core_nr[core];
		for (i = 0; i < CS_MAX_SMT; i++)
			skel->rodata->core_cpu[core][i] =
				t->core_cpu[core][i] < 0 ? 0xff : t->core_cpu[core][i];
	}
}

static void snapshot(struct coresched *skel, struct cs_snapshot *s)
{
	int cpu;

	s->t_ns = cs_now_ns();
	memcpy(s->live_mask, skel->bss->live_mask, sizeof(s->live_mask));
	memcpy(s->cpu, skel->bss->cpu_stats, sizeof(s->cpu));
	memcpy(s->slot, skel->bss->slot_stats, sizeof(s->slot));
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

int main(int argc, char **argv)
{
	struct cs_snapshot *prev = calloc(1, sizeof(*prev));
	struct cs_snapshot *cur = calloc(1, sizeof(*cur));
	struct bpf_link *ops_link, *commit_link;
	struct coresched *skel;
	struct cs_interval iv;
	struct cs_topo topo;
	struct opts o = { 0 };
	char err[512];
	int ret;

	parse_opts(argc, argv, &o);
	libbpf_set_print(libbpf_print);
	check_kernel();
	if (cs_topo_read(&topo, "/sys/devices/system/cpu", err, sizeof(err)))
		die("%s", err);
	if (!prev || !cur)
		die("out of memory");

	/* -vv: also the verifier's statistics for every program. */
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .pin_root_path = CS_PIN_DIR,
		    .kernel_log_level = verbose >= 2 ? 4 : 0);
	skel = coresched__open_opts(&open_opts);
	if (!skel)
		die("cannot open the BPF object: %s", strerror(errno));
	set_topology(skel, &topo);
	skel->rodata->mode = o.mode;
	skel->rodata->trust_kthreads = o.trust_kthreads;
	skel->rodata->slice_ns = o.slice_ns;
	skel->rodata->grace_ns = o.slice_ns;

	ret = coresched__load(skel);
	if (ret)
		die("cannot load the BPF scheduler (%s); if %s holds maps of an older version, remove it: rm -rf %s",
		    strerror(-ret), CS_PIN_DIR, CS_PIN_DIR);
	prune_task_tags(bpf_map__fd(skel->maps.cs_task_tag));

	commit_link = bpf_program__attach(skel->progs.cs_commit);
	if (!commit_link)
		die("cannot attach the context-switch commit hook (sched_switch): %s",
		    strerror(errno));

	ops_link = bpf_map__attach_struct_ops(skel->maps.coresched_ops);
	if (!ops_link)
		die("cannot attach the scheduler: %s (is another sched_ext scheduler loading?)",
		    strerror(errno));

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr,
		"scx_coresched: enabled, mode %s, %d CPUs in %d cores (SMT %d), slice %llu us, kernel threads %s\n",
		mode_name(o.mode), topo.nr_cpus, topo.nr_cores, topo.smt,
		(unsigned long long)(o.slice_ns / 1000),
		o.trust_kthreads ? "trusted" : "untagged");

	snapshot(skel, prev);
	while (!stop && !skel->bss->exit_info.kind) {
		usleep(o.stats_secs > 0 ? (useconds_t)(o.stats_secs * 1e6) : 200000);
		if (o.stats_secs <= 0 || stop || skel->bss->exit_info.kind)
			continue;
		snapshot(skel, cur);
		cs_interval_compute(&topo, prev, cur, &iv);
		cs_interval_print(stdout, &topo, cur, &iv, o.json);
		*prev = *cur;
	}

	bpf_link__destroy(ops_link);
	bpf_link__destroy(commit_link);
	ret = skel->bss->exit_info.kind >= 1024; /* SCX_EXIT_ERROR and up */
	fprintf(stderr, "scx_coresched: detached: %s%s%s\n",
		skel->bss->exit_info.reason[0] ? skel->bss->exit_info.reason : "unknown",
		skel->bss->exit_info.msg[0] ? ": " : "", skel->bss->exit_info.msg);
	coresched__destroy(skel);
	free(prev);
	free(cur);
	return ret;
}
