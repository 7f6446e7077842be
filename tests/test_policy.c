// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for the pure policy code in include/cs_policy.h: the core
 * state word, cookie compatibility, claim verdicts (with an exhaustive model
 * check of the IPI window), core slot and charge accounting, and the
 * numbering of per-task cookies (coresched.h).
 *
 * Prints one line per test, "PASS name" or "FAIL name: why"; exits 1 if any
 * test failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coresched.h"
#include "cs_policy.h"
#include "harness.h"


/* Fixtures */

enum { X = 3, Y = 7, Z = 9 }; /* three tagged cookie slots */


static const int modes[] = { CS_MODE_STRICT, CS_MODE_FILL, CS_MODE_NONE };
#define NR_MODES ARRAY_SIZE(modes)

/* Slot values worth trying in loops: untagged, tagged, special. */
static const __u16 slots[] = { 0,   1,  X, Y, 128, 252, 2048, CS_MAX_TAGGED - 1,
			       CS_MAX_TAGGED, CS_SLOT_TRUST, CS_SLOT_EXCL,
			       CS_SLOT_NONE };
#define NR_SLOTS ARRAY_SIZE(slots)

/* Set sibling @i of word @w to claimed @next, committed @cur. */
static __u64 sib(__u64 w, int i, __u16 next, __u16 cur)
{
	return cs_set_cur(cs_set_next(w, i, next), i, cur);
}

/* Word encoding */

static __u64 code_at(int i, __u64 code)
{
	return code << (CS_CODE_BITS * i);
}

static bool test_policy_word_layout(void)
{
	/* The bit layout is an ABI between the BPF side and its readers. */
	__u64 on = (__u64)(X - 1) << CS_OWN_NEXT_SHIFT;
	__u64 oc = (__u64)(Y - 1) << CS_OWN_CUR_SHIFT;
	__u64 w = cs_set_next(0, 0, X);

	CHECK_EQ(w, on | code_at(0, CS_CL_OWN_NEXT * CS_NR_CUR_CL));
	CHECK_EQ(cs_set_cur(w, 0, X),
		 on | code_at(0, CS_CL_OWN_NEXT * CS_NR_CUR_CL + CS_CL_OWN_NEXT));
	/* Sibling 0 leaves Y for X: X is the claim, Y the cur it leaves. */
	CHECK_EQ(sib(0, 0, X, Y),
		 on | oc | code_at(0, CS_CL_OWN_NEXT * CS_NR_CUR_CL + CS_CL_OWN_CUR));
	CHECK_EQ(cs_set_next(0, 7, 0), code_at(7, CS_CL_ZERO * CS_NR_CUR_CL));
	CHECK_EQ(cs_set_cur(0, 7, CS_SLOT_TRUST), code_at(7, CS_CL_TRUST));
	CHECK_EQ(cs_set_cur(0, 5, CS_SLOT_EXCL), code_at(5, CS_CL_EXCL));
	/* The two codes past the products: own_cur as a next. */
	CHECK_EQ(cs_next(oc | code_at(3, CS_CODE_CUR_CUR), 3), Y);
	CHECK_EQ(cs_cur(oc | code_at(3, CS_CODE_CUR_CUR), 3), Y);
	CHECK_EQ(cs_next(oc | code_at(3, CS_CODE_CUR_NONE), 3), Y);
	CHECK_EQ(cs_cur(oc | code_at(3, CS_CODE_CUR_NONE), 3), CS_SLOT_NONE);
	CHECK_EQ(cs_next(on | oc, 2), CS_SLOT_NONE);
	/* The same words as literals, so a change of the macros shows. */
	CHECK_EQ(cs_set_cur(w, 0, X), 0x2000000001cULL);
	CHECK_EQ(sib(0, 0, X, Y), 0x6002000000001dULL);
	CHECK_EQ(cs_set_next(0, 7, 0), 0x6000000000ULL);
	/* Owner fields hold a tagged slot - 1: all 4,096 values are slots. */
	CHECK_EQ(cs_next(code_at(0, CS_CL_OWN_NEXT * CS_NR_CUR_CL), 0), 1);
	CHECK_EQ(cs_cur(0xfffULL << CS_OWN_CUR_SHIFT |
				code_at(1, CS_CL_OWN_CUR),
			1),
		 CS_MAX_TAGGED);
	CHECK_EQ(sib(0, 2, CS_MAX_TAGGED, 1),
		 0xfffULL << CS_OWN_NEXT_SHIFT |
			 code_at(2, CS_CL_OWN_NEXT * CS_NR_CUR_CL +
					    CS_CL_OWN_CUR));
	return true;
}

/* A sibling alone on its core holds any next and cur exactly. */
static bool test_policy_word_roundtrip(void)
{
	int i, a, b;

	for (i = 0; i < CS_MAX_SMT; i++) {
		for (a = 0; a < 256; a++) {
			for (b = 0; b < 256; b += a % 7 ? 17 : 1) {
				__u64 w = sib(CS_WORD_IDLE, i, a, b);
				int j;

				CHECK(cs_next(w, i) == a && cs_cur(w, i) == b,
				      "sibling %d: next/cur %u/%u, set %d/%d", i,
				      cs_next(w, i), cs_cur(w, i), a, b);
				for (j = 0; j < CS_MAX_SMT; j++)
					CHECK(j == i ||
						      (cs_next(w, j) == CS_SLOT_NONE &&
						       cs_cur(w, j) == CS_SLOT_NONE),
					      "sibling %d set, %d not idle", i, j);
			}
		}
		/* The edges of the slot range, and the specials. */
		for (a = 0; a < (int)NR_SLOTS; a++)
			for (b = 0; b < (int)NR_SLOTS; b++) {
				__u64 w = sib(CS_WORD_IDLE, i, slots[a],
					      slots[b]);

				CHECK(cs_next(w, i) == slots[a] &&
					      cs_cur(w, i) == slots[b],
				      "sibling %d: next/cur %u/%u, set %u/%u",
				      i, cs_next(w, i), cs_cur(w, i), slots[a],
				      slots[b]);
			}
	}
	return true;
}

/*
 * What the word says of sibling @i, against the truth @n/@c: exactly it,
 * or EXCL for a tagged slot it had no room for, never anything looser.
 */
static bool holds_or_stricter(__u64 w, int i, __u16 n, __u16 c)
{
	return (cs_next(w, i) == n ||
		(cs_next(w, i) == CS_SLOT_EXCL && cs_tagged(n))) &&
	       (cs_cur(w, i) == c ||
		(cs_cur(w, i) == CS_SLOT_EXCL && cs_tagged(c)));
}

static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

/* A core of 1 to 8 idle siblings: its word and its truth. Returns nr. */
static int idle_core(unsigned int *seed, __u64 *w, __u16 *n, __u16 *c)
{
	int i;

	*w = CS_WORD_IDLE;
	for (i = 0; i < CS_MAX_SMT; i++)
		n[i] = c[i] = CS_SLOT_NONE;
	return 1 + rnd(seed, CS_MAX_SMT);
}

/*
 * Any sequence of sets, protocol or not (imposed foreign slots, none
 * mode), on any number of siblings: every sibling reads back its slot or
 * EXCL, and a claim the word allows is one the truth allows.
 */
static bool test_policy_word_never_looser(void)
{
	static const __u16 pool[] = { 0, 1, X, Y, Z, CS_SLOT_TRUST,
				     CS_SLOT_EXCL, CS_SLOT_NONE };
	unsigned int seed = 1;
	int round, step;

	for (round = 0; round < 2000; round++) {
		__u16 n[CS_MAX_SMT], c[CS_MAX_SMT];
		__u64 w;
		int nr = idle_core(&seed, &w, n, c), i, k, m, v;

		for (step = 0; step < 40; step++) {
			__u16 s = pool[rnd(&seed, ARRAY_SIZE(pool))];

			i = rnd(&seed, nr);
			if (rnd(&seed, 2)) {
				w = cs_set_next(w, i, s);
				n[i] = s;
			} else {
				w = cs_set_cur(w, i, s);
				c[i] = s;
			}
			for (k = 0; k < CS_MAX_SMT; k++)
				CHECK(holds_or_stricter(w, k, n[k], c[k]),
				      "round %d step %d: sibling %d reads %u/%u, holds %u/%u",
				      round, step, k, cs_next(w, k), cs_cur(w, k),
				      n[k], c[k]);
			for (m = 0; m < NR_MODES; m++)
				for (v = 0; v < ARRAY_SIZE(pool); v++) {
					bool ok = true;

					for (k = 0; k < nr; k++)
						if (k != i &&
						    !(cs_compat(n[k], pool[v], modes[m]) &&
						      cs_compat(c[k], pool[v], modes[m])))
							ok = false;
					CHECK(ok || cs_claim_verdict(w, i, nr, pool[v],
								     modes[m]) != CS_CLAIM_OK,
					      "round %d: the word lets sibling %d claim %u, the truth does not",
					      round, i, pool[v]);
				}
		}
	}
	return true;
}

/*
 * Cores that follow the protocol (a claim only when every sibling allows
 * it, a commit of what was claimed, a release to idle), with untagged and
 * trusted work beside: the word stays exact on up to 8 siblings, so the
 * encoding never costs a handover a forced idle.
 */
static bool test_policy_word_exact_under_protocol(void)
{
	static const __u16 pool[] = { 0, 1, X, Y, Z, CS_SLOT_TRUST,
				     CS_SLOT_EXCL };
	unsigned int seed = 7;
	int round, step, m;

	for (m = 0; m < 2; m++) {
		for (round = 0; round < 2000; round++) {
			__u16 n[CS_MAX_SMT], c[CS_MAX_SMT];
			__u64 w;
			int nr = idle_core(&seed, &w, n, c), i, k;

			for (step = 0; step < 60; step++) {
				__u16 s = pool[rnd(&seed, ARRAY_SIZE(pool))];

				i = rnd(&seed, nr);
				switch (rnd(&seed, 3)) {
				case 0: /* claim */
					if (cs_claim_verdict(w, i, nr, s, modes[m]) !=
					    CS_CLAIM_OK)
						continue;
					w = cs_set_next(w, i, s);
					n[i] = s;
					break;
				case 1: /* its switch commits the claim */
					w = cs_set_cur(w, i, n[i]);
					c[i] = n[i];
					break;
				default: /* it releases its claim */
					w = cs_set_next(w, i, CS_SLOT_NONE);
					n[i] = CS_SLOT_NONE;
				}
				for (k = 0; k < CS_MAX_SMT; k++)
					CHECK(cs_next(w, k) == n[k] &&
						      cs_cur(w, k) == c[k],
					      "%s round %d step %d: sibling %d reads %u/%u, holds %u/%u",
					      m ? "fill" : "strict", round, step, k,
					      cs_next(w, k), cs_cur(w, k), n[k],
					      c[k]);
			}
		}
	}
	return true;
}

/*
 * Off the protocol (none mode, or a foreign task imposed): two cookies
 * that fit the two owners stay exact while a third comes and goes.
 * Siblings 0 and 1 run X and Y; sibling 0 claims Z (three cookies: X,
 * the one being left, is held as EXCL, and Y keeps its owner field), then
 * commits Z: X is gone, and the word holds Z and Y exactly.
 */
static bool test_policy_word_exact_off_protocol(void)
{
	__u64 w = sib(sib(CS_WORD_IDLE, 0, X, X), 1, Y, Y);

	CHECK(cs_next(w, 0) == X && cs_cur(w, 0) == X && cs_next(w, 1) == Y &&
		      cs_cur(w, 1) == Y,
	      "X and Y on two siblings: %u/%u %u/%u", cs_next(w, 0),
	      cs_cur(w, 0), cs_next(w, 1), cs_cur(w, 1));
	w = cs_set_next(w, 0, Z);
	CHECK(holds_or_stricter(w, 0, Z, X),
	      "Z claimed beside X: looser than the truth");
	CHECK(cs_next(w, 1) == Y && cs_cur(w, 1) == Y,
	      "sibling 1 lost Y to sibling 0's claim: %u/%u", cs_next(w, 1),
	      cs_cur(w, 1));
	w = cs_set_cur(w, 0, Z);
	CHECK(cs_next(w, 0) == Z && cs_cur(w, 0) == Z && cs_next(w, 1) == Y &&
		      cs_cur(w, 1) == Y,
	      "Z and Y: %u/%u %u/%u", cs_next(w, 0), cs_cur(w, 0),
	      cs_next(w, 1), cs_cur(w, 1));
	return true;
}

static bool test_policy_word_idle(void)
{
	int i;

	for (i = 0; i < CS_MAX_SMT; i++) {
		CHECK_EQ(cs_next(CS_WORD_IDLE, i), CS_SLOT_NONE);
		CHECK_EQ(cs_cur(CS_WORD_IDLE, i), CS_SLOT_NONE);
	}
	/*
	 * A busy core (every sibling on X, one leaving Y for X) released by
	 * every sibling: each code is idle again (the owners may stay).
	 */
	{
		__u64 w = CS_WORD_IDLE;

		for (i = 0; i < CS_MAX_SMT; i++)
			w = sib(w, i, X, i ? X : Y);
		for (i = 0; i < CS_MAX_SMT; i++)
			w = sib(w, i, CS_SLOT_NONE, CS_SLOT_NONE);
		CHECK_EQ(w & ((1ULL << CS_OWN_NEXT_SHIFT) - 1), 0);
		for (i = 0; i < CS_MAX_SMT; i++)
			CHECK(cs_next(w, i) == CS_SLOT_NONE &&
				      cs_cur(w, i) == CS_SLOT_NONE,
			      "sibling %d not idle after release", i);
	}
	return true;
}

/* cs_compat */

static bool test_policy_compat_none_slot(void)
{
	int a, m;

	for (m = 0; m < NR_MODES; m++)
		for (a = 0; a < 256; a++) {
			CHECK(cs_compat(CS_SLOT_NONE, a, modes[m]),
			      "NONE vs %d mode %d", a, modes[m]);
			CHECK(cs_compat(a, CS_SLOT_NONE, modes[m]),
			      "%d vs NONE mode %d", a, modes[m]);
		}
	return true;
}

static bool test_policy_compat_strict(void)
{
	int a, b;

	for (a = 0; a < CS_NR_SLOTS; a++)
		for (b = 0; b < CS_NR_SLOTS; b++)
			CHECK(cs_compat(a, b, CS_MODE_STRICT) == (a == b),
			      "strict: %d vs %d = %d", a, b,
			      cs_compat(a, b, CS_MODE_STRICT));
	/* Untagged is a cookie like any other in strict mode. */
	CHECK(!cs_compat(0, X, CS_MODE_STRICT), "strict: 0 vs X allowed");
	CHECK(!cs_compat(X, 0, CS_MODE_STRICT), "strict: X vs 0 allowed");
	CHECK(cs_compat(0, 0, CS_MODE_STRICT), "strict: 0 vs 0 refused");
	return true;
}

static bool test_policy_compat_fill(void)
{
	int a, b;

	for (a = 0; a < CS_NR_SLOTS; a++)
		for (b = 0; b < CS_NR_SLOTS; b++) {
			bool want = a == b || a == 0 || b == 0;

			CHECK(cs_compat(a, b, CS_MODE_FILL) == want,
			      "fill: %d vs %d = %d, expected %d", a, b,
			      cs_compat(a, b, CS_MODE_FILL), want);
		}
	CHECK(cs_compat(0, 252, CS_MODE_FILL), "fill: 0 vs 252 refused");
	CHECK(!cs_compat(X, Y, CS_MODE_FILL), "fill: X vs Y allowed");
	/* Filling never extends to the overflow slot. */
	CHECK(!cs_compat(0, CS_SLOT_EXCL, CS_MODE_FILL), "fill: 0 vs EXCL");
	CHECK(!cs_compat(CS_SLOT_EXCL, 0, CS_MODE_FILL), "fill: EXCL vs 0");
	return true;
}

static bool test_policy_compat_mode_none(void)
{
	int a, b;

	for (a = 0; a < 256; a++)
		for (b = 0; b < 256; b++)
			CHECK(cs_compat(a, b, CS_MODE_NONE),
			      "mode none: %d vs %d refused", a, b);
	return true;
}

static bool test_policy_compat_trust(void)
{
	int a, m;

	for (m = 0; m < NR_MODES; m++)
		for (a = 0; a < 256; a++) {
			CHECK(cs_compat(CS_SLOT_TRUST, a, modes[m]),
			      "TRUST vs %d mode %d", a, modes[m]);
			CHECK(cs_compat(a, CS_SLOT_TRUST, modes[m]),
			      "%d vs TRUST mode %d", a, modes[m]);
		}
	/* Explicitly: a trusted kthread may run beside the overflow slot. */
	CHECK(cs_compat(CS_SLOT_TRUST, CS_SLOT_EXCL, CS_MODE_STRICT),
	      "TRUST vs EXCL refused");
	CHECK(cs_compat(CS_SLOT_EXCL, CS_SLOT_TRUST, CS_MODE_STRICT),
	      "EXCL vs TRUST refused");
	return true;
}

static bool test_policy_compat_excl(void)
{
	int a, m;

	for (m = 0; m < 2; m++) /* strict, fill */
		for (a = 0; a < 256; a++) {
			bool want = a == CS_SLOT_NONE || a == CS_SLOT_TRUST;

			CHECK(cs_compat(CS_SLOT_EXCL, a, modes[m]) == want,
			      "EXCL vs %d mode %d = %d", a, modes[m],
			      cs_compat(CS_SLOT_EXCL, a, modes[m]));
			CHECK(cs_compat(a, CS_SLOT_EXCL, modes[m]) == want,
			      "%d vs EXCL mode %d = %d", a, modes[m],
			      cs_compat(a, CS_SLOT_EXCL, modes[m]));
		}
	CHECK(!cs_compat(CS_SLOT_EXCL, CS_SLOT_EXCL, CS_MODE_STRICT),
	      "EXCL vs EXCL allowed");
	CHECK(cs_compat(CS_SLOT_EXCL, CS_SLOT_NONE, CS_MODE_STRICT),
	      "EXCL vs NONE refused");
	return true;
}

/*
 * Per-LLC queues: the count is capped at CS_LLC_QUEUES, the LLCs of the
 * load spread in order (so neighbours share; no queue holds LLCs of two
 * sockets when the socket count divides 8 and each socket has as many
 * LLCs, checked on 2 x 8 below), every queue used, and every (slot,
 * queue) has a DSQ id of its own.
 */
static bool test_policy_llc_queues(void)
{
	__u32 known, llc, q, nq, last;
	__u32 slots[] = { 0, 1, CS_MAX_TAGGED, CS_SLOT_EXCL, CS_SLOT_TRUST };
	unsigned int i, j, k, l;

	CHECK_EQ(cs_llc_queues(0), 1);
	CHECK_EQ(cs_llc_queues(1), 1);
	CHECK_EQ(cs_llc_queues(2), 2);
	CHECK_EQ(cs_llc_queues(CS_LLC_QUEUES), CS_LLC_QUEUES);
	CHECK_EQ(cs_llc_queues(CS_LLC_QUEUES + 1), CS_LLC_QUEUES);
	CHECK_EQ(cs_llc_queues(512), CS_LLC_QUEUES);
	for (known = 1; known <= 512; known++) {
		bool used[CS_LLC_QUEUES] = { false };

		nq = cs_llc_queues(known);
		last = 0;
		for (llc = 0; llc < known; llc++) {
			q = cs_llc_queue(llc, known, nq);
			CHECK(q < nq && q >= last,
			      "known %u llc %u: queue %u of %u after %u", known,
			      llc, q, nq, last);
			used[q] = true;
			last = q;
		}
		for (q = 0; q < nq; q++)
			CHECK(used[q], "known %u: queue %u unused", known, q);
		for (llc = known; llc < known + 40; llc++)
			CHECK(cs_llc_queue(llc, known, nq) < nq,
			      "late llc %u of %u", llc, known);
	}
	/* 2 sockets x 8 LLCs: no queue holds LLCs of both. */
	for (llc = 0; llc < 16; llc++)
		CHECK((cs_llc_queue(llc, 16, 8) < 4) == (llc < 8),
		      "llc %u in queue %u", llc, cs_llc_queue(llc, 16, 8));
	for (i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		for (k = 0; k < CS_LLC_QUEUES; k++) {
			__u64 id = cs_dsq_id(slots[i], k);

			CHECK(!(id >> 63), "slot %u queue %u: builtin id",
			      slots[i], k);
			for (j = 0; j < sizeof(slots) / sizeof(slots[0]); j++)
				for (l = 0; l < CS_LLC_QUEUES; l++)
					CHECK((i == j && k == l) ||
						      id != cs_dsq_id(slots[j],
								      l),
					      "slot %u q %u = slot %u q %u",
					      slots[i], k, slots[j], l);
		}
	CHECK_EQ(cs_dsq_id(7, 0), 7);
	return true;
}

/*
 * The steal rule between two LLC queues of a cookie, and renewal by a
 * queue's head: a 5 ms slice, our first task at 20 ms.
 */
static bool test_policy_llc_steal(void)
{
	const __u64 slice = 5 * 1000 * 1000, ms = 1000 * 1000;

	/* The example in claim.bpf.h (steal_queue). */
	CHECK(cs_llc_steal(CS_HEAD_NONE, 12 * ms, slice), "ours empty");
	CHECK(cs_llc_steal(20 * ms, 12 * ms, slice), "8 ms older");
	CHECK(!cs_llc_steal(20 * ms, 16 * ms, slice), "4 ms older");
	CHECK(!cs_llc_steal(20 * ms, 15 * ms, slice), "a slice older");
	CHECK(cs_llc_steal(20 * ms, 15 * ms - 1, slice), "past a slice");
	CHECK(!cs_llc_steal(20 * ms, 30 * ms, slice), "younger");
	/* Ours past the peek: its consume first, whatever theirs. */
	CHECK(!cs_llc_steal(CS_HEAD_PAST | 30 * ms, 12 * ms, slice),
	      "ours past peek");
	CHECK(!cs_llc_steal(CS_HEAD_PAST | 30 * ms, CS_HEAD_PAST | 12 * ms,
			    slice),
	      "both past peek");
	/* Theirs past the peek: by its bound, so never passed for ever. */
	CHECK(cs_llc_steal(20 * ms, CS_HEAD_PAST | 12 * ms, slice),
	      "theirs past, bound 8 ms older");
	CHECK(!cs_llc_steal(20 * ms, CS_HEAD_PAST | 16 * ms, slice),
	      "theirs past, bound 4 ms older");
	CHECK(cs_llc_steal(CS_HEAD_NONE, CS_HEAD_PAST | 30 * ms, slice),
	      "ours none, theirs past");
	CHECK(!cs_llc_steal(CS_HEAD_NONE, CS_HEAD_NONE, slice), "both none");
	CHECK(!cs_llc_steal(20 * ms, CS_HEAD_NONE, slice), "theirs none");
	CHECK(cs_head_past(CS_HEAD_PAST | 0) && !cs_head_past(CS_HEAD_NONE) &&
		      !cs_head_past(12 * ms),
	      "past flag");
	CHECK_EQ(cs_head_vt(CS_HEAD_PAST | 12 * ms), 12 * ms);
	CHECK_EQ(cs_head_vt(CS_HEAD_NONE), CS_HEAD_NONE);

	CHECK(cs_renew_keeps(20 * ms, CS_HEAD_NONE, slice), "none waits");
	CHECK(!cs_renew_keeps(20 * ms, CS_HEAD_PAST | 30 * ms, slice),
	      "past peek");
	CHECK(cs_renew_keeps(20 * ms, 15 * ms, slice), "a slice behind");
	CHECK(!cs_renew_keeps(20 * ms, 15 * ms - 1, slice), "past a slice");
	CHECK(cs_renew_keeps(12 * ms, 10 * ms, slice), "renewal example");
	return true;
}

static bool test_policy_compat_symmetric(void)
{
	int a, b, m;

	for (m = 0; m < NR_MODES; m++)
		for (a = 0; a < 256; a++)
			for (b = 0; b < 256; b++)
				CHECK(cs_compat(a, b, modes[m]) ==
					      cs_compat(b, a, modes[m]),
				      "%d vs %d mode %d not symmetric", a, b,
				      modes[m]);
	return true;
}

/* cs_claim_verdict */

static bool test_policy_claim_idle_core(void)
{
	int nr, self, s, m;

	for (nr = 1; nr <= CS_MAX_SMT; nr++)
		for (self = 0; self < nr; self++)
			for (m = 0; m < NR_MODES; m++)
				for (s = 0; s < CS_SLOT_NONE; s++)
					CHECK(cs_claim_verdict(CS_WORD_IDLE,
							       self, nr, s,
							       modes[m]) ==
						      CS_CLAIM_OK,
					      "nr %d self %d slot %d mode %d",
					      nr, self, s, modes[m]);
	return true;
}

static bool test_policy_claim_same_slot(void)
{
	static const int nrs[] = { 2, 4 };
	int n, self, i;

	for (n = 0; n < ARRAY_SIZE(nrs); n++) {
		int nr = nrs[n];

		for (self = 0; self < nr; self++) {
			int other = (self + 1) % nr;
			__u64 w = sib(CS_WORD_IDLE, other, X, X);
			__u64 all = CS_WORD_IDLE;

			CHECK_EQ(cs_claim_verdict(w, self, nr, X,
						  CS_MODE_STRICT),
				 CS_CLAIM_OK);
			CHECK_EQ(cs_claim_verdict(w, self, nr, 0, CS_MODE_FILL),
				 CS_CLAIM_OK);
			for (i = 0; i < nr; i++)
				if (i != self)
					all = sib(all, i, X, X);
			CHECK_EQ(cs_claim_verdict(all, self, nr, X,
						  CS_MODE_STRICT),
				 CS_CLAIM_OK);
		}
	}
	return true;
}

static bool test_policy_claim_stable(void)
{
	static const int nrs[] = { 2, 4 };
	int n, self;

	for (n = 0; n < ARRAY_SIZE(nrs); n++) {
		int nr = nrs[n];

		for (self = 0; self < nr; self++) {
			int other = (self + nr - 1) % nr;
			__u64 w = sib(CS_WORD_IDLE, other, X, X);

			CHECK_EQ(cs_claim_verdict(w, self, nr, Y,
						  CS_MODE_STRICT),
				 CS_BLOCKED_STABLE);
			CHECK_EQ(cs_claim_verdict(w, self, nr, Y, CS_MODE_FILL),
				 CS_BLOCKED_STABLE);
			CHECK_EQ(cs_claim_verdict(w, self, nr, 0,
						  CS_MODE_STRICT),
				 CS_BLOCKED_STABLE);
			CHECK_EQ(cs_claim_verdict(w, self, nr, 0, CS_MODE_FILL),
				 CS_CLAIM_OK);
			CHECK_EQ(cs_claim_verdict(w, self, nr, Y, CS_MODE_NONE),
				 CS_CLAIM_OK);
		}
	}
	/* SMT4: two siblings stably on two other cookies. */
	CHECK_EQ(cs_claim_verdict(sib(sib(CS_WORD_IDLE, 1, X, X), 3, Z, Z), 0,
				  4, Y, CS_MODE_STRICT),
		 CS_BLOCKED_STABLE);
	return true;
}

static bool test_policy_claim_transit(void)
{
	/* Sibling (next, cur) pairs that block a claim of Y while moving. */
	static const __u16 blocking[][2] = {
		{ Y, X }, /* claimed Y, still leaving X */
		{ CS_SLOT_NONE, X }, /* going idle, still leaving X */
		{ X, CS_SLOT_NONE }, /* claimed X, not yet running it */
		{ X, Y }, /* leaving Y for X */
		{ Z, X },
		{ CS_SLOT_EXCL, Y },
	};
	/* Moving, but every field is compatible with Y: no block. */
	static const __u16 harmless[][2] = {
		{ Y, CS_SLOT_NONE },	  { CS_SLOT_NONE, Y },
		{ CS_SLOT_TRUST, Y },	  { Y, CS_SLOT_TRUST },
		{ CS_SLOT_TRUST, CS_SLOT_NONE },
	};
	static const int nrs[] = { 2, 4 };
	int n, self, k;

	for (n = 0; n < ARRAY_SIZE(nrs); n++) {
		int nr = nrs[n];

		for (self = 0; self < nr; self++) {
			int other = (self + 1) % nr;

			for (k = 0; k < ARRAY_SIZE(blocking); k++) {
				__u64 w = sib(CS_WORD_IDLE, other,
					      blocking[k][0], blocking[k][1]);
				int v = cs_claim_verdict(w, self, nr, Y,
							 CS_MODE_STRICT);

				CHECK(v == CS_BLOCKED_TRANSIT,
				      "nr %d self %d sibling %d next %u cur %u: verdict %d, expected TRANSIT",
				      nr, self, other, blocking[k][0],
				      blocking[k][1], v);
			}
			for (k = 0; k < ARRAY_SIZE(harmless); k++) {
				__u64 w = sib(CS_WORD_IDLE, other,
					      harmless[k][0], harmless[k][1]);
				int v = cs_claim_verdict(w, self, nr, Y,
							 CS_MODE_STRICT);

				CHECK(v == CS_CLAIM_OK,
				      "nr %d self %d sibling %d next %u cur %u: verdict %d, expected OK",
				      nr, self, other, harmless[k][0],
				      harmless[k][1], v);
			}
		}
	}
	return true;
}

/*
 * The key case of the design: a sibling that has already claimed Y but has
 * not committed leaving X blocks a claim of Y, as TRANSIT.
 */
static bool test_policy_claim_transit_claimed_not_left(void)
{
	int m;

	for (m = 0; m < 2; m++) { /* strict, fill */
		CHECK_EQ(cs_claim_verdict(sib(CS_WORD_IDLE, 0, Y, X), 1, 2, Y,
					  modes[m]),
			 CS_BLOCKED_TRANSIT);
		CHECK_EQ(cs_claim_verdict(sib(CS_WORD_IDLE, 1, Y, X), 0, 2, Y,
					  modes[m]),
			 CS_BLOCKED_TRANSIT);
		/* SMT4, the sibling in transit is the last index. */
		CHECK_EQ(cs_claim_verdict(sib(sib(CS_WORD_IDLE, 1, Y, Y), 3, Y,
					      X),
					  0, 4, Y, modes[m]),
			 CS_BLOCKED_TRANSIT);
	}
	return true;
}

/* The worked example from the comment in bpf/coresched.bpf.c. */
static bool test_policy_claim_worked_example(void)
{
	__u64 w = sib(CS_WORD_IDLE, 0, X, X);

	/* CPU1 wants Y while CPU0 runs X: stable conflict, forced idle. */
	CHECK_EQ(cs_claim_verdict(w, 1, 2, Y, CS_MODE_STRICT),
		 CS_BLOCKED_STABLE);
	/* CPU0 claims Y: its own X does not block it. */
	CHECK_EQ(cs_claim_verdict(w, 0, 2, Y, CS_MODE_STRICT), CS_CLAIM_OK);
	w = cs_set_next(w, 0, Y);
	CHECK_EQ(w, sib(CS_WORD_IDLE, 0, Y, X));
	/* CPU0 is still leaving X: CPU1 must not start Y yet. */
	CHECK_EQ(cs_claim_verdict(w, 1, 2, Y, CS_MODE_STRICT),
		 CS_BLOCKED_TRANSIT);
	/* finish_task_switch commits cur0 = Y. */
	w = cs_set_cur(w, 0, Y);
	CHECK_EQ(cs_claim_verdict(w, 1, 2, Y, CS_MODE_STRICT), CS_CLAIM_OK);
	w = cs_set_next(w, 1, Y);
	w = cs_set_cur(w, 1, Y);
	CHECK_EQ(cs_nr_running(w, 2, Y), 2);
	return true;
}

/*
 * A transit sibling makes the verdict TRANSIT even when another sibling is
 * a stable conflict: retrying is always safe, whatever the sibling order.
 */
static bool test_policy_claim_transit_precedence(void)
{
	__u64 a = sib(sib(CS_WORD_IDLE, 1, Z, Z), 3, Y, X);
	__u64 b = sib(sib(CS_WORD_IDLE, 1, Y, X), 3, Z, Z);

	CHECK_EQ(cs_claim_verdict(a, 0, 4, Y, CS_MODE_STRICT),
		 CS_BLOCKED_TRANSIT);
	CHECK_EQ(cs_claim_verdict(b, 0, 4, Y, CS_MODE_STRICT),
		 CS_BLOCKED_TRANSIT);
	return true;
}

static bool test_policy_claim_own_fields_ignored(void)
{
	int nr, self;

	for (nr = 1; nr <= CS_MAX_SMT; nr++)
		for (self = 0; self < nr; self++) {
			__u64 w1 = sib(CS_WORD_IDLE, self, X, Z);
			__u64 w2 = sib(CS_WORD_IDLE, self, CS_SLOT_EXCL,
				       CS_SLOT_EXCL);

			CHECK(cs_claim_verdict(w1, self, nr, Y,
					       CS_MODE_STRICT) == CS_CLAIM_OK,
			      "nr %d self %d: blocked by own X/Z", nr, self);
			CHECK(cs_claim_verdict(w2, self, nr, CS_SLOT_EXCL,
					       CS_MODE_STRICT) == CS_CLAIM_OK,
			      "nr %d self %d: blocked by own EXCL", nr, self);
		}
	return true;
}

static bool test_policy_claim_beyond_nr_ignored(void)
{
	/* Indexes 2 and 3 hold garbage: a stable X and a transit. */
	__u64 w = sib(sib(CS_WORD_IDLE, 2, X, X), 3, Y, X);
	__u64 all = sib(sib(sib(w, 0, X, X), 1, Y, X), 2, Z, Z);

	CHECK_EQ(cs_claim_verdict(w, 0, 2, Y, CS_MODE_STRICT), CS_CLAIM_OK);
	CHECK_EQ(cs_claim_verdict(w, 1, 2, Y, CS_MODE_STRICT), CS_CLAIM_OK);
	/* nr 3: index 2 counts (stable), index 3 does not (transit). */
	CHECK_EQ(cs_claim_verdict(w, 0, 3, Y, CS_MODE_STRICT),
		 CS_BLOCKED_STABLE);
	/* No SMT: nothing but self, which is ignored. */
	CHECK_EQ(cs_claim_verdict(all, 0, 1, CS_SLOT_EXCL, CS_MODE_STRICT),
		 CS_CLAIM_OK);
	return true;
}

static bool test_policy_claim_excl_trust(void)
{
	__u64 excl = sib(CS_WORD_IDLE, 1, CS_SLOT_EXCL, CS_SLOT_EXCL);
	__u64 trust = sib(CS_WORD_IDLE, 1, CS_SLOT_TRUST, CS_SLOT_TRUST);

	CHECK_EQ(cs_claim_verdict(excl, 0, 2, CS_SLOT_EXCL, CS_MODE_STRICT),
		 CS_BLOCKED_STABLE);
	CHECK_EQ(cs_claim_verdict(excl, 0, 2, 0, CS_MODE_FILL),
		 CS_BLOCKED_STABLE);
	CHECK_EQ(cs_claim_verdict(excl, 0, 2, CS_SLOT_TRUST, CS_MODE_STRICT),
		 CS_CLAIM_OK);
	CHECK_EQ(cs_claim_verdict(trust, 0, 2, CS_SLOT_EXCL, CS_MODE_STRICT),
		 CS_CLAIM_OK);
	CHECK_EQ(cs_claim_verdict(trust, 0, 2, X, CS_MODE_STRICT),
		 CS_CLAIM_OK);
	return true;
}

/*
 * IPI window model check. Two CPUs of one core share a state word. Each
 * runs a two-step program from slot from[i] to slot to[i]:
 *
 *   pc 0 -> 1  claim: atomically (as the CAS does) check cs_claim_verdict
 *              and set next[i] = to[i]; not enabled while blocked
 *   pc 1 -> 2  commit: cur[i] = next[i], after the context switch
 *
 * Between claim and commit the CPU may physically run either from[i] or
 * to[i]. Every interleaving is explored and checked: committed curs are
 * compatible, a successful claim sees a compatible sibling cur, and what
 * may physically run on the two CPUs is compatible.
 */
typedef int (*verdict_fn)(__u64 w, int self, int nr, __u16 slot, int mode);

struct model {
	verdict_fn verdict;
	int mode;
	__u16 from[2], to[2];
	int completed, stuck, transit, stable, violations;
	char what[200]; /* the first violation */
};

static void violation(struct model *m, const char *what, __u64 w,
		      const int pc[2])
{
	if (!m->violations++)
		snprintf(m->what, sizeof(m->what),
			 "%s (word 0x%016llx pc %d/%d, CPU0 %u->%u, CPU1 %u->%u, mode %d)",
			 what, (unsigned long long)w, pc[0], pc[1], m->from[0],
			 m->to[0], m->from[1], m->to[1], m->mode);
}

static void check_state(struct model *m, __u64 w, const int pc[2])
{
	int a, b;

	if (!cs_compat(cs_cur(w, 0), cs_cur(w, 1), m->mode))
		violation(m, "incompatible curs", w, pc);
	for (a = 0; a < 2; a++)
		for (b = 0; b < 2; b++) {
			/* a/b: 0 = the from slot, 1 = the to slot */
			__u16 s0 = a ? m->to[0] : m->from[0];
			__u16 s1 = b ? m->to[1] : m->from[1];

			if ((pc[0] != 1 && a != (pc[0] == 2)) ||
			    (pc[1] != 1 && b != (pc[1] == 2)))
				continue; /* cannot be running */
			if (!cs_compat(s0, s1, m->mode))
				violation(m, "incompatible cookies may run", w,
					  pc);
		}
}

static void explore(struct model *m, __u64 w, const int pc[2])
{
	bool moved = false;
	int i;

	check_state(m, w, pc);
	for (i = 0; i < 2; i++) {
		int npc[2] = { pc[0], pc[1] };
		__u64 nw;

		if (pc[i] == 0) {
			int v = m->verdict(w, i, 2, m->to[i], m->mode);

			m->transit += v == CS_BLOCKED_TRANSIT;
			m->stable += v == CS_BLOCKED_STABLE;
			if (v != CS_CLAIM_OK)
				continue;
			if (!cs_compat(cs_cur(w, !i), m->to[i], m->mode))
				violation(m, "claim beside incompatible cur",
					  w, pc);
			nw = cs_set_next(w, i, m->to[i]);
		} else if (pc[i] == 1) {
			nw = cs_set_cur(w, i, cs_next(w, i));
		} else {
			continue;
		}
		npc[i]++;
		moved = true;
		explore(m, nw, npc);
	}
	if (!moved) {
		if (pc[0] == 2 && pc[1] == 2)
			m->completed++;
		else
			m->stuck++; /* a CPU stays forced idle */
	}
}

static void run_model(struct model *m)
{
	static const int pc[2] = { 0, 0 };
	__u64 w = sib(sib(CS_WORD_IDLE, 0, m->from[0], m->from[0]), 1,
		      m->from[1], m->from[1]);

	explore(m, w, pc);
}

/* upstream's window: cur is taken to be committed when the claim is made */
static int verdict_next_only(__u64 w, int self, int nr, __u16 slot, int mode)
{
	int i;

	for (i = 0; i < CS_MAX_SMT; i++)
		w = cs_set_cur(w, i, cs_next(w, i));
	return cs_claim_verdict(w, self, nr, slot, mode);
}

/* CPU0 switches X -> Y while CPU1 starts Y. */
static bool test_policy_ipi_window_start_new(void)
{
	int m;

	for (m = 0; m < 2; m++) { /* strict, fill */
		struct model md = { .verdict = cs_claim_verdict,
				    .mode = modes[m],
				    .from = { X, CS_SLOT_NONE },
				    .to = { Y, Y } };

		run_model(&md);
		CHECK(!md.violations, "%s", md.what);
		CHECK(md.completed >= 1 && !md.stuck,
		      "mode %d: %d runs completed, %d stuck", modes[m],
		      md.completed, md.stuck);
		/* The window was really exercised. */
		CHECK(md.transit >= 1 && md.stable >= 1,
		      "mode %d: %d transit, %d stable verdicts", modes[m],
		      md.transit, md.stable);
	}
	return true;
}

/* CPU0 switches X -> Y while CPU1 starts X. */
static bool test_policy_ipi_window_start_old(void)
{
	int m;

	for (m = 0; m < 2; m++) { /* strict, fill */
		struct model md = { .verdict = cs_claim_verdict,
				    .mode = modes[m],
				    .from = { X, CS_SLOT_NONE },
				    .to = { Y, X } };

		run_model(&md);
		CHECK(!md.violations, "%s", md.what);
		/* X and Y can never both end up running. */
		CHECK(!md.completed && md.stuck >= 2,
		      "mode %d: %d runs completed, %d stuck", modes[m],
		      md.completed, md.stuck);
		CHECK(md.transit >= 1, "mode %d: no transit verdict",
		      modes[m]);
	}
	return true;
}

/* Every pair of switches between interesting slots, in every mode. */
static bool test_policy_ipi_window_all_pairs(void)
{
	static const __u16 s[] = { CS_SLOT_NONE,	 0, X, Y, CS_SLOT_TRUST,
				  CS_SLOT_EXCL };
	int k, m, runs = 0;

	/* k enumerates from[0], from[1], to[0], to[1] over s[]. */
	for (m = 0; m < NR_MODES; m++)
		for (k = 0; k < 6 * 6 * 6 * 6; k++) {
			struct model md = {
				.verdict = cs_claim_verdict,
				.mode = modes[m],
				.from = { s[k % 6], s[k / 6 % 6] },
				.to = { s[k / 36 % 6], s[k / 216] },
			};

			if (!cs_compat(md.from[0], md.from[1], md.mode))
				continue; /* not a valid starting state */
			run_model(&md);
			runs++;
			CHECK(!md.violations, "%s", md.what);
		}
	CHECK(runs > 1000, "only %d models run", runs);
	return true;
}

/* The model check catches a verdict that ignores cur (upstream's window). */
static bool test_policy_ipi_window_detects_next_only(void)
{
	struct model md = { .verdict = verdict_next_only,
			    .mode = CS_MODE_STRICT,
			    .from = { X, CS_SLOT_NONE },
			    .to = { Y, Y } };

	run_model(&md);
	CHECK(md.violations >= 1, "next-only verdict: no violation found");
	CHECK(strstr(md.what, "claim beside incompatible cur"),
	      "first violation: %s", md.what);
	return true;
}

/* cs_core_slot */

static bool test_policy_core_slot(void)
{
	int nr, self;

	for (nr = 1; nr <= CS_MAX_SMT; nr++)
		for (self = 0; self < nr; self++)
			CHECK(cs_core_slot(CS_WORD_IDLE, self, nr) ==
				      CS_SLOT_NONE,
			      "idle core nr %d self %d", nr, self);
	/* A sibling's next wins over its cur: the core is going to Y. */
	CHECK_EQ(cs_core_slot(sib(CS_WORD_IDLE, 0, Y, X), 1, 2), Y);
	CHECK_EQ(cs_core_slot(sib(CS_WORD_IDLE, 1, Y, X), 0, 2), Y);
	/* ... also over an earlier sibling's cur. */
	CHECK_EQ(cs_core_slot(sib(sib(CS_WORD_IDLE, 1, CS_SLOT_NONE, X), 2, Y,
				  Y),
			      0, 4),
		 Y);
	/* Going idle but not yet left X: still held by X. */
	CHECK_EQ(cs_core_slot(sib(CS_WORD_IDLE, 1, CS_SLOT_NONE, X), 0, 2), X);
	/* Untagged and the overflow slot are real holders. */
	CHECK_EQ(cs_core_slot(sib(CS_WORD_IDLE, 1, 0, 0), 0, 2), 0);
	CHECK_EQ(cs_core_slot(sib(CS_WORD_IDLE, 1, CS_SLOT_EXCL, CS_SLOT_EXCL),
			      0, 2),
		 CS_SLOT_EXCL);
	return true;
}

/* cs_core_owner: fill mode's untagged work hides no tagged holder. */
static bool test_policy_core_owner(void)
{
	/* Sibling 0 runs untagged work, sibling 1 X; sibling 2 asks. */
	__u64 w = sib(sib(CS_WORD_IDLE, 0, 0, 0), 1, X, X);

	CHECK_EQ(cs_core_owner(w, 2, 4, CS_MODE_STRICT), 0);
	CHECK_EQ(cs_core_owner(w, 2, 4, CS_MODE_FILL), X);
	/* Only untagged work on the core: nobody holds it in fill mode. */
	w = sib(CS_WORD_IDLE, 1, 0, 0);
	CHECK_EQ(cs_core_owner(w, 0, 2, CS_MODE_FILL), CS_SLOT_NONE);
	CHECK_EQ(cs_core_owner(w, 0, 2, CS_MODE_STRICT), 0);
	/* Leaving untagged work for Y: Y holds it. */
	w = sib(CS_WORD_IDLE, 1, Y, 0);
	CHECK_EQ(cs_core_owner(w, 0, 2, CS_MODE_FILL), Y);
	/* Trusted slots hold nothing in either mode. */
	w = sib(sib(CS_WORD_IDLE, 0, CS_SLOT_TRUST, CS_SLOT_TRUST), 1, 0, 0);
	CHECK_EQ(cs_core_owner(w, 2, 4, CS_MODE_FILL), CS_SLOT_NONE);
	CHECK_EQ(cs_core_owner(w, 2, 4, CS_MODE_STRICT), 0);
	/* None mode: no cookie owns a core, whatever the siblings run. */
	w = sib(sib(CS_WORD_IDLE, 0, X, X), 1, Y, Y);
	CHECK_EQ(cs_core_owner(w, 2, 4, CS_MODE_NONE), CS_SLOT_NONE);
	return true;
}

/*
 * cs_rivals: in strict and fill mode exactly the incompatible pairs; in
 * none mode any two cookies, so a CPU never keeps one cookie while a more
 * deserving one waits (it starved every other cookie before).
 */
static bool test_policy_rivals(void)
{
	unsigned int i, j, m;

	for (m = 0; m < NR_MODES; m++)
		for (i = 0; i < NR_SLOTS; i++)
			for (j = 0; j < NR_SLOTS; j++)
				if (modes[m] != CS_MODE_NONE)
					CHECK_EQ(cs_rivals(slots[i], slots[j],
							   modes[m]),
						 !cs_compat(slots[i], slots[j],
							    modes[m]));
	/* The pairs that decide a handover, spelled out. */
	CHECK(cs_rivals(X, Y, CS_MODE_STRICT), "two cookies, strict");
	CHECK(cs_rivals(0, X, CS_MODE_STRICT), "untagged and a cookie, strict");
	CHECK(!cs_rivals(0, X, CS_MODE_FILL), "untagged and a cookie, fill");
	CHECK(cs_rivals(X, Y, CS_MODE_FILL), "two cookies, fill");
	CHECK(cs_rivals(CS_SLOT_EXCL, CS_SLOT_EXCL, CS_MODE_STRICT),
	      "two overflow tasks never share a core");
	CHECK(!cs_rivals(X, X, CS_MODE_STRICT), "a cookie and itself");
	CHECK(!cs_rivals(X, CS_SLOT_TRUST, CS_MODE_STRICT), "trusted kthreads");
	CHECK(cs_rivals(X, Y, CS_MODE_NONE), "two cookies in none mode");
	CHECK(cs_rivals(0, X, CS_MODE_NONE), "untagged and a cookie");
	CHECK(cs_rivals(X, CS_SLOT_EXCL, CS_MODE_NONE), "an overflow cookie");
	CHECK(!cs_rivals(X, X, CS_MODE_NONE), "a cookie and itself");
	CHECK(!cs_rivals(0, 0, CS_MODE_NONE), "untagged and itself");
	CHECK(!cs_rivals(CS_SLOT_EXCL, CS_SLOT_EXCL, CS_MODE_NONE),
	      "overflow cookies share one queue: one vtime");
	CHECK(!cs_rivals(X, CS_SLOT_TRUST, CS_MODE_NONE), "trusted kthreads");
	CHECK(!cs_rivals(CS_SLOT_TRUST, X, CS_MODE_NONE), "trusted kthreads");
	CHECK(!cs_rivals(CS_SLOT_NONE, X, CS_MODE_NONE), "idle");
	CHECK(!cs_rivals(X, CS_SLOT_NONE, CS_MODE_NONE), "idle");
	return true;
}

static bool test_policy_core_slot_skips_trust(void)
{
	CHECK_EQ(cs_core_slot(sib(CS_WORD_IDLE, 1, CS_SLOT_TRUST, X), 0, 2), X);
	CHECK_EQ(cs_core_slot(sib(CS_WORD_IDLE, 1, CS_SLOT_TRUST,
				  CS_SLOT_TRUST),
			      0, 2),
		 CS_SLOT_NONE);
	CHECK_EQ(cs_core_slot(sib(CS_WORD_IDLE, 1, X, CS_SLOT_TRUST), 0, 2), X);
	CHECK_EQ(cs_core_slot(sib(sib(CS_WORD_IDLE, 1, CS_SLOT_TRUST,
				      CS_SLOT_TRUST),
				  3, Z, Z),
			      0, 4),
		 Z);
	return true;
}

static bool test_policy_core_slot_ignores_self(void)
{
	int nr, self;

	for (nr = 1; nr <= CS_MAX_SMT; nr++)
		for (self = 0; self < nr; self++) {
			__u64 w = sib(CS_WORD_IDLE, self, X, Y);
			__u16 s = cs_core_slot(w, self, nr);

			CHECK(s == CS_SLOT_NONE, "nr %d self %d: got %u", nr,
			      self, s);
		}
	/* Siblings at index >= nr do not exist. */
	CHECK_EQ(cs_core_slot(sib(sib(CS_WORD_IDLE, 2, X, X), 3, Y, Y), 0, 2),
		 CS_SLOT_NONE);
	CHECK_EQ(cs_core_slot(sib(sib(CS_WORD_IDLE, 2, X, X), 3, Y, Y), 0, 3),
		 X);
	return true;
}

/* cs_nr_running */

static bool test_policy_nr_running(void)
{
	/* sib 0 claimed X but is not running it; sib 1 runs X. */
	__u64 w = sib(sib(CS_WORD_IDLE, 0, X, CS_SLOT_NONE), 1, X, X);
	__u64 w4 = sib(sib(sib(sib(CS_WORD_IDLE, 0, X, X), 1, Y, X), 2,
			   CS_SLOT_NONE, X),
		       3, X, Y);

	CHECK_EQ(cs_nr_running(w, 2, X), 1);
	CHECK_EQ(cs_nr_running(w, 2, Y), 0);
	/* cur counts even when next has moved on. */
	CHECK_EQ(cs_nr_running(w4, 4, X), 3);
	CHECK_EQ(cs_nr_running(w4, 4, Y), 1);
	/* Siblings at index >= nr do not count. */
	CHECK_EQ(cs_nr_running(w4, 2, X), 2);
	CHECK_EQ(cs_nr_running(w4, 1, X), 1);
	CHECK_EQ(cs_nr_running(CS_WORD_IDLE, 4, X), 0);
	return true;
}

/* cs_core_charge */

static bool test_policy_core_charge(void)
{
	const __u64 d = 1000000; /* 1 ms */
	int nr, m;

	/* A lone task keeping its sibling forced idle pays for both. */
	CHECK_EQ(cs_core_charge(d, 2, 1), 2 * d);
	/* Two siblings of one cookie split the core. */
	CHECK_EQ(cs_core_charge(d, 2, 2), d);
	CHECK_EQ(cs_core_charge(d, 2, 2) + cs_core_charge(d, 2, 2), 2 * d);
	/* No SMT: wall time. */
	CHECK_EQ(cs_core_charge(d, 1, 1), d);
	/* SMT4 */
	CHECK_EQ(cs_core_charge(d, 4, 1), 4 * d);
	CHECK_EQ(cs_core_charge(d, 4, 2), 2 * d);
	CHECK_EQ(cs_core_charge(d, 4, 4), d);
	CHECK_EQ(cs_core_charge(0, 4, 1), 0);
	/*
	 * m siblings of the cookie together pay for the whole core, up to
	 * the rounding down of each share (less than 1 ns each).
	 */
	for (nr = 1; nr <= CS_MAX_SMT; nr++)
		for (m = 1; m <= nr; m++) {
			__u64 sum = cs_core_charge(d, nr, m) * m;

			CHECK(sum <= nr * d && nr * d - sum < (__u64)m,
			      "nr %d same %d: sum %llu", nr, m,
			      (unsigned long long)sum);
		}
	CHECK_EQ(cs_core_charge(d, 4, 3), 1333333);
	return true;
}

static bool test_policy_core_charge_clamped(void)
{
	const __u64 d = 1000000;

	CHECK_EQ(cs_core_charge(d, 2, 0), 2 * d);
	CHECK_EQ(cs_core_charge(d, 2, -1), 2 * d);
	CHECK_EQ(cs_core_charge(d, 2, 3), d);
	CHECK_EQ(cs_core_charge(d, 1, 2), d);
	CHECK_EQ(cs_core_charge(d, 4, 9), d);
	CHECK_EQ(cs_core_charge(d, 1, 0), d);
	return true;
}

/* cs_scale */

static bool test_policy_scale(void)
{
	CHECK_EQ(cs_scale(1000000, 100), 1000000);
	CHECK_EQ(cs_scale(1000000, 200), 500000);
	CHECK_EQ(cs_scale(1000000, 50), 2000000);
	CHECK_EQ(cs_scale(1000000, 10000), 10000);
	CHECK_EQ(cs_scale(0, 100), 0);
	return true;
}

static bool test_policy_scale_zero_weight(void)
{
	CHECK_EQ(cs_scale(1000, 0), 100000);
	CHECK_EQ(cs_scale(1000, 0), cs_scale(1000, 1));
	return true;
}

/* cs_should_yield */

static bool test_policy_should_yield(void)
{
	const __u64 g = 100;

	/* true: the holder (at vt_held) gives the core to the waiter. */
	CHECK(!cs_should_yield(1000, 1000, g), "tie: yielded, expected keep");
	CHECK(!cs_should_yield(1000, 950, g),
	      "ahead within grace: yielded, expected keep");
	CHECK(!cs_should_yield(1000, 900, g),
	      "ahead by exactly grace: yielded, expected keep");
	CHECK(cs_should_yield(1000, 899, g),
	      "ahead beyond grace: kept, expected yield");
	CHECK(cs_should_yield(1000, 0, g), "far ahead: kept, expected yield");
	CHECK(!cs_should_yield(900, 1000, g),
	      "holder behind: yielded, expected keep");
	/* No grace: any lead yields the core, a tie does not. */
	CHECK(!cs_should_yield(1000, 1000, 0),
	      "grace 0, tie: yielded, expected keep");
	CHECK(cs_should_yield(1001, 1000, 0),
	      "grace 0, ahead by 1: kept, expected yield");
	return true;
}

/* cs_yield_grace: longer only when the waiting cookie holds as many. */
static bool test_policy_yield_grace(void)
{
	const __u64 g = 5000;

	/* One core each: not taking turns. */
	CHECK_EQ(cs_yield_grace(g, 1, 1), 4 * g);
	CHECK_EQ(cs_yield_grace(g, 2, 3), 4 * g);
	/* Waiting with none, or fewer: the grace. */
	CHECK_EQ(cs_yield_grace(g, 1, 0), g);
	CHECK_EQ(cs_yield_grace(g, 2, 1), g);
	/* Counts caught between their updates (a slot reused). */
	CHECK_EQ(cs_yield_grace(g, 0, 0), g);
	CHECK_EQ(cs_yield_grace(g, -1, 0), g);
	return true;
}

/* cs_renew_due, cs_renew_slice, cs_renew_refused: the worked example. */
static bool test_policy_renew_rule(void)
{
	const __u64 ms = 1000 * 1000;

	/* HZ=1000, 5 ms: below half the slice, as before the floor. */
	CHECK(!cs_renew_due(3 * ms, cs_renew_below(5 * ms, ms)),
	      "3 ms left renewed");
	CHECK(cs_renew_due(5 * ms / 2, cs_renew_below(5 * ms, ms)),
	      "2.5 ms left not renewed");
	CHECK_EQ(cs_renew_slice(5 * ms, ms), 5 * ms);
	/* HZ=250: every tick renews, to a tick and a half... */
	CHECK(cs_renew_due(5 * ms, cs_renew_below(5 * ms, 4 * ms)),
	      "a whole slice left at HZ=250");
	CHECK_EQ(cs_renew_slice(5 * ms, 4 * ms), 6 * ms);
	/* ...and one that does not takes the 1 ms of stretch back. */
	CHECK_EQ(cs_renew_refused(2 * ms, 1 * ms), 1 * ms);
	CHECK_EQ(cs_renew_refused(5 * ms, 10 * ms), 0); /* HZ=100 */
	CHECK_EQ(cs_renew_refused(2 * ms, 0), 2 * ms);
	/* Ended, never renewed; the tick unknown: half the slice. */
	CHECK(!cs_renew_due(0, cs_renew_below(5 * ms, 4 * ms)),
	      "an ended slice renewed");
	CHECK(!cs_renew_due(3 * ms, cs_renew_below(5 * ms, 0)),
	      "3 ms left renewed, tick unknown");
	CHECK_EQ(cs_renew_slice(5 * ms, 0), 5 * ms);
	return true;
}

/* Stalls (cs_stall_lost): the worked example in cs_policy.h, the edges. */
static bool test_policy_stall(void)
{
	const __u64 ms = 1000 * 1000;

	CHECK_EQ(cs_stall_lost(20400 * 1000, ms), 19400 * 1000);
	/* Two ticks or more, all but one lost; less, nothing. */
	CHECK_EQ(cs_stall_lost(2 * ms - 1, ms), 0);
	CHECK_EQ(cs_stall_lost(2 * ms, ms), ms);
	CHECK_EQ(cs_stall_lost(8 * ms, 4 * ms), 4 * ms); /* HZ=250 */
	CHECK_EQ(cs_stall_lost(7 * ms, 4 * ms), 0);
	/* The tick unknown: none. */
	CHECK_EQ(cs_stall_lost(20 * ms, 0), 0);
	return true;
}

/*
 * One task under ticks of period @tick that each come up to @jit ns early
 * or late, for @n ticks, its renewal always allowed, the rule told the
 * tick @known (0: unknown). Every @fresh-th tick (0: never) it starts a
 * new slice at a random point after the tick before (a wakeup, a
 * switch). The slices that a tick saw running and the next found ended:
 * renewals missed.
 */
static unsigned int renew_model(__u64 slice, __u64 tick, __u64 jit, __u64 known,
				unsigned int n, unsigned int fresh,
				unsigned int seed)
{
	__u64 t, left, end = slice, prev = 0;
	unsigned int k, misses = 0;
	bool alive = false;

	for (k = 1; k <= n; k++) {
		t = k * tick + jit - rnd(&seed, 1000) * (2 * jit) / 1000;
		if (fresh && k % fresh == 0) {
			end = prev + 1 +
			      rnd(&seed, 1000) * (t - prev - 1) / 1000;
			end += slice;
			alive = false;
		}
		prev = t;
		left = end > t ? end - t : 0;
		if (!left) {
			misses += alive; /* seen running at the tick before */
			end = t + slice; /* its dispatch: a new slice */
			alive = false;
			continue;
		}
		alive = true;
		if (cs_renew_due(left, cs_renew_below(slice, known)))
			end = t + cs_renew_slice(slice, known);
	}
	return misses;
}

/*
 * With the tick known, no renewal is missed at HZ=100 to 1000, slices of
 * 0.5 to 20 ms and ticks that come up to a fifth of a period early or
 * late (the gap between two ticks stays below a tick and a half); half
 * the slice alone (the tick unknown) misses with a 2 ms slice at HZ=1000
 * under that jitter, and at HZ=250 with the default 5 ms slice on new
 * slices even with ticks on time: what the floor is for (cs_policy.h).
 */
static bool test_policy_renew_ticks(void)
{
	static const __u64 us = 1000, ticks[] = { 1000 * us, 3333 * us,
						  4000 * us, 10000 * us };
	static const __u64 slices[] = { 500 * us, 2000 * us, 5000 * us,
					20000 * us };
	unsigned int i, j, s, m, f;

	for (i = 0; i < ARRAY_SIZE(ticks); i++)
		for (j = 0; j < ARRAY_SIZE(slices); j++)
			for (s = 0; s < 50; s++) {
				m = renew_model(slices[j], ticks[i],
						ticks[i] / 5, ticks[i], 2000, 0,
						s);
				f = renew_model(slices[j], ticks[i],
						ticks[i] / 5, ticks[i], 2000,
						10, s);
				CHECK(!m && !f,
				      "slice %llu us, tick %llu us, seed %u: %u and %u (new slices) missed",
				      (unsigned long long)(slices[j] / us),
				      (unsigned long long)(ticks[i] / us), s, m,
				      f);
			}
	m = renew_model(2000 * us, 1000 * us, 200 * us, 0, 20000, 0, 1);
	CHECK(m > 100, "half a 2 ms slice at HZ=1000 missed only %u", m);
	f = renew_model(5000 * us, 4000 * us, 0, 0, 20000, 10, 1);
	CHECK(f > 100, "half a new 5 ms slice at HZ=250 missed only %u", f);
	printf("# renewals missed by half the slice alone in 20,000 ticks: %u (2 ms slice, HZ=1000, ticks up to 0.2 ms early or late), %u (new 5 ms slices every 10 ticks, HZ=250, ticks on time)\n",
	       m, f);
	fflush(stdout); /* the test runs in a child that ends with _exit */
	return true;
}

/* cs_clamp_vtime */

static bool test_policy_clamp_vtime(void)
{
	CHECK_EQ(cs_clamp_vtime(500, 1000, 100), 900);
	CHECK_EQ(cs_clamp_vtime(899, 1000, 100), 900);
	CHECK_EQ(cs_clamp_vtime(900, 1000, 100), 900);
	CHECK_EQ(cs_clamp_vtime(950, 1000, 100), 950);
	CHECK_EQ(cs_clamp_vtime(2000, 1000, 100), 2000);
	return true;
}

/* cs_wake_floor: the worked example in cs_policy.h, and its edges. */
static bool test_policy_wake_floor(void)
{
	/* The clock stood still since the cookie ran: no credit. */
	CHECK_EQ(cs_wake_floor(100, 100, 20), 100);
	/* It moved 30, credit capped at the lag. */
	CHECK_EQ(cs_wake_floor(130, 100, 20), 110);
	/* It moved 5: credit 5. */
	CHECK_EQ(cs_wake_floor(105, 100, 20), 100);
	/* A stale read (vseen above vnow): no credit, no wrap. */
	CHECK_EQ(cs_wake_floor(100, 150, 20), 100);
	/* Near zero: never below 0. */
	CHECK_EQ(cs_wake_floor(10, 0, 20), 0);
	CHECK_EQ(cs_wake_floor(0, 0, 0), 0);
	return true;
}

/* cs_wake_vtime: the worked example in cs_policy.h, and its edges. */
static bool test_policy_wake_vtime(void)
{
	const __u64 ms = 1000000, lag = 20 * ms, now = 1000 * ms;

	/* Debt capped a lag past the clock when it last ran (w 50: 2 lags). */
	CHECK_EQ(cs_wake_vtime(1500 * ms, now, 990 * ms, lag, 100), 1010 * ms);
	CHECK_EQ(cs_wake_vtime(1500 * ms, now, 990 * ms, lag, 50), 1030 * ms);
	/* Last ran long ago: the cap is under the floor, so the floor. */
	CHECK_EQ(cs_wake_vtime(1500 * ms, now, 500 * ms, lag, 100), 980 * ms);
	/* The same for every such cookie, whatever its debt: in turn. */
	CHECK_EQ(cs_wake_vtime(1200 * ms, now, 400 * ms, lag, 100), 980 * ms);
	/* Weight 0 scales as weight 1 (cs_scale): no division by zero. */
	CHECK_EQ(cs_wake_vtime(1500 * ms, now, now, lag, 0), 1500 * ms);
	/* Inside both bounds: kept. */
	CHECK_EQ(cs_wake_vtime(1010 * ms, now, now, lag, 100), 1010 * ms);
	CHECK_EQ(cs_wake_vtime(1020 * ms, now, now, lag, 100), 1020 * ms);
	CHECK_EQ(cs_wake_vtime(1021 * ms, now, now, lag, 100), 1020 * ms);
	/* Credit only as earned: the clock stood still, so up to vnow. */
	CHECK_EQ(cs_wake_vtime(900 * ms, now, now, lag, 100), now);
	/* It moved 30 ms since: 20 ms of credit at most. */
	CHECK_EQ(cs_wake_vtime(900 * ms, now, now - 30 * ms, lag, 100),
		 980 * ms);
	CHECK_EQ(cs_wake_vtime(990 * ms, now, now - 30 * ms, lag, 100),
		 990 * ms);
	return true;
}

/*
 * A wave of wakeups, simulated on one CPU: 256 single-task cookies that
 * last ran long ago come back one per step, each with a different debt
 * (0 to 510 ms ahead), while the CPU runs the most deserving queued
 * cookie each step (ties to the lowest index), charges it 2 ms, and it
 * sleeps 3 steps. With the cap against the clock when each cookie last
 * ran, every one comes back at the floor, so the first of them ran at
 * most twice before the last one's first run. (Capped against the clock
 * now instead, the clock jumped to each wave's cap and the last cookies
 * waited behind ten runs of the first: as 4,097 did in a guest.)
 */
#define WAVE_N 256
static bool test_policy_wake_wave(void)
{
	const __u64 ms = 1000000, lag = 20 * ms, charge = 2 * ms;
	__u64 vt[WAVE_N], seen[WAVE_N], vnow = 1000 * ms;
	int wake_at[WAVE_N], runs[WAVE_N] = { 0 }, first_all = -1;
	int step, i, woken = 0, most = 0;
	bool queued[WAVE_N] = { false };

	for (i = 0; i < WAVE_N; i++) {
		vt[i] = vnow + (__u64)(i * 37 % WAVE_N) * charge;
		seen[i] = 500 * ms;
		wake_at[i] = -1;
	}
	for (step = 0; step < 4 * WAVE_N && first_all < 0; step++) {
		int best = -1;

		if (woken < WAVE_N)
			wake_at[woken++] = step;
		for (i = 0; i < WAVE_N; i++) {
			if (queued[i] || wake_at[i] < 0 || wake_at[i] > step)
				continue;
			vt[i] = cs_wake_vtime(vt[i], vnow, seen[i], lag, 100);
			queued[i] = true;
		}
		for (i = 0; i < WAVE_N; i++)
			if (queued[i] && (best < 0 || vt[i] < vt[best]))
				best = i;
		if (best < 0)
			continue;
		if (vt[best] > vnow)
			vnow = vt[best];
		seen[best] = vnow;
		vt[best] += charge;
		runs[best]++;
		queued[best] = false;
		wake_at[best] = step + 4;
		for (i = 0; i < WAVE_N && runs[i]; i++)
			;
		if (i == WAVE_N)
			first_all = step;
	}
	CHECK(first_all >= 0, "not every cookie ran in %d steps", 4 * WAVE_N);
	for (i = 0; i < WAVE_N; i++)
		if (runs[i] > most)
			most = runs[i];
	CHECK(most <= 2,
	      "a cookie ran %d times before the last one's first run", most);
	return true;
}

/* cs_rescue_vtime, cs_rescue_due: the worked example, and the edges. */
static bool test_policy_rescue_vtime(void)
{
	const __u64 ms = 1000000, lag = 20 * ms, now = 1000 * ms;
	__u64 vseen, vt, r = cs_rescue_vtime(1250 * ms, now, lag);

	CHECK_EQ(r, 980 * ms - 1);
	/* Never raised. */
	CHECK_EQ(cs_rescue_vtime(900 * ms, now, lag), 900 * ms);
	/* Near zero: never below 0. */
	CHECK_EQ(cs_rescue_vtime(50, 10, 20), 0);
	/* Below every vtime a cookie back from idle gets, at any weight. */
	for (vseen = 0; vseen <= now; vseen += 50 * ms)
		for (vt = 0; vt <= 2 * now; vt += 100 * ms) {
			CHECK(cs_wake_vtime(vt, now, vseen, lag, 100) > r,
			      "vt %llu vseen %llu", (unsigned long long)vt,
			      (unsigned long long)vseen);
			CHECK(cs_wake_vtime(vt, now, vseen, lag, 10000) > r,
			      "weight 10000, vt %llu", (unsigned long long)vt);
		}
	CHECK(cs_rescue_due(5000 * ms, 3900 * ms, 1000 * ms), "1.1 s waited");
	CHECK(!cs_rescue_due(5000 * ms, 4100 * ms, 1000 * ms), "0.9 s waited");
	CHECK(!cs_rescue_due(5000 * ms, 4000 * ms, 1000 * ms), "exactly 1 s");
	/* A since written after now was read (another CPU): not due. */
	CHECK(!cs_rescue_due(5000 * ms, 5001 * ms, 1000 * ms), "since > now");
	return true;
}

/* cs_aged_rescue_vtime: the worked example, and the edges. */
static bool test_policy_aged_rescue_vtime(void)
{
	const __u64 ms = 1000000, lag = 20 * ms, now = 1000 * ms;
	__u64 over, low;

	CHECK_EQ(cs_aged_rescue_vtime(~0ULL, now, lag, 1000 * ms),
		 980 * ms - 1 - (1000 * ms >> 10));
	CHECK_EQ(cs_aged_rescue_vtime(~0ULL, now, lag, 5000 * ms),
		 980 * ms - 1 - (5000 * ms >> 10));
	/* No wait past the bound: the plain rescue. */
	CHECK_EQ(cs_aged_rescue_vtime(1250 * ms, now, lag, 0),
		 cs_rescue_vtime(1250 * ms, now, lag));
	/* At most CS_RESCUE_CREDIT_MAX lower; never raised; never below 0. */
	CHECK_EQ(cs_aged_rescue_vtime(~0ULL, now, lag, 3600000 * ms),
		 980 * ms - 1 - CS_RESCUE_CREDIT_MAX);
	CHECK_EQ(cs_aged_rescue_vtime(~0ULL, now, lag, ~0ULL),
		 980 * ms - 1 - CS_RESCUE_CREDIT_MAX);
	CHECK_EQ(cs_aged_rescue_vtime(900 * ms, now, lag, 1000 * ms), 900 * ms);
	CHECK_EQ(cs_aged_rescue_vtime(~0ULL, 10 * ms, lag, 1000 * ms), 0);
	/*
	 * The untagged work's rescue: the plain one with no cookie queued
	 * below it, else just below the lowest queued (every tagged rescue),
	 * never raised.
	 */
	CHECK_EQ(cs_untagged_rescue_vtime(~0ULL, now, lag, ~0ULL),
		 980 * ms - 1);
	CHECK_EQ(cs_untagged_rescue_vtime(~0ULL, now, lag, 990 * ms),
		 980 * ms - 1);
	CHECK_EQ(cs_untagged_rescue_vtime(~0ULL, now, lag, 975 * ms),
		 975 * ms - 1);
	CHECK(cs_untagged_rescue_vtime(~0ULL, now, lag,
				       cs_aged_rescue_vtime(~0ULL, now, lag,
							    ~0ULL)) <
		      cs_aged_rescue_vtime(~0ULL, now, lag, ~0ULL),
	      "untagged not below the oldest tagged rescue");
	CHECK_EQ(cs_untagged_rescue_vtime(5, now, lag, 975 * ms), 5);
	CHECK_EQ(cs_untagged_rescue_vtime(~0ULL, now, lag, 0), 0);
	/*
	 * From CS_VTIME_BASE, the deepest rescue (a 4 s lag, the --grace-us
	 * maximum, and the whole credit) stays far above 0, where rescues
	 * would tie.
	 */
	low = cs_aged_rescue_vtime(~0ULL, CS_VTIME_BASE, 4000 * ms,
				   CS_RESCUE_OVER_MAX_NS);
	CHECK(low < cs_aged_rescue_vtime(~0ULL, CS_VTIME_BASE, 4000 * ms,
					 CS_RESCUE_OVER_MAX_NS - 100 * ms),
	      "the deepest tagged rescue stopped at 0");
	CHECK(cs_untagged_rescue_vtime(~0ULL, CS_VTIME_BASE, 4000 * ms, low) <
			      low &&
		      cs_untagged_rescue_vtime(~0ULL, CS_VTIME_BASE, 4000 * ms,
					       low) > 0,
	      "the untagged rescue below the deepest stopped at 0");
	/*
	 * The longer the wait, the lower, at any lag, up to
	 * CS_RESCUE_OVER_MAX_NS: no tie below twice the watchdog's 30 s.
	 */
	for (over = 0; over < CS_RESCUE_OVER_MAX_NS; over += 100 * ms) {
		CHECK(cs_aged_rescue_vtime(~0ULL, now, lag, over + 100 * ms) <
			      cs_aged_rescue_vtime(~0ULL, now, lag, over),
		      "over %llu ms", (unsigned long long)(over / ms));
		CHECK(cs_aged_rescue_vtime(~0ULL, now, ms, over + 100 * ms) <
			      cs_aged_rescue_vtime(~0ULL, now, ms, over),
		      "lag 1 ms, over %llu ms",
		      (unsigned long long)(over / ms));
	}
	return true;
}

/*
 * Thousands of cookies past the guard's bound at once, as in
 * tests/guest/cookies.sh: RS_N single-task cookies (RS_N / 64 + 1 words)
 * on @cores cores that each start a run every RS_OCC ms (the rate of a
 * TCG guest at 4,097 cookies: 300 a second), charged 2 ms of core time;
 * a task sleeps 9 ms after its 1 ms run and comes back by cs_wake_vtime.
 * At the go they all wake; each last ran during a start-up in which the
 * clock moved RS_STARTUP ms, in the order of their slots, with a debt of
 * up to 50 ms, so the last created come back up to four graces ahead of
 * the clock and the first at the floor. Every 10 ms the guard looks at
 * the next word with cookies queued. @aged: this guard (every cookie of
 * the word past the bound and not rescued in the last second,
 * cs_aged_rescue_vtime, the wait not restarted);
 * otherwise the one before it (the word's longest waiter, at one vtime,
 * its wait restarted). @cores cores (at most RS_MAX_CORES), a lag of @lag
 * ms, @secs seconds. Fills *@r: the cookies that never ran, when the
 * last first run came and the longest a cookie stayed queued (in ms, one
 * still queued at the end counted to then).
 */
#define RS_N 4097
#define RS_WORDS (RS_N / 64 + 1)
#define RS_MAX_CORES 16
#define RS_OCC 27
#define RS_STARTUP 100

struct rs_cookie {
	__u64 vt, seen, since, rescued;
	int wake_at, first;
	bool queued;
};

struct rs_result {
	int never, last, worst;
};

/* The first word from @word on with a cookie queued (as queued_mask). */
static int rs_next_word(const struct rs_cookie *ck, int word)
{
	int k, i;

	for (k = 0; k < RS_WORDS; k++, word = (word + 1) % RS_WORDS)
		for (i = word * 64; i < RS_N && i < word * 64 + 64; i++)
			if (ck[i].queued)
				return word;
	return word;
}

/* The guard's look at @word at @now (see round_sim). */
static void rs_guard(struct rs_cookie *ck, int word, __u64 now, __u64 vnow,
		     __u64 lag, bool aged)
{
	struct rs_cookie *best = NULL;
	int i;

	for (i = word * 64; i < RS_N && i < word * 64 + 64; i++) {
		struct rs_cookie *c = &ck[i];

		if (!c->queued ||
		    !cs_rescue_due(now, c->since, CS_COOKIE_MAX_WAIT_NS))
			continue;
		if (!aged) {
			if (!best || c->since < best->since)
				best = c;
			continue;
		}
		if (!cs_rescue_due(now, c->rescued, CS_COOKIE_MAX_WAIT_NS))
			continue;
		c->vt = cs_aged_rescue_vtime(c->vt, vnow, lag,
					     now - c->since -
						     CS_COOKIE_MAX_WAIT_NS);
		c->rescued = now;
	}
	if (best) {
		best->vt = cs_rescue_vtime(best->vt, vnow, lag);
		best->since = now;
	}
}

/* Wake the cookies due at @t (see round_sim). */
static void rs_wake(struct rs_cookie *ck, int t, __u64 vnow, __u64 lag)
{
	int i;

	for (i = 0; i < RS_N; i++) {
		if (ck[i].wake_at != t)
			continue;
		ck[i].vt = cs_wake_vtime(ck[i].vt, vnow, ck[i].seen, lag, 100);
		ck[i].queued = true;
		ck[i].since = (__u64)t * 1000000;
		ck[i].wake_at = -1;
	}
}

static void round_sim(bool aged, int cores, int lag_ms, int secs,
		      struct rs_result *r)
{
	static struct rs_cookie ck[RS_N];
	const __u64 ms = 1000000, lag = lag_ms * ms, v0 = CS_VTIME_BASE;
	__u64 vnow = v0 + RS_STARTUP * ms, rnd = 1;
	int free_at[RS_MAX_CORES], t, i, c, word = 0;

	*r = (struct rs_result){ 0 };
	for (i = 0; i < RS_N; i++) {
		rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
		ck[i] = (struct rs_cookie){ .wake_at = -1, .first = -1 };
		ck[i].seen = v0 + (__u64)RS_STARTUP * ms * i / RS_N;
		ck[i].vt = ck[i].seen + (rnd >> 33) % (50 * ms);
		ck[i].vt = cs_wake_vtime(ck[i].vt, vnow, ck[i].seen, lag, 100);
		ck[i].queued = true;
	}
	for (c = 0; c < cores; c++)
		free_at[c] = c * RS_OCC / cores;
	for (t = 0; t < secs * 1000; t++) {
		rs_wake(ck, t, vnow, lag);
		if (t % 10 == 0) {
			word = rs_next_word(ck, word);
			rs_guard(ck, word, (__u64)t * ms, vnow, lag, aged);
			word = (word + 1) % RS_WORDS;
		}
		for (c = 0; c < cores; c++) {
			struct rs_cookie *b = NULL;

			if (free_at[c] > t)
				continue;
			free_at[c] = t + RS_OCC;
			for (i = 0; i < RS_N; i++)
				if (ck[i].queued && (!b || ck[i].vt < b->vt))
					b = &ck[i];
			if (!b)
				continue;
			b->queued = false;
			if (t - (int)(b->since / ms) > r->worst)
				r->worst = t - (int)(b->since / ms);
			if (b->vt > vnow)
				vnow = b->vt;
			b->seen = vnow;
			b->vt += 2 * ms;
			b->wake_at = t + 10;
			if (b->first < 0)
				b->first = r->last = t;
		}
	}
	for (i = 0; i < RS_N; i++) {
		r->never += ck[i].first < 0;
		if (ck[i].queued && t - (int)(ck[i].since / ms) > r->worst)
			r->worst = t - (int)(ck[i].since / ms);
	}
}

/*
 * The model at the test's settings (8 cores, a 20 ms lag, 30 s), then
 * across lags (4, 20 and 80 ms: a grace of 1, 5 and 20 ms) and core
 * counts (4, 8, 16) over 120 s, where the rescued cookies' order must
 * have no ties: with a credit that stopped at a lag, a 4 ms lag starved
 * 1,417 cookies and 4 cores over 120 s 297.
 */
static bool test_policy_rescue_round(void)
{
	static const int lags[] = { 4, 20, 80 }, cores[] = { 4, 8, 16 };
	struct rs_result old, aged;
	int l, c;

	round_sim(false, 8, 20, 30, &old);
	round_sim(true, 8, 20, 30, &aged);
	printf("# %d cookies, 8 cores, 30 s: %d not run with the guard before this one (last first run at %d ms, longest wait %d ms), %d with it (%d ms, %d ms)\n",
	       RS_N, old.never, old.last, old.worst, aged.never, aged.last,
	       aged.worst);
	fflush(stdout); /* the test runs in a child that ends with _exit */
	/* The scenario starves some with the word's longest waiter alone... */
	CHECK(old.never > 0,
	      "every cookie ran with the old guard: nothing to show");
	/* ...and every cookie runs within a round or so with this one. */
	CHECK(aged.never == 0 && aged.last < 20000,
	      "%d cookies did not run, the last first run at %d ms", aged.never,
	      aged.last);
	for (l = 0; l < ARRAY_SIZE(lags); l++)
		for (c = 0; c < ARRAY_SIZE(cores); c++) {
			round_sim(true, cores[c], lags[l], 120, &aged);
			printf("# lag %d ms, %d cores, 120 s: %d not run, longest wait %d ms\n",
			       lags[l], cores[c], aged.never, aged.worst);
			fflush(stdout);
			/*
			 * A round over RS_N takes RS_N * RS_OCC / cores ms (28 s
			 * on 4): no cookie waits much more than one.
			 */
			CHECK(aged.never == 0 &&
				      aged.worst <
					      RS_N * RS_OCC / cores[c] + 3000,
			      "lag %d ms, %d cores: %d not run, longest wait %d ms",
			      lags[l], cores[c], aged.never, aged.worst);
		}
	return true;
}

/*
 * The untagged work (U) far ahead of the clock among RESCUE_N cookies that
 * run, sleep and come back (cs_wake_vtime) all the time, one run per step:
 * the step at which U first runs, with the guard (U queued RESCUE_WAIT
 * steps without a run gets cs_rescue_vtime) or without it.
 */
#define RESCUE_N 256
#define RESCUE_WAIT 64

static int rescue_sim(bool guard)
{
	const __u64 ms = 1000000, lag = 20 * ms, charge = 2 * ms;
	__u64 vt[RESCUE_N], seen[RESCUE_N], vnow = 1000 * ms;
	__u64 vt_u = vnow + 100 * lag; /* a start-up's worth of debt */
	int wake_at[RESCUE_N], step, i;
	bool queued[RESCUE_N] = { false };

	for (i = 0; i < RESCUE_N; i++) {
		vt[i] = vnow;
		seen[i] = vnow;
		wake_at[i] = i % 4;
	}
	for (step = 0; step < 100 * RESCUE_N; step++) {
		int best = -1;

		for (i = 0; i < RESCUE_N; i++) {
			if (queued[i] || wake_at[i] > step)
				continue;
			vt[i] = cs_wake_vtime(vt[i], vnow, seen[i], lag, 100);
			queued[i] = true;
		}
		if (guard && cs_rescue_due(step, 0, RESCUE_WAIT)) {
			__u64 low = ~0ULL;

			for (i = 0; i < RESCUE_N; i++)
				if (queued[i] && vt[i] < low)
					low = vt[i];
			vt_u = cs_untagged_rescue_vtime(vt_u, vnow, lag, low);
		}
		for (i = 0; i < RESCUE_N; i++)
			if (queued[i] && (best < 0 || vt[i] < vt[best]))
				best = i;
		if (best < 0 || vt_u < vt[best])
			return step;
		if (vt[best] > vnow)
			vnow = vt[best];
		seen[best] = vnow;
		vt[best] += charge;
		queued[best] = false;
		wake_at[best] = step + 4;
	}
	return -1;
}

static bool test_policy_rescue_starved(void)
{
	int without = rescue_sim(false), with = rescue_sim(true);

	/* The scenario starves U without the guard... */
	CHECK(without < 0 || without > 4 * RESCUE_WAIT,
	      "U ran at step %d without the guard: no starvation to show",
	      without);
	/* ...and the guard runs it right after its wait. */
	CHECK(with >= 0 && with <= RESCUE_WAIT + 1,
	      "U first ran at step %d with the guard (wait %d)", with,
	      RESCUE_WAIT);
	return true;
}

/*
 * The tagged cookies' guard (CS_COOKIE_MAX_WAIT_NS): cookies L (weight 1)
 * and H (weight 10000), both always queued, one core, 5 ms slices: the
 * cookie with the lower vtime runs a slice and is charged it at its
 * weight. FLOOR_GUARD: L is rescued (cs_aged_rescue_vtime) once it has
 * waited past the guard since its last start, and again each time the
 * bound passes while it still waits; FLOOR_NOOP: the guard fires but its
 * rescue moves nothing (the test must tell). Returns L's longest
 * wait between two runs, in ms over 120 s.
 */
enum floor_mode { FLOOR_NONE, FLOOR_GUARD, FLOOR_NOOP };

static __u64 floor_sim(enum floor_mode mode)
{
	const __u64 ms = 1000000, slice = 5 * ms, lag = 20 * ms;
	__u64 vt_l = 0, vt_h = 0, vnow = 0, since = 0, ran = 0, worst = 0, t;
	__u64 rescued = 0;

	for (t = 0; t < 120000 * ms; t += slice) {
		if (mode != FLOOR_NONE &&
		    cs_rescue_due(t, since, CS_COOKIE_MAX_WAIT_NS) &&
		    cs_rescue_due(t, rescued, CS_COOKIE_MAX_WAIT_NS)) {
			if (mode == FLOOR_GUARD)
				vt_l = cs_aged_rescue_vtime(
					vt_l, vnow, lag,
					t - since - CS_COOKIE_MAX_WAIT_NS);
			rescued = t;
		}
		if (vt_l < vt_h) {
			if (t - ran > worst)
				worst = t - ran;
			vnow = vt_l > vnow ? vt_l : vnow;
			vt_l += cs_scale(slice, 1);
			since = ran = t + slice;
		} else {
			vnow = vt_h > vnow ? vt_h : vnow;
			vt_h += cs_scale(slice, 10000);
		}
	}
	if (t - ran > worst)
		worst = t - ran;
	return worst / ms;
}

static bool test_policy_weight_floor(void)
{
	__u64 without = floor_sim(FLOOR_NONE), with = floor_sim(FLOOR_GUARD);
	__u64 noop = floor_sim(FLOOR_NOOP);

	/* By weight alone, L waits past the kernel's 30 s watchdog... */
	CHECK(without > 30000, "L waited at most %llu ms without the guard",
	      (unsigned long long)without);
	/* ...a guard whose rescue does nothing does not change that... */
	CHECK(noop > 30000, "L waited at most %llu ms with a no-op rescue",
	      (unsigned long long)noop);
	/* ...and with the guard a slice past the second at most. */
	CHECK(with <= CS_COOKIE_MAX_WAIT_NS / 1000000 + 5,
	      "L waited %llu ms with the guard", (unsigned long long)with);
	return true;
}

/*
 * The tasks' guard (CS_TASK_MAX_WAIT_NS): one queue, TF_CPUS CPUs, TF_HOGS
 * spinners at weight 8668 (nice -20) and @nlight tasks at weight 1 (nice
 * 19), 5 ms slices. At each slice's end a CPU keeps its task (renewal)
 * unless the queue's head is more than a slice below it; a task re-queued
 * is clamped to the clock (the highest vtime started) less a slice. With
 * @guard, each CPU looks every CS_TASK_SCAN_NS from the tail over the
 * indebted tasks, CS_TASK_TAIL at most (tf_overdue), and runs the one
 * overdue longest next, re-queued at the head (cs_rescued_task_vtime).
 * Returns the longest wait of a weight-1 task between two runs over 60
 * s, in ms; *share is their part of the CPU time, in parts per 10,000.
 */
#define TF_CPUS 4
#define TF_HOGS 8
#define TF_MAX (TF_HOGS + CS_TASK_TAIL + 8)

/*
 * The walk before: was a task at vtime @vt in debt beyond a slice of its
 * queue's @clock (the old walk stopped at the first that was not)?
 */
static bool tf_indebted(__u64 vt, __u64 clock, __u64 slice)
{
	return vt > clock + slice;
}

/*
 * The guard's walk (tail_overdue in bpf/guard.bpf.h): from the tail over
 * CS_TASK_TAIL tasks, in debt or not, passing over those a rescue would
 * not move ahead (cs_task_rescuable); with @indebted_only, the walk
 * before, which stopped at the first task not in debt without looking
 * at it.
 */
static int tf_overdue(const __u64 *vt, const __u64 *enq, const bool *queued,
		      int n, __u64 clock, __u64 now, bool indebted_only)
{
	const __u64 slice = 5000000;
	bool seen[TF_MAX] = { false };
	int k, i, found = -1;

	for (k = 0; k < CS_TASK_TAIL; k++) {
		int last = -1;

		for (i = 0; i < n; i++)
			if (queued[i] && !seen[i] &&
			    (last < 0 || vt[i] > vt[last]))
				last = i;
		if (last < 0 ||
		    (indebted_only && !tf_indebted(vt[last], clock, slice)))
			break;
		seen[last] = true;
		if (cs_task_rescuable(vt[last], clock, slice) &&
		    cs_rescue_due(now, enq[last], CS_TASK_MAX_WAIT_NS) &&
		    (found < 0 || enq[last] < enq[found]))
			found = last;
	}
	return found;
}

static __u64 tf_sim(bool guard, int nlight, __u64 *share)
{
	const __u64 ms = 1000000, slice = 5 * ms;
	__u64 vt[TF_MAX] = { 0 }, enq[TF_MAX] = { 0 }, ran[TF_MAX] = { 0 };
	__u64 w[TF_MAX], scan[TF_CPUS] = { 0 }, clock = 0, worst = 0, light = 0;
	__u64 all = 0, t;
	int run[TF_CPUS], c, i, n = TF_HOGS + nlight;
	bool queued[TF_MAX];

	for (i = 0; i < n; i++) {
		w[i] = i >= TF_HOGS ? 1 : 8668;
		queued[i] = i >= TF_CPUS;
	}
	for (c = 0; c < TF_CPUS; c++)
		run[c] = c;
	for (t = slice; t < 60000 * ms; t += slice) {
		for (c = 0; c < TF_CPUS; c++) {
			int p = run[c], next = -1;
			bool rescued = false;

			vt[p] += cs_scale(slice, w[p]);
			all += slice;
			if (p >= TF_HOGS)
				light += slice;
			if (guard && t - scan[c] >= CS_TASK_SCAN_NS) {
				scan[c] = t;
				next = tf_overdue(vt, enq, queued, n, clock, t,
						  false);
				rescued = next >= 0;
				if (rescued)
					vt[next] = cs_rescued_task_vtime(clock,
									 slice);
			}
			for (i = 0; !rescued && i < n; i++)
				if (queued[i] && (next < 0 || vt[i] < vt[next]))
					next = i;
			if (next < 0 || (!rescued && vt[p] <= vt[next] + slice))
				continue; /* renewed */
			queued[p] = true;
			enq[p] = t;
			vt[p] = cs_clamp_vtime(vt[p], clock, slice);
			queued[next] = false;
			run[c] = next;
			if (vt[next] > clock)
				clock = vt[next];
			if (next >= TF_HOGS && t - ran[next] > worst)
				worst = t - ran[next];
			ran[next] = t;
		}
	}
	for (i = TF_HOGS; i < n; i++)
		if (queued[i] && t - ran[i] > worst)
			worst = t - ran[i];
	*share = all ? light * 10000 / all : 0;
	return worst / ms;
}

static bool test_policy_task_floor(void)
{
	const __u64 bound = (CS_TASK_MAX_WAIT_NS + CS_TASK_SCAN_NS) / 1000000;
	const __u64 looks = CS_TASK_TAIL * CS_TASK_SCAN_NS / TF_CPUS / 1000000;
	__u64 s_none, s_one, s_edge;
	__u64 none = tf_sim(false, 1, &s_none), one = tf_sim(true, 1, &s_one);
	__u64 edge = tf_sim(true, CS_TASK_TAIL, &s_edge);

	/* By weight alone, L waits past the kernel's 30 s watchdog... */
	CHECK(none > 30000, "L waited at most %llu ms without the guard",
	      (unsigned long long)none);
	/* ...with the guard a second, a look and a slice at most... */
	CHECK(one <= bound + 5, "L waited %llu ms with the guard",
	      (unsigned long long)one);
	/* ...and it gets a floor, not a share: a slice a second of 4 CPUs. */
	CHECK(s_one > 0 && s_one <= 50,
	      "L got %llu/10000 of the CPU time with the guard",
	      (unsigned long long)s_one);
	/*
	 * At the edge, CS_TASK_TAIL of them: each rescued one goes back to
	 * the tail, and the walk passes over it to the older ones. They
	 * fall due together, and the CPUs' looks rescue them one a look:
	 * the last waits 32 looks over 4 CPUs (400 ms) more.
	 */
	CHECK(edge <= bound + looks + 5,
	      "with %d weight-1 tasks one waited %llu ms", CS_TASK_TAIL,
	      (unsigned long long)edge);
	return true;
}

/*
 * One turn of a cookie with rare turns (tf_rare, tf_steady): the guard's
 * look and its rescue, then the task first in vtime, which runs.
 */
static int tf_turn(__u64 *vt, const __u64 *enq, const bool *queued, int n,
		   __u64 clock, __u64 now, bool indebted_only)
{
	const __u64 slice = 5000000;
	int i, next = tf_overdue(vt, enq, queued, n, clock, now, indebted_only);

	if (next >= 0)
		vt[next] = cs_rescued_task_vtime(clock, slice);
	for (next = -1, i = 0; i < n; i++)
		if (next < 0 || vt[i] < vt[next])
			next = i;
	return next;
}

/*
 * A cookie whose turns are rare (closed.sh's t_a at cpu.weight 1 beside
 * 10000: about a slice a second, on the one CPU it may use), nine tasks
 * at weight 8668: eight children queued at the clock less a slice
 * (cs_clamp_vtime) and their parent P at the clock, with no debt. By
 * vtime P runs once the children's runs pass it, 86 slices each: 688
 * turns. The walk over indebted tasks alone (@indebted_only) never
 * reaches P; the walk over the tail rescues it. Returns P's wait for its
 * first run in ms, at most 600 s.
 */
static __u64 tf_rare(bool indebted_only)
{
	const __u64 ms = 1000000, slice = 5 * ms, turn = 1000 * ms;
	enum { KIDS = 8, P = KIDS, N = KIDS + 1 };
	__u64 vt[N], enq[N] = { 0 }, clock = 100 * slice, t;
	bool queued[N];
	int i, next;

	for (i = 0; i < N; i++) {
		vt[i] = i == P ? clock : clock - slice;
		queued[i] = true;
	}
	for (t = turn; t < 600000 * ms; t += turn) {
		next = tf_turn(vt, enq, queued, N, clock, t, indebted_only);
		if (next == P)
			return t / ms;
		vt[next] = cs_clamp_vtime(vt[next] + cs_scale(slice, 8668),
					  clock, slice);
		enq[next] = t;
	}
	return 600000;
}

/*
 * The same cookie in its steady state: each turn (a second apart) runs
 * the task first in vtime for a tick (1 ms, 11.5 us of vtime at weight
 * 8668), after the look. Returns the longest any task went unrun over
 * 600 s, in ms. The walk over the tail alone would rescue the task that
 * ran last at each turn (it is the tail, and fell due a second after its
 * run) and leave the ones in the middle unrun; the walk over all the
 * tail's tasks takes the one that waited longest.
 */
static __u64 tf_steady(bool indebted_only)
{
	const __u64 ms = 1000000, slice = 5 * ms, turn = 1000 * ms;
	enum { N = 9 };
	__u64 vt[N], enq[N] = { 0 }, ran[N] = { 0 }, clock = 100 * slice;
	__u64 t, worst = 0;
	bool queued[N];
	int i, next;

	for (i = 0; i < N; i++) {
		vt[i] = i == N - 1 ? clock : clock - slice;
		queued[i] = true;
	}
	for (t = turn; t < 600000 * ms; t += turn) {
		next = tf_turn(vt, enq, queued, N, clock, t, indebted_only);
		if (vt[next] > clock)
			clock = vt[next];
		if (t - ran[next] > worst)
			worst = t - ran[next];
		ran[next] = t;
		vt[next] = cs_clamp_vtime(vt[next] + cs_scale(ms, 8668), clock,
					  slice);
		enq[next] = t;
	}
	for (i = 0; i < N; i++)
		if (t - ran[i] > worst)
			worst = t - ran[i];
	return worst / ms;
}

static bool test_policy_task_floor_rare_turns(void)
{
	__u64 steady = tf_steady(false), steady_before = tf_steady(true);

	/* Nine tasks, a turn a second: each runs about every 9 turns. */
	CHECK(steady <= 9 * 1000 + 2 * 1000,
	      "a task went unrun %llu ms in the steady state",
	      (unsigned long long)steady);
	CHECK(steady_before > 30000,
	      "a task went unrun %llu ms with the indebted-only walk",
	      (unsigned long long)steady_before);
	__u64 before = tf_rare(true), now = tf_rare(false);

	CHECK(before > 30000, "P waited %llu ms with the indebted-only walk",
	      (unsigned long long)before);
	/* A second to fall due, then the next turn: the look rescues it. */
	CHECK(now <= 2 * 1000 + 5, "P waited %llu ms with the guard",
	      (unsigned long long)now);
	return true;
}

/*
 * Two cookies take 5 ms turns on one core by the lower vtime, each turn
 * charged at cs_tagged_weight(): how many of @turns go to the one of
 * weight @wa beside @wb, from equal vtimes.
 */
static int drain_turns(__u64 wa, __u64 wb, bool even, int turns)
{
	const __u64 slice = 5000000;
	__u64 vt[2] = { 0, 0 }, w[2] = { wa, wb };
	int t, a = 0;

	for (t = 0; t < turns; t++) {
		int c = vt[0] <= vt[1] ? 0 : 1;

		vt[c] += cs_scale(slice, cs_tagged_weight(w[c], even));
		a += !c;
	}
	return a;
}

/* A stop's drain: cpu.weight 1 beside 10000 gets half the turns. */
static bool test_policy_drain_even(void)
{
	int before = drain_turns(1, 10000, false, 2000);
	int during = drain_turns(1, 10000, true, 2000);

	CHECK(before <= 1, "weight 1 got %d of 2000 turns beside 10000",
	      before);
	CHECK(during >= 990 && during <= 1010,
	      "weight 1 got %d of 2000 turns while draining", during);
	/* No weight known counts as 100, draining or not. */
	CHECK(cs_tagged_weight(0, false) == 100 &&
		      cs_tagged_weight(0, true) == 100,
	      "weight 0 not taken as 100");
	CHECK(cs_tagged_weight(250, false) == 250, "own weight not kept");
	return true;
}

/* A sync wakee keeps the claim only when nothing else may be due. */
static bool test_policy_sync_keep(void)
{
	const __u16 a = 5;

	CHECK(cs_sync_keep(1 + a, a, true, false, false, CS_MODE_STRICT),
	      "a sync wakee of the claimed cookie not kept");
	CHECK(cs_sync_keep(1 + a, a, true, false, false, CS_MODE_NONE),
	      "not kept in none mode");
	CHECK(!cs_sync_keep(0, a, true, false, false, CS_MODE_STRICT),
	      "kept with no wakeup placed here");
	CHECK(!cs_sync_keep(1 + a, a + 1, true, false, false, CS_MODE_STRICT),
	      "kept for a cookie the CPU does not claim");
	CHECK(!cs_sync_keep(1 + a, a, false, false, false, CS_MODE_STRICT),
	      "kept after a task of another class");
	CHECK(!cs_sync_keep(1 + a, a, true, true, false, CS_MODE_STRICT),
	      "kept while the previous task is still runnable");
	CHECK(!cs_sync_keep(1 + a, a, true, false, true, CS_MODE_STRICT),
	      "kept while a tick or a sibling asked for the pick");
	CHECK(!cs_sync_keep(1 + a, a, true, false, false, CS_MODE_FILL),
	      "kept in fill mode");
	CHECK(!cs_sync_keep(1, 0, true, false, false, CS_MODE_STRICT),
	      "kept for the untagged cookie");
	CHECK(!cs_sync_keep(1 + CS_SLOT_NONE, CS_SLOT_NONE, true, false, false,
			    CS_MODE_STRICT),
	      "kept for no claim");
	return true;
}

/* The walk's two rules beside the rescue's bound, on one queue. */
static bool test_policy_task_walk(void)
{
	const __u64 s = 5000000, clock = 100 * s;
	const __u64 now = 10ULL * 1000 * 1000 * 1000;
	__u64 vt[TF_MAX] = { cs_rescued_task_vtime(clock, s), clock };
	__u64 enq[TF_MAX] = { 1, 2 };
	bool q[TF_MAX] = { true, true };

	/* A rescued task not run yet is not rescued again (no slice ends)... */
	CHECK(tf_overdue(vt, enq, q, 1, clock, now, false) == -1,
	      "a rescued task found overdue again");
	/* ...the one behind it, overdue with no debt, is... */
	CHECK(tf_overdue(vt, enq, q, 2, clock, now, false) == 1,
	      "the tail's overdue task without debt not found");
	/* ...where the walk over indebted tasks alone stopped short. */
	CHECK(tf_overdue(vt, enq, q, 2, clock, now, true) == -1,
	      "the indebted-only walk found a task without debt");
	return true;
}

static bool test_policy_clamp_vtime_no_underflow(void)
{
	CHECK_EQ(cs_clamp_vtime(0, 50, 100), 0);
	CHECK_EQ(cs_clamp_vtime(10, 50, 100), 10);
	CHECK_EQ(cs_clamp_vtime(0, 100, 100), 0);
	CHECK_EQ(cs_clamp_vtime(0, 0, 0), 0);
	CHECK_EQ(cs_clamp_vtime(0, 101, 100), 1);
	return true;
}

/* Per-task cookies (coresched.h) */

/* No two decimal digits in a row in "0x%llx": no PID can match inside. */
static bool digit_run(__u64 cookie, char *hex, size_t len)
{
	size_t i;

	snprintf(hex, len, "0x%llx", (unsigned long long)cookie);
	for (i = 1; hex[i]; i++)
		if (hex[i - 1] >= '0' && hex[i - 1] <= '9' && hex[i] >= '0' &&
		    hex[i] <= '9')
			return true;
	return false;
}

static bool cookie_ok(__u64 n, char *why, size_t len)
{
	__u64 c = cs_task_cookie_make(n);
	char hex[24];

	if (!c || (c & CS_COOKIE_CGROUP) || digit_run(c, hex, sizeof(hex))) {
		snprintf(why, len, "cookie number %llu is %#llx",
			 (unsigned long long)n, (unsigned long long)c);
		return false;
	}
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static bool test_task_cookie_no_digit_runs(void)
{
	static const __u64 edges[] = { 1, 2, CS_COOKIE_POW6 - 1, CS_COOKIE_POW6,
				       CS_COOKIE_POW6 + 1, 2 * CS_COOKIE_POW6,
				       CS_MAX_TASK_COOKIES - 1,
				       CS_MAX_TASK_COOKIES };
	char why[96];
	__u64 n;
	size_t i;

	for (n = 1; n <= 200000; n++)
		CHECK(cookie_ok(n, why, sizeof(why)), "%s", why);
	for (i = 0; i < ARRAY_SIZE(edges); i++)
		CHECK(cookie_ok(edges[i], why, sizeof(why)), "%s", why);
	/* and the check itself sees a run */
	CHECK(digit_run(0x1a23bULL, why, sizeof(why)), "0x1a23b has a run");
	return true;
}

/* Distinct over the first 200000 and around each change of the digit. */
static bool test_task_cookie_unique(void)
{
	enum { N = 200000, EDGE = 1000 };
	static __u64 c[N + 6 * 2 * EDGE];
	size_t nr = 0, i;
	__u64 n, d;

	for (n = 1; n <= N; n++)
		c[nr++] = cs_task_cookie_make(n);
	for (d = 1; d < 7; d++)
		for (n = d * CS_COOKIE_POW6 - EDGE + 1;
		     n <= d * CS_COOKIE_POW6 + EDGE; n++)
			c[nr++] = cs_task_cookie_make(n);
	qsort(c, nr, sizeof(c[0]), cmp_u64);
	for (i = 1; i < nr; i++)
		CHECK(c[i] != c[i - 1], "cookie %#llx twice",
		      (unsigned long long)c[i]);
	return true;
}

static bool test_task_cookie_limit(void)
{
	CHECK_EQ(cs_task_cookie_make(0), 0);
	CHECK(cs_task_cookie_make(CS_MAX_TASK_COOKIES) != 0, "last refused");
	CHECK_EQ(cs_task_cookie_make(CS_MAX_TASK_COOKIES + 1), 0);
	CHECK_EQ(cs_task_cookie_make(~0ULL), 0);
	/* the README's and tagging.bpf.c's example */
	CHECK_EQ(cs_task_cookie_make(42), 0x1abdbeacecedebafULL);
	return true;
}

/* The de Bruijn lookup finds the lowest set bit of every word shape. */
static bool test_policy_low_bit(void)
{
	__u8 t[64];
	__u64 x;
	int b, hi;

	memset(t, 0xff, sizeof(t));
	cs_low_bit_table(t);
	for (b = 0; b < 64; b++)
		CHECK(t[b] < 64, "key %d unfilled: not a permutation", b);
	for (b = 0; b < 64; b++) {
		for (hi = b; hi < 64; hi++) {
			x = (1ULL << b) | (1ULL << hi) |
			    (hi < 63 ? ~0ULL << (hi + 1) : 0);
			CHECK_EQ(t[cs_low_bit_key(x)], b);
			CHECK_EQ(t[cs_low_bit_key(1ULL << b | 1ULL << hi)], b);
		}
	}
	return true;
}

/*
 * Queue bounds (cs_qb_*): a bound is never above the vtime it was made
 * from, keeps its sequence number, and every lowering changes the word, so
 * a pick's compare-and-swap from the word it read before looking fails
 * when a slot became queued meanwhile, whatever its vtime.
 */
static bool test_policy_queue_bound(void)
{
	const __u64 vts[] = { 0, 1, 1023, 1024, 5000000, 1ULL << 40,
			      (1ULL << 58) - 1, 1ULL << 58, 1ULL << 62,
			      ~0ULL - 1 };
	const __u64 seqs[] = { 0, 1, 7, CS_QB_SEQ_MASK };
	int i, j, k;

	CHECK_EQ(cs_qb_bound(cs_qb_pack(~0ULL, 3)), ~0ULL);
	CHECK_EQ(cs_qb_pack(~0ULL, 3) & CS_QB_SEQ_MASK, 3);
	for (i = 0; i < ARRAY_SIZE(vts); i++) {
		for (j = 0; j < ARRAY_SIZE(seqs); j++) {
			__u64 w = cs_qb_pack(vts[i], seqs[j]), b = cs_qb_bound(w);

			CHECK(b <= vts[i], "bound %llu above vtime %llu",
			      (unsigned long long)b,
			      (unsigned long long)vts[i]);
			CHECK(b != ~0ULL, "vtime %llu packed as none queued",
			      (unsigned long long)vts[i]);
			if (vts[i] < (CS_QB_NONE - 1) << CS_QB_SHIFT)
				CHECK(vts[i] - b < (1ULL << CS_QB_SHIFT),
				      "bound %llu of %llu: rounded too far",
				      (unsigned long long)b,
				      (unsigned long long)vts[i]);
			CHECK_EQ(w & CS_QB_SEQ_MASK, seqs[j]);
			CHECK_EQ(cs_qb_refresh(w, vts[i]), w);
			for (k = 0; k < ARRAY_SIZE(vts); k++) {
				__u64 l = cs_qb_lower(w, vts[k]);
				__u64 want = vts[k] < b ? vts[k] : b;

				CHECK(l != w, "lowering by %llu left the word as it was",
				      (unsigned long long)vts[k]);
				CHECK(cs_qb_bound(l) <= want,
				      "lowered bound %llu above %llu",
				      (unsigned long long)cs_qb_bound(l),
				      (unsigned long long)want);
				CHECK_EQ(l & CS_QB_SEQ_MASK,
					 (seqs[j] + 1) & CS_QB_SEQ_MASK);
				CHECK_EQ(cs_qb_refresh(l, ~0ULL) & CS_QB_SEQ_MASK,
					 l & CS_QB_SEQ_MASK);
			}
		}
	}
	/* A word with none queued, lowered: bounded by the new vtime. */
	CHECK_EQ(cs_qb_bound(cs_qb_lower(cs_qb_pack(~0ULL, 0), 4096)), 4096);
	return true;
}

/*
 * The pick's word order (pick_best_slot in bpf/pick.bpf.h, with
 * cs_qb_rank): with every bound a lower bound of its word's vtimes, stale
 * or exact, the pick finds the lowest vtime of all, and with exact
 * bounds it looks at one word and reads the bounds once (in this model,
 * which has no rounding: cs_qb_pack's 1.024 us units can make two words
 * tie and take a second pass). No concurrency: other CPUs' updates
 * during a pick are the protocol's (cs_policy.h), unchanged by the early
 * stop. A model of the BPF loop over random words: @bound[j] is word j's
 * bound (~0: none queued), @vt[j][] its slots' vtimes (~0: no slot).
 * Returns the best vtime; the words looked at and the passes made in
 * *@looks, *@passes.
 */
#define QB_WORDS 6
#define QB_SLOTS 4

static __u64 qb_model_pick(const __u64 bound[QB_WORDS],
			   const __u64 vt[QB_WORDS][QB_SLOTS], int *looks,
			   int *passes)
{
	__u64 bvt = ~0ULL;
	unsigned int looked = 0;
	int n, j, i;

	*looks = *passes = 0;
	for (n = 0; n < QB_WORDS; n++) {
		__u64 low = ~0ULL, next = ~0ULL;
		__u32 k = QB_WORDS;

		(*passes)++;
		for (j = 0; j < QB_WORDS; j++)
			if (!(looked & (1U << j)))
				cs_qb_rank(bound[j], j, &k, &low, &next);
		if (k >= QB_WORDS || low >= bvt)
			break;
		looked |= 1U << k;
		(*looks)++;
		for (i = 0; i < QB_SLOTS; i++)
			if (vt[k][i] < bvt)
				bvt = vt[k][i];
		if (next >= bvt)
			break;
	}
	return bvt;
}

static bool test_policy_pick_order(void)
{
	unsigned int seed = 7;
	int round, j, i, looks, passes;

	for (round = 0; round < 20000; round++) {
		__u64 bound[QB_WORDS], vt[QB_WORDS][QB_SLOTS], all = ~0ULL;
		bool exact = round & 1;

		for (j = 0; j < QB_WORDS; j++) {
			__u64 low = ~0ULL;

			for (i = 0; i < QB_SLOTS; i++) {
				vt[j][i] = rnd(&seed, 3) ? ~0ULL :
							   rnd(&seed, 1000);
				if (vt[j][i] < low)
					low = vt[j][i];
			}
			/*
			 * Stale: anything from 0 up to the lowest vtime, or,
			 * for a word with none queued (a bit outliving its
			 * count), anything at all.
			 */
			if (exact || !rnd(&seed, 2))
				bound[j] = low;
			else if (low == ~0ULL)
				bound[j] = rnd(&seed, 1000);
			else
				bound[j] = rnd(&seed, (unsigned int)low + 1);
			if (low < all)
				all = low;
		}
		CHECK_EQ(qb_model_pick(bound, vt, &looks, &passes), all);
		if (exact && all != ~0ULL) {
			CHECK_EQ(looks, 1);
			CHECK_EQ(passes, 1);
		}
	}
	return true;
}

int main(void)
{
	RUN(policy_word_layout);
	RUN(policy_word_roundtrip);
	RUN(policy_word_never_looser);
	RUN(policy_word_exact_under_protocol);
	RUN(policy_word_idle);
	RUN(policy_word_exact_off_protocol);
	RUN(policy_compat_none_slot);
	RUN(policy_compat_strict);
	RUN(policy_compat_fill);
	RUN(policy_compat_mode_none);
	RUN(policy_compat_trust);
	RUN(policy_compat_excl);
	RUN(policy_compat_symmetric);
	RUN(policy_llc_queues);
	RUN(policy_llc_steal);
	RUN(policy_claim_idle_core);
	RUN(policy_claim_same_slot);
	RUN(policy_claim_stable);
	RUN(policy_claim_transit);
	RUN(policy_claim_transit_claimed_not_left);
	RUN(policy_claim_worked_example);
	RUN(policy_claim_transit_precedence);
	RUN(policy_claim_own_fields_ignored);
	RUN(policy_claim_beyond_nr_ignored);
	RUN(policy_claim_excl_trust);
	RUN(policy_ipi_window_start_new);
	RUN(policy_ipi_window_start_old);
	RUN(policy_ipi_window_all_pairs);
	RUN(policy_ipi_window_detects_next_only);
	RUN(policy_core_slot);
	RUN(policy_core_slot_skips_trust);
	RUN(policy_core_owner);
	RUN(policy_rivals);
	RUN(policy_core_slot_ignores_self);
	RUN(policy_nr_running);
	RUN(policy_core_charge);
	RUN(policy_core_charge_clamped);
	RUN(policy_scale);
	RUN(policy_scale_zero_weight);
	RUN(policy_should_yield);
	RUN(policy_yield_grace);
	RUN(policy_renew_rule);
	RUN(policy_renew_ticks);
	RUN(policy_stall);
	RUN(policy_low_bit);
	RUN(policy_queue_bound);
	RUN(policy_pick_order);
	RUN(policy_clamp_vtime);
	RUN(policy_clamp_vtime_no_underflow);
	RUN(policy_wake_floor);
	RUN(policy_wake_vtime);
	RUN(policy_wake_wave);
	RUN(policy_rescue_vtime);
	RUN(policy_rescue_starved);
	RUN(policy_aged_rescue_vtime);
	RUN(policy_rescue_round);
	RUN(policy_weight_floor);
	RUN(policy_task_floor);
	RUN(policy_task_floor_rare_turns);
	RUN(policy_task_walk);
	RUN(policy_drain_even);
	RUN(policy_sync_keep);
	RUN(task_cookie_no_digit_runs);
	RUN(task_cookie_unique);
	RUN(task_cookie_limit);
	return nr_failed ? 1 : 0;
}
