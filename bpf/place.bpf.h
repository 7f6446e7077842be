/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Placement (part of coresched.bpf.c, included once there): where a waking
 * task goes (ops.select_cpu), and which CPUs may get work at all (those
 * sched_ext sees online, not draining nor fenced).
 *
 * Worked example, 2x2, a task of A waking, idle CPUs 1 and 3: CPU 0 runs A
 * and CPU 2 runs B. pick_cpu() scores CPU 1 3 (its core already runs A)
 * and CPU 3 0 (B next door: no claim of A could succeed), so the task goes
 * to CPU 1. Had CPU 0 been idle too, CPU 1 would have scored 2 (an idle
 * core); a CPU whose core runs another compatible cookie (untagged work,
 * in fill mode) scores 1. With more than one last-level cache, a CPU of
 * the task's last LLC (that of prev_cpu) comes before every CPU of
 * another: its LLC is warm, and another socket gets the task only when
 * none of its own has a CPU that can take it.
 */
#ifndef __CS_PLACE_BPF_H
#define __CS_PLACE_BPF_H

/* sched_ext's flags of @cpu's runqueue (SCX_RQ_*). */
static u32 rq_scx_flags(s32 cpu)
{
	struct rq *rq = scx_bpf_cpu_rq(cpu);

	return rq ? rq->scx.flags : 0; /* a plain load: no helper call */
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

/* Untyped: 6.12's BTF has no global variables. */
extern const void __cpu_active_mask __ksym;

/*
 * cpu_active(@cpu). A CPU going down turns inactive before sched_ext sees
 * its runqueue offline, and until then its dispatch still runs; a task
 * moved from another runqueue to its local queue meanwhile is sent to the
 * global queue instead, which any CPU runs before ops.dispatch, without a
 * claim. Asked by @cpu about itself (its dispatch), the answer holds until
 * that dispatch ends: the hotplug thread of @cpu clears the bit, on @cpu,
 * and cannot run while the dispatch does.
 */
static bool cpu_active_now(s32 cpu)
{
	const struct cpumask *m = (const struct cpumask *)&__cpu_active_mask;

	return mask_word(m, (u32)cpu >> 6) & (1ULL << (cpu & 63));
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
 * @cpu's place_score() for a task last on LLC @home, raised by 4 if @cpu
 * is on it (or there is only one LLC): 5 to 7 on the home LLC, 1 to 3 on
 * another, 0 unusable.
 */
static int near_score(s32 cpu, u32 slot, u32 home)
{
	int score = place_score(cpu, slot);

	if (score && (nr_llcs <= 1 || llc_of(cpu) == home))
		score += 4;
	return score;
}

/*
 * Usable idle CPUs (score above 0) scored before the walk may stop at one
 * of the home LLC (score 5 or more), and before it stops in any case:
 * placement costs a bounded number of core words per wakeup on a host that
 * idles, not one per idle CPU (a 512-CPU host would read hundreds of cache
 * lines at each wakeup). CPUs that score 0 (beside another cookie) do not
 * count, so the walk never gives up with nothing found while an idle core
 * lies further on; on a busy host few CPUs are idle.
 */
#define CS_PLACE_LOOK 16
#define CS_PLACE_LOOK_MAX 64

/*
 * The state of one pick_cpu() walk. It lives in pick_cpu's stack; best,
 * best_score and looked are changed only by pick_take(), a global
 * function: the verifier then sees them as unknown after each call, so
 * pick_cpu's loops are verified in a few passes, not once per value of
 * best_score and looked (kept in locals, they cost about 55,000 processed
 * instructions in each of cs_select_cpu and cs_enqueue).
 */
struct pick {
	s32 best; /* the best CPU so far, or -1 */
	int best_score; /* its near_score() */
	int looked; /* usable CPUs the walk has scored */
	u32 slot; /* the task's slot */
	u32 home; /* its last LLC */
};

/*
 * Score idle CPU @cpu for @pk, keep it if it beats the best so far (ties
 * go to the first seen). True when the search should stop: @cpu scores 7;
 * or, if @count (the walk), CS_PLACE_LOOK usable CPUs have been scored and
 * the best is on the home LLC, or CS_PLACE_LOOK_MAX have been.
 */
__attribute__((noinline)) bool pick_take(struct pick *pk, s32 cpu, bool count)
{
	int score;

	if (!pk)
		return true;
	score = near_score(cpu, pk->slot, pk->home);
	if (score > pk->best_score) {
		pk->best = cpu;
		pk->best_score = score;
		if (score == 7)
			return true;
	}
	if (!count)
		return false;
	/* Never stop with nothing usable: an idle core may follow. */
	if (score)
		pk->looked++;
	return pk->looked >= CS_PLACE_LOOK_MAX ||
	       (pk->looked >= CS_PLACE_LOOK && pk->best_score >= 5);
}

/*
 * Best CPU for a task of @slot among the idle CPUs @p may run on, those
 * of @prev_cpu's LLC first (near_score): its cookie already on the core,
 * then an idle core, then any compatible one. Looked at in this order:
 *   1. @prev_cpu, taken at once if it is an idle core or its core runs
 *      the cookie (score 6 or 7);
 *   2. a tagged cookie's: the CPUs of the core that last took a task of
 *      @slot (slot_core[]), where it most likely still runs: the first of
 *      score 7 is taken;
 *   3. the other idle CPUs, a word (64 CPUs) at a time from @prev_cpu's
 *      word on, only the set bits (idle CPUs @p may use): the first of
 *      score 7 is taken; after CS_PLACE_LOOK usable ones, the best so far
 *      if it is on the home LLC; after CS_PLACE_LOOK_MAX, the best so far.
 * pick_take() scores each and keeps the best. Ties go to the first seen.
 * Returns -1 if none. Example, 2 sockets of 64 CPUs, a task of A last on
 * CPU 70, A's last task taken on CPU 80, whose sibling 81 idles: CPU 70 is
 * busy, CPU 81 scores 7 and is taken, no walk.
 * Global (verified once): @p is the kernel's (__arg_trusted), so its
 * cpus_ptr may be read.
 */
__attribute__((noinline)) s32 pick_cpu(struct task_struct *p __arg_trusted,
				       s32 prev_cpu, u32 slot)
{
	/* home ~0U: no LLC preferred (no prev_cpu) */
	struct pick pk = { .best = -1, .slot = slot, .home = ~0U };
	u64 cands[CS_MAX_CPUS / 64] = {};
	const struct cpumask *idle;
	u32 nwords = (nr_cpus + 63) / 64, k0 = 0, hint;
	int k, kk, j;
	s32 c;

	idle = scx_bpf_get_idle_cpumask();
	bpf_for(k, 0, CS_MAX_CPUS / 64) {
		if ((u32)k * 64 >= nr_cpus)
			break;
		cands[k & (CS_MAX_CPUS / 64 - 1)] = mask_word(idle, k) &
						    mask_word(p->cpus_ptr, k) &
						    cpus_in_word(k);
	}
	scx_bpf_put_idle_cpumask(idle);

	if (prev_cpu >= 0 && prev_cpu < CS_MAX_CPUS) {
		pk.home = llc_of(prev_cpu);
		k0 = (u32)prev_cpu / 64;
		if (cand_bit(cands, prev_cpu)) {
			pick_take(&pk, prev_cpu, false);
			if (pk.best_score >= 6)
				return pk.best;
		}
	}
	hint = cs_tagged(slot) ? slot_core[CS_SLOT_IDX(slot)] : 0;
	if (hint && hint <= CS_MAX_CPUS) {
		bpf_for(j, 0, CS_MAX_SMT) {
			if (j >= core_nr[(hint - 1) & (CS_MAX_CPUS - 1)])
				break;
			c = core_cpu[(hint - 1) & (CS_MAX_CPUS - 1)]
				    [j & (CS_MAX_SMT - 1)];
			if (c == CS_NO_CPU || (u32)c >= nr_cpus ||
			    c == prev_cpu || !cand_bit(cands, c))
				continue;
			if (pick_take(&pk, c, false))
				return pk.best;
		}
	}
	bpf_for(kk, 0, CS_MAX_CPUS / 64) {
		u64 bits;

		if ((u32)kk >= nwords)
			break;
		k = (k0 + kk) % nwords;
		bits = cands[k & (CS_MAX_CPUS / 64 - 1)];
		bpf_for(j, 0, 64) {
			if (!bits)
				break;
			c = k * 64 + low_bit(bits);
			bits &= bits - 1;
			/* prev_cpu and the hint's CPUs are scored already */
			if (c == prev_cpu || (hint && core_of(c) == hint - 1))
				continue;
			if (pick_take(&pk, c, true))
				return pk.best;
		}
	}
	return pk.best;
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
	 * spare an idle sibling the IPI. The wakee goes through ops.enqueue
	 * to its cookie's queue as any other; the hint lets this CPU's next
	 * dispatch keep the claim for it without the pick (cs_sync_keep).
	 */
	cpu = bpf_get_smp_processor_id();
	if ((wake_flags & SCX_WAKE_SYNC) && cpu < CS_MAX_CPUS &&
	    bpf_cpumask_test_cpu(cpu, p->cpus_ptr) &&
	    cs_next(core_read(cpu), sib_of(cpu)) == slot && scx_online(cpu)) {
		if (cs_tagged(slot))
			cpu_stat(cpu)->sync_hint = 1 + slot;
		return cpu;
	}
	cpu = pick_cpu(p, prev_cpu, slot);
	if (cpu >= 0 && scx_bpf_test_and_clear_cpu_idle(cpu))
		return cpu;
	if (scx_online(prev_cpu))
		return prev_cpu;
	/* Not onto a CPU that is coming up or going down (scx_online). */
	return any_online_cpu(p, prev_cpu);
}

#endif /* __CS_PLACE_BPF_H */
