/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tagging: from a task to its cookie, and from a cookie to a slot.
 *
 * User space (coreschedctl) writes tags into pinned maps (and bumps
 * cs_ctl.tag_gen for tools that watch tags). A task's cookie is resolved
 * again at every enqueue and tick; its slot is cached with the cookie it
 * was taken for.
 *
 * Slots are reference counted by the tasks that hold them. A slot's cookie
 * is only (re)assigned while nobody holds it, under slot_lock, so two live
 * cookies never share a slot. A freed slot waits CS_SLOT_QUARANTINE_NS in a
 * FIFO before reuse, so that a core state word still naming it (a sibling
 * that has not yet committed its switch away) cannot alias a new cookie.
 * Two racing first users of one cookie may get two slots: that only
 * isolates the cookie from itself, never joins two cookies.
 */
#ifndef __CS_TAGS_BPF_H
#define __CS_TAGS_BPF_H

#define CS_SLOT_QUARANTINE_NS (100ULL * 1000 * 1000)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CS_MAX_TASK_TAGS);
	__type(key, u32);
	__type(value, struct cs_tag);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cs_task_tag SEC(".maps");

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

/* cpu.weight of every cgroup, for cgroup cookies. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CS_MAX_CGRP_TAGS * 4);
	__type(key, u64);
	__type(value, u32);
} cgrp_weight SEC(".maps");

/* Hint: cookie -> slot; always re-checked under slot_lock. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CS_NR_SLOTS * 4);
	__type(key, u64);
	__type(value, u32);
} cookie_slot SEC(".maps");

struct slot_table {
	struct bpf_spin_lock lock;
	u32 head, nr_free;
	u8 fifo[256];
	/* 256 entries, indexed & 0xff, so the verifier can see the bounds. */
	u64 cookie[256];
	s32 ref[256];
	u64 freed_at[256];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct slot_table);
} slot_tbl SEC(".maps");

struct task_ctx {
	u64 cookie; /* the cookie its slot was taken for */
	u64 enq_at; /* when it became runnable in our queues */
	u64 last_charge; /* last time its run was charged */
	u8 slot; /* CS_SLOT_NONE until first computed */
	u8 wslot; /* slot its weight is counted in while runnable */
	u32 wval; /* weight counted in wslot */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ctx);
} task_ctxs SEC(".maps");

static struct task_ctx *task_ctx(struct task_struct *p)
{
	return bpf_task_storage_get(&task_ctxs, p, NULL, 0);
}

/* The cookie of the nearest tagged ancestor of @p's cgroup, or 0. */
static u64 cgroup_cookie(struct task_struct *p)
{
	struct cgroup *cg = BPF_CORE_READ(p, cgroups, dfl_cgrp);
	int level, i;

	if (!cg)
		return 0;
	level = BPF_CORE_READ(cg, level);
	for (i = 0; i < CS_MAX_CGRP_DEPTH; i++) {
		struct cgroup *anc = NULL;
		struct cs_tag *tag;
		u64 id;

		if (level - i < 0)
			break;
		bpf_probe_read_kernel(&anc, sizeof(anc),
				      &cg->ancestors[(level - i) & 0xff]);
		if (!anc)
			break;
		id = BPF_CORE_READ(anc, kn, id);
		tag = bpf_map_lookup_elem(&cs_cgrp_tag, &id);
		if (tag)
			return tag->cookie;
	}
	return 0;
}

/* Per-task tag first, then cgroup tag; kernel threads are never tagged. */
static u64 task_cookie(struct task_struct *p)
{
	struct cs_tag *tag;
	u32 tid = p->pid;

	if (p->flags & PF_KTHREAD)
		return 0;
	tag = bpf_map_lookup_elem(&cs_task_tag, &tid);
	if (tag)
		return tag->cookie;
	return cgroup_cookie(p);
}

static struct slot_table *slots(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&slot_tbl, &zero);
}

static void slot_table_init(void)
{
	struct slot_table *t = slots();
	int i;

	if (!t)
		return;
	for (i = 1; i < CS_NR_SLOTS; i++)
		t->fifo[i - 1] = i;
	t->head = 0;
	t->nr_free = CS_NR_SLOTS - 1;
	t->ref[0] = 1; /* slot 0: untagged, permanent */
}

/* Take a reference on the slot of @cookie, allocating one if needed. */
static u8 slot_get(u64 cookie, bool *fresh)
{
	struct slot_table *t = slots();
	u64 now = bpf_ktime_get_ns();
	u32 *hintp, hint, s = CS_SLOT_EXCL;

	*fresh = false;
	if (!cookie)
		return 0;
	if (!t)
		return CS_SLOT_EXCL;
	hintp = bpf_map_lookup_elem(&cookie_slot, &cookie);
	hint = hintp ? *hintp : 0;
	if (hint >= CS_NR_SLOTS)
		hint = 0;

	hint &= 0xff;
	bpf_spin_lock(&t->lock);
	if (hint && t->cookie[hint] == cookie && t->ref[hint] > 0) {
		t->ref[hint]++;
		s = hint;
	} else if (t->nr_free) {
		u32 cand = t->fifo[t->head & 0xff] & 0xff;

		if (cand && cand < CS_NR_SLOTS &&
		    (!t->freed_at[cand] ||
		     now - t->freed_at[cand] > CS_SLOT_QUARANTINE_NS)) {
			t->head++;
			t->nr_free--;
			t->cookie[cand] = cookie;
			t->ref[cand] = 1;
			s = cand;
			*fresh = true;
		}
	}
	bpf_spin_unlock(&t->lock);

	if (*fresh)
		bpf_map_update_elem(&cookie_slot, &cookie, &s, BPF_ANY);
	return s;
}

/* Drop a reference taken by slot_get(). */
static void slot_put(u8 s)
{
	struct slot_table *t = slots();
	u64 now = bpf_ktime_get_ns();
	u32 idx = s & 0xff;

	if (!idx || idx >= CS_NR_SLOTS || !t)
		return;
	bpf_spin_lock(&t->lock);
	if (t->ref[idx] > 0 && !--t->ref[idx]) {
		t->fifo[(t->head + t->nr_free) & 0xff] = idx;
		t->nr_free++;
		t->freed_at[idx] = now;
	}
	bpf_spin_unlock(&t->lock);
}

#endif /* __CS_TAGS_BPF_H */
