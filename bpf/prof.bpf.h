/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Section profile (part of coresched.bpf.c, included once there): built
 * only with -DCS_PROF (make prof, for bench/profile), compiled out
 * otherwise. A callback starts a clock (PROF_START) and marks the end of
 * each section (PROF_MARK): the time since the last mark is added to that
 * section's prof_ns[] and its prof_cnt[] counted (PROF_SKIP: to none).
 * The clock is read again after the two adds, so the profile's own
 * atomics are not charged to the next section; each mark still costs two
 * clock reads (section CS_PROF_EMPTY measures one mark with nothing
 * before it).
 *
 * Example, cs_tick: PROF_START; charge(); PROF_MARK(CS_PROF_TICK_CHARGE)
 * adds the ns charge() took to prof_ns[CS_PROF_TICK_CHARGE]. A tick that
 * returns early marks only the sections it ran through, so each section
 * has its own count: ns / count is the cost per pass, ns / run time the
 * share of the CPU. bench/profile_report.py reads the section names
 * (enum cs_prof_sec, include/cs_prof.h) from the object's BTF.
 */
#ifndef __CS_PROF_BPF_H
#define __CS_PROF_BPF_H

#ifdef CS_PROF
#include "cs_prof.h"

enum cs_prof_sec prof_last; /* keeps the enum in the object's BTF */
u64 prof_ns[CS_PROF_NR], prof_cnt[CS_PROF_NR];

static __always_inline void cs_prof_mark(enum cs_prof_sec sec, u64 *t)
{
	u64 now = bpf_ktime_get_ns();

	__sync_fetch_and_add(&prof_ns[sec], now - *t);
	__sync_fetch_and_add(&prof_cnt[sec], 1);
	*t = bpf_ktime_get_ns();
}

#define PROF_START() u64 __prof_t = bpf_ktime_get_ns()
#define PROF_MARK(sec) cs_prof_mark(sec, &__prof_t)
#define PROF_SKIP() (__prof_t = bpf_ktime_get_ns()) /* charge nobody */
#else
#define PROF_START()
#define PROF_MARK(sec)
#define PROF_SKIP()
#endif

#endif /* __CS_PROF_BPF_H */
