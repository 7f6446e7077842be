/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scx_coresched: definitions shared by the BPF side and user space.
 *
 * Tagging (which trust domain a task belongs to) lives in three maps that
 * the scheduler pins in bpffs under CS_PIN_DIR, so that coreschedctl and
 * the isolation observer can read and write them without talking to the
 * scheduler process:
 *
 *   cs_task_tag  tid     -> struct cs_tag   per-task cookie (inherited on fork)
 *   cs_cgrp_tag  cgid    -> struct cs_tag   cgroup cookie (inherited by descendants)
 *   cs_ctl       0       -> struct cs_ctl   tag generation, bumped on every change
 *                                           (for tools that watch the tags)
 *
 * A task's cookie is its cs_task_tag entry if it has one, else the tag of
 * its nearest tagged cgroup ancestor (itself included), else 0 (untagged).
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
#define CS_MAX_TASK_TAGS 65536
#define CS_MAX_CGRP_TAGS 4096
#define CS_MAX_CGRP_DEPTH 16

/* Cookies. Bit 63 set: cgroup cookie, low bits are the cgroup id. */
#define CS_COOKIE_CGROUP (1ULL << 63)

struct cs_tag {
	__u64 cookie;
};

struct cs_ctl {
	__u64 tag_gen; /* bumped (atomically) after every tag change */
};

/* Isolation modes (--mode). */
enum cs_mode {
	CS_MODE_STRICT = 0, /* only equal cookies share a core */
	CS_MODE_FILL = 1, /* also: untagged (cookie 0) work may share with any cookie */
	CS_MODE_NONE = 2, /* no isolation: the plain scheduler, for comparison */
};

#endif /* __CORESCHED_H */
