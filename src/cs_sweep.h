/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * coresched-audit's sweep: plain C over a sequence of context switches per
 * CPU, with no BPF and no I/O, so the host tests can feed it hand-made
 * sequences. Each record says what a CPU runs from its timestamp on; the
 * sweep derives, per core, the windows in which siblings ran incompatible
 * cookies, the time CPUs sat forced idle and each cookie's run time. The
 * worked example is at the top of bpf/audit.bpf.c.
 */
#ifndef __CS_SWEEP_H
#define __CS_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "coresched.h"
#include "cs_observe.h"
#include "cs_topo.h"

/* Cookies whose run time is kept apart; the others are summed as "other". */
#define CS_SWEEP_MAX_COOKIES 64
/*
 * The same per core, with a smaller table since there is one per core: the
 * first CS_SWEEP_CORE_COOKIES distinct cookies a core runs are kept apart,
 * the run time of any later one goes to the core's other_run_ns. A core
 * rarely runs more than a few cookies (its tenants, untagged, kthreads).
 */
#define CS_SWEEP_CORE_COOKIES 8
/* The longest overlap windows kept as examples. */
#define CS_SWEEP_MAX_EXAMPLES 5

/* One maximal interval in which a core ran incompatible cookies. */
struct cs_sweep_window {
	int core;
	__u64 start, len; /* start: absolute timestamp */
	struct obs_event a, b; /* the incompatible pair when it opened */
};

struct cs_sweep_cookie {
	__u64 cookie;
	__u64 run_ns; /* CPU time of its tasks */
};

struct cs_sweep_core {
	__u64 observed_ns; /* time at least two of its CPUs were known */
	__u64 overlap_ns, windows;
	__u64 forced_idle_ns; /* summed over its CPUs */
	struct cs_sweep_window worst; /* longest window; len 0: none */
	/*
	 * Run time on its CPUs per cookie, in the order first seen. Per core
	 * only: cs_sweep_total() leaves them empty, the totals being
	 * cs_sweep.cookie and cs_sweep.other_run_ns.
	 */
	struct cs_sweep_cookie cookie[CS_SWEEP_CORE_COOKIES];
	int nr_cookies;
	__u64 other_run_ns; /* cookies beyond CS_SWEEP_CORE_COOKIES */
	/* sweep state */
	__u64 last; /* accounted up to here */
	bool incompat; /* a window is open */
	struct cs_sweep_window open;
};

/* Optional callbacks, for the trace: a finished slice of a CPU (idle ones
 * only when forced idle) and a finished overlap window. */
struct cs_sweep_ops {
	void (*slice)(void *ctx, int cpu, __u64 start, __u64 end,
		      const struct obs_event *ev);
	void (*window)(void *ctx, const struct cs_sweep_window *w);
	void *ctx;
	/*
	 * A record of a CPU outside the topology (offline when it was read)
	 * came: place it if you can (cs_topo_merge into the topology the
	 * sweep reads). Asked at most once per CS_SWEEP_TOPO_RETRY_NS of
	 * record time; the CPU's records are ignored until it is placed.
	 */
	void (*topo_miss)(void *topo_ctx, int cpu);
	void *topo_ctx;
};

#define CS_SWEEP_TOPO_RETRY_NS 100000000ULL /* 100 ms */

struct cs_sweep_pending {
	struct obs_event ev;
	__u64 seq; /* arrival order, keeps equal timestamps stable */
};

struct cs_sweep {
	const struct cs_topo *topo;
	enum cs_mode mode;
	bool exempt_foreign; /* OBS_FOREIGN compatible with everything */
	struct cs_sweep_ops ops;
	__u64 t0; /* start of the observation */
	__u64 now; /* timestamp of the last record swept */
	__u64 switches; /* records swept */
	__u64 lost; /* records the BPF side could not send */
	__u64 late; /* records older than one already swept */
	__u64 ignored; /* records of CPUs outside the topology */
	__u64 topo_asked; /* record time of the last ops.topo_miss */
	bool known[CS_MAX_CPUS];
	struct obs_event cur[CS_MAX_CPUS]; /* what each CPU runs since cur.ts */
	struct cs_sweep_core core[CS_MAX_CPUS];
	struct cs_sweep_cookie cookie[CS_SWEEP_MAX_COOKIES];
	int nr_cookies;
	__u64 other_run_ns; /* cookies beyond CS_SWEEP_MAX_COOKIES */
	struct cs_sweep_window ex[CS_SWEEP_MAX_EXAMPLES];
	int nr_ex;
	struct cs_sweep_pending *pend; /* reorder buffer */
	size_t nr_pend, cap_pend;
	__u64 seq;
};

/* Start a sweep of @t's cores at @t0; @ops may be NULL. */
void cs_sweep_init(struct cs_sweep *s, const struct cs_topo *t,
		   enum cs_mode mode, bool exempt_foreign, __u64 t0,
		   const struct cs_sweep_ops *ops);
void cs_sweep_free(struct cs_sweep *s);

/* Are two running tasks allowed on one core at the same time? */
bool cs_sweep_compatible(const struct cs_sweep *s, const struct obs_event *x,
			 const struct obs_event *y);

/*
 * One record, in timestamp order. A record with lost_before > 0 counts as
 * that many lost records: the CPU's past since its previous record is then
 * uncertain and the sweep is no longer a proof (see cs_sweep_verified()).
 */
void cs_sweep_event(struct cs_sweep *s, const struct obs_event *ev);
/* @cpu's records from @ts on are missing: it is unknown until its next. */
void cs_sweep_forget(struct cs_sweep *s, int cpu, __u64 ts);

/*
 * The reorder buffer, for records that arrive slightly out of order:
 * push adds one (-ENOMEM), release sweeps those older than @upto in
 * timestamp order; a record older than one already swept is counted late.
 */
int cs_sweep_push(struct cs_sweep *s, const struct obs_event *ev);
void cs_sweep_release(struct cs_sweep *s, __u64 upto);

/* End every open slice and window at @end. */
void cs_sweep_finish(struct cs_sweep *s, __u64 end);

/*
 * The figures of every core summed; worst is the longest window of all. The
 * cookies' run time is not copied: its totals are in @s itself.
 */
void cs_sweep_total(const struct cs_sweep *s, struct cs_sweep_core *total);
/* All records were seen and swept in order. */
bool cs_sweep_verified(const struct cs_sweep *s);

#endif /* __CS_SWEEP_H */
