// SPDX-License-Identifier: GPL-2.0-only
/* --stats reporting; see cs_report.h. */
#include <string.h>

#include "cs_common.h"
#include "cs_report.h"

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

void cs_interval_compute(const struct cs_topo *t, const struct cs_snapshot *a,
			 const struct cs_snapshot *b, struct cs_interval *iv)
{
	double span = (double)(b->t_ns - a->t_ns), core_total = 0, fi_total = 0;
	__u64 switches = 0, kicks = 0;
	int cpu, core, s;

	memset(iv, 0, sizeof(*iv));
	iv->secs = span / 1e9;
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		const struct cs_cpu_stat *x = &a->cpu[cpu], *y = &b->cpu[cpu];
		double fi = (double)(y->forced_idle_ns - x->forced_idle_ns);

		if (t->cpu_core[cpu] < 0)
			continue;
		fi_total += fi;
		iv->core_forced_idle_pct[t->cpu_core[cpu]] += fi;
		switches += y->cookie_switches - x->cookie_switches;
		kicks += y->kicks - x->kicks;
		iv->transit_retries += y->transit_retries - x->transit_retries;
		iv->unclaimed_runs += y->unclaimed_runs - x->unclaimed_runs;
	}
	for (core = 0; core < t->nr_cores; core++)
		iv->core_forced_idle_pct[core] =
			pct(iv->core_forced_idle_pct[core],
			    span * t->core_nr[core]);
	iv->forced_idle_pct = pct(fi_total, span * t->nr_cpus);

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
	}
	iv->max_wait_ms = (double)b->max_wait_ns / 1e6;
}

void cs_cookie_name(__u64 cookie, char *buf, size_t len)
{
	char path[256];

	if (!cookie)
		snprintf(buf, len, "untagged");
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
	fprintf(f, "\ncookie switches %.0f/s  sibling kicks %.0f/s  worst wait %.2f ms  transit retries %llu  unclaimed runs %llu\n",
		iv->switches_per_s, iv->kicks_per_s, iv->max_wait_ms,
		(unsigned long long)iv->transit_retries,
		(unsigned long long)iv->unclaimed_runs);
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
	char name[300];
	int core, s, n = 0;

	fprintf(f, "{\"interval_s\":%.3f,\"forced_idle_pct\":%.3f,\"cores\":[",
		iv->secs, iv->forced_idle_pct);
	for (core = 0; core < t->nr_cores; core++)
		fprintf(f, "%s{\"core\":%d,\"forced_idle_pct\":%.3f}",
			core ? "," : "", core, iv->core_forced_idle_pct[core]);
	fprintf(f, "],\"cookies\":[");
	for (s = 0; s < CS_NR_SLOTS; s++) {
		if (!iv->active[s])
			continue;
		cs_cookie_name(b->slot[s].cookie, name, sizeof(name));
		fprintf(f, "%s{\"cookie\":\"0x%016llx\",\"name\":\"%s\",\"share_pct\":%.3f,\"run_ms\":%.3f,\"forced_idle_caused_ms\":%.3f}",
			n++ ? "," : "", (unsigned long long)b->slot[s].cookie,
			name, iv->share_pct[s], iv->run_ms[s],
			iv->forced_idle_caused_ms[s]);
	}
	fprintf(f, "],\"cookie_switches_per_s\":%.1f,\"kicks_per_s\":%.1f,\"max_wait_ms\":%.3f,\"transit_retries\":%llu,\"unclaimed_runs\":%llu}\n",
		iv->switches_per_s, iv->kicks_per_s, iv->max_wait_ms,
		(unsigned long long)iv->transit_retries,
		(unsigned long long)iv->unclaimed_runs);
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

	prom_head(f, "stats_timestamp_seconds", "When these figures were written (Unix time).");
	fprintf(f, "scx_coresched_stats_timestamp_seconds %.3f\n", unix_time);
	prom_head(f, "interval_seconds", "Length of the interval the figures cover.");
	fprintf(f, "scx_coresched_interval_seconds %.3f\n", iv->secs);
	prom_head(f, "forced_idle_percent", "Forced idle as % of all CPU time in the interval.");
	fprintf(f, "scx_coresched_forced_idle_percent %.3f\n", iv->forced_idle_pct);
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
	prom_head(f, "cookie_switches_per_second", "Cookie switches per second in the interval.");
	fprintf(f, "scx_coresched_cookie_switches_per_second %.1f\n", iv->switches_per_s);
	prom_head(f, "kicks_per_second", "Sibling kicks per second in the interval.");
	fprintf(f, "scx_coresched_kicks_per_second %.1f\n", iv->kicks_per_s);
	prom_head(f, "max_wait_ms", "Worst enqueue-to-run wait in the interval.");
	fprintf(f, "scx_coresched_max_wait_ms %.3f\n", iv->max_wait_ms);
	prom_head(f, "transit_retries", "Claims retried while a sibling was switching, in the interval.");
	fprintf(f, "scx_coresched_transit_retries %llu\n",
		(unsigned long long)iv->transit_retries);
	prom_head(f, "unclaimed_runs", "Runs without a matching claim (load transition), in the interval.");
	fprintf(f, "scx_coresched_unclaimed_runs %llu\n",
		(unsigned long long)iv->unclaimed_runs);
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
