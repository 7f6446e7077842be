// SPDX-License-Identifier: GPL-2.0-only
/*
 * coresched-audit's sweep; see cs_sweep.h. Compatibility is decided here
 * again, on purpose, and not with cs_policy.h: the audit must not share
 * the scheduler's code, or a bug in it would hide itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cs_sweep.h"

void cs_sweep_init(struct cs_sweep *s, const struct cs_topo *t,
		   enum cs_mode mode, bool exempt_foreign, __u64 t0,
		   const struct cs_sweep_ops *ops)
{
	memset(s, 0, sizeof(*s));
	s->topo = t;
	s->mode = mode;
	s->exempt_foreign = exempt_foreign;
	s->t0 = t0;
	s->now = t0;
	if (ops)
		s->ops = *ops;
}

void cs_sweep_free(struct cs_sweep *s)
{
	free(s->pend);
	s->pend = NULL;
	s->nr_pend = s->cap_pend = 0;
}

/* An RT/DL/stop kernel thread counts as a task unless exempted. */
static bool counts(const struct cs_sweep *s, const struct obs_event *x)
{
	return x->class == OBS_TASK ||
	       (x->class == OBS_FOREIGN && !s->exempt_foreign);
}

bool cs_sweep_compatible(const struct cs_sweep *s, const struct obs_event *x,
			 const struct obs_event *y)
{
	if (!counts(s, x) || !counts(s, y))
		return true;
	if (s->mode == CS_MODE_NONE || x->cookie == y->cookie)
		return true;
	return s->mode == CS_MODE_FILL && (!x->cookie || !y->cookie);
}

/*
 * Add @ns of @cookie to a table of at most @max cookies, or to *@other once
 * it is full. A cookie that found it full stays in *@other even if it runs
 * most later: each figure kept is exact rather than an estimate.
 */
static void add_run(struct cs_sweep_cookie *tab, int *nr, int max, __u64 *other,
		    __u64 cookie, __u64 ns)
{
	int i;

	for (i = 0; i < *nr; i++)
		if (tab[i].cookie == cookie)
			break;
	if (i == *nr) {
		if (i == max) {
			*other += ns;
			return;
		}
		tab[(*nr)++].cookie = cookie;
	}
	tab[i].run_ns += ns;
}

/* @cpu's current slice ends at @t. */
static void end_slice(struct cs_sweep *s, int cpu, __u64 t)
{
	const struct obs_event *ev = &s->cur[cpu];
	struct cs_sweep_core *c = &s->core[s->topo->cpu_core[cpu]];
	__u64 len = t > ev->ts ? t - ev->ts : 0;

	if (!len)
		return;
	if (ev->class != OBS_IDLE) {
		add_run(s->cookie, &s->nr_cookies, CS_SWEEP_MAX_COOKIES,
			&s->other_run_ns, ev->cookie, len);
		add_run(c->cookie, &c->nr_cookies, CS_SWEEP_CORE_COOKIES,
			&c->other_run_ns, ev->cookie, len);
	} else if (ev->forced) {
		c->forced_idle_ns += len;
	}
	if (s->ops.slice && (ev->class != OBS_IDLE || ev->forced))
		s->ops.slice(s->ops.ctx, cpu, ev->ts, t, ev);
}

/* Keep the CS_SWEEP_MAX_EXAMPLES longest windows. */
static void keep_example(struct cs_sweep *s, const struct cs_sweep_window *w)
{
	struct cs_sweep_window *e = &s->ex[0];
	int i;

	if (s->nr_ex < CS_SWEEP_MAX_EXAMPLES) {
		e = &s->ex[s->nr_ex++];
	} else {
		for (i = 1; i < CS_SWEEP_MAX_EXAMPLES; i++)
			if (s->ex[i].len < e->len)
				e = &s->ex[i];
		if (e->len >= w->len)
			return;
	}
	*e = *w;
}

static void close_window(struct cs_sweep *s, struct cs_sweep_core *c, __u64 t)
{
	struct cs_sweep_window *w = &c->open;

	c->incompat = false;
	w->len = t - w->start;
	if (!w->len) /* two siblings switched at the same ns */
		return;
	c->overlap_ns += w->len;
	c->windows++;
	if (w->len > c->worst.len)
		c->worst = *w;
	keep_example(s, w);
	if (s->ops.window)
		s->ops.window(s->ops.ctx, w);
}

/* Known CPUs of core @k, and the first incompatible pair among them. */
static int scan_core(const struct cs_sweep *s, int k, int *a, int *b)
{
	const struct cs_topo *t = s->topo;
	int i, j, known = 0;

	*a = *b = -1;
	for (i = 0; i < t->core_nr[k]; i++) {
		int x = t->core_cpu[k][i];

		if (!s->known[x])
			continue;
		known++;
		for (j = i + 1; *a < 0 && j < t->core_nr[k]; j++) {
			int y = t->core_cpu[k][j];

			if (s->known[y] &&
			    !cs_sweep_compatible(s, &s->cur[x], &s->cur[y])) {
				*a = x;
				*b = y;
			}
		}
	}
	return known;
}

/* Core @k's time up to @t, before one of its CPUs changes. */
static void account_core(struct cs_sweep *s, int k, __u64 t)
{
	struct cs_sweep_core *c = &s->core[k];
	int a, b;

	if (t > c->last && scan_core(s, k, &a, &b) >= 2)
		c->observed_ns += t - c->last;
	c->last = t;
}

/* After a change of core @k at @t: open or close its window. */
static void judge_core(struct cs_sweep *s, int k, __u64 t)
{
	struct cs_sweep_core *c = &s->core[k];
	int a, b;

	scan_core(s, k, &a, &b);
	if (a >= 0 && !c->incompat) {
		c->incompat = true;
		c->open = (struct cs_sweep_window){ k, t, 0, s->cur[a],
						    s->cur[b] };
	} else if (a < 0 && c->incompat) {
		close_window(s, c, t);
	}
}

static bool in_topo(const struct cs_sweep *s, __u32 cpu)
{
	return cpu < CS_MAX_CPUS && (int)cpu < s->topo->nr_cpus &&
	       s->topo->cpu_core[cpu] >= 0;
}

void cs_sweep_event(struct cs_sweep *s, const struct obs_event *ev)
{
	int k, c = ev->cpu;

	s->switches++;
	s->lost += ev->lost_before;
	if (ev->ts > s->now)
		s->now = ev->ts;
	if (!in_topo(s, ev->cpu) && s->ops.topo_miss && ev->cpu < CS_MAX_CPUS &&
	    (!s->topo_asked ||
	     ev->ts >= s->topo_asked + CS_SWEEP_TOPO_RETRY_NS)) {
		s->topo_asked = ev->ts;
		s->ops.topo_miss(s->ops.topo_ctx, ev->cpu);
	}
	if (!in_topo(s, ev->cpu)) {
		s->ignored++;
		return;
	}
	k = s->topo->cpu_core[c];
	account_core(s, k, ev->ts);
	if (s->known[c])
		end_slice(s, c, ev->ts);
	s->cur[c] = *ev;
	s->known[c] = true;
	judge_core(s, k, ev->ts);
}

void cs_sweep_forget(struct cs_sweep *s, int cpu, __u64 ts)
{
	int k;

	if (cpu < 0 || !in_topo(s, cpu) || !s->known[cpu])
		return;
	k = s->topo->cpu_core[cpu];
	account_core(s, k, ts);
	end_slice(s, cpu, ts);
	s->known[cpu] = false;
	judge_core(s, k, ts);
}

int cs_sweep_push(struct cs_sweep *s, const struct obs_event *ev)
{
	if (ev->ts < s->now) {
		s->late++;
		return 0;
	}
	if (s->nr_pend == s->cap_pend) {
		size_t cap = s->cap_pend ? 2 * s->cap_pend : 4096;
		struct cs_sweep_pending *p = realloc(s->pend, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->pend = p;
		s->cap_pend = cap;
	}
	s->pend[s->nr_pend++] = (struct cs_sweep_pending){ *ev, s->seq++ };
	return 0;
}

static int cmp_pending(const void *x, const void *y)
{
	const struct cs_sweep_pending *a = x, *b = y;

	if (a->ev.ts != b->ev.ts)
		return a->ev.ts < b->ev.ts ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void cs_sweep_release(struct cs_sweep *s, __u64 upto)
{
	size_t i;

	qsort(s->pend, s->nr_pend, sizeof(*s->pend), cmp_pending);
	for (i = 0; i < s->nr_pend && s->pend[i].ev.ts < upto; i++)
		cs_sweep_event(s, &s->pend[i].ev);
	s->nr_pend -= i;
	memmove(s->pend, s->pend + i, s->nr_pend * sizeof(*s->pend));
}

void cs_sweep_finish(struct cs_sweep *s, __u64 end)
{
	int cpu, k;

	if (end < s->now)
		end = s->now;
	for (k = 0; k < s->topo->nr_cores; k++)
		account_core(s, k, end);
	for (cpu = 0; cpu < s->topo->nr_cpus; cpu++)
		if (in_topo(s, cpu) && s->known[cpu])
			end_slice(s, cpu, end);
	for (k = 0; k < s->topo->nr_cores; k++)
		if (s->core[k].incompat)
			close_window(s, &s->core[k], end);
}

void cs_sweep_total(const struct cs_sweep *s, struct cs_sweep_core *total)
{
	int k;

	memset(total, 0, sizeof(*total));
	for (k = 0; k < s->topo->nr_cores; k++) {
		const struct cs_sweep_core *c = &s->core[k];

		total->observed_ns += c->observed_ns;
		total->overlap_ns += c->overlap_ns;
		total->windows += c->windows;
		total->forced_idle_ns += c->forced_idle_ns;
		if (c->worst.len > total->worst.len)
			total->worst = c->worst;
	}
}

bool cs_sweep_verified(const struct cs_sweep *s)
{
	return !s->lost && !s->late;
}
