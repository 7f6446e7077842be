/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Commits (part of coresched.bpf.c, included once there): at every context
 * switch (the sched_switch tracepoint, inside __schedule()), record in the
 * core's word which slot this CPU now runs (cur); for a task of another
 * class, claim its cookie and preempt the siblings in conflict. Also the
 * end of a CPU that went down (takedown_cpu).
 *
 * Example, 2x2, CPU 0 switches from A to idle while CPU 1 idles forced
 * (it wants B): commit(idle) sets cur0 to none, and commit_cur() kicks
 * CPU 1, whose dispatch now claims B. Had an RT task of cookie 0 started
 * on CPU 0 instead, commit() would claim cookie 0 there (intrude()), and
 * preempt CPU 1 had it been running another cookie.
 */
#ifndef __CS_COMMIT_BPF_H
#define __CS_COMMIT_BPF_H

/* Commit: at a context switch, record what this CPU now runs. */
static void commit(struct task_struct *p)
{
	s32 cpu = bpf_get_smp_processor_id();
	struct task_ctx *tctx;
	u16 slot;

	if (draining(cpu))
		drained[cpu & (CS_MAX_CPUS - 1)] = (p->flags & PF_IDLE) ||
						   bound_kthread(p, cpu);
	/*
	 * A claim kept for an intruder's commit that did not come (intrude;
	 * on 6.12 ops.cpu_release is always followed by it): defensive.
	 */
	if ((p->flags & PF_IDLE) ||
	    (const void *)p->sched_class == &ext_sched_class)
		cpu_stat(cpu)->kept = 0;
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
		u16 was = cs_cur(core_read(cpu), sib_of(cpu));

		slot = foreign_slot(p);
		commit_cur(cpu, slot);
		intrude(cpu, slot, was == CS_SLOT_NONE, true);
		return;
	}
	tctx = task_ctx(p);
	slot = tctx && tctx->slot != CS_SLOT_NONE ? tctx->slot : CS_SLOT_EXCL;
	/*
	 * Leaving another cookie, possibly without a dispatch (our task was
	 * queued here before an intruder ran, see intrude()): the siblings
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

#endif /* __CS_COMMIT_BPF_H */
