/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sections of the scheduler's profile (bpf/prof.bpf.h, built with
 * make prof). Not timed: the dispatch's tries of its candidates beyond
 * their own sections (claim, move, rest) and the kicks between them.
 * Here so that the loader built with it knows the type of its skeleton's
 * prof_last; bench/profile_report.py reads the names from the object's
 * BTF.
 */
#ifndef __CS_PROF_H
#define __CS_PROF_H

enum cs_prof_sec {
	CS_PROF_EMPTY, /* a mark right after the start: the probe's cost */
	CS_PROF_TICK_CHARGE, /* charge() */
	CS_PROF_TICK_FLUSH, /* charge_flush() */
	CS_PROF_TICK_CHECKS, /* untagged guard, draining, unfenced commit */
	CS_PROF_TICK_COOKIE, /* task_cookie(): re-tagged? */
	CS_PROF_TICK_VERDICT, /* the claim verdict of its core word */
	CS_PROF_TICK_PICK, /* pick_best_but() */
	CS_PROF_TICK_HANDOVER, /* affinity, due_here(): a tick that got there */
	CS_PROF_DISP_START, /* draining, flag, prev's slot, the core word */
	CS_PROF_DISP_PICK, /* pick_best() and vnow */
	CS_PROF_DISP_AFFINITY, /* best_for_core() */
	CS_PROF_DISP_RIVAL, /* best_tagged(), sticky_rival() */
	CS_PROF_DISP_YIELD, /* cs_should_yield(), due_here(), preempt */
	CS_PROF_DISP_IDLE, /* a dispatch that found nothing: its idle path */
	CS_PROF_CLAIM, /* core_claim() in try_run() */
	CS_PROF_MOVE_LOCAL, /* move_local_first(): the look and local move */
	CS_PROF_MOVE_CONSUME, /* its consume of the head: a migration, or an
				 empty queue, or a task on this runqueue */
	CS_PROF_RUN_REST, /* try_run() after the move: kicks, counters */
	CS_PROF_NR,
};

#endif /* __CS_PROF_H */
