/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The declarative tagging policy (/etc/scx_coresched/policy) as the kernel
 * side sees it: two maps pinned under CS_PIN_DIR, written by the loader
 * (src/cs_policy_apply.c) and read by the cgroup_mkdir program
 * (bpf/policy.bpf.c), which tags new cgroups in cs_cgrp_tag.
 *
 *   cs_policy_path  struct cs_policy_key -> struct cs_rule_val
 *                   the rules by cgroup path ("/machine.slice"), as the
 *                   cgroup_mkdir tracepoint names a new cgroup: kept for
 *                   paths that do not exist yet or may be removed and
 *                   created again
 *   cs_cgrp_rule    cgroup id (u64)      -> struct cs_rule_val
 *                   the live cgroups named by a "children" rule: every
 *                   new child of theirs is tagged
 *
 * A tagged cgroup gets its own cookie, CS_COOKIE_CGROUP | its id, whether
 * a "cgroup" or a "children" rule tagged it.
 */
#ifndef __CS_POLICY_RULES_H
#define __CS_POLICY_RULES_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* Characters in a rule's cgroup path ("/a/b", leading '/' included). */
#define CS_POLICY_PATH_MAX 255
/* Rules in one policy file (and entries in each policy map). */
#define CS_POLICY_MAX_RULES 256

#define CS_MAP_POLICY_PATH "cs_policy_path"
#define CS_MAP_CGRP_RULE "cs_cgrp_rule"
#define CS_LINK_POLICY_MKDIR "link_policy_mkdir" /* tags new cgroups */
#define CS_LINK_POLICY_RMDIR "link_policy_rmdir" /* forgets removed ones */

/* Rule kinds, a bit mask: one path may carry both. */
#define CS_RULE_CGROUP 1 /* the cgroup itself gets a cookie */
#define CS_RULE_CHILDREN 2 /* each child cgroup gets its own cookie */

/* NUL-padded, so that equal paths are equal keys. */
struct cs_policy_key {
	char path[CS_POLICY_PATH_MAX + 1];
};

struct cs_rule_val {
	__u32 kinds; /* CS_RULE_* */
	__u32 line; /* line of the (first) rule in the policy file */
};

#endif /* __CS_POLICY_RULES_H */
