/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scx_coresched: definitions shared by the BPF side and user space.
 *
 * Tagging (which trust domain a task belongs to) lives in maps pinned in
 * bpffs under CS_PIN_DIR, owned by the tagging programs (bpf/tagging.bpf.c),
 * not by the scheduler: they outlive any one scheduler process, so a
 * restart, a crash or an ejection loses no tag.
 *
 *   cs_task_cookie  task storage     -> struct cs_tag  per-task cookie, kept
 *                                       with the task (no PID reuse), set
 *                                       through prctl(PR_SCHED_CORE),
 *                                       inherited on fork and clone
 *   cs_cgrp_tag     cgroup id (u64)  -> struct cs_tag  cgroup cookie
 *                                       (inherited by descendants)
 *   cs_ctl          0                -> struct cs_ctl  tag generation
 *   cs_tag_seq      0                -> the per-task cookie counter (BPF only)
 *   cs_fork_orphan  tid (u32)        -> struct cs_orphan  children that could
 *                                       not inherit their parent's cookie at
 *                                       fork (no BPF LSM: see tagging.bpf.c);
 *                                       the scheduler gives it to them
 *   cs_fork_stat    0                -> struct cs_fork_stat (BPF only)
 *   cs_fork_lost    tid / 64         -> u64, bit tid % 64: a child that
 *                                       could not even be recorded there
 *                                       (and its children): cookie
 *                                       CS_COOKIE_LOST
 *
 * A task's cookie is its per-task cookie if it has one (stored, else
 * recorded in cs_fork_orphan, else CS_COOKIE_LOST if marked lost), else
 * the tag of its nearest tagged cgroup ancestor (itself included), else 0
 * (untagged).
 * The scheduler resolves it whenever it queues the task and at every tick.
 */
#ifndef __CORESCHED_H
#define __CORESCHED_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define CS_PIN_DIR "/sys/fs/bpf/scx_coresched"
#define CS_OPS_NAME "coresched"

#define CS_MAX_CPUS 512 /* a power of two: BPF indexes are masked with it */
#define CS_MAX_SMT 8 /* siblings per core, as many as a core word holds */
#define CS_MAX_CGRP_TAGS 4096
/*
 * Levels of cgroup nesting searched for a tag, from a task's own cgroup
 * up: a cgroup deeper than this whose nearest levels hold no tag gets
 * CS_COOKIE_LOST (runs alone), since a tag may lie above them.
 */
#define CS_MAX_CGRP_DEPTH 64
/* Cgroup levels the BPF side indexes or walks; deeper: CS_COOKIE_LOST at once */
#define CS_CGRP_LEVEL_MASK 0xffff
#define CS_MAX_FORK_ORPHANS 4096 /* children awaiting their cookie */
#define CS_PID_MAX_LIMIT 4194304 /* the kernel's PID_MAX_LIMIT: tids are below */

/* Cookies. Bit 63 set: cgroup cookie, low bits are the cgroup id. */
#define CS_COOKIE_CGROUP (1ULL << 63)

/*
 * The cookie of a child whose parent's cookie could not be handed down nor
 * recorded at fork (cs_fork_lost): its trust domain is unknown, so it
 * shares a core with nobody (the scheduler's CS_SLOT_EXCL) until it exits.
 * No cookie that CREATE hands out (below) and no cgroup cookie has this
 * value; SHARE_TO and SHARE_FROM pass it on like any other.
 */
#define CS_COOKIE_LOST 1ULL

/*
 * Per-task cookies (prctl CREATE) are written so that their hex form has
 * no two decimal digits in a row: 0x, one digit 1-7, then 15 of a-f. A
 * script that replaces a PID in a line holding a cookie (util-linux's
 * coresched tests do) then never hits the cookie. Cookie number n (from
 * 1) is k = n - 1; k / 6^15 picks the digit, (k + 1) * CS_COOKIE_MIX^2
 * modulo 6^15 (a bijection: the factor is prime to 6) the letters, so
 * cookies never repeat and do not count up visibly. Cookie number
 * CS_MAX_TASK_COOKIES + 1 and later are refused (ENOMEM): about 3.3e12,
 * 38 days of nothing but CREATE at a million a second.
 */
#define CS_COOKIE_LETTERS 15
#define CS_COOKIE_POW6 470184984576ULL /* 6^15 */
#define CS_COOKIE_MIX 10368889ULL /* 0x9e3779: prime to 6, < 2^24 */
#define CS_MAX_TASK_COOKIES (7 * CS_COOKIE_POW6)

/* Cookie number @n (1, 2, ...), or 0 past CS_MAX_TASK_COOKIES. */
static inline __u64 cs_task_cookie_make(__u64 n)
{
	__u64 k = n - 1, m, cookie;
	int i;

	if (n == 0 || n > CS_MAX_TASK_COOKIES)
		return 0;
	m = (k + 1) % CS_COOKIE_POW6;
	m = m * CS_COOKIE_MIX % CS_COOKIE_POW6; /* < 2^39 * 2^24: no overflow */
	m = m * CS_COOKIE_MIX % CS_COOKIE_POW6;
	cookie = 1 + k / CS_COOKIE_POW6;
	for (i = 0; i < CS_COOKIE_LETTERS; i++) {
		cookie = cookie << 4 | (0xa + m % 6);
		m /= 6;
	}
	return cookie;
}

struct cs_tag {
	__u64 cookie;
};

/* Map and link names under CS_PIN_DIR. */
#define CS_MAP_TASK "cs_task_cookie"
#define CS_MAP_CGRP "cs_cgrp_tag"
#define CS_MAP_CTL "cs_ctl"
#define CS_MAP_SEQ "cs_tag_seq"
#define CS_MAP_ORPHAN "cs_fork_orphan"
#define CS_MAP_FORK_STAT "cs_fork_stat"
#define CS_MAP_FORK_LOST "cs_fork_lost"
#define CS_LINK_PRCTL "link_prctl" /* prctl(PR_SCHED_CORE) handler */
#define CS_LINK_FORK "link_fork" /* cookie inheritance on fork/clone */
#define CS_LINK_BACKSTOP "link_backstop" /* refuses prctls the handler missed */
#define CS_LINK_RMDIR "link_rmdir" /* a removed cgroup loses its tag */
#define CS_LINK_EXEC "link_exec" /* fork records follow a de_thread() exec */

struct cs_ctl {
	__u64 tag_gen; /* bumped after every tag change */
};

/*
 * Written by BPF only (atomically): user space, which rewrites cs_ctl
 * whole, must never undo an increment here, or two tasks could get one
 * cookie. Pinned as CS_MAP_SEQ.
 */
struct cs_tag_seq {
	__u64 nr_cookies; /* per-task cookies handed out */
	__u64 inherit_failures; /* forks refused: no memory for the cookie */
};

/*
 * A child whose task storage could not be created at fork (only where the
 * fork cannot be failed instead: no BPF LSM). The scheduler gives it
 * @cookie when it first sees it (ops.init_task); @start_ns (the child's
 * task->start_time) tells a reused tid apart.
 */
struct cs_orphan {
	__u64 start_ns;
	__u64 cookie;
};

/* Written by BPF only. Pinned as CS_MAP_FORK_STAT. */
struct cs_fork_stat {
	__u64 orphans; /* children recorded in cs_fork_orphan */
	__u64 lost; /* children that could not even be recorded: marked in
		     * cs_fork_lost, they run alone (CS_COOKIE_LOST) */
};

/*
 * Fault injection for tests (SCX_CORESCHED_FAULT, read when the tagging
 * programs are installed): without BPF LSM, fork inheritance acts as if
 * the child's task storage could not be created (fork-storage), and also
 * as if cs_fork_orphan were full (fork-orphan).
 */
#define CS_FAULT_FORK_STORAGE (1U << 0)
#define CS_FAULT_FORK_ORPHAN (1U << 1)

/* prctl() option no kernel has: the loader's probe that BPF LSM runs. */
#define CS_LSM_PROBE 0x53435850 /* "SCXP" */

/* Isolation modes (--mode). */
enum cs_mode {
	CS_MODE_STRICT = 0, /* only equal cookies share a core */
	CS_MODE_FILL = 1, /* also: untagged (cookie 0) work may share with any cookie */
	CS_MODE_NONE = 2, /* no isolation: the plain scheduler, for comparison */
};

#endif /* __CORESCHED_H */
