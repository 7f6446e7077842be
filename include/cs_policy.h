/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scx_coresched policy: plain functions over plain integers, shared by the
 * BPF scheduler and the host unit tests (tests/test_policy.c).
 *
 * Cookie slots. The scheduler maps every live cookie to a small slot id so
 * that the state of a whole core fits in one 64-bit word:
 *
 *   0             untagged tasks (cookie 0)
 *   1..4096       tagged cookies (CS_MAX_TAGGED)
 *   CS_SLOT_TRUST trusted kernel threads (--trust-kthreads): compatible
 *                 with everything
 *   CS_SLOT_EXCL  overflow when all slots are taken: compatible with
 *                 nothing but idle and trusted slots, not even itself
 *                 (in none mode, as every slot, with everything)
 *   CS_SLOT_NONE  nothing (idle, or not claimed)
 *
 * Core state word. Up to CS_MAX_SMT = 8 siblings share one 64-bit word,
 * too narrow for a slot per sibling and field, so the word holds two
 * owner slots and a 5-bit code per sibling that names its next and cur by
 * class:
 *
 *   bits 5i .. 5i+4  code[i] = next class * 6 + cur class, for sibling i
 *                    (0 .. 29), or 30: next = cur = own_cur, or
 *                    31: next = own_cur, cur = NONE
 *   bits 40 .. 51    own_next: the tagged slot claimed (next) on the core
 *   bits 52 .. 63    own_cur:  another tagged slot, run (or, by codes 30
 *                    and 31, claimed) by a sibling
 *
 *   An owner field holds a tagged slot minus one, so its 4,096 values are
 *   exactly the 4,096 tagged slots: only the codes say whether a field is
 *   in use, and no value of a field names untagged, idle or trusted.
 *
 *   classes: NONE, TRUST, ZERO (slot 0), EXCL, OWN_NEXT (the slot in
 *   own_next), and for cur only OWN_CUR (the slot in own_cur).
 *
 * Two owners suffice for every state a core goes through while it keeps
 * the invariant: a tagged claim is compatible with every sibling's next
 * and cur, so the nexts name one tagged slot at most, and the curs that
 * and the one being left. A word that must hold a third tagged slot (a
 * foreign task imposed in the middle of a handover, or none mode, where
 * cookies share cores freely) stores it as EXCL, which is compatible with
 * nothing but idle and trusted kernel threads, so the word is at worst
 * stricter than the truth, never looser (cs_pack). Worked example, SMT2,
 * sibling 0 leaving X for Y:
 *
 *   runs X on both:     own_next=X  code0=(OWN_NEXT,OWN_NEXT) code1=same
 *   sibling 1 leaves:   code1=(NONE,NONE)
 *   sibling 0 claims Y: own_next=Y own_cur=X code0=(OWN_NEXT,OWN_CUR)
 *   sibling 0 commits:  code0=(OWN_NEXT,OWN_NEXT); own_cur is unused
 *
 * A CPU may claim slot K only if every other sibling's next and cur are
 * compatible with K. Because cur[] lags behind the real switch, a sibling
 * that is still leaving cookie X keeps blocking until it has left.
 */
#ifndef __CS_POLICY_H
#define __CS_POLICY_H

#ifndef __bpf__
#include <stdbool.h>
#include <linux/types.h>
#endif

#include "coresched.h"

/*
 * Functions that walk every sibling of the core word. On BPF they are
 * global functions, which the verifier checks once by themselves, rather
 * than inline at every call, where eight unrolled siblings made the
 * dispatch path too complex to load (E2BIG).
 */
#ifdef __bpf__
#define CS_WORD_FN __attribute__((noinline))
#else
#define CS_WORD_FN static inline
#endif

/*
 * Every sibling index i of a core word. On BPF an open-coded iterator
 * (bpf_for, from bpf_helpers.h): the verifier walks the body until its
 * state repeats, not once per sibling as in an unrolled loop.
 */
#ifdef __bpf__
#define cs_for_each_sib(i) bpf_for(i, 0, CS_MAX_SMT)
#else
#define cs_for_each_sib(i) for (i = 0; i < CS_MAX_SMT; i++)
#endif

/* Tagged cookies live at once: as many as an owner field holds. */
#define CS_MAX_TAGGED 4096
#define CS_NR_SLOTS (CS_MAX_TAGGED + 1) /* real slots: 0 .. 4096 */
#define CS_SLOT_NONE 0xffff
#define CS_SLOT_EXCL 0xfffe
#define CS_SLOT_TRUST 0xfffd
/*
 * Slot bit sets (the live slots, the queued ones): CS_LIVE_WORDS words of
 * 64 bits, in an array of CS_LIVE_TBL (a power of two, for masked BPF
 * indexes).
 */
#define CS_LIVE_WORDS ((CS_NR_SLOTS + 63) / 64)
#define CS_LIVE_TBL 128
#define CS_WORD_IDLE 0ULL /* every next and cur is NONE */

/*
 * Per-slot arrays on BPF have CS_SLOT_TBL entries, a power of two above
 * CS_NR_SLOTS: an index masked by CS_SLOT_IDX() is one the verifier sees
 * in bounds. The value passes through an empty asm first, or clang, which
 * knows it from an earlier check to be below CS_NR_SLOTS, drops the mask
 * and leaves the verifier a copy whose bounds it never checked.
 */
#define CS_SLOT_TBL 8192

static inline __u32 cs_slot_idx(__u32 s)
{
#ifdef __bpf__
	asm volatile("" : "+r"(s));
#endif
	return s & (CS_SLOT_TBL - 1);
}

#define CS_SLOT_IDX(s) cs_slot_idx(s)

/*
 * Queue bounds. Picking the most deserving cookie looks at the tagged
 * slots with tasks queued (a bit each, set while the slot's queued count
 * is above 0, by words of 64 slots) a word at a time, in the order of a lower bound on the vtimes in each
 * word, and stops at the first word whose bound is not below the best
 * vtime found: with every bound exact, one word of 64 slots is looked at,
 * not the 4,096. A word's bound (cs_qb_*) packs the bound, in units of
 * 2^CS_QB_SHIFT ns, above a 16-bit sequence number:
 *
 *   - a slot that becomes queued lowers its word's bound to its vtime if
 *     that is lower, and counts the sequence up either way (cs_qb_lower);
 *   - a pick that looked at every slot of a word writes their lowest vtime
 *     as the new bound (cs_qb_refresh), by compare-and-swap from the word
 *     it read before looking: a slot that became queued meanwhile changed
 *     the sequence, so the stale bound is not written over its vtime.
 *
 * Vtimes only grow while a slot is counted queued (a cookie's vtime is
 * lowered only as it comes back from idle, before its queued count leaves
 * 0, or by the weight floor's rescue, bpf/guard.bpf.h, after the
 * compare-and-swap of its vtime; either lowering lowers the bound too, so
 * a pick that read the word before it passes the cookie over at most
 * once), so a bound once written stays a lower bound; it goes stale (too
 * low) as the cookies run, and the next pick that looks at the word makes
 * it exact again. Example: words 0 and 1 with bounds 10 and 12 ms; the
 * pick looks at word 0, whose best queued cookie is now at 13 ms (its 10
 * ms cookie ran), writes 13 ms, then looks at word 1 (12 < 13) and takes
 * its 12 ms cookie; the next pick starts with word 1.
 */
#define CS_QB_SHIFT 10
#define CS_QB_SEQ_BITS 16
#define CS_QB_SEQ_MASK ((1ULL << CS_QB_SEQ_BITS) - 1)
#define CS_QB_NONE (~0ULL >> CS_QB_SEQ_BITS) /* bound of a word with none */

/* A word's bound in ns (rounded down), ~0 if the word has none queued. */
static inline __u64 cs_qb_bound(__u64 w)
{
	__u64 b = w >> CS_QB_SEQ_BITS;

	return b == CS_QB_NONE ? ~0ULL : b << CS_QB_SHIFT;
}

/* The word for bound @ns (~0: none queued) and sequence number @seq. */
static inline __u64 cs_qb_pack(__u64 ns, __u64 seq)
{
	__u64 b = ns >> CS_QB_SHIFT;

	/* A vtime past 2^58 ns keeps a bound below it, never "none". */
	if (ns == ~0ULL)
		b = CS_QB_NONE;
	else if (b >= CS_QB_NONE)
		b = CS_QB_NONE - 1;
	return b << CS_QB_SEQ_BITS | (seq & CS_QB_SEQ_MASK);
}

/* @w after a slot of vtime @vt became queued in its word. */
static inline __u64 cs_qb_lower(__u64 w, __u64 vt)
{
	__u64 b = cs_qb_bound(w);

	return cs_qb_pack(vt < b ? vt : b, (w & CS_QB_SEQ_MASK) + 1);
}

/* @w with the lowest vtime of its queued slots, @min (~0: none), found. */
static inline __u64 cs_qb_refresh(__u64 w, __u64 min)
{
	return cs_qb_pack(min, w & CS_QB_SEQ_MASK);
}

/*
 * One bound @b, of word @j, in a pick's pass over the words' bounds: the
 * lowest so far in *@low (its word in *@k), the next lowest in *@next.
 * After looking at the lowest's word, a pick whose best vtime is not
 * above *@next is done: every other word's bound, as this pass read it,
 * is no lower than that best (bpf/pick.bpf.h, pick_best_slot). Example,
 * bounds 40, 12, 90 ms: k = 1, low 12, next 40; word 1's best cookie is
 * at 13 ms, 13 <= 40: done, words 0 and 2 are not read again.
 */
static inline void cs_qb_rank(__u64 b, __u32 j, __u32 *k, __u64 *low,
			      __u64 *next)
{
	if (b < *low) {
		*next = *low;
		*low = b;
		*k = j;
	} else if (b < *next) {
		*next = b;
	}
}

/*
 * One core's state word, alone on its cache line: the siblings of one
 * core write it at every switch, and no other core's CPUs should pay for
 * that.
 */
struct cs_core {
	__u64 word;
	__u64 pad[7];
};

/*
 * A per-CPU counter on a cache line of its own: its CPU adds to it, and
 * other CPUs sometimes subtract (untagged weight, wsum0).
 */
struct cs_pcpu_s64 {
	__s64 v;
	__s64 pad[7];
} __attribute__((aligned(64)));

/*
 * Per CPU, on a cache line of its own: its queued untagged tasks bound to
 * it, and since when they wait (bpf/guard.bpf.h).
 */
struct cs_pin {
	__s32 nr;
	__s32 nr_kt; /* of nr, kernel threads */
	__u64 since; /* the first was queued with none before, or one ran */
	__u64 pad[6];
} __attribute__((aligned(64)));

enum cs_verdict {
	CS_CLAIM_OK = 0,
	CS_BLOCKED_STABLE = 1, /* a sibling runs an incompatible cookie */
	CS_BLOCKED_TRANSIT = 2, /* a sibling is switching: its commit kicks */
	CS_CLAIM_RACED = 3, /* core_claim only: lost every CAS, kicked itself */
};

/* Classes of a sibling's next and cur in the core word (see above). */
enum cs_class {
	CS_CL_NONE,
	CS_CL_TRUST,
	CS_CL_ZERO,
	CS_CL_EXCL,
	CS_CL_OWN_NEXT,
	CS_CL_OWN_CUR, /* cur only */
};

#define CS_NR_CUR_CL 6 /* code = next class * CS_NR_CUR_CL + cur class */
#define CS_CODE_BITS 5
#define CS_CODE_MASK 31
#define CS_NR_CODES 30 /* products; two more codes follow */
#define CS_OWN_NEXT_SHIFT 40
#define CS_OWN_CUR_SHIFT 52
#define CS_OWN_MASK 0xfffULL /* an owner field: a tagged slot - 1 */

_Static_assert(CS_MAX_TAGGED <= CS_OWN_MASK + 1,
	       "an owner field holds every tagged slot");
_Static_assert(CS_SLOT_TBL >= CS_NR_SLOTS &&
		       (CS_SLOT_TBL & (CS_SLOT_TBL - 1)) == 0,
	       "per-slot BPF arrays: a power of two holding every slot");
_Static_assert(CS_LIVE_WORDS <= CS_LIVE_TBL &&
		       (CS_LIVE_TBL & (CS_LIVE_TBL - 1)) == 0,
	       "slot bit sets: masked indexes reach every word");

/*
 * Queues per cookie. Each real slot (the untagged work's and the tagged
 * cookies') has one queue per last-level cache, up to CS_LLC_QUEUES: a
 * task is queued on the LLC of the CPU it waits on, and a CPU takes from
 * its own LLC's queue unless another LLC's has waited a slice longer or
 * its own has nothing for it (claim.bpf.h). The overflow queue and the trusted kthreads' keep one.
 * Queue q of slot s is the DSQ s + q * CS_DSQ_STRIDE (queue 0 is the DSQ
 * s, as with a single LLC).
 */
#define CS_LLC_QUEUES 8
#define CS_DSQ_STRIDE 0x10000

_Static_assert(CS_SLOT_NONE < CS_DSQ_STRIDE,
	       "every slot's first queue below the second queues");
_Static_assert(
	CS_SLOT_EXCL + 1 <= 0xffff && CS_LLC_QUEUES <= 0xffff,
	"the task guard's note packs 1 + slot and a queue in 16 bits each");

/* Queues per slot for @nr_llcs last-level caches known at load. */
static inline __u32 cs_llc_queues(__u32 nr_llcs)
{
	if (nr_llcs < 1)
		return 1;
	return nr_llcs < CS_LLC_QUEUES ? nr_llcs : CS_LLC_QUEUES;
}

/*
 * The queue of last-level cache @llc, of @nq queues made for the @known
 * LLCs of the load: those spread in order over the queues, so that
 * neighbours share one when there are more LLCs than queues (the loader
 * numbers the LLCs of a socket together, sockets in turn); an LLC first seen
 * later (a CPU online after the load) takes one modulo @nq. Example: 16
 * LLCs on 2 sockets, 8 queues: LLCs 0 and 1 share queue 0, ..., 14 and 15
 * queue 7, and no queue spans the two sockets.
 */
static inline __u32 cs_llc_queue(__u32 llc, __u32 known, __u32 nq)
{
	if (nq <= 1)
		return 0;
	if (llc < known)
		return llc * nq / known;
	return llc % nq;
}

/*
 * The first task of a queue that may run on a CPU, by its vtime, among
 * the first few looked at (claim.bpf.h, queue_head_vt), or: none queued
 * may run there (CS_HEAD_NONE), or none of those looked at may and more
 * are queued: CS_HEAD_PAST with the vtime of the first one past those, a
 * lower bound on that of the first that may (a queue is in vtime order).
 * Task vtimes stay far below the flag, bit 63: from CS_VTIME_BASE, a
 * weight-1 task gains 100 ns a ns run, 2^63 in 2.9 years of run time.
 */
#define CS_HEAD_NONE (~0ULL)
#define CS_HEAD_PAST (1ULL << 63)

static inline bool cs_head_past(__u64 h)
{
	return h != CS_HEAD_NONE && (h & CS_HEAD_PAST);
}

/* A head's vtime, or for one past the peek its lower bound. */
static inline __u64 cs_head_vt(__u64 h)
{
	return h == CS_HEAD_NONE ? h : h & ~CS_HEAD_PAST;
}

/*
 * Does a CPU take from another LLC's queue of its cookie, whose first
 * task for it is at @other, before its own LLC's, whose first is at
 * @own? Yes when @other waited more than @slice longer (a lower vtime on
 * the cookie's one clock), or its own has no task queued that may run
 * there. Another queue past the peek counts by its lower bound: taken
 * from once our own first task is a slice above that, so a task of ours
 * queued there behind tasks bound elsewhere is reached as the cookie's
 * clock moves on (the consume takes the first one that may run here,
 * which may be later than our own first by the bound's slack). Not when
 * our own is past the peek: a task of ours further back there may be
 * earlier, and the consume of our own queue finds it.
 */
static inline bool cs_llc_steal(__u64 own, __u64 other, __u64 slice)
{
	__u64 ov = cs_head_vt(other);

	if (other == CS_HEAD_NONE || cs_head_past(own))
		return false;
	return own == CS_HEAD_NONE || (own > ov && own - ov > slice);
}

/*
 * May a running task at vtime @vt keep its CPU past its slice (renewal),
 * by a queue of its cookie whose first task for that CPU is at @head?
 * Not past the peek (one bound there may wait further).
 */
static inline bool cs_renew_keeps(__u64 vt, __u64 head, __u64 slice)
{
	if (head == CS_HEAD_NONE)
		return true;
	return !cs_head_past(head) && (vt <= head || vt - head <= slice);
}

/* The DSQ id of queue @q of slot @s. */
static inline __u64 cs_dsq_id(__u32 s, __u32 q)
{
	return s + (__u64)q * CS_DSQ_STRIDE;
}

/* A slot that owns a core while claimed or run: a tagged cookie's. */
static inline bool cs_tagged(__u32 s)
{
	return s && s < CS_NR_SLOTS;
}

static inline __u32 cs_code(__u64 w, int i)
{
	return (__u32)(w >> (CS_CODE_BITS * i)) & CS_CODE_MASK;
}

/* An owner field as a slot: always a tagged one (see above). */
static inline __u16 cs_owner_slot(__u64 w, int shift)
{
	return (__u16)(((w >> shift) & CS_OWN_MASK) + 1);
}

/* A tagged slot as an owner field at @shift. */
static inline __u64 cs_owner_field(__u32 s, int shift)
{
	return ((__u64)(s - 1) & CS_OWN_MASK) << shift;
}

static inline __u16 cs_class_slot(__u64 w, __u32 cl)
{
	switch (cl) {
	case CS_CL_NONE:
		return CS_SLOT_NONE;
	case CS_CL_TRUST:
		return CS_SLOT_TRUST;
	case CS_CL_ZERO:
		return 0;
	case CS_CL_OWN_NEXT:
		return cs_owner_slot(w, CS_OWN_NEXT_SHIFT);
	case CS_CL_OWN_CUR:
		return cs_owner_slot(w, CS_OWN_CUR_SHIFT);
	default:
		return CS_SLOT_EXCL;
	}
}

/*
 * Two more codes name own_cur as a next: a sibling that runs, or claimed
 * from idle, a tagged slot other than own_next (a foreign task imposed
 * beside a claim). Any other next of own_cur is written as EXCL.
 */
#define CS_CODE_CUR_CUR 30 /* next = cur = own_cur */
#define CS_CODE_CUR_NONE 31 /* next = own_cur, cur = NONE */

/* Sibling @i's next: the slot it has claimed. */
CS_WORD_FN __u16 cs_next(__u64 w, int i)
{
	__u32 code = cs_code(w, i);

	return code < CS_NR_CODES ? cs_class_slot(w, code / CS_NR_CUR_CL) :
				    cs_class_slot(w, CS_CL_OWN_CUR);
}

/* Sibling @i's cur: the slot it runs, committed after its switch. */
CS_WORD_FN __u16 cs_cur(__u64 w, int i)
{
	__u32 code = cs_code(w, i);

	if (code < CS_NR_CODES)
		return cs_class_slot(w, code % CS_NR_CUR_CL);
	return code == CS_CODE_CUR_CUR ? cs_class_slot(w, CS_CL_OWN_CUR) :
					 CS_SLOT_NONE;
}

static inline __u32 cs_slot_class(__u32 s, __u32 own_next, __u32 own_cur,
				  bool is_cur)
{
	if (s == CS_SLOT_NONE)
		return CS_CL_NONE;
	if (s == CS_SLOT_TRUST)
		return CS_CL_TRUST;
	if (s == 0)
		return CS_CL_ZERO;
	if (!cs_tagged(s))
		return CS_CL_EXCL;
	if (s == own_next)
		return CS_CL_OWN_NEXT;
	if (is_cur && s == own_cur)
		return CS_CL_OWN_CUR;
	return CS_CL_EXCL; /* a third tagged slot: stricter than the truth */
}

/* Can sibling's next @n be written as own_cur @oc, beside its cur @c? */
static inline bool cs_next_as_cur(__u32 n, __u32 c, __u32 on, __u32 oc)
{
	return cs_tagged(n) && n != on && n == oc &&
	       (c == oc || c == CS_SLOT_NONE);
}

/* One sibling's code: its next and cur by class, given the owners. */
CS_WORD_FN __u64 cs_sib_code(__u32 n, __u32 c, __u32 on, __u32 oc)
{
	if (cs_next_as_cur(n, c, on, oc))
		return c == oc ? CS_CODE_CUR_CUR : CS_CODE_CUR_NONE;
	return cs_slot_class(n, on, oc, false) * CS_NR_CUR_CL +
	       cs_slot_class(c, on, oc, true);
}

/*
 * A sibling in transit to tagged @n, from a cur that only own_next can
 * stand beside as its next (not idle, not the same slot).
 */
static inline bool cs_transit_to(__u32 n, __u32 c)
{
	return cs_tagged(n) && c != n && c != CS_SLOT_NONE;
}

/*
 * cs_pack chooses each owner by a fold over the siblings, one step per
 * sibling, carried in a scalar (on BPF each step is a global function of
 * scalars, so the verifier walks a loop body without branches):
 *   bits 0 .. 15   the slot chosen outright (own_next: one in transit)
 *   bits 16 .. 31  the first candidate other than the old owner
 *   bit 32         the old owner is still a candidate
 * A field that holds CS_SLOT_NONE holds nothing yet.
 */
#define CS_FOLD_MASK 0xffffULL
#define CS_FOLD_FIRST_SHIFT 16
#define CS_FOLD_KEEP (1ULL << 32)
#define CS_FOLD_EMPTY (CS_FOLD_MASK | CS_FOLD_MASK << CS_FOLD_FIRST_SHIFT)

/* The fold @acc with candidate @s for an owner that was @old. */
static inline __u64 cs_fold_candidate(__u64 acc, __u32 s, __u32 old)
{
	if (s == old)
		return acc | CS_FOLD_KEEP;
	if (((acc >> CS_FOLD_FIRST_SHIFT) & CS_FOLD_MASK) != CS_SLOT_NONE)
		return acc;
	return (acc & ~(CS_FOLD_MASK << CS_FOLD_FIRST_SHIFT)) |
	       (__u64)s << CS_FOLD_FIRST_SHIFT;
}

/* The owner a fold ends with: chosen, else @old if kept, else the first. */
static inline __u32 cs_fold_owner(__u64 acc, __u32 old)
{
	__u32 chosen = (__u32)(acc & CS_FOLD_MASK);
	__u32 first = (__u32)((acc >> CS_FOLD_FIRST_SHIFT) & CS_FOLD_MASK);

	if (chosen != CS_SLOT_NONE)
		return chosen;
	if (!(acc & CS_FOLD_KEEP) && first != CS_SLOT_NONE)
		return first;
	return old;
}

/*
 * own_next's fold, one sibling (next @n, cur @c): the next of a sibling
 * in transit (the first, or one that keeps @on), else a tagged next.
 */
CS_WORD_FN __u64 cs_own_next_step(__u64 acc, __u32 n, __u32 c, __u32 on)
{
	__u32 chosen = (__u32)(acc & CS_FOLD_MASK);

	if (!cs_tagged(n))
		return acc;
	if (cs_transit_to(n, c) && (chosen == CS_SLOT_NONE || n == on))
		acc = (acc & ~CS_FOLD_MASK) | n;
	return cs_fold_candidate(acc, n, on);
}

/*
 * own_cur's fold, one sibling: its cur if tagged and not own_next @on,
 * else its next if that can be written as own_cur (cs_next_as_cur).
 */
CS_WORD_FN __u64 cs_own_cur_step(__u64 acc, __u32 n, __u32 c, __u32 on,
				 __u32 oc)
{
	if (cs_tagged(c) && c != on)
		return cs_fold_candidate(acc, c, oc);
	if (cs_next_as_cur(n, c, on, n))
		return cs_fold_candidate(acc, n, oc);
	return acc;
}

/* A sibling that neither claims nor runs anything: its code is 0. */
static inline bool cs_idle_sib(__u32 n, __u32 c)
{
	return n == CS_SLOT_NONE && c == CS_SLOT_NONE;
}

/*
 * The word for the nexts @n[] and curs @c[] of every sibling. own_next is
 * the next of a sibling in transit (only own_next can name a next beside
 * another cur), else a tagged slot some next names; own_cur is a tagged
 * slot other than own_next that a cur, or a next beside that cur or
 * none, names. Each keeps its value in @old while that still fits, so a
 * sibling's change does not cost another its exact slot in a word that
 * could hold both. Anything else tagged is written as EXCL.
 */
static inline __u64 cs_pack(const __u16 *n, const __u16 *c, __u64 old)
{
	__u32 on = cs_owner_slot(old, CS_OWN_NEXT_SHIFT);
	__u32 oc = cs_owner_slot(old, CS_OWN_CUR_SHIFT);
	__u64 acc = CS_FOLD_EMPTY, w;
	int i;

	/* An idle sibling (code 0) names no owner: the loops pass it by. */
	cs_for_each_sib(i) {
		if (!cs_idle_sib(n[i], c[i]))
			acc = cs_own_next_step(acc, n[i], c[i], on);
	}
	on = cs_fold_owner(acc, on);
	acc = CS_FOLD_EMPTY;
	cs_for_each_sib(i) {
		if (!cs_idle_sib(n[i], c[i]))
			acc = cs_own_cur_step(acc, n[i], c[i], on, oc);
	}
	oc = cs_fold_owner(acc, oc);
	w = cs_owner_field(on, CS_OWN_NEXT_SHIFT) |
	    cs_owner_field(oc, CS_OWN_CUR_SHIFT);
	cs_for_each_sib(i) {
		__u64 code;

		if (cs_idle_sib(n[i], c[i]))
			continue;
		code = cs_sib_code(n[i], c[i], on, oc);
		w |= code << (CS_CODE_BITS * i);
	}
	return w;
}

/*
 * Every sibling's next and cur, decoded, with sibling @self's next or cur
 * replaced by @slot (@set_cur says which). The replacement is made in the
 * loop, not by indexing the array with @self afterwards: clang may form
 * that address with an OR, which the BPF verifier refuses on a pointer.
 */
static inline void cs_unpack_with(__u64 w, int self, bool set_cur, __u16 slot,
				  __u16 *n, __u16 *c)
{
	int i;

	cs_for_each_sib(i) {
		bool idle = !cs_code(w, i);

		n[i] = idle ? CS_SLOT_NONE : cs_next(w, i);
		c[i] = idle ? CS_SLOT_NONE : cs_cur(w, i);
		if (i == self && set_cur)
			c[i] = slot;
		else if (i == self)
			n[i] = slot;
	}
}

/* The word with sibling @i's next set to @slot (or EXCL, see cs_pack). */
CS_WORD_FN __u64 cs_set_next(__u64 w, int i, __u16 slot)
{
	__u16 n[CS_MAX_SMT] = { 0 }, c[CS_MAX_SMT] = { 0 };

	cs_unpack_with(w, i, false, slot, n, c);
	return cs_pack(n, c, w);
}

/* The word with sibling @i's cur set to @slot (or EXCL, see cs_pack). */
CS_WORD_FN __u64 cs_set_cur(__u64 w, int i, __u16 slot)
{
	__u16 n[CS_MAX_SMT] = { 0 }, c[CS_MAX_SMT] = { 0 };

	cs_unpack_with(w, i, true, slot, n, c);
	return cs_pack(n, c, w);
}

/* May a task of slot @a run on one sibling while slot @b runs on another? */
static inline bool cs_compat(__u16 a, __u16 b, int mode)
{
	if (a == CS_SLOT_NONE || b == CS_SLOT_NONE)
		return true;
	if (mode == CS_MODE_NONE)
		return true;
	if (a == CS_SLOT_TRUST || b == CS_SLOT_TRUST)
		return true;
	if (a == CS_SLOT_EXCL || b == CS_SLOT_EXCL)
		return false;
	if (a == b)
		return true;
	return mode == CS_MODE_FILL && (a == 0 || b == 0);
}

/*
 * Can sibling @self of a core with @nr siblings claim @slot given state @w?
 * Returns a cs_verdict.
 */
CS_WORD_FN int cs_claim_verdict(__u64 w, int self, int nr, __u16 slot,
				 int mode)
{
	int i, verdict = CS_CLAIM_OK;

	cs_for_each_sib(i) {
		__u16 n, c;

		if (i == self || i >= nr)
			continue; /* before decoding: each decode is a call on BPF */
		n = cs_next(w, i);
		c = cs_cur(w, i);
		if (cs_compat(n, slot, mode) && cs_compat(c, slot, mode))
			continue;
		if (n != c)
			return CS_BLOCKED_TRANSIT;
		verdict = CS_BLOCKED_STABLE;
	}
	return verdict;
}

/*
 * The cookie that the other siblings hold the core with, as a slot: the
 * first next that holds one among them, else the first such cur, else
 * NONE. Idle, trusted slots and @free (another slot that holds nothing)
 * do not hold a core.
 */
CS_WORD_FN __u16 cs_core_slot_but(__u64 w, int self, int nr, __u16 free)
{
	__u16 found = CS_SLOT_NONE;
	int i;

	cs_for_each_sib(i) {
		__u16 n, c;

		if (i == self || i >= nr)
			continue; /* before decoding: each decode is a call on BPF */
		n = cs_next(w, i);
		c = cs_cur(w, i);
		if (n != CS_SLOT_NONE && n != CS_SLOT_TRUST && n != free)
			return n;
		if (found == CS_SLOT_NONE && c != CS_SLOT_NONE &&
		    c != CS_SLOT_TRUST && c != free)
			found = c;
	}
	return found;
}

/* The core's holder: the first non-idle, non-trusted next (or cur). */
static inline __u16 cs_core_slot(__u64 w, int self, int nr)
{
	return cs_core_slot_but(w, self, nr, CS_SLOT_TRUST);
}

/*
 * The holder a handover is decided against: in fill mode untagged work
 * (slot 0) runs beside any cookie and holds no core, so a sibling running
 * it does not hide a tagged holder on a wider core. In none mode no
 * cookie holds a core: each CPU follows the most deserving cookie by
 * itself (cs_rivals).
 */
static inline __u16 cs_core_owner(__u64 w, int self, int nr, int mode)
{
	if (mode == CS_MODE_NONE)
		return CS_SLOT_NONE;
	return cs_core_slot_but(w, self, nr,
				mode == CS_MODE_FILL ? 0 : CS_SLOT_TRUST);
}

/*
 * Must a CPU running @held give way when @rival is due (more deserving by
 * the grace)? When the two cannot share the core; in none mode, which
 * shares everything, whenever they are two different slots (overflow
 * cookies share the EXCL slot and its queue), or the CPU would keep one
 * cookie for as long as it has tasks queued and starve the others
 * (sched.sh fairness_none). Idle and trusted kernel threads never make a
 * CPU give way in none mode, nor give way themselves.
 */
static inline bool cs_rivals(__u16 held, __u16 rival, int mode)
{
	if (mode != CS_MODE_NONE)
		return !cs_compat(held, rival, mode);
	return held != rival && held != CS_SLOT_NONE && rival != CS_SLOT_NONE &&
	       held != CS_SLOT_TRUST && rival != CS_SLOT_TRUST;
}

/* How many siblings currently run @slot (the caller included). */
CS_WORD_FN int cs_nr_running(__u64 w, int nr, __u16 slot)
{
	int i, n = 0;

	cs_for_each_sib(i)
		if (i < nr && cs_cur(w, i) == slot)
			n++;
	return n;
}

/*
 * Core time charged to a cookie for @delta ns of one sibling's run: the
 * cookie occupies the whole core (@nr siblings), shared among the @same
 * siblings that run it, so forced-idle siblings are paid for by it.
 */
static inline __u64 cs_core_charge(__u64 delta, int nr, int same)
{
	if (same < 1)
		same = 1;
	if (same > nr)
		same = nr;
	return delta * (__u64)nr / (__u64)same;
}

/* Scale a charge by weight: 100 is the weight of a nice-0 task. */
static inline __u64 cs_scale(__u64 charge, __u64 weight)
{
	if (!weight)
		weight = 1;
	return charge * 100 / weight;
}

/*
 * The weight a tagged cookie is charged against: its own @w (none known,
 * 0: 100), or 100 for every tagged cookie once the siblings drain before
 * SMT goes off (@even: a stop, bpf/slots.bpf.h drain_even). Example,
 * cpu.weight 1 beside 10000, 5 ms turns by the lower vtime: the first
 * cookie gets one turn in about 10,000; with @even, one in two, so that
 * its tasks release the mm locks the hotplug waits for.
 */
static inline __u64 cs_tagged_weight(__u64 w, bool even)
{
	return even || !w ? 100 : w;
}

/*
 * May a dispatch keep its CPU's claim @was for the wakee of a synchronous
 * wakeup, without looking at the other cookies? @hint is 1 + the tagged
 * slot cs_select_cpu placed such a wakee here for (its waker ran it, so
 * the claim named it) since the last dispatch, 0 if none; @prev_ours:
 * the previous task was ours (the kernel passes no prev after a task of
 * another class, which may have run for long with no tick of ours, or
 * after idle); @prev_queued: it is still runnable (its slice ended or a
 * kick preempted it: the pick decides); @owed: since the last full
 * dispatch, a tick came here or a sibling preempted this CPU
 * (preempt_conflicts), so a handover may be due, and the clock (vnow)
 * is moved on only by a pick. Not in fill mode, where untagged work may come first; it does
 * keep in none mode. The claim itself is made as always (try_run), so a
 * sibling in conflict still blocks it, and the task moved is the one
 * try_run would move (B, on this runqueue, unless another of cookie 5
 * waited a slice longer). Example, a pipe pair A/B of cookie 5 on CPU 2
 * (claim 5): A wakes B synchronously and blocks; CPU 2 claims 5 again
 * and moves B here, no pick over the queued cookies; the first
 * dispatch after each tick (HZ=1000: a millisecond) picks as always.
 */
static inline bool cs_sync_keep(__u32 hint, __u16 was, bool prev_ours,
				bool prev_queued, bool owed, int mode)
{
	return hint && hint - 1 == was && cs_tagged(was) && prev_ours &&
	       !prev_queued && !owed && mode != CS_MODE_FILL;
}

/*
 * Should a core held by a cookie at virtual time @vt_held give way to a
 * cookie waiting at @vt_best? @grace is the hysteresis in vtime units.
 */
static inline bool cs_should_yield(__u64 vt_held, __u64 vt_best, __u64 grace)
{
	return vt_best + grace < vt_held;
}

/*
 * The grace for a core owned by a tagged cookie that owns @held_cores
 * cores, this one among them, against a tagged cookie waiting with
 * @best_cores (a core's owner: the tagged cookie it claimed last): four
 * times @grace when the waiting one already owns as many cores (at least
 * one), @grace otherwise.
 * The grace is hysteresis between cookies that take turns on a core. Two
 * cookies that each hold a core are not taking turns: with the same grace
 * as a cookie that waits with none, the tick of the other core found the
 * same lead one tick after the first core had yielded, and yielded too, so
 * every correction moved all cores at once. Example, 2 cores, A and B with
 * 4 busy tasks each, a 5 ms grace: A holds both until B is 5 ms behind;
 * core 1 yields to B; core 0 still sees A 5 ms ahead, but B holds a core as
 * A does, so core 0 keeps A until A is 20 ms ahead, and each keeps its
 * core at an equal share. Before, both cores went to B, then both back to
 * A: about 75 switches a second per core (bench/throughput's cpu2, 2x2).
 */
static inline __u64 cs_yield_grace(__u64 grace, int held_cores, int best_cores)
{
	return best_cores > 0 && best_cores >= held_cores ? 4 * grace : grace;
}

/* Lag limit: a cookie that was idle may not bank more than @lag of credit. */
static inline __u64 cs_clamp_vtime(__u64 vt, __u64 now, __u64 lag)
{
	if (now > lag && vt < now - lag)
		return now - lag;
	return vt;
}

/*
 * Renewal and the tick. A tick may renew the running task's slice
 * (slice_renew, pick.bpf.h), but only while some of it is left: a slice
 * that reached 0 between two ticks is over, and the next tick ends the
 * task's run. So the renewal must come at the last tick before the slice
 * runs out, and a renewed slice must outlast the next tick. @tick is the
 * kernel's tick (TICK_NSEC, which the loader reads as the resolution of
 * CLOCK_MONOTONIC_COARSE); 0 if unknown.
 * A slice is renewed when 0 < @left <= the larger of half the @slice and
 * a tick and a half (cs_renew_floor), and renewed to the larger of the
 * slice and that floor (cs_renew_slice). Half the slice alone missed:
 * with a 2 ms slice and 1 ms ticks that each come up to 0.2 ms early or
 * late, a renewed slice could have more than half (1 ms) left at the
 * next tick and run out before the one after; and at HZ=250 (4 ms
 * ticks), a new 5 ms slice whose first tick came 1 to 2.5 ms into it had
 * more than half left there and nothing left at the next. A renewal past
 * the slice (the floor is longer) stretches it only to reach the next
 * tick: if that tick renews no more, the stretch is taken back
 * (cs_renew_refused).
 * Worked example, HZ=250, a 5 ms slice: the floor is 6 ms, so the first
 * tick renews (to 6 ms, 1 ms of stretch), and so does every tick after
 * (2 ms left); one that does not leaves 1 ms, as a plain renewal would
 * have. At HZ=1000 the floor is 1.5 ms, and a 5 ms slice is renewed
 * below 2.5 ms, as before.
 */
static inline __u64 cs_renew_floor(__u64 tick)
{
	return tick + tick / 2;
}

/* The most a slice may have left for a tick to renew it (once, at load). */
static inline __u64 cs_renew_below(__u64 slice, __u64 tick)
{
	return cs_renew_floor(tick) > slice / 2 ? cs_renew_floor(tick) :
						  slice / 2;
}

static inline bool cs_renew_due(__u64 left, __u64 below)
{
	return left && left <= below;
}

static inline __u64 cs_renew_slice(__u64 slice, __u64 tick)
{
	return cs_renew_floor(tick) > slice ? cs_renew_floor(tick) : slice;
}

/* The slice left when a tick renews no more: @left less the @stretch. */
static inline __u64 cs_renew_refused(__u64 left, __u64 stretch)
{
	return left > stretch ? left - stretch : 0;
}

/*
 * A gap between two charges of a running task longer than this is not
 * charged at all (a clock that jumped), nor counted as a stall.
 */
#define CS_CHARGE_GAP_MAX_NS (10ULL * 1000 * 1000 * 1000)

/*
 * Stalls. A CPU that runs a task takes a tick every @tick, so a running
 * task's charges (at each tick, and when it stops) come a tick apart or
 * less. Two ticks or more between two of them means that the CPU missed a
 * tick or more: a vCPU that its host did not run (TCG; a KVM vCPU that
 * its host preempted, too), or interrupts held off that long. All of the
 * gap but one tick is lost time, a lower estimate (cs_stall_lost): the
 * statistics count it (stalls, stalled_pct), and the charge and the slice
 * still take it, so the tick that comes back after the gap can find the
 * slice over and hand the task over before it ran another instruction
 * (README, Limits (cookies): not charging it and giving it back to the
 * slice was tried).
 * Worked example, HZ=1000 (tick 1 ms): a task runs 0.4 ms, its vCPU is
 * not run for 20 ms, then its tick comes, 20.4 ms after its last charge:
 * a stall of 19.4 ms. @tick 0 (unknown) counts none.
 */
static inline __u64 cs_stall_lost(__u64 delta, __u64 tick)
{
	return tick && delta >= 2 * tick ? delta - tick : 0;
}

/*
 * The lowest vtime a cookie whose queue was empty comes back at, @vnow
 * being the scheduler's clock and @vseen its value when the cookie last
 * ran: its credit is what the clock advanced since, at most @lag. A fixed
 * credit (vnow - lag for everyone) lets sleepers starve a waiter: with
 * the waiter at vnow, each of K cookies that sleep and wake comes back
 * up to lag behind it, runs, sleeps, comes back still behind, lag /
 * charge times, and vnow stands still meanwhile. Earned this way, a
 * sleeper passes a waiter at most once per advance of the clock.
 * Worked example, lag 20: vnow 100, cookie A ran at 100 (vseen 100),
 * is charged to 102 and sleeps; vnow stays 100 (a waiter W sits there):
 * A wakes at max(102, 100 - 0) = 102, behind W. Had vnow gone on to 130
 * while A slept, A would come back at max(102, 130 - 20) = 110.
 */
static inline __u64 cs_wake_floor(__u64 vnow, __u64 vseen, __u64 lag)
{
	__u64 credit = vnow > vseen ? vnow - vseen : 0;

	return vnow - (credit < lag ? credit : lag);
}

/*
 * The vtime a cookie whose queue was empty comes back at: @vt, no lower
 * than cs_wake_floor() and no more than @lag of core time (scaled by the
 * cookie's @weight, as its charges are) ahead of the clock as it was when
 * the cookie last ran (@vseen), nor below the floor. The cap bounds the
 * debt a cookie carries into a new queueing, as the floor bounds its
 * credit: a debt is repaid by waiting while the clock catches up, and the
 * clock moves by a charge divided by every queued cookie's weight, so
 * among 4,097 cookies one 500 ms ahead waits minutes (start-up runs, a
 * fork each in a TCG guest, left cookies up to 560 ms ahead) and the
 * kernel's 30 s watchdog could end the scheduler. Capped against the
 * clock now instead, the cookies that come back first are picked at the
 * cap, the clock jumps to it, and each later one is capped a lag further
 * on: a wave of wakeups spreads over many lags, and the first ones run
 * again and again before the last ones once (policy_wake_wave in
 * tests/test_policy.c). Against @vseen, cookies that last ran long ago
 * all come back at the floor, together, and are served in turn.
 * Worked example, lag 20 ms, weight 100, vnow 1 s: a cookie at 1.5 s that
 * last ran at vnow 0.99 s comes back at 1.01 s (at weight 50, with half
 * the share, at 1.03 s); one that last ran at 0.5 s comes back at the
 * floor, 0.98 s. A cookie served by the clock never gets that far ahead:
 * vnow is the vtime of the cookie picked last, and the others are served
 * in order.
 */
static inline __u64 cs_wake_vtime(__u64 vt, __u64 vnow, __u64 vseen,
				  __u64 lag, __u64 weight)
{
	__u64 lo = cs_wake_floor(vnow, vseen, lag);
	__u64 hi = vseen + cs_scale(lag, weight);

	if (hi < lo)
		hi = lo;
	if (vt < lo)
		return lo;
	return vt > hi ? hi : vt;
}

/*
 * The untagged work's guard. Untagged work (slot 0: every kernel thread,
 * the host's own daemons) competes as one cookie among the tagged ones,
 * so a single vtime that ends up ahead of the clock can keep all of it
 * waiting while thousands of tagged cookies take their turns: at 4,097
 * cookies on 8x2 (TCG) an untagged process waited 218 s and a per-CPU
 * kworker 40 s, and the kernel's watchdog (30 s) ejected the scheduler.
 * So when untagged work has been queued for @max_wait without starting
 * anywhere (cs_rescue_due), its vtime is lowered below anything a queued
 * cookie can hold (cs_untagged_rescue_vtime), and the next ticks hand
 * cores over to it by the usual rules. CS_UNTAGGED_MAX_WAIT_NS is far
 * below the watchdog's 30 s and far above an untagged turn under any sane
 * load.
 */
#define CS_UNTAGGED_MAX_WAIT_NS (1000ULL * 1000 * 1000)

/*
 * The tagged cookies' guard. A cookie's share of core time is its weight
 * against the others' (cgroup cpu.weight, 1 to 10000), so beside a busy
 * cookie of weight 10000 one of weight 1 gets a turn once per 10,000 of
 * the other's slices: 50 s at 5 ms, and the kernel's watchdog (30 s,
 * "runnable task stall") ejected the scheduler, isolation off until the
 * loader switched SMT off (tests/guest/closed.sh, stranded tasks). So a
 * cookie with tasks queued that has not started one for
 * CS_COOKIE_MAX_WAIT_NS is rescued as the untagged work is
 * (cs_aged_rescue_vtime). The wait counts from the cookie's last start,
 * so any cookie whose turn comes less than once a second reaches it: a
 * weight 200 times below a busy one's (a second over a 5 ms slice), or
 * hundreds of busy cookies a core. The guard looks at one word of 64
 * queued slots each CS_STARVE_SCAN_NS, the words in turn, and rescues
 * every cookie there that waited past the bound, the longer the wait the
 * lower its vtime; among 4,097 cookies (CS_LIVE_WORDS, 65 words) each
 * word is looked at every 650 ms. A rescue does not restart the wait, so
 * a cookie still waiting a second later goes lower again (about 1 ms of
 * vtime per further second, at most CS_RESCUE_CREDIT_MAX below the plain
 * rescue). When thousands wait past the bound, they are served oldest
 * first; the bound is then the time a round over them takes, not a
 * second (README, Limits (cookies)).
 */
#define CS_COOKIE_MAX_WAIT_NS (1000ULL * 1000 * 1000)
#define CS_STARVE_SCAN_NS (10ULL * 1000 * 1000)

/*
 * The tasks' guard. Inside one queue (a cookie's, the untagged work's, the
 * overflow's) tasks run in vtime order, charged 100 / weight per ns run,
 * and nothing caps a task's debt: a nice 19 task (sched_ext weight 1)
 * that ran one 5 ms slice is 500 ms of vtime ahead, while a nice -20
 * spinner (weight 8668) of the same cookie advances 58 us per slice.
 * Beside 2 x NCPU such spinners the nice 19 task's next turn comes 86 s
 * later (43 s beside NCPU of them, each kept on its CPU by renewals):
 * the kernel's watchdog (30 s) ejects the scheduler, and the cookie
 * guard does not help, as the cookie itself runs. So each CPU's tick, at
 * most once per CS_TASK_SCAN_NS, walks the queue of the cookie it runs
 * from its tail over CS_TASK_TAIL tasks at most, in debt or not (one
 * with no debt behind tasks queued after it at the clock less a slice
 * waits until their runs pass it, minutes for a cookie with rare turns);
 * the one that waited longest past CS_TASK_MAX_WAIT_NS and can run there
 * ends the slice, and the dispatch that follows re-queues it at the head
 * of its queue, its debt dropped (cs_rescued_task_vtime). Its next slice
 * puts it back at the tail, behind the ones still waiting (their debt is
 * older: they sit nearer the head), so the walk must pass over it: up to
 * CS_TASK_TAIL tasks at a queue's tail each wait at most about a second,
 * plus a look per rescue due and a slice; the ones nearer the head wait
 * in vtime order (README, Fairness, Task floor).
 */
#define CS_TASK_MAX_WAIT_NS (1000ULL * 1000 * 1000)
#define CS_TASK_SCAN_NS (50ULL * 1000 * 1000)
#define CS_TASK_TAIL 32

/*
 * A rescued task's vtime: its debt dropped, a slice behind its queue's
 * @clock less 1 ns, so ahead of every task queued since (cs_clamp_vtime
 * keeps them at clock - slice or above): behind only tasks that waited
 * with less, at the head, so the CPUs of its cookie take it soon.
 */
static inline __u64 cs_rescued_task_vtime(__u64 clock, __u64 slice)
{
	return clock > slice ? clock - slice - 1 : 0;
}

/*
 * May the task guard's walk rescue a task at vtime @vt: is it behind a
 * rescued task's place? One there or ahead would not move ahead by a
 * re-queue.
 */
static inline bool cs_task_rescuable(__u64 vt, __u64 clock, __u64 slice)
{
	return vt > cs_rescued_task_vtime(clock, slice);
}

/* Has work queued since @since (or run last then) waited past @max_wait? */
static inline bool cs_rescue_due(__u64 now, __u64 since, __u64 max_wait)
{
	return now > since && now - since > max_wait;
}

/*
 * The vtime of a rescued cookie: below the wake floor (cs_wake_floor
 * never goes below @vnow - @lag), so below every cookie that came back
 * from idle, and below every one still waiting (the clock is the vtime of
 * the cookie picked last, so a waiting cookie is at or above it, but for
 * one passed over for affinity). Never raised. Worked example, lag 20 ms:
 * the untagged work at 1.25 s, vnow 1.00 s: it comes back at 0.98 s less
 * 1 ns, ahead of a cookie woken with the whole credit (0.98 s).
 */
static inline __u64 cs_rescue_vtime(__u64 vt, __u64 vnow, __u64 lag)
{
	__u64 lo = vnow > lag ? vnow - lag - 1 : 0;

	return vt < lo ? vt : lo;
}

/*
 * How far past CS_COOKIE_MAX_WAIT_NS a rescued cookie's wait still earns
 * it credit (cs_aged_rescue_vtime): 64 s, twice the kernel watchdog's
 * 30 s, so that no wait the scheduler survives reaches it. The credit
 * then stops at 64 s / 1,024, 62.5 ms of vtime.
 */
#define CS_RESCUE_OVER_MAX_NS (64ULL * 1000 * 1000 * 1000)

/* The most credit a rescued tagged cookie gets. */
#define CS_RESCUE_CREDIT_MAX (CS_RESCUE_OVER_MAX_NS >> 10)

/*
 * The vtime of a tagged cookie the guard rescues @over ns after its wait
 * passed CS_COOKIE_MAX_WAIT_NS: cs_rescue_vtime() less a microsecond (1,024
 * ns) per millisecond (1,024 us) of @over, at most CS_RESCUE_CREDIT_MAX
 * less. When many cookies wait past the bound at once (thousands sharing
 * a few cores, each turn taking seconds to come round), the guard lowers
 * them all and they are then served oldest first: a round. Rescued at one
 * vtime, they went in the order of their vtimes again, and those a few
 * charges above the rest (back from a burst, up to four graces ahead)
 * waited through round after round. The credit must not stop at a wait
 * the scheduler can live through: cookies past such a stop tie, the
 * clock stands still below them, the pick takes the lowest slot of a tie,
 * and high slots starve (with the credit stopped at a lag, a 4 ms lag
 * left 2,646 of 4,097 cookies on 4 cores unserved for 120 s in the host
 * model, policy_rescue_round). For the same reason the clock starts at
 * CS_VTIME_BASE, not 0, where every rescue would stop. Worked example,
 * lag 20 ms, vnow 1 s: a cookie 1 s past the bound goes to 980 ms less
 * 1 ns less 0.98 ms, one 5 s past it to 980 ms less 1 ns less 4.8 ms,
 * and is served first. The credit is a thousandth of the wait in vtime,
 * so in core time weight / 100 thousandths (a tenth at weight 10000): a
 * rescued cookie gets back a small part of the share it missed.
 */
static inline __u64 cs_aged_rescue_vtime(__u64 vt, __u64 vnow, __u64 lag,
					 __u64 over)
{
	if (over > CS_RESCUE_OVER_MAX_NS)
		over = CS_RESCUE_OVER_MAX_NS;
	return cs_rescue_vtime(vt, vnow, lag + (over >> 10));
}

/*
 * The vtime of the untagged work the guard rescues: the plain rescue
 * (cs_rescue_vtime), and below @low too, a lower bound on the vtimes of
 * the tagged cookies and the overflow queue with tasks queued (~0 if
 * none), so below every rescued one, so that kernel threads, the kernel
 * watchdog's own worker among them, never wait behind a round of rescued
 * cookies; no lower than that (its credit is core time its tasks then
 * take from all the others). Worked example, lag 20 ms, vnow 1 s: with
 * no cookie rescued, 980 ms less 1 ns; with one rescued to 975 ms, just
 * below 975 ms (@low, a word's bound, is rounded down to 1,024 ns).
 */
static inline __u64 cs_untagged_rescue_vtime(__u64 vt, __u64 vnow, __u64 lag,
					     __u64 low)
{
	__u64 v = cs_rescue_vtime(vt, vnow, lag);

	if (low <= v)
		v = low ? low - 1 : 0;
	return v;
}

/*
 * Where the cookies' clock (vnow) and the untagged work's and overflow
 * queue's vtimes start at load: 2^40 ns (about 18 minutes of vtime), far
 * above the deepest rescue (four graces of 1 s, the --grace-us maximum,
 * plus CS_RESCUE_CREDIT_MAX below the clock). Started at 0, every rescue
 * in the first seconds stopped at 0: rescued cookies tied there and the
 * pick took the lowest slot of the tie (a review's model: 2,702 of 4,097
 * never ran in 120 s).
 */
#define CS_VTIME_BASE (1ULL << 40)

/*
 * Index of the lowest set bit of a non-zero word, without a branch on the
 * word (BPF has no ctz instruction, and branches on it would make the
 * verifier walk every path of a loop over its bits): the lowest bit b
 * alone, multiplied by a de Bruijn constant, puts a distinct 6-bit number
 * in the top bits; cs_low_bit_table() maps those numbers back to b.
 */
#define CS_DEBRUIJN64 0x03f79d71b4cb0a89ULL

static inline __u32 cs_low_bit_key(__u64 x)
{
	return (__u32)(((x & -x) * CS_DEBRUIJN64) >> 58);
}

/* Fill @t[64] so that t[cs_low_bit_key(x)] is the lowest set bit of x. */
static inline void cs_low_bit_table(__u8 *t)
{
	__u32 b;

	for (b = 0; b < 64; b++)
		t[cs_low_bit_key(1ULL << b)] = (__u8)b;
}

#endif /* __CS_POLICY_H */
