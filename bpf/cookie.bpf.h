/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pinned tag maps and the one rule that turns them into a task's
 * cookie, shared by the tagging programs (tagging.bpf.c) and the scheduler
 * (coresched.bpf.c). Both objects pin these maps by name under CS_PIN_DIR,
 * so whichever loads first creates them and the other reuses them.
 *
 * A task's cookie: its per-task cookie (task storage, set through prctl or
 * inherited on fork; where inheritance failed, the cookie recorded for the
 * child in cs_fork_orphan, or CS_COOKIE_LOST) if non-zero, else the tag of
 * the nearest tagged
 * ancestor of its cgroup v2 (itself included, CS_MAX_CGRP_DEPTH levels at
 * most: deeper, CS_COOKIE_LOST, see cgroup_cookie), else 0. Kernel threads
 * are never tagged.
 */
#ifndef __CS_COOKIE_BPF_H
#define __CS_COOKIE_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cs_tag);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cs_task_cookie SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CS_MAX_CGRP_TAGS);
	__type(key, u64);
	__type(value, struct cs_tag);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cs_cgrp_tag SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct cs_ctl);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cs_ctl SEC(".maps");

/* Written by BPF only: the cookie counter and the inheritance failures. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct cs_tag_seq);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cs_tag_seq SEC(".maps");

static struct cs_tag_seq *tag_seq(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&cs_tag_seq, &zero);
}

/* Children that could not inherit at fork, and the counters. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH); /* preallocated: no allocation */
	__uint(max_entries, CS_MAX_FORK_ORPHANS);
	__type(key, u32);
	__type(value, struct cs_orphan);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cs_fork_orphan SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct cs_fork_stat);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cs_fork_stat SEC(".maps");

static struct cs_fork_stat *fork_stat(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&cs_fork_stat, &zero);
}

/*
 * One bit per tid: the child that holds it could neither inherit its
 * parent's cookie nor be recorded in cs_fork_orphan (tagging.bpf.c). An
 * array: marking can never fail. Its cookie is CS_COOKIE_LOST. A bit is
 * dropped only when its tid gets a new owner (fork, exec: tagging.bpf.c)
 * or a cookie is set on its task, never when a scheduler lets go of the
 * task: that is not its end.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CS_PID_MAX_LIMIT / 64);
	__type(key, u32);
	__type(value, u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cs_fork_lost SEC(".maps");

static bool fork_lost(u32 tid)
{
	u32 word = tid / 64;
	u64 *w = bpf_map_lookup_elem(&cs_fork_lost, &word);

	return w && (*w & (1ULL << (tid % 64)));
}

static void fork_lost_mark(u32 tid, bool lost)
{
	u32 word = tid / 64;
	u64 *w = bpf_map_lookup_elem(&cs_fork_lost, &word);

	if (!w)
		return;
	if (lost)
		__sync_fetch_and_or(w, 1ULL << (tid % 64));
	else if (*w & (1ULL << (tid % 64)))
		__sync_fetch_and_and(w, ~(1ULL << (tid % 64)));
}

/* Did inheritance ever fail? If not, no record and no bit exists. */
static bool fork_trouble(void)
{
	struct cs_fork_stat *st = fork_stat();

	return st && (st->orphans || st->lost);
}

/* @p's record in cs_fork_orphan, if it is @p's (not a dead tid owner's). */
static struct cs_orphan *orphan_of(struct task_struct *p)
{
	u32 tid = p->pid;
	struct cs_orphan *o = bpf_map_lookup_elem(&cs_fork_orphan, &tid);

	return o && o->start_ns == p->start_time ? o : NULL;
}

/*
 * The per-task cookie of @p (0 if it has none); @p must be trusted. The
 * cookie set in its task storage if non-zero, else the cookie recorded for
 * it at fork (cs_fork_orphan), else CS_COOKIE_LOST if it is marked lost.
 * Storage that holds 0 while a record or mark exists (a prctl group walk
 * creates it before writing) does not hide them; setting a cookie drops
 * them (set_own_cookie).
 */
static u64 own_cookie(struct task_struct *p)
{
	struct cs_tag *tag = bpf_task_storage_get(&cs_task_cookie, p, NULL, 0);
	struct cs_orphan *o;

	if (tag && tag->cookie)
		return tag->cookie;
	if (!fork_trouble())
		return 0;
	o = orphan_of(p);
	if (o)
		return o->cookie;
	return fork_lost(p->pid) ? CS_COOKIE_LOST : 0;
}

/* Set @p's own cookie in its storage @tag; fork records and marks go. */
static void set_own_cookie(struct task_struct *p, struct cs_tag *tag,
			   u64 cookie)
{
	u32 tid = p->pid;

	tag->cookie = cookie;
	if (!fork_trouble())
		return;
	if (orphan_of(p))
		bpf_map_delete_elem(&cs_fork_orphan, &tid);
	fork_lost_mark(tid, false);
}

/*
 * Give @child the cookie of @parent (the thread that forks or clones it),
 * as upstream's sched_core_fork() does; a lost parent has a lost child.
 * 0, or -ENOMEM if the child's storage could not be created.
 */
static int inherit_cookie(struct task_struct *parent, struct task_struct *child)
{
	u64 cookie = own_cookie(parent);
	struct cs_tag *theirs;

	if (!cookie)
		return 0;
	if (cookie == CS_COOKIE_LOST) {
		fork_lost_mark(child->pid, true);
		return 0;
	}
	theirs = bpf_task_storage_get(&cs_task_cookie, child, NULL,
				      BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!theirs)
		return -ENOMEM;
	set_own_cookie(child, theirs, cookie);
	return 0;
}

static struct cs_ctl *tag_ctl(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&cs_ctl, &zero);
}

/*
 * Checked against the build's vmlinux.h (CO-RE does not move this offset):
 * self has been struct cgroup's first member since it was added (3.20).
 */
_Static_assert(__builtin_offsetof(struct cgroup, self) == 0,
	       "a cgroup's parent css is the parent cgroup itself");

/*
 * The cookie of the nearest tagged ancestor of @p's cgroup (itself
 * included), or 0 if none is. The walk looks at CS_MAX_CGRP_DEPTH levels
 * at most: a cgroup deeper than that below the root whose nearest levels
 * hold no tag may still have a tagged ancestor above them, so its trust
 * domain is unknown and it gets CS_COOKIE_LOST (it runs alone on its
 * core), never 0: nesting cgroups must not let a tenant's task out of its
 * cookie. Example, CS_MAX_CGRP_DEPTH 64, /t tagged (level 1): a task in
 * /t/n1/.../n40 (level 41) finds /t's tag at the 41st look; one in
 * /t/n1/.../n70 (level 71) looks at levels 71 to 8, finds nothing, and
 * gets CS_COOKIE_LOST; one in an untagged /u/n1/.../n70 does too.
 */
static u64 cgroup_cookie(struct task_struct *p)
{
	struct css_set *cset = p->cgroups;
	struct cgroup *cg;
	int level, i;

	/*
	 * Loads, no helper calls: this runs at every tick, wakeup and
	 * dispatch. The task's own fields are trusted (RCU); in the walk up
	 * (bpf_core_cast: untrusted) a fault reads 0, as a failed probe read
	 * did.
	 */
	if (!cset)
		return 0;
	cg = cset->dfl_cgrp;
	if (!cg)
		return 0;
	level = cg->level;
	if (level > CS_CGRP_LEVEL_MASK) /* unknown at once, as in the audit */
		return CS_COOKIE_LOST;
	bpf_for(i, 0, CS_MAX_CGRP_DEPTH) {
		struct cs_tag *tag;
		u64 id;

		if (level - i < 0)
			return 0; /* past the root: no tag anywhere above */
		if (!cg) /* unreadable: the levels above are unknown */
			return CS_COOKIE_LOST;
		id = cg->kn->id;
		tag = bpf_map_lookup_elem(&cs_cgrp_tag, &id);
		if (tag)
			return tag->cookie;
		/* Its parent: the parent's self, its first member (above). */
		cg = bpf_core_cast(cg->self.parent, struct cgroup);
	}
	return level < CS_MAX_CGRP_DEPTH ? 0 : CS_COOKIE_LOST;
}

/* Per-task cookie first, then cgroup tag; kernel threads are never tagged. */
static u64 task_cookie(struct task_struct *p)
{
	u64 cookie;

	if (p->flags & PF_KTHREAD)
		return 0;
	cookie = own_cookie(p);
	return cookie ? cookie : cgroup_cookie(p);
}

#endif /* __CS_COOKIE_BPF_H */
