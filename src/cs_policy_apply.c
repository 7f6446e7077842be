// SPDX-License-Identifier: GPL-2.0-only
/*
 * Apply the policy file at the loader's start; see cs_policy_apply.h and
 * bpf/policy.bpf.c.
 *
 * Order, so that no cgroup created meanwhile is missed: attach and pin the
 * programs, then write the rule maps (new entries first, then drop stale
 * ones), then tag the cgroups that exist. A cgroup created before the
 * maps are written is found by the scan; one created after is tagged by
 * the program; tagging one twice gives the same cookie.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "coresched.h"
#include "cs_common.h"
#include "cs_policy_apply.h"
#include "cs_policy_file.h"
#include "cs_tagging.h"

typedef __u8 u8;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
#include "policy.skel.h"

#define MSG "scx_coresched: "

/* Unpin the programs of an earlier policy: that detaches them. */
static int remove_programs(char *err, size_t len)
{
	static const char *const links[] = { CS_LINK_POLICY_MKDIR,
					     CS_LINK_POLICY_RMDIR };
	char path[256];
	unsigned int i;

	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", CS_PIN_DIR, links[i]);
		if (unlink(path) && errno != ENOENT)
			return cs_fail(err, len, "cannot remove %s: %s", path,
				       strerror(errno));
	}
	return 0;
}

static int attach_pin(struct policy *skel, char *err, size_t len)
{
	struct bpf_link *mk, *rm = NULL;
	int ret = -1;

	mk = bpf_program__attach(skel->progs.cs_policy_mkdir);
	if (!mk) {
		cs_fail(err, len,
			"cannot attach the policy program to the cgroup_mkdir tracepoint: %s; the kernel needs CONFIG_CGROUPS and BTF (CONFIG_DEBUG_INFO_BTF)",
			strerror(errno));
		goto out;
	}
	rm = bpf_program__attach(skel->progs.cs_policy_rmdir);
	if (!rm) {
		cs_fail(err, len,
			"cannot attach the policy program to the cgroup_rmdir tracepoint: %s",
			strerror(errno));
		goto out;
	}
	ret = cs_pin_over(mk, CS_LINK_POLICY_MKDIR, err, len);
	if (!ret)
		ret = cs_pin_over(rm, CS_LINK_POLICY_RMDIR, err, len);
	if (!ret) { /* pinned: the kernel keeps them attached */
		bpf_link__disconnect(mk);
		bpf_link__disconnect(rm);
	}
out:
	bpf_link__destroy(mk);
	bpf_link__destroy(rm);
	return ret;
}

static int map_error(int ret, const char *map, char *err, size_t len)
{
	if (ret == -E2BIG)
		return cs_fail(err, len,
			       "%s/%s is full; the policy has too many rules or tags (see the limits in the README)",
			       CS_PIN_DIR, map);
	return cs_fail(err, len, "cannot write %s/%s: %s", CS_PIN_DIR, map,
		       strerror(-ret));
}

/* cs_policy_path: every rule by path; entries of older policies go. */
static int write_paths(int fd, const struct cs_policy *p, char *err,
		       size_t len)
{
	struct cs_policy_key key, next, *prev = NULL;
	struct cs_rule_val v;
	int i, j, ret;

	for (i = 0; i < p->nr; i++) {
		memset(&key, 0, sizeof(key));
		strcpy(key.path, p->rule[i].path);
		v.kinds = 0;
		v.line = p->rule[i].line;
		for (j = 0; j < p->nr; j++)
			if (!strcmp(p->rule[j].path, key.path))
				v.kinds |= p->rule[j].kind;
		for (j = 0; j < i; j++)
			if (!strcmp(p->rule[j].path, key.path))
				break;
		if (j < i)
			continue; /* written with its first rule */
		ret = bpf_map_update_elem(fd, &key, &v, BPF_ANY);
		if (ret)
			return map_error(ret, CS_MAP_POLICY_PATH, err, len);
	}
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		for (i = 0; i < p->nr; i++)
			if (!strcmp(p->rule[i].path, key.path))
				break;
		if (i == p->nr && !bpf_map_delete_elem(fd, &key))
			continue; /* deleted: go on from the same key */
		prev = &key;
	}
	return 0;
}

/* Is @id the cgroup of a "children" rule of @p right now? */
static bool children_rule_id(const struct cs_policy *p, __u64 id)
{
	char fs[PATH_MAX];
	__u64 rid;
	int i;

	for (i = 0; i < p->nr; i++) {
		if (p->rule[i].kind != CS_RULE_CHILDREN)
			continue;
		cs_policy_fs_path(p->rule[i].path, fs, sizeof(fs));
		if (!cs_cgroup_id(fs, &rid) && rid == id)
			return true;
	}
	return false;
}

/* cs_cgrp_rule: the live cgroups of "children" rules; others go. */
static int write_ids(int fd, const struct cs_policy *p, char *err, size_t len)
{
	__u64 keys[CS_POLICY_MAX_RULES], key, next, *prev = NULL, id;
	char fs[PATH_MAX];
	struct cs_rule_val v;
	int i, n = 0, ret;

	for (i = 0; i < p->nr; i++) {
		if (p->rule[i].kind != CS_RULE_CHILDREN)
			continue;
		cs_policy_fs_path(p->rule[i].path, fs, sizeof(fs));
		if (cs_cgroup_id(fs, &id))
			continue; /* not there yet: the program adds it */
		v.kinds = CS_RULE_CHILDREN;
		v.line = p->rule[i].line;
		ret = bpf_map_update_elem(fd, &id, &v, BPF_ANY);
		if (ret)
			return map_error(ret, CS_MAP_CGRP_RULE, err, len);
	}
	/* Collect first, then look at the file system (see the top). */
	while (n < CS_POLICY_MAX_RULES &&
	       !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		keys[n++] = key;
		prev = &key;
	}
	for (i = 0; i < n; i++)
		if (!children_rule_id(p, keys[i]))
			bpf_map_delete_elem(fd, &keys[i]);
	return 0;
}

static int tag(int fd, __u64 id, char *err, size_t len)
{
	struct cs_tag t = { .cookie = CS_COOKIE_CGROUP | id };
	int ret = bpf_map_update_elem(fd, &id, &t, BPF_ANY);

	return ret ? map_error(ret, CS_MAP_CGRP, err, len) : 0;
}

/* Tag the child cgroups of directory @fs; how many, or -1. */
static int tag_children(int fd, const char *fs, char *err, size_t len)
{
	struct dirent *de;
	struct stat st;
	int n = 0;
	DIR *dir;

	dir = opendir(fs);
	if (!dir)
		return errno == ENOENT ? 0 : cs_fail(err, len,
						     "cannot read %s: %s", fs,
						     strerror(errno));
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (tag(fd, st.st_ino, err, len)) {
			closedir(dir);
			return -1;
		}
		n++;
	}
	closedir(dir);
	return n;
}

/* Tag what exists; warn about rules whose cgroup does not exist yet. */
static int tag_existing(int fd, const char *file, const struct cs_policy *p,
			char *err, size_t len)
{
	char fs[PATH_MAX], what[CS_POLICY_PATH_MAX + 16];
	int i, n = 0, ret;
	__u64 id;

	for (i = 0; i < p->nr; i++) {
		const struct cs_policy_rule *r = &p->rule[i];

		cs_policy_fs_path(r->path, fs, sizeof(fs));
		ret = cs_cgroup_id(fs, &id);
		if (ret == -ENOENT) {
			fprintf(stderr,
				MSG "policy %s:%d: '%s': %s does not exist yet; the rule applies when it is created\n",
				file, r->line,
				cs_policy_rule_str(r, what, sizeof(what)), fs);
			continue;
		}
		if (ret)
			return cs_fail(err, len,
				       "policy %s:%d: %s is not a cgroup v2 directory (%s); fix the rule",
				       file, r->line, fs, strerror(-ret));
		if (r->kind == CS_RULE_CGROUP) {
			if (tag(fd, id, err, len))
				return -1;
			n++;
			continue;
		}
		ret = tag_children(fd, fs, err, len);
		if (ret < 0)
			return -1;
		n += ret;
	}
	return n;
}

int cs_policy_apply(const char *file, int verbose, char *err, size_t len)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = CS_PIN_DIR,
		    .kernel_log_level = verbose >= 2 ? 4 : 0);
	const char *name = file ? file : CS_POLICY_DEFAULT;
	struct policy *skel = NULL;
	struct cs_policy *p;
	int ret, n, ctl;

	p = calloc(1, sizeof(*p));
	if (!p)
		return cs_fail(err, len, "out of memory");
	ret = cs_policy_read(name, p, stderr);
	if (ret == -ENOENT && !file) {
		if (verbose)
			fprintf(stderr, MSG "no policy (%s does not exist)\n",
				name);
		free(p);
		return remove_programs(err, len);
	}
	if (ret < 0) {
		cs_fail(err, len,
			"cannot read the policy file %s: %s; give an existing file with --policy FILE",
			name, strerror(-ret));
		goto out;
	}
	if (ret > 0) {
		cs_fail(err, len,
			"the policy file %s has %d bad line%s (above); fix %s, check with: coreschedctl policy check %s",
			name, ret, ret == 1 ? "" : "s",
			ret == 1 ? "it" : "them", name);
		ret = -1;
		goto out;
	}

	skel = policy__open_opts(&opts);
	if (!skel) {
		ret = cs_fail(err, len, "cannot open the policy programs: %s",
			      strerror(errno));
		goto out;
	}
	ret = policy__load(skel);
	if (ret) {
		ret = cs_fail(err, len,
			      "cannot load the policy programs (%s); if %s holds maps of an older version, stop every scx_coresched and remove it: rm -rf %s (tags are lost)",
			      strerror(-ret), CS_PIN_DIR, CS_PIN_DIR);
		goto out;
	}
	ret = attach_pin(skel, err, len);
	if (!ret)
		ret = write_paths(bpf_map__fd(skel->maps.cs_policy_path), p,
				  err, len);
	if (!ret)
		ret = write_ids(bpf_map__fd(skel->maps.cs_cgrp_rule), p, err,
				len);
	if (ret)
		goto out;
	n = tag_existing(bpf_map__fd(skel->maps.cs_cgrp_tag), name, p, err,
			 len);
	if (n < 0) {
		ret = -1;
		goto out;
	}
	ctl = bpf_map__fd(skel->maps.cs_ctl);
	if (n)
		cs_bump_tag_gen(ctl);
	fprintf(stderr, MSG "policy %s: %d rule%s, %d existing cgroup%s tagged\n",
		name, p->nr, p->nr == 1 ? "" : "s", n, n == 1 ? "" : "s");
	ret = 0;
out:
	policy__destroy(skel);
	free(p);
	return ret ? -1 : 0;
}
