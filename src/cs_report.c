// SPDX-License-Identifier: GPL-2.0-only
/* --stats reporting; see cs_report.h. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cs_common.h"
#include "cs_report.h"

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

/*
 * A CPU's forced idle up to @at: what ended (forced_idle_ns, added by
 * the scheduler when a forced-idle stretch ends) and the stretch still
 * going on (since fi_start). Counting only the ended ones charged a
 * stretch that spanned several intervals to the one it ended in: 238 % of
 * a core's time in one 2 s interval of a 128-vCPU guest.
 */
static double forced_idle_at(const struct cs_cpu_stat *c, __u64 at)
{
	double ns = (double)c->forced_idle_ns;

	if (c->fi_start && c->fi_start < at)
		ns += (double)(at - c->fi_start);
	return ns;
}

/* A CPU's share of an interval of @span ns: @ns, kept within 0 .. @span. */
static double within_span(double ns, double span)
{
	return ns < 0 ? 0 : ns > span ? span : ns;
}

void cs_interval_compute(const struct cs_topo *t, const struct cs_snapshot *a,
			 const struct cs_snapshot *b, struct cs_interval *iv)
{
	double span = (double)(b->t_ns - a->t_ns), core_total = 0, fi_total = 0;
	__u64 switches = 0, kicks = 0, migrations = 0, llc_migrations = 0,
	      llc_steals = 0;
	__u64 renewals = 0, untagged_switches = 0, stalls = 0, sync_keeps = 0;
	double stall_total = 0;
	int cpu, core, s;

	memset(iv, 0, sizeof(*iv));
	iv->secs = span / 1e9;
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		const struct cs_cpu_stat *x = &a->cpu[cpu], *y = &b->cpu[cpu];
		double fi = forced_idle_at(y, b->t_ns) -
			    forced_idle_at(x, a->t_ns);

		if (t->cpu_core[cpu] < 0)
			continue;
		/*
		 * The scheduler clears fi_start before it adds the stretch:
		 * a copy between the two misses it until the next one. Keep
		 * each CPU's figure within the interval meanwhile.
		 */
		fi = within_span(fi, span);
		fi_total += fi;
		iv->core_forced_idle_pct[t->cpu_core[cpu]] += fi;
		switches += y->cookie_switches - x->cookie_switches;
		kicks += y->kicks - x->kicks;
		iv->transit_retries += y->transit_retries - x->transit_retries;
		iv->unclaimed_runs += y->unclaimed_runs - x->unclaimed_runs;
		iv->untagged_rescues +=
			y->untagged_rescues - x->untagged_rescues;
		iv->cookie_rescues += y->cookie_rescues - x->cookie_rescues;
		iv->task_rescues += y->task_rescues - x->task_rescues;
		migrations += y->migrations - x->migrations;
		llc_migrations += y->llc_migrations - x->llc_migrations;
		llc_steals += y->llc_steals - x->llc_steals;
		renewals += y->renewals - x->renewals;
		sync_keeps += y->sync_keeps - x->sync_keeps;
		untagged_switches +=
			y->untagged_switches - x->untagged_switches;
		stalls += y->stalls - x->stalls;
		/*
		 * A stall is counted whole at the tick that ends it: keep
		 * each CPU's figure within the interval, as its forced idle.
		 */
		stall_total +=
			within_span((double)(y->stall_ns - x->stall_ns), span);
	}
	for (core = 0; core < t->nr_cores; core++)
		iv->core_forced_idle_pct[core] =
			pct(iv->core_forced_idle_pct[core],
			    span * t->core_nr[core]);
	iv->forced_idle_pct = pct(fi_total, span * t->nr_cpus);
	iv->stalled_pct = pct(stall_total, span * t->nr_cpus);

	for (s = 0; s < CS_NR_SLOTS; s++) {
		static const struct cs_slot_stat zero;
		const struct cs_slot_stat *x = &a->slot[s], *y = &b->slot[s];

		/* A slot that changed owner starts from zero. */
		if (x->cookie != y->cookie)
			x = &zero;
		iv->run_ms[s] = (double)(y->run_ns - x->run_ns) / 1e6;
		iv->forced_idle_caused_ms[s] =
			(double)(y->forced_idle_ns - x->forced_idle_ns) / 1e6;
		iv->share_pct[s] = (double)(y->core_ns - x->core_ns);
		core_total += iv->share_pct[s];
		iv->active[s] = (b->live_mask[s / 64] >> (s % 64)) & 1;
		iv->active[s] = iv->active[s] || iv->run_ms[s] > 0;
	}
	for (s = 0; s < CS_NR_SLOTS; s++)
		iv->share_pct[s] = pct(iv->share_pct[s], core_total);
	if (iv->secs > 0) {
		iv->switches_per_s = (double)switches / iv->secs;
		iv->kicks_per_s = (double)kicks / iv->secs;
		iv->migrations_per_s = (double)migrations / iv->secs;
		iv->llc_migrations_per_s = (double)llc_migrations / iv->secs;
		iv->llc_steals_per_s = (double)llc_steals / iv->secs;
		iv->renewals_per_s = (double)renewals / iv->secs;
		iv->sync_keeps_per_s = (double)sync_keeps / iv->secs;
		iv->untagged_switches_per_s =
			(double)untagged_switches / iv->secs;
		iv->stalls_per_s = (double)stalls / iv->secs;
	}
	iv->max_wait_ms = (double)b->max_wait_ns / 1e6;
	iv->slot_full = b->slot_full - a->slot_full;
}

void cs_cookie_name(__u64 cookie, char *buf, size_t len)
{
	char path[256];

	if (!cookie)
		snprintf(buf, len, "untagged");
	else if (cookie == CS_COOKIE_LOST) /* runs alone: coresched.h */
		snprintf(buf, len, "lost");
	else if ((cookie & 0xffffffffULL) == CS_COOKIE_LOST &&
		 !(cookie & CS_COOKIE_CGROUP)) /* the audit's, per tid */
		snprintf(buf, len, "lost:%llu", (unsigned long long)(cookie >> 32));
	else if (!(cookie & CS_COOKIE_CGROUP))
		snprintf(buf, len, "task:0x%016llx", (unsigned long long)cookie);
	else if (cs_cgroup_path(cookie & ~CS_COOKIE_CGROUP, path, sizeof(path)))
		snprintf(buf, len, "cgroup:%s", path);
	else
		snprintf(buf, len, "cgroup:#%llu",
			 (unsigned long long)(cookie & ~CS_COOKIE_CGROUP));
}

static void print_text(FILE *f, const struct cs_topo *t,
		       const struct cs_snapshot *b, const struct cs_interval *iv)
{
	char name[300];
	int core, s, i;

	fprintf(f, "forced idle %5.1f%% |", iv->forced_idle_pct);
	for (core = 0; core < t->nr_cores; core++) {
		fprintf(f, " core%d(", core);
		for (i = 0; i < t->core_nr[core]; i++)
			fprintf(f, "%s%d", i ? "," : "", t->core_cpu[core][i]);
		fprintf(f, ") %.1f%%", iv->core_forced_idle_pct[core]);
	}
	fprintf(f,
		"\ncookie switches %.0f/s (to or from untagged work %.0f/s)  sibling kicks %.0f/s  worst wait %.2f ms  transit retries %llu  unclaimed runs %llu  slots full %llu  untagged rescues %llu  cookie rescues %llu  task rescues %llu\nmigrations %.0f/s (across last-level caches %.0f/s)  taken from another LLC's queue %.0f/s  slices renewed %.0f/s  kept for a sync wakee %.0f/s  stalls %.0f/s (%.1f%% of CPU time)\n",
		iv->switches_per_s, iv->untagged_switches_per_s,
		iv->kicks_per_s, iv->max_wait_ms,
		(unsigned long long)iv->transit_retries,
		(unsigned long long)iv->unclaimed_runs,
		(unsigned long long)iv->slot_full,
		(unsigned long long)iv->untagged_rescues,
		(unsigned long long)iv->cookie_rescues,
		(unsigned long long)iv->task_rescues, iv->migrations_per_s,
		iv->llc_migrations_per_s, iv->llc_steals_per_s,
		iv->renewals_per_s, iv->sync_keeps_per_s, iv->stalls_per_s,
		iv->stalled_pct);
	for (s = 0; s < CS_NR_SLOTS; s++) {
		if (!iv->active[s])
			continue;
		cs_cookie_name(b->slot[s].cookie, name, sizeof(name));
		fprintf(f, "  %-40s share %5.1f%%  run %8.1f ms  forced idle caused %7.1f ms\n",
			name, iv->share_pct[s], iv->run_ms[s],
			iv->forced_idle_caused_ms[s]);
	}
	fflush(f);
}

static void print_json(FILE *f, const struct cs_topo *t,
		       const struct cs_snapshot *b, const struct cs_interval *iv)
{
	struct cs_json j;
	char name[300];
	int core, s;

	cs_json_begin(&j, f);
	cs_json_obj(&j, NULL);
	cs_json_dbl(&j, "interval_s", iv->secs, 3);
	cs_json_dbl(&j, "forced_idle_pct", iv->forced_idle_pct, 3);
	cs_json_arr(&j, "cores");
	for (core = 0; core < t->nr_cores; core++) {
		cs_json_obj(&j, NULL);
		cs_json_int(&j, "core", core);
		cs_json_dbl(&j, "forced_idle_pct",
			    iv->core_forced_idle_pct[core], 3);
		cs_json_end(&j);
	}
	cs_json_end(&j);
	cs_json_arr(&j, "cookies");
	for (s = 0; s < CS_NR_SLOTS; s++) {
		if (!iv->active[s])
			continue;
		cs_cookie_name(b->slot[s].cookie, name, sizeof(name));
		cs_json_obj(&j, NULL);
		cs_json_cookie(&j, "cookie", b->slot[s].cookie);
		cs_json_str(&j, "name", name);
		cs_json_dbl(&j, "share_pct", iv->share_pct[s], 3);
		cs_json_dbl(&j, "run_ms", iv->run_ms[s], 3);
		cs_json_dbl(&j, "forced_idle_caused_ms",
			    iv->forced_idle_caused_ms[s], 3);
		cs_json_end(&j);
	}
	cs_json_end(&j);
	cs_json_dbl(&j, "cookie_switches_per_s", iv->switches_per_s, 1);
	cs_json_dbl(&j, "kicks_per_s", iv->kicks_per_s, 1);
	cs_json_dbl(&j, "max_wait_ms", iv->max_wait_ms, 3);
	cs_json_u64(&j, "transit_retries", iv->transit_retries);
	cs_json_u64(&j, "unclaimed_runs", iv->unclaimed_runs);
	cs_json_u64(&j, "slot_full", iv->slot_full);
	cs_json_u64(&j, "untagged_rescues", iv->untagged_rescues);
	cs_json_u64(&j, "cookie_rescues", iv->cookie_rescues);
	cs_json_u64(&j, "task_rescues", iv->task_rescues);
	cs_json_dbl(&j, "migrations_per_s", iv->migrations_per_s, 1);
	cs_json_dbl(&j, "llc_migrations_per_s", iv->llc_migrations_per_s, 1);
	cs_json_dbl(&j, "llc_steals_per_s", iv->llc_steals_per_s, 1);
	cs_json_dbl(&j, "renewals_per_s", iv->renewals_per_s, 1);
	cs_json_dbl(&j, "sync_keeps_per_s", iv->sync_keeps_per_s, 1);
	cs_json_dbl(&j, "untagged_switches_per_s", iv->untagged_switches_per_s,
		    1);
	cs_json_dbl(&j, "stalls_per_s", iv->stalls_per_s, 1);
	cs_json_dbl(&j, "stalled_pct", iv->stalled_pct, 2);
	cs_json_end(&j);
	fflush(f);
}

/* A Prometheus label value: backslash, double quote and newline escaped. */
static void prom_label(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

static void prom_head(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP scx_coresched_%s %s\n# TYPE scx_coresched_%s gauge\n",
		name, help, name);
}

/* A gauge without labels: its head and its one sample, @prec decimals. */
static void prom_gauge(FILE *f, const char *name, const char *help, double v,
		       int prec)
{
	prom_head(f, name, help);
	fprintf(f, "scx_coresched_%s %.*f\n", name, prec, v);
}

void cs_interval_print_prom(FILE *f, const struct cs_topo *t,
			    const struct cs_snapshot *b,
			    const struct cs_interval *iv, double unix_time)
{
	static const struct {
		const char *name, *help;
	} per_cookie[] = {
		{ "cookie_share_percent", "Share of charged core time in the interval." },
		{ "cookie_run_ms", "Run time in the interval." },
		{ "cookie_forced_idle_caused_ms", "Sibling forced idle the cookie caused in the interval." },
	};
	char name[300];
	int core, s, m, i;

	prom_gauge(f, "stats_timestamp_seconds", "When these figures were written (Unix time).", unix_time, 3);
	prom_gauge(f, "interval_seconds", "Length of the interval the figures cover.", iv->secs, 3);
	prom_gauge(f, "forced_idle_percent", "Forced idle as % of all CPU time in the interval.", iv->forced_idle_pct, 3);
	prom_head(f, "core_forced_idle_percent", "Forced idle as % of the core's CPU time in the interval.");
	for (core = 0; core < t->nr_cores; core++) {
		fprintf(f, "scx_coresched_core_forced_idle_percent{core=\"%d\",cpus=\"", core);
		for (i = 0; i < t->core_nr[core]; i++)
			fprintf(f, "%s%d", i ? "," : "", t->core_cpu[core][i]);
		fprintf(f, "\"} %.3f\n", iv->core_forced_idle_pct[core]);
	}
	for (m = 0; m < 3; m++) {
		prom_head(f, per_cookie[m].name, per_cookie[m].help);
		for (s = 0; s < CS_NR_SLOTS; s++) {
			double v = m == 0 ? iv->share_pct[s] :
				   m == 1 ? iv->run_ms[s] : iv->forced_idle_caused_ms[s];

			if (!iv->active[s])
				continue;
			cs_cookie_name(b->slot[s].cookie, name, sizeof(name));
			fprintf(f, "scx_coresched_%s{cookie=\"0x%016llx\",name=\"",
				per_cookie[m].name,
				(unsigned long long)b->slot[s].cookie);
			prom_label(f, name);
			fprintf(f, "\"} %.3f\n", v);
		}
	}
	prom_gauge(f, "cookie_switches_per_second", "Cookie switches per second in the interval.", iv->switches_per_s, 1);
	prom_gauge(f, "kicks_per_second", "Sibling kicks per second in the interval.", iv->kicks_per_s, 1);
	prom_gauge(f, "max_wait_ms", "Worst enqueue-to-run wait in the interval.", iv->max_wait_ms, 3);
	prom_gauge(f, "transit_retries", "Claims that found a sibling switching (they wait for its commit), in the interval.", (double)iv->transit_retries, 0);
	prom_gauge(f, "unclaimed_runs", "Runs without a matching claim (load transition, a running task re-queued with a new cookie), in the interval.", (double)iv->unclaimed_runs, 0);
	prom_gauge(f, "slot_full", "Slot requests refused because every slot was held (the task runs alone on its core), in the interval.", (double)iv->slot_full, 0);
	prom_gauge(f, "untagged_rescues", "Times untagged work waited queued past the guard (1 s) and had its vtime lowered, in the interval.", (double)iv->untagged_rescues, 0);
	prom_gauge(f, "cookie_rescues", "Times a tagged cookie waited queued past the guard (1 s) and had its vtime lowered, in the interval.", (double)iv->cookie_rescues, 0);
	prom_gauge(f, "task_rescues",
		   "Times a task waited queued past the guard (1 s) while its cookie ran, and was moved to the head of a queue of its cookie, in the interval.",
		   (double)iv->task_rescues, 0);
	prom_gauge(f, "migrations_per_second", "Runs of a task on another CPU than the one it last ran on, per second in the interval.", iv->migrations_per_s, 1);
	prom_gauge(f, "llc_migrations_per_second", "Of those, runs on another last-level cache, per second in the interval.", iv->llc_migrations_per_s, 1);
	prom_gauge(f, "llc_steals_per_second",
		   "Tasks a CPU took from another last-level cache's queue of their cookie (its own had none for it, or none that had waited as long), per second in the interval.",
		   iv->llc_steals_per_s, 1);
	prom_gauge(f, "renewals_per_second", "Slices renewed at a tick (no other cookie due, no task of the cookie more deserving), per second in the interval.", iv->renewals_per_s, 1);
	prom_gauge(f, "sync_keeps_per_second",
		   "Dispatches that claimed the cookie of a synchronous wakeup placed on their CPU again without looking at the other cookies, per second in the interval.",
		   iv->sync_keeps_per_s, 1);
	prom_gauge(f, "untagged_switches_per_second", "Of the cookie switches, those to or from untagged work (or trusted kernel threads, or cookies beyond the slots), per second in the interval.", iv->untagged_switches_per_s, 1);
	prom_gauge(f, "stalls_per_second",
		   "Ticks that came two ticks or more after the running task's last charge (the CPU did not run: a vCPU its host did not run), per second in the interval.",
		   iv->stalls_per_s, 1);
	prom_gauge(f, "stalled_percent",
		   "The time those stalls lost (all of each gap but a tick; still charged to the running task), in percent of all CPU time in the interval.",
		   iv->stalled_pct, 2);
	fflush(f);
}

void cs_interval_print(FILE *f, const struct cs_topo *t,
		       const struct cs_snapshot *b,
		       const struct cs_interval *iv, bool json)
{
	if (json)
		print_json(f, t, b, iv);
	else
		print_text(f, t, b, iv);
}

void cs_json_begin(struct cs_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

static void put_str(FILE *f, const char *s, size_t max)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f); /* UTF-8 passes through */
	}
	fputc('"', f);
}

/* The comma and the key before a value. */
static void put_key(struct cs_json *j, const char *key)
{
	if (j->more[j->depth])
		fputc(',', j->f);
	j->more[j->depth] = true;
	if (key) {
		put_str(j->f, key, SIZE_MAX);
		fputc(':', j->f);
	}
}

static void open_nest(struct cs_json *j, const char *key, char open,
		      char close)
{
	if (j->depth + 1 >= CS_JSON_MAX_DEPTH)
		return;
	put_key(j, key);
	fputc(open, j->f);
	j->depth++;
	j->more[j->depth] = false;
	j->close[j->depth] = close;
}

void cs_json_obj(struct cs_json *j, const char *key)
{
	open_nest(j, key, '{', '}');
}

void cs_json_arr(struct cs_json *j, const char *key)
{
	open_nest(j, key, '[', ']');
}

void cs_json_end(struct cs_json *j)
{
	if (!j->depth)
		return;
	fputc(j->close[j->depth--], j->f);
	if (!j->depth) {
		fputc('\n', j->f);
		j->more[0] = false;
	}
}

void cs_json_strn(struct cs_json *j, const char *key, const char *s,
		  size_t max)
{
	put_key(j, key);
	put_str(j->f, s, max);
}

void cs_json_str(struct cs_json *j, const char *key, const char *s)
{
	cs_json_strn(j, key, s, SIZE_MAX);
}

void cs_json_u64(struct cs_json *j, const char *key, unsigned long long v)
{
	put_key(j, key);
	fprintf(j->f, "%llu", v);
}

void cs_json_int(struct cs_json *j, const char *key, long long v)
{
	put_key(j, key);
	fprintf(j->f, "%lld", v);
}

void cs_json_dbl(struct cs_json *j, const char *key, double v, int prec)
{
	put_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.*f", prec, v);
	else
		fputs("null", j->f);
}

void cs_json_bool(struct cs_json *j, const char *key, bool v)
{
	put_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void cs_json_cookie(struct cs_json *j, const char *key, __u64 cookie)
{
	put_key(j, key);
	fprintf(j->f, "\"0x%016llx\"", (unsigned long long)cookie);
}
