/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tagging layer's user-space side: a safe pin directory, and the
 * tagging programs (bpf/tagging.bpf.c) installed with pinned links, so that
 * tags are given and inherited whether or not a scheduler runs.
 */
#ifndef __CS_TAGGING_H
#define __CS_TAGGING_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "cs_features.h"

/*
 * Create CS_PIN_DIR (root, 0700) or check that the existing one, and
 * everything pinned in it, is owned by root and writable by nobody else.
 * Returns 0, or -1 with a message in @err.
 */
int cs_pin_dir_secure(char *err, size_t len);

struct bpf_link;
/*
 * Pin @link at CS_PIN_DIR/@name (no dots: bpffs refuses them), atomically
 * replacing an older pin, which detaches the older link's program. 0, or
 * -1 with a message in @err. Shared with src/cs_policy_apply.c.
 */
int cs_pin_over(struct bpf_link *link, const char *name, char *err, size_t len);

/*
 * Probe what the kernel offers (cs_features.h), choose the plan for @want
 * (*@plan), load the tagging programs, attach what the plan asks for and
 * pin their links under CS_PIN_DIR, replacing (or removing) the links of
 * an earlier instance; then adopt the tasks that hold cookies of the
 * kernel's own core scheduling (*@adopted says how many) and make sure it
 * is disabled. @smt_present: the machine has SMT (prctl answers ENODEV
 * otherwise). Returns 0, or -1 with a message in @err (nothing is
 * attached if the kernel allows no plan).
 */
int cs_tagging_install(bool smt_present, enum cs_prctl_want want, int verbose,
		       int *adopted, struct cs_tagging_plan *plan, char *err,
		       size_t len);

/*
 * Detach the tagging programs and remove every pin under CS_PIN_DIR: all
 * tags are lost, and prctl(PR_SCHED_CORE) goes to the kernel again.
 * Refuses while scx_coresched runs. 0, or -1 with a message in @err.
 */
int cs_tagging_uninstall(char *err, size_t len);

/*
 * How many children of tagged tasks could neither inherit their parent's
 * cookie at fork nor be recorded for the scheduler to tag (cs_fork_stat;
 * only possible without BPF LSM, see cs_features.h).
 */
__u64 cs_fork_lost(void);

/*
 * Forget the tags of cgroups removed while no scheduler ran (the
 * scheduler drops a tag when its cgroup goes). Returns how many.
 */
int cs_prune_cgroup_tags(void);

#endif /* __CS_TAGGING_H */
