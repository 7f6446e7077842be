// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_coresched policy: tag a cgroup the moment it is created, in the
 * kernel, as the policy file says (src/cs_policy_file.h). Like the
 * tagging programs, these are separate from the scheduler and their links
 * are pinned under CS_PIN_DIR: new cgroups are tagged whether or not a
 * scheduler runs.
 *
 * 1. When. The cgroup_mkdir tracepoint fires in cgroup_mkdir() after the
 *    cgroup is built and before kernfs_activate() makes its directory
 *    visible: nobody can have moved a task into it yet, so its first task
 *    already finds the tag. It fires for every hierarchy; only the default
 *    one (cgroup v2, hierarchy id 0) counts.
 *
 * 2. What. Two maps, written by the loader (src/cs_policy_apply.c), see
 *    cs_policy_rules.h:
 *      cs_policy_path  rule path -> kinds: the rules by path, for paths
 *                      that do not exist yet or are created again
 *      cs_cgrp_rule    cgroup id -> kinds: live cgroups with a "children"
 *                      rule
 *    A new cgroup C, with parent P and path X as the tracepoint gives it:
 *      - P in cs_cgrp_rule with CS_RULE_CHILDREN: tag C;
 *      - X in cs_policy_path with CS_RULE_CGROUP: tag C;
 *      - X in cs_policy_path with CS_RULE_CHILDREN: put C into
 *        cs_cgrp_rule, so that C's children get tagged.
 *    To tag is to set cs_cgrp_tag[C's id] = CS_COOKIE_CGROUP | C's id,
 *    the cookie coreschedctl cgroup tag gives, then bump cs_ctl.tag_gen.
 *    Matching the whole path, not the parent's id and the leaf name, keeps
 *    one rule working for a path that is missing at any depth, and for a
 *    cgroup that is removed and created again (with a new id) without the
 *    loader running. A path longer than CS_POLICY_PATH_MAX matches no
 *    rule (the parser refuses such rules).
 *
 * 3. Removal. cgroup_rmdir drops C from cs_cgrp_rule (ids are never
 *    reused, so this only frees room). C's tag is dropped by the tagging
 *    programs' own cgroup_rmdir hook (tagging.bpf.c).
 *
 * Example: the policy is "children /machine.slice", and machine.slice does
 * not exist when the loader starts. The loader warns, and writes
 * cs_policy_path["/machine.slice"] = CHILDREN. libvirtd later creates
 * /machine.slice (id 812): its parent, the root (id 1), is not in
 * cs_cgrp_rule, and its path has no CGROUP kind, so it stays untagged; its
 * path has the CHILDREN kind, so cs_cgrp_rule[812] = CHILDREN. Then a VM's
 * cgroup /machine.slice/machine-qemu\x2d1.scope (id 815) is created: its
 * parent 812 is in cs_cgrp_rule, so cs_cgrp_tag[815] = 0x800000000000032f,
 * before qemu is moved into it. A second VM (id 820) gets 0x8000000000000334:
 * the two never share a core. After a reboot the ids differ, the paths and
 * so the outcome do not.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "coresched.h"
#include "cs_policy_rules.h"
#include "compat.bpf.h"
#include "cookie.bpf.h"

char _license[] SEC("license") = "GPL";

#define DFL_HIERARCHY_ID 0 /* cgroup v2: "0::" in /proc/PID/cgroup */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CS_POLICY_MAX_RULES);
	__type(key, struct cs_policy_key);
	__type(value, struct cs_rule_val);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cs_policy_path SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CS_POLICY_MAX_RULES);
	__type(key, u64);
	__type(value, struct cs_rule_val);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cs_cgrp_rule SEC(".maps");

/* How it went, for tests and bpftool: cgroups tagged, tags refused. */
u64 nr_tagged;
u64 nr_tag_failures;
u64 nr_rule_failures;

static u64 cgrp_id(struct cgroup *cg)
{
	return BPF_CORE_READ(cg, kn, id);
}

static bool on_dfl_hierarchy(struct cgroup *cg)
{
	return BPF_CORE_READ(cg, root, hierarchy_id) == DFL_HIERARCHY_ID;
}

/* The id of @cg's parent, 0 for the root. */
static u64 parent_id(struct cgroup *cg)
{
	struct cgroup *parent = NULL;
	int level = BPF_CORE_READ(cg, level);

	/* Deeper than the mask: its tasks get CS_COOKIE_LOST (cookie.bpf.h). */
	if (level < 1 || level - 1 > CS_CGRP_LEVEL_MASK)
		return 0;
	bpf_probe_read_kernel(&parent, sizeof(parent),
			      &cg->ancestors[(level - 1) & CS_CGRP_LEVEL_MASK]);
	return parent ? cgrp_id(parent) : 0;
}

static void tag(u64 id)
{
	struct cs_tag t = { .cookie = CS_COOKIE_CGROUP | id };
	struct cs_ctl *ctl;

	if (bpf_map_update_elem(&cs_cgrp_tag, &id, &t, BPF_ANY)) {
		__sync_fetch_and_add(&nr_tag_failures, 1);
		return;
	}
	__sync_fetch_and_add(&nr_tagged, 1);
	ctl = tag_ctl();
	if (ctl)
		__sync_fetch_and_add(&ctl->tag_gen, 1);
}

SEC("tp_btf/cgroup_mkdir")
int BPF_PROG(cs_policy_mkdir, struct cgroup *cgrp, const char *path)
{
	struct {
		struct cs_policy_key key;
		char over[8]; /* tells a path of CS_POLICY_PATH_MAX from a longer one */
	} buf = {};
	struct cs_rule_val *r;
	u64 id, pid;
	bool want = false;
	long n;

	if (!on_dfl_hierarchy(cgrp))
		return 0;
	id = cgrp_id(cgrp);
	pid = parent_id(cgrp);
	r = bpf_map_lookup_elem(&cs_cgrp_rule, &pid);
	if (r && (r->kinds & CS_RULE_CHILDREN))
		want = true;
	/* n counts the NUL: more than the key holds means a longer path. */
	n = bpf_probe_read_kernel_str(&buf, sizeof(buf.key) + 1, path);
	r = NULL;
	if (n > 0 && n <= (long)sizeof(buf.key))
		r = bpf_map_lookup_elem(&cs_policy_path, &buf.key);
	if (r && (r->kinds & CS_RULE_CGROUP))
		want = true;
	if (r && (r->kinds & CS_RULE_CHILDREN)) {
		struct cs_rule_val v = { .kinds = CS_RULE_CHILDREN,
					 .line = r->line };

		if (bpf_map_update_elem(&cs_cgrp_rule, &id, &v, BPF_ANY))
			__sync_fetch_and_add(&nr_rule_failures, 1);
	}
	if (want)
		tag(id);
	return 0;
}

SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(cs_policy_rmdir, struct cgroup *cgrp, const char *path)
{
	u64 id;

	if (!on_dfl_hierarchy(cgrp))
		return 0;
	id = cgrp_id(cgrp);
	bpf_map_delete_elem(&cs_cgrp_rule, &id);
	return 0;
}
