// SPDX-License-Identifier: GPL-2.0-only
/*
 * coresched-audit: an outside auditor of SMT isolation for any core
 * scheduler. It watches sched_switch, derives every task's cookie on its
 * own (scx_coresched's tags, the kernel's core_cookie, or a cgroup per
 * tenant) and measures how long SMT siblings ran tasks of incompatible
 * cookies at the same time, the forced idle and each cookie's share. The
 * design, with a worked example, is at the top of bpf/audit.bpf.c; this
 * file holds the command line and the run loop (see cs_audit.h for the
 * other parts).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "coreschedctl.h"
#include "cs_audit.h"
#include "cs_common.h"
#include "cs_trace.h"

#define PROG CS_AUDIT_PROG
#define NSEC_PER_SEC 1000000000ULL
#define POLL_NS (50 * 1000000ULL)
/* Records of different CPUs arrive this much out of order at most. */
#define REORDER_NS (250 * 1000000ULL)
#define DEFAULT_DURATION_S 10
#define CPU_SYSFS "/sys/devices/system/cpu"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static volatile sig_atomic_t stop;
static bool verbose;

static const char usage_text[] =
	"Usage: " PROG " [OPTIONS]\n"
	"       " PROG " render TRACE -o OUT.svg [--title TEXT]\n"
	"\n"
	"Audit SMT isolation from the outside, for any core scheduler: watch\n"
	"every context switch, derive each task's cookie on its own and\n"
	"measure how long SMT siblings ran tasks of incompatible cookies at\n"
	"the same time (overlap), forced idle and each cookie's share of CPU\n"
	"time. It never reads the scheduler's decisions.\n"
	"\n"
	"Cookie sources:\n"
	"  --source ours      the tag maps scx_coresched pins in\n"
	"                     " CS_PIN_DIR " (task tag, else nearest\n"
	"                     tagged cgroup, else 0); the default\n"
	"  --source upstream  the kernel's core scheduling cookie\n"
	"                     (task->core_cookie, prctl PR_SCHED_CORE;\n"
	"                     needs CONFIG_SCHED_CORE)\n"
	"  --tenant NAME=CGROUP\n"
	"                     a tenant: the tasks in cgroup v2 directory CGROUP\n"
	"                     (absolute, or relative to " CS_CGROUP_ROOT ")\n"
	"                     and below it; repeatable, up to 64; implies\n"
	"                     --source tenant. Tasks outside every tenant share\n"
	"                     one cookie; the nearest tenant cgroup wins.\n"
	"\n"
	"Options:\n"
	"  --mode strict|fill|none\n"
	"      which cookies may share a core (default strict). strict:\n"
	"      equal ones; fill: also cookie 0 with any; none: all\n"
	"      (for measuring only).\n"
	"  --trust-kthreads   kernel threads are compatible with everything\n"
	"  --exempt-foreign-kthreads\n"
	"                     stop/RT/deadline kernel threads (migration/N, cpuhp/N,\n"
	"                     ...), which no sched_ext scheduler controls, are\n"
	"                     compatible with everything\n"
	"  --duration SECS    audit SECS seconds (default 10), or until\n"
	"                     SIGINT/SIGTERM\n"
	"  --interval SECS    also print the figures of every SECS seconds\n"
	"  --json             print JSON: one object per interval and a final\n"
	"                     one with \"type\":\"summary\"\n"
	"  --trace FILE       write a Chrome/Perfetto trace (ui.perfetto.dev):\n"
	"                     a track per CPU grouped by core, slices named by\n"
	"                     cookie, forced idle and overlap windows marked\n"
	"  --require-zero     accepted for old scripts; overlap always exits 1\n"
	"  -v, --verbose      always list example windows; show libbpf's log\n"
	"  -h, --help         show this help\n"
	"\n"
	"render TRACE -o OUT.svg draws a trace written by --trace as an SVG\n"
	"timeline: rows per CPU grouped by core, a colour per cookie, overlap\n"
	"windows in red, a time axis.\n"
	"\n"
	"Exit status: 0 no overlap seen (and no record lost); 1 overlap seen, or\n"
	"records were lost so that overlap cannot be ruled out; 2 bad usage or\n"
	"setup error.\n";

static void die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "; see '" PROG " --help'\n");
	exit(CS_AUDIT_EXIT_ERROR);
}

static int lookup(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static __u64 parse_secs(const char *opt, const char *s)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(d) || d <= 0 || d > 1e9) {
		fprintf(stderr,
			PROG ": %s '%s' is not a positive number of seconds; "
			"see '" PROG " --help'\n", opt, s);
		exit(CS_AUDIT_EXIT_ERROR);
	}
	return (__u64)(d * NSEC_PER_SEC);
}

/* --tenant NAME=CGROUP: the cgroup must exist now; names are unique. */
static void add_tenant(struct cs_audit_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct cs_audit_tenant *t = &o->tenant[o->nr_tenants];
	int err, i;

	if (o->nr_tenants == CS_AUDIT_MAX_TENANTS)
		die_usage("--tenant '%s': more than 64 tenants", arg);
	if (!eq || eq == arg || !eq[1])
		die_usage("--tenant '%s' is not NAME=CGROUP", arg);
	if (eq - arg >= CS_AUDIT_MAX_NAME)
		die_usage("--tenant '%s': the name is longer than 63 bytes",
			  arg);
	memcpy(t->name, arg, eq - arg);
	t->name[eq - arg] = '\0';
	if (!ctl_cgroup_path(eq + 1, t->path, sizeof(t->path)))
		die_usage("--tenant '%s': the path is too long", arg);
	err = cs_cgroup_id(t->path, &t->cgid);
	if (err) {
		fprintf(stderr,
			PROG ": --tenant %s: %s is not a cgroup v2 directory "
			"(%s); create it first, or name an existing one\n",
			t->name, t->path, strerror(-err));
		exit(CS_AUDIT_EXIT_ERROR);
	}
	for (i = 0; i < o->nr_tenants; i++) {
		if (!strcmp(o->tenant[i].name, t->name))
			die_usage("--tenant: the name '%s' is given twice",
				  t->name);
		if (o->tenant[i].cgid == t->cgid)
			die_usage("--tenant: the cgroup %s is given twice",
				  t->path);
	}
	o->nr_tenants++;
}

static void parse_args(int argc, char **argv, struct cs_audit_opts *o)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "tenant", required_argument, NULL, 'T' },
		{ "mode", required_argument, NULL, 'm' },
		{ "trust-kthreads", no_argument, NULL, 'k' },
		{ "exempt-foreign-kthreads", no_argument, NULL, 'F' },
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "trace", required_argument, NULL, 't' },
		{ "require-zero", no_argument, NULL, 'z' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	bool source_set = false;
	int c, v;

	memset(o, 0, sizeof(*o));
	o->duration_ns = DEFAULT_DURATION_S * NSEC_PER_SEC;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":vh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			v = lookup(cs_audit_source_names,
				   ARRAY_SIZE(cs_audit_source_names), optarg);
			if (v < 0)
				die_usage("--source '%s' is not ours, upstream "
					  "or tenant", optarg);
			o->source = v;
			source_set = true;
			break;
		case 'T':
			add_tenant(o, optarg);
			break;
		case 'm':
			v = lookup(cs_audit_mode_names,
				   ARRAY_SIZE(cs_audit_mode_names), optarg);
			if (v < 0)
				die_usage("--mode '%s' is not strict, fill or "
					  "none", optarg);
			o->mode = v;
			break;
		case 'k':
			o->trust_kthreads = true;
			break;
		case 'F':
			o->exempt_foreign = true;
			break;
		case 'd':
			o->duration_ns = parse_secs("--duration", optarg);
			break;
		case 'i':
			o->interval_ns = parse_secs("--interval", optarg);
			break;
		case 'j':
			o->json = true;
			break;
		case 't':
			o->trace_path = optarg;
			break;
		case 'z':
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(CS_AUDIT_EXIT_CLEAN);
		case ':':
			die_usage("option '%s' needs a value",
				  argv[optind - 1]);
			break;
		default:
			die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (o->nr_tenants && source_set && o->source != OBS_SRC_TENANT)
		die_usage("--tenant cannot be combined with --source %s",
			  cs_audit_source_names[o->source]);
	if (o->nr_tenants)
		o->source = OBS_SRC_TENANT;
	if (o->source == OBS_SRC_TENANT && !o->nr_tenants)
		die_usage("--source %s needs at least one --tenant NAME=CGROUP",
			  "tenant");
}

/* render TRACE -o OUT [--title TEXT]: written whole or not at all. */
static int render(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *title = NULL;
	struct cs_trace_data d;
	char err[512], tmp[4200];
	FILE *f;
	int i, bad;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--title")) {
			if (i + 1 == argc)
				die_usage("render: '%s' needs a value", argv[i]);
			if (argv[i][1] == 'o')
				out = argv[i + 1];
			else
				title = argv[i + 1];
			i++;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return CS_AUDIT_EXIT_CLEAN;
		} else if (argv[i][0] == '-' || in) {
			die_usage("render: unexpected argument '%s'", argv[i]);
		} else {
			in = argv[i];
		}
	}
	if (!in || !out)
		die_usage("render needs %s", "a TRACE file and -o OUT.svg");
	if (cs_trace_read(in, &d, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return CS_AUDIT_EXIT_ERROR;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", out, (int)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, PROG ": cannot write %s: %s\n", tmp,
			strerror(errno));
		cs_trace_data_free(&d);
		return CS_AUDIT_EXIT_ERROR;
	}
	cs_trace_svg(f, &d, title ? title : in);
	cs_trace_data_free(&d);
	bad = ferror(f);
	if (fclose(f) || bad || rename(tmp, out)) {
		fprintf(stderr, PROG ": cannot write %s: %s\n", out,
			strerror(errno ? errno : EIO));
		unlink(tmp);
		return CS_AUDIT_EXIT_ERROR;
	}
	return CS_AUDIT_EXIT_CLEAN;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG || !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* No SA_RESTART: a signal cuts the current sleep short. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void sleep_ns(__u64 ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	nanosleep(&ts, NULL);
}

static __u64 own_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (__u64)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NSEC_PER_SEC +
	       (__u64)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static int on_record(void *ctx, void *data, size_t size)
{
	if (size != sizeof(struct obs_event))
		return -EINVAL;
	return cs_sweep_push(ctx, data);
}

/* Consume the ring buffer, then sweep what is older than @upto. */
static int drain(struct cs_sweep *s, struct ring_buffer *rb, __u64 upto)
{
	int n = ring_buffer__consume(rb);

	if (n < 0) {
		fprintf(stderr, PROG ": reading the ring buffer failed: %s\n",
			strerror(-n));
		return n;
	}
	cs_sweep_release(s, upto);
	return 0;
}

/* Audit for o->duration_ns or until a signal. */
static int run(struct audit *skel, struct cs_sweep *s,
	       const struct cs_audit_opts *o, struct cs_audit_result *r)
{
	struct cs_audit_live live = { .t = s->t0 };
	__u64 end, now, upto;
	struct ring_buffer *rb;
	int err;

	rb = ring_buffer__new(cs_audit_bpf_events_fd(skel), on_record, s,
			      NULL);
	if (!rb) {
		fprintf(stderr, PROG ": cannot map the ring buffer: %s\n",
			strerror(errno));
		return -errno;
	}
	r->cpu_ns = own_cpu_ns();
	err = cs_audit_bpf_attach(skel);
	if (!err)
		fprintf(stderr, PROG ": observing\n");
	while (!err && !stop && (now = cs_now_ns()) - s->t0 < o->duration_ns) {
		__u64 left = o->duration_ns - (now - s->t0);

		sleep_ns(left < POLL_NS ? left : POLL_NS);
		upto = cs_now_ns() - REORDER_NS;
		err = drain(s, rb, upto);
		if (!err && o->interval_ns && upto > live.t &&
		    upto - live.t >= o->interval_ns)
			cs_audit_print_interval(stdout, s, o, &live, upto);
	}
	cs_audit_bpf_detach(skel);
	end = cs_now_ns();
	if (!err)
		err = drain(s, rb, UINT64_MAX);
	cs_sweep_finish(s, end);
	r->duration_ns = end - s->t0;
	r->cpu_ns = own_cpu_ns() - r->cpu_ns;
	ring_buffer__free(rb);
	return err;
}

static int verdict(const struct cs_sweep *s)
{
	struct cs_sweep_core tot;

	cs_sweep_total(s, &tot);
	if (tot.overlap_ns)
		fprintf(stderr,
			PROG ": incompatible overlap: %llu ns in %llu windows "
			"(longest %llu ns)\n",
			(unsigned long long)tot.overlap_ns,
			(unsigned long long)tot.windows,
			(unsigned long long)tot.worst.len);
	if (!cs_sweep_verified(s))
		fprintf(stderr,
			PROG ": %llu records lost (ring buffer full) and %llu "
			"out of order: overlap cannot be ruled out\n",
			(unsigned long long)s->lost,
			(unsigned long long)s->late);
	return tot.overlap_ns || !cs_sweep_verified(s) ? CS_AUDIT_EXIT_OVERLAP
						       : CS_AUDIT_EXIT_CLEAN;
}

/*
 * A CPU offline when the topology was read has records: it came online.
 * Place it (and any other newcomer) in @ctx, the topology the sweep reads.
 */
static void place_new_cpus(void *ctx, int cpu)
{
	struct cs_topo *t = ctx;
	int added[CS_MAX_CPUS], n, i;
	char msg[512];

	n = cs_topo_place_online(t, CPU_SYSFS, added, CS_MAX_CPUS, msg,
				 sizeof(msg));
	if (n < 0) {
		fprintf(stderr,
			PROG
			": CPU %d came online; its siblings cannot be read: %s\n",
			cpu, msg);
		return;
	}
	if (msg[0])
		fprintf(stderr, PROG ": %s; its records are not checked\n",
			msg);
	for (i = 0; i < n; i++)
		fprintf(stderr,
			PROG
			": CPU %d came online: thread %d of core %d, watched from now on\n",
			added[i], t->cpu_sib[added[i]] + 1,
			t->cpu_core[added[i]]);
}

/* Set up the topology, the BPF side and the trace; audit; report. */
static int audit(const struct cs_audit_opts *o)
{
	struct cs_audit_result r = {};
	struct cs_sweep_ops ops = {};
	static struct cs_topo topo;
	struct cs_trace trace = {};
	struct audit *skel;
	struct cs_sweep *s;
	int stats_fd, err, k, pairs = 0;
	char msg[512];

	if (cs_topo_read_online(&topo, CPU_SYSFS, msg, sizeof(msg))) {
		fprintf(stderr, PROG ": %s\n", msg);
		return CS_AUDIT_EXIT_ERROR;
	}
	for (k = 0; k < topo.nr_cores; k++)
		pairs += topo.core_nr[k] > 1;
	if (!pairs)
		fprintf(stderr, PROG ": no SMT siblings online; there is no "
				"overlap to measure\n");
	s = calloc(1, sizeof(*s));
	skel = s ? cs_audit_bpf_open(o, &r.forced_idle_measured) : NULL;
	if (!skel) {
		free(s);
		return CS_AUDIT_EXIT_ERROR;
	}
	if (o->trace_path) {
		err = cs_trace_open(&trace, o->trace_path, &topo, 0,
				    cs_audit_cookie_name, (void *)o);
		if (err) {
			fprintf(stderr, PROG ": cannot write the trace %s: %s\n",
				o->trace_path, strerror(-err));
			cs_audit_bpf_close(skel);
			free(s);
			return CS_AUDIT_EXIT_ERROR;
		}
		ops.slice = cs_trace_slice;
		ops.window = cs_trace_window;
		ops.ctx = &trace;
	}
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0)
		fprintf(stderr, PROG ": bpf_cpu_ns not measured: %s\n",
			strerror(errno));
	catch_signals();
	ops.topo_miss = place_new_cpus;
	ops.topo_ctx = &topo;
	cs_sweep_init(s, &topo, o->mode, o->exempt_foreign, cs_now_ns(), &ops);
	trace.t0 = s->t0;
	err = run(skel, s, o, &r);
	cs_audit_bpf_collect(skel, &r);
	if (stats_fd >= 0)
		close(stats_fd);
	cs_audit_bpf_close(skel);
	if (o->trace_path) {
		r.trace_events = trace.events;
		r.trace_dropped = trace.dropped;
		if (cs_trace_close(&trace, cs_audit_source_names[o->source],
				   cs_audit_mode_names[o->mode]) && !err) {
			fprintf(stderr, PROG ": writing the trace %s failed\n",
				o->trace_path);
			err = -EIO;
		}
	}
	if (!err) {
		cs_audit_print(stdout, s, o, &r);
		err = verdict(s);
	} else {
		err = CS_AUDIT_EXIT_ERROR;
	}
	cs_sweep_free(s);
	free(s);
	return err;
}

int main(int argc, char **argv)
{
	struct cs_audit_opts *o;

	if (argc > 1 && !strcmp(argv[1], "render"))
		return render(argc - 1, argv + 1);
	o = calloc(1, sizeof(*o));
	if (!o) {
		fprintf(stderr, PROG ": out of memory\n");
		return CS_AUDIT_EXIT_ERROR;
	}
	parse_args(argc, argv, o);
	verbose = o->verbose;
	libbpf_set_print(libbpf_print);
	return audit(o);
}
