// SPDX-License-Identifier: GPL-2.0-only
/*
 * coresched-observe: an outside observer of SMT isolation. It watches
 * sched_switch, derives every task's cookie from the tagging alone (or from
 * the kernel's own core scheduling) and measures how long SMT siblings ran
 * tasks of incompatible cookies at the same time. The design, with a worked
 * example, is at the top of bpf/observe.bpf.c; the interface is in
 * usage_text.
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
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "coresched.h"
#include "cs_common.h"
#include "cs_topo.h"

#include "cs_observe.h"

/* --exempt-foreign-kthreads */
static bool exempt_foreign;

#include "observe.skel.h"

#define PROG "coresched-observe"
#define EXIT_OVERLAP 1
#define EXIT_UNVERIFIED 2
#define EXIT_ERROR 3
#define NSEC_PER_SEC 1000000000ULL
#define POLL_NS (50 * 1000000ULL)
#define REORDER_NS (250 * 1000000ULL)
#define MAX_EXAMPLES 5
#define MAX_PAIRS (CS_MAX_CPUS * (CS_MAX_SMT - 1) / 2)
#define CPU_SYSFS "/sys/devices/system/cpu"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct opts {
	enum obs_source source;
	enum cs_mode mode;
	bool trust_kthreads;
	bool json;
	bool require_zero;
	bool verbose;
	__u64 duration_ns;
};

struct pair {
	int a, b; /* sibling CPUs, a < b */
	__u64 last; /* observed_ns accounted up to here; 0: not yet observed */
	bool incompat; /* an overlap window is open */
	__u64 win_start;
	struct obs_event wa, wb; /* what a and b ran when it opened */
	__u64 observed_ns, overlap_ns, windows, longest_ns;
};

struct example {
	const struct pair *p;
	__u64 start, len;
	struct obs_event ea, eb;
};

struct pending {
	struct obs_event ev;
	__u64 seq; /* arrival order, to keep equal timestamps stable */
};

struct sweep {
	enum cs_mode mode;
	__u64 t0; /* start of the observation */
	__u64 now; /* timestamp of the last record swept */
	__u64 switches, late_events;
	bool online[CS_MAX_CPUS];
	bool known[CS_MAX_CPUS];
	struct obs_event cur[CS_MAX_CPUS];
	int nr_cpus;
	struct pair pairs[MAX_PAIRS];
	int nr_pairs;
	int cpu_pairs[CS_MAX_CPUS][CS_MAX_SMT - 1];
	int nr_cpu_pairs[CS_MAX_CPUS];
	struct example ex[MAX_EXAMPLES];
	int nr_ex;
	struct pending *pend;
	size_t nr_pend, cap_pend;
	__u64 seq;
};

static const char *const mode_names[] = {
	[CS_MODE_STRICT] = "strict",
	[CS_MODE_FILL] = "fill",
	[CS_MODE_NONE] = "none",
};

static const char *const source_names[] = {
	[OBS_SRC_OURS] = "ours",
	[OBS_SRC_UPSTREAM] = "upstream",
};

static volatile sig_atomic_t stop;
static bool verbose;

static const char usage_text[] =
	"Usage: " PROG " [OPTIONS]\n"
	"\n"
	"Observe SMT isolation from the outside: watch every context switch,\n"
	"derive each task's cookie on its own and measure how long SMT\n"
	"siblings ran tasks of incompatible cookies at the same time.\n"
	"\n"
	"Options:\n"
	"  --source ours|upstream\n"
	"      where cookies come from (default ours). ours: the tag maps\n"
	"      that scx_coresched pins in " CS_PIN_DIR "\n"
	"      (task tag, else nearest tagged cgroup, else 0). upstream:\n"
	"      the kernel's core scheduling cookie (prctl PR_SCHED_CORE).\n"
	"  --mode strict|fill|none\n"
	"      which cookies may share a core (default strict). strict:\n"
	"      equal ones; fill: also cookie 0 with any; none: all\n"
	"      (for measuring only).\n"
	"  --trust-kthreads   kernel threads are compatible with everything\n"
	"  --exempt-foreign-kthreads\n"
	"                     stop/RT/deadline kernel threads (migration/N, cpuhp/N,\n"
	"                     ...), which no sched_ext scheduler controls, are\n"
	"                     compatible with everything\n"
	"  --duration SECS    observe SECS seconds (default 10), or until\n"
	"                     SIGINT/SIGTERM\n"
	"  --json             print the results as one JSON object\n"
	"  --require-zero     exit 1 if any incompatible overlap was seen\n"
	"  -v, --verbose      always list example windows; show libbpf's log\n"
	"  -h, --help         show this help\n"
	"\n"
	"Exit status: 0 measured; 1 overlap seen with --require-zero;\n"
	"2 events were lost, isolation cannot be verified; 3 bad usage or\n"
	"setup error.\n";

static void die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "; see '" PROG " --help'\n");
	exit(EXIT_ERROR);
}

static int lookup(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static __u64 parse_duration(const char *s)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(d) || d <= 0 || d > 1e9)
		die_usage("--duration '%s' is not a positive number of seconds",
			  s);
	return (__u64)(d * NSEC_PER_SEC);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'm' },
		{ "trust-kthreads", no_argument, NULL, 'k' },
		{ "exempt-foreign-kthreads", no_argument, NULL, 'F' },
		{ "duration", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "require-zero", no_argument, NULL, 'z' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c, v;

	*o = (struct opts){ .duration_ns = 10 * NSEC_PER_SEC };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":vh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			v = lookup(source_names, ARRAY_SIZE(source_names),
				   optarg);
			if (v < 0)
				die_usage("--source '%s' is not ours or "
					  "upstream", optarg);
			o->source = v;
			break;
		case 'm':
			v = lookup(mode_names, ARRAY_SIZE(mode_names), optarg);
			if (v < 0)
				die_usage("--mode '%s' is not strict, fill or "
					  "none", optarg);
			o->mode = v;
			break;
		case 'k':
			o->trust_kthreads = true;
			break;
		case 'F':
			exempt_foreign = true;
			break;
		case 'd':
			o->duration_ns = parse_duration(optarg);
			break;
		case 'j':
			o->json = true;
			break;
		case 'z':
			o->require_zero = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
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
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG || !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int add_pair(struct sweep *s, int a, int b)
{
	struct pair *p = &s->pairs[s->nr_pairs];

	if (s->nr_pairs == MAX_PAIRS || s->nr_cpu_pairs[a] == CS_MAX_SMT - 1 ||
	    s->nr_cpu_pairs[b] == CS_MAX_SMT - 1)
		return -E2BIG;
	p->a = a;
	p->b = b;
	s->cpu_pairs[a][s->nr_cpu_pairs[a]++] = s->nr_pairs;
	s->cpu_pairs[b][s->nr_cpu_pairs[b]++] = s->nr_pairs;
	s->nr_pairs++;
	return 0;
}

static int load_topology(struct sweep *s)
{
	bool sib[CS_MAX_CPUS];
	char path[128];
	int a, b, n, err;

	n = cs_read_cpulist(CPU_SYSFS "/online", s->online, CS_MAX_CPUS);
	err = n < 0 ? n : 0;
	for (a = 0; !err && a < CS_MAX_CPUS; a++) {
		if (!s->online[a])
			continue;
		s->nr_cpus++;
		snprintf(path, sizeof(path),
			 CPU_SYSFS "/cpu%d/topology/thread_siblings_list", a);
		n = cs_read_cpulist(path, sib, CS_MAX_CPUS);
		err = n < 0 ? n : 0;
		for (b = a + 1; !err && b < CS_MAX_CPUS; b++)
			if (sib[b] && s->online[b])
				err = add_pair(s, a, b);
	}
	if (err)
		fprintf(stderr,
			PROG ": cannot read the CPU topology from " CPU_SYSFS
			" (at most %d CPUs, %d SMT threads): %s\n",
			CS_MAX_CPUS, CS_MAX_SMT, strerror(-err));
	else if (!s->nr_pairs)
		fprintf(stderr, PROG ": no SMT siblings online; "
				"there is no overlap to measure\n");
	return err;
}

/* An RT/DL/stop kernel thread counts as a task unless exempted. */
static bool counts(const struct obs_event *x)
{
	return x->class == OBS_TASK ||
	       (x->class == OBS_FOREIGN && !exempt_foreign);
}

static bool compatible(const struct obs_event *x, const struct obs_event *y,
		       enum cs_mode mode)
{
	if (!counts(x) || !counts(y))
		return true;
	if (mode == CS_MODE_NONE || x->cookie == y->cookie)
		return true;
	return mode == CS_MODE_FILL && (!x->cookie || !y->cookie);
}

/* Keep the MAX_EXAMPLES longest windows. */
static void keep_example(struct sweep *s, const struct pair *p, __u64 len)
{
	struct example *e = &s->ex[0];
	int i;

	if (s->nr_ex < MAX_EXAMPLES) {
		e = &s->ex[s->nr_ex++];
	} else {
		for (i = 1; i < MAX_EXAMPLES; i++)
			if (s->ex[i].len < e->len)
				e = &s->ex[i];
		if (e->len >= len)
			return;
	}
	*e = (struct example){ p, p->win_start - s->t0, len, p->wa, p->wb };
}

static void close_window(struct sweep *s, struct pair *p, __u64 t)
{
	__u64 len = t - p->win_start;

	p->incompat = false;
	if (!len)
		return;
	p->overlap_ns += len;
	p->windows++;
	if (len > p->longest_ns)
		p->longest_ns = len;
	keep_example(s, p, len);
}

static void update_pair(struct sweep *s, struct pair *p, __u64 t)
{
	bool incompat;

	if (!s->known[p->a] || !s->known[p->b])
		return;
	if (p->last)
		p->observed_ns += t - p->last;
	p->last = t;
	incompat = !compatible(&s->cur[p->a], &s->cur[p->b], s->mode);
	if (incompat && !p->incompat) {
		p->incompat = true;
		p->win_start = t;
		p->wa = s->cur[p->a];
		p->wb = s->cur[p->b];
	} else if (!incompat && p->incompat) {
		close_window(s, p, t);
	}
}

static void sweep_one(struct sweep *s, const struct obs_event *ev)
{
	int i, c = ev->cpu;

	s->switches++;
	s->now = ev->ts;
	if (c >= CS_MAX_CPUS)
		return;
	s->cur[c] = *ev;
	s->known[c] = true;
	for (i = 0; i < s->nr_cpu_pairs[c]; i++)
		update_pair(s, &s->pairs[s->cpu_pairs[c][i]], ev->ts);
}

static int cmp_pending(const void *x, const void *y)
{
	const struct pending *a = x, *b = y;

	if (a->ev.ts != b->ev.ts)
		return a->ev.ts < b->ev.ts ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sweep the pending records older than @upto, in timestamp order. */
static void release(struct sweep *s, __u64 upto)
{
	size_t i;

	qsort(s->pend, s->nr_pend, sizeof(*s->pend), cmp_pending);
	for (i = 0; i < s->nr_pend && s->pend[i].ev.ts < upto; i++)
		sweep_one(s, &s->pend[i].ev);
	s->nr_pend -= i;
	memmove(s->pend, s->pend + i, s->nr_pend * sizeof(*s->pend));
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct sweep *s = ctx;
	const struct obs_event *ev = data;

	if (size != sizeof(*ev))
		return -EINVAL;
	if (ev->ts < s->now) {
		s->late_events++;
		return 0;
	}
	if (s->nr_pend == s->cap_pend) {
		size_t cap = s->cap_pend ? 2 * s->cap_pend : 4096;
		struct pending *p = realloc(s->pend, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->pend = p;
		s->cap_pend = cap;
	}
	s->pend[s->nr_pend++] = (struct pending){ *ev, s->seq++ };
	return 0;
}

/* Close every pair's accounting at @end. */
static void finish(struct sweep *s, __u64 end)
{
	int i;

	for (i = 0; i < s->nr_pairs; i++) {
		struct pair *p = &s->pairs[i];

		if (!p->last)
			continue;
		p->observed_ns += end - p->last;
		if (p->incompat)
			close_window(s, p, end);
	}
}

/* Has struct/union @id a member @name, also inside anonymous members? */
static bool has_member(const struct btf *btf, __u32 id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	int i;

	if (!t || !btf_is_composite(t))
		return false;
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		__u32 type = btf__resolve_type(btf, m->type);

		if (n && *n ? !strcmp(n, name) : has_member(btf, type, name))
			return true;
	}
	return false;
}

/* Core scheduling cookies exist (CONFIG_SCHED_CORE)? */
static bool kernel_has_core_cookie(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool found;
	int id;

	if (!btf)
		return true; /* loading will report the missing BTF */
	id = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	found = id > 0 && has_member(btf, id, "core_cookie");
	btf__free(btf);
	return found;
}

static int reuse_tag_map(struct bpf_map *map, const char *name,
			 enum bpf_map_type type, __u32 key_size)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = cs_open_pinned_map(name), err;

	if (fd == -ENOENT) {
		fprintf(stderr,
			PROG ": " CS_PIN_DIR "/%s does not exist: the tag maps "
			"are created by scx_coresched; start it first (or use "
			"--source upstream)\n", name);
		return fd;
	}
	if (fd < 0) {
		fprintf(stderr, PROG ": cannot open " CS_PIN_DIR "/%s: %s%s\n",
			name, strerror(-fd),
			fd == -EPERM || fd == -EACCES ? " (run as root)" : "");
		return fd;
	}
	err = bpf_map_get_info_by_fd(fd, &info, &len);
	if (err || info.type != type || info.key_size != key_size ||
	    info.value_size != sizeof(struct cs_tag)) {
		fprintf(stderr,
			PROG ": " CS_PIN_DIR "/%s is not a map of type %d with "
			"%u-byte keys and %zu-byte values (left by another "
			"version? restart scx_coresched)\n",
			name, type, key_size, sizeof(struct cs_tag));
		close(fd);
		return -EINVAL;
	}
	err = bpf_map__reuse_fd(map, fd);
	close(fd);
	if (err)
		fprintf(stderr, PROG ": cannot reuse " CS_PIN_DIR "/%s: %s\n",
			name, strerror(-err));
	return err;
}

static int set_source(struct observe *skel, enum obs_source source)
{
	int err;

	if (source == OBS_SRC_UPSTREAM) {
		/* The tag maps are unused: keep the hash tiny. */
		return bpf_map__set_max_entries(skel->maps.cs_cgrp_tag, 1);
	}
	err = reuse_tag_map(skel->maps.cs_task_cookie, CS_MAP_TASK,
			    BPF_MAP_TYPE_TASK_STORAGE, sizeof(int));
	return err ?: reuse_tag_map(skel->maps.cs_cgrp_tag, CS_MAP_CGRP,
				    BPF_MAP_TYPE_HASH, sizeof(__u64));
}

static bool layout_matches(struct observe *skel)
{
	const struct btf *btf = bpf_object__btf(skel->obj);
	int id = btf ? btf__find_by_name_kind(btf, "obs_event", BTF_KIND_STRUCT)
		     : -1;

	return id > 0 && btf__resolve_size(btf, id) == sizeof(struct obs_event);
}

static void explain_load_error(int err, enum obs_source source)
{
	if (source == OBS_SRC_UPSTREAM && !kernel_has_core_cookie())
		fprintf(stderr,
			PROG ": --source upstream needs core scheduling "
			"(CONFIG_SCHED_CORE), which this kernel lacks\n");
	else if (err == -EPERM || err == -EACCES)
		fprintf(stderr,
			PROG ": not allowed to load BPF programs (%s): run as "
			"root (CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN)\n",
			strerror(-err));
	else
		fprintf(stderr,
			PROG ": cannot load the BPF programs (%s): the kernel "
			"needs BTF (CONFIG_DEBUG_INFO_BTF) and the tracepoints "
			"sched_switch, sched_wakeup and sched_wakeup_new "
			"(-v shows libbpf's log)\n",
			strerror(-err));
}

static struct observe *open_observer(const struct opts *o)
{
	struct observe *skel = observe__open();
	int err;

	if (!skel) {
		fprintf(stderr, PROG ": cannot open the BPF object: %s\n",
			strerror(errno));
		return NULL;
	}
	if (!layout_matches(skel)) {
		fprintf(stderr, PROG ": struct obs_event differs between "
			"bpf/observe.bpf.c and src/coresched-observe.c\n");
		goto fail;
	}
	skel->rodata->source = o->source;
	skel->rodata->trust_kthreads = o->trust_kthreads;
	if (set_source(skel, o->source))
		goto fail;
	err = observe__load(skel);
	if (err) {
		explain_load_error(err, o->source);
		goto fail;
	}
	return skel;
fail:
	observe__destroy(skel);
	return NULL;
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

struct report {
	__u64 duration_ns, switches, lost, late;
	__u64 observed_ns, overlap_ns, windows, longest_ns;
	__u64 cpu_ns, bpf_ns;
	struct obs_event worst; /* longest wait */
};

static __u64 own_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (__u64)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NSEC_PER_SEC +
	       (__u64)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static __u64 time_left(__u64 t0, __u64 duration)
{
	__u64 elapsed = cs_now_ns() - t0;

	return elapsed < duration ? duration - elapsed : 0;
}

/* Consume the ring buffer, then sweep what is older than @upto. */
static int drain(struct sweep *s, struct ring_buffer *rb, __u64 upto)
{
	int n = ring_buffer__consume(rb);

	if (n < 0) {
		fprintf(stderr, PROG ": reading the ring buffer failed: %s\n",
			strerror(-n));
		return n;
	}
	release(s, upto);
	return 0;
}

/* Observe for o->duration_ns or until a signal. */
static int observe(struct observe *skel, struct sweep *s, const struct opts *o,
		   struct report *r)
{
	struct ring_buffer *rb;
	__u64 end, left;
	int err;

	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_record, s,
			      NULL);
	if (!rb) {
		fprintf(stderr, PROG ": cannot map the ring buffer: %s\n",
			strerror(errno));
		return -errno;
	}
	r->cpu_ns = own_cpu_ns();
	s->t0 = cs_now_ns();
	err = observe__attach(skel);
	if (err)
		fprintf(stderr,
			PROG ": cannot attach to the tracepoints sched_switch, "
			"sched_wakeup and sched_wakeup_new: %s\n",
			strerror(-err));
	else
		fprintf(stderr, PROG ": observing\n");
	while (!err && !stop && (left = time_left(s->t0, o->duration_ns))) {
		sleep_ns(left < POLL_NS ? left : POLL_NS);
		err = drain(s, rb, cs_now_ns() - REORDER_NS);
	}
	observe__detach(skel);
	end = cs_now_ns();
	if (!err)
		err = drain(s, rb, UINT64_MAX);
	finish(s, end > s->now ? end : s->now);
	r->duration_ns = end - s->t0;
	r->cpu_ns = own_cpu_ns() - r->cpu_ns;
	ring_buffer__free(rb);
	return err;
}

static __u64 bpf_run_ns(struct observe *skel)
{
	struct bpf_program *prog;
	__u64 sum = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (!bpf_prog_get_info_by_fd(fd, &info, &len))
			sum += info.run_time_ns;
	}
	return sum;
}

static void summarize(const struct sweep *s, struct observe *skel,
		      struct report *r)
{
	int i;

	r->switches = s->switches;
	r->late = s->late_events;
	r->lost = skel->bss->lost_events;
	r->bpf_ns = bpf_run_ns(skel);
	for (i = 0; i < s->nr_pairs; i++) {
		const struct pair *p = &s->pairs[i];

		r->observed_ns += p->observed_ns;
		r->overlap_ns += p->overlap_ns;
		r->windows += p->windows;
		if (p->longest_ns > r->longest_ns)
			r->longest_ns = p->longest_ns;
	}
	for (i = 0; i < CS_MAX_CPUS; i++)
		if (skel->bss->worst_wait[i].wait_ns > r->worst.wait_ns)
			r->worst = skel->bss->worst_wait[i];
}

static int cmp_example(const void *x, const void *y)
{
	const struct example *a = x, *b = y;

	return a->len < b->len ? 1 : a->len > b->len ? -1 : 0;
}

static void print_text(const struct sweep *s, const struct opts *o,
		       const struct report *r, bool examples)
{
	int i;

	printf("source %s\nmode %s\ntrust_kthreads %d\nexempt_foreign_kthreads %d\n",
	       source_names[o->source], mode_names[o->mode], o->trust_kthreads, exempt_foreign);
	printf("duration_ns %llu\ncpus %d\nsibling_pairs %d\n", r->duration_ns,
	       s->nr_cpus, s->nr_pairs);
	printf("switches %llu\nlost_events %llu\nlate_events %llu\n",
	       r->switches, r->lost, r->late);
	printf("observed_ns %llu\noverlap_ns %llu\noverlap_windows %llu\n"
	       "longest_overlap_ns %llu\n",
	       r->observed_ns, r->overlap_ns, r->windows, r->longest_ns);
	printf("max_wait_ns %llu\nmax_wait_tid %u\nmax_wait_comm %.16s\n",
	       r->worst.wait_ns, r->worst.tid, r->worst.comm);
	printf("observer_cpu_ns %llu\nbpf_cpu_ns %llu\n", r->cpu_ns, r->bpf_ns);
	for (i = 0; i < s->nr_pairs; i++) {
		const struct pair *p = &s->pairs[i];

		printf("pair cpus %d,%d observed_ns %llu overlap_ns %llu "
		       "windows %llu longest_ns %llu\n",
		       p->a, p->b, p->observed_ns, p->overlap_ns, p->windows,
		       p->longest_ns);
	}
	for (i = 0; examples && i < s->nr_ex; i++) {
		const struct example *e = &s->ex[i];

		printf("overlap_example cpus %d,%d start_ns %llu len_ns %llu "
		       "tids %u,%u comms %.16s,%.16s cookies 0x%llx,0x%llx\n",
		       e->p->a, e->p->b, e->start, e->len, e->ea.tid, e->eb.tid,
		       e->ea.comm, e->eb.comm, e->ea.cookie, e->eb.cookie);
	}
}

static void json_str(const char *str, size_t max)
{
	size_t i;

	putchar('"');
	for (i = 0; i < max && str[i]; i++) {
		unsigned char c = str[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_example(const struct example *e)
{
	printf("{\"cpus\":[%d,%d],\"start_ns\":%llu,\"len_ns\":%llu,"
	       "\"tids\":[%u,%u],\"comms\":[",
	       e->p->a, e->p->b, e->start, e->len, e->ea.tid, e->eb.tid);
	json_str(e->ea.comm, sizeof(e->ea.comm));
	putchar(',');
	json_str(e->eb.comm, sizeof(e->eb.comm));
	printf("],\"cookies\":[\"0x%llx\",\"0x%llx\"]}", e->ea.cookie,
	       e->eb.cookie);
}

static void print_json(const struct sweep *s, const struct opts *o,
		       const struct report *r)
{
	int i;

	printf("{\"source\":\"%s\",\"mode\":\"%s\",\"trust_kthreads\":%s,",
	       source_names[o->source], mode_names[o->mode],
	       o->trust_kthreads ? "true" : "false");
	printf("\"duration_ns\":%llu,\"cpus\":%d,\"sibling_pairs\":%d,",
	       r->duration_ns, s->nr_cpus, s->nr_pairs);
	printf("\"switches\":%llu,\"lost_events\":%llu,\"late_events\":%llu,",
	       r->switches, r->lost, r->late);
	printf("\"observed_ns\":%llu,\"overlap_ns\":%llu,"
	       "\"overlap_windows\":%llu,\"longest_overlap_ns\":%llu,",
	       r->observed_ns, r->overlap_ns, r->windows, r->longest_ns);
	printf("\"max_wait_ns\":%llu,\"max_wait_tid\":%u,\"max_wait_comm\":",
	       r->worst.wait_ns, r->worst.tid);
	json_str(r->worst.comm, sizeof(r->worst.comm));
	printf(",\"observer_cpu_ns\":%llu,\"bpf_cpu_ns\":%llu,\"pairs\":[",
	       r->cpu_ns, r->bpf_ns);
	for (i = 0; i < s->nr_pairs; i++) {
		const struct pair *p = &s->pairs[i];

		printf("%s{\"cpus\":[%d,%d],\"observed_ns\":%llu,"
		       "\"overlap_ns\":%llu,\"windows\":%llu,"
		       "\"longest_ns\":%llu}",
		       i ? "," : "", p->a, p->b, p->observed_ns, p->overlap_ns,
		       p->windows, p->longest_ns);
	}
	printf("],\"overlap_examples\":[");
	for (i = 0; i < s->nr_ex; i++) {
		if (i)
			putchar(',');
		json_example(&s->ex[i]);
	}
	printf("]}\n");
}

static int verdict(const struct opts *o, const struct report *r)
{
	if (r->lost || r->late) {
		fprintf(stderr,
			PROG ": %llu events lost (ring buffer full) and %llu "
			"out of order: isolation cannot be verified\n",
			r->lost, r->late);
		return EXIT_UNVERIFIED;
	}
	if (r->overlap_ns && o->require_zero) {
		fprintf(stderr,
			PROG ": incompatible overlap: %llu ns in %llu windows "
			"(longest %llu ns)\n",
			r->overlap_ns, r->windows, r->longest_ns);
		return EXIT_OVERLAP;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct report r = {};
	struct observe *skel;
	struct sweep *s;
	struct opts o;
	int stats_fd, err;

	parse_args(argc, argv, &o);
	verbose = o.verbose;
	libbpf_set_print(libbpf_print);
	s = calloc(1, sizeof(*s));
	if (!s || load_topology(s))
		return EXIT_ERROR;
	s->mode = o.mode;
	skel = open_observer(&o);
	if (!skel)
		return EXIT_ERROR;
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0)
		fprintf(stderr, PROG ": bpf_cpu_ns not measured: %s\n",
			strerror(errno));
	catch_signals();
	err = observe(skel, s, &o, &r);
	summarize(s, skel, &r);
	if (stats_fd >= 0)
		close(stats_fd);
	observe__destroy(skel);
	if (err)
		return EXIT_ERROR;
	qsort(s->ex, s->nr_ex, sizeof(*s->ex), cmp_example);
	if (o.json)
		print_json(s, &o, &r);
	else
		print_text(s, &o, &r, o.verbose || r.overlap_ns);
	return verdict(&o, &r);
}
