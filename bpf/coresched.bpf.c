// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_coresched: strict, fair SMT core scheduling as a sched_ext scheduler.
 *
 * Every task has a cookie (its trust domain); untagged tasks share cookie
 * 0. The invariant: at no instant do two SMT siblings of one core run
 * sched_ext tasks whose cookies differ (idle is compatible with
 * everything); for tasks of other classes see 5. Cookies come from the
 * tagging programs (tagging.bpf.c, cookie.bpf.h).
 *
 * 1. Queues. Each live cookie owns a slot (see tags.bpf.h) and a vtime-
 *    ordered DSQ with the slot's number. Tasks are only ever inserted into
 *    these DSQs, never into a local or the global DSQ, so the only way a
 *    task reaches a CPU is ops.dispatch() moving it there, which is where
 *    the core-wide decision is made.
 *
 * 2. Claims and commits. Each core has one 64-bit state word with, per
 *    sibling, next (the slot it has claimed) and cur (the slot it runs),
 *    up to 8 siblings (encoded by class around two owner slots, and never
 *    looser than the truth: include/cs_policy.h).
 *    A CPU claims slot K by compare-and-swap only if every sibling's next
 *    and cur are compatible with K; then it moves a task of K to itself.
 *    cur is committed at the sibling's sched_switch tracepoint, inside
 *    __schedule(), when the old task has stopped running, not when the
 *    switch is decided. That closes upstream's IPI window: a sibling that
 *    is still running cookie X keeps blocking until it has left it, so no
 *    CPU can start Y while X still runs next door. Worked example on a
 *    2-thread core, CPU0 running X, CPU1 idle and a task of Y waiting:
 *
 *      word: next0=X cur0=X next1=- cur1=-
 *      CPU1 dispatch: claim Y? cur0=X is incompatible -> blocked, CPU1 sets
 *        its forced flag and idles (forced idle).
 *      CPU0 slice ends, dispatch: Y is the most deserving cookie (lowest
 *        vtime) and nothing else holds the core -> claim Y (next0=Y) and
 *        move Y's task to CPU0.
 *      CPU0 switches X -> Y; its sched_switch tracepoint commits cur0=Y
 *        and, leaving X, kicks forced siblings (sent from irq_work).
 *      CPU1 is kicked, claims Y (next0=Y cur0=Y are compatible), runs Y.
 *
 *    A claim attempt that finds a conflict idles with its forced flag
 *    set, whether the sibling is in transit (next != cur) or stable: the
 *    sibling that leaves the conflicting cookie kicks it: at the commit
 *    of its switch, or when it drops a claim it was not running yet.
 *    Flag-then-check on one side and CAS-then-read on the other make the
 *    wakeup impossible to lose.
 *
 * 3. Fairness. A cookie pays for the core time it occupies: a run of d ns
 *    on a core with n siblings, m of them running that cookie, costs
 *    d * n / m, so a lone task that keeps its sibling forced idle pays for
 *    both. The charge is divided by the cookie's weight (the cgroup's
 *    cpu.weight for a cgroup cookie, the sum of its runnable tasks' weights
 *    otherwise) into the cookie's vtime. A core follows the cookie with the
 *    lowest vtime (in fill mode, the lowest among the tagged ones:
 *    untagged work runs beside any cookie and owns no core, and runs
 *    first on a CPU when it is the most deserving); when its current
 *    cookie is ahead of a waiting one by more than the grace, the next
 *    dispatch or tick hands the core over (on a core where that cookie
 *    is due: due_here): the holders are kicked, and the last one out
 *    claims the new cookie.
 *    Inside a cookie, tasks are ordered by their own weighted vtime. Idle
 *    cookies come back no further than a few slices behind (no banking),
 *    and no further than the clock (vnow) moved since they last ran
 *    (cs_wake_floor): a cookie that sleeps briefly between short runs
 *    cannot pass a waiting cookie again and again. Nor do they come back
 *    more than as far ahead (in core time at their weight): a debt
 *    beyond that is dropped, so no cookie waits minutes among thousands
 *    (cs_wake_vtime).
 *    Affinity: a core follows the most deserving cookie that can run on
 *    it; a cookie none of whose first CS_PEEK_TASKS queued tasks may run
 *    on the core is passed over (best_for_core). On 2x2, cookie B's tasks
 *    bound to CPU 0 and B the most deserving: core {0,1} hands over to B,
 *    CPU 1 idling beside it; core {2,3} passes B over and is shared by C
 *    and D by their own vtimes, instead of idling for a cookie that can
 *    never run there. A CPU that finds its first CS_PICK_TRIES cookies all
 *    bound elsewhere idles until its next wakeup, as before.
 *
 * 4. Placement. A waking task goes to an idle CPU whose siblings already
 *    run its cookie, else to a fully idle core, else to an idle CPU whose
 *    siblings are compatible; never next to an incompatible cookie.
 *
 * 5. Outside our class. Stop/RT/DL tasks are not ours to queue. Whenever
 *    one starts on a CPU, whatever ran there before (idle, another RT task,
 *    one of ours), the commit hook records its cookie as that CPU's claim
 *    and cur, so no sibling starts a conflicting one, and kicks the siblings
 *    that run one: they stop within an IPI, as with upstream. That window,
 *    and a running task's new cookie until its tick or re-queue (see 6),
 *    are where isolation is not strict (and hotplug, load and unload:
 *    the README). Kernel threads are
 *    cookie 0 unless --trust-kthreads makes them compatible with everything.
 *
 * 6. Failing closed. A compare-and-swap on a core word that keeps losing
 *    (CS_CAS_TRIES) or a CPU outside the topology stops the scheduler with
 *    scx_bpf_error() rather than run on with a word that lies; the loader
 *    then loads it again (and, with --fail-mode closed, switches SMT off
 *    meanwhile). A running task whose cookie changes without a context
 *    switch (re-queued by a cgroup move, nice or affinity change) commits
 *    its new slot in ops.running and preempts conflicting siblings. A
 *    forked child gets its parent's cookie in ops.init_task, inside
 *    copy_process(), or the fork fails (ENOMEM); children that could not
 *    be tagged while no scheduler ran are tagged there before they run
 *    here (cs_fork_orphan), and those that could not even be recorded
 *    (cs_fork_lost) run alone on their cores. Work is never placed on a
 *    CPU whose runqueue sched_ext does not see online (hotplug), nor on
 *    one draining before the loader switches SMT off (see Draining), nor
 *    on one fenced: offline at load, its siblings unknown until the
 *    loader reads them (core_state.bpf.h).
 *
 * Scale: up to CS_MAX_CPUS (512) CPUs. CPU sets are the kernel's cpumasks,
 * tested with bpf_cpumask_test_cpu() or read a 64-bit word at a time
 * (pick_cpu); a core's own sets are bit masks over its siblings; each
 * core's state word has a cache line of its own. Up to CS_MAX_TAGGED
 * (4,096) tagged cookies are live at once, each with its slot; picking the
 * most deserving one looks at the slots with tasks queued (queued_mask,
 * kept by a count per slot), a word of 64 at a time in the order of a
 * lower bound on each word's vtimes (queue bounds, include/cs_policy.h):
 * with 4,096 cookies queued and fresh bounds, one or two words (more
 * while counted slots' tasks wait in local DSQs, their DSQs empty). Cookies
 * that find no slot share the overflow queue, which runs alone on a core
 * and competes with a vtime of its own (excl_vt).
 *
 * Modes: strict (default) shares a core only within a cookie; fill also
 * lets untagged (cookie 0) work run beside any cookie; none disables
 * isolation (the same scheduler without core scheduling, for comparison):
 * no cookie holds a core, and each CPU hands over to a more deserving
 * cookie by itself (cs_rivals), as a core does in the other modes.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "cs_policy.h"
#include "cs_stats.h"
#include "compat.bpf.h"
#include "core_state.bpf.h"
#include "tags.bpf.h"

char _license[] SEC("license") = "GPL";

const volatile bool trust_kthreads;
const volatile u64 slice_ns = 5ULL * 1000 * 1000;
const volatile u64 grace_ns = 5ULL * 1000 * 1000;

/*
 * Cookies looked at, in vtime order, for the most deserving one that can
 * run on a core (affinity); when none of them can, the core takes none.
 */
#define CS_PICK_TRIES 3
/*
 * Queued tasks of a cookie looked at, in order, to tell whether one can run
 * on a core: a cookie none of whose first CS_PEEK_TASKS tasks can is passed
 * over there.
 */
#define CS_PEEK_TASKS 8

#define DSQ_TRUST CS_SLOT_TRUST
#define DSQ_EXCL CS_SLOT_EXCL

struct cs_cpu_stat cpu_stats[CS_MAX_CPUS];
/* Per slot, indexed with CS_SLOT_IDX() (the first CS_NR_SLOTS are used). */
struct cs_slot_stat slot_stats[CS_SLOT_TBL];
u64 slot_vtime[CS_SLOT_TBL]; /* the cookie's weighted core time */
u64 slot_tvnow[CS_SLOT_TBL]; /* task vtime clock inside the cookie */
u64 slot_wsum[CS_SLOT_TBL]; /* sum of its runnable tasks' weights (not 0's) */
u64 wsum0_sum, wsum0_at; /* untagged_weight(): the last sum, and when */
/* Untagged runnable weight added on each CPU (minus what left there). */
struct cs_pcpu_s64 wsum0[CS_MAX_CPUS];
u64 live_mask[CS_LIVE_TBL]; /* slots with holders (for the statistics) */
u64 queued_mask[CS_LIVE_TBL]; /* tagged slots with tasks counted queued */
u64 queued_bound[CS_LIVE_TBL]; /* per word of queued_mask: cs_qb_* */
s32 slot_qcnt[CS_SLOT_TBL]; /* its tasks queued: enqueued, not yet run */
u8 low_bit_tbl[64]; /* cs_low_bit_table(), filled by cs_init */
u64 vnow; /* vtime of the most deserving cookie, monotonic */
/*
 * The overflow queue's vtime (cookies that found no slot, and tasks whose
 * slot request lost a race): it competes as one cookie of weight 100,
 * charged for the whole core its tasks hold, so that under load it still
 * gets its turn (compared with vnow alone, it starved: a task waited 30 s
 * and the kernel's watchdog ejected the scheduler).
 */
u64 excl_vt;
/*
 * vnow when a task of the cookie last started or stopped running: how
 * much wake credit it has earned since (cs_wake_floor).
 */
u64 slot_vseen[CS_SLOT_TBL];
u16 core_last[CS_MAX_CPUS]; /* last slot claimed on each core */
u16 core_prev[CS_MAX_CPUS]; /* the slot claimed there before core_last */
u8 drain_cpu[CS_MAX_CPUS]; /* about to go offline: written by the loader */
u8 drained[CS_MAX_CPUS]; /* a draining CPU runs nothing but its own kthreads */
struct cs_exit_info exit_info;

/* ops.exit writes one record here, so the loader wakes the moment it runs. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} exit_rb SEC(".maps");

/* A fenced CPU came online: the loader reads its siblings (topology). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} online_rb SEC(".maps");
u64 topo_asks; /* fenced CPUs that came online, ever */
/*
 * When the first ops.dispatch ran. sched_ext's enable transition queues
 * every task that wakes meanwhile on its global DSQ, which each CPU
 * empties before it calls ops.dispatch: those tasks run unclaimed
 * (running() imposes their cookie and kicks conflicting siblings, an IPI
 * window). A first dispatch means the global DSQ was empty, and nothing
 * is queued there any more: the transition is over. The loader waits for
 * it before it says the scheduler is enabled.
 */
u64 first_dispatch_ns;

extern const void ext_sched_class __ksym; /* untyped: 6.12 BTF has no global vars */
u32 scx_bpf_reenqueue_local(void) __ksym;

/* Draining before SMT goes off, or fenced: only its own kthreads run. */
static bool draining(s32 cpu)
{
	return drain_cpu[(u32)cpu & (CS_MAX_CPUS - 1)] || fenced(cpu);
}

static struct cs_cpu_stat *cpu_stat(s32 cpu)
{
	return &cpu_stats[(u32)cpu & (CS_MAX_CPUS - 1)];
}

static struct cs_slot_stat *slot_stat(u32 s)
{
	return &slot_stats[CS_SLOT_IDX(s)];
}

static u64 *vtime_of(u32 s)
{
	return &slot_vtime[CS_SLOT_IDX(s)];
}

/* The vtime the slot competes with: the overflow queue's too; or NULL. */
static u64 *vt_ptr(u32 s)
{
	if (s == CS_SLOT_EXCL)
		return &excl_vt;
	return s < CS_NR_SLOTS ? vtime_of(s) : NULL;
}

/*
 * The overflow queue keeps its clocks in the per-slot tables too, at an
 * index no real slot has (slot_vseen, slot_tvnow).
 */
_Static_assert((CS_SLOT_EXCL & (CS_SLOT_TBL - 1)) >= CS_NR_SLOTS,
	       "the overflow queue's table entries are nobody else's");

static u64 *vseen_of(u32 s)
{
	return &slot_vseen[CS_SLOT_IDX(s)];
}

static u64 *tvnow_of(u32 s)
{
	return &slot_tvnow[CS_SLOT_IDX(s)];
}

static u64 *wsum_of(u32 s)
{
	return &slot_wsum[CS_SLOT_IDX(s)];
}

/* Word of a slot bit set (live_mask, queued_mask), masked for the verifier. */
static u32 slot_word(u32 s)
{
	u32 k = s >> 6;

	barrier_var(k);
	return k & (CS_LIVE_TBL - 1);
}

static void set_live(u32 s, bool live)
{
	u64 bit = 1ULL << (s & 63);

	if (live)
		__sync_fetch_and_or(&live_mask[slot_word(s)], bit);
	else
		__sync_fetch_and_and(&live_mask[slot_word(s)], ~bit);
}

static u16 slot_acquire(u64 cookie)
{
	bool fresh;
	u16 s = slot_get(cookie, &fresh);

	if (fresh && s < CS_NR_SLOTS) {
		/* A new owner's counters start from zero (see cs_report.c). */
		*slot_stat(s) = (struct cs_slot_stat){ .cookie = cookie };
		*vtime_of(s) = vnow;
		*vseen_of(s) = vnow;
		*tvnow_of(s) = 0;
		*wsum_of(s) = 0;
		set_live(s, true);
		slot_publish(cookie, s);
	}
	return s;
}

static void slot_release(u16 s)
{
	struct slot_table *t = slots();

	slot_put(s);
	if (t && s && s < CS_NR_SLOTS && !t->ref[CS_SLOT_IDX(s)]) {
		set_live(s, false);
		/*
		 * A new owner may have taken the slot and set its bit between
		 * our read and our clear: look again, or its tasks would never
		 * be picked.
		 */
		if (*(volatile s32 *)&t->ref[CS_SLOT_IDX(s)])
			set_live(s, true);
	}
}

/*
 * Untagged work (slot 0) runs everywhere: its runnable weight is counted
 * per CPU (wsum0[], where a task's weight was added), so that
 * no wakeup or sleep of an untagged task writes a word shared by every
 * CPU. The sum is taken at most once per CS_WSUM0_NS, by whichever CPU
 * needs it first.
 */
#define CS_WSUM0_NS (1000ULL * 1000)

static s64 *wsum0_of(u32 cpu)
{
	return &wsum0[cpu & (CS_MAX_CPUS - 1)].v;
}

static u64 untagged_weight(void)
{
	u64 now = bpf_ktime_get_ns(), at = wsum0_at;
	s64 sum = 0;
	s32 i;

	/* One CPU sums at a time; the others use the last sum. */
	if (now - at < CS_WSUM0_NS ||
	    __sync_val_compare_and_swap(&wsum0_at, at, now) != at)
		return wsum0_sum;
	bpf_for(i, 0, CS_MAX_CPUS) {
		if ((u32)i >= nr_cpus)
			break;
		sum += *wsum0_of(i);
	}
	wsum0_sum = sum > 0 ? sum : 0;
	return wsum0_sum;
}

/* The weight a cookie is charged against. */
static u64 slot_weight(u32 s)
{
	u64 cookie, id, w0;
	u32 *w;

	if (s >= CS_NR_SLOTS)
		return 100;
	if (s == 0) {
		w0 = untagged_weight();
		return w0 ? w0 : 100;
	}
	cookie = slot_stat(s)->cookie;
	if (cookie & CS_COOKIE_CGROUP) {
		id = cookie & ~CS_COOKIE_CGROUP;
		w = bpf_map_lookup_elem(&cgrp_weight, &id);
		return w && *w ? *w : 100;
	}
	return *wsum_of(s) ? *wsum_of(s) : 100;
}

/*
 * Add @cpu's pending charges to their cookie: its vtime (scaled by its
 * weight, read here), core and run time. Charges pile up per CPU while it
 * runs one cookie, so short runs (a pipe ping-pong: a charge per switch)
 * write the shared counters once per tick, not once per switch; they are
 * flushed when the CPU charges another cookie, at each tick and when it
 * goes idle, so a cookie's vtime lags by at most a tick of each CPU's
 * runs, as with a long run charged at ticks. Under @cpu's rq lock.
 */
static void charge_flush(s32 cpu)
{
	struct cs_cpu_stat *st = cpu_stat(cpu);
	u32 s = st->pend_slot;

	/*
	 * Not if the slot went to another cookie meanwhile (a flush racing
	 * with a new owner's slot_acquire on another CPU can still land on
	 * it: at most a tick of one CPU's charge).
	 */
	if (s < CS_NR_SLOTS && (st->pend_core_ns || st->pend_run_ns) &&
	    slot_stat(s)->cookie == st->pend_cookie) {
		__sync_fetch_and_add(vtime_of(s), cs_scale(st->pend_core_ns,
							      slot_weight(s)));
		__sync_fetch_and_add(&slot_stat(s)->core_ns, st->pend_core_ns);
		__sync_fetch_and_add(&slot_stat(s)->run_ns, st->pend_run_ns);
	}
	st->pend_core_ns = 0;
	st->pend_run_ns = 0;
}

/*
 * A cookie whose queue was empty comes back: its vtime between its earned
 * credit and its debt cap (cs_wake_vtime). A compare-and-swap, as
 * charge_flush() adds to it from other CPUs at the same time; after 8
 * losses in a row, it stays where the charges put it (nothing unsafe:
 * only the order between cookies bends). True if it lowered the vtime:
 * the queue bound must then be lowered too, even if another task of the
 * cookie was counted queued meanwhile.
 */
static bool vtime_place(u16 s)
{
	u64 v, nv, *vt = vt_ptr(s), now = vnow, seen = *vseen_of(s),
		   w = slot_weight(s);
	int i;

	if (!vt)
		return false;
	bpf_for(i, 0, 8) {
		v = *(volatile u64 *)vt;
		nv = cs_wake_vtime(v, now, seen, 4 * grace_ns, w);
		if (nv == v)
			return false;
		if (__sync_val_compare_and_swap(vt, v, nv) == v)
			return nv < v;
	}
	return false;
}

/*
 * Losing compare-and-swaps on one word of queue bounds in a row: each loss
 * is another CPU's update landing, so this many means the scheduler cannot
 * keep its order, and it stops (fails closed) rather than pick from a
 * bound that may hide a waiting cookie.
 */
#define CS_QB_TRIES 4096

/*
 * Tagged slot @s's bit is set: when it was clear, or its count was 0
 * (@was_empty), lower its word's bound to its vtime and count the word's
 * sequence up (cs_qb_lower, in cs_policy.h).
 */
static void queued_mark(u32 s, bool was_empty)
{
	u32 k = slot_word(s);
	u64 bit = 1ULL << (s & 63), w, nw;
	int i;

	if (!(__sync_fetch_and_or(&queued_mask[k], bit) & bit))
		was_empty = true;
	if (!was_empty)
		return;
	bpf_for(i, 0, CS_QB_TRIES) {
		w = *(volatile u64 *)&queued_bound[k];
		nw = cs_qb_lower(w, *vtime_of(s));
		if (__sync_val_compare_and_swap(&queued_bound[k], w, nw) == w)
			return;
	}
	cs_error("slot %u: its queue bound lost %d compare-and-swap races", s,
		 CS_QB_TRIES);
}

/*
 * The queued count. A slot's bit in queued_mask stands for "tasks of this
 * slot are counted queued", not for "its DSQ is not empty": an insert from
 * ops.enqueue lands in the DSQ only after ops.enqueue returns, so a pick
 * that saw the DSQ empty and cleared the bit could race with it and leave
 * the task queued with no bit, never picked (a first version of this pick
 * did that at 4,097 cookies, until the watchdog ejected the scheduler).
 * So each task counts itself in its slot's slot_qcnt[] when ops.enqueue
 * queues it there (before the insert), and out when it runs or leaves the
 * runqueue (ops.running, ops.quiescent), is queued elsewhere, or its
 * slot changes (refresh(), before the old slot is released: a cookie that
 * takes that slot fresh finds its count at 0 and lowers the bound).
 * Only a pick clears a bit, when it finds the count at 0, and then it
 * looks at the count again (queued_counted()): a task that came in
 * meanwhile is seen and its bit set back (with the bound lowered and the
 * sequence moved, so that a pick that read the word in between cannot
 * write a bound without it). A count above 0 can lack its bit only for
 * that moment, and only after its task's own queued_mark() ran: a pick
 * then may look at the slot late, never lose it. A bit may outlive its
 * count until a pick looks at its word.
 * (A first version let the last task out clear the bit: a pick in the
 * moment between that clear and its second look found nothing.) A pick
 * passes over a counted slot whose DSQ is still empty (the insert in
 * flight, or the task moved to a local DSQ) and leaves its bit.
 */
/* @lowered: its vtime was just lowered (vtime_place): lower the bound. */
static void queued_enter(struct task_ctx *tctx, u16 s, bool lowered)
{
	s32 was = __sync_fetch_and_add(&slot_qcnt[CS_SLOT_IDX(s)], 1);

	tctx->qslot = s;
	queued_mark(s, was == 0 || lowered);
}

static void queued_leave(struct task_ctx *tctx)
{
	u16 s = tctx->qslot;
	s32 was;

	if (!cs_tagged(s))
		return;
	tctx->qslot = CS_SLOT_NONE;
	was = __sync_fetch_and_add(&slot_qcnt[CS_SLOT_IDX(s)], -1);
	if (was < 1)
		cs_error("slot %u: queued count %d went below 0", s, was - 1);
}

/*
 * Is slot @s, whose bit is set, counted queued? A bit whose count is 0 is
 * cleared, and the count read again after the clear (the fetch form of
 * the atomic orders the two, on arm64 too): a task counted in between
 * gets its bit back.
 */
static bool queued_counted(u32 s)
{
	u64 bit = 1ULL << (s & 63), old;

	if (*(volatile s32 *)&slot_qcnt[CS_SLOT_IDX(s)] > 0)
		return true;
	old = __sync_fetch_and_and(&queued_mask[slot_word(s)], ~bit);
	barrier_var(old);
	if (*(volatile s32 *)&slot_qcnt[CS_SLOT_IDX(s)] <= 0)
		return false;
	/*
	 * Set back as a slot that becomes queued: the sequence moves, so a
	 * pick that read the word while the bit was clear cannot write a
	 * bound without this slot (and one it wrote already is lowered).
	 */
	queued_mark(s, true);
	return true;
}

/*
 * Move the task's runnable weight to slot @to (NONE: it stops counting).
 * A cgroup cookie is charged against its cgroup's weight, not its tasks'
 * (slot_weight): its tasks count nothing (wval 0), and their wakeups and
 * sleeps write no shared word. A task's slot keeps its cookie while the
 * task holds it, so what was added is what is taken back.
 */
static void weight_move(struct task_struct *p, struct task_ctx *tctx, u16 to)
{
	if (tctx->wslot == 0 && tctx->wval)
		__sync_fetch_and_sub(wsum0_of(tctx->wcpu), tctx->wval);
	else if (tctx->wslot < CS_NR_SLOTS && tctx->wval)
		__sync_fetch_and_sub(wsum_of(tctx->wslot), tctx->wval);
	tctx->wval = 0;
	if (to < CS_NR_SLOTS && !(slot_stat(to)->cookie & CS_COOKIE_CGROUP)) {
		tctx->wval = p->scx.weight;
		if (to == 0) {
			tctx->wcpu = bpf_get_smp_processor_id();
			__sync_fetch_and_add(wsum0_of(tctx->wcpu), tctx->wval);
		} else {
			__sync_fetch_and_add(wsum_of(to), tctx->wval);
		}
	}
	tctx->wslot = to;
}

/*
 * Make the task's slot current with its tags. The cookie is resolved
 * afresh every time (a hash lookup and a short cgroup walk), so a task is
 * queued under the tags in force when it was queued: the same ones an
 * outside observer reads when it switches in. Called from select_cpu,
 * runnable and enqueue: while the task waits, or when a running task is
 * re-queued (ops.running then commits its new slot).
 */
static u16 refresh(struct task_struct *p, struct task_ctx *tctx)
{
	u64 cookie = 0;
	u16 slot;

	if ((p->flags & PF_KTHREAD) && trust_kthreads) {
		slot = CS_SLOT_TRUST;
	} else {
		cookie = task_cookie(p);
		if (cookie == tctx->cookie && tctx->slot < CS_NR_SLOTS)
			return tctx->slot;
		slot = slot_acquire(cookie);
	}
	if (slot != tctx->slot) {
		queued_leave(tctx);
		slot_release(tctx->slot);
		if (tctx->wslot != CS_SLOT_NONE)
			weight_move(p, tctx, slot);
	}
	tctx->slot = slot;
	tctx->cookie = cookie;
	return slot;
}

/* Slot of a task of another sched class, without taking a reference. */
static u16 foreign_slot(struct task_struct *p)
{
	struct task_ctx *tctx;

	if (p->flags & PF_IDLE)
		return CS_SLOT_NONE;
	if (p->flags & PF_KTHREAD)
		return trust_kthreads ? CS_SLOT_TRUST : 0;
	tctx = task_ctx(p);
	if (tctx && tctx->slot < CS_NR_SLOTS && task_cookie(p) == tctx->cookie)
		return tctx->slot;
	return task_cookie(p) ? CS_SLOT_EXCL : 0;
}

static u64 dsq_of(u16 slot)
{
	return slot;
}

/* Is @slot's queue ordered by vtime? (The trusted kthreads' is FIFO.) */
static bool vtime_ordered(u32 slot)
{
	return slot < CS_NR_SLOTS || slot == CS_SLOT_EXCL;
}

/*
 * The slots a pick passes over (best_for_core's affinity retries, fill
 * mode's untagged work), 16 bits each: CS_SLOT_NONE where there is none.
 */
static u64 skip_set(u32 a, u32 b, u32 c)
{
	return (u64)(a & 0xffff) | (u64)(b & 0xffff) << 16 |
	       (u64)(c & 0xffff) << 32;
}

static bool skipped(u32 i, u64 skips)
{
	return i == (skips & 0xffff) || i == ((skips >> 16) & 0xffff) ||
	       i == ((skips >> 32) & 0xffff);
}

/*
 * Look at every slot of queued_mask word @k for one queued below *@bvt
 * (the best so far, *@best), then write the word's exact bound: the lowest
 * vtime of its counted slots, from the word read before the look (queue
 * bounds, cs_policy.h). A bit whose count is 0 is cleared on the way
 * (queued_counted); a counted slot whose DSQ is empty is passed over.
 */
__attribute__((noinline)) u32 pick_in_word(u32 k, u64 skips, u32 best, u64 bvt)
{
	u64 *qb = &queued_bound[slot_word(k * 64)];
	u64 w0 = *(volatile u64 *)qb, low = ~0ULL, bits, v;
	s32 j;

	bits = *(volatile u64 *)&queued_mask[slot_word(k * 64)];
	bpf_for(j, 0, 64) {
		u32 i;

		if (!bits)
			break;
		i = k * 64 + low_bit_tbl[cs_low_bit_key(bits)];
		bits &= bits - 1;
		if (i >= CS_NR_SLOTS)
			break;
		if (!queued_counted(i))
			continue;
		v = *vtime_of(i);
		if (v < low)
			low = v;
		if (v < bvt && !skipped(i, skips) && cs_nr_queued(i) > 0) {
			best = i;
			bvt = v;
		}
	}
	__sync_val_compare_and_swap(qb, w0, cs_qb_refresh(w0, low));
	return best;
}

/*
 * The most deserving slot with queued tasks, the one with the lowest
 * cookie vtime, other than @skip_a, @skip_b and @skip_c.
 *
 * The untagged slot is looked at by itself; the tagged ones a word of
 * queued_mask at a time, the word of the lowest bound first, until no
 * bound is below the best vtime found (queue bounds, cs_policy.h). So a
 * dispatch or tick reads CS_LIVE_WORDS bounds per word it looks at, and
 * looks at one or two words of 64 slots when the bounds are fresh, not at
 * every live cookie.
 */
__attribute__((noinline)) u32 pick_best_slot(u32 skip_a, u32 skip_b, u32 skip_c)
{
	u64 bvt = ~0ULL, looked[2] = {},
	    skips = skip_set(skip_a, skip_b, skip_c);
	u32 best = CS_SLOT_NONE;
	s32 n, j;

	_Static_assert(CS_LIVE_WORDS <= 128, "looked[] has 128 bits");
	if (!skipped(0, skips) && cs_nr_queued(0) > 0) {
		best = 0;
		bvt = *vtime_of(0);
	}
	bpf_for(n, 0, CS_LIVE_WORDS) {
		u64 low = ~0ULL, b;
		u32 k = CS_LIVE_WORDS;

		bpf_for(j, 0, CS_LIVE_WORDS) {
			if (looked[(j >> 6) & 1] & (1ULL << (j & 63)))
				continue;
			b = cs_qb_bound(queued_bound[j & (CS_LIVE_TBL - 1)]);
			if (b < low) {
				low = b;
				k = j;
			}
		}
		if (k >= CS_LIVE_WORDS || low >= bvt)
			break;
		looked[(k >> 6) & 1] |= 1ULL << (k & 63);
		best = pick_in_word(k, skips, best, bvt);
		if (best < CS_NR_SLOTS)
			bvt = *vtime_of(best);
	}
	if (!skipped(CS_SLOT_EXCL, skips) && cs_nr_queued(DSQ_EXCL) > 0 &&
	    (best == CS_SLOT_NONE || excl_vt < bvt))
		best = CS_SLOT_EXCL;
	return best;
}

/* The vtime of no slot at all: above every cookie's, and safe to add to. */
#define VT_NONE ((1ULL << 56) - 1)

/*
 * The most deserving slot but the three, and its vtime in @best_vt (read
 * again after the scan: at most a newer charge than the scan saw).
 */
static u16 pick_best_but(u64 *best_vt, u16 skip_a, u16 skip_b, u16 skip_c)
{
	u32 best = pick_best_slot(skip_a, skip_b, skip_c);
	u64 *vt = vt_ptr(best);

	*best_vt = vt ? *vt : VT_NONE;
	return best;
}

static u16 pick_best(u64 *best_vt)
{
	return pick_best_but(best_vt, CS_SLOT_NONE, CS_SLOT_NONE, CS_SLOT_NONE);
}

static u64 slot_vt(u16 s)
{
	u64 *vt = vt_ptr(s);

	return vt ? *vt : vnow;
}

/* Wake siblings that idle because of what this CPU ran. */
__attribute__((noinline)) int kick_forced_siblings(s32 cpu)
{
	int i, sib = sib_of(cpu), nr = nr_sibs(cpu);

	cs_for_each_sib(i) {
		s32 c = sib_cpu(cpu, i);

		if (i == sib || i >= nr || c < 0)
			continue;
		if (cpu_stat(c)->forced) {
			cs_kick(c, SCX_KICK_IDLE);
			cpu_stat(cpu)->kicks++;
		}
	}
	return 0;
}

/*
 * Commit @slot as what @cpu runs. Leaving another cookie (for a new one,
 * for an intruder's or for idle) ends a transit its siblings may be
 * waiting on: a claim that finds a sibling in transit idles with its
 * forced flag set instead of retrying, and this kick wakes it
 * (test_model: lost_commit_kick).
 */
static void commit_cur(s32 cpu, u16 slot)
{
	u16 was = core_set_cur(cpu, slot);

	if (was != slot && was != CS_SLOT_NONE)
		kick_forced_siblings(cpu);
}

/*
 * Siblings of @cpu's core (bit i: sibling i) on which one of the first
 * CS_PEEK_TASKS queued tasks of @slot may run (affinity); 0 if none.
 */
__attribute__((noinline)) u32 core_can_run(s32 cpu, u32 slot)
{
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	int nr = nr_sibs(cpu), n = 0, i;
	u32 all = (1U << nr) - 1, found = 0;

	if (slot > CS_SLOT_EXCL)
		return 0;
	bpf_iter_scx_dsq_new(&it, dsq_of(slot), 0);
	while ((p = bpf_iter_scx_dsq_next(&it))) {
		if ((u32)p->nr_cpus_allowed >= nr_cpus) {
			found = all;
		} else {
			cs_for_each_sib(i) {
				s32 c = sib_cpu(cpu, i);

				if (i < nr && c >= 0 &&
				    bpf_cpumask_test_cpu(c, p->cpus_ptr))
					found |= 1U << i;
			}
		}
		if (found == all || ++n >= CS_PEEK_TASKS)
			break;
	}
	bpf_iter_scx_dsq_destroy(&it);
	return found;
}

/*
 * Kick the idle siblings in @sibs (bit i: sibling i) other than @cpu:
 * they can run what it cannot.
 */
__attribute__((noinline)) int kick_idle_in(s32 cpu, u32 sibs)
{
	int i;

	cs_for_each_sib(i) {
		s32 c = sib_cpu(cpu, i);

		if (i < nr_sibs(cpu) && c >= 0 && c != cpu &&
		    (sibs & (1U << i)))
			cs_kick(c, SCX_KICK_IDLE);
	}
	return 0;
}

/*
 * The most deserving cookie that may run on @cpu's core, starting from
 * @best (the most deserving of all) and @bvt its vtime: a cookie none of
 * whose first queued tasks may run on the core is passed over, up to
 * CS_PICK_TRIES cookies in vtime order (then none is found). @keep, the
 * slot of a task running here, may always run here: it wins when it is
 * more deserving than what is found. @but is never found (the untagged
 * slot when only tagged cookies are wanted, else CS_SLOT_NONE).
 */
static u16 best_for_core(s32 cpu, u16 best, u16 keep, u64 *bvt, u16 but)
{
	u16 skip_a = CS_SLOT_NONE, skip_b = CS_SLOT_NONE;
	int t;

	_Static_assert(CS_PICK_TRIES == 3, "pick_best_but() skips two");
	for (t = 0; t < CS_PICK_TRIES; t++) {
		if (best == CS_SLOT_NONE || best == keep ||
		    core_can_run(cpu, best))
			break;
		if (t == CS_PICK_TRIES - 1) {
			best = CS_SLOT_NONE;
			break;
		}
		if (t == 0)
			skip_a = best;
		else
			skip_b = best;
		best = pick_best_but(bvt, skip_a, skip_b, but);
	}
	if (keep < CS_NR_SLOTS &&
	    (best == CS_SLOT_NONE || *vtime_of(keep) < *bvt)) {
		best = keep;
		*bvt = *vtime_of(keep);
	}
	return best;
}

/*
 * Fill mode: untagged work runs beside any cookie, so it owns no core, and
 * which cookie owns one is decided among the tagged ones. With untagged
 * work the most deserving (it sleeps, so its vtime is usually the lowest),
 * this is the most deserving tagged cookie that can run on @cpu's core
 * (affinity retries skip untagged work too), or @keep's (this CPU's prev)
 * if it deserves more; CS_SLOT_NONE if none.
 * Stopping at the untagged cookie instead kept the holder forever: a
 * tagged cookie and the untagged work starved (sched.sh fairness_fill).
 */
static u16 best_tagged(s32 cpu, u16 keep, u64 *vt)
{
	u16 s = pick_best_but(vt, 0, CS_SLOT_NONE, CS_SLOT_NONE);

	return best_for_core(cpu, s, keep ? keep : CS_SLOT_NONE, vt, 0);
}

/*
 * Is a handover to @slot this core's to make? Yes when one of the first
 * CS_PEEK_TASKS tasks it has queued sits on a runqueue of this core (where
 * its wakeup or its last run put it), or on a core that already runs
 * @slot (the cookie wants more than that core), or has waited a slice
 * already, or more are queued. Every CPU's tick sees the same most
 * deserving cookie, so without this one task of untagged work (rcu_sched
 * waking on a busy 2x2 guest) made both cores hand over within a tick,
 * and the core that found the task taken went back: twice the handovers,
 * plus a migration. Example: rcu_sched wakes on CPU 3 while core {0,1}
 * runs A and core {2,3} runs B: only core {2,3} yields to it; core {0,1}
 * would only if it waited a slice (its core then busy with foreign work,
 * say). Had B a task waiting on core {2,3} and B's vtime fallen behind
 * A's by the grace, core {0,1} would yield to B: a cookie that holds a
 * core and still waits is not held back by where its tasks wait.
 */
__attribute__((noinline)) int due_here(s32 cpu, u32 slot)
{
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	u64 now = bpf_ktime_get_ns();
	u32 core = core_of(cpu);
	int n = 0, here = 0;

	if (!vtime_ordered(slot))
		return 1;
	bpf_iter_scx_dsq_new(&it, dsq_of(slot), 0);
	while ((p = bpf_iter_scx_dsq_next(&it))) {
		struct task_ctx *tctx = task_ctx(p);
		s32 c = scx_bpf_task_cpu(p);

		/* (Two overflow tasks never share a core: EXCL is not held.) */
		if (++n > CS_PEEK_TASKS || fenced(c) || core_of(c) == core ||
		    (slot < CS_NR_SLOTS &&
		     cs_nr_running(core_read(c), nr_sibs(c), slot)) ||
		    !tctx || (tctx->enq_at && now - tctx->enq_at > slice_ns)) {
			here = 1;
			break;
		}
	}
	bpf_iter_scx_dsq_destroy(&it);
	return here;
}

/*
 * Stickiness. A core that another cookie left (held by none) takes the
 * cookie it ran last, or the one before, when that one has tasks queued,
 * can run here and is no more than the grace behind @rival in vtime: the
 * grace a holder keeps anyway before it yields (cs_should_yield).
 * Without this, a short stay of untagged work (a kernel thread that wakes,
 * such as rcu_sched, about 80 times a second) ended with the core taking
 * whichever cookie was the most deserving at that instant, often the one
 * the other core held: the two cores swapped cookies, and every task of
 * both migrated. Example: core 0 holds A, core 1 holds B, rcu_sched takes
 * core 0 for 30 us; B's vtime is 2 ms below A's. Core 0 goes back to A
 * (core_prev), not to B. Only which cookie is claimed changes.
 */
static u16 sticky_rival(s32 cpu, u16 rival, u64 *rvt)
{
	u32 core = core_of(cpu);
	u16 home[2] = { core_last[core], core_prev[core] };
	int i;

	for (i = 0; i < 2; i++) {
		u16 s = home[i];

		if (s == rival)
			return rival;
		if (s >= CS_NR_SLOTS || (mode == CS_MODE_FILL && s == 0) ||
		    *vtime_of(s) > *rvt + grace_ns || cs_nr_queued(s) <= 0 ||
		    !core_can_run(cpu, s))
			continue;
		*rvt = *vtime_of(s);
		return s;
	}
	return rival;
}

/* Change this CPU's claim; leaving a cookie frees its forced siblings. */
static void set_claim(s32 cpu, u16 slot)
{
	u16 old = core_set_next(cpu, slot);

	if (old != slot && old != CS_SLOT_NONE)
		kick_forced_siblings(cpu);
}

/* Preempt the siblings whose cookie conflicts with @slot (on this CPU). */
__attribute__((noinline)) int preempt_conflicts(s32 cpu, u32 slot)
{
	u64 w = core_read(cpu);
	int i, sib = sib_of(cpu), nr = nr_sibs(cpu);

	cs_for_each_sib(i) {
		s32 c = sib_cpu(cpu, i);

		if (i == sib || i >= nr || c < 0)
			continue;
		if (!cs_compat(cs_next(w, i), slot, mode) ||
		    !cs_compat(cs_cur(w, i), slot, mode)) {
			cs_kick(c, SCX_KICK_PREEMPT);
			cpu_stat(cpu)->kicks++;
		}
	}
	return 0;
}

/*
 * @cpu runs (or is about to run) @slot whether or not the core agreed: a
 * higher class took it, or the kernel dispatched a task by itself. Claim
 * @slot, so no sibling starts a conflict, and preempt the siblings that
 * already run one.
 */
static void impose(s32 cpu, u16 slot)
{
	set_claim(cpu, slot);
	preempt_conflicts(cpu, slot);
}

static void forced_idle_end(struct cs_cpu_stat *st)
{
	u64 start = st->fi_start, d;

	if (!start)
		return;
	st->fi_start = 0;
	d = bpf_ktime_get_ns() - start;
	st->forced_idle_ns += d;
	if (st->fi_slot < CS_NR_SLOTS)
		__sync_fetch_and_add(&slot_stat(st->fi_slot)->forced_idle_ns, d);
}

/* What try_run() found. */
enum run_result {
	RUN_OK, /* this CPU has work of the slot */
	RUN_BLOCKED, /* a sibling holds a conflicting cookie, or is in transit */
	RUN_NOT_HERE, /* none of the slot's queued tasks can run here now
			 (bound elsewhere, or taken by another CPU first) */
};

/*
 * Is @prev still of @slot? A re-queue refreshes its slot (ops.enqueue); a
 * re-tag without one is the tick's to find, as for any running task.
 */
static bool prev_still(struct task_struct *prev, u16 slot)
{
	struct task_ctx *tctx = task_ctx(prev);

	return tctx && tctx->slot == slot;
}

/*
 * Locality. A cookie's queue serves every CPU, so its head is often a task
 * that was queued on another CPU, and taking it migrates it: a cross-
 * runqueue move and a cold cache. With 4 threads of a cookie on a 2-thread
 * core, nearly every slice moved a task from one sibling to the other
 * (about 300 migrations a second in bench/throughput's cpu2, 3 under the
 * default scheduler). So a CPU takes a task already on its own runqueue
 * when one of the first CS_PEEK_TASKS queued is at most a slice behind the
 * head (the first of them that may run here) in vtime, and the head
 * otherwise (consume's choice): the order inside a cookie bends
 * by at most a slice, and the cookie's own vtime, which decides between
 * cookies, is charged the same. Example, a 5 ms slice: T1 and T3 of A were
 * queued on CPU 0, T2 and T4 on CPU 1; CPU 0's slice of T1 ends with T2
 * (vtime 10 ms) at the head, then T3 (12 ms): CPU 0 takes T3, and the two
 * pairs keep their CPUs, as per-CPU runqueues would. Only which task of
 * the claimed cookie runs changes; the claim comes first, as before.
 */
__attribute__((noinline)) int move_local_first(s32 cpu, u32 slot)
{
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	bool seen = false, moved = false;
	u64 head_vt = 0;
	int n = 0;

	if (!vtime_ordered(slot))
		return cs_move_to_local(dsq_of(slot));
	bpf_iter_scx_dsq_new(&it, dsq_of(slot), 0);
	while ((p = bpf_iter_scx_dsq_next(&it))) {
		if (++n > CS_PEEK_TASKS)
			break;
		if (!bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		if (!seen) {
			seen = true;
			head_vt = p->scx.dsq_vtime;
		}
		if (p->scx.dsq_vtime > head_vt + slice_ns)
			break;
		/*
		 * Not a task in migrate_disable(): some 6.12 kernels send it
		 * to the global DSQ from here; consume takes it correctly.
		 */
		if (scx_bpf_task_cpu(p) != cpu || p->migration_disabled)
			continue;
		/* On this runqueue: a local move, never a migration. */
		moved = cs_move_iterated(&it, p, SCX_DSQ_LOCAL);
		break;
	}
	bpf_iter_scx_dsq_destroy(&it);
	return moved || cs_move_to_local(dsq_of(slot));
}

/*
 * Claim @slot and move one of its tasks here (move_local_first), or keep
 * @prev if it is of @slot and nothing else of it waits.
 */
static enum run_result try_run(s32 cpu, u16 slot, struct task_struct *prev,
			       u16 prev_slot, u16 was)
{
	struct cs_cpu_stat *st = cpu_stat(cpu);
	int v = core_claim(cpu, slot);
	u32 core = core_of(cpu);

	/*
	 * A sibling in transit: its commit or unclaim kicks us (forced is
	 * set), so wait for it like for a stable conflict (lost CAS races:
	 * core_claim kicked us).
	 */
	if (v == CS_BLOCKED_TRANSIT)
		st->transit_retries++;
	if (v != CS_CLAIM_OK)
		return RUN_BLOCKED;

	if (!move_local_first(cpu, slot)) {
		/*
		 * Nothing of @slot can run here after all; nor prev if it was
		 * re-tagged while the move had dropped the rq lock (a re-queue
		 * from another CPU, see cs_running).
		 */
		if (!prev || prev_slot != slot || !prev_still(prev, slot)) {
			set_claim(cpu, CS_SLOT_NONE);
			return RUN_NOT_HERE;
		}
		prev->scx.slice = slice_ns; /* keep running prev */
	}
	st->forced = 0;
	/*
	 * Leaving a claim it was not running yet frees the siblings it
	 * blocked. Leaving the cookie it runs frees nobody yet: its cur still
	 * blocks them, and the commit of the switch kicks them (an IPI that
	 * used to wake them now only to find the transit, twice per handover).
	 */
	if (was != slot && was != CS_SLOT_NONE &&
	    was != cs_cur(core_read(cpu), sib_of(cpu)))
		kick_forced_siblings(cpu);
	if (core_last[core] != slot) {
		core_prev[core] = core_last[core];
		core_last[core] = slot;
		st->cookie_switches++;
	}
	return RUN_OK;
}

/*
 * Draining. Before it switches SMT off under the scheduler (fail-mode
 * closed: a stop, or a SIGKILL caught by the guard), the loader sets
 * drain_cpu[] of the siblings that will go offline. Switching a CPU off is
 * hotplug: once sched_ext sees its runqueue offline, the kernel re-queues
 * tasks there straight onto its local queue, and a tenant could run again
 * on it, unclaimed, beside another cookie until an IPI lands. A draining
 * CPU is given no work (scx_online() is false for it) and dispatches
 * nothing but kernel threads bound to it, which the hotplug itself needs
 * (cpuhp/N, its kworkers); its tick ends whatever else runs there. The
 * loader switches SMT off once every draining CPU is drained: idle, or
 * running such a kthread (drained[], set at each switch). Example, core
 * {2, 3}, CPU 3 running a tenant of cookie A while CPU 2 runs A too:
 *   drain_cpu[3] = 1       CPU 3's tick ends the tenant; dispatch finds
 *                          no kthread of CPU 3 queued: idle, drained[3]
 *   SMT off                CPU 3 goes down running only cpuhp/3 and its
 *                          stopper; no tenant was left on its runqueue
 */
static bool bound_kthread(struct task_struct *p, s32 cpu)
{
	return (p->flags & PF_KTHREAD) && p->nr_cpus_allowed == 1 &&
	       bpf_cpumask_test_cpu(cpu, p->cpus_ptr);
}

/* Claim @slot and move the first kthread of it bound to @cpu here. */
static bool drain_move(s32 cpu, u16 slot)
{
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	bool moved = false;

	bpf_iter_scx_dsq_new(&it, dsq_of(slot), 0);
	while ((p = bpf_iter_scx_dsq_next(&it))) {
		if (!bound_kthread(p, cpu))
			continue;
		/* A fenced CPU has no core word to claim in. */
		if (!fenced(cpu) && core_claim(cpu, slot) != CS_CLAIM_OK)
			break;
		moved = cs_move_iterated(&it, p, SCX_DSQ_LOCAL);
		break;
	}
	bpf_iter_scx_dsq_destroy(&it);
	return moved;
}

__attribute__((noinline)) int drain_dispatch(s32 cpu)
{
	struct cs_cpu_stat *st = cpu_stat(cpu);

	/* Flag first: a sibling leaving a cookie lets a blocked kthread run. */
	__sync_lock_test_and_set(&st->forced, 1);
	if (drain_move(cpu, trust_kthreads ? CS_SLOT_TRUST : 0)) {
		st->forced = 0;
		return 0;
	}
	set_claim(cpu, CS_SLOT_NONE);
	return 0;
}

void BPF_STRUCT_OPS(cs_dispatch, s32 cpu, struct task_struct *prev)
{
	struct cs_cpu_stat *st = cpu_stat(cpu);
	int sib = sib_of(cpu), nr = nr_sibs(cpu), i;
	u16 prev_slot = CS_SLOT_NONE, held, best, rival, due, was, cands[3];
	enum run_result r;
	u64 w, bvt, rvt;

	if (!first_dispatch_ns)
		__sync_val_compare_and_swap(&first_dispatch_ns, 0,
					    bpf_ktime_get_ns());
	if (draining(cpu)) {
		drain_dispatch(cpu);
		return;
	}
	/* Flag first, then look: a sibling leaving its cookie will see it. */
	__sync_lock_test_and_set(&st->forced, 1);

	if (prev && (prev->scx.flags & SCX_TASK_QUEUED)) {
		struct task_ctx *tctx = task_ctx(prev);

		/* A re-tagged prev must go back through enqueue. */
		if (tctx && (tctx->slot >= CS_NR_SLOTS ||
			     task_cookie(prev) == tctx->cookie))
			prev_slot = tctx->slot;
	}

	w = core_read(cpu);
	was = cs_next(w, sib);

	if (trust_kthreads && cs_nr_queued(DSQ_TRUST) > 0 &&
	    try_run(cpu, CS_SLOT_TRUST, NULL, CS_SLOT_NONE, was) == RUN_OK)
		return;

	held = cs_core_owner(w, sib, nr, mode);
	best = pick_best(&bvt);
	if (prev_slot < CS_NR_SLOTS &&
	    (best == CS_SLOT_NONE || *vtime_of(prev_slot) < bvt)) {
		best = prev_slot;
		bvt = *vtime_of(prev_slot);
	}
	if (best != CS_SLOT_NONE && bvt != ~0ULL && bvt > vnow)
		vnow = bvt;
	/* The core follows the most deserving cookie that can run on it. */
	best = best_for_core(cpu, best, prev_slot, &bvt, CS_SLOT_NONE);

	/*
	 * @rival: the cookie that should own the core (see best_tagged);
	 * @held comes from cs_core_owner(): in fill mode a sibling running
	 * untagged work holds nothing.
	 */
	rival = best;
	rvt = bvt;
	if (mode == CS_MODE_FILL && best == 0)
		rival = best_tagged(cpu, prev_slot, &rvt);
	due = rival; /* the most deserving, tried last if the sticky one fails */
	if (held == CS_SLOT_NONE && rival != CS_SLOT_NONE &&
	    mode != CS_MODE_NONE)
		rival = sticky_rival(cpu, rival, &rvt);
	cands[0] = held;
	if (held == CS_SLOT_NONE || held == CS_SLOT_TRUST) {
		cands[0] = rival;
	} else if (rival != CS_SLOT_NONE && cs_rivals(held, rival, mode) &&
		   cs_should_yield(slot_vt(held), rvt, grace_ns) &&
		   due_here(cpu, rival)) {
		/* The holder is past its share: make the core change hands. */
		preempt_conflicts(cpu, rival);
		cands[0] = CS_SLOT_NONE;
	}
	cands[1] = mode == CS_MODE_FILL ? 0 : CS_SLOT_NONE;
	/*
	 * Also after yielding: the claim of @rival then blocks (forced, so
	 * the holder leaving, or the switching sibling's commit, kicks us).
	 * Not trying it lost the wakeup when two siblings yielded to each
	 * other (test_model). After a sticky pick, the most deserving
	 * cookie: if the home cookie's last task went to another CPU
	 * meanwhile, this CPU must not idle while that one waits.
	 */
	cands[2] = cands[0] == rival ? due : rival;
	/* Fill mode: the untagged work first when it is the most deserving. */
	if (mode == CS_MODE_FILL && best == 0) {
		cands[1] = cands[0];
		cands[0] = 0;
	}

	for (i = 0; i < 3; i++) {
		u16 s = cands[i];

		if (s == CS_SLOT_NONE || (i && s == cands[0]) ||
		    (i == 2 && s == cands[1]))
			continue;
		r = try_run(cpu, s, prev, prev_slot, was);
		if (r == RUN_OK)
			return;
		/*
		 * @rival (or @best) may run on a sibling but not here: idle
		 * (the core follows it) and wake the idle siblings that can
		 * run it.
		 */
		if ((s == rival || s == best) && r == RUN_NOT_HERE)
			kick_idle_in(cpu, core_can_run(cpu, s));
	}

	/* Nothing compatible to run: release the claim and idle. */
	set_claim(cpu, CS_SLOT_NONE);
	if (best != CS_SLOT_NONE) {
		if (!st->fi_start) {
			st->fi_start = bpf_ktime_get_ns();
			st->fi_slot = held;
		}
	} else {
		st->forced = 0;
	}
}

/* sched_ext's flags of @cpu's runqueue (SCX_RQ_*). */
static u32 rq_scx_flags(s32 cpu)
{
	struct rq *rq = scx_bpf_cpu_rq(cpu);

	return rq ? BPF_CORE_READ(rq, scx.flags) : 0;
}

/* Does sched_ext see @cpu's runqueue online (does it call dispatch there)? */
static bool rq_online(s32 cpu)
{
	return rq_scx_flags(cpu) & SCX_RQ_ONLINE;
}

/* Is @cpu inside balance (its ops.dispatch may have dropped its rq lock)? */
static bool in_balance(s32 cpu)
{
	return rq_scx_flags(cpu) & SCX_RQ_IN_BALANCE;
}

/*
 * May work be sent to @cpu? Not if sched_ext does not treat it as online:
 * a CPU coming up is active, so the kernel lets tasks wake on it, before
 * its runqueue is online for sched_ext; meanwhile (and while one goes
 * down) it runs what is queued on it without calling dispatch, so without
 * a claim. Nor if it is draining (about to go down: Draining, above).
 */
static bool scx_online(s32 cpu)
{
	return rq_online(cpu) && !draining(cpu);
}

/* Score an idle CPU for a task of @slot: 0 means unusable. */
__attribute__((noinline)) int place_score(s32 cpu, u32 slot)
{
	u64 w = core_read(cpu);
	int sib = sib_of(cpu), nr = nr_sibs(cpu);
	u16 held = cs_core_slot(w, sib, nr);

	if (!scx_online(cpu))
		return 0;
	if (cs_claim_verdict(w, sib, nr, slot, mode) != CS_CLAIM_OK)
		return 0;
	if (held == slot)
		return 3;
	if (held == CS_SLOT_NONE)
		return 2;
	return 1;
}

/*
 * Word @k of cpumask @m: CPUs 64k to 64k+63. The mask's bits[] start the
 * struct on every kernel; its length (NR_CPUS) varies, so the word is
 * read, not indexed, and words past nr_cpus are never asked for.
 */
static u64 mask_word(const struct cpumask *m, u32 k)
{
	u64 w = 0;

	bpf_probe_read_kernel(&w, sizeof(w), (const u64 *)m + k);
	return w;
}

/* CPUs 64k to 64k+63 that exist (below nr_cpus), as a mask. */
static u64 cpus_in_word(u32 k)
{
	u32 n = nr_cpus - 64 * k;

	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

/* Is @cpu's bit set in @cands (a mask over CS_MAX_CPUS CPUs)? */
static bool cand_bit(const u64 *cands, u32 cpu)
{
	u32 k = cpu >> 6;

	/* Keep the mask: clang drops it where it knows cpu < 512, and the
	 * verifier does not always know that. */
	barrier_var(k);
	k &= CS_MAX_CPUS / 64 - 1;
	return cands[k] & (1ULL << (cpu & 63));
}

/*
 * Best CPU for a task of @slot among the idle CPUs @p may run on: its
 * cookie already on the core (score 3), then an idle core, then any
 * compatible one; @prev_cpu wins ties and is taken at once from score 2.
 * Returns -1 if none. The masks are read a word (64 CPUs) at a time; the
 * walk over the CPUs tests a bit each and scores only the set ones, and
 * stops at the first score 3. Global (verified once): @p is the kernel's
 * (__arg_trusted), so its cpus_ptr may be read.
 */
__attribute__((noinline)) s32 pick_cpu(struct task_struct *p __arg_trusted,
				       s32 prev_cpu, u32 slot)
{
	u64 cands[CS_MAX_CPUS / 64] = {};
	const struct cpumask *idle;
	int best_score = 0, k, i;
	s32 best = -1;

	idle = scx_bpf_get_idle_cpumask();
	bpf_for(k, 0, CS_MAX_CPUS / 64) {
		if ((u32)k * 64 >= nr_cpus)
			break;
		cands[k & (CS_MAX_CPUS / 64 - 1)] = mask_word(idle, k) &
						    mask_word(p->cpus_ptr, k) &
						    cpus_in_word(k);
	}
	scx_bpf_put_idle_cpumask(idle);

	if (prev_cpu >= 0 && prev_cpu < CS_MAX_CPUS &&
	    cand_bit(cands, prev_cpu)) {
		best_score = place_score(prev_cpu, slot);
		if (best_score)
			best = prev_cpu;
		if (best_score >= 2)
			return best;
	}
	bpf_for(i, 0, CS_MAX_CPUS) {
		int score;

		if ((u32)i >= nr_cpus)
			break;
		if (!cand_bit(cands, i) || i == prev_cpu)
			continue;
		score = place_score(i, slot);
		if (score > best_score) {
			best = i;
			best_score = score;
			if (score == 3)
				break;
		}
	}
	return best;
}

/* The lowest CPU @p may run on that is online for sched_ext, or @dflt. */
static s32 any_online_cpu(struct task_struct *p, s32 dflt)
{
	s32 i;

	bpf_for(i, 0, CS_MAX_CPUS) {
		if ((u32)i >= nr_cpus)
			break;
		if (bpf_cpumask_test_cpu(i, p->cpus_ptr) && scx_online(i))
			return i;
	}
	return dflt;
}

s32 BPF_STRUCT_OPS(cs_select_cpu, struct task_struct *p, s32 prev_cpu,
		   u64 wake_flags)
{
	struct task_ctx *tctx = task_ctx(p);
	s32 cpu;

	u16 slot;

	if (!tctx)
		return prev_cpu;
	slot = refresh(p, tctx);
	/*
	 * A synchronous wakeup (the waker is about to sleep, as in a pipe
	 * ping-pong) from a CPU that holds the wakee's cookie: stay here and
	 * spare an idle sibling the IPI.
	 */
	cpu = bpf_get_smp_processor_id();
	if ((wake_flags & SCX_WAKE_SYNC) && cpu < CS_MAX_CPUS &&
	    bpf_cpumask_test_cpu(cpu, p->cpus_ptr) &&
	    cs_next(core_read(cpu), sib_of(cpu)) == slot && scx_online(cpu))
		return cpu;
	cpu = pick_cpu(p, prev_cpu, slot);
	if (cpu >= 0 && scx_bpf_test_and_clear_cpu_idle(cpu))
		return cpu;
	if (scx_online(prev_cpu))
		return prev_cpu;
	/* Not onto a CPU that is coming up or going down (scx_online). */
	return any_online_cpu(p, prev_cpu);
}

void BPF_STRUCT_OPS(cs_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct cs_cpu_stat *here = cpu_stat(bpf_get_smp_processor_id());
	struct task_ctx *tctx = task_ctx(p);
	u16 slot = CS_SLOT_EXCL;
	bool fresh, lowered = false;
	u64 vt;
	s32 cpu;

	if (tctx) {
		/*
		 * Right after ops.runnable (a wakeup or a re-queue's restore:
		 * the same enqueue_task_scx() call on this CPU, under the same
		 * rq lock, nothing in between) its refresh stands; a re-queue
		 * (slice expiry, cpu_release), or a runnable without its
		 * enqueue (a local insert, then a hotplug migration), resolves
		 * the cookie again.
		 */
		fresh = tctx->fresh && tctx->slot != CS_SLOT_NONE &&
			here->fresh_pid == (u32)p->pid;
		slot = fresh ? tctx->slot : refresh(p, tctx);
		tctx->fresh = 0;
		tctx->enq_at = bpf_ktime_get_ns();
	}
	if (slot == CS_SLOT_TRUST) {
		if (tctx)
			queued_leave(tctx);
		cs_insert(p, DSQ_TRUST, slice_ns, enq_flags);
	} else {
		/*
		 * The overflow queue too: without its clock, a task of it
		 * that slept came back far ahead of the others there, and
		 * waited for ever behind one that woke in time for each of
		 * the queue's rare turns (0 busy periods in 500 s at 4,097
		 * cookies).
		 */
		vt = cs_clamp_vtime(p->scx.dsq_vtime, *tvnow_of(slot),
				    slice_ns);
		/*
		 * A cookie back from idle: credit for what it waited only,
		 * debt capped. A tagged slot by its count; if its vtime was
		 * lowered, its queue bound is lowered with it, even if
		 * another task of it was counted queued meanwhile.
		 */
		if (cs_tagged(slot) ? slot_qcnt[CS_SLOT_IDX(slot)] <= 0 :
				      cs_nr_queued(dsq_of(slot)) <= 0)
			lowered = vtime_place(slot);
		p->scx.dsq_vtime = vt;
		if (tctx && tctx->qslot != slot) {
			queued_leave(tctx);
			if (cs_tagged(slot))
				queued_enter(tctx, slot, lowered);
		} else if (lowered && cs_tagged(slot)) {
			queued_mark(slot, true);
		}
		cs_insert_vtime(p, dsq_of(slot), slice_ns, vt, enq_flags);
	}

	/* Wakeups were placed by select_cpu; others need a CPU woken. */
	if (enq_flags & SCX_ENQ_WAKEUP)
		return;
	cpu = pick_cpu(p, scx_bpf_task_cpu(p), slot);
	if (cpu >= 0 && scx_bpf_test_and_clear_cpu_idle(cpu))
		cs_kick(cpu, SCX_KICK_IDLE);
}

/* Charge @p's run since its last charge to itself and its cookie. */
static void charge(struct task_struct *p, struct task_ctx *tctx, s32 cpu)
{
	struct cs_cpu_stat *st = cpu_stat(cpu);
	u64 now = bpf_ktime_get_ns(), delta;
	u16 s = tctx->slot;

	delta = now - tctx->last_charge;
	if (!tctx->last_charge || delta > 10ULL * 1000 * 1000 * 1000)
		delta = 0;
	tctx->last_charge = now;
	if (p->scx.weight)
		p->scx.dsq_vtime += delta * 100 / p->scx.weight;
	st->busy_ns += delta;
	if (s == CS_SLOT_EXCL) /* alone on its core: charged for all of it */
		__sync_fetch_and_add(&excl_vt,
				     cs_core_charge(delta, nr_sibs(cpu), 1));
	if (s >= CS_NR_SLOTS)
		return;
	if (st->pend_slot != s || st->pend_cookie != slot_stat(s)->cookie) {
		charge_flush(cpu);
		st->pend_slot = s;
		st->pend_cookie = slot_stat(s)->cookie;
	}
	st->pend_core_ns +=
		cs_core_charge(delta, nr_sibs(cpu),
			       cs_nr_running(core_read(cpu), nr_sibs(cpu), s));
	st->pend_run_ns += delta;
}

void BPF_STRUCT_OPS(cs_running, struct task_struct *p)
{
	/*
	 * The task's CPU, not ours: a nice, affinity or cgroup change made on
	 * another CPU re-queues a running task and calls this from there.
	 */
	s32 cpu = scx_bpf_task_cpu(p);
	struct cs_cpu_stat *st = cpu_stat(cpu);
	struct task_ctx *tctx = task_ctx(p);
	u64 now = bpf_ktime_get_ns();
	u16 slot;

	forced_idle_end(st);
	if (!tctx)
		return;
	tctx->fresh = 0; /* ops.enqueue was skipped (a direct local insert) */
	slot = tctx->slot;
	tctx->last_charge = now;
	if (tctx->enq_at) {
		u64 wait = now - tctx->enq_at;

		if (wait > st->max_wait_ns)
			st->max_wait_ns = wait;
		tctx->enq_at = 0;
	}
	if (vtime_ordered(slot)) {
		if (p->scx.dsq_vtime > *tvnow_of(slot))
			*tvnow_of(slot) = p->scx.dsq_vtime;
		*vseen_of(slot) = vnow;
	}
	queued_leave(tctx);
	/*
	 * The prev of a dispatch in progress on its CPU, re-queued by a nice,
	 * affinity or cgroup change made from another CPU while that dispatch
	 * had dropped the rq lock (to pull a task from another CPU): it is not
	 * executing, and the switch that follows commits what does. Keep the
	 * dispatch's claim and cur; let the task leave through ops.enqueue
	 * rather than from the head of the local queue with its old slice.
	 */
	if (in_balance(cpu)) {
		p->scx.slice = 0;
		return;
	}
	/*
	 * The kernel itself dispatched this task (load transition, or a CPU
	 * in hotplug transition running its per-CPU kthreads), or a running
	 * task was re-queued with a new cookie (below): record it and make
	 * conflicting siblings reschedule at once.
	 */
	if (cs_next(core_read(cpu), sib_of(cpu)) != slot) {
		st->unclaimed_runs++;
		impose(cpu, slot);
	}
	/*
	 * Already its CPU's current task, and executing (not in balance,
	 * above): no context switch follows (a running task re-queued by a
	 * nice, affinity or cgroup change, possibly from another CPU), so the
	 * commit hook will not see it. Commit here: the task runs @slot from
	 * now on. On a normal pick, rq->curr is still the previous task and
	 * the commit waits for the switch.
	 */
	if (!scx_bpf_task_running(p))
		return;
	commit_cur(cpu, slot);
	/*
	 * Its new cookie conflicts with what a sibling runs (impose kicked
	 * that sibling, an IPI away; a cgroup move of a running shell into a
	 * tagged cgroup, seen as a 1.1 ms overlap by the bench's observer).
	 * Leave the CPU too: the task comes back through dispatch, whose
	 * claim waits for the sibling to leave, as tick does for a conflict
	 * next door. A cgroup move reschedules the task at once (and a move
	 * of itself, at its return); a change made from another CPU takes
	 * this kick (a reschedule: the slice is already 0).
	 */
	if (cs_claim_verdict(core_read(cpu), sib_of(cpu), nr_sibs(cpu), slot,
			     mode) != CS_CLAIM_OK) {
		p->scx.slice = 0;
		cs_kick(cpu, 0);
	}
}

void BPF_STRUCT_OPS(cs_stopping, struct task_struct *p, bool runnable)
{
	struct task_ctx *tctx = task_ctx(p);
	u16 s;

	if (!tctx)
		return;
	charge(p, tctx, scx_bpf_task_cpu(p));
	/*
	 * The clock at the end of its run, too: what it moved while the
	 * cookie ran (a prev kept on, with no new ops.running) is no credit.
	 */
	s = tctx->slot;
	if (vtime_ordered(s))
		*vseen_of(s) = vnow;
}

void BPF_STRUCT_OPS(cs_tick, struct task_struct *p)
{
	s32 cpu = bpf_get_smp_processor_id();
	struct task_ctx *tctx = task_ctx(p);
	u64 w, bvt;
	u16 best, but;

	if (!tctx)
		return;
	charge(p, tctx, cpu);
	charge_flush(cpu);
	if (draining(cpu) && !bound_kthread(p, cpu)) {
		p->scx.slice = 0;
		return;
	}
	/*
	 * Unfenced while it ran (core_state.bpf.h): the word does not show
	 * it yet. Commit it and preempt the siblings in conflict.
	 */
	if (!fenced(cpu) &&
	    cs_cur(core_read(cpu), sib_of(cpu)) == CS_SLOT_NONE) {
		u16 s = tctx->slot != CS_SLOT_NONE ? tctx->slot : CS_SLOT_EXCL;

		commit_cur(cpu, s);
		impose(cpu, s);
	}
	/* Re-tagged: go back through enqueue to pick up the new cookie. */
	if (tctx->slot < CS_NR_SLOTS && task_cookie(p) != tctx->cookie) {
		p->scx.slice = 0;
		return;
	}
	/* A higher class may have started an incompatible task next door. */
	w = core_read(cpu);
	if (cs_claim_verdict(w, sib_of(cpu), nr_sibs(cpu), tctx->slot, mode) !=
	    CS_CLAIM_OK) {
		p->scx.slice = 0;
		return;
	}
	/* Past its share while another cookie waits: let dispatch hand over. */
	but = mode == CS_MODE_FILL ? 0 : CS_SLOT_NONE; /* it owns no core */
	best = pick_best_but(&bvt, but, CS_SLOT_NONE, CS_SLOT_NONE);
	if (best == CS_SLOT_NONE || !cs_rivals(tctx->slot, best, mode) ||
	    !cs_should_yield(slot_vt(tctx->slot), bvt, grace_ns))
		return;
	/* Only to a cookie that can run on this core (affinity). */
	best = best_for_core(cpu, best, tctx->slot, &bvt, but);
	if (best != CS_SLOT_NONE && cs_rivals(tctx->slot, best, mode) &&
	    cs_should_yield(slot_vt(tctx->slot), bvt, grace_ns) &&
	    due_here(cpu, best))
		p->scx.slice = 0;
}

void BPF_STRUCT_OPS(cs_runnable, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx = task_ctx(p);

	if (tctx) {
		weight_move(p, tctx, refresh(p, tctx));
		/*
		 * Not on a runqueue sched_ext sees offline: the task is put on
		 * its local queue with no ops.enqueue, and may reach one later
		 * by a hotplug migration.
		 */
		tctx->fresh = rq_online(scx_bpf_task_cpu(p));
		cpu_stat(bpf_get_smp_processor_id())->fresh_pid = (u32)p->pid;
	}
}

void BPF_STRUCT_OPS(cs_quiescent, struct task_struct *p, u64 deq_flags)
{
	struct task_ctx *tctx = task_ctx(p);

	if (tctx) {
		weight_move(p, tctx, CS_SLOT_NONE);
		queued_leave(tctx);
		tctx->fresh = 0;
	}
}

void BPF_STRUCT_OPS(cs_set_weight, struct task_struct *p, u32 weight)
{
	struct task_ctx *tctx = task_ctx(p);

	if (tctx && tctx->wslot != CS_SLOT_NONE)
		weight_move(p, tctx, tctx->wslot);
}

void BPF_STRUCT_OPS(cs_update_idle, s32 cpu, bool idle)
{
	/*
	 * Going idle (under its rq lock, after the last task's ops.stopping):
	 * no tick will flush its pending charges while it idles.
	 */
	if (idle)
		charge_flush(cpu);
	else
		forced_idle_end(cpu_stat(cpu));
}

void BPF_STRUCT_OPS(cs_cpu_release, s32 cpu, struct scx_cpu_release_args *args)
{
	u16 slot = foreign_slot(args->task);

	/* A higher class runs next: no tick or idle of ours flushes. */
	charge_flush(cpu);
	/* cur still names what runs here until the switch commits. */
	impose(cpu, slot);
	scx_bpf_reenqueue_local();
	/*
	 * A forced-idle sibling may run what was just re-queued (it may share
	 * the intruder's cookie), and no enqueue kick reaches a sibling that
	 * was still in dispatch: let it look again (test_model found this).
	 */
	kick_forced_siblings(cpu);
}

/*
 * A task that could not inherit its parent's cookie at fork while no
 * scheduler ran (no BPF LSM; tagging.bpf.c, task_newtask) gets it now,
 * before it runs under us; failing fails the scheduler's load, loudly.
 */
static s32 adopt_orphan(struct task_struct *p)
{
	struct cs_orphan *o;
	struct cs_tag *tag;
	u64 cookie;

	if (!fork_trouble())
		return 0;
	o = orphan_of(p);
	if (!o)
		return 0;
	cookie = o->cookie;
	tag = bpf_task_storage_get(&cs_task_cookie, p, NULL,
				   BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!tag) {
		cs_error("cannot give task %d its parent's cookie %llx (task storage)",
			 p->pid, cookie);
		return -ENOMEM;
	}
	if (!tag->cookie)
		set_own_cookie(p, tag, cookie);
	return 0;
}

s32 BPF_STRUCT_OPS(cs_init_task, struct task_struct *p,
		   struct scx_init_task_args *args)
{
	struct task_ctx *tctx;

	tctx = bpf_task_storage_get(&task_ctxs, p, NULL,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!tctx)
		return -ENOMEM;
	tctx->slot = CS_SLOT_NONE;
	tctx->wslot = CS_SLOT_NONE;
	tctx->qslot = CS_SLOT_NONE;
	/*
	 * A child gets its parent's cookie here too, inside copy_process(),
	 * where a failure fails the fork: what the task_alloc LSM hook does
	 * where BPF LSM runs, and the fail-closed path where it does not.
	 */
	if (args->fork)
		return inherit_cookie(bpf_get_current_task_btf(), p);
	return adopt_orphan(p);
}

/*
 * The orphan record of a task that exits. Only then: exit_task also runs
 * for every live task when the scheduler is disabled, and the record (or
 * a cs_fork_lost mark, which only a new owner of the tid drops) is what
 * keeps its cookie until the next scheduler.
 */
static void forget_orphan(struct task_struct *p)
{
	u32 tid = p->pid;

	if (fork_trouble() && (p->flags & PF_EXITING) && orphan_of(p))
		bpf_map_delete_elem(&cs_fork_orphan, &tid);
}

void BPF_STRUCT_OPS(cs_exit_task, struct task_struct *p,
		    struct scx_exit_task_args *args)
{
	struct task_ctx *tctx = task_ctx(p);

	if (tctx) {
		if (tctx->wslot != CS_SLOT_NONE)
			weight_move(p, tctx, CS_SLOT_NONE);
		queued_leave(tctx);
		slot_release(tctx->slot);
		tctx->slot = CS_SLOT_NONE;
	}
	/* The per-task cookie lives in task storage and dies with the task. */
	forget_orphan(p);
}

s32 BPF_STRUCT_OPS(cs_cgroup_init, struct cgroup *cgrp,
		   struct scx_cgroup_init_args *args)
{
	u64 id = cgrp->kn->id;
	u32 weight = args->weight;

	bpf_map_update_elem(&cgrp_weight, &id, &weight, BPF_ANY);
	return 0;
}

void BPF_STRUCT_OPS(cs_cgroup_exit, struct cgroup *cgrp)
{
	u64 id = cgrp->kn->id;

	/*
	 * Only the weight: unloading calls this for every cgroup, and a
	 * cgroup's tag goes when the cgroup is removed (tagging.bpf.c).
	 */
	bpf_map_delete_elem(&cgrp_weight, &id);
}

void BPF_STRUCT_OPS(cs_cgroup_set_weight, struct cgroup *cgrp, u32 weight)
{
	u64 id = cgrp->kn->id;

	bpf_map_update_elem(&cgrp_weight, &id, &weight, BPF_ANY);
}

void BPF_STRUCT_OPS(cs_cgroup_move, struct task_struct *p,
		    struct cgroup *from, struct cgroup *to)
{
	/*
	 * Nothing to do: the kernel re-enqueues a moved task (refresh()
	 * resolves its new cookie) and reschedules it if it is running.
	 */
}

/*
 * Hotplug. A CPU going down may still run tasks for a while: keep its cur
 * and only drop its claim, so siblings wait for the real switch; commit()
 * releases claims that runs there make meanwhile, and cs_cpu_dead clears
 * its state once it is dead. Without these two callbacks sched_ext would
 * restart the scheduler on every hotplug event.
 */
void BPF_STRUCT_OPS(cs_cpu_offline, s32 cpu)
{
	set_claim(cpu, CS_SLOT_NONE);
}

/*
 * A CPU that was offline at load: ask the loader for its siblings (it
 * stays fenced until they are written). The count tells the loader that
 * it has asks to serve even if the ring buffer was full.
 */
void BPF_STRUCT_OPS(cs_cpu_online, s32 cpu)
{
	if (!fenced(cpu))
		return;
	__sync_fetch_and_add(&topo_asks, 1);
	bpf_ringbuf_output(&online_rb, &cpu, sizeof(cpu), BPF_RB_FORCE_WAKEUP);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(cs_init)
{
	u32 i;
	s32 ret;

	for (i = 0; i < CS_MAX_CPUS; i++)
		core_state[i].word = CS_WORD_IDLE;
	slot_table_init();
	cs_low_bit_table(low_bit_tbl);
	set_live(0, true);
	bpf_for(i, 0, CS_NR_SLOTS) {
		ret = cs_create_dsq(i);
		if (ret)
			return ret;
	}
	ret = cs_create_dsq(DSQ_TRUST);
	return ret ? ret : cs_create_dsq(DSQ_EXCL);
}

void BPF_STRUCT_OPS(cs_exit, struct scx_exit_info *ei)
{
	exit_info.exit_code = ei->exit_code;
	bpf_probe_read_kernel_str(exit_info.reason, sizeof(exit_info.reason),
				  ei->reason);
	bpf_probe_read_kernel_str(exit_info.msg, sizeof(exit_info.msg),
				  ei->msg);
	if (ei->dump)
		bpf_probe_read_kernel_str(exit_info.dump,
					  sizeof(exit_info.dump), ei->dump);
	exit_info.kind = ei->kind;
	bpf_ringbuf_output(&exit_rb, &exit_info.kind, sizeof(exit_info.kind),
			   BPF_RB_FORCE_WAKEUP);
}

/*
 * Another class's task of @slot starts on @cpu (commit). If the CPU holds
 * a claim for one of our tasks and was idle (@w_before: the word before
 * the intruder's commit), keep it: ops.dispatch moved that task to
 * the local DSQ just before the intruder won the pick, and from an idle
 * CPU no ops.cpu_release re-queues it, so it runs right after the
 * intruder. Had the claim gone, a sibling could start a conflicting
 * cookie meanwhile and that task would run beside it until a kick landed
 * (a 0.2-0.3 ms window seen twice in TCG guests). cur (the intruder) and
 * next (the claim) both block the siblings now; the next dispatch here
 * replaces the claim if the task went elsewhere. With no claim, claim the
 * intruder's cookie.
 */
static void intruder(s32 cpu, u16 slot, u64 w_before)
{
	u16 claim = cs_next(w_before, sib_of(cpu));

	/*
	 * Only from idle (cur was NONE): a claim beside another running task
	 * (an RT task before this one) is that task's, and would stay stale.
	 */
	if (claim == CS_SLOT_NONE || claim == slot ||
	    cs_cur(w_before, sib_of(cpu)) != CS_SLOT_NONE)
		impose(cpu, slot);
	else
		preempt_conflicts(cpu, slot);
}

/* Commit: at a context switch, record what this CPU now runs. */
static void commit(struct task_struct *p)
{
	s32 cpu = bpf_get_smp_processor_id();
	struct task_ctx *tctx;
	u16 slot;

	if (draining(cpu))
		drained[cpu & (CS_MAX_CPUS - 1)] =
			(p->flags & PF_IDLE) || bound_kthread(p, cpu);
	if (p->flags & PF_IDLE) {
		commit_cur(cpu, CS_SLOT_NONE);
		/*
		 * A CPU whose runqueue sched_ext does not see online (hotplug)
		 * runs what the kernel queues there without dispatch, and
		 * ops.running claims it (impose). No dispatch will release that
		 * claim: release it here, or its siblings stay blocked (or
		 * retry in transit) until the CPU is back.
		 */
		if (!rq_online(cpu)) {
			core_set_next(cpu, CS_SLOT_NONE);
			kick_forced_siblings(cpu);
		}
		return;
	}
	if ((const void *)p->sched_class != &ext_sched_class) {
		/*
		 * Another class's task (RT, DL, stop) starts here, whatever ran
		 * before: claim its cookie and preempt the siblings that run a
		 * conflicting one. They stop within an IPI, as upstream's.
		 */
		u64 w_before = core_read(cpu);

		slot = foreign_slot(p);
		commit_cur(cpu, slot);
		intruder(cpu, slot, w_before);
		return;
	}
	tctx = task_ctx(p);
	slot = tctx && tctx->slot != CS_SLOT_NONE ? tctx->slot : CS_SLOT_EXCL;
	/*
	 * Leaving another cookie, possibly without a dispatch (our task was
	 * queued here before an intruder ran, see intruder()): the siblings
	 * it forced idle may run now (commit_cur kicks them).
	 */
	commit_cur(cpu, slot);
}

/*
 * Commit at the sched_switch tracepoint: the CPU is inside __schedule(),
 * past the point of no return, and the previous task's code no longer
 * runs. Tracepoint probes run in attach order, so an observer attached
 * before the scheduler sees every commit after its own record.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(cs_commit, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	commit(next);
	return 0;
}

/*
 * A CPU going down switches to idle after it is marked offline, where
 * tracepoints (the commit hook) no longer fire: its state would keep the
 * stopper it ran last (migration/N, cookie 0) and block its siblings from
 * every other cookie for as long as it stays offline. takedown_cpu()
 * returns on the CPU that took it down, once it is dead: then nothing runs
 * there any more. Loaded only if the kernel's BTF has takedown_cpu().
 */
SEC("fexit/takedown_cpu")
int BPF_PROG(cs_cpu_dead, unsigned int cpu, int ret)
{
	if (ret)
		return 0;
	core_set_next(cpu, CS_SLOT_NONE);
	core_set_cur(cpu, CS_SLOT_NONE);
	cpu_stat(cpu)->forced = 0; /* nothing waits there any more */
	kick_forced_siblings(cpu);
	return 0;
}

SEC(".struct_ops.link")
struct sched_ext_ops coresched_ops = {
	.select_cpu = (void *)cs_select_cpu,
	.enqueue = (void *)cs_enqueue,
	.dispatch = (void *)cs_dispatch,
	.tick = (void *)cs_tick,
	.runnable = (void *)cs_runnable,
	.running = (void *)cs_running,
	.stopping = (void *)cs_stopping,
	.quiescent = (void *)cs_quiescent,
	.set_weight = (void *)cs_set_weight,
	.update_idle = (void *)cs_update_idle,
	.cpu_release = (void *)cs_cpu_release,
	.init_task = (void *)cs_init_task,
	.exit_task = (void *)cs_exit_task,
	.cgroup_init = (void *)cs_cgroup_init,
	.cgroup_exit = (void *)cs_cgroup_exit,
	.cgroup_set_weight = (void *)cs_cgroup_set_weight,
	.cgroup_move = (void *)cs_cgroup_move,
	.cpu_online = (void *)cs_cpu_online,
	.cpu_offline = (void *)cs_cpu_offline,
	.init = (void *)cs_init,
	.exit = (void *)cs_exit,
	.exit_dump_len = CS_EXIT_DUMP_LEN,
	.flags = SCX_OPS_ENQ_LAST | SCX_OPS_ENQ_EXITING |
		 SCX_OPS_KEEP_BUILTIN_IDLE | SCX_OPS_HAS_CGROUP_WEIGHT,
	.name = CS_OPS_NAME,
};
