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
 *    ordered DSQ with the slot's number, or with more than one last-level
 *    cache one per LLC (cs_llc_queues in include/cs_policy.h, the rules in
 *    claim.bpf.h; the first has the slot's number). Tasks are only ever
 *    inserted into these DSQs, never into a local or the global DSQ, so
 *    the only way a task reaches a CPU is ops.dispatch() moving it there,
 *    which is where the core-wide decision is made.
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
 *    cookie is ahead of a waiting one by more than the grace (four
 *    graces if both are tagged and the waiting one owns as many cores:
 *    cs_yield_grace), the next tick or full dispatch (not one that keeps
 *    a synchronous wakee's claim: cs_sync_keep) hands the core over (on
 *    a core where that cookie is due: due_here): the holders are kicked,
 *    and the last one out claims the new cookie.
 *    Inside a cookie, tasks are ordered by their own weighted vtime (a
 *    running task's slice is renewed while no task of its cookie waits a
 *    slice behind it and no other cookie is due: slice_renew). Idle
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
 *    one of ours), the commit hook records its cookie as that CPU's cur
 *    and claim (the claim stays a task's of ours that waits to run there
 *    right after it: intrude() in claim.bpf.h), so no sibling starts a
 *    conflicting one, and kicks the siblings that run one: they stop
 *    within an IPI, as with upstream. That window,
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
 *
 * Files: this one has the sched_ext callbacks that queue, dispatch and
 * account; the rest is included once, here, in the order each needs:
 *   slots.bpf.h      cookie slots: vtimes, weights, queued counts, charges
 *   guard.bpf.h      bounded waits for untagged work (and its bound tasks)
 *   claim.bpf.h      claiming a cookie in the core word, moving a task in
 *   pick.bpf.h       the most deserving cookie for a core (1., 3.), and
 *                    whether a running task's slice is renewed
 *   place.bpf.h      where a waking task goes (4.), which CPUs get work
 *   lifecycle.bpf.h  tasks, cgroups and CPUs entering and leaving
 *   commit.bpf.h     the commit at each context switch (2., 5.)
 *   prof.bpf.h       section probes, compiled in only by make prof
 *   core_state.bpf.h the per-core word; tags.bpf.h, cookie.bpf.h cookies
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
 * Renewal (slice_renew): the most a slice may have left to be renewed
 * (cs_renew_below) and the renewed slice (cs_renew_slice), from the
 * loader, which knows the kernel's tick.
 */
const volatile u64 renew_below_ns = 5ULL * 1000 * 1000 / 2;
const volatile u64 renew_slice_ns = 5ULL * 1000 * 1000;
/* The kernel's tick, from the loader (0: unknown): stalls, cs_stall_lost. */
const volatile u64 tick_ns;

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

static struct cs_cpu_stat *cpu_stat(s32 cpu)
{
	return &cpu_stats[(u32)cpu & (CS_MAX_CPUS - 1)];
}

#include "prof.bpf.h"
#include "slots.bpf.h"
#include "guard.bpf.h"

u16 core_last[CS_MAX_CPUS]; /* last slot claimed on each core */
u16 core_prev[CS_MAX_CPUS]; /* the slot claimed there before core_last */
/* The last tagged slot claimed on each core (CS_SLOT_NONE at first). */
u32 core_owner[CS_MAX_CPUS];
/* Per tagged slot, the cores whose core_owner it is (cs_yield_grace). */
s32 slot_cores[CS_SLOT_TBL];
/* Per tagged slot, 1 + the core that last took one of its tasks, or 0. */
u16 slot_core[CS_SLOT_TBL];
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

/* Untyped: 6.12's BTF has no global variables. */
extern const void ext_sched_class __ksym;
extern const void stop_sched_class __ksym;
u32 scx_bpf_reenqueue_local(void) __ksym;

/* Draining before SMT goes off, or fenced: only its own kthreads run. */
static bool draining(s32 cpu)
{
	return drain_cpu[(u32)cpu & (CS_MAX_CPUS - 1)] || fenced(cpu);
}

#include "claim.bpf.h"
#include "pick.bpf.h"

void BPF_STRUCT_OPS(cs_dispatch, s32 cpu, struct task_struct *prev)
{
	struct cs_cpu_stat *st = cpu_stat(cpu);
	int sib = sib_of(cpu), nr = nr_sibs(cpu), i;
	u16 prev_slot = CS_SLOT_NONE, held, best, rival, due, was, cands[3];
	u32 pins, hint = st->sync_hint;
	bool prev_queued = prev && (prev->scx.flags & SCX_TASK_QUEUED);
	enum run_result r;
	u64 w, bvt, rvt;

	PROF_START();
	st->sync_hint = 0; /* one dispatch per wakeup placed here */
	if (!first_dispatch_ns)
		__sync_val_compare_and_swap(&first_dispatch_ns, 0,
					    bpf_ktime_get_ns());
	if (draining(cpu)) {
		drain_dispatch(cpu);
		return;
	}
	task_rescue(cpu); /* a task its tick found overdue (guard.bpf.h) */
	/* Flag first, then look: a sibling leaving its cookie will see it. */
	__sync_lock_test_and_set(&st->forced, 1);

	if (prev_queued) {
		struct task_ctx *tctx = task_ctx(prev);

		/* A re-tagged prev must go back through enqueue. */
		if (tctx && (tctx->slot >= CS_NR_SLOTS ||
			     task_cookie(prev) == tctx->cookie))
			prev_slot = tctx->slot;
	}

	w = core_read(cpu);
	was = cs_next(w, sib);
	PROF_MARK(CS_PROF_DISP_START);

	if (trust_kthreads && cs_nr_queued(DSQ_TRUST) > 0 &&
	    try_run(cpu, CS_SLOT_TRUST, NULL, CS_SLOT_NONE, was) == RUN_OK)
		return;
	/*
	 * The core owes a bound untagged task its turn (guard.bpf.h): the
	 * untagged cookie or nothing, on the CPU it needs and (strict mode)
	 * next to it; its CPU moves it first (move_local_first).
	 */
	pins = pin_due(cpu, bpf_ktime_get_ns());
	if (pins && ((pins & (1U << sib)) || mode == CS_MODE_STRICT)) {
		r = try_run(cpu, 0, prev, prev_slot, was);
		if (r == RUN_OK)
			return;
		kick_idle_in(cpu, pins);
		set_claim(cpu, CS_SLOT_NONE);
		return;
	}
	PROF_SKIP(); /* a try_run() has sections of its own */
	/*
	 * A synchronous wakeup of the cookie this CPU claims was placed here
	 * since the last dispatch, and the previous task left (as a pipe's
	 * writer blocks in its read): the cookie keeps this CPU without the
	 * pick (cs_sync_keep), until the next tick asks for one. Anything
	 * else, or a claim that fails, takes the full path below, the word
	 * read anew.
	 */
	if (cs_sync_keep(hint, was, prev, prev_queued, st->disp_owed, mode)) {
		if (try_run(cpu, was, prev, prev_slot, was) == RUN_OK) {
			st->sync_keeps++;
			return;
		}
		w = core_read(cpu);
		was = cs_next(w, sib);
	}
	st->disp_owed = 0;

	held = cs_core_owner(w, sib, nr, mode);
	best = pick_best(&bvt);
	if (prev_slot < CS_NR_SLOTS &&
	    (best == CS_SLOT_NONE || *vtime_of(prev_slot) < bvt)) {
		best = prev_slot;
		bvt = *vtime_of(prev_slot);
	}
	if (best != CS_SLOT_NONE && bvt != ~0ULL && bvt > vnow)
		vnow = bvt;
	PROF_MARK(CS_PROF_DISP_PICK);
	/* The core follows the most deserving cookie that can run on it. */
	best = best_for_core(cpu, best, prev_slot, &bvt, CS_SLOT_NONE);
	PROF_MARK(CS_PROF_DISP_AFFINITY);

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
	PROF_MARK(CS_PROF_DISP_RIVAL);
	cands[0] = held;
	if (held == CS_SLOT_NONE || held == CS_SLOT_TRUST) {
		cands[0] = rival;
	} else if (yields_to(held, rival, rvt) && due_here(cpu, rival)) {
		/* The holder is past its share: make the core change hands. */
		preempt_conflicts(cpu, rival);
		cands[0] = CS_SLOT_NONE;
	}
	PROF_MARK(CS_PROF_DISP_YIELD);
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

	/*
	 * Nothing else ran here: untagged work, if some waits, before this
	 * core idles with no tick to look again. A task bound to this CPU
	 * (passed over because the first tasks of its queue are bound
	 * elsewhere); in none mode, any: the cookies tried may have had
	 * nothing this CPU could run (their tasks taken by other CPUs,
	 * still counted queued until they run), and an untagged task on
	 * this CPU's runqueue then waited for whatever woke the CPU next
	 * (18 ms on average, 10-16 % of all CPU time on bench's pipe row,
	 * 2x2). Not in strict mode: after a yield of the untagged cookie
	 * (cands[0] is then none), this claim would take the core back from
	 * the cookie it was handed to, and two siblings would undo each
	 * other's handovers at IPI rate. (Fill mode always tries it.)
	 */
	if ((pin_of(cpu)->nr > 0 || (mode == CS_MODE_NONE && cands[0] != 0 &&
				     cands[2] != 0 && slot_waits(0))) &&
	    try_run(cpu, 0, prev, prev_slot, was) == RUN_OK)
		return;
	PROF_SKIP(); /* the tries and their kicks are not timed */
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
	PROF_MARK(CS_PROF_DISP_IDLE);
}

#include "place.bpf.h"

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
		/* Counted anew (a migration skips quiescent), then uncounted. */
		pin_requeue(p, tctx, slot, tctx->enq_at);
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
				      !slot_waits(slot)) {
			lowered = vtime_place(slot);
			if (slot == 0)
				untagged_seen(tctx ? tctx->enq_at :
						     bpf_ktime_get_ns());
			else if (slot == CS_SLOT_EXCL)
				cookie_seen(slot, tctx ? tctx->enq_at :
							 bpf_ktime_get_ns());
		}
		p->scx.dsq_vtime = vt;
		if (tctx && tctx->qslot != slot) {
			queued_leave(tctx);
			if (cs_tagged(slot))
				queued_enter(tctx, slot, lowered);
		} else if (lowered && cs_tagged(slot)) {
			queued_mark(slot, true);
		}
		/* On the LLC of the CPU it waits on (select_cpu's, or its). */
		cs_insert_vtime(p, dsq_here(slot, scx_bpf_task_cpu(p)),
				slice_ns, vt, enq_flags);
	}

	/* Wakeups were placed by select_cpu; others need a CPU woken. */
	if (enq_flags & SCX_ENQ_WAKEUP)
		return;
	cpu = pick_cpu(p, scx_bpf_task_cpu(p), slot);
	if (cpu >= 0 && scx_bpf_test_and_clear_cpu_idle(cpu))
		cs_kick(cpu, SCX_KICK_IDLE);
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
	bool unclaimed;
	u16 slot;

	forced_idle_end(st);
	if (!tctx)
		return;
	tctx->fresh = 0; /* ops.enqueue was skipped (a direct local insert) */
	tctx->stretch = 0; /* a new slice, not a renewed one */
	slot = tctx->slot;
	tctx->last_charge = now;
	if (tctx->last_cpu != cpu) {
		if (tctx->last_cpu != CS_NO_CPU) {
			st->migrations++;
			if (llc_of(tctx->last_cpu) != llc_of(cpu))
				st->llc_migrations++;
		}
		tctx->last_cpu = cpu;
	}
	if (tctx->enq_at) {
		u64 wait = now - tctx->enq_at;

		if (wait > st->max_wait_ns)
			st->max_wait_ns = wait;
		tctx->enq_at = 0;
	}
	if (slot == 0)
		untagged_seen(now);
	else if (cs_tagged(slot) || slot == CS_SLOT_EXCL)
		cookie_seen(slot, now);
	if (vtime_ordered(slot)) {
		if (p->scx.dsq_vtime > *tvnow_of(slot))
			*tvnow_of(slot) = p->scx.dsq_vtime;
		*vseen_of(slot) = vnow;
	}
	queued_leave(tctx);
	pin_leave(tctx, !in_balance(cpu)); /* in balance: not a run here */
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
	unclaimed = cs_next(core_read(cpu), sib_of(cpu)) != slot;
	if (unclaimed) {
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
	if (scx_bpf_task_running(p)) {
		commit_cur(cpu, slot);
	} else if (!unclaimed || !rq_online(cpu) || !cpu_active_now(cpu) ||
		   (rq_scx_flags(cpu) & SCX_RQ_BYPASSING)) {
		/*
		 * A claimed pick; or one on a CPU in hotplug transition, which
		 * runs its kthreads unclaimed, or while sched_ext bypasses us
		 * (load, unload): there every task runs so, and would only
		 * come back the same way.
		 */
		return;
	}
	/*
	 * Its cookie conflicts with what a sibling runs or claimed (impose
	 * kicked that sibling, an IPI away). Leave the CPU too: the task
	 * comes back through dispatch, whose claim waits for the sibling to
	 * leave, as tick does for a conflict next door. Running, with a new
	 * cookie: a cgroup move of a running shell into a tagged cgroup,
	 * seen as a 1.1 ms overlap by the bench's observer; a cgroup move
	 * reschedules the task at once (and a move of itself, at its
	 * return), a change made from another CPU takes this kick (a
	 * reschedule: the slice is already 0). About to start unclaimed (a
	 * task the drain placed here, one left on the global DSQ, or a path
	 * not known): the kick lands once it runs.
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
	charge(p, tctx, scx_bpf_task_cpu(p), bpf_ktime_get_ns());
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
	u64 w, bvt, now = bpf_ktime_get_ns(); /* one clock read for the tick */
	u16 best, but;
	u32 due;

	PROF_START();
	PROF_MARK(CS_PROF_EMPTY);
	/*
	 * The next dispatch here looks at every cookie (no cs_sync_keep): a
	 * full pick a tick at least, which also moves the clock (vnow) on.
	 * Without it, a pipe pair kept on its core by claims alone left vnow
	 * behind, the wake cap (vtime_place) then held its cookie's vtime
	 * near vnow, and a cookie waiting a grace behind never became due
	 * (until the guard's second).
	 */
	cpu_stat(cpu)->disp_owed = 1;
	if (!tctx)
		return;
	stall_count(cpu, charge(p, tctx, cpu, now));
	PROF_MARK(CS_PROF_TICK_CHARGE);
	charge_flush(cpu);
	PROF_MARK(CS_PROF_TICK_FLUSH);
	untagged_guard(cpu, now);
	cookie_guard(cpu, now);
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
	/*
	 * A bound untagged task of this core waited past the guard: leave
	 * this CPU if it is the one the task needs, or (strict mode) a
	 * cookie that keeps it out next door; the dispatch that follows
	 * claims only the untagged cookie (cs_dispatch, the same test).
	 */
	due = pin_due(cpu, now);
	if (due && ((due & (1U << sib_of(cpu))) ||
		    (mode == CS_MODE_STRICT && tctx->slot != 0))) {
		p->scx.slice = 0;
		kick_idle_in(cpu, due);
		return;
	}
	PROF_MARK(CS_PROF_TICK_CHECKS);
	/* Re-tagged: go back through enqueue to pick up the new cookie. */
	if (tctx->slot < CS_NR_SLOTS && task_cookie(p) != tctx->cookie) {
		p->scx.slice = 0;
		return;
	}
	PROF_MARK(CS_PROF_TICK_COOKIE);
	/* A higher class may have started an incompatible task next door. */
	w = core_read(cpu);
	if (cs_claim_verdict(w, sib_of(cpu), nr_sibs(cpu), tctx->slot, mode) !=
	    CS_CLAIM_OK) {
		p->scx.slice = 0;
		return;
	}
	PROF_MARK(CS_PROF_TICK_VERDICT);
	/* A task of its queue is overdue (task guard): the dispatch moves it. */
	if (task_guard(cpu, tctx->slot, now)) {
		p->scx.slice = 0;
		return;
	}
	/* Past its share while another cookie waits: let dispatch hand over. */
	but = mode == CS_MODE_FILL ? 0 : CS_SLOT_NONE; /* it owns no core */
	best = pick_best_but(&bvt, but, CS_SLOT_NONE, CS_SLOT_NONE);
	/*
	 * The most deserving owns as many cores as this one already, and is
	 * not four graces behind (cs_yield_grace): the next most deserving,
	 * which may own fewer, is due at the plain grace. Without this look,
	 * a third cookie would wait while the one picked first is served.
	 */
	if (best != CS_SLOT_NONE && best != tctx->slot &&
	    yield_grace(tctx->slot, best) != grace_ns &&
	    !yields_to(tctx->slot, best, bvt))
		best = pick_best_but(&bvt, but, best, tctx->slot);
	PROF_MARK(CS_PROF_TICK_PICK);
	if (yields_to(tctx->slot, best, bvt)) {
		/* Only to a cookie that can run on this core (affinity). */
		best = best_for_core(cpu, best, tctx->slot, &bvt, but);
		if (yields_to(tctx->slot, best, bvt) && due_here(cpu, best))
			p->scx.slice = 0;
	}
	PROF_MARK(CS_PROF_TICK_HANDOVER);
	/*
	 * Unless handed over (slice 0): keep the CPU if the cookie may, or
	 * take back a renewal's stretch if it may not (slice_renew).
	 */
	slice_renew(cpu, p, tctx);
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
		pin_leave(tctx, false);
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

	/*
	 * A higher class runs next: no tick or idle of ours flushes. (The
	 * dispatch after it has no prev of ours, so it picks in full:
	 * cs_sync_keep.)
	 */
	charge_flush(cpu);
	/*
	 * Re-queue first: what stays on the local DSQ (a task being
	 * migrated) gets its claim back at the intruder's commit (intrude).
	 * cur still names what runs here until the switch commits.
	 */
	scx_bpf_reenqueue_local();
	intrude(cpu, slot,
		(const void *)args->task->sched_class == &stop_sched_class,
		false);
	/*
	 * A forced-idle sibling may run what was just re-queued (it may share
	 * the intruder's cookie), and no enqueue kick reaches a sibling that
	 * was still in dispatch: let it look again (test_model found this).
	 */
	kick_forced_siblings(cpu);
}

#include "lifecycle.bpf.h"

s32 BPF_STRUCT_OPS_SLEEPABLE(cs_init)
{
	u32 i;
	s32 ret;

	for (i = 0; i < CS_MAX_CPUS; i++) {
		core_state[i].word = CS_WORD_IDLE;
		core_owner[i] = CS_SLOT_NONE;
	}
	slot_table_init();
	cs_low_bit_table(low_bit_tbl);
	untagged_since = bpf_ktime_get_ns();
	slot_since[CS_SLOT_IDX(CS_SLOT_EXCL)] = untagged_since;
	/* Far above 0, where rescues would stop and tie (CS_VTIME_BASE). */
	vnow = CS_VTIME_BASE;
	*vtime_of(0) = vnow;
	*vseen_of(0) = vnow;
	excl_vt = vnow;
	*vseen_of(CS_SLOT_EXCL) = vnow;
	set_live(0, true);
	nr_llcq = cs_llc_queues(nr_llcs);
	llcq_known = nr_llcs ? nr_llcs : 1;
	bpf_for(i, 0, CS_NR_SLOTS * nr_llcq) {
		ret = cs_create_dsq(dsq_nth(i));
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

#include "commit.bpf.h"

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
