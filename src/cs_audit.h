/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * coresched-audit: what its parts share. The command line and the run loop
 * are in coresched-audit.c, the BPF side's setup in cs_audit_bpf.c, the
 * sweep in cs_sweep.c, the summaries in cs_audit_report.c and the trace and
 * its SVG in cs_trace.c and cs_svg.c.
 */
#ifndef __CS_AUDIT_H
#define __CS_AUDIT_H

#include <stdbool.h>
#include <stdio.h>

#include "coresched.h"
#include "cs_observe.h"
#include "cs_sweep.h"
#include "cs_topo.h"

#define CS_AUDIT_PROG "coresched-audit"

/* Exit status. Lost records count as "overlap not ruled out" (1). */
#define CS_AUDIT_EXIT_CLEAN 0
#define CS_AUDIT_EXIT_OVERLAP 1
#define CS_AUDIT_EXIT_ERROR 2

/* --tenant NAME=CGROUP, at most this many; tenant i has cookie i + 1. */
#define CS_AUDIT_MAX_TENANTS 64
#define CS_AUDIT_MAX_NAME 64

struct cs_audit_tenant {
	char name[CS_AUDIT_MAX_NAME];
	char path[4096];
	__u64 cgid;
};

struct cs_audit_opts {
	enum obs_source source;
	enum cs_mode mode;
	bool trust_kthreads;
	bool exempt_foreign;
	bool json;
	bool verbose;
	__u64 duration_ns;
	__u64 interval_ns; /* 0: no live output */
	const char *trace_path; /* NULL: no trace */
	struct cs_audit_tenant tenant[CS_AUDIT_MAX_TENANTS];
	int nr_tenants;
};

/* What the run measured besides the sweep. */
struct cs_audit_result {
	__u64 duration_ns;
	__u64 cpu_ns; /* the audit's own user + system time */
	__u64 bpf_ns; /* its BPF programs' run time */
	struct obs_event worst_wait;
	__u64 trace_events, trace_dropped;
	bool forced_idle_measured;
};

extern const char *const cs_audit_source_names[3];
extern const char *const cs_audit_mode_names[3];

/* A cookie's display name under the options' source (cached). */
const char *cs_audit_cookie_name(void *opts, __u64 cookie);

/* The final summary, as "key value" lines or as one JSON object. */
void cs_audit_print(FILE *f, const struct cs_sweep *s,
		    const struct cs_audit_opts *o,
		    const struct cs_audit_result *r);

/* Live output: the figures since the previous call. */
struct cs_audit_live {
	__u64 t; /* ns */
	__u64 switches;
	struct cs_sweep_core total;
	__u64 run_ns[CS_SWEEP_MAX_COOKIES];
};
void cs_audit_print_interval(FILE *f, const struct cs_sweep *s,
			     const struct cs_audit_opts *o,
			     struct cs_audit_live *prev, __u64 now);

/* The BPF side (cs_audit_bpf.c). */
struct audit;
/* Load it; *forced is false if forced idle cannot be measured here. */
struct audit *cs_audit_bpf_open(const struct cs_audit_opts *o, bool *forced);
int cs_audit_bpf_attach(struct audit *skel);
void cs_audit_bpf_detach(struct audit *skel);
int cs_audit_bpf_events_fd(struct audit *skel);
/* After detaching: the longest wait of any CPU and the BPF run time. */
void cs_audit_bpf_collect(struct audit *skel, struct cs_audit_result *r);
__u64 cs_audit_bpf_lost(struct audit *skel);
void cs_audit_bpf_close(struct audit *skel);

#endif /* __CS_AUDIT_H */
