// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tagging plan (cs_features.h). The table, K = override, L = BPF LSM,
 * C = the kernel's own core scheduling:
 *
 *   K L C  serve                       refuse
 *   1 1 *  handler, backstop, LSM      backstop (EPERM), LSM inheritance
 *          inheritance
 *   0 1 *  backstop (EPERM), LSM inheritance
 *   * 0 1  none: a 32-bit prctl the kprobe misses (or every prctl, without
 *          the handler) would engage the kernel's core scheduling
 *   1 0 0  handler, tracepoint         kernel answers EINVAL, tracepoint
 *          inheritance                 inheritance
 *   0 0 0  kernel answers EINVAL, tracepoint inheritance
 *
 * Tracepoint inheritance (task_newtask) cannot fail a fork; a child it
 * cannot tag is recorded, and the scheduler tags it before it runs under
 * sched_ext, where the scheduler's own init_task inherits and can fail
 * the fork (coresched.bpf.c).
 *
 * Example: a kernel with CONFIG_BPF_LSM=y and CONFIG_BPF_KPROBE_OVERRIDE=y
 * but without CONFIG_SCHED_CORE, booted without "bpf" among its LSMs:
 * K=1 L=0 C=0, so prctl is served and children inherit at task_newtask.
 */
#include <stdio.h>

#include "cs_common.h"
#include "cs_features.h"

int cs_plan_tagging(const struct cs_features *f, enum cs_prctl_want want,
		    struct cs_tagging_plan *plan, char *err, size_t len)
{
	*plan = (struct cs_tagging_plan){ 0 };
	if (f->kernel_core && !f->bpf_lsm)
		return cs_fail(err, len,
			       "the kernel has its own core scheduling (CONFIG_SCHED_CORE) but BPF LSM programs do not run, so nothing can stop a prctl(PR_SCHED_CORE) call that scx_coresched does not answer (a 32-bit caller%s) from engaging it beside sched_ext, which can hang the machine; add 'bpf' to the active LSMs (boot with lsm=...,bpf; the list is in /sys/kernel/security/lsm) on a kernel with CONFIG_BPF_LSM=y, or use a kernel without CONFIG_SCHED_CORE",
			       f->override && want == CS_PRCTL_SERVE ?
				       "" :
				       ", or any caller at all");
	plan->handler = f->override && want == CS_PRCTL_SERVE;
	plan->backstop = f->bpf_lsm;
	plan->inherit_lsm = f->bpf_lsm;
	plan->inherit_tp = !f->bpf_lsm;
	if (plan->handler)
		plan->answer = CS_ANSWER_SERVED;
	else if (plan->backstop)
		plan->answer = CS_ANSWER_EPERM;
	else
		plan->answer = CS_ANSWER_EINVAL;
	return 0;
}

const char *cs_plan_describe(const struct cs_tagging_plan *plan)
{
	static char buf[256];
	const char *answer = "served by scx_coresched";

	if (plan->answer == CS_ANSWER_EPERM)
		answer = "refused with EPERM";
	else if (plan->answer == CS_ANSWER_EINVAL)
		answer = "EINVAL from the kernel (it has no core scheduling)";
	snprintf(buf, sizeof(buf),
		 "prctl(PR_SCHED_CORE) %s; children inherit cookies at %s", answer,
		 plan->inherit_lsm ?
			 "task_alloc (a failed allocation fails the fork)" :
			 "task_newtask (a child that cannot be tagged there is recorded and tagged by the scheduler)");
	return buf;
}
