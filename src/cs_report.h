/* SPDX-License-Identifier: GPL-2.0-only */
/* --stats: turn two snapshots of the scheduler's counters into a report. */
#ifndef __CS_REPORT_H
#define __CS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "cs_policy.h"
#include "cs_stats.h"
#include "cs_topo.h"

struct cs_snapshot {
	__u64 t_ns;
	__u64 live_mask[CS_LIVE_TBL];
	__u64 max_wait_ns; /* worst wait since the previous snapshot */
	__u64 slot_full; /* slot requests refused, all slots held: cumulative */
	struct cs_cpu_stat cpu[CS_MAX_CPUS];
	struct cs_slot_stat slot[CS_NR_SLOTS];
};

struct cs_interval {
	double secs;
	double forced_idle_pct; /* of all CPU time */
	double core_forced_idle_pct[CS_MAX_CPUS];
	double share_pct[CS_NR_SLOTS]; /* of charged core time */
	double forced_idle_caused_ms[CS_NR_SLOTS];
	double run_ms[CS_NR_SLOTS];
	bool active[CS_NR_SLOTS];
	double switches_per_s, kicks_per_s, max_wait_ms;
	__u64 transit_retries, unclaimed_runs;
	__u64 untagged_rescues; /* untagged work past CS_UNTAGGED_MAX_WAIT_NS */
	__u64 cookie_rescues; /* tagged cookies past CS_COOKIE_MAX_WAIT_NS */
	__u64 task_rescues; /* tasks past CS_TASK_MAX_WAIT_NS in their queue */
	__u64 slot_full; /* slot requests refused, all slots held */
	/* runs on another CPU than the task's last; of them, another LLC */
	double migrations_per_s, llc_migrations_per_s;
	double llc_steals_per_s; /* tasks taken from another LLC's queue */
	double renewals_per_s; /* slices renewed at a tick */
	double sync_keeps_per_s; /* claims kept for a sync wakee, no pick */
	double untagged_switches_per_s; /* of switches_per_s, untagged ones */
	double stalls_per_s; /* ticks that found a stall (cs_stall_lost) */
	double stalled_pct; /* the time lost in them, of all CPU time */
};

/* Compute the interval from snapshot @a to @b. */
void cs_interval_compute(const struct cs_topo *t, const struct cs_snapshot *a,
			 const struct cs_snapshot *b, struct cs_interval *iv);

/*
 * A readable name for a cookie: untagged, lost (lost:TID, the audit's own
 * for each lost task), cgroup:/path, task:0x...
 */
void cs_cookie_name(__u64 cookie, char *buf, size_t len);

/* Print one interval as text, or as one JSON line. */
void cs_interval_print(FILE *f, const struct cs_topo *t,
		       const struct cs_snapshot *b,
		       const struct cs_interval *iv, bool json);

/*
 * Print one interval in the Prometheus text exposition format (what
 * node_exporter's textfile collector reads): one gauge per figure, per
 * core and per cookie; @unix_time is the time of the figures.
 */
void cs_interval_print_prom(FILE *f, const struct cs_topo *t,
			    const struct cs_snapshot *b,
			    const struct cs_interval *iv, double unix_time);

/*
 * The one JSON writer of the project: commas, nesting and string escaping
 * are its business. Use: cs_json_begin(), then values; a key is NULL inside
 * an array and required inside an object. Nesting deeper than
 * CS_JSON_MAX_DEPTH is a programming error and is not written.
 */
#define CS_JSON_MAX_DEPTH 16

struct cs_json {
	FILE *f;
	int depth;
	bool more[CS_JSON_MAX_DEPTH]; /* a value was written at this depth */
	char close[CS_JSON_MAX_DEPTH]; /* '}' or ']' */
};

void cs_json_begin(struct cs_json *j, FILE *f);
void cs_json_obj(struct cs_json *j, const char *key);
void cs_json_arr(struct cs_json *j, const char *key);
/* Close the innermost object or array; at depth 0 also ends the line. */
void cs_json_end(struct cs_json *j);
/* At most @max bytes of @s (a comm is not NUL-terminated at 16). */
void cs_json_strn(struct cs_json *j, const char *key, const char *s,
		  size_t max);
void cs_json_str(struct cs_json *j, const char *key, const char *s);
void cs_json_u64(struct cs_json *j, const char *key, unsigned long long v);
void cs_json_int(struct cs_json *j, const char *key, long long v);
/* @v with @prec decimals; NaN and infinities are written as null. */
void cs_json_dbl(struct cs_json *j, const char *key, double v, int prec);
void cs_json_bool(struct cs_json *j, const char *key, bool v);
/* A cookie as the string "0x%016llx". */
void cs_json_cookie(struct cs_json *j, const char *key, __u64 cookie);

#endif /* __CS_REPORT_H */
