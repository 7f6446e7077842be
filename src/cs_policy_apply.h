/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The loader's side of the declarative policy (cs_policy_file.h): load the
 * cgroup_mkdir/rmdir programs (bpf/policy.bpf.c) with pinned links, write
 * the rule maps (cs_policy_rules.h) and tag the cgroups that exist.
 */
#ifndef __CS_POLICY_APPLY_H
#define __CS_POLICY_APPLY_H

#include <stddef.h>

#include "cs_policy_file.h" /* CS_POLICY_DEFAULT */

/*
 * Apply policy file @file (--policy), or CS_POLICY_DEFAULT if NULL; a
 * missing default file means no policy, and removes the programs of an
 * earlier one. Call after cs_tagging_install(): the tag maps are reused.
 * Warns on stderr about rules for cgroups that do not exist yet. Returns
 * 0, or -1 with a message in @err (bad lines are printed to stderr).
 */
int cs_policy_apply(const char *file, int verbose, char *err, size_t len);

#endif /* __CS_POLICY_APPLY_H */
