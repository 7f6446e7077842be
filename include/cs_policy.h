/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scx_coresched policy: plain functions over plain integers, shared by the
 * BPF scheduler and the host unit tests (tests/test_policy.c).
 *
 * Cookie slots. The scheduler maps every live cookie to a small slot id so
 * that the state of a whole core fits in one 64-bit word:
 *
 *   0             untagged tasks (cookie 0)
 *   1..252        tagged cookies
 *   CS_SLOT_TRUST trusted kernel threads (--trust-kthreads): compatible
 *                 with everything
 *   CS_SLOT_EXCL  overflow when all slots are taken: compatible with
 *                 nothing but idle, not even itself
 *   CS_SLOT_NONE  nothing (idle, or not claimed)
 *
 * Core state word. For sibling index i (0..3) of a core:
 *
 *   bits 16i+0 .. 16i+7   next[i]: slot the sibling has claimed to run
 *   bits 16i+8 .. 16i+15  cur[i]:  slot the sibling is running, committed
 *                                  only after its context switch completed
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

#define CS_SLOT_NONE 255
#define CS_SLOT_EXCL 254
#define CS_SLOT_TRUST 253
#define CS_NR_SLOTS 253 /* real slots: 0 .. 252 */
#define CS_WORD_IDLE (~0ULL) /* every next and cur is NONE */

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

enum cs_verdict {
	CS_CLAIM_OK = 0,
	CS_BLOCKED_STABLE = 1, /* a sibling runs an incompatible cookie */
	CS_BLOCKED_TRANSIT = 2, /* a sibling is switching: its commit kicks */
	CS_CLAIM_RACED = 3, /* core_claim only: lost every CAS, kicked itself */
};

static inline __u8 cs_next(__u64 w, int i)
{
	return (__u8)(w >> (16 * i));
}

static inline __u8 cs_cur(__u64 w, int i)
{
	return (__u8)(w >> (16 * i + 8));
}

static inline __u64 cs_set_next(__u64 w, int i, __u8 slot)
{
	int sh = 16 * i;

	return (w & ~(0xffULL << sh)) | ((__u64)slot << sh);
}

static inline __u64 cs_set_cur(__u64 w, int i, __u8 slot)
{
	int sh = 16 * i + 8;

	return (w & ~(0xffULL << sh)) | ((__u64)slot << sh);
}

/* May a task of slot @a run on one sibling while slot @b runs on another? */
static inline bool cs_compat(__u8 a, __u8 b, int mode)
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
static inline int cs_claim_verdict(__u64 w, int self, int nr, __u8 slot,
				   int mode)
{
	int i, verdict = CS_CLAIM_OK;

	for (i = 0; i < CS_MAX_SMT; i++) {
		__u8 n = cs_next(w, i), c = cs_cur(w, i);

		if (i == self || i >= nr)
			continue;
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
static inline __u8 cs_core_slot_but(__u64 w, int self, int nr, __u8 free)
{
	__u8 found = CS_SLOT_NONE;
	int i;

	for (i = 0; i < CS_MAX_SMT; i++) {
		__u8 n = cs_next(w, i), c = cs_cur(w, i);

		if (i == self || i >= nr)
			continue;
		if (n != CS_SLOT_NONE && n != CS_SLOT_TRUST && n != free)
			return n;
		if (found == CS_SLOT_NONE && c != CS_SLOT_NONE &&
		    c != CS_SLOT_TRUST && c != free)
			found = c;
	}
	return found;
}

/* The core's holder: the first non-idle, non-trusted next (or cur). */
static inline __u8 cs_core_slot(__u64 w, int self, int nr)
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
static inline __u8 cs_core_owner(__u64 w, int self, int nr, int mode)
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
static inline bool cs_rivals(__u8 held, __u8 rival, int mode)
{
	if (mode != CS_MODE_NONE)
		return !cs_compat(held, rival, mode);
	return held != rival && held != CS_SLOT_NONE && rival != CS_SLOT_NONE &&
	       held != CS_SLOT_TRUST && rival != CS_SLOT_TRUST;
}

/* How many siblings currently run @slot (the caller included). */
static inline int cs_nr_running(__u64 w, int nr, __u8 slot)
{
	int i, n = 0;

	for (i = 0; i < CS_MAX_SMT; i++)
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
 * Should a core held by a cookie at virtual time @vt_held give way to a
 * cookie waiting at @vt_best? @grace is the hysteresis in vtime units.
 */
static inline bool cs_should_yield(__u64 vt_held, __u64 vt_best, __u64 grace)
{
	return vt_best + grace < vt_held;
}

/* Lag limit: a cookie that was idle may not bank more than @lag of credit. */
static inline __u64 cs_clamp_vtime(__u64 vt, __u64 now, __u64 lag)
{
	if (now > lag && vt < now - lag)
		return now - lag;
	return vt;
}

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
