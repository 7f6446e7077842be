// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests of coresched-audit's pure parts: the sweep
 * (src/cs_sweep.c) on hand-made switch sequences, the JSON writer's
 * escaping (src/cs_report.c) and the trace reader (src/cs_trace.c).
 *
 * Prints one line per test, "PASS name" or "FAIL name: why"; exits 1 if any
 * test failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_report.h"
#include "cs_sweep.h"
#include "cs_trace.h"
#include "harness.h"

#define A 0xa
#define B 0xb

/* @cores cores of @smt siblings, CPUs numbered core by core. */
static void make_topo(struct cs_topo *t, int cores, int smt)
{
	int k, i;

	memset(t, 0, sizeof(*t));
	memset(t->cpu_core, -1, sizeof(t->cpu_core));
	memset(t->core_cpu, -1, sizeof(t->core_cpu));
	t->nr_cpus = cores * smt;
	t->nr_cores = cores;
	t->smt = smt;
	for (k = 0; k < cores; k++) {
		t->core_nr[k] = smt;
		for (i = 0; i < smt; i++) {
			t->core_cpu[k][i] = k * smt + i;
			t->cpu_core[k * smt + i] = k;
			t->cpu_sib[k * smt + i] = i;
		}
	}
}

static struct obs_event task(__u64 ts, int cpu, __u32 tid, __u64 cookie)
{
	struct obs_event ev = { .ts = ts, .cpu = cpu, .tid = tid,
				.cookie = cookie, .class = OBS_TASK };

	snprintf(ev.comm, sizeof(ev.comm), "t%u", tid);
	return ev;
}

static struct obs_event idle(__u64 ts, int cpu, bool forced)
{
	return (struct obs_event){ .ts = ts, .cpu = cpu, .class = OBS_IDLE,
				   .forced = forced };
}

static void feed(struct cs_sweep *s, const struct obs_event *ev, int n)
{
	int i;

	for (i = 0; i < n; i++)
		cs_sweep_event(s, &ev[i]);
}

/* Sweep @ev[0..n) on @t, end at @end; totals in @tot. */
static void sweep(struct cs_sweep *s, const struct cs_topo *t,
		  enum cs_mode mode, bool exempt, const struct obs_event *ev,
		  int n, __u64 end, struct cs_sweep_core *tot)
{
	cs_sweep_init(s, t, mode, exempt, 0, NULL);
	feed(s, ev, n);
	cs_sweep_finish(s, end);
	cs_sweep_total(s, tot);
}

static __u64 run_of(const struct cs_sweep *s, __u64 cookie)
{
	int i;

	for (i = 0; i < s->nr_cookies; i++)
		if (s->cookie[i].cookie == cookie)
			return s->cookie[i].run_ns;
	return 0;
}

/* Core @c's run time of @cookie; ~0 if the core's table does not hold it. */
static __u64 core_run_of(const struct cs_sweep_core *c, __u64 cookie)
{
	int i;

	for (i = 0; i < c->nr_cookies; i++)
		if (c->cookie[i].cookie == cookie)
			return c->cookie[i].run_ns;
	return ~0ULL;
}

/* The worked example at the top of bpf/audit.bpf.c. */
static bool test_two_siblings_example(void)
{
	struct obs_event ev[] = {
		task(100, 0, 10, A),
		task(130, 1, 20, B),
		idle(160, 0, true),
		task(200, 0, 21, B),
	};
	struct cs_sweep_core tot;
	struct cs_topo t;
	struct cs_sweep s;

	make_topo(&t, 1, 2);
	sweep(&s, &t, CS_MODE_STRICT, false, ev, ARRAY_SIZE(ev), 200, &tot);
	CHECK_EQ(tot.overlap_ns, 30);
	CHECK_EQ(tot.windows, 1);
	CHECK_EQ(tot.worst.len, 30);
	CHECK_EQ(tot.worst.start, 130);
	CHECK_EQ(tot.worst.a.tid, 10);
	CHECK_EQ(tot.worst.b.tid, 20);
	CHECK(!strcmp(tot.worst.a.comm, "t10"), "worst a comm %s",
	      tot.worst.a.comm);
	CHECK_EQ(tot.observed_ns, 70);
	CHECK_EQ(tot.forced_idle_ns, 40); /* cpu0 idle 160..200 */
	CHECK_EQ(run_of(&s, A), 60);
	CHECK_EQ(run_of(&s, B), 70);
	CHECK(cs_sweep_verified(&s), "verified");
	cs_sweep_free(&s);
	return true;
}

/* The same sequence in fill mode with cookie 0 beside A: no overlap;
 * in none mode A beside B: no overlap. */
static bool test_modes(void)
{
	struct obs_event ev[] = {
		task(100, 0, 10, A),
		task(130, 1, 20, 0),
		task(160, 1, 21, B),
	};
	struct cs_sweep_core tot;
	struct cs_topo t;
	struct cs_sweep s;

	make_topo(&t, 1, 2);
	sweep(&s, &t, CS_MODE_FILL, false, ev, ARRAY_SIZE(ev), 200, &tot);
	CHECK_EQ(tot.overlap_ns, 40); /* only A beside B, 160..200 */
	sweep(&s, &t, CS_MODE_NONE, false, ev, ARRAY_SIZE(ev), 200, &tot);
	CHECK_EQ(tot.overlap_ns, 0);
	sweep(&s, &t, CS_MODE_STRICT, false, ev, ARRAY_SIZE(ev), 200, &tot);
	CHECK_EQ(tot.overlap_ns, 70); /* 0 beside A counts in strict */
	CHECK_EQ(tot.windows, 1); /* 130..200 is one window */
	return true;
}

/*
 * 4 siblings: the core's overlap is the union over its pairs, not the
 * sum: A, B, B on three siblings is one window, not two.
 */
static bool test_four_siblings(void)
{
	struct obs_event ev[] = {
		task(0, 0, 10, A),
		task(0, 1, 11, A),
		idle(0, 2, false),
		idle(0, 3, false),
		task(100, 2, 20, B), /* opens: 0/2 and 1/2 */
		task(150, 3, 21, B),
		idle(200, 0, false), /* 1/2 and 1/3 still incompatible */
		task(300, 1, 22, B), /* all B: closes */
		task(300, 4, 30, A), /* another core, alone */
		task(350, 5, 31, B), /* core 1: opens */
	};
	struct cs_sweep_core tot;
	struct cs_topo t;
	struct cs_sweep s;

	make_topo(&t, 2, 4);
	sweep(&s, &t, CS_MODE_STRICT, false, ev, ARRAY_SIZE(ev), 400, &tot);
	CHECK_EQ(s.core[0].overlap_ns, 200);
	CHECK_EQ(s.core[0].windows, 1);
	CHECK_EQ(s.core[1].overlap_ns, 50);
	CHECK_EQ(s.core[1].worst.a.tid, 30);
	CHECK_EQ(s.core[1].worst.b.tid, 31);
	CHECK_EQ(tot.overlap_ns, 250);
	CHECK_EQ(tot.windows, 2);
	CHECK_EQ(tot.worst.core, 0);
	CHECK_EQ(tot.worst.len, 200);
	CHECK_EQ(s.nr_ex, 2);
	return true;
}

/*
 * Idle, trusted and exempted tasks never overlap; forced idle is counted
 * only for idle entered with runnable tasks.
 */
static bool test_idle_and_exempt(void)
{
	struct obs_event ev[] = {
		task(0, 0, 10, A),
		idle(0, 1, false),
		idle(100, 1, true),
		task(200, 1, 20, B),
		task(300, 1, 20, B),
	};
	struct cs_sweep_core tot;
	struct cs_topo t;
	struct cs_sweep s;

	ev[3].class = OBS_TRUSTED;
	ev[4].class = OBS_FOREIGN;
	make_topo(&t, 1, 2);
	sweep(&s, &t, CS_MODE_STRICT, true, ev, ARRAY_SIZE(ev), 400, &tot);
	CHECK_EQ(tot.overlap_ns, 0);
	CHECK_EQ(tot.forced_idle_ns, 100);
	CHECK_EQ(tot.observed_ns, 400);
	/* Not exempted, the RT kthread of cookie B overlaps 300..400. */
	sweep(&s, &t, CS_MODE_STRICT, false, ev, ARRAY_SIZE(ev), 400, &tot);
	CHECK_EQ(tot.overlap_ns, 100);
	return true;
}

/*
 * Unknown: a CPU with no record yet is not compared (cpu1 until 50), a
 * record of a CPU outside the topology is ignored, and a forgotten CPU
 * (records lost) is unknown until its next record.
 */
static bool test_unknown(void)
{
	struct obs_event ev[] = {
		task(0, 0, 10, A),
		task(20, 7, 70, B), /* no cpu 7 */
		task(50, 1, 20, B),
	};
	struct obs_event back = task(300, 1, 21, B);
	struct cs_sweep_core tot;
	struct cs_topo t;
	struct cs_sweep s;

	make_topo(&t, 1, 2);
	cs_sweep_init(&s, &t, CS_MODE_STRICT, false, 0, NULL);
	feed(&s, ev, ARRAY_SIZE(ev));
	cs_sweep_forget(&s, 1, 100);
	cs_sweep_event(&s, &back);
	cs_sweep_finish(&s, 400);
	cs_sweep_total(&s, &tot);
	CHECK_EQ(s.ignored, 1);
	CHECK_EQ(tot.overlap_ns, 50 + 100); /* 50..100 and 300..400 */
	CHECK_EQ(tot.windows, 2);
	CHECK_EQ(tot.observed_ns, 150);
	CHECK_EQ(run_of(&s, B), 50 + 100);
	return true;
}

/*
 * topo_miss stand-in: CPU 1 joins CPU 0's core (it came online), at the
 * second ask (sysfs did not show it yet at the first).
 */
static int placed;
static void place_cpu1(void *ctx, int cpu)
{
	struct cs_topo *t = ctx;

	if (++placed < 2 || cpu != 1)
		return;
	t->core_cpu[0][1] = 1;
	t->core_nr[0] = 2;
	t->cpu_core[1] = 0;
	t->cpu_sib[1] = 1;
}

/*
 * A CPU offline when the topology was read (CPU 1 of a 1x2 core): its
 * records ask the topology to place it, at most once per
 * CS_SWEEP_TOPO_RETRY_NS; until placed they are ignored, after that its
 * overlap with its sibling counts.
 */
static bool test_cpu_comes_online(void)
{
	const __u64 r = CS_SWEEP_TOPO_RETRY_NS;
	struct obs_event ev[] = {
		task(0, 0, 10, A),
		task(10, 1, 20, B), /* asks; not placed: ignored */
		task(20, 1, 21, B), /* within the retry time: not asked */
		task(r + 10, 1, 22, B), /* asks again: placed, counted */
	};
	struct cs_sweep_ops ops = { .topo_miss = place_cpu1 };
	struct cs_sweep_core tot;
	struct cs_topo t;
	struct cs_sweep s;

	make_topo(&t, 1, 2);
	t.core_cpu[0][1] = -1; /* CPU 1 offline at the start */
	t.core_nr[0] = 1;
	t.cpu_core[1] = -1;
	ops.topo_ctx = &t;
	placed = 0;
	cs_sweep_init(&s, &t, CS_MODE_STRICT, false, 0, &ops);
	feed(&s, ev, 2);
	CHECK_EQ(placed, 1);
	feed(&s, ev + 2, 1);
	CHECK_EQ(placed, 1);
	CHECK_EQ(s.ignored, 2);
	feed(&s, ev + 3, 1);
	CHECK_EQ(placed, 2);
	CHECK_EQ(s.ignored, 2);
	cs_sweep_finish(&s, r + 110);
	cs_sweep_total(&s, &tot);
	CHECK_EQ(tot.overlap_ns, 100); /* A beside B from r + 10 on */
	CHECK_EQ(tot.windows, 1);
	cs_sweep_free(&s);
	return true;
}

/* Lost records make the sweep unverified; late ones too. */
static bool test_lost_and_late(void)
{
	struct obs_event a = task(100, 0, 10, A), b = task(200, 1, 20, A);
	struct obs_event old = task(150, 1, 21, B);
	struct cs_topo t;
	struct cs_sweep s;

	make_topo(&t, 1, 2);
	cs_sweep_init(&s, &t, CS_MODE_STRICT, false, 0, NULL);
	cs_sweep_event(&s, &a);
	CHECK(cs_sweep_verified(&s), "verified before any loss");
	b.lost_before = 3;
	cs_sweep_event(&s, &b);
	CHECK_EQ(s.lost, 3);
	CHECK(!cs_sweep_verified(&s), "verified despite lost records");

	cs_sweep_init(&s, &t, CS_MODE_STRICT, false, 0, NULL);
	CHECK_INT(cs_sweep_push(&s, &b), 0);
	CHECK_INT(cs_sweep_push(&s, &a), 0);
	cs_sweep_release(&s, 1000); /* sorted: a, then b */
	CHECK_EQ(s.switches, 2);
	CHECK_EQ(s.cur[0].tid, 10);
	CHECK_INT(cs_sweep_push(&s, &old), 0);
	CHECK_EQ(s.late, 1);
	CHECK(!cs_sweep_verified(&s), "verified despite a late record");
	cs_sweep_free(&s);
	return true;
}

/*
 * Boundaries: siblings that switch at the same ns give no window; an
 * overlap of 1 ns is one window; a window closing at the instant another
 * opens on the same core is two windows.
 */
static bool test_boundaries(void)
{
	struct obs_event ev[] = {
		task(100, 0, 10, A),
		idle(100, 1, false),
		task(200, 1, 20, B), /* opens at 200 ... */
		task(200, 0, 11, B), /* ... and closes at 200: 0 ns */
		task(300, 0, 12, A), /* opens at 300 */
		task(301, 1, 22, A), /* closes at 301: 1 ns */
		idle(400, 0, false),
		task(400, 1, 23, B), /* pair idle/B: nothing */
	};
	struct cs_sweep_core tot;
	struct cs_topo t;
	struct cs_sweep s;

	make_topo(&t, 1, 2);
	sweep(&s, &t, CS_MODE_STRICT, false, ev, ARRAY_SIZE(ev), 500, &tot);
	CHECK_EQ(tot.overlap_ns, 1);
	CHECK_EQ(tot.windows, 1);
	CHECK_EQ(tot.worst.start, 300);
	/* An overlap still open at the end is closed there. */
	sweep(&s, &t, CS_MODE_STRICT, false, ev, 5, 300, &tot);
	CHECK_EQ(tot.overlap_ns, 0); /* opened at 300, ended at 300 */
	return true;
}

/* Mutation: a sweep that missed the window must fail the example. */
static bool test_detects_a_broken_check(void)
{
	struct obs_event ev[] = { task(0, 0, 1, A), task(10, 1, 2, B) };
	struct cs_sweep_core tot;
	struct cs_topo t;
	struct cs_sweep s;

	make_topo(&t, 1, 2);
	sweep(&s, &t, CS_MODE_NONE, false, ev, 2, 20, &tot);
	/* mode none stands in for a sweep that compares nothing */
	CHECK(tot.overlap_ns != 10, "a sweep blind to cookies saw overlap");
	sweep(&s, &t, CS_MODE_STRICT, false, ev, 2, 20, &tot);
	CHECK_EQ(tot.overlap_ns, 10);
	return true;
}

#define C 0xc

/*
 * Each core's cookies' run time, exact, on 2 cores of 2 siblings: a slice
 * counts on the core of its CPU only, idle (forced or not) counts nowhere,
 * the total is the sum of the cores, and the total leaves the per-core
 * table empty.
 */
static bool test_core_shares(void)
{
	struct obs_event ev[] = {
		task(0, 0, 10, A),
		task(0, 2, 30, B),
		idle(0, 3, false),
		task(50, 1, 20, A),
		task(100, 0, 11, B),
		task(100, 3, 40, C),
		task(200, 1, 21, 0),
		idle(250, 0, true),
	};
	const struct cs_sweep_core *c0, *c1;
	struct cs_sweep_core tot;
	struct cs_topo t;
	struct cs_sweep s;

	make_topo(&t, 2, 2);
	sweep(&s, &t, CS_MODE_STRICT, false, ev, ARRAY_SIZE(ev), 300, &tot);
	c0 = &s.core[0];
	c1 = &s.core[1];
	/* core 0: cpu0 A 0..100, B 100..250; cpu1 A 50..200, 0 200..300 */
	CHECK_INT(c0->nr_cookies, 3);
	CHECK_EQ(c0->cookie[0].cookie, A); /* in the order first seen */
	CHECK_EQ(c0->cookie[1].cookie, B);
	CHECK_EQ(c0->cookie[2].cookie, 0);
	CHECK_EQ(core_run_of(c0, A), 100 + 150);
	CHECK_EQ(core_run_of(c0, B), 150);
	CHECK_EQ(core_run_of(c0, 0), 100);
	CHECK_EQ(c0->other_run_ns, 0);
	CHECK_EQ(c0->forced_idle_ns, 50);
	/* core 1: cpu2 B 0..300; cpu3 idle 0..100, C 100..300 */
	CHECK_INT(c1->nr_cookies, 2);
	CHECK_EQ(core_run_of(c1, B), 300);
	CHECK_EQ(core_run_of(c1, C), 200);
	CHECK_EQ(core_run_of(c1, A), ~0ULL);
	CHECK_EQ(c1->other_run_ns, 0);
	CHECK_EQ(run_of(&s, A), 250);
	CHECK_EQ(run_of(&s, B), 150 + 300);
	CHECK_EQ(run_of(&s, C), 200);
	CHECK_EQ(run_of(&s, 0), 100);
	CHECK_INT(tot.nr_cookies, 0);
	CHECK_EQ(tot.other_run_ns, 0);
	return true;
}

/*
 * A core's table at its edge: CS_SWEEP_CORE_COOKIES cookies fill it with
 * nothing in other; the next cookie goes to other, and stays there when
 * it comes back, while a kept cookie that comes back is still added to its
 * entry. The other core's table and the total one (64 cookies) are not
 * affected: the overflowing cookie is kept apart in both.
 */
static bool test_core_shares_overflow(void)
{
	const int n = CS_SWEEP_CORE_COOKIES;
	const __u64 x = 0x1ff; /* the cookie that finds core 0's table full */
	struct obs_event ev;
	struct cs_sweep_core *c0;
	struct cs_topo t;
	struct cs_sweep s;
	__u64 ts = 0;
	int i;

	make_topo(&t, 2, 2);
	cs_sweep_init(&s, &t, CS_MODE_STRICT, false, 0, NULL);
	c0 = &s.core[0];
	for (i = 0; i < n; i++) { /* cookie 0x100 + i runs 10 * (i + 1) ns */
		ev = task(ts, 0, 100 + i, 0x100 + i);
		cs_sweep_event(&s, &ev);
		ts += 10 * (i + 1);
	}
	ev = task(ts, 0, 200, x); /* ends the last of the n: table full */
	cs_sweep_event(&s, &ev);
	CHECK_INT(c0->nr_cookies, n);
	CHECK_EQ(c0->other_run_ns, 0);
	for (i = 0; i < n; i++) {
		CHECK_EQ(c0->cookie[i].cookie, 0x100 + i);
		CHECK_EQ(c0->cookie[i].run_ns, 10 * (i + 1));
	}
	ev = task(ts + 7, 0, 100, 0x100); /* x ran 7 ns: other */
	cs_sweep_event(&s, &ev);
	CHECK_INT(c0->nr_cookies, n);
	CHECK_EQ(c0->other_run_ns, 7);
	CHECK_EQ(core_run_of(c0, x), ~0ULL);
	ev = task(ts + 12, 0, 201, x); /* 0x100 ran 5 ns more: its entry */
	cs_sweep_event(&s, &ev);
	CHECK_EQ(c0->cookie[0].run_ns, 10 + 5);
	CHECK_EQ(c0->other_run_ns, 7);
	ev = idle(ts + 15, 0, false); /* x ran 3 ns more: still other */
	cs_sweep_event(&s, &ev);
	CHECK_EQ(c0->other_run_ns, 7 + 3);
	ev = task(ts + 20, 2, 300, x); /* core 1 keeps x apart */
	cs_sweep_event(&s, &ev);
	cs_sweep_finish(&s, ts + 60);
	CHECK_INT(s.core[1].nr_cookies, 1);
	CHECK_EQ(core_run_of(&s.core[1], x), 40);
	CHECK_EQ(s.core[1].other_run_ns, 0);
	CHECK_INT(c0->nr_cookies, n); /* idle to the end adds nothing */
	CHECK_EQ(c0->other_run_ns, 10);
	CHECK_INT(s.nr_cookies, n + 1);
	CHECK_EQ(run_of(&s, x), 7 + 3 + 40);
	CHECK_EQ(run_of(&s, 0x100), 15);
	CHECK_EQ(s.other_run_ns, 0);
	cs_sweep_free(&s);
	return true;
}

static bool test_json_escapes(void)
{
	char buf[256] = "";
	struct cs_json j;
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	CHECK(f, "fmemopen");
	cs_json_begin(&j, f);
	cs_json_obj(&j, NULL);
	cs_json_str(&j, "a\"b", "q\"\\\n\x01/é");
	cs_json_arr(&j, "l");
	cs_json_u64(&j, NULL, 1);
	cs_json_strn(&j, NULL, "abcdef", 3);
	cs_json_end(&j);
	cs_json_dbl(&j, "nan", 0.0 / 0.0, 2);
	cs_json_end(&j);
	fclose(f);
	CHECK(!strcmp(buf, "{\"a\\\"b\":\"q\\\"\\\\\\u000a\\u0001/é\","
			   "\"l\":[1,\"abc\"],\"nan\":null}\n"),
	      "got %s", buf);
	return true;
}

static const char *test_name(void *ctx, __u64 cookie)
{
	static char buf[32];

	(void)ctx;
	snprintf(buf, sizeof(buf), cookie == A ? "tenant \"a\"" : "b<%llx>",
		 (unsigned long long)cookie);
	return buf;
}

/*
 * The trace of a sweep reads back with one track per CPU grouped by core
 * plus an overlap track, slices named by cookie, the window marked; the
 * SVG drawn from it has a row per CPU and a red window.
 */
static bool test_trace_round_trip(void)
{
	struct obs_event ev[] = {
		task(1000, 0, 10, A),
		task(2000, 1, 20, B),
		idle(3000, 0, true),
		task(4000, 2, 30, A),
	};
	char path[] = "/tmp/test_audit_XXXXXX", err[256], *svg = NULL;
	struct cs_trace_data d;
	struct cs_sweep_ops ops = { .slice = cs_trace_slice,
				    .window = cs_trace_window };
	struct cs_trace tr;
	struct cs_topo t;
	struct cs_sweep s;
	size_t svg_len = 0;
	int fd = mkstemp(path), i, cpu_rows = 0, forced = 0, over = 0;
	FILE *f;

	CHECK(fd >= 0, "mkstemp");
	close(fd);
	make_topo(&t, 2, 2);
	CHECK_INT(cs_trace_open(&tr, path, &t, 0, test_name, NULL), 0);
	ops.ctx = &tr;
	cs_sweep_init(&s, &t, CS_MODE_STRICT, false, 0, &ops);
	feed(&s, ev, ARRAY_SIZE(ev));
	cs_sweep_finish(&s, 5000);
	CHECK_INT(cs_trace_close(&tr, "tenant", "strict"), 0);
	CHECK(!cs_trace_read(path, &d, err, sizeof(err)), "read: %s", err);
	unlink(path);
	CHECK_INT(d.nr_tracks, 4 + 2); /* 4 CPUs, 2 overlap tracks */
	for (i = 0; i < d.nr_tracks; i++) {
		const struct cs_trace_track *k = &d.track[i];
		size_t j;

		CHECK(k->name, "track %d,%d has no name", k->pid, k->tid);
		if (k->tid < CS_TRACE_OVERLAP_TID) {
			cpu_rows++;
			CHECK_INT(k->pid, t.cpu_core[k->tid - CS_TRACE_CPU_TID] + 1);
		}
		for (j = 0; j < k->nr; j++) {
			forced += k->s[j].forced_idle;
			over += k->s[j].overlap;
		}
	}
	CHECK_INT(cpu_rows, 4);
	CHECK_INT(forced, 1);
	CHECK_INT(over, 1); /* 2000..3000 on core 0 */
	CHECK_INT(d.nr_names, 2);
	CHECK(!strcmp(d.names[0], "tenant \"a\""), "name %s", d.names[0]);
	CHECK(!strcmp(d.proc_name[1], "core 0 (cpus 0,1)"), "process %s",
	      d.proc_name[1]);
	CHECK(d.t_end > 4.9 && d.t_end < 5.1, "t_end %f us", d.t_end);
	f = open_memstream(&svg, &svg_len);
	CHECK(f, "open_memstream");
	cs_trace_svg(f, &d, "test <&>");
	fclose(f);
	CHECK(strstr(svg, "<svg ") && strstr(svg, "</svg>"), "no svg element");
	CHECK(strstr(svg, "test &lt;&amp;&gt;"), "title not escaped");
	CHECK(strstr(svg, "#e00000"), "no red overlap window");
	CHECK(strstr(svg, ">cpu 3</text>"), "no row for cpu 3");
	free(svg);
	cs_trace_data_free(&d);
	return true;
}

/* Input that is not one of our traces is refused with a reason. */
static bool test_trace_bad_input(void)
{
	static const char *const bad[] = {
		"", "[]", "{\"traceEvents\":[{]}", "{\"a\":1}",
		"{\"traceEvents\":[]} x", "{\"traceEvents\":[\"x]}",
	};
	char path[] = "/tmp/test_audit_XXXXXX", err[256];
	struct cs_trace_data d;
	int i, fd;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		fd = mkstemp(path);
		CHECK(fd >= 0, "mkstemp");
		CHECK(write(fd, bad[i], strlen(bad[i])) == (ssize_t)strlen(bad[i]),
		      "write");
		close(fd);
		err[0] = '\0';
		CHECK(cs_trace_read(path, &d, err, sizeof(err)) < 0,
		      "'%s' was accepted", bad[i]);
		CHECK(strstr(err, path) && strstr(err, "not a trace"),
		      "message for '%s': %s", bad[i], err);
		unlink(path);
		strcpy(path, "/tmp/test_audit_XXXXXX");
	}
	CHECK(cs_trace_read("/nonexistent/x.json", &d, err, sizeof(err)) < 0,
	      "a missing file was accepted");
	CHECK(strstr(err, "/nonexistent/x.json"), "message: %s", err);
	return true;
}

int main(void)
{
	RUN(two_siblings_example);
	RUN(modes);
	RUN(four_siblings);
	RUN(idle_and_exempt);
	RUN(unknown);
	RUN(cpu_comes_online);
	RUN(lost_and_late);
	RUN(boundaries);
	RUN(detects_a_broken_check);
	RUN(core_shares);
	RUN(core_shares_overflow);
	RUN(json_escapes);
	RUN(trace_round_trip);
	RUN(trace_bad_input);
	return nr_failed ? 1 : 0;
}
