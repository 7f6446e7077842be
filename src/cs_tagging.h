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

/*
 * Create CS_PIN_DIR (root, 0700) or check that the existing one, and
 * everything pinned in it, is owned by root and writable by nobody else.
 * Returns 0, or -1 with a message in @err.
 */
int cs_pin_dir_secure(char *err, size_t len);

/*
 * Load the tagging programs, attach them and pin their links under
 * CS_PIN_DIR, replacing the links of an earlier instance. @smt_present:
 * the machine has SMT (prctl answers ENODEV otherwise). Returns 0, or -1
 * with a message in @err.
 */
int cs_tagging_install(bool smt_present, int verbose, char *err, size_t len);

/*
 * Detach the tagging programs and remove every pin under CS_PIN_DIR: all
 * tags are lost, and prctl(PR_SCHED_CORE) goes to the kernel again.
 * Refuses while scx_coresched runs. 0, or -1 with a message in @err.
 */
int cs_tagging_uninstall(char *err, size_t len);

/*
 * Forget the tags of cgroups removed while no scheduler ran (the
 * scheduler drops a tag when its cgroup goes). Returns how many.
 */
int cs_prune_cgroup_tags(void);

#endif /* __CS_TAGGING_H */
