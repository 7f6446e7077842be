// SPDX-License-Identifier: GPL-2.0-only
/*
 * Exhaustive model check of the core-state protocol (bpf/coresched.bpf.c,
 * bpf/core_state.bpf.h) for one core of 2 and of 4 siblings.
 *
 * The model is an explicit-state breadth-first search: every interleaving
 * of the protocol's atomic steps is explored, each distinct state once (a
 * hash set of visited states), so the first violation found is reached by
 * a shortest interleaving, which is printed as a trace. Compatibility,
 * claim verdicts and the core slot come from include/cs_policy.h, the
 * functions the BPF side runs; only the control flow around them (the
 * order of reads, CASes, kicks and the switch) is written out here.
 *
 * 1. State. The core word (next[i], cur[i] for each sibling), the number
 *    of queued tasks of each of 3 cookies, and per sibling:
 *      run     the slot of the task physically on the CPU (- for idle);
 *              it keeps running until the switch step, whatever dispatch
 *              decided meanwhile
 *      fgn     that task is of another sched class (RT and co.)
 *      forced  its forced flag (cpu_stat->forced)
 *      kick    kicks in flight to it: IDLE (kick_forced_siblings), PREEMPT
 *              (preempt_conflicts)
 *      pc      where it is in cs_dispatch / the switch / cs_cpu_release,
 *              with that code's locals: was, best, the candidate list and
 *              index, the word read before a CAS, the task chosen.
 *
 * 2. Steps, each one atomic, in the order the BPF code performs them:
 *      quiescent CPU: a running task finishes, or its slice expires (it is
 *        queued again; bounded), or a foreign task takes the CPU (impose;
 *        bounded), or a kick is delivered: an idle CPU dispatches, a
 *        running one dispatches on PREEMPT only (IDLE kicks are no-ops
 *        on a busy CPU, as SCX_KICK_IDLE is).
 *        Entering dispatch sets the forced flag (nothing is read before).
 *      read:     w = word; was = next[i]; held = cs_core_slot(); best is
 *                any queued cookie (vtimes are abstracted away, so every
 *                choice is explored), and when held conflicts with best
 *                the dispatch may or may not decide to yield
 *      yield:    preempt_conflicts(rival): read the word, PREEMPT-kick
 *      claim-read: snap = word; cs_claim_verdict(snap): transit and
 *                stable try the next candidate (forced stays set: the
 *                sibling in transit kicks at its commit or unclaim), OK
 *                goes on to
 *      claim-CAS: succeeds if word == snap, else back to claim-read (a
 *                sibling wrote in between: a failed CAS)
 *      move:     take a queued task of the slot (forced = 0), then kick
 *                forced siblings if leaving was, a claim it was not
 *                running yet (while cur is was, its siblings stay blocked
 *                by cur, and the commit kicks); or, none left, set_claim
 *                NONE (and kick) and try the next candidate
 *      release:  all candidates failed: set_claim NONE, kick forced
 *                siblings if a claim was dropped, forced = 0 if nothing
 *                was queued at the read; the CPU goes idle
 *      switch:   the old task stops running, the commit at sched_switch
 *                sets cur[i] and the new task runs; then, if cur left a
 *                cookie (for another one or for idle), the commit kicks
 *                forced siblings: they may be waiting on that transit
 *      impose:   cs_cpu_release: set_claim(F), kick, preempt_conflicts(F),
 *                then the switch to the foreign task of cookie F
 *      impose-local: the same, but the preempted task of X is being
 *                migrated, so the re-queue skips it and it waits in the
 *                local DSQ: intrude() remembers the claim X, then as
 *                impose; the switch's commit (cur = F) claims X again
 *                and preempts the siblings in conflict with F
 *      intrude:  an idle CPU that moved a task of X to its local DSQ is
 *                about to switch to it, and a foreign task of cookie F
 *                wins the pick instead (no cs_cpu_release from idle):
 *                commit() sets cur = F, then intrude() keeps the claim
 *                X and preempt_conflicts(F) (or, with no claim, imposes
 *                as above); the task of X waits in the local DSQ
 *      local:    that foreign task leaves and the task of X runs from the
 *                local DSQ with no dispatch: cur = X, kicking forced
 *                siblings if cur left another cookie; if the claim is
 *                not X (a seeded bug), ops.running imposes X
 *    A kick is processed under the target's rq lock, which its scheduler
 *    holds from dispatch to the end of the switch, so kicks to a CPU in
 *    those steps wait until it is quiescent again.
 *
 * 3. Checks, in every reachable state:
 *    (a) isolation: the tasks physically running on two siblings have
 *        compatible cookies (cs_compat). The one allowed exception is the
 *        documented one: a foreign task imposed itself, and the sibling in
 *        conflict has a PREEMPT kick in flight or is already switching.
 *    (b) no lost wakeup: in a quiescent state (no CPU in the scheduler,
 *        no kick in flight) no idle CPU would get a task by dispatching
 *        now, whatever cookie it took for the best: otherwise it sleeps
 *        with work it may run and nothing will wake it.
 *    (c) in a quiescent state, next[i] and cur[i] name what runs on i
 *        (next[i] the task waiting in the local DSQ while an intruder
 *        runs).
 *
 * 4. Bounds (chosen to keep the whole run near 10 s of CPU): cookies A,
 *    B, C are slots 1, 2, 3 in strict mode and 0, 1, 2 in fill mode (so
 *    that fill's "0 beside anything" is exercised); one queued task of
 *    each, 1 slice expiry and 1 foreign intrusion (impose, impose-local
 *    or intrude); all CPUs start idle with an IDLE kick each (the enqueue
 *    wakeups). Interleavings are explored to 26 steps for 2 siblings and
 *    12 for 4 (BFS levels; 4 siblings blow up beyond that: idle siblings
 *    that claim the held cookie, find nothing queued and unclaim kick
 *    each other). 12 steps do not reach a quiescent state with 4
 *    siblings, so there only (a) is checked. A preempted task is queued
 *    at once (but for impose-local) and its enqueue's kick goes, at the
 *    switch, to the idle sibling find_cpu() would pick. No new tasks
 *    arrive, cs_running's impose for tasks the kernel dispatched by itself
 *    is modelled only for the local step (its self-kick is not), nor is
 *    the stopper moving away a task it left, nor core_claim's limit of 8
 *    CASes (after which the CPU kicks itself to look again:
 *    CS_CLAIM_RACED). The old task stopping and the commit are one step:
 *    the stop is invisible to the other CPUs.
 *    CS_MODEL_BOUNDS="A,B,C,expiries,intrusions,busy,active,depth"
 *    overrides the bounds, CS_MODEL_ONLY=name picks tests,
 *    CS_MODEL_TRACE=1 prints the traces of the seeded bugs.
 *
 * Worked example, 2 siblings, strict, queue A:1 B:1 (a lost-wakeup race):
 *
 *   cpu0 dispatch, best A: claim A (next0=A), move it, switch, commit:
 *     word  next0=A cur0=A next1=- cur1=-   run A -
 *   cpu1 dispatch: forced1 = 1, read, best B, held A: tries A (CAS ok,
 *     none queued: set_claim NONE), then B: verdict stable (cur0=A)
 *   cpu0's A finishes, its dispatch claims B (held -), moves the task
 *   cpu1 releases and idles, forced1 still 1 (B was queued at its read)
 *   cpu0 switches from A to B: its commit reads forced1 = 1 and kicks
 *     cpu1 ...
 *
 * ... and when cpu1 is kicked, its dispatch finds B (or nothing) and the
 * state is quiescent again. Had cpu0 read forced1 before cpu1 set it,
 * cpu1's own read would come after cpu0's commit and see cur0=B. Drop that
 * kick (seeded bug 6) and with one more B queued cpu1 sleeps beside a B
 * it could run: check (b) fails. Commit cur0=B when cpu0 chooses B
 * instead of at its switch (seeded bug 1) and cpu1 may claim B while A
 * still runs on cpu0: check (a) fails. The seeded bugs are test variants
 * of the same model; each must be reported.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cs_policy.h"
#define TEST_TIMEOUT 120 /* 4-sibling searches: seconds, more when loaded */
#include "harness.h"

#define NR_COOKIES 3
#define MODEL_SMT 4 /* siblings explored at most; the word holds CS_MAX_SMT */
#define NONE CS_SLOT_NONE

/* Seeded bugs: each one must make the model report a violation. */
enum {
	BUG_COMMIT_AT_DECISION = 1 << 0, /* cur set when the task is chosen */
	BUG_NO_RELEASE_KICK = 1 << 1, /* set_claim(NONE) kicks nobody */
	BUG_NO_KICK = 1 << 2, /* no kick_forced_siblings at all */
	BUG_CLAIM_IGNORES_CUR = 1 << 3, /* verdict on next[] only */
	BUG_INTRUDER_DROPS_CLAIM = 1 << 4, /* intrude() as impose() */
	BUG_NO_COMMIT_KICK = 1 << 5, /* commit leaving a cookie kicks nobody */
	BUG_RELEASE_DROPS_LOCAL = 1 << 6, /* the commit after cs_cpu_release
					     does not claim the task left on
					     the local DSQ again */
};

enum {
	K_IDLE = 1, /* kick_forced_siblings: SCX_KICK_IDLE */
	K_PREEMPT = 2, /* preempt_conflicts: SCX_KICK_PREEMPT */
};

/* Where a sibling is: a quiescent CPU is at PC_Q. */
enum {
	PC_Q,
	PC_READ, /* dispatch: forced flag set, word not read yet */
	PC_YIELD, /* preempt_conflicts(rival) before the candidates */
	PC_CREAD, /* core_claim: read the word, verdict */
	PC_CCAS, /* core_claim: CAS against the word read */
	PC_MOVE, /* cs_move_to_local */
	PC_KICK_RUN, /* try_run: kick_forced_siblings, leaving was */
	PC_UNCLAIM, /* try_run: nothing to move, set_claim(NONE) */
	PC_KICK_UNCLAIM, /* ... and its kick_forced_siblings */
	PC_RELEASE, /* end of dispatch: set_claim(NONE) */
	PC_KICK_RELEASE, /* ... and its kick_forced_siblings */
	PC_OUT, /* context switch: the old task stops */
	PC_COMMIT, /* sched_switch: cur = new, the new task runs */
	PC_KICK_COMMIT, /* ... and, cur left a cookie, kick_forced_siblings */
	PC_ICLAIM, /* cs_cpu_release: set_claim(F) */
	PC_IKICK, /* ... and its kick_forced_siblings */
	PC_IPREEMPT, /* ... preempt_conflicts(F) */
	NR_PCS,
};

/* Actions, for traces. */
enum {
	A_DELIVER,
	A_FINISH,
	A_EXPIRE,
	A_IMPOSE,
	A_INTRUDE, /* an rt task wins the pick over a task just moved here */
	A_LOCAL, /* that rt task leaves: the moved task runs, no dispatch */
	A_IMPOSE_LOCAL, /* an rt task preempts a task being migrated */
	A_STEP, /* the next step of the sibling's program (its pc) */
};

struct sib {
	__u64 snap; /* word read by claim-read, for the CAS */
	__u16 pc, run, fgn, forced, kick, ci, was, best, chosen;
	__u16 cand[3];
	__u16 rq; /* slot of the preempted task, enqueued at the switch */
	__u16 local; /* slot of a task moved here that an intruder delayed */
	__u16 rival; /* the cookie that should own the core (cs_dispatch) */
	__u16 kept; /* the claim of the task left in local (intrude) */
};

struct state {
	__u64 word;
	struct sib s[MODEL_SMT];
	__u8 q[NR_COOKIES], expires, imposes, pad[3];
};

_Static_assert(sizeof(struct sib) == 40, "struct sib has padding");
_Static_assert(sizeof(struct state) == 8 + 4 * 40 + 8,
	       "struct state has padding");

/* fgn bits */
#define FGN_RUNNING 1 /* run is a foreign task */
#define FGN_CHOSEN 2 /* chosen is a foreign task */

/* What can go wrong, each checked separately. */
enum {
	V_ISOLATION, /* (a) */
	V_LOST_KICK, /* (b) the wakeup the protocol promises */
	V_IDLE_BESIDE_WORK, /* (b) any compatible work */
	V_WORD, /* (c) */
	NR_KINDS,
};

static const char *const kind_name[NR_KINDS] = {
	[V_ISOLATION] = "isolation",
	[V_LOST_KICK] = "lost kick",
	[V_IDLE_BESIDE_WORK] = "idle beside work",
	[V_WORD] = "word",
};

struct model {
	/* configuration */
	int nr, mode;
	__u16 slot[NR_COOKIES]; /* cookie -> slot */
	__u8 q0[NR_COOKIES];
	int max_expires, max_imposes;
	int busy; /* siblings that start running a task of A */
	int max_active; /* siblings in the scheduler at once */
	int max_depth; /* steps from the start; 0: no limit */
	bool truncated; /* the depth limit cut some interleavings */
	unsigned int bugs;
	bool no_yield; /* dispatch never yields (see check_catches) */
	/* storage: states in BFS order, their parents, how they were reached */
	struct state *st;
	__u32 *parent, *how;
	size_t n, cap;
	__u32 *table; /* open addressing, index + 1, 0 = empty */
	size_t tmask;
	/* results */
	size_t quiescent, cas_fail, transit, stable, woken, imposed;
	int depth;
	size_t found[NR_KINDS]; /* first state of each violation, + 1 */
	char why[NR_KINDS][160];
};

static int kidx(const struct model *m, __u16 slot)
{
	int k;

	for (k = 0; k < NR_COOKIES; k++)
		if (m->slot[k] == slot)
			return k;
	return -1;
}

static char slot_ch(const struct model *m, __u16 slot)
{
	int k = kidx(m, slot);

	return k < 0 ? (slot == NONE ? '-' : '?') : "ABC"[k];
}

/* Hash set */

static __u64 hash_state(const struct state *s)
{
	const __u64 *p = (const __u64 *)s;
	__u64 h = 0x243f6a8885a308d3ULL;
	size_t i;

	for (i = 0; i < sizeof(*s) / 8; i++) {
		h ^= p[i];
		h *= 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	return h;
}

static void grow_table(struct model *m)
{
	size_t cap = m->tmask ? (m->tmask + 1) * 2 : 1 << 16, i;
	__u32 *t = calloc(cap, sizeof(*t));

	if (!t) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	for (i = 0; i < m->n; i++) {
		size_t h = hash_state(&m->st[i]) & (cap - 1);

		while (t[h])
			h = (h + 1) & (cap - 1);
		t[h] = i + 1;
	}
	free(m->table);
	m->table = t;
	m->tmask = cap - 1;
}

static void *grow(void *p, size_t n, size_t size)
{
	p = realloc(p, n * size);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* Add @s if new; returns true if it was. */
static bool add_state(struct model *m, const struct state *s, size_t from,
		      __u32 how)
{
	size_t h;

	if (2 * (m->n + 1) > m->tmask + 1)
		grow_table(m);
	h = hash_state(s) & m->tmask;
	while (m->table[h]) {
		if (!memcmp(&m->st[m->table[h] - 1], s, sizeof(*s)))
			return false;
		h = (h + 1) & m->tmask;
	}
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 1 << 16;
		m->st = grow(m->st, m->cap, sizeof(*m->st));
		m->parent = grow(m->parent, m->cap, sizeof(*m->parent));
		m->how = grow(m->how, m->cap, sizeof(*m->how));
	}
	m->st[m->n] = *s;
	m->parent[m->n] = from;
	m->how[m->n] = how;
	m->table[h] = ++m->n;
	return true;
}

static void free_model(struct model *m)
{
	free(m->st);
	free(m->parent);
	free(m->how);
	free(m->table);
}

/* Steps */

static void kick_forced(const struct model *m, struct state *s, int i)
{
	int j;

	if (m->bugs & BUG_NO_KICK)
		return;
	for (j = 0; j < m->nr; j++)
		if (j != i && s->s[j].forced)
			s->s[j].kick |= K_IDLE;
}

static void preempt_conflicts(const struct model *m, struct state *s, int i,
			      __u16 slot)
{
	int j;

	for (j = 0; j < m->nr; j++)
		if (j != i && (!cs_compat(cs_next(s->word, j), slot, m->mode) ||
			       !cs_compat(cs_cur(s->word, j), slot, m->mode)))
			s->s[j].kick |= K_PREEMPT;
}

static int verdict(const struct model *m, __u64 w, int i, __u16 slot)
{
	int j;

	if (m->bugs & BUG_CLAIM_IGNORES_CUR)
		for (j = 0; j < CS_MAX_SMT; j++)
			w = cs_set_cur(w, j, cs_next(w, j));
	return cs_claim_verdict(w, i, m->nr, slot, m->mode);
}

/*
 * A preempted task goes back through cs_enqueue, which (not a wakeup)
 * kicks the idle CPU that find_cpu() picks: here the idle sibling with the
 * best place_score(), the lowest index on a tie (another core's CPU may
 * win in the real system: then no sibling is kicked, not modelled).
 */
static void enqueue_kick(const struct model *m, struct state *s, __u16 slot)
{
	int j, score, best = 0, to = -1;

	for (j = 0; j < m->nr; j++) {
		__u16 held = cs_core_slot(s->word, j, m->nr);

		if (s->s[j].run != NONE || (s->s[j].fgn & FGN_RUNNING))
			continue;
		if (cs_claim_verdict(s->word, j, m->nr, slot, m->mode) !=
		    CS_CLAIM_OK)
			continue;
		score = held == slot ? 3 : held == NONE ? 2 : 1;
		if (score > best) {
			best = score;
			to = j;
		}
	}
	if (to >= 0)
		s->s[to].kick |= K_IDLE;
}

/*
 * The preempted task is queued at once (dispatch sees it, as it sees prev
 * in the BPF code), its enqueue's kick is sent at the switch (put_prev).
 */
static void requeue(const struct model *m, struct state *s, int i, __u16 slot)
{
	int k = kidx(m, slot);

	if (k < 0)
		return;
	s->q[k]++;
	s->s[i].rq = slot;
}

static void enter_dispatch(struct sib *c)
{
	c->pc = PC_READ;
	c->forced = 1;
}

/* After candidate @ci failed: the next one, or the release. */
/*
 * The rivals cs_dispatch() may pick for @best (choice @r): @best itself,
 * except in fill mode when the untagged cookie leads: then any queued
 * tagged cookie (best_tagged), or none if none is queued.
 */
static bool rival_of(const struct model *m, const struct state *s, __u16 best,
		     int r, __u16 *rival)
{
	bool tagged = false;
	int k;

	if (m->mode != CS_MODE_FILL || best != 0) {
		*rival = best;
		return r == 0;
	}
	for (k = 0; k < NR_COOKIES; k++)
		tagged |= m->slot[k] != 0 && s->q[k];
	if (r == NR_COOKIES) {
		*rival = NONE;
		return !tagged;
	}
	*rival = m->slot[r];
	return m->slot[r] != 0 && s->q[r];
}

/* cs_dispatch()'s candidates, yielding (@y) or not. */
static void dispatch_cands(const struct model *m, __u16 held, __u16 best,
			   __u16 rival, bool y, __u16 cand[3])
{
	if (y)
		cand[0] = NONE;
	else if (held == NONE || held == CS_SLOT_TRUST)
		cand[0] = rival;
	else
		cand[0] = held;
	cand[1] = m->mode == CS_MODE_FILL ? 0 : NONE;
	cand[2] = rival;
	if (m->mode == CS_MODE_FILL && best == 0) {
		cand[1] = cand[0];
		cand[0] = 0;
	}
}

/* held as cs_dispatch() sees it: in fill mode untagged owns no core. */
static __u16 held_of(const struct model *m, __u64 w, int i)
{
	return cs_core_owner(w, i, m->nr, m->mode);
}

static void next_cand(struct sib *c, int ci)
{
	for (ci++; ci < 3; ci++) {
		__u16 s = c->cand[ci];

		if (s == NONE || (ci && s == c->cand[0]) ||
		    (ci == 2 && s == c->cand[1]))
			continue;
		c->ci = ci;
		c->pc = PC_CREAD;
		return;
	}
	c->ci = 0;
	c->pc = PC_RELEASE;
}

/* Dispatch is over: switch to chosen (or stay idle). */
static void to_switch(struct sib *c)
{
	c->cand[0] = c->cand[1] = c->cand[2] = NONE;
	c->ci = 0;
	c->was = NONE;
	if (c->chosen != NONE) {
		/* an idle CPU remembers what it wanted */
		c->best = NONE;
		c->rival = NONE;
	}
	if (c->run == NONE && !(c->fgn & FGN_RUNNING))
		c->pc = c->chosen == NONE ? PC_Q : PC_COMMIT;
	else
		c->pc = PC_OUT;
	if (c->pc == PC_Q)
		c->chosen = NONE;
}

#define HOW(i, act, arg) ((__u32)(i) | (__u32)(act) << 4 | (__u32)(arg) << 8)

/*
 * Successors of idle @i about to switch to the task it moved to its local
 * DSQ (PC_COMMIT), in which an rt task of each cookie wins the pick first
 * (no ops.cpu_release from an idle CPU): commit() sets cur to it, in
 * this step (the sched_switch tracepoint, before the intruder runs), then
 * intrude() keeps the claim and preempts the siblings in conflict with
 * the intruder, or, with no claim, imposes. The moved task waits in local.
 */
static void intrude(struct model *m, const struct state *s0, size_t at,
		    int i)
{
	struct state s;
	struct sib *c;
	__u16 claim;
	int k;

	for (k = 0; k < NR_COOKIES; k++) {
		s = *s0;
		c = &s.s[i];
		s.imposes++;
		c->local = c->chosen;
		c->chosen = m->slot[k];
		c->fgn |= FGN_CHOSEN;
		claim = cs_next(s.word, i);
		if ((m->bugs & BUG_INTRUDER_DROPS_CLAIM) || claim == NONE ||
		    claim == c->chosen) {
			c->pc = PC_ICLAIM;
		} else {
			s.word = cs_set_cur(s.word, i, c->chosen);
			c->pc = PC_IPREEMPT;
		}
		add_state(m, &s, at, HOW(i, A_INTRUDE, k));
	}
}

/* Every successor of state @at by sibling @i. */
static void step(struct model *m, size_t at, int i)
{
	const struct state copy = m->st[at], *s0 = &copy; /* st may move */
	struct state s = *s0;
	struct sib *c = &s.s[i];
	__u16 held, slot;
	int k, y, v;

	switch (s0->s[i].pc) {
	case PC_Q:
		for (k = y = 0; k < m->nr; k++)
			y += s0->s[k].pc != PC_Q;
		if (y >= m->max_active)
			return;
		if (c->kick) {
			int kick = c->kick;

			c->kick = 0;
			if (c->fgn & FGN_RUNNING) {
				/* a higher class ignores our kicks */
			} else if (c->run == NONE) {
				enter_dispatch(c);
				m->woken++;
			} else if (kick & K_PREEMPT) {
				requeue(m, &s, i, c->run);
				enter_dispatch(c);
			}
			add_state(m, &s, at, HOW(i, A_DELIVER, kick));
			s = *s0;
		}
		if ((c->fgn & FGN_RUNNING) && c->local != NONE) {
			/*
			 * The intruder leaves; the task moved here before it
			 * runs from the local DSQ, with no dispatch: commit()
			 * sets cur (kicking forced siblings if leaving the
			 * intruder's cookie); the old code dropped the claim at
			 * the intrusion, so ops.running found none and imposed.
			 */
			slot = cs_cur(s.word, i);
			s.word = cs_set_cur(s.word, i, c->local);
			if (cs_next(s.word, i) != c->local) {
				/* ops.running: an unclaimed run imposes */
				s.word = cs_set_next(s.word, i, c->local);
				kick_forced(m, &s, i);
				preempt_conflicts(m, &s, i, c->local);
			} else if (slot != c->local && slot != NONE) {
				kick_forced(m, &s, i);
			}
			c->run = c->local;
			c->fgn = 0;
			c->local = NONE;
			add_state(m, &s, at, HOW(i, A_LOCAL, 0));
			s = *s0;
		} else if (c->fgn & FGN_RUNNING) {
			enter_dispatch(c); /* the foreign task leaves */
			add_state(m, &s, at, HOW(i, A_FINISH, 0));
			s = *s0;
		} else if (c->run != NONE) {
			enter_dispatch(c);
			add_state(m, &s, at, HOW(i, A_FINISH, 0));
			s = *s0;
			if (s.expires < m->max_expires) {
				s.expires++;
				requeue(m, &s, i, c->run);
				enter_dispatch(c);
				add_state(m, &s, at, HOW(i, A_EXPIRE, 0));
				s = *s0;
			}
		}
		if (s.imposes < m->max_imposes && !(c->fgn & FGN_RUNNING)) {
			for (k = 0; k < NR_COOKIES; k++) {
				s.imposes++;
				requeue(m, &s, i, c->run);
				c->chosen = m->slot[k];
				c->fgn |= FGN_CHOSEN;
				c->pc = PC_ICLAIM;
				add_state(m, &s, at, HOW(i, A_IMPOSE, k));
				s = *s0;
				if (c->run == NONE)
					continue;
				/*
				 * The preempted task is being migrated: the
				 * re-queue skips it, it stays on the local DSQ
				 * and runs right after the rt task if the
				 * stopper leaves it here. intrude() imposes the
				 * rt task's cookie (beside the task's cur) and
				 * claims the task's again at the commit.
				 */
				s.imposes++;
				c->local = c->run;
				c->chosen = m->slot[k];
				c->fgn |= FGN_CHOSEN;
				held = cs_next(s.word, i);
				if (!(m->bugs & BUG_RELEASE_DROPS_LOCAL) &&
				    held != NONE && held != c->chosen)
					c->kept = held;
				c->pc = PC_ICLAIM;
				add_state(m, &s, at, HOW(i, A_IMPOSE_LOCAL, k));
				s = *s0;
			}
		}
		return;
	case PC_READ:
		held = held_of(m, s.word, i);
		for (k = 0; k <= NR_COOKIES; k++) {
			__u16 best = k < NR_COOKIES ? m->slot[k] : NONE, rival;
			bool can_yield;
			int r;

			if (k < NR_COOKIES ? !s0->q[k] : !!(s0->q[0] | s0->q[1] |
							    s0->q[2]))
				continue; /* not a pick_best() outcome */
			for (r = 0; r <= NR_COOKIES; r++) {
				if (!rival_of(m, s0, best, r, &rival))
					continue;
				can_yield = !m->no_yield && held != NONE &&
					    held != CS_SLOT_TRUST && rival != NONE &&
					    !cs_compat(held, rival, m->mode);
				for (y = 0; y <= can_yield; y++) {
					s = *s0;
					c->was = cs_next(s.word, i);
					c->best = best;
					c->rival = rival;
					dispatch_cands(m, held, best, rival, y,
						       c->cand);
					if (y)
						c->pc = PC_YIELD;
					else
						next_cand(c, -1);
					add_state(m, &s, at,
						  HOW(i, A_STEP, PC_READ));
				}
			}
		}
		return;
	case PC_YIELD:
		preempt_conflicts(m, &s, i, c->rival);
		next_cand(c, -1);
		break;
	case PC_CREAD:
		slot = c->cand[c->ci];
		v = verdict(m, s.word, i, slot);
		if (v == CS_CLAIM_OK) {
			c->snap = s.word;
			c->pc = PC_CCAS;
		} else {
			if (v == CS_BLOCKED_TRANSIT)
				m->transit++;
			else
				m->stable++;
			next_cand(c, c->ci);
		}
		break;
	case PC_CCAS:
		if (s.word == c->snap) {
			s.word = cs_set_next(s.word, i, c->cand[c->ci]);
			c->pc = PC_MOVE;
		} else {
			m->cas_fail++;
			c->pc = PC_CREAD;
		}
		c->snap = 0;
		break;
	case PC_MOVE:
		slot = c->cand[c->ci];
		k = kidx(m, slot);
		if (k >= 0 && s.q[k]) {
			s.q[k]--;
			c->chosen = slot;
			c->forced = 0;
			if (m->bugs & BUG_COMMIT_AT_DECISION)
				s.word = cs_set_cur(s.word, i, slot);
			if (c->was != slot && c->was != NONE &&
			    c->was != cs_cur(s.word, i))
				c->pc = PC_KICK_RUN;
			else
				to_switch(c);
		} else {
			c->pc = PC_UNCLAIM;
		}
		break;
	case PC_KICK_RUN:
		kick_forced(m, &s, i);
		to_switch(c);
		break;
	case PC_UNCLAIM:
		slot = cs_next(s.word, i);
		s.word = cs_set_next(s.word, i, NONE);
		if (slot != NONE && !(m->bugs & BUG_NO_RELEASE_KICK))
			c->pc = PC_KICK_UNCLAIM;
		else
			next_cand(c, c->ci);
		break;
	case PC_KICK_UNCLAIM:
		kick_forced(m, &s, i);
		next_cand(c, c->ci);
		break;
	case PC_RELEASE:
	case PC_KICK_RELEASE:
		if (c->pc == PC_RELEASE) {
			slot = cs_next(s.word, i);
			s.word = cs_set_next(s.word, i, NONE);
			if (m->bugs & BUG_COMMIT_AT_DECISION)
				s.word = cs_set_cur(s.word, i, NONE);
			if (slot != NONE && !(m->bugs & BUG_NO_RELEASE_KICK)) {
				c->pc = PC_KICK_RELEASE;
				break;
			}
		} else {
			kick_forced(m, &s, i);
		}
		if (c->best == NONE)
			c->forced = 0;
		c->chosen = NONE;
		to_switch(c);
		break;
	case PC_OUT:
	case PC_COMMIT:
		if (s0->s[i].pc == PC_COMMIT && c->run == NONE &&
		    !(c->fgn & FGN_CHOSEN) && c->chosen != NONE &&
		    s.imposes < m->max_imposes)
			intrude(m, &s, at, i);
		slot = cs_cur(s.word, i);
		s.word = cs_set_cur(s.word, i, c->chosen);
		if (c->kept != NONE) {
			/* intrude() at the commit: the left task's claim back */
			if (cs_next(s.word, i) != c->kept) {
				s.word = cs_set_next(s.word, i, c->kept);
				kick_forced(m, &s, i);
			}
			c->kept = NONE;
			preempt_conflicts(m, &s, i, c->chosen);
		}
		c->pc = PC_Q;
		if (slot != c->chosen && slot != NONE &&
		    !(m->bugs & BUG_NO_COMMIT_KICK))
			c->pc = PC_KICK_COMMIT;
		c->run = c->chosen;
		c->fgn = c->fgn & FGN_CHOSEN ? FGN_RUNNING : 0;
		c->chosen = NONE;
		if (c->rq != NONE)
			enqueue_kick(m, &s, c->rq);
		c->rq = NONE;
		break;
	case PC_KICK_COMMIT:
		kick_forced(m, &s, i);
		c->pc = PC_Q;
		break;
	case PC_ICLAIM:
		slot = cs_next(s.word, i);
		s.word = cs_set_next(s.word, i, c->chosen);
		/* As cs_cpu_release(): forced siblings always look again. */
		c->pc = PC_IKICK;
		break;
	case PC_IKICK:
		kick_forced(m, &s, i);
		c->pc = PC_IPREEMPT;
		break;
	case PC_IPREEMPT:
		preempt_conflicts(m, &s, i, c->chosen);
		m->imposed++;
		c->pc = c->run == NONE && !(c->fgn & FGN_RUNNING) ? PC_COMMIT :
								     PC_OUT;
		break;
	}
	add_state(m, &s, at, HOW(i, A_STEP, s0->s[i].pc));
}

/* Checks */

/* Would a dispatch on idle @i, run now and alone, get a task? */
static bool would_run(const struct model *m, const struct state *s, int i)
{
	__u16 held = held_of(m, s->word, i), cands[3], rival;
	bool any = false, ok;
	int b, c, k, r;

	for (b = 0; b < NR_COOKIES; b++) {
		if (!s->q[b])
			continue;
		any = true;
		for (r = 0; r <= NR_COOKIES; r++) {
			if (!rival_of(m, s, m->slot[b], r, &rival))
				continue;
			dispatch_cands(m, held, m->slot[b], rival, false, cands);
			for (ok = false, c = 0; c < 3 && !ok; c++) {
				k = kidx(m, cands[c]);
				ok = k >= 0 && s->q[k] &&
				     cs_claim_verdict(s->word, i, m->nr,
						      cands[c],
						      m->mode) == CS_CLAIM_OK;
			}
			if (!ok)
				return false;
		}
	}
	return any;
}

static bool leaving(const struct sib *c)
{
	return (c->kick & K_PREEMPT) || c->pc != PC_Q;
}

static void violation(struct model *m, int kind, size_t at, const char *fmt,
		      ...)
{
	va_list ap;

	if (m->found[kind])
		return;
	m->found[kind] = at + 1;
	va_start(ap, fmt);
	vsnprintf(m->why[kind], sizeof(m->why[kind]), fmt, ap);
	va_end(ap);
}

static void check(struct model *m, size_t at)
{
	const struct state *s = &m->st[at];
	bool quiet = true;
	int i, j, k, r;

	for (i = 0; i < m->nr; i++) {
		const struct sib *a = &s->s[i];

		if (a->pc != PC_Q || a->kick)
			quiet = false;
		for (j = i + 1; j < m->nr; j++) {
			const struct sib *b = &s->s[j];

			if (cs_compat(a->run, b->run, m->mode))
				continue;
			if ((a->fgn & FGN_RUNNING) && leaving(b))
				continue;
			if ((b->fgn & FGN_RUNNING) && leaving(a))
				continue;
			violation(m, V_ISOLATION, at,
				  "isolation: cpu%d and cpu%d run incompatible cookies",
				  i, j);
		}
	}
	if (!quiet)
		return;
	m->quiescent++;
	for (i = 0; i < m->nr; i++) {
		const struct sib *a = &s->s[i];

		if (cs_next(s->word, i) !=
			    (a->local != NONE ? a->local : a->run) ||
		    cs_cur(s->word, i) != a->run)
			violation(m, V_WORD, at,
				  "word: next%d/cur%d do not name what runs",
				  i, i);
		if (a->run != NONE)
			continue;
		/* What it waits for: the core's owner-to-be, or its best. */
		for (r = 0; r < 2; r++) {
			__u16 want = r ? a->rival : a->best;

			k = kidx(m, want);
			if (a->forced && k >= 0 && s->q[k] &&
			    cs_claim_verdict(s->word, i, m->nr, want,
					     m->mode) == CS_CLAIM_OK) {
				violation(m, V_LOST_KICK, at,
					  "lost kick: cpu%d idles forced for %c, which it may run now, and no kick is on its way",
					  i, slot_ch(m, want));
				break;
			}
		}
		if (would_run(m, s, i))
			violation(m, V_IDLE_BESIDE_WORK, at,
				  "idle beside work: cpu%d sleeps beside work a dispatch would run now, and no kick is on its way",
				  i);
	}
}

/* Traces */

static const char *const pc_name[NR_PCS] = {
	[PC_Q] = "quiescent",
	[PC_READ] = "dispatch: read word",
	[PC_YIELD] = "yield: preempt_conflicts",
	[PC_CREAD] = "claim: read word",
	[PC_CCAS] = "claim: CAS",
	[PC_MOVE] = "move to local",
	[PC_KICK_RUN] = "kick forced (leaving was)",
	[PC_UNCLAIM] = "none queued: set_claim NONE",
	[PC_KICK_UNCLAIM] = "kick forced (unclaim)",
	[PC_RELEASE] = "release: set_claim NONE",
	[PC_KICK_RELEASE] = "kick forced (release)",
	[PC_OUT] = "switch: old task stops, commit",
	[PC_COMMIT] = "commit at sched_switch",
	[PC_KICK_COMMIT] = "kick forced (commit left a cookie)",
	[PC_ICLAIM] = "cpu_release: set_claim F",
	[PC_IKICK] = "kick forced (impose)",
	[PC_IPREEMPT] = "cpu_release: preempt_conflicts",
};

static void fmt_state(const struct model *m, const struct state *s, char *buf,
		      size_t len)
{
	size_t n = 0;
	int i;

	n += snprintf(buf + n, len - n, "word");
	for (i = 0; i < m->nr; i++)
		n += snprintf(buf + n, len - n, " %c/%c",
			      slot_ch(m, cs_next(s->word, i)),
			      slot_ch(m, cs_cur(s->word, i)));
	n += snprintf(buf + n, len - n, " | run");
	for (i = 0; i < m->nr; i++)
		n += snprintf(buf + n, len - n, " %c%s%s",
			      slot_ch(m, s->s[i].run),
			      s->s[i].fgn & FGN_RUNNING ? "(rt)" : "",
			      s->s[i].forced ? "*" : "");
	n += snprintf(buf + n, len - n, " | q A%d B%d C%d", s->q[0], s->q[1],
		      s->q[2]);
	for (i = 0; i < m->nr; i++)
		if (s->s[i].kick)
			n += snprintf(buf + n, len - n, " | kick>cpu%d%s%s", i,
				      s->s[i].kick & K_IDLE ? " idle" : "",
				      s->s[i].kick & K_PREEMPT ? " preempt" :
								 "");
}

static void fmt_how(const struct model *m, const struct state *before,
		    __u32 how, char *buf, size_t len)
{
	int i = how & 15, act = how >> 4 & 15, arg = how >> 8;
	const struct sib *c = &before->s[i];
	int n = snprintf(buf, len, "cpu%d ", i);

	buf += n;
	len -= n;
	switch (act) {
	case A_DELIVER:
		snprintf(buf, len, "kick delivered");
		break;
	case A_FINISH:
		snprintf(buf, len, "task %c %s, dispatch (forced flag set)",
			 slot_ch(m, c->run),
			 c->fgn & FGN_RUNNING ? "(rt) leaves" : "finishes");
		break;
	case A_EXPIRE:
		snprintf(buf, len, "task %c slice expires, dispatch",
			 slot_ch(m, c->run));
		break;
	case A_IMPOSE:
		snprintf(buf, len, "an rt task of cookie %c takes the cpu",
			 "ABC"[arg]);
		break;
	case A_INTRUDE:
		snprintf(buf, len,
			 "an rt task of cookie %c wins the pick over %c, moved here",
			 "ABC"[arg], slot_ch(m, c->chosen));
		break;
	case A_LOCAL:
		snprintf(buf, len, "the rt task leaves; %c, moved here before it, runs",
			 slot_ch(m, c->local));
		break;
	case A_IMPOSE_LOCAL:
		snprintf(buf, len,
			 "an rt task of cookie %c preempts %c, which stays queued here (being migrated)",
			 "ABC"[arg], slot_ch(m, c->run));
		break;
	default:
		if (arg == PC_READ)
			snprintf(buf, len, "%s", pc_name[arg]);
		else if (arg == PC_CREAD || arg == PC_CCAS || arg == PC_MOVE)
			snprintf(buf, len, "%s %c", pc_name[arg],
				 slot_ch(m, c->cand[c->ci]));
		else
			snprintf(buf, len, "%s", pc_name[arg]);
		break;
	}
}

static void print_trace(const struct model *m, size_t at)
{
	size_t path[4096], n = 0, k;
	char a[160], b[256];

	for (k = at; n < ARRAY_SIZE(path); k = m->parent[k]) {
		path[n++] = k;
		if (m->parent[k] == k)
			break;
	}
	fmt_state(m, &m->st[path[n - 1]], b, sizeof(b));
	printf("#   start: %s\n", b);
	while (--n > 0) {
		const struct state *s = &m->st[path[n - 1]];

		fmt_how(m, &m->st[path[n]], m->how[path[n - 1]], a, sizeof(a));
		if ((m->how[path[n - 1]] >> 4 & 15) == A_STEP &&
		    (m->how[path[n - 1]] >> 8) == PC_READ)
			snprintf(a + strlen(a), sizeof(a) - strlen(a),
				 " (best %c)", slot_ch(m, s->s[m->how[path[n - 1]] & 15].best));
		fmt_state(m, s, b, sizeof(b));
		printf("#   %-52s %s\n", a, b);
	}
	fflush(stdout);
}

/* Exploration */

static void explore(struct model *m, unsigned int stop_at)
{
	struct state s0;
	size_t at, level_end = 1;
	int i;

	memset(&s0, 0, sizeof(s0));
	s0.word = CS_WORD_IDLE;
	for (i = 0; i < MODEL_SMT; i++) {
		struct sib *c = &s0.s[i];

		c->run = NONE;
		c->was = NONE;
		c->best = NONE;
		c->chosen = NONE;
		c->rq = NONE;
		c->local = NONE;
		c->rival = NONE;
		c->kept = NONE;
		c->cand[0] = c->cand[1] = c->cand[2] = NONE;
		c->kick = i < m->nr ? K_IDLE : 0;
		if (i < m->nr && i >= m->nr - m->busy) {
			c->run = m->slot[0];
			c->kick = 0;
			s0.word = cs_set_cur(cs_set_next(s0.word, i, c->run), i,
					     c->run);
		}
	}
	memcpy(s0.q, m->q0, sizeof(s0.q));
	add_state(m, &s0, 0, 0);

	for (at = 0; at < m->n; at++) {
		if (getenv("CS_MODEL_PROGRESS") && !(at % 1000000))
			fprintf(stderr, "%zu/%zu depth %d\n", at, m->n,
				m->depth);
		if (at == level_end) {
			m->depth++;
			level_end = m->n;
		}
		check(m, at);
		if (m->max_depth && m->depth >= m->max_depth) {
			m->truncated = true;
			continue;
		}
		for (i = 0; i < NR_KINDS; i++)
			if ((stop_at & 1 << i) && m->found[i])
				return;
		for (i = 0; i < m->nr; i++)
			step(m, at, i);
	}
}

static const char *mode_name(int mode)
{
	return mode == CS_MODE_FILL ? "fill" : "strict";
}

static void setup(struct model *m, int nr, int mode, unsigned int bugs)
{
	static const __u16 strict_slots[] = { 1, 2, 3 }, fill_slots[] = { 0, 1, 2 };

	memset(m, 0, sizeof(*m));
	m->nr = nr;
	m->mode = mode;
	m->bugs = bugs;
	memcpy(m->slot, mode == CS_MODE_FILL ? fill_slots : strict_slots,
	       sizeof(m->slot));
	m->q0[0] = 1;
	m->q0[1] = 1;
	m->q0[2] = 1;
	m->max_expires = 1;
	m->max_imposes = 1;
	m->max_active = nr;
	m->max_depth = nr == 2 ? 26 : 12;
	if (getenv("CS_MODEL_BOUNDS")) /* "A,B,C,expiries,intrusions" */
		sscanf(getenv("CS_MODEL_BOUNDS"), "%hhu,%hhu,%hhu,%d,%d,%d,%d,%d",
		       &m->q0[0], &m->q0[1], &m->q0[2], &m->max_expires,
		       &m->max_imposes, &m->busy, &m->max_active,
		       &m->max_depth);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * The unseeded protocol: explore everything, print the counts, and fail
 * on a violation of one of the @kinds with its shortest trace.
 */
static bool check_protocol(int nr, int mode, unsigned int kinds)
{
	struct model m;
	double t = now();
	int k;

	setup(&m, nr, mode, 0);
	explore(&m, 0);
	t = now() - t;
	if (kinds & 1 << V_ISOLATION)
		printf("# model %d siblings %s: %zu states, %zu quiescent, "
		       "depth %d; %zu failed CAS, %zu transit and %zu stable "
		       "verdicts, %zu kick wakeups, %zu intrusions; %.1f s\n",
		       nr, mode_name(mode), m.n, m.quiescent, m.depth,
		       m.cas_fail, m.transit, m.stable, m.woken, m.imposed, t);
	fflush(stdout);
	for (k = 0; k < NR_KINDS; k++) {
		if (!(kinds & 1 << k) || !m.found[k])
			continue;
		printf("# %d siblings %s, shortest interleaving to%s: %s\n",
		       nr, mode_name(mode),
		       k == V_IDLE_BESIDE_WORK ? " (a delay, measured)" : "",
		       m.why[k]);
		print_trace(&m, m.found[k] - 1);
	}
	fflush(stdout);
	/*
	 * Idle beside work is reported as a measurement, not a failure: in
	 * every trace found so far another sibling still runs (a task of ours
	 * until its slice ends, or a foreign task until it ends) and its next
	 * dispatch releases or changes the claim, which kicks; the model does
	 * not bound those events, so it cannot tell a delay from a loss. A lost
	 * kick (a forced CPU whose claim would now succeed) is a failure.
	 */
	for (k = 0; k < NR_KINDS; k++)
		CHECK(k == V_IDLE_BESIDE_WORK || !(kinds & 1 << k) || !m.found[k],
		      "%s (trace above)", m.why[k]);
	CHECK(m.cas_fail && m.transit && m.stable && m.woken && m.imposed,
	      "a race was not exercised: %zu failed CAS, %zu transit, "
	      "%zu stable, %zu wakeups, %zu intrusions",
	      m.cas_fail, m.transit, m.stable, m.woken, m.imposed);
	free_model(&m);
	return true;
}

#define ALL ((1 << NR_KINDS) - 1)

/*
 * A seeded bug must be reported, with a violation of the @kind expected.
 * The unseeded model already idles forced after a yield (see the report
 * of model_2_strict), so seeded runs never yield, and for a lost kick the
 * same model without the seed must be clean.
 */
static bool check_catches(unsigned int bug, int kind)
{
	struct model m;
	int nr;

	if (kind == V_LOST_KICK) {
		setup(&m, 2, CS_MODE_STRICT, 0);
		m.no_yield = true;
		explore(&m, 1 << kind);
		if (m.found[kind])
			print_trace(&m, m.found[kind] - 1);
		CHECK(!m.found[kind], "control run without the seed: %.300s",
		      m.why[kind]);
		free_model(&m);
	}
	for (nr = 2; nr <= 4; nr += 2) {
		setup(&m, nr, CS_MODE_STRICT, bug);
		m.no_yield = true;
		explore(&m, 1 << kind);
		if (m.found[kind])
			break;
		free_model(&m);
	}
	CHECK(nr <= 4, "seeded bug %#x: no %s violation reported", bug,
	      kind_name[kind]);
	printf("# seeded bug caught with %d siblings, %zu states: %s\n", m.nr,
	       m.n, m.why[kind]);
	if (getenv("CS_MODEL_TRACE"))
		print_trace(&m, m.found[kind] - 1);
	fflush(stdout);
	free_model(&m);
	return true;
}

static bool test_model_2_strict(void)
{
	return check_protocol(2, CS_MODE_STRICT, ALL);
}

static bool test_model_2_fill(void)
{
	return check_protocol(2, CS_MODE_FILL, ALL);
}

static bool test_model_4_strict(void)
{
	return check_protocol(4, CS_MODE_STRICT, ALL);
}

static bool test_model_4_fill(void)
{
	return check_protocol(4, CS_MODE_FILL, ALL);
}

static bool test_model_catches_commit_at_decision(void)
{
	return check_catches(BUG_COMMIT_AT_DECISION, V_ISOLATION);
}

/*
 * The release kick alone is covered by the commit's: a CPU that drops its
 * claim at the end of dispatch goes idle, and its commit leaves the cookie
 * too. Without both, a sibling waiting on that cookie is lost.
 */
static bool test_model_catches_lost_release_kick(void)
{
	return check_catches(BUG_NO_RELEASE_KICK | BUG_NO_COMMIT_KICK,
			     V_LOST_KICK);
}

static bool test_model_catches_lost_kick(void)
{
	return check_catches(BUG_NO_KICK, V_LOST_KICK);
}

static bool test_model_catches_claim_ignoring_cur(void)
{
	return check_catches(BUG_CLAIM_IGNORES_CUR, V_ISOLATION);
}

static bool test_model_catches_intruder_dropping_claim(void)
{
	return check_catches(BUG_INTRUDER_DROPS_CLAIM, V_ISOLATION);
}

/*
 * The rt task's cookie left as the claim after its commit while the task
 * it preempted stays on the local DSQ (being migrated, then left here by
 * the stopper): a sibling starts a cookie that task conflicts with, and it
 * runs beside it (soak_stress, twice, in TCG guests).
 */
static bool test_model_catches_release_dropping_local_claim(void)
{
	return check_catches(BUG_RELEASE_DROPS_LOCAL, V_ISOLATION);
}

/*
 * A claim that finds a sibling in transit waits with its forced flag set,
 * and is woken by that sibling's commit (or unclaim): without the commit's
 * kick, it sleeps beside work it may run.
 */
static bool test_model_catches_lost_commit_kick(void)
{
	return check_catches(BUG_NO_COMMIT_KICK, V_LOST_KICK);
}

/* CS_MODEL_ONLY=substring runs only the tests whose name has it. */
#define RUN_IF(name)							\
	do {								\
		if (!getenv("CS_MODEL_ONLY") ||				\
		    strstr(#name, getenv("CS_MODEL_ONLY")))		\
			RUN(name);					\
	} while (0)

int main(void)
{
	RUN_IF(model_2_strict);
	RUN_IF(model_2_fill);
	RUN_IF(model_4_strict);
	RUN_IF(model_4_fill);
	RUN_IF(model_catches_commit_at_decision);
	RUN_IF(model_catches_lost_release_kick);
	RUN_IF(model_catches_lost_kick);
	RUN_IF(model_catches_claim_ignoring_cur);
	RUN_IF(model_catches_intruder_dropping_claim);
	RUN_IF(model_catches_lost_commit_kick);
	RUN_IF(model_catches_release_dropping_local_claim);
	return nr_failed ? 1 : 0;
}
