/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libcoresched: core scheduling cookies for tasks and cgroups.
 *
 * Tasks with different cookies never run at the same time on the SMT
 * siblings of one core; cookie 0 means "no cookie".
 *
 * Task cookies: the task calls are thin, checked wrappers around
 * prctl(PR_SCHED_CORE, ...), the interface of util-linux coresched(1) and
 * cloud-hypervisor. prctl is served by the kernel's own core scheduling
 * (CONFIG_SCHED_CORE), or, while scx_coresched's tagging programs are
 * installed, by scx_coresched with the same semantics: the same commands
 * and scopes, the same errno values, the same permission rule (the caller
 * must be allowed to ptrace every target task, PTRACE_MODE_READ_REALCREDS:
 * the same user, or CAP_SYS_PTRACE), cookies inherited by fork and clone
 * and kept across exec. They need no handle.
 *
 * Cgroup cookies exist only under scx_coresched: a cgroup v2 directory can
 * be tagged, and every task in it or below it that has no task cookie of
 * its own (and no nearer tagged cgroup) gets that cookie. The cgroup calls
 * write the tag maps that scx_coresched pins under CS_PIN_DIR, through a
 * handle (struct cs_cgroups) that holds the map file descriptors.
 *
 * Without root: the pinned maps are root's. When a caller other than root
 * may not open them, cs_cgroups_open() falls back to asking the running
 * scx_coresched through its control socket, /run/scx_coresched/ctl.sock,
 * and every cgroup call on that handle becomes one request. scx_coresched
 * then lets the caller (the uid the kernel reports for the socket) tag,
 * untag and share only cgroups delegated to it: the uid owns the cgroup
 * directory AND its cgroup.procs file, as systemd's Delegate=yes (or a
 * chown by root) leaves them; cgroups the user makes inside such a cgroup
 * are delegated too. For share, both cgroups must be delegated. Paths
 * must be the real path below /sys/fs/cgroup: symbolic links and '..' are
 * refused (relative paths are taken from the current directory). Anyone
 * may get and list. A refusal changes nothing, and its message says why,
 * e.g. "permission denied: cgroup PATH is not delegated to you (owner uid
 * 0, you are uid 1000); ...". scx_coresched also bounds what one user may
 * do: requests of at most 4096 bytes, 2 s per request, a few connections
 * and about 20 changes per second per uid, and a quarter of the tag map
 * kept for root.
 *
 * A task's effective cookie under scx_coresched is its task cookie if
 * non-zero, else the cookie of its nearest tagged cgroup ancestor (at
 * most CS_MAX_CGRP_DEPTH levels up), else 0. CS_COOKIE_LOST is a trust
 * domain nobody knows (a child that lost its cookie at fork, or a cgroup
 * deeper than CS_MAX_CGRP_DEPTH with none of those levels tagged): its
 * tasks run alone on their cores.
 *
 * Conventions:
 *  - Every call returns 0 or a negative errno; task calls return the
 *    errno values of prctl(PR_SCHED_CORE) (see cs_get()).
 *  - On failure, cs_errmsg() returns a one-line message that names the
 *    input (PID, path) and says what to do.
 *  - A failed call changes nothing: for the thread-group and
 *    process-group scopes the kernel (or scx_coresched) checks permission
 *    on every target before it changes any.
 *  - Cookies are opaque __u64 values. A cgroup's own cookie is
 *    CS_COOKIE_CGROUP | its cgroup id (see coresched.h).
 *  - PIDs are those of the caller's PID namespace; 0 names the calling
 *    thread. Cgroup paths are absolute or relative to the current
 *    directory.
 *
 * Thread safety: the task calls and cs_errmsg() are thread safe (the
 * message is kept per thread). A struct cs_cgroups handle must not be used
 * by two threads at the same time; use one handle per thread or serialize.
 */
#ifndef __LIBCORESCHED_H
#define __LIBCORESCHED_H

#include <sys/types.h>
#include <linux/types.h>

/* As in coresched.h, token for token, so a program may include both. */
#define CS_COOKIE_LOST 1ULL
#define CS_MAX_CGRP_DEPTH 64

#ifndef CS_API
#define CS_API __attribute__((visibility("default")))
#endif

/* Scopes of a change, as PR_SCHED_CORE_SCOPE_* (and PIDTYPE_*). */
enum cs_scope {
	CS_SCOPE_THREAD = 0, /* the one thread named */
	CS_SCOPE_THREAD_GROUP = 1, /* every thread of its process */
	CS_SCOPE_PROCESS_GROUP = 2, /* every thread of its process group */
};

/**
 * @brief The message of the last failed libcoresched call in this thread.
 * @return a NUL-terminated line without a newline ("" if no call failed);
 * valid until the next libcoresched call in this thread.
 *
 * Thread safe: every thread has its own message.
 */
CS_API const char *cs_errmsg(void);

/**
 * @brief Whether prctl(PR_SCHED_CORE) works here.
 * @return 0 if it does; -EINVAL if the kernel has no core scheduling
 * (no CONFIG_SCHED_CORE, no scx_coresched tagging); -ENODEV if the
 * system has no SMT (or SMT is off); another -errno otherwise.
 *
 * Thread safe.
 */
CS_API int cs_supported(void);

/**
 * @brief Read the task cookie of thread @pid (PR_SCHED_CORE_GET).
 * @param pid a thread or process ID (a process ID names its main thread);
 * 0 for the calling thread
 * @param cookie receives the cookie, 0 if the thread has none
 * @return 0; -ESRCH if there is no such task; -EPERM if the caller may not
 * ptrace it; -EINVAL if the kernel has no core scheduling or @pid < 0;
 * -ENODEV without SMT; -EFAULT if @cookie is not writable
 *
 * Needs no privilege beyond ptrace read access to the task. Thread safe.
 */
CS_API int cs_get(pid_t pid, __u64 *cookie);

/**
 * @brief Give @pid (and, with a wider @scope, its thread group or process
 * group) a new cookie of its own (PR_SCHED_CORE_CREATE).
 * @param pid a thread or process ID; 0 for the calling thread
 * @param scope which tasks get the cookie
 * @return 0; -ESRCH, -EPERM (on any target of @scope: then none changed),
 * -EINVAL (bad @scope, no core scheduling), -ENODEV, -ENOMEM
 *
 * Thread safe.
 */
CS_API int cs_create(pid_t pid, enum cs_scope scope);

/**
 * @brief Give @pid (and @scope) the calling thread's cookie
 * (PR_SCHED_CORE_SHARE_TO). If the caller has no cookie, the targets lose
 * theirs.
 * @param pid a thread or process ID; 0 for the calling thread
 * @param scope which tasks get the cookie
 * @return as cs_create()
 *
 * Thread safe.
 */
CS_API int cs_share_to(pid_t pid, enum cs_scope scope);

/**
 * @brief Give the calling thread the cookie of thread @pid
 * (PR_SCHED_CORE_SHARE_FROM); only the calling thread changes.
 * @param pid a thread or process ID
 * @return 0; -ESRCH, -EPERM, -EINVAL, -ENODEV
 *
 * Thread safe.
 */
CS_API int cs_share_from(pid_t pid);

/**
 * @brief Take the cookie of @pid (and @scope) away: they get cookie 0.
 *
 * PR_SCHED_CORE has no "clear" command: this shares the cookie of a
 * context without a cookie. If the calling thread has none, it shares its
 * own; else a short-lived helper thread first takes the (zero) cookie of
 * a task without a cookie that the caller may ptrace (the first found in
 * /proc), checks that it got 0, and shares that. The calling thread's
 * cookie does not change.
 * @param pid a thread or process ID; 0 for the calling thread (which
 * then loses its cookie)
 * @param scope which tasks lose their cookie
 * @return as cs_create(); also -EPERM if the caller has a cookie and may
 * trace no task without one (run it from a context without a cookie, or
 * as root)
 *
 * Thread safe. Starts (and joins) a thread when the caller has a cookie.
 */
CS_API int cs_clear(pid_t pid, enum cs_scope scope);

/*
 * Pidfd variants: the same calls on the process that @pidfd (from
 * pidfd_open() or clone(CLONE_PIDFD)) refers to. They resolve the pidfd
 * to a PID (the "Pid:" line of /proc/self/fdinfo/@pidfd), make the call
 * on that PID, then check that the pidfd still refers to a live process
 * with that PID. While it does, the PID cannot have been reused, so a
 * success means the call reached the pidfd's process.
 *
 * The race that remains: if the process dies, is reaped and its PID is
 * reused by a new task between the resolution and the prctl, the prctl
 * acts on the new task. The check afterwards then fails with -ESRCH, but
 * the change to the other task (which the caller may ptrace, or the
 * prctl would have failed) cannot be undone. Keep the target from being
 * reaped (be its parent, do not wait for it) to exclude this.
 *
 * Extra errors: -EBADF if @pidfd is not a pidfd; -ESRCH if its process
 * has exited or is not visible in the caller's PID namespace.
 * Thread safe.
 */

/** @brief cs_get() on the process of @pidfd (its main thread). */
CS_API int cs_get_pidfd(int pidfd, __u64 *cookie);
/** @brief cs_create() on the process of @pidfd. */
CS_API int cs_create_pidfd(int pidfd, enum cs_scope scope);
/** @brief cs_share_to() on the process of @pidfd. */
CS_API int cs_share_to_pidfd(int pidfd, enum cs_scope scope);
/** @brief cs_share_from() the process of @pidfd (its main thread). */
CS_API int cs_share_from_pidfd(int pidfd);
/** @brief cs_clear() on the process of @pidfd. */
CS_API int cs_clear_pidfd(int pidfd, enum cs_scope scope);

/* Cgroup cookies (scx_coresched only). */

/* Opaque: the open tag maps of scx_coresched. */
struct cs_cgroups;

/**
 * @brief Open scx_coresched's cgroup tag maps.
 * @param out receives the handle; untouched on failure
 * @return 0; -EOPNOTSUPP if the kernel has no sched_ext; -ESRCH if
 * scx_coresched is not the running scheduler (cgroup cookies would have no
 * effect); -EAGAIN while it is starting; -ENOENT if the maps are not
 * pinned; -EPROTO if their layout is not the one this library was built
 * for. Without the right to open the pinned maps (root, or CAP_BPF with
 * access to CS_PIN_DIR), a caller other than root gets a handle that
 * talks to scx_coresched's control socket (see the top of this file), or
 * -EACCES if it serves none.
 *
 * On a socket handle, the cgroup calls may also fail with -EACCES (the
 * cgroup is not delegated to the caller, or the path has a symbolic link
 * or '..' or is not below /sys/fs/cgroup), -EAGAIN (too many requests:
 * retry), -ENOSPC (the rest of the tag map is kept for root), -E2BIG,
 * -ETIMEDOUT (no answer), -EPROTO (a reply this library does not
 * understand).
 *
 * Thread safe (the handle it returns is not: see the top of this file).
 */
CS_API int cs_cgroups_open(struct cs_cgroups **out);

/** @brief Close the maps and free @h; NULL is ignored. */
CS_API void cs_cgroups_close(struct cs_cgroups *h);

/**
 * @brief Tag cgroup @path with its own cookie, CS_COOKIE_CGROUP | its id.
 * Tagging it again (even if it shared another cgroup's cookie) gives it
 * its own cookie back.
 * @param h an open handle
 * @param path a cgroup v2 directory
 * @param cookie receives the cookie (may be NULL)
 * @return 0; -ENOENT (no such path), -ENOTDIR (not a directory),
 * -EMEDIUMTYPE (not a cgroup v2 directory), -E2BIG (map full), another
 * -errno from the map
 */
CS_API int cs_cgroup_tag(struct cs_cgroups *h, const char *path,
			 __u64 *cookie);

/**
 * @brief Remove the tag of cgroup @path.
 * @return 0; -ENODATA if it has none; else as cs_cgroup_tag()
 */
CS_API int cs_cgroup_untag(struct cs_cgroups *h, const char *path);

/**
 * @brief The cookie the tasks without a task cookie in cgroup @path get:
 * its own tag, else its nearest tagged ancestor's (as the scheduler
 * looks, at most CS_MAX_CGRP_DEPTH levels), else 0; CS_COOKIE_LOST (runs
 * alone) if none of those levels is tagged and the root is further up.
 * @param cookie receives the cookie
 * @param from_id receives the id of the cgroup that holds the tag (0 if
 * none); may be NULL
 * @return 0 or as cs_cgroup_tag()
 */
CS_API int cs_cgroup_get(struct cs_cgroups *h, const char *path,
			 __u64 *cookie, __u64 *from_id);

/**
 * @brief Give cgroup @dst the cookie of cgroup @src (as cs_cgroup_get()
 * finds it), so that their tasks may share cores.
 * @param cookie receives the cookie (may be NULL)
 * @return 0; -ENODATA if @src has no cookie (tag it first); else as
 * cs_cgroup_tag()
 */
CS_API int cs_cgroup_share(struct cs_cgroups *h, const char *src,
			   const char *dst, __u64 *cookie);

/**
 * @brief Call @fn for every tagged cgroup, with its id and cookie, until
 * it returns non-zero (which is returned).
 * @return 0, @fn's non-zero value, or a -errno from the map
 */
CS_API int cs_cgroup_foreach(struct cs_cgroups *h,
			     int (*fn)(__u64 cgid, __u64 cookie, void *ctx),
			     void *ctx);

#endif /* __LIBCORESCHED_H */
