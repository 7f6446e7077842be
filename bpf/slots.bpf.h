/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cookie slots (part of coresched.bpf.c, included once there): each live
 * cookie's slot has a vtime (its weighted core time), a task clock for
 * the order inside it, the runnable weight it is charged against, and a
 * count of its tasks queued, behind one bit in queued_mask that the pick
 * (pick.bpf.h) reads. This file keeps those numbers; which cookie runs
 * where is decided elsewhere.
 *
 * Worked example, 2-thread core, cookie A of weight 100 (its cgroup's
 * cpu.weight), a 5 ms slice:
 *   A's task runs 0.4 ms on CPU 0 (less than a tick) with CPU 1 forced
 *     idle beside it. charge() at its stop: core time 0.4 ms * 2
 *     siblings / 1 running A = 0.8 ms, pending on CPU 0 (the shared words
 *     are not written yet; a longer run is charged at each tick too).
 *   The tick or idle of CPU 0 (charge_flush): slot_vtime[A] += 0.8 ms *
 *     100 / 100; A's core_ns += 0.8 ms, run_ns += 0.4 ms.
 *   A's last task sleeps; 30 ms later it wakes (cs_enqueue, queue empty):
 *     vtime_place() puts A's vtime between the credit it earned (vnow
 *     moved 30 ms since A last ran: at most 4 graces, 20 ms, below vnow)
 *     and its debt cap (4 graces at its weight above the clock it last
 *     saw), and queued_enter() counts the task in slot_qcnt[A], setting
 *     A's bit and lowering its word's queue bound.
 */
#ifndef __CS_SLOTS_BPF_H
#define __CS_SLOTS_BPF_H

/* Per slot, indexed with CS_SLOT_IDX() (the first CS_NR_SLOTS are used). */
struct cs_slot_stat slot_stats[CS_SLOT_TBL];
u64 slot_vtime[CS_SLOT_TBL]; /* the cookie's weighted core time */
u64 slot_tvnow[CS_SLOT_TBL]; /* task vtime clock inside the cookie */
u64 slot_wsum[CS_SLOT_TBL]; /* sum of its runnable tasks' weights (not 0's) */
u64 wsum0_sum, wsum0_at; /* untagged_weight(): the last sum, and when */
/*
 * Set by the loader (src/cs_drain.c) when the siblings start to drain
 * before SMT goes off: from then on every tagged cookie is charged at
 * weight 100. The stop ends the scheduler anyway, and until SMT is off a
 * cookie of tiny weight, kept to rare turns, holds the hotplug up:
 * cpuhp/N waits for the mm locks of its tasks (tens of seconds at
 * cpu.weight 1 beside 10000), and an ejection meanwhile would end
 * isolation before SMT is off (Fail closed in the README).
 */
u8 drain_even;
/* Untagged runnable weight added on each CPU (minus what left there). */
struct cs_pcpu_s64 wsum0[CS_MAX_CPUS];
u64 live_mask[CS_LIVE_TBL]; /* slots with holders (for the statistics) */
u64 queued_mask[CS_LIVE_TBL]; /* tagged slots with tasks counted queued */
u64 queued_bound[CS_LIVE_TBL]; /* per word of queued_mask: cs_qb_* */
s32 slot_qcnt[CS_SLOT_TBL]; /* its tasks queued: enqueued, not yet run */
/*
 * When the cookie last started a task, or was counted queued from none:
 * since when its queued tasks wait (the tagged cookies' guard, guard.bpf.h).
 */
u64 slot_since[CS_SLOT_TBL];
/* When the guard last lowered each slot: at most once per bound. */
u64 slot_rescued[CS_SLOT_TBL];
u8 low_bit_tbl[64]; /* cs_low_bit_table(), filled by cs_init */

/* The lowest set bit of @x (not 0), through low_bit_tbl. */
static u32 low_bit(u64 x)
{
	return low_bit_tbl[cs_low_bit_key(x)];
}

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
		slot_rescued[CS_SLOT_IDX(s)] = 0; /* the last owner's rescues */
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

/* The weight a cookie is charged against (tagged: cs_tagged_weight). */
static u64 slot_weight(u32 s)
{
	bool even = *(volatile u8 *)&drain_even;
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
		return cs_tagged_weight(w ? *w : 0, even);
	}
	return cs_tagged_weight(*wsum_of(s), even);
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
	s32 was;

	/*
	 * Its wait starts now if none of its tasks waited: written before
	 * the count, so that the weight floor's guard does not see the count
	 * with an older time (a previous owner's, or its own last run).
	 */
	if (*(volatile s32 *)&slot_qcnt[CS_SLOT_IDX(s)] <= 0)
		slot_since[CS_SLOT_IDX(s)] = bpf_ktime_get_ns();
	was = __sync_fetch_and_add(&slot_qcnt[CS_SLOT_IDX(s)], 1);
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

/*
 * Per-LLC queues (cs_llc_queues): made at init for the LLCs known then
 * (nr_llcs, from the loader), fixed while the scheduler runs.
 */
u32 nr_llcq = 1; /* queues of each real slot */
u32 llcq_known = 1; /* LLCs known at init (cs_llc_queue) */

/* Queues of @slot: one per LLC for a real slot, one otherwise. */
static u32 slot_nq(u32 slot)
{
	return slot < CS_NR_SLOTS ? nr_llcq : 1;
}

/* The queue of @slot that @cpu's LLC uses. */
static u32 llcq_of(u32 slot, s32 cpu)
{
	if (slot_nq(slot) <= 1)
		return 0;
	return cs_llc_queue(llc_of(cpu), llcq_known, nr_llcq);
}

/* Queue @q of @slot. */
static u64 dsq_at(u32 slot, u32 q)
{
	return cs_dsq_id(slot, q);
}

/* Queue @k of @slot counted from queue @own on (the queues in turn). */
static u64 dsq_turn(u32 slot, u32 own, u32 k)
{
	return dsq_at(slot, (own + k) % slot_nq(slot));
}

/* Queue @i of all the real slots' (queue i / CS_NR_SLOTS of each). */
static u64 dsq_nth(u32 i)
{
	return dsq_at(i % CS_NR_SLOTS, i / CS_NR_SLOTS);
}

/* The queue of @slot on @cpu's LLC. */
static u64 dsq_here(u32 slot, s32 cpu)
{
	return dsq_at(slot, llcq_of(slot, cpu));
}

/* Has @slot a task queued on one of its queues (more than one)? */
__attribute__((noinline)) int slot_waits_any(u32 slot)
{
	u32 q;

	bpf_for(q, 0, slot_nq(slot)) {
		if (cs_nr_queued(dsq_at(slot, q)) > 0)
			return 1;
	}
	return 0;
}

/* Has @slot a task queued? No call with one queue (one LLC). */
static __always_inline bool slot_waits(u32 slot)
{
	if (slot_nq(slot) <= 1)
		return cs_nr_queued(slot) > 0;
	return slot_waits_any(slot);
}

/* Is @slot's queue ordered by vtime? (The trusted kthreads' is FIFO.) */
static bool vtime_ordered(u32 slot)
{
	return slot < CS_NR_SLOTS || slot == CS_SLOT_EXCL;
}

/*
 * A tick whose charge (@delta, as charge() returned it) came two ticks or
 * more after the one before: its CPU missed a tick or more
 * (cs_stall_lost). Counted only (the statistics' stalls): the charge and
 * the slice still take it.
 */
static void stall_count(s32 cpu, u64 delta)
{
	struct cs_cpu_stat *st = cpu_stat(cpu);
	u64 lost = cs_stall_lost(delta, tick_ns);

	if (!lost)
		return;
	st->stalls++;
	st->stall_ns += lost;
}

/*
 * Charge @p's run until @now since its last charge to it and its cookie;
 * returns the time charged (0 for no charge before, or a gap over
 * CS_CHARGE_GAP_MAX_NS).
 */
static u64 charge(struct task_struct *p, struct task_ctx *tctx, s32 cpu,
		  u64 now)
{
	struct cs_cpu_stat *st = cpu_stat(cpu);
	u64 delta;
	u16 s = tctx->slot;

	delta = now - tctx->last_charge;
	if (!tctx->last_charge || delta > CS_CHARGE_GAP_MAX_NS)
		delta = 0;
	tctx->last_charge = now;
	if (p->scx.weight)
		p->scx.dsq_vtime += delta * 100 / p->scx.weight;
	st->busy_ns += delta;
	if (s == CS_SLOT_EXCL) /* alone on its core: charged for all of it */
		__sync_fetch_and_add(&excl_vt,
				     cs_core_charge(delta, nr_sibs(cpu), 1));
	if (s >= CS_NR_SLOTS)
		return delta;
	if (st->pend_slot != s || st->pend_cookie != slot_stat(s)->cookie) {
		charge_flush(cpu);
		st->pend_slot = s;
		st->pend_cookie = slot_stat(s)->cookie;
	}
	st->pend_core_ns +=
		cs_core_charge(delta, nr_sibs(cpu),
			       cs_nr_running(core_read(cpu), nr_sibs(cpu), s));
	st->pend_run_ns += delta;
	return delta;
}

#endif /* __CS_SLOTS_BPF_H */
