// SPDX-License-Identifier: GPL-2.0-only
/*
 * coresched-audit: the final summary (text or JSON) and the live lines of
 * --interval. The text keys are what the guest tests read (tests/guest/
 * lib.sh's field); the JSON goes through the project's one JSON writer.
 */
#include <stdlib.h>
#include <string.h>

#include "cs_audit.h"
#include "cs_report.h"
#include "cs_trace.h"

const char *const cs_audit_source_names[3] = {
	[OBS_SRC_OURS] = "ours",
	[OBS_SRC_UPSTREAM] = "upstream",
	[OBS_SRC_TENANT] = "tenant",
};

const char *const cs_audit_mode_names[3] = {
	[CS_MODE_STRICT] = "strict",
	[CS_MODE_FILL] = "fill",
	[CS_MODE_NONE] = "none",
};

/* Names of the cookies seen so far: each cgroup path is looked up once. */
#define NAME_CACHE 256
static struct {
	__u64 cookie;
	char name[300];
} names[NAME_CACHE];
static int nr_names;

static void make_name(const struct cs_audit_opts *o, __u64 cookie, char *buf,
		      size_t len)
{
	if (!cookie)
		snprintf(buf, len, "%s",
			 o->source == OBS_SRC_TENANT ? "no tenant" : "untagged");
	else if (o->source == OBS_SRC_TENANT && cookie <= (__u64)o->nr_tenants)
		snprintf(buf, len, "%s", o->tenant[cookie - 1].name);
	else if (o->source == OBS_SRC_OURS)
		cs_cookie_name(cookie, buf, len);
	else
		snprintf(buf, len, "cookie:0x%llx", (unsigned long long)cookie);
}

const char *cs_audit_cookie_name(void *opts, __u64 cookie)
{
	static char spare[300];
	int i;

	for (i = 0; i < nr_names; i++)
		if (names[i].cookie == cookie)
			return names[i].name;
	if (nr_names == NAME_CACHE) {
		make_name(opts, cookie, spare, sizeof(spare));
		return spare;
	}
	names[nr_names].cookie = cookie;
	make_name(opts, cookie, names[nr_names].name, sizeof(names[0].name));
	return names[nr_names++].name;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

static int sibling_pairs(const struct cs_topo *t)
{
	int k, n = 0;

	for (k = 0; k < t->nr_cores; k++)
		n += t->core_nr[k] * (t->core_nr[k] - 1) / 2;
	return n;
}

/* Run time in a cookie table (the sweep's, or a core's) and its other. */
static __u64 table_run(const struct cs_sweep_cookie *tab, int nr,
		       __u64 other)
{
	__u64 sum = other;
	int i;

	for (i = 0; i < nr; i++)
		sum += tab[i].run_ns;
	return sum;
}

static __u64 total_run(const struct cs_sweep *s)
{
	return table_run(s->cookie, s->nr_cookies, s->other_run_ns);
}

/* How many of a core's cookies its text line names; the rest is "other". */
#define CORE_SHARES_SHOWN 3

static __u64 core_run(const struct cs_sweep_core *c)
{
	return table_run(c->cookie, c->nr_cookies, c->other_run_ns);
}

/* Largest run time first; equal ones by cookie, for a stable output. */
static int cmp_run(const void *x, const void *y)
{
	const struct cs_sweep_cookie *a = x, *b = y;

	if (a->run_ns != b->run_ns)
		return a->run_ns < b->run_ns ? 1 : -1;
	return a->cookie < b->cookie ? -1 : a->cookie > b->cookie;
}

/* Core @c's cookies into @by, largest share first; returns how many. */
static int core_cookies(const struct cs_sweep_core *c,
			struct cs_sweep_cookie by[CS_SWEEP_CORE_COOKIES])
{
	memcpy(by, c->cookie, c->nr_cookies * sizeof(*by));
	qsort(by, c->nr_cookies, sizeof(*by), cmp_run);
	return c->nr_cookies;
}

/*
 * " shares 0xa:60.0%,0xb:30.0%,0x0:5.0%,other:5.0%": the core's
 * CORE_SHARES_SHOWN largest cookies, then whatever else ran on it (smaller
 * cookies and those beyond its table) as other. The JSON has them all.
 */
static void text_core_shares(FILE *f, const struct cs_sweep_core *c)
{
	struct cs_sweep_cookie by[CS_SWEEP_CORE_COOKIES];
	__u64 run = core_run(c), rest = c->other_run_ns;
	int i, n = core_cookies(c, by);

	if (!run) {
		fputs(" shares none", f);
		return;
	}
	fputs(" shares ", f);
	for (i = 0; i < n; i++) {
		if (i >= CORE_SHARES_SHOWN) {
			rest += by[i].run_ns;
			continue;
		}
		fprintf(f, "%s0x%llx:%.1f%%", i ? "," : "",
			(unsigned long long)by[i].cookie,
			pct(by[i].run_ns, run));
	}
	if (rest)
		fprintf(f, "%sother:%.1f%%", n ? "," : "", pct(rest, run));
}

static void text_window(FILE *f, const char *key,
			const struct cs_sweep_window *w, __u64 t0)
{
	fprintf(f, "%s cpus %u,%u start_ns %llu len_ns %llu tids %u,%u "
		   "comms %.16s,%.16s cookies 0x%llx,0x%llx\n",
		key, w->a.cpu, w->b.cpu,
		(unsigned long long)(w->start > t0 ? w->start - t0 : 0),
		(unsigned long long)w->len, w->a.tid, w->b.tid, w->a.comm,
		w->b.comm, (unsigned long long)w->a.cookie,
		(unsigned long long)w->b.cookie);
}

static int cmp_window(const void *x, const void *y)
{
	const struct cs_sweep_window *a = x, *b = y;

	return a->len < b->len ? 1 : a->len > b->len ? -1 : 0;
}

static void print_text(FILE *f, const struct cs_sweep *s,
		       const struct cs_audit_opts *o,
		       const struct cs_audit_result *r,
		       const struct cs_sweep_core *tot,
		       const struct cs_sweep_window *ex)
{
	const struct cs_topo *t = s->topo;
	__u64 run = total_run(s);
	int k, i;

	fprintf(f, "source %s\nmode %s\ntrust_kthreads %d\n"
		   "exempt_foreign_kthreads %d\n",
		cs_audit_source_names[o->source], cs_audit_mode_names[o->mode],
		o->trust_kthreads, o->exempt_foreign);
	fprintf(f, "duration_ns %llu\ncpus %d\ncores %d\nsibling_pairs %d\n",
		(unsigned long long)r->duration_ns, t->nr_cpus, t->nr_cores,
		sibling_pairs(t));
	fprintf(f, "switches %llu\nlost_events %llu\nlate_events %llu\n",
		(unsigned long long)s->switches, (unsigned long long)s->lost,
		(unsigned long long)s->late);
	fprintf(f, "observed_ns %llu\noverlap_ns %llu\noverlap_windows %llu\n"
		   "longest_overlap_ns %llu\n",
		(unsigned long long)tot->observed_ns,
		(unsigned long long)tot->overlap_ns,
		(unsigned long long)tot->windows,
		(unsigned long long)tot->worst.len);
	if (tot->worst.len)
		text_window(f, "worst_pair", &tot->worst, s->t0);
	fprintf(f, "forced_idle_measured %d\nforced_idle_ns %llu\n"
		   "forced_idle_pct %.3f\n",
		r->forced_idle_measured, (unsigned long long)tot->forced_idle_ns,
		pct(tot->forced_idle_ns, (double)r->duration_ns * t->nr_cpus));
	fprintf(f, "max_wait_ns %llu\nmax_wait_tid %u\nmax_wait_comm %.16s\n",
		(unsigned long long)r->worst_wait.wait_ns, r->worst_wait.tid,
		r->worst_wait.comm);
	fprintf(f, "observer_cpu_ns %llu\nbpf_cpu_ns %llu\n",
		(unsigned long long)r->cpu_ns, (unsigned long long)r->bpf_ns);
	for (k = 0; k < t->nr_cores; k++) {
		const struct cs_sweep_core *c = &s->core[k];

		fprintf(f, "core %d cpus ", k);
		for (i = 0; i < t->core_nr[k]; i++)
			fprintf(f, "%s%d", i ? "," : "", t->core_cpu[k][i]);
		fprintf(f, " observed_ns %llu overlap_ns %llu windows %llu "
			   "longest_ns %llu forced_idle_ns %llu",
			(unsigned long long)c->observed_ns,
			(unsigned long long)c->overlap_ns,
			(unsigned long long)c->windows,
			(unsigned long long)c->worst.len,
			(unsigned long long)c->forced_idle_ns);
		text_core_shares(f, c);
		if (c->worst.len)
			fprintf(f, " worst tids %u,%u comms %.16s,%.16s",
				c->worst.a.tid, c->worst.b.tid, c->worst.a.comm,
				c->worst.b.comm);
		fputc('\n', f);
	}
	for (i = 0; i < s->nr_cookies; i++)
		fprintf(f, "cookie 0x%llx share_pct %.2f run_ns %llu name %s\n",
			(unsigned long long)s->cookie[i].cookie,
			pct(s->cookie[i].run_ns, run),
			(unsigned long long)s->cookie[i].run_ns,
			cs_audit_cookie_name((void *)o, s->cookie[i].cookie));
	if (s->other_run_ns)
		fprintf(f, "cookie other share_pct %.2f run_ns %llu\n",
			pct(s->other_run_ns, run),
			(unsigned long long)s->other_run_ns);
	if (o->trace_path)
		fprintf(f, "trace %s\ntrace_events %llu\ntrace_dropped %llu\n",
			o->trace_path, (unsigned long long)r->trace_events,
			(unsigned long long)r->trace_dropped);
	for (i = 0; (o->verbose || tot->overlap_ns) && i < s->nr_ex; i++)
		text_window(f, "overlap_example", &ex[i], s->t0);
}

static void json_window(struct cs_json *j, const char *key,
			const struct cs_sweep_window *w, __u64 t0)
{
	cs_json_obj(j, key);
	cs_json_int(j, "core", w->core);
	cs_json_u64(j, "start_ns", w->start > t0 ? w->start - t0 : 0);
	cs_json_u64(j, "len_ns", w->len);
	cs_trace_json_task(j, "a", &w->a);
	cs_trace_json_task(j, "b", &w->b);
	cs_json_end(j);
}

static void json_figures(struct cs_json *j, const struct cs_sweep_core *c,
			 __u64 t0)
{
	cs_json_u64(j, "observed_ns", c->observed_ns);
	cs_json_u64(j, "overlap_ns", c->overlap_ns);
	cs_json_u64(j, "overlap_windows", c->windows);
	cs_json_u64(j, "longest_overlap_ns", c->worst.len);
	if (c->worst.len)
		json_window(j, "worst_pair", &c->worst, t0);
	cs_json_u64(j, "forced_idle_ns", c->forced_idle_ns);
}

/* "shares": [{cookie, ns, pct}...], largest first, of the core's run time;
 * the cookies beyond its table last, as cookie "other". */
static void json_core_shares(struct cs_json *j, const struct cs_sweep_core *c)
{
	struct cs_sweep_cookie by[CS_SWEEP_CORE_COOKIES];
	__u64 run = core_run(c);
	int i, n = core_cookies(c, by);

	cs_json_arr(j, "shares");
	for (i = 0; i < n; i++) {
		cs_json_obj(j, NULL);
		cs_json_cookie(j, "cookie", by[i].cookie);
		cs_json_u64(j, "ns", by[i].run_ns);
		cs_json_dbl(j, "pct", pct(by[i].run_ns, run), 3);
		cs_json_end(j);
	}
	if (c->other_run_ns) {
		cs_json_obj(j, NULL);
		cs_json_str(j, "cookie", "other");
		cs_json_u64(j, "ns", c->other_run_ns);
		cs_json_dbl(j, "pct", pct(c->other_run_ns, run), 3);
		cs_json_end(j);
	}
	cs_json_end(j);
}

static void print_json(FILE *f, const struct cs_sweep *s,
		       const struct cs_audit_opts *o,
		       const struct cs_audit_result *r,
		       const struct cs_sweep_core *tot,
		       const struct cs_sweep_window *ex)
{
	const struct cs_topo *t = s->topo;
	__u64 run = total_run(s);
	struct cs_json j;
	int k, i;

	cs_json_begin(&j, f);
	cs_json_obj(&j, NULL);
	cs_json_str(&j, "type", "summary");
	cs_json_str(&j, "source", cs_audit_source_names[o->source]);
	cs_json_str(&j, "mode", cs_audit_mode_names[o->mode]);
	cs_json_bool(&j, "trust_kthreads", o->trust_kthreads);
	cs_json_bool(&j, "exempt_foreign_kthreads", o->exempt_foreign);
	cs_json_u64(&j, "duration_ns", r->duration_ns);
	cs_json_int(&j, "cpus", t->nr_cpus);
	cs_json_int(&j, "cores", t->nr_cores);
	cs_json_int(&j, "sibling_pairs", sibling_pairs(t));
	cs_json_u64(&j, "switches", s->switches);
	cs_json_u64(&j, "lost_events", s->lost);
	cs_json_u64(&j, "late_events", s->late);
	cs_json_bool(&j, "verified", cs_sweep_verified(s));
	json_figures(&j, tot, s->t0);
	cs_json_bool(&j, "forced_idle_measured", r->forced_idle_measured);
	cs_json_dbl(&j, "forced_idle_pct",
		    pct(tot->forced_idle_ns, (double)r->duration_ns * t->nr_cpus),
		    3);
	cs_json_u64(&j, "max_wait_ns", r->worst_wait.wait_ns);
	cs_json_u64(&j, "max_wait_tid", r->worst_wait.tid);
	cs_json_strn(&j, "max_wait_comm", r->worst_wait.comm,
		     sizeof(r->worst_wait.comm));
	cs_json_u64(&j, "observer_cpu_ns", r->cpu_ns);
	cs_json_u64(&j, "bpf_cpu_ns", r->bpf_ns);
	cs_json_arr(&j, "per_core");
	for (k = 0; k < t->nr_cores; k++) {
		cs_json_obj(&j, NULL);
		cs_json_int(&j, "core", k);
		cs_json_arr(&j, "cpus");
		for (i = 0; i < t->core_nr[k]; i++)
			cs_json_int(&j, NULL, t->core_cpu[k][i]);
		cs_json_end(&j);
		json_figures(&j, &s->core[k], s->t0);
		json_core_shares(&j, &s->core[k]);
		cs_json_end(&j);
	}
	cs_json_end(&j);
	cs_json_arr(&j, "cookies");
	for (i = 0; i < s->nr_cookies; i++) {
		cs_json_obj(&j, NULL);
		cs_json_cookie(&j, "cookie", s->cookie[i].cookie);
		cs_json_str(&j, "name",
			    cs_audit_cookie_name((void *)o, s->cookie[i].cookie));
		cs_json_u64(&j, "run_ns", s->cookie[i].run_ns);
		cs_json_dbl(&j, "share_pct", pct(s->cookie[i].run_ns, run), 3);
		cs_json_end(&j);
	}
	cs_json_end(&j);
	cs_json_u64(&j, "other_cookies_run_ns", s->other_run_ns);
	cs_json_arr(&j, "overlap_examples");
	for (i = 0; i < s->nr_ex; i++)
		json_window(&j, NULL, &ex[i], s->t0);
	cs_json_end(&j);
	if (o->trace_path) {
		cs_json_str(&j, "trace", o->trace_path);
		cs_json_u64(&j, "trace_events", r->trace_events);
		cs_json_u64(&j, "trace_dropped", r->trace_dropped);
	}
	cs_json_end(&j);
}

void cs_audit_print(FILE *f, const struct cs_sweep *s,
		    const struct cs_audit_opts *o,
		    const struct cs_audit_result *r)
{
	struct cs_sweep_window ex[CS_SWEEP_MAX_EXAMPLES];
	struct cs_sweep_core tot;

	cs_sweep_total(s, &tot);
	memcpy(ex, s->ex, sizeof(ex));
	qsort(ex, s->nr_ex, sizeof(ex[0]), cmp_window);
	if (o->json)
		print_json(f, s, o, r, &tot, ex);
	else
		print_text(f, s, o, r, &tot, ex);
	fflush(f);
}

void cs_audit_print_interval(FILE *f, const struct cs_sweep *s,
			     const struct cs_audit_opts *o,
			     struct cs_audit_live *prev, __u64 now)
{
	struct cs_sweep_core tot;
	double secs = (double)(now - prev->t) / 1e9, run = 0;
	__u64 ov, win, fi;
	struct cs_json j;
	int i;

	cs_sweep_total(s, &tot);
	ov = tot.overlap_ns - prev->total.overlap_ns;
	win = tot.windows - prev->total.windows;
	fi = tot.forced_idle_ns - prev->total.forced_idle_ns;
	for (i = 0; i < s->nr_cookies; i++)
		run += s->cookie[i].run_ns - prev->run_ns[i];
	if (o->json) {
		cs_json_begin(&j, f);
		cs_json_obj(&j, NULL);
		cs_json_str(&j, "type", "interval");
		cs_json_dbl(&j, "t_s", (double)(now - s->t0) / 1e9, 3);
		cs_json_dbl(&j, "interval_s", secs, 3);
		cs_json_u64(&j, "switches", s->switches - prev->switches);
		cs_json_u64(&j, "overlap_ns", ov);
		cs_json_u64(&j, "overlap_windows", win);
		cs_json_dbl(&j, "forced_idle_pct",
			    pct(fi, secs * 1e9 * s->topo->nr_cpus), 3);
		cs_json_arr(&j, "cookies");
	} else {
		fprintf(f, "[%7.1f s] switches %llu overlap %llu ns in %llu "
			   "windows, forced idle %.1f%% |",
			(double)(now - s->t0) / 1e9,
			(unsigned long long)(s->switches - prev->switches),
			(unsigned long long)ov, (unsigned long long)win,
			pct(fi, secs * 1e9 * s->topo->nr_cpus));
	}
	for (i = 0; i < s->nr_cookies; i++) {
		__u64 d = s->cookie[i].run_ns - prev->run_ns[i];
		const char *name =
			cs_audit_cookie_name((void *)o, s->cookie[i].cookie);

		prev->run_ns[i] = s->cookie[i].run_ns;
		if (!d)
			continue;
		if (!o->json) {
			fprintf(f, " %s %.1f%%", name, pct(d, run));
			continue;
		}
		cs_json_obj(&j, NULL);
		cs_json_str(&j, "name", name);
		cs_json_cookie(&j, "cookie", s->cookie[i].cookie);
		cs_json_dbl(&j, "share_pct", pct(d, run), 3);
		cs_json_end(&j);
	}
	if (o->json) {
		cs_json_end(&j);
		cs_json_end(&j);
	} else {
		fputc('\n', f);
	}
	fflush(f);
	prev->t = now;
	prev->switches = s->switches;
	prev->total = tot;
}
