// SPDX-License-Identifier: GPL-2.0-only
/*
 * coresched-audit: an outside auditor of SMT isolation. It does not look at
 * any scheduler decision; it only watches context switches and derives
 * every task's cookie on its own, then checks in user space that SMT
 * siblings never ran tasks of incompatible cookies at the same time. It
 * works with any core scheduler: scx_coresched, the kernel's own core
 * scheduling, or any sched_ext scheduler given a cgroup-per-tenant map.
 *
 * BPF side. Every sched_switch emits one record for the task switched in:
 *
 *   { ts, cpu, tid, cookie, class, wait_ns, lost_before, forced, comm }
 *
 * into a 32 MiB ring buffer. The cookie comes from one of three sources:
 *
 *   ours      the task's cookie in cs_task_cookie (task storage) if
 *             non-zero, else the one recorded at fork in cs_fork_orphan,
 *             else one of its own if cs_fork_lost marks it, else the tag
 *             of the nearest
 *             tagged cgroup v2 ancestor of the task's default-hierarchy
 *             cgroup (itself included, at most CS_MAX_CGRP_DEPTH levels
 *             up; deeper with no tag there, one of its own) in
 *             cs_cgrp_tag, else 0. The two maps are the ones
 *             pinned by scx_coresched, reused by user space.
 *   upstream  task->core_cookie (prctl(PR_SCHED_CORE) core scheduling),
 *             read through CO-RE; user space refuses this source on a
 *             kernel without CONFIG_SCHED_CORE.
 *   tenant    the same cgroup walk as ours, over a private map that user
 *             space fills from --tenant NAME=CGROUP: tenant i's cgroup id
 *             -> cookie i + 1. Tasks outside every tenant have cookie 0.
 *
 * The class says how the task compares with others: OBS_IDLE (pid 0, the
 * idle task: compatible with everything), OBS_TRUSTED (a kernel thread with
 * --trust-kthreads: compatible with everything) or OBS_TASK (compared by
 * cookie). A failed ring buffer write is counted in lost_events and in
 * its CPU's lost_pending, which the CPU's next record carries as
 * lost_before; user space then reports that isolation cannot be verified.
 * forced is set on a switch to idle while the CPU's runqueue still holds
 * runnable tasks (rq->nr_running > 0): the CPU idles though it has work,
 * which under a core scheduler is forced idle.
 *
 * User space sorts the records by ts and sweeps them, holding back the
 * last 250 ms: a CPU reserves ring buffer space a little after taking its
 * timestamp, so records of different CPUs can arrive slightly out of order
 * (a record older than one already swept is counted as late, which also
 * means "cannot verify"). The sweep (src/cs_sweep.c, host-tested in
 * tests/test_audit.c) is per core: each CPU runs the task of its last
 * record; a core is incompatible while two of its known CPUs run
 * incompatible tasks, and every maximal such interval is one overlap
 * window, however many siblings take part. Example, one core with CPUs 0
 * and 1, --mode strict, cookies A and B:
 *
 *   ts   record                     cpu0     cpu1     pair 0,1
 *   100  cpu0 <- tid 10 (A)         10 (A)   unknown  not observed yet
 *   130  cpu1 <- tid 20 (B)         10 (A)   20 (B)   incompatible: open
 *   160  cpu0 <- idle               idle     20 (B)   compatible: close
 *   200  cpu0 <- tid 21 (B)         21 (B)   20 (B)   compatible
 *
 * gives one window of 30 ns (130..160, tids 10/20: the worst pair) and
 * 70 ns of observed time for the core (130..200); if cpu0's idle at 160
 * was forced (runnable tasks left on its runqueue), 40 ns of forced idle. With --mode fill a cookie of 0 would be
 * compatible with A and B; with --mode none nothing is an overlap. The
 * times are those of the sched_switch tracepoint, which __schedule() hits
 * just before context_switch(): the same edges ftrace shows for a switch.
 * Windows of zero length (two siblings switching at the same ns) are not
 * counted.
 *
 * Waits are measured here, independently of the ring buffer. A task becomes
 * runnable at sched_wakeup/sched_wakeup_new, or when it is switched out
 * while still runnable (preempted, or its sleep cancelled by a signal:
 * prev_state is then TASK_RUNNING). runnable_since[tid] keeps that time;
 * at switch-in wait = now - runnable_since[tid] goes into the record, and
 * each CPU keeps its longest-wait record in worst_wait[cpu]. If tid 20 in
 * the example was woken at ts 90, its record at 130 has wait_ns 40.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "coresched.h"
#include "cs_observe.h"

char _license[] SEC("license") = "GPL";

/* Weak: a kernel without it loads obs_switch_no_forced instead. */
extern struct rq runqueues __ksym __weak;

#define PF_KTHREAD 0x00200000
#define TASK_RUNNING 0
#define OBS_RING_BYTES (32 << 20)
#define OBS_MAX_RUNNABLE 65536

const volatile enum obs_source source = OBS_SRC_OURS;
const volatile bool trust_kthreads;

/* Written only by their own CPU; read by user space after detaching. */
struct obs_event worst_wait[CS_MAX_CPUS];
__u64 lost_events;
__u32 lost_pending[CS_MAX_CPUS];

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, OBS_RING_BYTES);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cs_tag);
} cs_task_cookie SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct cs_tag);
	__uint(max_entries, CS_MAX_CGRP_TAGS);
} cs_cgrp_tag SEC(".maps");

/* Fork inheritance that failed (coresched.h): records and lost marks. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct cs_orphan);
	__uint(max_entries, CS_MAX_FORK_ORPHANS);
} cs_fork_orphan SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, CS_PID_MAX_LIMIT / 64);
} cs_fork_lost SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, OBS_MAX_RUNNABLE);
} runnable_since SEC(".maps");

/*
 * A cookie of @p's own for a trust domain nobody knows: CS_COOKIE_LOST and
 * its tid (no per-task cookie ends in nibble 1, no cgroup cookie lacks bit
 * 63), so that it runs beside nothing, not even another unknown one.
 */
static __u64 lost_cookie(struct task_struct *p)
{
	return CS_COOKIE_LOST | (__u64)BPF_CORE_READ(p, pid) << 32;
}

/*
 * The nearest tagged cgroup's cookie. This repeats the rule of
 * bpf/cookie.bpf.h on purpose, by other means (ancestors[], where the
 * scheduler walks up the parents): the audit derives cookies on its own,
 * so a bug in the scheduler's walk cannot hide itself. With --source ours, a
 * cgroup CS_MAX_CGRP_DEPTH or more levels below the root with no tag in
 * the levels looked at (or past CS_CGRP_LEVEL_MASK) may have a tagged
 * ancestor above them: its trust domain is unknown, so the task gets a
 * cookie of its own (as a lost child does, below) and must run beside
 * nothing. A tenant map (--tenant) keeps its rule: outside every tenant
 * is cookie 0.
 */
static __u64 cgrp_cookie(struct task_struct *p)
{
	struct cgroup *cgrp = BPF_CORE_READ(p, cgroups, dfl_cgrp);
	int level, i;

	if (!cgrp)
		return 0;
	level = BPF_CORE_READ(cgrp, level);
	if (source == OBS_SRC_OURS && level > CS_CGRP_LEVEL_MASK)
		return lost_cookie(p);
	for (i = 0; i < CS_MAX_CGRP_DEPTH && i <= level; i++) {
		struct cgroup *anc = BPF_CORE_READ(cgrp, ancestors[level - i]);
		__u64 id = BPF_CORE_READ(anc, kn, id);
		struct cs_tag *tag = bpf_map_lookup_elem(&cs_cgrp_tag, &id);

		if (tag)
			return tag->cookie;
	}
	/* scx_coresched's rule only: a tenant map is no scheduler's. */
	if (source == OBS_SRC_OURS && level >= CS_MAX_CGRP_DEPTH)
		return lost_cookie(p);
	return 0;
}

/*
 * A child whose inheritance failed at fork: the cookie recorded for it,
 * or, if it is marked lost, a cookie of its own (lost_cookie). 0
 * otherwise.
 */
static __u64 fork_cookie(struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid), word = tid / 64;
	struct cs_orphan *o = bpf_map_lookup_elem(&cs_fork_orphan, &tid);
	__u64 *w;

	if (o && o->start_ns == BPF_CORE_READ(p, start_time))
		return o->cookie;
	w = bpf_map_lookup_elem(&cs_fork_lost, &word);
	if (w && (*w & (1ULL << (tid % 64))))
		return lost_cookie(p);
	return 0;
}

static __u64 task_cookie(struct task_struct *p)
{
	struct cs_tag *tag;

	if (source == OBS_SRC_UPSTREAM) {
		/* Without CONFIG_SCHED_CORE user space refuses this source. */
		if (bpf_core_field_exists(p->core_cookie))
			return BPF_CORE_READ(p, core_cookie);
		return 0;
	}
	if (source == OBS_SRC_TENANT)
		return cgrp_cookie(p);
	tag = bpf_task_storage_get(&cs_task_cookie, p, NULL, 0);
	if (tag && tag->cookie)
		return tag->cookie;
	return fork_cookie(p) ?: cgrp_cookie(p);
}

/*
 * A kernel thread of the stop, RT or deadline class (policy FIFO, RR or
 * DEADLINE): no sched_ext scheduler can hold it back.
 */
static bool is_foreign_kthread(struct task_struct *p)
{
	unsigned int policy = BPF_CORE_READ(p, policy);

	return (BPF_CORE_READ(p, flags) & PF_KTHREAD) &&
	       (policy == 1 || policy == 2 || policy == 6);
}

static enum obs_class task_class(struct task_struct *p)
{
	if (!BPF_CORE_READ(p, pid))
		return OBS_IDLE;
	if (trust_kthreads && (BPF_CORE_READ(p, flags) & PF_KTHREAD))
		return OBS_TRUSTED;
	if (is_foreign_kthread(p))
		return OBS_FOREIGN;
	return OBS_TASK;
}

/* Does @cpu's runqueue hold runnable tasks? */
static bool runqueue_busy(__u32 cpu)
{
	struct rq *rq;

	if (!bpf_ksym_exists(&runqueues))
		return false;
	rq = bpf_per_cpu_ptr(&runqueues, cpu);
	return rq && BPF_CORE_READ(rq, nr_running) > 0;
}

static void mark_runnable(__u32 tid, __u64 now, __u64 flags)
{
	if (tid)
		bpf_map_update_elem(&runnable_since, &tid, &now, flags);
}

/* How long @tid waited runnable, 0 if its wakeup was not seen. */
static __u64 take_wait(__u32 tid, __u64 now)
{
	__u64 *since = bpf_map_lookup_elem(&runnable_since, &tid);
	__u64 wait;

	if (!since)
		return 0;
	wait = now > *since ? now - *since : 0;
	bpf_map_delete_elem(&runnable_since, &tid);
	return wait;
}

static void switched_out(struct task_struct *prev, bool runnable, __u64 now)
{
	__u32 tid = BPF_CORE_READ(prev, pid);

	if (runnable)
		mark_runnable(tid, now, BPF_ANY);
	else
		bpf_map_delete_elem(&runnable_since, &tid);
}

static __always_inline void switched_in(struct task_struct *next, __u64 now,
					bool with_forced)
{
	__u32 *lost;
	struct obs_event ev = {
		.ts = now,
		.cpu = bpf_get_smp_processor_id(),
		.tid = BPF_CORE_READ(next, pid),
		.class = task_class(next),
		.cookie = task_cookie(next),
	};

	bpf_probe_read_kernel_str(ev.comm, sizeof(ev.comm), next->comm);
	if (ev.tid)
		ev.wait_ns = take_wait(ev.tid, now);
	else if (with_forced)
		ev.forced = runqueue_busy(ev.cpu);
	if (ev.cpu >= CS_MAX_CPUS)
		return; /* cannot happen: CS_MAX_CPUS is checked at start */
	lost = &lost_pending[ev.cpu];
	if (ev.wait_ns > worst_wait[ev.cpu].wait_ns)
		worst_wait[ev.cpu] = ev;
	ev.lost_before = *lost;
	/* User space reads on a timer; a wakeup would be a switch itself. */
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_NO_WAKEUP)) {
		__sync_fetch_and_add(&lost_events, 1);
		(*lost)++;
	} else {
		*lost = 0;
	}
}

/*
 * Two versions of the switch probe; user space loads one. The second does
 * not touch runqueues, for kernels that do not give BPF its address
 * (without CONFIG_KALLSYMS_ALL): forced idle is then not measured.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(obs_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();

	switched_out(prev, preempt || prev_state == TASK_RUNNING, now);
	switched_in(next, now, true);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(obs_switch_no_forced, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();

	switched_out(prev, preempt || prev_state == TASK_RUNNING, now);
	switched_in(next, now, false);
	return 0;
}

/*
 * A CPU going offline is marked offline before it switches to its idle
 * task for the last time, and tracepoints do not fire on an offline CPU:
 * that switch is never seen, and the sweep would keep the CPU running its
 * last traced task (its stopper, migration/N) for as long as it is
 * offline. The idle task of the dying CPU calls cpuhp_report_idle_dead()
 * just before the CPU stops: the CPU's idle is recorded there, a few
 * microseconds after the switch. User space loads this program when the
 * kernel has that function (CONFIG_HOTPLUG_CPU).
 */
SEC("fentry/cpuhp_report_idle_dead")
int BPF_PROG(obs_cpu_dead)
{
	switched_in(bpf_get_current_task_btf(), bpf_ktime_get_ns(), false);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(obs_wakeup, struct task_struct *p)
{
	mark_runnable(BPF_CORE_READ(p, pid), bpf_ktime_get_ns(), BPF_NOEXIST);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(obs_wakeup_new, struct task_struct *p)
{
	mark_runnable(BPF_CORE_READ(p, pid), bpf_ktime_get_ns(), BPF_NOEXIST);
	return 0;
}
