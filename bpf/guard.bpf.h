/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wait guards (part of coresched.bpf.c, included once there): what
 * bounds a wait that the vtime order alone leaves unbounded, far below
 * the 30 s after which the kernel's watchdog ejects the scheduler.
 * Untagged work (every kernel thread, the host's own daemons) is one
 * cookie, slot 0, among the tagged ones, with one vtime; among thousands
 * of cookies its turn can come seldom, and to a given core more seldom
 * still. Two of its waits are bounded by CS_UNTAGGED_MAX_WAIT_NS (1 s,
 * include/cs_policy.h; the watchdog's own worker is untagged work too),
 * and a tagged cookie's by CS_COOKIE_MAX_WAIT_NS (1 s):
 *
 * 1. The untagged work as a whole: queued a second without starting
 *    anywhere, its vtime goes below the wake floor (untagged_guard), and
 *    the usual handovers give it cores.
 * 2. A task bound to one CPU (a per-CPU kworker, ksoftirqd): only that
 *    CPU's core can serve it. Queued a second while that CPU ran no bound
 *    untagged task, its core is due (pin_due): the bound CPU's tick ends
 *    what it runs and its dispatch claims only the untagged cookie and
 *    moves the bound task itself (move_pinned: among the first
 *    CS_PIN_SCAN queued); in strict mode the siblings do the same but
 *    for the move, so that no other cookie keeps it out. (In fill mode
 *    the untagged cookie runs beside any other but the overflow queue's:
 *    a sibling running that one keeps it out until its turn ends.)
 *    A CPU about to idle also runs such a task if one waits, at once.
 * 3. A tagged cookie queued a second without starting a task (a weight
 *    far below another busy one's): the same as 1 (cookie_guard, below,
 *    with an example).
 * 4. A task inside a queue that runs (a nice 19 task beside nice -20
 *    spinners of its cookie): a tick of a CPU that runs its cookie ends
 *    the slice there and the dispatch moves the overdue task to the head
 *    of that CPU's LLC's queue of its cookie (task_guard, below, with an
 *    example).
 *
 * Worked example (2), strict mode, 8x2 at 4,097 cookies: kworker/12:1
 * queued at t=0 on CPU 12; core {12,13} runs cookie A on CPU 13 and CPU
 * 12 is forced idle.
 * At t=1 s the tick of CPU 13 finds the core due and ends A's slice; CPU
 * 13's dispatch claims the untagged cookie (and runs an untagged task, or
 * idles); its switch away from A commits and kicks CPU 12, whose dispatch
 * claims the untagged cookie too and moves kworker/12:1 to itself. That
 * run restarts CPU 12's clock, and the core follows the vtimes again.
 * (Before: kworker/12:1 waited 35.7 s and the watchdog ejected us.)
 */
#ifndef __CS_GUARD_BPF_H
#define __CS_GUARD_BPF_H

/* Losses in a row after which the guard tries again at the next tick. */
#define CS_RESCUE_TRIES 64
/* Queued tasks looked at for the bound one (move_pinned). */
#define CS_PIN_SCAN 256
/* task_ctx.pin_cpu of a task not counted in pin0[]. */
#define CS_PIN_NONE 0xffff
/* In task_ctx.pin_cpu: the task is a kernel thread (cs_pin.nr_kt). */
#define CS_PIN_KT 0x8000

/*
 * When untagged work last started running, or was queued from an empty
 * queue: written at most once per CS_WSUM0_NS, so that the runs of
 * untagged work do not all write it.
 */
u64 untagged_since;

/* Per CPU: its bound untagged tasks queued, and since when (cs_policy.h). */
struct cs_pin pin0[CS_MAX_CPUS];

/*
 * Work of a guarded cookie started, or was queued from none, at @now:
 * move *@since there, at most once per CS_WSUM0_NS (a write a ms, not one
 * per run, on a line every CPU reads).
 */
static void guard_seen(u64 *since, u64 now)
{
	if (now - *since > CS_WSUM0_NS)
		*since = now;
}

static void untagged_seen(u64 now)
{
	guard_seen(&untagged_since, now);
}

/*
 * A lower bound on the vtimes of the tagged cookies and the overflow
 * queue with tasks queued (the words' bounds, as the pick reads them), ~0
 * if none: what a rescue of the untagged work goes below.
 */
static u64 lowest_queued_vtime(void)
{
	u64 low = ~0ULL, b;
	s32 k;

	bpf_for(k, 0, CS_LIVE_WORDS) {
		b = cs_qb_bound(
			*(volatile u64 *)&queued_bound[k & (CS_LIVE_TBL - 1)]);
		if (b < low)
			low = b;
	}
	if (cs_nr_queued(DSQ_EXCL) > 0 && excl_vt < low)
		low = excl_vt;
	return low;
}

/*
 * Lower slot @s's vtime below the wake floor: a tagged slot (or the
 * overflow queue) @over ns past its bound (cs_aged_rescue_vtime), the
 * untagged work below every queued one (cs_untagged_rescue_vtime). 1 if
 * this did it, 0 if it was that low already (something else holds the
 * slot back), -1 if every CPU's charges landing at once beat each try.
 */
static int rescue_vtime(u32 s, u64 over)
{
	u64 *vt = vt_ptr(s), v, nv, low = s ? 0 : lowest_queued_vtime();
	int i;

	if (!vt)
		return 0;
	bpf_for(i, 0, CS_RESCUE_TRIES) {
		v = *(volatile u64 *)vt;
		nv = s ? cs_aged_rescue_vtime(v, vnow, 4 * grace_ns, over) :
			 cs_untagged_rescue_vtime(v, vnow, 4 * grace_ns, low);
		if (nv == v)
			return 0;
		if (__sync_val_compare_and_swap(vt, v, nv) == v)
			return 1;
	}
	return -1;
}

/*
 * From ops.tick: untagged work queued and not started for
 * CS_UNTAGGED_MAX_WAIT_NS gets its vtime lowered (cs_untagged_rescue_vtime;
 * one CPU does it, the one whose compare-and-swap of untagged_since wins,
 * and it counts the rescue). Example: 4,097 cookies queued, the untagged
 * work 30 ms of vtime ahead of the clock, its last run 1 s ago, the
 * lowest rescued cookie 6 ms below vnow - 4 graces: the next tick lowers
 * it just below that cookie; the ticks that follow see it as the
 * most deserving and hand cores over where it is due (due_here), and its
 * own charges put it back in line.
 */
static void untagged_guard(s32 cpu, u64 now)
{
	u64 at = untagged_since;
	int done;

	if (!cs_rescue_due(now, at, CS_UNTAGGED_MAX_WAIT_NS) ||
	    !slot_waits(0) ||
	    __sync_val_compare_and_swap(&untagged_since, at, now) != at)
		return;
	done = rescue_vtime(0, 0);
	if (done > 0)
		cpu_stat(cpu)->untagged_rescues++;
	else if (done < 0) /* the next tick tries again */
		untagged_since = at;
}

/*
 * 3. The tagged cookies (CS_COOKIE_MAX_WAIT_NS, include/cs_policy.h): a
 * cookie with tasks queued that started none for a second (a weight-1
 * cookie beside a busy one at 10000, say) gets its vtime lowered like
 * the untagged work's, and the usual handovers give it a core; its
 * charges then put it back where its weight says. slot_since[]
 * (slots.bpf.h) is when it last started a task or was queued from none.
 *
 * Worked example, 2x2, cookie A at weight 1 and B at 10000, four
 * spinners each: A runs a tick on core 0 and is charged its core time
 * times 100, hundreds of ms of vtime; B, charged about 40 ms of vtime a
 * second on all four CPUs, would give A its next turn seconds later, and
 * far later with more of B's CPUs or a longer turn. At 1 s after A's last
 * start the guard's look at A's word finds it waited past the bound: A's
 * vtime goes to vnow - 4 graces - 1 ns, less a microsecond per
 * millisecond past the bound (cs_aged_rescue_vtime), a tick of a core
 * running B hands that core over to A, and A waits another second after
 * its turn.
 * (Seen on 2x2: about one rescue a second, each waiting 1,000-1,010 ms.)
 *
 * The bound is per cookie, not per task: a task of a cookie whose other
 * tasks keep starting may still wait on the vtime order alone. And a
 * cookie that keeps a core through slice renewals (no ops.running) while
 * another of its tasks, bound elsewhere, stays queued is rescued once a
 * second as it runs (slot_rescued): the rescue drops its debt, which
 * helps that task. A rescue does not restart the wait, so when thousands
 * of cookies wait past the bound (a turn coming round once in many
 * seconds), each is rescued again a second after the last time, lower
 * the longer it waited, and they are served oldest first.
 */
u64 starve_scan_at; /* the guard's last look */
u32 starve_word; /* the queued_mask word it looks at next */

/*
 * A task of tagged slot @s, or of the overflow queue (CS_SLOT_EXCL, whose
 * since and last rescue sit in the per-slot tables at an index no real
 * slot has, as its other clocks do), starts; or the overflow queue is
 * queued from none.
 */
static void cookie_seen(u16 s, u64 now)
{
	guard_seen(&slot_since[CS_SLOT_IDX(s)], now);
}

/*
 * Slot @s (or the overflow queue) has tasks queued: if its wait passed
 * CS_COOKIE_MAX_WAIT_NS and it was not rescued in the last one, lower its
 * vtime (cs_aged_rescue_vtime). True if this did it; a lost race leaves
 * it to the next look (its wait goes on).
 */
static bool rescue_overdue(u32 s, u64 now)
{
	u64 since = *(volatile u64 *)&slot_since[CS_SLOT_IDX(s)];
	u64 *at = &slot_rescued[CS_SLOT_IDX(s)];

	if (!cs_rescue_due(now, since, CS_COOKIE_MAX_WAIT_NS) ||
	    !cs_rescue_due(now, *at, CS_COOKIE_MAX_WAIT_NS) ||
	    rescue_vtime(s, now - since - CS_COOKIE_MAX_WAIT_NS) <= 0)
		return false;
	*at = now;
	return true;
}

/*
 * Rescue every queued slot of queued_mask word @k that is overdue
 * (rescue_overdue); returns how many.
 */
static u32 rescue_word(u32 k, u64 now)
{
	u64 bits = *(volatile u64 *)&queued_mask[slot_word(k * 64)];
	u32 n = 0;
	s32 j;

	bpf_for(j, 0, 64) {
		u32 i;

		if (!bits)
			break;
		i = k * 64 + low_bit(bits);
		bits &= bits - 1;
		if (i >= CS_NR_SLOTS || i == 0 ||
		    *(volatile s32 *)&slot_qcnt[CS_SLOT_IDX(i)] <= 0 ||
		    !rescue_overdue(i, now))
			continue;
		queued_mark(i, true); /* its word's bound goes down with it */
		n++;
	}
	return n;
}

/*
 * From ops.tick, at most once per CS_STARVE_SCAN_NS over all CPUs (the
 * one whose compare-and-swap of starve_scan_at wins): look at the next
 * word of queued_mask with any bit set and rescue every cookie there that
 * is overdue (rescue_word), and the overflow queue if it is.
 */
__attribute__((noinline)) int cookie_guard(s32 cpu, u64 now)
{
	u64 at = starve_scan_at;
	u32 k = starve_word;
	bool found = false;
	s32 n;

	if (now - at < CS_STARVE_SCAN_NS ||
	    __sync_val_compare_and_swap(&starve_scan_at, at, now) != at)
		return 0;
	/*
	 * The overflow queue (cookies that found no slot), as a cookie; without
	 * it, at 4,097 cookies with thousands rescued at once, its task waited
	 * 40 s.
	 */
	if (cs_nr_queued(DSQ_EXCL) > 0 && rescue_overdue(CS_SLOT_EXCL, now))
		cpu_stat(cpu)->cookie_rescues++;
	bpf_for(n, 0, CS_LIVE_WORDS) {
		if (k >= CS_LIVE_WORDS)
			k = 0;
		if (*(volatile u64 *)&queued_mask[slot_word(k * 64)]) {
			found = true;
			break;
		}
		k++;
	}
	if (!found) /* no tagged cookie queued */
		return 0;
	starve_word = k + 1;
	cpu_stat(cpu)->cookie_rescues += rescue_word(k, now);
	return 0;
}

/*
 * 4. The tasks (CS_TASK_MAX_WAIT_NS, include/cs_policy.h): a queued task
 * that waited a second in a queue whose cookie runs (its own debt, not
 * its cookie's, holds it back) is moved to the head of its queue, its
 * debt dropped, and the CPUs of its cookie that can run it take it from
 * there (a CPU whose pick finds the head overdue takes it, not a task of
 * its own runqueue a slice or less behind it). With a queue per LLC, a CPU's
 * looks go over its cookie's queues in turn (one a look), and the task
 * goes to the head of the looking CPU's LLC's queue.
 * Only its place among its cookie's queued tasks changes: the claims, and
 * so isolation, are what any other run of its cookie needs.
 *
 * Worked example, 2x2, cookie A: eight spinners at nice -20 (weight
 * 8668) and T at nice 19 (weight 1). T runs a slice and is charged 500
 * ms of vtime; the spinners, charged 58 us a slice at half a CPU each,
 * reach it 86 s later. One second after T was queued, the next look of
 * CPU 2's tick (at most every CS_TASK_SCAN_NS, from the queue's tail over
 * CS_TASK_TAIL tasks at most) finds it overdue: the
 * tick ends the slice of the spinner there and notes the slot
 * (cpu_stat.rescue); the dispatch that follows re-queues T at A's clock
 * less a slice, ahead of every spinner, and (A still most deserving)
 * takes T from the head. Its next slice puts it 500 ms ahead again, and
 * it is rescued about once a second: a floor, not its share. With T1 and
 * T2 both waiting, the one rescued last sits at the tail (its debt is
 * the newest), and the walk passes over it, not yet overdue, to the
 * other.
 */

/* Has the queued task of @tctx waited past CS_TASK_MAX_WAIT_NS at @now? */
static bool tctx_overdue(const struct task_ctx *tctx, u64 now)
{
	return tctx && tctx->enq_at &&
	       cs_rescue_due(now, tctx->enq_at, CS_TASK_MAX_WAIT_NS);
}

/*
 * Has queued @p waited past CS_TASK_MAX_WAIT_NS? The pick then takes it
 * in order, not bending to locality (move_local_first).
 */
static bool task_overdue_now(struct task_struct *p)
{
	return tctx_overdue(task_ctx(p), bpf_ktime_get_ns());
}

/*
 * Walk @it (reverse, over a queue whose clock is @clock) across its last
 * CS_TASK_TAIL tasks, in debt or not: the one that can run on @cpu and
 * waited longest past CS_TASK_MAX_WAIT_NS, or NULL. Not only the
 * indebted ones: in a cookie whose turns are rare, a task with no debt
 * waits behind tasks queued after it at the clock less a slice
 * (cs_clamp_vtime) until their runs pass it, a slice of vtime each,
 * minutes at weight 8668 (closed.sh: a stress-ng parent of a cpu.weight
 * 1 cgroup behind its 8 children, unrun for 33-45 s until the kernel's
 * watchdog ejected the scheduler). Nor the indebted ones and the first
 * past them: that one is mostly the task that ran last, and rescuing it
 * at each turn left the ones in the middle unrun for minutes (a host
 * model of 9 tasks and a turn a second: 445-600 s, against 9 s walking
 * all). Tasks at or ahead of a rescued task's place are passed over
 * (cs_task_rescuable). Each step takes the queue's lock. Counted by a
 * bpf_for() (see move_pinned).
 */
static __always_inline struct task_struct *
tail_overdue(struct bpf_iter_scx_dsq *it, s32 cpu, u64 clock)
{
	struct task_struct *p, *found = NULL;
	u64 now = bpf_ktime_get_ns(), oldest = now;
	struct task_ctx *tctx;
	int n;

	bpf_for(n, 0, CS_TASK_TAIL) {
		p = bpf_iter_scx_dsq_next(it);
		if (!p)
			break;
		tctx = task_ctx(p);
		if (tctx_overdue(tctx, now) && tctx->enq_at < oldest &&
		    cs_task_rescuable(p->scx.dsq_vtime, clock, slice_ns) &&
		    bpf_cpumask_test_cpu(cpu, p->cpus_ptr)) {
			oldest = tctx->enq_at;
			found = p;
		}
	}
	return found;
}

/* From ops.tick: is a task of queue @q of @slot overdue on @cpu? */
__attribute__((noinline)) int task_overdue(s32 cpu, u32 slot, u32 q)
{
	struct bpf_iter_scx_dsq it;
	bool found;

	bpf_iter_scx_dsq_new(&it, dsq_at(slot, q), SCX_DSQ_ITER_REV);
	found = tail_overdue(&it, cpu, *tvnow_of(slot)) != NULL;
	bpf_iter_scx_dsq_destroy(&it);
	return found;
}

/*
 * From ops.dispatch (the 6.12 kernel moves an iterated task from there
 * only; no tick carries the call): re-queue the task of queue @q of
 * @slot overdue on @cpu, if one still is, at cs_rescued_task_vtime(),
 * on @cpu's LLC's queue of @slot (the same queue with one LLC). It stays
 * in a queue, on its runqueue: unlike a move to a local queue, this never
 * sends a task bound elsewhere, or one found by a CPU going down, to the
 * global queue, which any CPU runs without a claim. Moved to this CPU's
 * LLC, since that one found it: a task of another LLC's queue whose CPUs
 * never take its cookie is taken here.
 */
__attribute__((noinline)) int task_requeue(s32 cpu, u32 slot, u32 q)
{
	u64 clock = *tvnow_of(slot);
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	bool moved = false;

	bpf_iter_scx_dsq_new(&it, dsq_at(slot, q), SCX_DSQ_ITER_REV);
	p = tail_overdue(&it, cpu, clock);
	if (p)
		moved = cs_requeue_iterated(&it, p, dsq_here(slot, cpu),
					    cs_rescued_task_vtime(clock,
								  slice_ns));
	bpf_iter_scx_dsq_destroy(&it);
	if (moved)
		cpu_stat(cpu)->task_rescues++;
	return moved;
}

/*
 * From ops.tick of @cpu, which runs a task of @slot: at most once per
 * CS_TASK_SCAN_NS, look for a task of one of that slot's queues (each in
 * turn, with per-LLC queues) overdue here; if there is one, note the
 * slot and queue for the dispatch to come (task_rescue) and return true:
 * the caller ends the slice.
 */
static bool task_guard(s32 cpu, u16 slot, u64 now)
{
	struct cs_cpu_stat *st = cpu_stat(cpu);
	u32 q;

	/*
	 * Once per CS_TASK_SCAN_NS, and at the first tick of each cookie's
	 * run here: a cookie whose runs are rare (a tick or two a second)
	 * would otherwise seldom meet a look, the CPU's last one being of
	 * the cookie it ran before.
	 */
	if (!vtime_ordered(slot) || (st->task_scan_slot == slot + 1 &&
				     now - st->task_scan_at < CS_TASK_SCAN_NS))
		return false;
	q = st->task_looks++ % slot_nq(slot);
	if (cs_nr_queued(dsq_at(slot, q)) <= 0)
		return false;
	st->task_scan_at = now;
	st->task_scan_slot = slot + 1;
	if (!task_overdue(cpu, slot, q))
		return false;
	st->rescue = (slot + 1) | q << 16;
	return true;
}

/*
 * From ops.dispatch of @cpu: re-queue the task its tick found overdue, if
 * it still is, at the head of this CPU's LLC's queue of its cookie. The
 * note is used once, whatever this dispatch then runs.
 */
static void task_rescue(s32 cpu)
{
	struct cs_cpu_stat *st = cpu_stat(cpu);
	u32 r = st->rescue;

	if (!r)
		return;
	st->rescue = 0;
	task_requeue(cpu, (r & 0xffff) - 1, r >> 16);
}

/* Can @p run on @cpu alone? (A task bound there.) */
static bool bound_to(struct task_struct *p, s32 cpu)
{
	return p->nr_cpus_allowed == 1 &&
	       bpf_cpumask_test_cpu(cpu, p->cpus_ptr);
}

static struct cs_pin *pin_of(u32 cpu)
{
	return &pin0[cpu & (CS_MAX_CPUS - 1)];
}

/*
 * The counts of a CPU change under its runqueue lock (a bound task is
 * queued, runs and leaves there), so since is written before the count
 * that makes it matter; the readers (other CPUs' ticks) take no lock.
 */
static void pin_uncount(u32 at, bool ran)
{
	u32 cpu = at & ~CS_PIN_KT;
	struct cs_pin *pin = pin_of(cpu);

	if (ran)
		pin->since = bpf_ktime_get_ns();
	if (at & CS_PIN_KT)
		__sync_fetch_and_add(&pin->nr_kt, -1);
	if (__sync_fetch_and_add(&pin->nr, -1) < 1)
		cs_error("cpu %u: its bound untagged count went below 0", cpu);
}

/* Uncount it: it runs (@ran: its CPU served one), sleeps or leaves. */
static void pin_leave(struct task_ctx *tctx, bool ran)
{
	u32 at = tctx->pin_cpu;

	if (at == CS_PIN_NONE)
		return;
	tctx->pin_cpu = CS_PIN_NONE;
	pin_uncount(at, ran);
}

/*
 * @p is queued in @slot (ops.enqueue): count it on its CPU if it is
 * untagged work bound there, before it is uncounted where it was (a
 * re-queue on the same CPU keeps its wait's start).
 */
static void pin_requeue(struct task_struct *p, struct task_ctx *tctx, u16 slot,
			u64 now)
{
	u32 old = tctx->pin_cpu;
	s32 cpu = scx_bpf_task_cpu(p);
	struct cs_pin *pin;

	tctx->pin_cpu = CS_PIN_NONE;
	if (slot == 0 && cpu >= 0 && cpu < CS_MAX_CPUS && bound_to(p, cpu)) {
		pin = pin_of(cpu);
		if (*(volatile s32 *)&pin->nr <= 0)
			pin->since = now;
		__sync_fetch_and_add(&pin->nr, 1);
		tctx->pin_cpu = cpu;
		if (p->flags & PF_KTHREAD) {
			__sync_fetch_and_add(&pin->nr_kt, 1);
			tctx->pin_cpu |= CS_PIN_KT;
		}
	}
	if (old != CS_PIN_NONE)
		pin_uncount(old, false);
}

static bool rq_online(s32 cpu); /* place.bpf.h */
static bool scx_online(s32 cpu); /* place.bpf.h */
static bool draining(s32 cpu); /* coresched.bpf.c */

/*
 * Has a bound untagged task waited on @cpu past the guard? Not while
 * @cpu is offline for sched_ext (no dispatch there takes it). On a CPU
 * draining before SMT off, which runs its own kthreads only, only a
 * kthread counts (nr_kt): among them the hotplug thread cpuhp/N, which
 * SMT off waits for, and the per-CPU kworkers whose work others wait
 * for. Without the guard each of their runs waited for the sibling to
 * leave a tenant's cookie (strict mode, kernel threads untagged): beside
 * one of cpu.weight 10000, stops whose SMT off had not ended minutes
 * later (tests/guest/closed.sh). A bound user task there is never run
 * (it waits for the CPU to go down) and does not count, so it does not
 * hold the sibling to untagged work for the whole drain.
 */
static bool pin_overdue(s32 cpu, u64 now)
{
	struct cs_pin *pin = pin_of(cpu);

	if (*(volatile s32 *)&pin->nr <= 0 || !rq_online(cpu))
		return false;
	if (draining(cpu) && *(volatile s32 *)&pin->nr_kt <= 0)
		return false;
	return cs_rescue_due(now, pin->since, CS_UNTAGGED_MAX_WAIT_NS);
}

/*
 * The siblings of @cpu's core (bit i: sibling i) whose bound untagged
 * tasks have waited past the guard; 0 if none.
 */
__attribute__((noinline)) u32 pin_due(s32 cpu, u64 now)
{
	int i, nr = nr_sibs(cpu);
	u32 due = 0;

	cs_for_each_sib(i) {
		s32 c = sib_cpu(cpu, i);

		if (i < nr && c >= 0 && pin_overdue(c, now))
			due |= 1U << i;
	}
	return due;
}

/*
 * Move a queued untagged task bound to @cpu here from queue @dsq, among
 * its first CS_PIN_SCAN (not one in migrate_disable(): see
 * move_local_first).
 * The scan is counted by a bpf_for(): a plain counter compared with the
 * constant made the verifier walk all 256 turns (4 s of a load in a TCG
 * guest); an iterator's loop is verified until its states repeat.
 */
static bool move_pinned_from(s32 cpu, u64 dsq)
{
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	bool moved = false;
	int n;

	if (cs_nr_queued(dsq) <= 0)
		return false;
	bpf_iter_scx_dsq_new(&it, dsq, 0);
	bpf_for(n, 0, CS_PIN_SCAN) {
		p = bpf_iter_scx_dsq_next(&it);
		if (!p)
			break;
		if (p->migration_disabled || !bound_to(p, cpu))
			continue;
		moved = cs_move_iterated(&it, p, SCX_DSQ_LOCAL);
		break;
	}
	bpf_iter_scx_dsq_destroy(&it);
	return moved;
}

/*
 * Over the untagged work's queues, @cpu's LLC's first: a task bound here
 * waits there, unless it was queued before this CPU's LLC was known (a
 * CPU offline at load, unfenced since).
 */
__attribute__((noinline)) int move_pinned(s32 cpu)
{
	u32 own = llcq_of(0, cpu), nq = slot_nq(0), k;

	bpf_for(k, 0, nq) {
		if (move_pinned_from(cpu, dsq_turn(0, own, k)))
			return 1;
	}
	return 0;
}

#endif /* __CS_GUARD_BPF_H */
