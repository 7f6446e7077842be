/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libcoresched: give tasks and cgroups core scheduling cookies.
 *
 * Tasks with different cookies never run at the same time on the SMT
 * siblings of one core. A task's cookie is its own task cookie if it has
 * one, else the cookie of its nearest tagged cgroup ancestor (itself
 * included), else 0 (untagged).
 *
 * Today the only backend is scx_coresched: the library writes the tag maps
 * that the scheduler pins under CS_PIN_DIR (see coresched.h) and bumps the
 * tag generation after every change. The scheduler resolves a task's
 * cookie from the maps whenever it queues the task and at every tick.
 *
 * Conventions, kept as the API grows (get/new/copy of task cookies for a
 * thread, thread group or process group; a fallback to the kernel's own
 * core scheduling, prctl(PR_SCHED_CORE), as a second backend):
 *
 *  - A handle, struct cs_lib, is opened once and passed to every call.
 *    The caller owns its memory; cs_lib_open() initializes every field.
 *  - Every call returns 0 or a negative errno. On error it also writes a
 *    one-line message into the buffer given to cs_lib_open(), naming the
 *    input and saying what to do; the buffer is untouched on success.
 *  - A call that fails changes nothing: a tag it wrote is removed again.
 *  - Cookies are __u64. A cgroup cookie is CS_COOKIE_CGROUP | cgroup id;
 *    a task cookie has bit 63 clear and is never 0.
 *  - Thread and process ids are those of the initial PID namespace (the
 *    scheduler keys its task tags by them); cgroup paths are looked up
 *    under CS_CGROUP_ROOT.
 *
 * The library is not thread safe per handle: use one handle per thread,
 * or serialize the calls.
 */
#ifndef __LIBCORESCHED_H
#define __LIBCORESCHED_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

enum cs_backend {
	CS_BACKEND_NONE = 0, /* not open */
	CS_BACKEND_SCX = 1, /* scx_coresched's pinned tag maps */
};

struct cs_lib {
	enum cs_backend backend;
	int task_fd; /* cs_task_tag: tid -> struct cs_tag */
	int cgrp_fd; /* cs_cgrp_tag: cgroup id -> struct cs_tag */
	int ctl_fd; /* cs_ctl: tag generation */
	char *err; /* error messages go here (may be NULL) */
	size_t errlen;
};

/*
 * Open the tag maps of the running scx_coresched. Fails, with a message,
 * if the kernel has no sched_ext, scx_coresched is not the loaded
 * scheduler, its maps are not pinned or the caller may not open them
 * (root, or CAP_BPF with access to CS_PIN_DIR, is needed). @err (of
 * @errlen bytes, may be NULL) receives the messages of this and every
 * later call on @lib.
 */
int cs_lib_open(struct cs_lib *lib, char *err, size_t errlen);
/* Close the maps. Safe on a handle whose open failed, and twice. */
void cs_lib_close(struct cs_lib *lib);

/*
 * Give the cgroup v2 directory @path (absolute or relative to the current
 * directory) the cookie CS_COOKIE_CGROUP | its cgroup id, stored in
 * *@cookie. All tasks in it and in its descendants without a task cookie
 * or a nearer tagged cgroup get that cookie. Tagging a tagged cgroup again
 * is not an error.
 */
int cs_tag_cgroup(struct cs_lib *lib, const char *path, __u64 *cookie);
/* Remove the tag of cgroup @path; -ENOENT if it has none. */
int cs_untag_cgroup(struct cs_lib *lib, const char *path);

/*
 * Give the calling thread a fresh random task cookie, stored in *@cookie,
 * replacing any cookie it had. Threads and children it creates afterwards
 * inherit it; its other threads keep theirs. The thread yields the CPU
 * before returning, so it runs on with the new cookie.
 */
int cs_new_cookie_self(struct cs_lib *lib, __u64 *cookie);

/*
 * Store in *@cookie the cookie that scx_coresched gives thread @tid (a
 * process id names its main thread): 0 for a kernel thread, else its task
 * cookie, else the cookie of the nearest tagged cgroup among its own and
 * its CS_MAX_CGRP_DEPTH - 1 nearest ancestors, else 0. -ESRCH if there is
 * no such thread.
 */
int cs_get_cookie(struct cs_lib *lib, pid_t tid, __u64 *cookie);

#endif /* __LIBCORESCHED_H */
