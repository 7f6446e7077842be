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
 *
 * A task's cookie is its per-task cookie if it has one, else the tag of its
 * nearest tagged cgroup ancestor (itself included), else 0 (untagged).
 * The scheduler resolves it whenever it queues the task and at every tick.
 */
#ifndef __CORESCHED_H
#define __CORESCHED_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define CS_PIN_DIR "/sys/fs/bpf/scx_coresched"
#define CS_OPS_NAME "coresched"

#define CS_MAX_CPUS 64
#define CS_MAX_SMT 4
#define CS_MAX_CGRP_TAGS 4096
#define CS_MAX_CGRP_DEPTH 16
#define CS_MAX_FORK_ORPHANS 4096 /* children awaiting their cookie */

/* Cookies. Bit 63 set: cgroup cookie, low bits are the cgroup id. */
#define CS_COOKIE_CGROUP (1ULL << 63)

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
#define CS_LINK_PRCTL "link_prctl" /* prctl(PR_SCHED_CORE) handler */
#define CS_LINK_FORK "link_fork" /* cookie inheritance on fork/clone */
#define CS_LINK_BACKSTOP "link_backstop" /* refuses prctls the handler missed */
#define CS_LINK_RMDIR "link_rmdir" /* a removed cgroup loses its tag */

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
	__u64 lost; /* children that could not even be recorded: they may
		     * run untagged (the loader says so at start) */
};

/* prctl() option no kernel has: the loader's probe that BPF LSM runs. */
#define CS_LSM_PROBE 0x53435850 /* "SCXP" */

/* Isolation modes (--mode). */
enum cs_mode {
	CS_MODE_STRICT = 0, /* only equal cookies share a core */
	CS_MODE_FILL = 1, /* also: untagged (cookie 0) work may share with any cookie */
	CS_MODE_NONE = 2, /* no isolation: the plain scheduler, for comparison */
};

#endif /* __CORESCHED_H */
