/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pick (part of coresched.bpf.c, included once there): which cookie a
 * core should run. The most deserving cookie is the queued one with the
 * lowest vtime (pick_best), found through the queue bounds without looking
 * at every live cookie (include/cs_policy.h); then affinity
 * (best_for_core), fill mode's tagged owner (best_tagged), whether the
 * handover is this core's to make (due_here) and stickiness
 * (sticky_rival) bend it, each explained with an example at its function.
 * When no other cookie is due, the tick may renew a slice (slice_renew).
 *
 * Worked example, 130 tagged cookies queued, queued_mask words 0, 1 and 2
 * (slots 1-63, 64-127, 128-191) with bounds 40, 12 and 90 ms, the
 * untagged work at 50 ms: pick_best_slot() looks at word 1 first (bound
 * 12), finds slot 70 at 12 ms, then stops: no other bound is below 12 ms.
 * The slots of words 0 and 2 are not read.
 */
#ifndef __CS_PICK_BPF_H
#define __CS_PICK_BPF_H

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
		i = k * 64 + low_bit(bits);
		bits &= bits - 1;
		if (i >= CS_NR_SLOTS)
			break;
		if (!queued_counted(i))
			continue;
		v = *vtime_of(i);
		if (v < low)
			low = v;
		if (v < bvt && !skipped(i, skips) && slot_waits(i)) {
			best = i;
			bvt = v;
		}
	}
	/* Written only if it changes: every CPU's picks read this line. */
	if (cs_qb_refresh(w0, low) != w0)
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
 * dispatch or tick reads CS_LIVE_WORDS bounds per word it looks at (one
 * pass finds the lowest bound and the next lowest: when that one is not
 * below the best found in the lowest's word, no pass follows), and looks
 * at one or two words of 64 slots when the bounds are fresh, not at
 * every live cookie.
 */
__attribute__((noinline)) u32 pick_best_slot(u32 skip_a, u32 skip_b, u32 skip_c)
{
	u64 bvt = ~0ULL, looked[2] = {},
	    skips = skip_set(skip_a, skip_b, skip_c);
	u32 best = CS_SLOT_NONE;
	s32 n, j;

	_Static_assert(CS_LIVE_WORDS <= 128, "looked[] has 128 bits");
	if (!skipped(0, skips) && slot_waits(0)) {
		best = 0;
		bvt = *vtime_of(0);
	}
	bpf_for(n, 0, CS_LIVE_WORDS) {
		u64 low = ~0ULL, next = ~0ULL, b;
		u32 k = CS_LIVE_WORDS;

		bpf_for(j, 0, CS_LIVE_WORDS) {
			if (looked[(j >> 6) & 1] & (1ULL << (j & 63)))
				continue;
			b = cs_qb_bound(queued_bound[j & (CS_LIVE_TBL - 1)]);
			cs_qb_rank(b, j, &k, &low, &next);
		}
		if (k >= CS_LIVE_WORDS || low >= bvt)
			break;
		looked[(k >> 6) & 1] |= 1ULL << (k & 63);
		best = pick_in_word(k, skips, best, bvt);
		if (best < CS_NR_SLOTS)
			bvt = *vtime_of(best);
		/* No other bound of this pass is below it (cs_qb_rank). */
		if (next >= bvt)
			break;
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

/*
 * Siblings of @cpu's core that may take any work: not draining (about to
 * go down, Draining in claim.bpf.h; draining() covers fenced CPUs too).
 * @cpu too is left out if it drains (its tick, running one of its bound
 * kthreads): a cookie that may run only there must not end that slice.
 */
static u32 sibs_live(s32 cpu)
{
	int nr = nr_sibs(cpu), i;
	u32 live = 0;

	cs_for_each_sib(i) {
		s32 c = sib_cpu(cpu, i);

		if (i < nr && c >= 0 && !draining(c))
			live |= 1U << i;
	}
	return live;
}

/*
 * Siblings of @cpu's core (bit i: sibling i) on which one of the first
 * CS_PEEK_TASKS queued tasks of queue @dsq may run (affinity); 0 if none.
 * @live: sibs_live(@cpu). A draining sibling counts only for a kthread
 * bound to it (what its dispatch runs: cpuhp/N, its kworkers), not for
 * other tasks: a cookie
 * whose tasks may run only there would win the core, and the core would
 * idle for it (2x2, SMT going off, t_a allowed CPUs 1 and 2: core {0, 1}
 * took t_a's turn, CPU 0 could not run it and CPU 1 ran nothing but
 * kthreads, while CPU 2 could).
 */
__attribute__((noinline)) u32 queue_can_run(s32 cpu, u64 dsq, u32 live)
{
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	int nr = nr_sibs(cpu), n = 0, i;
	u32 all = (1U << nr) - 1, found = 0;

	if (cs_nr_queued(dsq) <= 0)
		return 0;
	bpf_iter_scx_dsq_new(&it, dsq, 0);
	while ((p = bpf_iter_scx_dsq_next(&it))) {
		if ((u32)p->nr_cpus_allowed >= nr_cpus) {
			found |= live;
		} else {
			cs_for_each_sib(i) {
				s32 c = sib_cpu(cpu, i);

				if (i < nr && c >= 0 &&
				    bpf_cpumask_test_cpu(c, p->cpus_ptr) &&
				    ((live & (1U << i)) || bound_kthread(p, c)))
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
 * Siblings of @cpu's core on which a task of @slot may run, by the first
 * CS_PEEK_TASKS of each of its queues, @cpu's LLC's first; 0 if none.
 */
__attribute__((noinline)) u32 core_can_run(s32 cpu, u32 slot)
{
	u32 own = llcq_of(slot, cpu), nq = slot_nq(slot), k, found;
	u32 all = (1U << nr_sibs(cpu)) - 1, live;

	if (slot > CS_SLOT_EXCL)
		return 0;
	live = sibs_live(cpu);
	found = queue_can_run(cpu, dsq_at(slot, own), live);
	bpf_for(k, 1, nq) {
		if (found == all)
			break;
		found |= queue_can_run(cpu, dsq_turn(slot, own, k), live);
	}
	return found;
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
__attribute__((noinline)) int due_in(s32 cpu, u32 slot, u64 dsq)
{
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	u64 now = bpf_ktime_get_ns();
	u32 core = core_of(cpu);
	int n = 0, here = 0;

	if (cs_nr_queued(dsq) <= 0)
		return 0;
	bpf_iter_scx_dsq_new(&it, dsq, 0);
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
 * Over each queue of @slot in turn, @cpu's LLC's first: due_in() of any
 * (its "more are queued" counts per queue).
 */
__attribute__((noinline)) int due_here(s32 cpu, u32 slot)
{
	u32 own = llcq_of(slot, cpu), nq = slot_nq(slot), k;

	if (!vtime_ordered(slot))
		return 1;
	bpf_for(k, 0, nq) {
		if (due_in(cpu, slot, dsq_turn(slot, own, k)))
			return 1;
	}
	return 0;
}

/*
 * The grace before @held's core goes to @best: longer when both are
 * tagged and @best already owns as many cores as @held (cs_yield_grace).
 * Untagged work keeps the plain grace, either way: its stays are short
 * and rare, and the guards bound its waits (guard.bpf.h); so does none
 * mode, where a core has no owner.
 */
static u64 yield_grace(u32 held, u32 best)
{
	if (!cs_tagged(held) || !cs_tagged(best) || mode == CS_MODE_NONE)
		return grace_ns;
	return cs_yield_grace(grace_ns,
			      *(volatile s32 *)&slot_cores[CS_SLOT_IDX(held)],
			      *(volatile s32 *)&slot_cores[CS_SLOT_IDX(best)]);
}

/*
 * Should a core that @held runs go to @best, the most deserving at vtime
 * @bvt: a rival ahead of which @held is by more than yield_grace()?
 */
static bool yields_to(u16 held, u16 best, u64 bvt)
{
	return best != CS_SLOT_NONE && cs_rivals(held, best, mode) &&
	       cs_should_yield(slot_vt(held), bvt, yield_grace(held, best));
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
		    *vtime_of(s) > *rvt + grace_ns || !slot_waits(s) ||
		    !core_can_run(cpu, s))
			continue;
		*rvt = *vtime_of(s);
		return s;
	}
	return rival;
}

/*
 * Renewal. A task whose slice is about to run out (less than half of it
 * or a tick and a half left: cs_renew_due) gets a new one (cs_renew_slice)
 * when the tick found no other cookie due on its core, no trusted
 * kthread, bound untagged task or local task waits, and no task of its
 * own cookie that may run here waits with a vtime more than a slice below
 * its own (among the first CS_PEEK_TASKS of each of its queues; past them
 * in its own LLC's queue, no renewal, so a task bound here further back
 * is not kept out; another LLC's normally holds no task bound here, as
 * enqueue goes by the task's CPU). The dispatch at the
 * slice's end would have kept the cookie and taken a task no more
 * deserving, at the cost of a dispatch, a re-queue and a context switch.
 * Example: four CPU-bound threads of A on a core, T1 running at vtime 12
 * ms, T3 waiting at 10 ms: T1 is renewed (12 <= 10 + 5) until it passes
 * 15 ms, then its slice ends and T3 runs. Inside a queue, tasks stay
 * within about two slices of each other, as move_local_first() allows
 * (across two LLCs' queues, about three).
 * A slice already 0 (ended, or zeroed by a sibling's preempting kick) is
 * never renewed, so no handover asked for is undone, and the claim and
 * cur of this CPU stay what they were: isolation is untouched.
 * A renewed slice longer than slice_ns (a tick and a half of a slow
 * tick) only has to reach the next tick: a tick that then renews no more
 * takes that stretch back (cs_renew_refused), so the task stops when a
 * plain renewal's slice would have. Example, HZ=100, a 5 ms slice: a
 * renewal gives 15 ms, 10 ms of it stretch; the next tick, 10 ms on,
 * renews no more (T3 is due): 5 ms are left, all stretch, so the slice
 * ends there, as a plain one would have.
 */
static void slice_renew(s32 cpu, struct task_struct *p, struct task_ctx *tctx)
{
	u16 slot = tctx->slot;
	u32 own = llcq_of(slot, cpu), k;
	bool keep = true;
	u64 vt;

	if (!cs_renew_due(p->scx.slice, renew_below_ns) || slot >= CS_NR_SLOTS)
		return;
	if ((trust_kthreads && cs_nr_queued(DSQ_TRUST) > 0) ||
	    pin_of(cpu)->nr > 0 || cs_nr_queued(SCX_DSQ_LOCAL) > 0)
		keep = false;
	/*
	 * Past the peek in another LLC's queue counts as none: a task bound
	 * here normally waits in this LLC's (enqueue goes by the task's CPU).
	 */
	bpf_for(k, 0, slot_nq(slot)) {
		if (!keep)
			break;
		vt = queue_head_vt(cpu, dsq_at(slot, k));
		if (cs_head_past(vt) && k != own)
			vt = CS_HEAD_NONE;
		keep = cs_renew_keeps(p->scx.dsq_vtime, vt, slice_ns);
	}
	if (!keep) {
		p->scx.slice = cs_renew_refused(p->scx.slice, tctx->stretch);
		tctx->stretch = 0;
		return;
	}
	p->scx.slice = renew_slice_ns;
	tctx->stretch = renew_slice_ns - slice_ns;
	if (p->scx.dsq_vtime > *tvnow_of(slot))
		*tvnow_of(slot) = p->scx.dsq_vtime;
	cpu_stat(cpu)->renewals++;
}

#endif /* __CS_PICK_BPF_H */
