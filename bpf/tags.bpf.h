/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tagging: from a task to its cookie, and from a cookie to a slot.
 *
 * The tags themselves live in the pinned maps of cookie.bpf.h. A task's
 * cookie is resolved again at every wakeup, enqueue and tick (an enqueue
 * right after ops.runnable reuses runnable's lookup); its slot is cached
 * with the cookie it was taken for.
 *
 * Slots are reference counted by the tasks that hold them. A slot's cookie
 * is only (re)assigned while nobody holds it, under slot_lock, so two live
 * cookies never share a slot. A freed slot goes to the back of a FIFO, and
 * is only given to a new cookie once no core state word names it any more
 * (a sibling that has not yet committed its switch away): with no holder
 * left, nothing can write it into a word again, so that check is a proof,
 * not a timeout.
 * Two racing first users of one cookie may get two slots: that only
 * isolates the cookie from itself, never joins two cookies.
 */
#ifndef __CS_TAGS_BPF_H
#define __CS_TAGS_BPF_H

#include "cookie.bpf.h"

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
	u64 gen; /* bumped whenever a slot is taken or freed */
	u16 fifo[CS_SLOT_TBL];
	u64 cookie[CS_SLOT_TBL];
	s32 ref[CS_SLOT_TBL];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct slot_table);
} slot_tbl SEC(".maps");

/* Slot requests refused because all CS_MAX_TAGGED slots were held. */
u64 slot_full;

struct task_ctx {
	u64 cookie; /* the cookie its slot was taken for */
	u64 enq_at; /* when it became runnable in our queues */
	u64 last_charge; /* last time its run was charged */
	u16 slot; /* CS_SLOT_NONE until first computed */
	u16 wslot; /* slot its weight is counted in while runnable */
	u8 fresh; /* slot refreshed by ops.runnable, for the ops.enqueue after */
	u32 wval; /* weight counted in wslot (0: a cgroup cookie's task) */
	u16 wcpu; /* slot 0: the CPU whose wsum0 it was added to */
	u16 qslot; /* tagged slot it is counted queued in (slot_qcnt), or NONE */
	u16 pin_cpu; /* CPU whose pin0[] counts it queued (guard.bpf.h), or NONE */
	u16 last_cpu; /* the CPU it last ran on, or CS_NO_CPU */
	/*
	 * ns of its slice past slice_ns, from its last renewal (pick.bpf.h):
	 * under 1.5 ticks, and the loader's tick is at most 100 ms
	 */
	u32 stretch;
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
	bpf_for(i, 1, CS_NR_SLOTS)
		t->fifo[CS_SLOT_IDX(i - 1)] = i;
	t->head = 0;
	t->nr_free = CS_NR_SLOTS - 1;
	t->ref[0] = 1; /* slot 0: untagged, permanent */
}

/* Does any core's state word still name slot @s, as a claim or a commit? */
__attribute__((noinline)) bool slot_in_core_words(u32 s)
{
	int c, i;

	bpf_for(c, 0, CS_MAX_CPUS) {
		u64 w;

		if ((u32)c >= nr_cpus) /* no more cores than CPUs */
			break;
		w = core_state[c & (CS_MAX_CPUS - 1)].word;

		cs_for_each_sib(i)
			if (cs_next(w, i) == s || cs_cur(w, i) == s)
				return true;
	}
	return false;
}

/*
 * Slot requests that lose a race (another CPU took or freed a slot between
 * the look at the free list and the lock, or the next free slot is still
 * named by a core word) are tried again this many times before the cookie
 * gets CS_SLOT_EXCL for now: with 8 spawners creating cookies at once,
 * one try sent a cookie with free slots left to the overflow queue.
 */
#define CS_SLOT_TRIES 8

/* One try of slot_get(): CS_SLOT_EXCL if it found no slot. */
static u16 slot_try(struct slot_table *t, u64 cookie, u32 hint, bool *fresh)
{
	u32 s = CS_SLOT_EXCL, peek;
	u64 gen;
	bool named;

	/*
	 * Checked before the lock (no loops under it), and only when the hint
	 * does not already name a live slot of this cookie; the generation
	 * tells under the lock whether the free list moved meanwhile.
	 */
	gen = *(volatile u64 *)&t->gen;
	peek = t->fifo[CS_SLOT_IDX(t->head)];
	named = true;
	if (!(hint && t->cookie[hint] == cookie && t->ref[hint] > 0) &&
	    t->nr_free)
		named = slot_in_core_words(peek);
	bpf_spin_lock(&t->lock);
	if (hint && t->cookie[hint] == cookie && t->ref[hint] > 0) {
		t->ref[hint]++;
		s = hint;
	} else if (t->nr_free) {
		u32 cand = CS_SLOT_IDX(t->fifo[CS_SLOT_IDX(t->head)]);

		if (cand && cand < CS_NR_SLOTS && t->gen == gen && !named) {
			t->gen++;
			t->head++;
			t->nr_free--;
			t->cookie[cand] = cookie;
			t->ref[cand] = 1;
			s = cand;
			*fresh = true;
		} else if (t->gen == gen && t->nr_free > 1) {
			/* Still named by a word: let the next free slot go first. */
			t->fifo[CS_SLOT_IDX(t->head + t->nr_free)] = cand;
			t->head++;
			t->gen++;
		}
	}
	bpf_spin_unlock(&t->lock);
	return s;
}

/*
 * Take a reference on the slot of @cookie, allocating one if needed; a
 * cookie that finds no free slot, and CS_COOKIE_LOST (a trust domain
 * nobody knows), get CS_SLOT_EXCL (runs alone on its core).
 */
static u16 slot_get(u64 cookie, bool *fresh)
{
	struct slot_table *t = slots();
	u32 *hintp, hint;
	u16 s = CS_SLOT_EXCL;
	int i;

	*fresh = false;
	if (!cookie)
		return 0;
	if (!t || cookie == CS_COOKIE_LOST)
		return CS_SLOT_EXCL;
	hintp = bpf_map_lookup_elem(&cookie_slot, &cookie);
	hint = hintp ? *hintp : 0;
	if (hint >= CS_NR_SLOTS)
		hint = 0;
	hint = CS_SLOT_IDX(hint);
	bpf_for(i, 0, CS_SLOT_TRIES) {
		s = slot_try(t, cookie, hint, fresh);
		if (s != CS_SLOT_EXCL || !t->nr_free)
			break;
	}
	if (s == CS_SLOT_EXCL && !t->nr_free)
		__sync_fetch_and_add(&slot_full, 1);
	return s;
}

/*
 * Publish a fresh slot of @cookie for its other tasks to find: only once
 * its owner's counters are reset (slot_acquire), or a second task could
 * add its weight to them before the reset wiped it.
 */
static void slot_publish(u64 cookie, u16 s)
{
	u32 v = s;

	bpf_map_update_elem(&cookie_slot, &cookie, &v, BPF_ANY);
}

/* Drop a reference taken by slot_get(). */
static void slot_put(u16 s)
{
	struct slot_table *t = slots();
	u32 idx = CS_SLOT_IDX(s);

	if (!idx || idx >= CS_NR_SLOTS || !t)
		return;
	bpf_spin_lock(&t->lock);
	if (t->ref[idx] > 0 && !--t->ref[idx]) {
		t->fifo[CS_SLOT_IDX(t->head + t->nr_free)] = idx;
		t->nr_free++;
		t->gen++;
	}
	bpf_spin_unlock(&t->lock);
}

#endif /* __CS_TAGS_BPF_H */
