// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for src/cs_features.c: the tagging plan for every
 * combination of kernel features and --prctl, against the rule that the
 * kernel's own core scheduling never engages beside ours.
 *
 * Prints one line per test, "PASS name" or "FAIL name: why"; exits 1 if any
 * test failed.
 */
#include <stdlib.h>

#include "cs_features.h"
#include "harness.h"

static struct cs_tagging_plan plan;
static char err[512];

static int plan_for(bool k, bool l, bool c, enum cs_prctl_want want)
{
	struct cs_features f = { .override = k, .bpf_lsm = l, .kernel_core = c };

	err[0] = '\0';
	return cs_plan_tagging(&f, want, &plan, err, sizeof(err));
}

/* The full plan: everything upstream offers, fail closed at fork. */
static bool test_full(void)
{
	CHECK_EQ(plan_for(1, 1, 1, CS_PRCTL_SERVE), 0);
	CHECK(plan.handler && plan.backstop && plan.inherit_lsm &&
		      !plan.inherit_tp,
	      "full kernel: handler %d backstop %d lsm %d tp %d", plan.handler,
	      plan.backstop, plan.inherit_lsm, plan.inherit_tp);
	CHECK_EQ(plan.answer, CS_ANSWER_SERVED);
	return true;
}

/* --prctl refuse: the backstop refuses; the handler stays out. */
static bool test_refuse(void)
{
	CHECK_EQ(plan_for(1, 1, 1, CS_PRCTL_REFUSE), 0);
	CHECK(!plan.handler && plan.backstop, "refuse: handler %d backstop %d",
	      plan.handler, plan.backstop);
	CHECK_EQ(plan.answer, CS_ANSWER_EPERM);
	return true;
}

/* No override: prctl cannot be served; with BPF LSM it is refused. */
static bool test_no_override(void)
{
	CHECK_EQ(plan_for(0, 1, 1, CS_PRCTL_SERVE), 0);
	CHECK(!plan.handler && plan.backstop && plan.inherit_lsm,
	      "no override: handler %d backstop %d", plan.handler,
	      plan.backstop);
	CHECK_EQ(plan.answer, CS_ANSWER_EPERM);
	return true;
}

/*
 * The kernel's core scheduling without BPF LSM: nothing could refuse the
 * calls the kprobe misses, so there is no plan, whatever else is there.
 */
static bool test_kernel_core_needs_lsm(void)
{
	int k, want;

	for (k = 0; k < 2; k++)
		for (want = CS_PRCTL_SERVE; want <= CS_PRCTL_REFUSE; want++) {
			CHECK(plan_for(k, 0, 1, want) == -1,
			      "k=%d want=%d: a plan was made", k, want);
			CHECK(strstr(err, "CONFIG_SCHED_CORE") &&
				      strstr(err, "lsm="),
			      "message names neither the cause nor the fix: %s",
			      err);
		}
	return true;
}

/* Debian's 6.12: no kernel core scheduling, no active BPF LSM. */
static bool test_no_lsm_no_core(void)
{
	CHECK_EQ(plan_for(1, 0, 0, CS_PRCTL_SERVE), 0);
	CHECK(plan.handler && !plan.backstop && !plan.inherit_lsm &&
		      plan.inherit_tp,
	      "handler %d backstop %d lsm %d tp %d", plan.handler,
	      plan.backstop, plan.inherit_lsm, plan.inherit_tp);
	CHECK_EQ(plan.answer, CS_ANSWER_SERVED);
	CHECK_EQ(plan_for(0, 0, 0, CS_PRCTL_SERVE), 0);
	CHECK(!plan.handler && plan.inherit_tp, "handler %d tp %d",
	      plan.handler, plan.inherit_tp);
	CHECK_EQ(plan.answer, CS_ANSWER_EINVAL);
	return true;
}

/*
 * Every combination: a plan never leaves a path to the kernel's core
 * scheduling, and exactly one inheritance hook is chosen.
 */
static bool test_every_plan_is_safe(void)
{
	int bits, want;

	for (bits = 0; bits < 8; bits++)
		for (want = CS_PRCTL_SERVE; want <= CS_PRCTL_REFUSE; want++) {
			bool k = bits & 1, l = bits & 2, c = bits & 4;

			if (plan_for(k, l, c, want))
				continue;
			CHECK(!c || plan.backstop,
			      "k=%d l=%d c=%d: kernel core scheduling reachable",
			      k, l, c);
			CHECK(plan.inherit_lsm != plan.inherit_tp,
			      "k=%d l=%d c=%d: inheritance lsm %d tp %d", k, l,
			      c, plan.inherit_lsm, plan.inherit_tp);
			CHECK(!plan.handler || (k && want == CS_PRCTL_SERVE),
			      "k=%d want=%d: handler without override or wish",
			      k, want);
			CHECK(!plan.backstop || l,
			      "l=%d: backstop that would never run", l);
			CHECK(plan.answer != CS_ANSWER_EINVAL || !c,
			      "c=%d: EINVAL promised on a kernel that serves it",
			      c);
		}
	return true;
}

int main(void)
{
	run("features_full", test_full);
	run("features_refuse", test_refuse);
	run("features_no_override", test_no_override);
	run("features_kernel_core_needs_lsm", test_kernel_core_needs_lsm);
	run("features_no_lsm_no_core", test_no_lsm_no_core);
	run("features_every_plan_is_safe", test_every_plan_is_safe);
	return nr_failed ? 1 : 0;
}
