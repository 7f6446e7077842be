// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for the statistics writers of src/cs_report.c that
 * coreschedctl stats serves: the Prometheus text format (its grammar and
 * figures for a known interval) and the JSON line's leading interval,
 * which coreschedctl stats reads to tell stale figures.
 *
 * Prints one line per test, "PASS name" or "FAIL name: why"; exits 1 if any
 * test failed.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coresched.h"
#include "cs_report.h"
#include "harness.h"

#define MS 1000000ULL

/* 2 cores of 2 threads; cpu 0 forced idle 250 ms of a 1 s interval. */
static void interval_2x2(struct cs_topo *t, struct cs_snapshot *a,
			 struct cs_snapshot *b, struct cs_interval *iv)
{
	int cpu;

	memset(t, 0, sizeof(*t));
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	t->nr_cpus = 4;
	t->nr_cores = 2;
	t->smt = 2;
	for (cpu = 0; cpu < 4; cpu++) {
		t->cpu_core[cpu] = cpu / 2;
		t->cpu_sib[cpu] = cpu ^ 1;
		t->core_cpu[cpu / 2][cpu % 2] = cpu;
	}
	t->core_nr[0] = t->core_nr[1] = 2;
	a->t_ns = 5000 * MS;
	b->t_ns = 6000 * MS;
	b->cpu[0].forced_idle_ns = 250 * MS;
	/* slot 0: untagged; slot 3: a task cookie; slot 7 never ran. */
	b->slot[0].cookie = 0;
	b->slot[0].run_ns = 400 * MS;
	b->slot[0].core_ns = 300 * MS;
	b->slot[3].cookie = 0x5;
	b->slot[3].run_ns = 200 * MS;
	b->slot[3].core_ns = 100 * MS;
	b->slot[3].forced_idle_ns = 250 * MS;
	a->slot[3].cookie = 0x5;
	b->live_mask[0] = 1ULL << 0 | 1ULL << 3;
	b->slot[7].cookie = 0x9;
	/* The last slot, live but idle in the interval. */
	b->slot[CS_MAX_TAGGED].cookie = 0x11;
	a->slot[CS_MAX_TAGGED].cookie = 0x11;
	b->live_mask[CS_MAX_TAGGED / 64] = 1ULL << (CS_MAX_TAGGED % 64);
	a->slot_full = 3;
	b->slot_full = 5;
	/* Rescues are per CPU: 1 + 2 in the interval. */
	a->cpu[1].untagged_rescues = 4;
	b->cpu[1].untagged_rescues = 5;
	b->cpu[2].untagged_rescues = 2;
	/* and of tagged cookies, 6 in the interval. */
	a->cpu[3].cookie_rescues = 1;
	b->cpu[3].cookie_rescues = 7;
	/* and of tasks in their queue, 2 + 9 in the interval. */
	a->cpu[0].task_rescues = 5;
	b->cpu[0].task_rescues = 7;
	b->cpu[1].task_rescues = 9;
	/* Migrations in the 1 s: 7 + 3, 2 of them across LLCs. */
	a->cpu[0].migrations = 10;
	b->cpu[0].migrations = 17;
	b->cpu[3].migrations = 3;
	b->cpu[3].llc_migrations = 2;
	/* 3 + 1 of them from another LLC's queue. */
	a->cpu[2].llc_steals = 4;
	b->cpu[2].llc_steals = 7;
	b->cpu[3].llc_steals = 1;
	/*
	 * Stalls in the 1 s: 3 + 2, losing 40 + 60 ms of the 4 CPUs' 4 s
	 * (2.50 %).
	 */
	a->cpu[1].stalls = 7;
	b->cpu[1].stalls = 10;
	b->cpu[3].stalls = 2;
	a->cpu[1].stall_ns = 5 * MS;
	b->cpu[1].stall_ns = 45 * MS;
	b->cpu[3].stall_ns = 60 * MS;
	/* Renewals in the 1 s: 4 + 1. */
	a->cpu[2].renewals = 6;
	b->cpu[2].renewals = 10;
	b->cpu[0].renewals = 1;
	/* Claims kept for a sync wakee in the 1 s: 3 + 4. */
	a->cpu[0].sync_keeps = 2;
	b->cpu[0].sync_keeps = 5;
	b->cpu[2].sync_keeps = 4;
	/* Cookie switches in the 1 s: 8 + 4, 3 + 2 of them untagged. */
	a->cpu[1].cookie_switches = 2;
	b->cpu[1].cookie_switches = 10;
	a->cpu[1].untagged_switches = 1;
	b->cpu[1].untagged_switches = 4;
	b->cpu[3].cookie_switches = 4;
	b->cpu[3].untagged_switches = 2;
	cs_interval_compute(t, a, b, iv);
}

enum format { JSON, PROM, TEXT };

static char *render(enum format how)
{
	static struct cs_topo t;
	static struct cs_snapshot a, b;
	struct cs_interval iv;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	interval_2x2(&t, &a, &b, &iv);
	if (how == PROM)
		cs_interval_print_prom(f, &t, &b, &iv, 1700000000.5);
	else
		cs_interval_print(f, &t, &b, &iv, how == JSON);
	fclose(f);
	return buf;
}

/* The metric name at @p: its length, 0 if @p does not start with one. */
static size_t metric_name(const char *p)
{
	size_t n = 0;

	if (strncmp(p, "scx_coresched_", 14))
		return 0;
	while (islower((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n;
}

/*
 * Is @l a line of the text exposition format as scx_coresched writes it:
 * "# HELP name text", "# TYPE name gauge" or "name{label="value",...} number"?
 * @name gets the metric name's length, @sample whether the line is a sample.
 */
static bool prom_line(const char *l, size_t *name, bool *sample)
{
	const char *p;
	char *end;

	*sample = strncmp(l, "# ", 2) != 0;
	if (!*sample) {
		if (strncmp(l, "# HELP ", 7) && strncmp(l, "# TYPE ", 7))
			return false;
		*name = metric_name(l + 7);
		p = l + 7 + *name;
		return *name && (l[2] == 'H' ? *p == ' ' : !strcmp(p, " gauge"));
	}
	*name = metric_name(l);
	if (!*name)
		return false;
	p = l + *name;
	if (*p == '{') {
		do {
			p++;
			while (islower((unsigned char)*p) || *p == '_')
				p++;
			if (*p++ != '=' || *p++ != '"')
				return false;
			/* a value escapes backslash, double quote and newline */
			for (; *p != '"'; p++)
				if (!*p || (*p == '\\' && !*++p))
					return false;
			p++;
		} while (*p == ',');
		if (*p++ != '}')
			return false;
	}
	if (*p++ != ' ')
		return false;
	strtod(p, &end);
	return end != p && !*end;
}

static bool test_prom_grammar(void)
{
	char *out = render(PROM), *line, *save = NULL;
	char typed[32][64];
	int ntyped = 0, nsamples = 0, i;

	CHECK(out, "no output");
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		bool sample, known = false;
		size_t n;

		CHECK(prom_line(line, &n, &sample) && n < sizeof(typed[0]),
		      "malformed line '%s'", line);
		if (!sample) {
			if (!strncmp(line, "# TYPE ", 7) && ntyped < 32)
				snprintf(typed[ntyped++], sizeof(typed[0]),
					 "%.*s", (int)n, line + 7);
			continue;
		}
		for (i = 0; i < ntyped; i++)
			known |= strlen(typed[i]) == n &&
				 !strncmp(typed[i], line, n);
		CHECK(known, "sample before its # TYPE line: '%s'", line);
		nsamples++;
	}
	CHECK(nsamples >= 12, "only %d samples", nsamples);
	free(out);
	return true;
}

static bool test_prom_figures(void)
{
	char *out = render(PROM);
	const char *want[] = {
		"\nscx_coresched_stats_timestamp_seconds 1700000000.500\n",
		"\nscx_coresched_interval_seconds 1.000\n",
		"\nscx_coresched_forced_idle_percent 6.250\n",
		"\nscx_coresched_core_forced_idle_percent{core=\"0\",cpus=\"0,1\"} 12.500\n",
		"\nscx_coresched_core_forced_idle_percent{core=\"1\",cpus=\"2,3\"} 0.000\n",
		"\nscx_coresched_cookie_share_percent{cookie=\"0x0000000000000000\",name=\"untagged\"} 75.000\n",
		"\nscx_coresched_cookie_run_ms{cookie=\"0x0000000000000005\",name=\"task:0x0000000000000005\"} 200.000\n",
		"\nscx_coresched_cookie_forced_idle_caused_ms{cookie=\"0x0000000000000005\",name=\"task:0x0000000000000005\"} 250.000\n",
		"\nscx_coresched_cookie_run_ms{cookie=\"0x0000000000000011\",name=\"task:0x0000000000000011\"} 0.000\n",
		"\nscx_coresched_slot_full 2\n",
		"\nscx_coresched_untagged_rescues 3\n",
		"\nscx_coresched_cookie_rescues 6\n",
		"\nscx_coresched_task_rescues 11\n",
		"\nscx_coresched_migrations_per_second 10.0\n",
		"\nscx_coresched_llc_migrations_per_second 2.0\n",
		"\nscx_coresched_llc_steals_per_second 4.0\n",
		"\nscx_coresched_renewals_per_second 5.0\n",
		"\nscx_coresched_sync_keeps_per_second 7.0\n",
		"\nscx_coresched_cookie_switches_per_second 12.0\n",
		"\nscx_coresched_untagged_switches_per_second 5.0\n",
		"\nscx_coresched_stalls_per_second 5.0\n",
		"\nscx_coresched_stalled_percent 2.50\n",
	};
	int i;

	CHECK(out, "no output");
	for (i = 0; i < ARRAY_SIZE(want); i++)
		CHECK(strstr(out, want[i]), "no line%s", want[i]);
	/* A slot that did not run in the interval and is not live is left out. */
	CHECK(!strstr(out, "0x0000000000000009"), "an idle slot is listed");
	free(out);
	return true;
}

/* coreschedctl stats reads the interval with this very format. */
static bool test_json_interval_first(void)
{
	char *out = render(JSON);
	double secs = 0;

	CHECK(out, "no output");
	CHECK(sscanf(out, "{\"interval_s\":%lf", &secs) == 1,
	      "JSON line does not start with the interval: %.40s", out);
	CHECK(secs > 0.999 && secs < 1.001, "interval %f, expected 1", secs);
	CHECK(strchr(out, '\n') == out + strlen(out) - 1, "not one line");
	free(out);
	return true;
}

/* The counters summed over the CPUs, in the JSON line too. */
static bool test_json_counters(void)
{
	char *out = render(JSON);

	CHECK(out, "no output");
	CHECK(strstr(out, "\"slot_full\":2"), "slot_full: %s", out);
	CHECK(strstr(out, "\"untagged_rescues\":3"), "untagged_rescues: %s",
	      out);
	CHECK(strstr(out, "\"cookie_rescues\":6"), "cookie_rescues: %s", out);
	CHECK(strstr(out, "\"task_rescues\":11"), "task_rescues: %s", out);
	CHECK(strstr(out, "\"migrations_per_s\":10.0,"), "migrations: %s", out);
	CHECK(strstr(out, "\"llc_migrations_per_s\":2.0"), "llc_migrations: %s",
	      out);
	CHECK(strstr(out, "\"llc_steals_per_s\":4.0"), "llc_steals: %s", out);
	CHECK(strstr(out, "\"renewals_per_s\":5.0"), "renewals: %s", out);
	CHECK(strstr(out, "\"sync_keeps_per_s\":7.0"), "sync keeps: %s", out);
	CHECK(strstr(out, "\"cookie_switches_per_s\":12.0,"), "switches: %s",
	      out);
	CHECK(strstr(out, "\"untagged_switches_per_s\":5.0"),
	      "untagged switches: %s", out);
	CHECK(strstr(out, "\"stalls_per_s\":5.0,"), "stalls: %s", out);
	CHECK(strstr(out, "\"stalled_pct\":2.50"), "stalled: %s", out);
	free(out);
	return true;
}

/*
 * A stall of 3 s on one CPU ends in a 1 s interval: counted as that CPU's
 * whole interval, 25 % of the four CPUs' time, not 75 % (and 2.5 % from
 * the others' stalls, interval_2x2).
 */
static bool test_stall_within_interval(void)
{
	static struct cs_topo t;
	static struct cs_snapshot a, b;
	struct cs_interval iv;

	interval_2x2(&t, &a, &b, &iv);
	b.cpu[2].stall_ns = 3000 * MS;
	cs_interval_compute(&t, &a, &b, &iv);
	CHECK(iv.stalled_pct > 27.49 && iv.stalled_pct < 27.51,
	      "stalled %.3f %%, expected 27.5", iv.stalled_pct);
	return true;
}

/* The text form: the counters' line with the sync keeps and stalls. */
static bool test_text_counters(void)
{
	char *out = render(TEXT);

	CHECK(out, "no output");
	CHECK(strstr(out,
		     "slices renewed 5/s  kept for a sync wakee 7/s  stalls 5/s (2.5% of CPU time)\n"),
	      "stalls: %s", out);
	free(out);
	return true;
}

/* Core 1's forced idle after cs_interval_compute(), within 0.01 %. */
#define CHECK_CORE1(iv, want)                                               \
	CHECK((iv).core_forced_idle_pct[1] > (want) - 0.01 &&               \
		      (iv).core_forced_idle_pct[1] < (want) + 0.01,         \
	      "core 1: %.3f %%, expected %.1f %%",                          \
	      (iv).core_forced_idle_pct[1], (double)(want))

/*
 * Forced idle still going on is counted up to each snapshot: CPU 2 forced
 * idle since 5.5 s (still at 6 s), CPU 3 from 4 s to 5.8 s (ended, 1.8 s
 * added then): 0.5 s and 0.8 s of the 1 s interval, not 0 and 1.8 s.
 */
static bool test_forced_idle_in_progress(void)
{
	static struct cs_topo t;
	static struct cs_snapshot a, b;
	struct cs_interval iv;

	interval_2x2(&t, &a, &b, &iv);
	b.cpu[2].fi_start = 5500 * MS;
	a.cpu[3].fi_start = 4000 * MS;
	b.cpu[3].forced_idle_ns = 1800 * MS;
	cs_interval_compute(&t, &a, &b, &iv);
	CHECK_CORE1(iv, 65); /* (0.5 s + 0.8 s) / 2 CPUs */
	/* A stretch that started after the snapshot's clock: not yet. */
	b.cpu[2].fi_start = 6100 * MS;
	cs_interval_compute(&t, &a, &b, &iv);
	CHECK_CORE1(iv, 40); /* 0.8 s / 2 */
	/* Never more than the interval per CPU, never below 0. */
	b.cpu[2].fi_start = 0;
	b.cpu[3].forced_idle_ns = 9000 * MS;
	a.cpu[2].fi_start = 4000 * MS;
	cs_interval_compute(&t, &a, &b, &iv);
	CHECK_CORE1(iv, 50); /* (0 + 1 s) / 2 */
	return true;
}

static bool test_cookie_names(void)
{
	char buf[64];

	cs_cookie_name(0, buf, sizeof(buf));
	CHECK(!strcmp(buf, "untagged"), "0 is '%s'", buf);
	cs_cookie_name(CS_COOKIE_LOST, buf, sizeof(buf));
	CHECK(!strcmp(buf, "lost"), "CS_COOKIE_LOST is '%s'", buf);
	cs_cookie_name(CS_COOKIE_LOST | 4242ULL << 32, buf, sizeof(buf));
	CHECK(!strcmp(buf, "lost:4242"), "the audit's lost 4242 is '%s'", buf);
	cs_cookie_name(cs_task_cookie_make(42), buf, sizeof(buf));
	CHECK(!strcmp(buf, "task:0x1abdbeacecedebaf"), "cookie 42 is '%s'",
	      buf);
	return true;
}

int main(void)
{
	RUN(prom_grammar);
	RUN(prom_figures);
	RUN(json_interval_first);
	RUN(json_counters);
	RUN(text_counters);
	RUN(stall_within_interval);
	RUN(cookie_names);
	RUN(forced_idle_in_progress);
	return nr_failed ? 1 : 0;
}
