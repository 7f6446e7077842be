/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Lifecycles (part of coresched.bpf.c, included once there): a task's
 * context when it enters and leaves sched_ext (its cookie from its parent
 * at fork, or from the orphan record of a fork made while no scheduler
 * ran), cgroup weights, and CPUs coming online and going offline.
 *
 * Example: a shell of cookie A forks while scx_coresched runs:
 * cs_init_task() (inside copy_process) gives the child A, or fails the
 * fork with ENOMEM. The same fork with no scheduler loaded and no BPF
 * LSM: tagging.bpf.c's task_newtask tracepoint gives the child A; only a
 * child it could not tag is recorded (cs_fork_orphan), and the next load's
 * cs_init_task() gives it A from that record before it runs under
 * sched_ext (it ran under the kernel's own scheduler until then).
 */
#ifndef __CS_LIFECYCLE_BPF_H
#define __CS_LIFECYCLE_BPF_H

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
	tctx->pin_cpu = CS_PIN_NONE;
	tctx->last_cpu = CS_NO_CPU;
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
		pin_leave(tctx, false);
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

void BPF_STRUCT_OPS(cs_cgroup_move, struct task_struct *p, struct cgroup *from,
		    struct cgroup *to)
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

#endif /* __CS_LIFECYCLE_BPF_H */
