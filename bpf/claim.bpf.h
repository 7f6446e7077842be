/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Claims (part of coresched.bpf.c, included once there): how a CPU takes
 * a cookie in its core's state word and moves one of its tasks to itself
 * (try_run), gives a claim up (set_claim), forces a cookie on the core
 * when something ran without asking (impose), and wakes the siblings
 * that idled because of it (kick_forced_siblings, commit_cur). Also the
 * dispatch of a draining CPU. The protocol and its worked example are in
 * coresched.bpf.c (2. Claims and commits); the word is core_state.bpf.h's.
 *
 * Example of try_run() on CPU 1, its sibling CPU 0 running A: a claim of
 * A succeeds (compatible), move_local_first() moves A's task queued on
 * CPU 1's runqueue, if one is within a slice of A's head, else the head;
 * a claim of B finds cur0=A: RUN_BLOCKED, and CPU 1 idles with its forced
 * flag set until CPU 0's switch away from A commits and kicks it.
 */
#ifndef __CS_CLAIM_BPF_H
#define __CS_CLAIM_BPF_H

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
 * @cpu's claim or cur went from @old to @slot: leaving a cookie frees the
 * siblings it forced idle.
 */
static void left_cookie(s32 cpu, u16 old, u16 slot)
{
	if (old != slot && old != CS_SLOT_NONE)
		kick_forced_siblings(cpu);
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
	left_cookie(cpu, core_set_cur(cpu, slot), slot);
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

/* Change this CPU's claim; leaving a cookie frees its forced siblings. */
static void set_claim(s32 cpu, u16 slot)
{
	left_cookie(cpu, core_set_next(cpu, slot), slot);
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
			cpu_stat(c)->disp_owed = 1; /* no cs_sync_keep there */
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

/*
 * A task of another class, of @slot, takes @cpu: ops.cpu_release
 * (@committed false: cur still names the task it preempts), then its
 * commit (@committed true: cur names the intruder). Tasks of ours left on
 * the CPU's local DSQ run right after it, with no ops.dispatch and so no
 * new claim: one that ops.dispatch moved there just before the intruder
 * won the pick (an idle or foreign previous task: no ops.cpu_release
 * re-queues it), or the preempted task itself when it is being migrated
 * (p->migration_pending: the kernel's re-queue skips it, and the stopper
 * leaves it here if its affinity allows this CPU again by then, or if it
 * is inside migrate_disable()). While such a task waits, its claim stays
 * the CPU's: at ops.cpu_release the CPU claims the intruder's cookie,
 * which with the task's cur blocks whatever conflicts with either, and
 * remembers the task's claim (kept); the commit, with the intruder in
 * cur, claims it again. Siblings in conflict with the intruder are
 * preempted either way. With no task waiting, the CPU claims the
 * intruder's cookie (impose). Only where the intruder runs briefly
 * (@may_keep): the migration stopper at ops.cpu_release, or a commit from
 * idle; behind an RT task that may spin (closed.sh's FIFO spinner, RT
 * throttling off), a kept claim would hold the siblings idle for as long
 * as it runs (with the claim kept behind any intruder, closed.sh's drain
 * test once saw the scheduler ejected; the cause was not traced).
 *
 * Example, 2x2 strict, CPU 2 runs T of cookie A while T re-pins itself:
 * the stopper (cookie 0) preempts T and T stays queued on CPU 2. The word
 * reads next 0, cur A, then next A, cur 0: CPU 3 starts nothing
 * meanwhile, and T, if the stopper leaves it here, runs under its claim.
 * Had the claim stayed 0, CPU 3 could start untagged work and T run A
 * beside it until a kick landed (0.26 and 0.95 ms windows in TCG guests,
 * soak_stress). The cost: while the intruder runs, siblings run only what
 * is compatible with both (here nothing), also when the stopper does move
 * T away; the next dispatch here, or the next intruder's commit, ends it.
 */
static void intrude(s32 cpu, u16 slot, bool may_keep, bool committed)
{
	struct cs_cpu_stat *st = cpu_stat(cpu);
	u16 claim = cs_next(core_read(cpu), sib_of(cpu));
	bool keep;

	if (committed && st->kept) { /* the task's claim at ops.cpu_release */
		claim = st->kept - 1;
		may_keep = true;
	}
	keep = may_keep && claim != CS_SLOT_NONE && claim != slot &&
	       cs_nr_queued(SCX_DSQ_LOCAL) > 0;
	st->kept = keep && !committed ? claim + 1 : 0;
	if (keep && committed) {
		set_claim(cpu, claim);
		preempt_conflicts(cpu, slot);
	} else {
		impose(cpu, slot);
	}
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
		__sync_fetch_and_add(&slot_stat(st->fi_slot)->forced_idle_ns,
				     d);
}

/* What try_run() found. */
enum run_result {
	RUN_OK, /* this CPU has work of the slot */
	RUN_BLOCKED, /* a sibling holds a conflicting cookie, or is in transit */
	RUN_NOT_HERE, /* none of the slot's queued tasks can run here now
			 (bound elsewhere, or taken by another CPU first) */
};

/*
 * Keep running @prev with a new slice, if it is still of @slot; false if
 * not. A re-queue refreshes its slot (ops.enqueue); a re-tag without one
 * is the tick's to find, as for any running task. The new slice is a
 * plain one: no stretch of an earlier renewal (slice_renew) is left in it.
 */
static bool prev_kept(struct task_struct *prev, u16 slot)
{
	struct task_ctx *tctx = task_ctx(prev);

	if (!tctx || tctx->slot != slot)
		return false;
	prev->scx.slice = slice_ns;
	tctx->stretch = 0;
	return true;
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
 * otherwise (consume's choice; also when the head waited past
 * CS_TASK_MAX_WAIT_NS, guard.bpf.h): the order inside a queue bends by at
 * most a slice (across two LLCs' queues by up to two: the steal below
 * waits for a slice, and the local pick may bend one more), and the
 * cookie's own vtime, which decides between cookies, is charged the
 * same. Example, a 5 ms slice: T1 and T3 of A were
 * queued on CPU 0, T2 and T4 on CPU 1; CPU 0's slice of T1 ends with T2
 * (vtime 10 ms) at the head, then T3 (12 ms): CPU 0 takes T3, and the two
 * pairs keep their CPUs, as per-CPU runqueues would. Only which task of
 * the claimed cookie runs changes; the claim comes first, as before. (An
 * untagged task bound to this CPU that waited past the guard is moved
 * first, from wherever it waits: guard.bpf.h.)
 * With more than one last-level cache (sockets), each cookie has a queue
 * per LLC (up to CS_LLC_QUEUES; cs_llc_queue()), a task waits in the
 * queue of the LLC of the CPU it was placed on, and a CPU takes from its
 * own LLC's queue unless another's waited a slice longer or its own has
 * nothing for it (steal_queue(); after its own, any other:
 * move_from_others()). Where LLCs share a queue (more of them than queues, or one first seen after
 * the load), a CPU that finds none of its own takes the first task of the
 * queue that waits on a CPU of its LLC: on 2 sockets sharing one queue,
 * T5 of A queued on CPU 1 (socket 0) and T6 behind it on CPU 5 (socket
 * 1): CPU 4 (socket 1) takes T6, and T5 waits for socket 0 or, once more
 * than a slice behind the tasks after it, for any CPU. The cookie's one
 * vtime is charged the same whichever queue its task came from, so the
 * fairness between cookies holds across LLCs as within one; inside a
 * cookie, where two LLCs both take its tasks, the order bends by up to
 * two slices.
 */
static bool cpu_active_now(s32 cpu); /* place.bpf.h */

/*
 * The vtime of the first task of queue @dsq that may run on @cpu, among
 * its first CS_PEEK_TASKS: CS_HEAD_NONE if no queued task may, and if
 * none of the first CS_PEEK_TASKS may and more are queued, CS_HEAD_PAST
 * with the vtime of the first task past them (cs_head_vt), a lower bound
 * on that of the first that may.
 */
__attribute__((noinline)) u64 queue_head_vt(s32 cpu, u64 dsq)
{
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	u64 vt = CS_HEAD_NONE;
	int n;

	/* An empty queue is not iterated (its lock not taken). */
	if (cs_nr_queued(dsq) <= 0)
		return vt;
	bpf_iter_scx_dsq_new(&it, dsq, 0);
	bpf_for(n, 0, CS_PEEK_TASKS + 1) {
		p = bpf_iter_scx_dsq_next(&it);
		if (!p)
			break;
		if (n == CS_PEEK_TASKS) {
			/* This one's vtime: the first that may run is later. */
			vt = CS_HEAD_PAST | (p->scx.dsq_vtime & ~CS_HEAD_PAST);
			break;
		}
		if (bpf_cpumask_test_cpu(cpu, p->cpus_ptr)) {
			vt = p->scx.dsq_vtime;
			break;
		}
	}
	bpf_iter_scx_dsq_destroy(&it);
	return vt;
}

/*
 * Per-LLC queues (cs_llc_queues): the queue of @slot, other than @cpu's
 * LLC's, to take a task from before its own; -1 for its own. Another
 * LLC's is taken from when its first task that may run here waited more
 * than a slice longer (a lower vtime, on the cookie's one clock) than the
 * first of our own, or our own has none for this CPU (cs_llc_steal; not
 * when none of our own's first CS_PEEK_TASKS may run here but more are
 * queued: its consume looks further first; another queue in that case
 * counts by the vtime of the first task past the peek, a lower bound, so
 * a task there behind tasks bound elsewhere is not passed over for ever):
 * a task stays on its socket unless another socket's CPU of its cookie
 * is free first, and a busy socket's backlog is shared with a less busy
 * one once it is a slice deep. Example, 2 sockets, cookie A: CPU 4 (socket 1) finds A's
 * socket 1 queue empty and T5 in socket 0's: it takes T5. Had socket 1's
 * queue T6 at vtime 20 ms and T5 been at 12 ms (a 5 ms slice), CPU 4
 * would take T5 too; at 16 ms, T6.
 */
__attribute__((noinline)) int steal_queue(s32 cpu, u32 slot)
{
	u32 own = llcq_of(slot, cpu), q;
	u64 best = CS_HEAD_NONE, vt;
	int from = -1;

	bpf_for(q, 0, slot_nq(slot)) {
		if (q == own)
			continue;
		vt = queue_head_vt(cpu, dsq_at(slot, q));
		if (vt != CS_HEAD_NONE &&
		    (from < 0 || cs_head_vt(vt) < cs_head_vt(best))) {
			best = vt;
			from = q;
		}
	}
	if (from < 0 || !cs_llc_steal(queue_head_vt(cpu, dsq_at(slot, own)),
				      best, slice_ns))
		return -1;
	return from;
}

/*
 * Move a task of any queue of @slot but @cpu's own here (the last try),
 * the queues after its own first, so that the LLCs do not all fall on
 * the first queue.
 */
__attribute__((noinline)) int move_from_others(s32 cpu, u32 slot)
{
	u32 own = llcq_of(slot, cpu), nq = slot_nq(slot), k;

	bpf_for(k, 1, nq) {
		if (cs_move_to_local(dsq_turn(slot, own, k))) {
			cpu_stat(cpu)->llc_steals++;
			return 1;
		}
	}
	return 0;
}

__attribute__((noinline)) int move_local_first(s32 cpu, u32 slot)
{
	struct task_struct *p, *near = NULL; /* near: first of this LLC */
	struct bpf_iter_scx_dsq it;
	bool seen = false, moved = false;
	u64 head_vt = 0, dsq;
	int n = 0, from;
	s32 at;

	PROF_START();
	/* This CPU owes its bound untagged task a turn (guard.bpf.h). */
	if (slot == 0 && pin_overdue(cpu, bpf_ktime_get_ns()) &&
	    move_pinned(cpu))
		return 1;
	if (!vtime_ordered(slot)) {
		moved = cs_move_to_local(dsq_at(slot, 0));
		PROF_MARK(CS_PROF_MOVE_CONSUME);
		return moved;
	}
	if (slot_nq(slot) > 1) {
		from = steal_queue(cpu, slot);
		if (from >= 0 && cs_move_to_local(dsq_at(slot, from))) {
			cpu_stat(cpu)->llc_steals++;
			PROF_MARK(CS_PROF_MOVE_CONSUME);
			return 1;
		}
	}
	dsq = dsq_here(slot, cpu);
	bpf_iter_scx_dsq_new(&it, dsq, 0);
	while ((p = bpf_iter_scx_dsq_next(&it))) {
		if (++n > CS_PEEK_TASKS)
			break;
		if (!bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		if (!seen) {
			seen = true;
			head_vt = p->scx.dsq_vtime;
			/*
			 * Overdue (the task guard put it at the head, or it
			 * waited there): no bend, the consume below takes it
			 * from whichever runqueue it waits on. Bent past, it
			 * would wait while this runqueue's tasks of its cookie
			 * each run up to a slice of vtime. Not one that cannot
			 * leave its CPU (migrate_disable): its CPU takes it.
			 */
			if (task_overdue_now(p) && (!p->migration_disabled ||
						    scx_bpf_task_cpu(p) == cpu))
				break;
		}
		if (p->scx.dsq_vtime > head_vt + slice_ns)
			break;
		/*
		 * Not a task in migrate_disable(): some 6.12 kernels send it
		 * to the global DSQ from here; consume takes it correctly.
		 */
		if (p->migration_disabled)
			continue;
		at = scx_bpf_task_cpu(p);
		if (at != cpu) {
			if (nr_llcs > 1 && !near && llc_of(at) == llc_of(cpu))
				near = p;
			continue;
		}
		/* On this runqueue: a local move, never a migration. */
		moved = cs_move_iterated(&it, p, SCX_DSQ_LOCAL);
		break;
	}
	/*
	 * None of its own: one of its LLC (still queued, or not moved); not
	 * while this CPU goes down (cpu_active_now), where that move would
	 * end on the global queue: the consume below skips what cannot run
	 * here.
	 */
	if (!moved && near && cpu_active_now(cpu))
		moved = cs_move_iterated(&it, near, SCX_DSQ_LOCAL);
	bpf_iter_scx_dsq_destroy(&it);
	PROF_MARK(CS_PROF_MOVE_LOCAL);
	if (moved)
		return 1;
	moved = cs_move_to_local(dsq);
	if (!moved && slot_nq(slot) > 1)
		moved = move_from_others(cpu, slot);
	PROF_MARK(CS_PROF_MOVE_CONSUME);
	return moved;
}

/*
 * @core's tagged owner is @slot now (core_owner): move the core's count
 * in slot_cores from the last owner, if it changed. An exchange, so each
 * change is counted once when siblings claim at once. A count outlives
 * its cookie when the slot is freed with a core still naming it, and a
 * core keeps its owner while it idles or runs untagged work: the counts
 * only steer cs_yield_grace(), never a safety check.
 */
static void owner_move(u32 core, u32 slot)
{
	u32 old;

	if (!cs_tagged(slot) || core_owner[core] == slot)
		return;
	old = __sync_lock_test_and_set(&core_owner[core], slot);
	if (old == slot)
		return;
	if (cs_tagged(old))
		__sync_fetch_and_sub(&slot_cores[CS_SLOT_IDX(old)], 1);
	__sync_fetch_and_add(&slot_cores[CS_SLOT_IDX(slot)], 1);
}

/*
 * Claim @slot and move one of its tasks here (move_local_first), or keep
 * @prev if it is of @slot and nothing else of it waits. Returns an enum
 * run_result. A global function, verified once instead of at each of
 * dispatch's six calls: the verifier processed a fifth fewer
 * instructions for cs_dispatch (53,892 instead of 68,602).
 */
__attribute__((noinline)) int
try_run(s32 cpu, u32 slot,
	struct task_struct *prev __arg_trusted __arg_nullable, u32 prev_slot,
	u32 was)
{
	struct cs_cpu_stat *st = cpu_stat(cpu);
	u32 core = core_of(cpu);
	u16 last;
	int v;

	PROF_START();
	v = core_claim(cpu, slot);
	PROF_MARK(CS_PROF_CLAIM);

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
		if (!prev || prev_slot != slot || !prev_kept(prev, slot)) {
			set_claim(cpu, CS_SLOT_NONE);
			return RUN_NOT_HERE;
		}
	}
	PROF_SKIP(); /* the move has sections of its own */
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
	last = core_last[core];
	if (last != slot) {
		if (!cs_tagged(slot) || !cs_tagged(last))
			st->untagged_switches++;
		core_prev[core] = last;
		core_last[core] = slot;
		st->cookie_switches++;
	}
	owner_move(core, slot);
	/*
	 * Where its tasks find it running (pick_cpu): a tagged cookie's, and
	 * written only when it changes core, so siblings taking turns at a
	 * cookie write nothing.
	 */
	if (cs_tagged(slot) && slot_core[CS_SLOT_IDX(slot)] != core + 1)
		slot_core[CS_SLOT_IDX(slot)] = core + 1;
	PROF_MARK(CS_PROF_RUN_REST);
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
	return (p->flags & PF_KTHREAD) && bound_to(p, cpu);
}

/*
 * Stranded tasks. A task waiting in our queues belongs to the runqueue of
 * the CPU it last ran on or was placed on. When that CPU goes offline, the
 * kernel puts every task of its runqueue on the CPU's local queue
 * (rq_offline_scx()), to run there once, unclaimed, until balance_push()
 * sends it away: a tenant runs beside whatever its siblings run until
 * ops.running's kick lands (1.9 ms in a TCG guest: t_b's stress-ng on CPU
 * 1 going down beside untagged work on CPU 0, then t_a's). So once the
 * draining CPUs run nothing but their own kthreads, the loader runs
 * cs_drain_evacuate, which moves each such task that may run elsewhere to
 * the local queue of a CPU that stays (its own core's first, else the
 * first allowed), and waits until none is left. That CPU runs it after
 * its current task, unclaimed too, but its siblings are all draining and
 * run nothing but bound kthreads: ops.running claims the task's cookie
 * and kicks a sibling that runs one of those, the window kernel threads
 * have at hotplug anyway; in conflict with one (strict mode, cookie 0
 * kthreads), the task also leaves at once and comes back through a claim
 * (cs_running). Tasks that can run nowhere else (allowed only
 * draining CPUs, or in migrate_disable()) stay, counted in unmovable[]
 * for the loader to report, not waited for: the kernel runs them there
 * whatever we do. A move that ends on the global queue (the target went
 * down meanwhile) counts as not done, and the loader scans again.
 * Example, 2x2, SMT going off: CPU 1 drained (idle), t_a's task T waits
 * in t_a's queue on CPU 1's runqueue; cs_drain_evacuate moves T to CPU
 * 0's local queue (CPU 2's if T may not run on CPU 0), stranded[1] is 0
 * at the next scan, and CPU 1 goes down with nothing of ours on it.
 */
u32 stranded[CS_MAX_CPUS]; /* per draining CPU, left at the last scan */
u32 unmovable[CS_MAX_CPUS]; /* ... that may run on draining CPUs only */
u64 evacuated; /* tasks moved off draining CPUs (the loader zeroes it) */

static bool may_leave(struct task_struct *p)
{
	return p->nr_cpus_allowed > 1 && !p->migration_disabled;
}

/* A CPU that stays for @p, stranded on @from: see above. -1 if none. */
static s32 evac_target(struct task_struct *p, s32 from)
{
	s32 c;
	int i;

	cs_for_each_sib(i) {
		c = sib_cpu(from, i);
		if (i < nr_sibs(from) && c >= 0 && c < CS_MAX_CPUS &&
		    !drain_cpu[c] && scx_online(c) &&
		    bpf_cpumask_test_cpu(c, p->cpus_ptr))
			return c;
	}
	bpf_for(c, 0, (s32)nr_cpus) {
		if (c < CS_MAX_CPUS && !drain_cpu[c] && scx_online(c) &&
		    bpf_cpumask_test_cpu(c, p->cpus_ptr))
			return c;
	}
	return -1;
}

__attribute__((noinline)) int evacuate(u64 dsq)
{
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	s32 c, to;

	bpf_rcu_read_lock(); /* the iterator needs it (a sleepable program) */
	bpf_iter_scx_dsq_new(&it, dsq, 0);
	while ((p = bpf_iter_scx_dsq_next(&it))) {
		c = scx_bpf_task_cpu(p);
		if (c < 0 || c >= CS_MAX_CPUS || !drain_cpu[c] ||
		    bound_kthread(p, c))
			continue;
		to = may_leave(p) ? evac_target(p, c) : -1;
		if (to < 0)
			unmovable[c]++; /* no use waiting: say so, go on */
		else if (cs_move_iterated(&it, p, SCX_DSQ_LOCAL_ON | (u32)to) &&
			 scx_bpf_task_cpu(p) == to)
			__sync_fetch_and_add(&evacuated, 1);
		else /* not moved, or to the global queue (@to went down) */
			stranded[c]++;
	}
	bpf_iter_scx_dsq_destroy(&it);
	bpf_rcu_read_unlock();
	return 0;
}

/*
 * Move the stranded tasks of the draining CPUs off them; count those it
 * could not move in stranded[] (run by the loader, scan_stranded()).
 */
SEC("syscall")
int cs_drain_evacuate(void *ctx)
{
	u32 i;

	bpf_for(i, 0, CS_MAX_CPUS) {
		stranded[i] = 0;
		unmovable[i] = 0;
	}
	bpf_for(i, 0, CS_NR_SLOTS * nr_llcq)
		if (cs_nr_queued(dsq_nth(i)) > 0)
			evacuate(dsq_nth(i));
	evacuate(DSQ_TRUST);
	evacuate(DSQ_EXCL);
	return 0;
}

/*
 * Claim @slot and move the first kthread of it bound to @cpu here, from
 * queue @dsq of @slot. -1 if the claim failed, else whether one moved.
 */
static int drain_move_from(s32 cpu, u16 slot, u64 dsq)
{
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	int moved = 0;

	if (cs_nr_queued(dsq) <= 0)
		return 0;
	bpf_iter_scx_dsq_new(&it, dsq, 0);
	while ((p = bpf_iter_scx_dsq_next(&it))) {
		if (!bound_kthread(p, cpu))
			continue;
		/* A fenced CPU has no core word to claim in. */
		if (!fenced(cpu) && core_claim(cpu, slot) != CS_CLAIM_OK) {
			moved = -1;
			break;
		}
		moved = cs_move_iterated(&it, p, SCX_DSQ_LOCAL);
		break;
	}
	bpf_iter_scx_dsq_destroy(&it);
	return moved;
}

/*
 * drain_move_from() over the queues of @slot, @cpu's LLC's first (where
 * a task bound there waits, unless it was queued before the CPU's LLC was
 * known: a CPU offline at load, unfenced since).
 */
static bool drain_move(s32 cpu, u16 slot)
{
	u32 own = llcq_of(slot, cpu), nq = slot_nq(slot), k;
	int r;

	bpf_for(k, 0, nq) {
		r = drain_move_from(cpu, slot, dsq_turn(slot, own, k));
		if (r)
			return r > 0;
	}
	return false;
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

#endif /* __CS_CLAIM_BPF_H */
