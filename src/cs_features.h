/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the running kernel offers the tagging layer, and the plan chosen
 * from it: who answers prctl(PR_SCHED_CORE), and how a child inherits its
 * parent's cookie. A plain function over plain structs, so every
 * combination is tested on the host (tests/test_features.c).
 *
 * The one rule every plan keeps: the kernel's own core scheduling must
 * never engage beside a sched_ext scheduler (it hung the test guest). A
 * kernel with CONFIG_SCHED_CORE engages it on the first prctl cookie, so
 * on such a kernel every PR_SCHED_CORE call must be answered by us or
 * refused by the BPF LSM backstop; without a working BPF LSM, nothing can
 * refuse the calls our kprobe misses, and there is no plan.
 */
#ifndef __CS_FEATURES_H
#define __CS_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

struct cs_features {
	bool override;    /* kprobes may call bpf_override_return()
			   * (CONFIG_BPF_KPROBE_OVERRIDE) */
	bool bpf_lsm;     /* BPF LSM programs run: CONFIG_BPF_LSM and "bpf"
			   * among the active LSMs (probed, not assumed) */
	bool kernel_core; /* the kernel has its own core scheduling
			   * (CONFIG_SCHED_CORE: task_struct.core_cookie) */
};

enum cs_prctl_want {
	CS_PRCTL_SERVE,  /* answer PR_SCHED_CORE as upstream does (default) */
	CS_PRCTL_REFUSE, /* refuse it (EPERM); tags only from coreschedctl */
};

enum cs_prctl_answer {
	CS_ANSWER_SERVED,  /* our kprobe handler, upstream semantics */
	CS_ANSWER_EPERM,   /* the LSM backstop refuses every call */
	CS_ANSWER_EINVAL,  /* the kernel itself: it has no core scheduling */
};

struct cs_tagging_plan {
	bool handler;      /* attach the prctl kprobe handler */
	bool backstop;     /* attach the task_prctl LSM backstop */
	bool inherit_lsm;  /* inherit at task_alloc (ENOMEM fails the fork) */
	bool inherit_tp;   /* inherit at task_newtask (cannot fail the
			    * fork: a failed allocation is only counted) */
	enum cs_prctl_answer answer;
};

/*
 * Choose the plan for @f and @want. Returns 0, or -1 with a message in
 * @err naming what the kernel lacks and what to do.
 */
int cs_plan_tagging(const struct cs_features *f, enum cs_prctl_want want,
		    struct cs_tagging_plan *plan, char *err, size_t len);

/* One line describing @plan, for the loader's start-up message. */
const char *cs_plan_describe(const struct cs_tagging_plan *plan);

#endif /* __CS_FEATURES_H */
