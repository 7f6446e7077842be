/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small helpers shared by scx_coresched, coreschedctl and
 * coresched-observe: sched_ext state, pinned tag maps, cgroup ids.
 */
#ifndef __CS_COMMON_H
#define __CS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define CS_SCX_SYSFS "/sys/kernel/sched_ext"
#define CS_CGROUP_ROOT "/sys/fs/cgroup"

/* The first line of file @path, without its newline; false if unreadable. */
bool cs_read_line(const char *path, char *buf, size_t len);

/* Format a message into @err (of @len bytes) and return -1. */
__attribute__((format(printf, 3, 4))) int cs_fail(char *err, size_t len,
						  const char *fmt, ...);

/* Read /sys/kernel/sched_ext/state into @buf; false if sched_ext is absent. */
bool cs_scx_state(char *buf, size_t len);
/* Name of the loaded sched_ext scheduler into @buf; false if none. */
bool cs_scx_ops(char *buf, size_t len);
/* True if scx_coresched is the enabled sched_ext scheduler. */
bool cs_scheduler_running(void);

/* Open a map pinned under CS_PIN_DIR by name; -errno on failure. */
int cs_open_pinned_map(const char *name);
/* Atomically bump the tag generation in the pinned cs_ctl map. */
int cs_bump_tag_gen(int ctl_fd);

/*
 * Resolve a cgroup v2 directory to its id. Returns 0, or -ENOENT (no such
 * path), -ENOTDIR (not a directory), -EMEDIUMTYPE (not on cgroup2).
 */
int cs_cgroup_id(const char *path, __u64 *id);
/* Find the path of cgroup @id below CS_CGROUP_ROOT; false if not found. */
bool cs_cgroup_path(__u64 id, char *buf, size_t len);

/*
 * Does cgroup @id still exist? 1 yes, 0 no, -errno if it cannot be told
 * (open_by_handle_at() needs CAP_DAC_READ_SEARCH; without file handle
 * support in the kernel, the cgroup tree is walked instead).
 */
int cs_cgroup_exists(__u64 id);

/* Monotonic time in ns. */
__u64 cs_now_ns(void);

#endif /* __CS_COMMON_H */
