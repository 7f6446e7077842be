// SPDX-License-Identifier: GPL-2.0-only
/* coresched-audit --trace: the writer; see cs_trace.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cs_common.h"
#include "cs_trace.h"

/*
 * Chrome's reserved colour names (cname); Perfetto colours by name
 * instead, which is one colour per cookie as well.
 */
static const char *const cnames[] = {
	"thread_state_running", "rail_response", "rail_animation",
	"rail_idle", "rail_load", "startup", "good", "olive", "yellow",
	"cq_build_running", "cq_build_passed", "heap_dump_stack_frame",
};

static double us(const struct cs_trace *tr, __u64 ns)
{
	return ns > tr->t0 ? (double)(ns - tr->t0) / 1000.0 : 0.0;
}

static void meta(struct cs_trace *tr, const char *what, int pid, int tid,
		 const char *key, const char *name, long long index)
{
	struct cs_json *j = &tr->j;

	cs_json_obj(j, NULL);
	cs_json_str(j, "ph", "M");
	cs_json_str(j, "name", what);
	cs_json_int(j, "pid", pid);
	if (tid >= 0)
		cs_json_int(j, "tid", tid);
	cs_json_obj(j, "args");
	if (name)
		cs_json_str(j, key, name);
	else
		cs_json_int(j, key, index);
	cs_json_end(j);
	cs_json_end(j);
	fputc('\n', tr->f);
}

int cs_trace_open(struct cs_trace *tr, const char *path,
		  const struct cs_topo *t, __u64 t0,
		  const char *(*cookie_name)(void *, __u64), void *ctx)
{
	char name[64];
	int k, i, cpu;

	memset(tr, 0, sizeof(*tr));
	tr->f = fopen(path, "w");
	if (!tr->f)
		return -errno;
	tr->topo = t;
	tr->t0 = t0;
	tr->cookie_name = cookie_name;
	tr->ctx = ctx;
	cs_json_begin(&tr->j, tr->f);
	cs_json_obj(&tr->j, NULL);
	cs_json_str(&tr->j, "displayTimeUnit", "ns");
	cs_json_arr(&tr->j, "traceEvents");
	fputc('\n', tr->f);
	for (k = 0; k < t->nr_cores; k++) {
		int n = snprintf(name, sizeof(name), "core %d (cpus", k);

		for (i = 0; i < t->core_nr[k] && n < (int)sizeof(name); i++)
			n += snprintf(name + n, sizeof(name) - n, "%s%d",
				      i ? "," : " ", t->core_cpu[k][i]);
		if (n < (int)sizeof(name))
			snprintf(name + n, sizeof(name) - n, ")");
		meta(tr, "process_name", k + 1, -1, "name", name, 0);
		meta(tr, "process_sort_index", k + 1, -1, "sort_index", NULL,
		     k);
		for (i = 0; i < t->core_nr[k]; i++) {
			cpu = t->core_cpu[k][i];
			snprintf(name, sizeof(name), "cpu %d", cpu);
			meta(tr, "thread_name", k + 1, CS_TRACE_CPU_TID + cpu,
			     "name", name, 0);
			meta(tr, "thread_sort_index", k + 1,
			     CS_TRACE_CPU_TID + cpu, "sort_index", NULL, i);
		}
		meta(tr, "thread_name", k + 1, CS_TRACE_OVERLAP_TID + k,
		     "name", CS_TRACE_OVERLAP, 0);
		meta(tr, "thread_sort_index", k + 1, CS_TRACE_OVERLAP_TID + k,
		     "sort_index", NULL, t->core_nr[k]);
	}
	return 0;
}

static bool room(struct cs_trace *tr)
{
	if (tr->events < CS_TRACE_MAX_EVENTS) {
		tr->events++;
		return true;
	}
	tr->dropped++;
	return false;
}

/* The start of an "X" or "i" event. */
static void event(struct cs_trace *tr, const char *ph, const char *name,
		  const char *cat, int pid, int tid, __u64 start)
{
	struct cs_json *j = &tr->j;

	cs_json_obj(j, NULL);
	cs_json_str(j, "ph", ph);
	cs_json_str(j, "name", name);
	cs_json_str(j, "cat", cat);
	cs_json_int(j, "pid", pid);
	cs_json_int(j, "tid", tid);
	cs_json_dbl(j, "ts", us(tr, start), 3);
}

void cs_trace_slice(void *ctx, int cpu, __u64 start, __u64 end,
		    const struct obs_event *ev)
{
	struct cs_trace *tr = ctx;
	struct cs_json *j = &tr->j;
	int pid = tr->topo->cpu_core[cpu] + 1;
	bool idle = ev->class == OBS_IDLE;

	if (!room(tr))
		return;
	event(tr, "X", idle ? CS_TRACE_FORCED_IDLE
			    : tr->cookie_name(tr->ctx, ev->cookie),
	      idle ? "forced_idle" : "task", pid, CS_TRACE_CPU_TID + cpu,
	      start);
	cs_json_dbl(j, "dur", (double)(end - start) / 1000.0, 3);
	cs_json_str(j, "cname",
		    idle ? "grey"
			 : cnames[ev->cookie % (sizeof(cnames) /
						sizeof(cnames[0]))]);
	if (!idle) {
		cs_json_obj(j, "args");
		cs_json_cookie(j, "cookie", ev->cookie);
		cs_json_u64(j, "tid", ev->tid);
		cs_json_strn(j, "comm", ev->comm, sizeof(ev->comm));
		cs_json_end(j);
	}
	cs_json_end(j);
	fputc('\n', tr->f);
}

void cs_trace_json_task(struct cs_json *j, const char *key,
			const struct obs_event *ev)
{
	cs_json_obj(j, key);
	cs_json_u64(j, "cpu", ev->cpu);
	cs_json_u64(j, "tid", ev->tid);
	cs_json_strn(j, "comm", ev->comm, sizeof(ev->comm));
	cs_json_cookie(j, "cookie", ev->cookie);
	cs_json_end(j);
}

void cs_trace_window(void *ctx, const struct cs_sweep_window *w)
{
	struct cs_trace *tr = ctx;
	struct cs_json *j = &tr->j;
	int pid = w->core + 1, tid = CS_TRACE_OVERLAP_TID + w->core;

	if (room(tr)) {
		event(tr, "X", CS_TRACE_OVERLAP, "overlap", pid, tid, w->start);
		cs_json_dbl(j, "dur", (double)w->len / 1000.0, 3);
		cs_json_str(j, "cname", "terrible");
		cs_json_obj(j, "args");
		cs_json_u64(j, "len_ns", w->len);
		cs_trace_json_task(j, "a", &w->a);
		cs_trace_json_task(j, "b", &w->b);
		cs_json_end(j);
		cs_json_end(j);
		fputc('\n', tr->f);
	}
	if (room(tr)) {
		event(tr, "i", CS_TRACE_OVERLAP, "overlap", pid, tid, w->start);
		cs_json_str(j, "s", "p");
		cs_json_end(j);
		fputc('\n', tr->f);
	}
}

int cs_trace_close(struct cs_trace *tr, const char *source, const char *mode)
{
	struct cs_json *j = &tr->j;
	int err;

	cs_json_end(j); /* traceEvents */
	cs_json_obj(j, "otherData");
	cs_json_str(j, "tool", "coresched-audit");
	cs_json_str(j, "source", source);
	cs_json_str(j, "mode", mode);
	cs_json_u64(j, "events", tr->events);
	cs_json_u64(j, "dropped_events", tr->dropped);
	cs_json_end(j);
	cs_json_end(j);
	err = ferror(tr->f) ? -EIO : 0;
	if (fclose(tr->f) && !err)
		err = -errno;
	tr->f = NULL;
	return err;
}
