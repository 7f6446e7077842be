/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * coresched-audit --trace: a Chrome trace-event JSON file (opens in
 * Perfetto, ui.perfetto.dev, and chrome://tracing), and the reader that
 * 'coresched-audit render' draws from.
 *
 * Layout: one process per core ("core K"), one thread per CPU ("cpu N",
 * tid CS_TRACE_CPU_TID + N) and one per core for its overlap windows
 * ("overlap", tid CS_TRACE_OVERLAP_TID + K). Each CPU's task slices are
 * "X" events named by cookie (args: cookie, tid, comm); forced idle slices
 * are named "forced idle"; each overlap window is an "X" event named
 * "overlap" on the overlap thread (args: both tasks) plus an instant event
 * ("i", process scope) at its start. Times are in microseconds from the
 * start of the audit, with ns precision.
 */
#ifndef __CS_TRACE_H
#define __CS_TRACE_H

#include <stdbool.h>
#include <stdio.h>

#include "cs_report.h"
#include "cs_sweep.h"
#include "cs_topo.h"

#define CS_TRACE_CPU_TID 1000
#define CS_TRACE_OVERLAP_TID 2000
/* Slices written at most; later ones are counted as dropped. */
#define CS_TRACE_MAX_EVENTS 4000000
#define CS_TRACE_FORCED_IDLE "forced idle"
#define CS_TRACE_OVERLAP "overlap"

struct cs_trace {
	FILE *f;
	struct cs_json j;
	const struct cs_topo *topo;
	__u64 t0;
	__u64 events, dropped;
	/* A cookie's display name (may return a static buffer). */
	const char *(*cookie_name)(void *ctx, __u64 cookie);
	void *ctx;
};

/* Start @path; 0, or -errno with nothing left open. */
int cs_trace_open(struct cs_trace *tr, const char *path,
		  const struct cs_topo *t, __u64 t0,
		  const char *(*cookie_name)(void *, __u64), void *ctx);
/* Sweep callbacks that write into the trace (ctx: the struct cs_trace). */
void cs_trace_slice(void *ctx, int cpu, __u64 start, __u64 end,
		    const struct obs_event *ev);
void cs_trace_window(void *ctx, const struct cs_sweep_window *w);
/* A task of a record as a JSON object {cpu, tid, comm, cookie}. */
void cs_trace_json_task(struct cs_json *j, const char *key,
			const struct obs_event *ev);
/* End the file, with @source and @mode noted; 0 or -errno (write error). */
int cs_trace_close(struct cs_trace *tr, const char *source, const char *mode);

/* What the reader keeps of a trace: tracks and their slices. */
struct cs_trace_slice {
	double ts, dur; /* us */
	int name; /* index into names */
	bool overlap, forced_idle;
};

struct cs_trace_track {
	int pid, tid;
	char *name;
	struct cs_trace_slice *s;
	size_t nr, cap;
};

struct cs_trace_data {
	struct cs_trace_track *track;
	int nr_tracks;
	char **proc_name; /* by pid; NULL if unnamed */
	int nr_procs;
	char **names; /* distinct slice names */
	int nr_names;
	double t_end; /* us */
};

/*
 * Read a trace written by cs_trace_*: 0, or -1 with a message naming the
 * file and the problem in @err.
 */
int cs_trace_read(const char *path, struct cs_trace_data *d, char *err,
		  size_t len);
void cs_trace_data_free(struct cs_trace_data *d);

/* Draw @d as SVG into @f: rows per CPU grouped by core, a colour per
 * cookie, overlap windows in red, a time axis. */
void cs_trace_svg(FILE *f, const struct cs_trace_data *d, const char *title);

#endif /* __CS_TRACE_H */
