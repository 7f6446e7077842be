// SPDX-License-Identifier: GPL-2.0-only
/*
 * libcoresched: task cookies through prctl(PR_SCHED_CORE), cgroup cookies
 * through scx_coresched's pinned tag maps. See libcoresched.h.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "coresched.h"
#include "cs_common.h"
#include "cs_ctlsock.h"
#include "libcoresched.h"

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62
#define PR_SCHED_CORE_GET 0
#define PR_SCHED_CORE_CREATE 1
#define PR_SCHED_CORE_SHARE_TO 2
#define PR_SCHED_CORE_SHARE_FROM 3
#endif

#ifndef CS_MAP_CGRP
#define CS_MAP_CGRP "cs_cgrp_tag"
#endif
#ifndef CS_MAP_CTL
#define CS_MAP_CTL "cs_ctl"
#endif

static __thread char errmsg[768];

/* Set this thread's message and return -@err. */
__attribute__((format(printf, 2, 3))) static int fail(int err, const char *fmt,
						      ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	va_end(ap);
	return -err;
}

const char *cs_errmsg(void)
{
	return errmsg;
}

/* --- Task cookies: prctl(PR_SCHED_CORE) --------------------------------- */

static int sched_core(int cmd, pid_t pid, int scope, __u64 *cookie)
{
	if (prctl(PR_SCHED_CORE, (unsigned long)cmd, (unsigned long)pid,
		  (unsigned long)scope, (unsigned long)cookie))
		return -errno;
	return 0;
}

static const char *scope_what(int scope)
{
	switch (scope) {
	case CS_SCOPE_THREAD_GROUP:
		return "the process of ";
	case CS_SCOPE_PROCESS_GROUP:
		return "the tasks of the process group of ";
	default:
		return "";
	}
}

/*
 * The message for a failed PR_SCHED_CORE call: @what ("reading the cookie
 * of") is followed by the target.
 */
static int task_fail(int err, const char *what, pid_t pid, int scope)
{
	char target[96];

	if (pid)
		snprintf(target, sizeof(target), "%sPID %d", scope_what(scope),
			 (int)pid);
	else
		snprintf(target, sizeof(target), "%sthe calling thread",
			 scope_what(scope));

	switch (err) {
	case ESRCH:
		return fail(err,
			    "%s %s: no such process or thread; check the PID (ps -eLf lists threads)",
			    what, target);
	case EPERM:
		return fail(err,
			    "%s %s: permission denied; a cookie may only be read or changed by a user who may ptrace %s (the same user, or root with CAP_SYS_PTRACE); nothing was changed",
			    what, target,
			    scope == CS_SCOPE_THREAD ? "the task" :
						      "every task in the group");
	case ENODEV:
		return fail(err,
			    "%s %s: core scheduling needs SMT, and this system has none (or it is off: see /sys/devices/system/cpu/smt/control)",
			    what, target);
	case EINVAL:
		if (scope < CS_SCOPE_THREAD || scope > CS_SCOPE_PROCESS_GROUP)
			return fail(err,
				    "%s %s: invalid scope %d; use thread (0), thread group (1) or process group (2)",
				    what, target, scope);
		return fail(err,
			    "%s %s: core scheduling is not available: boot a kernel with CONFIG_SCHED_CORE=y, or start scx_coresched",
			    what, target);
	case ENOMEM:
		return fail(err, "%s %s: out of memory", what, target);
	default:
		return fail(err, "%s %s: %s", what, target, strerror(err));
	}
}

int cs_supported(void)
{
	__u64 cookie = 0;
	int err = sched_core(PR_SCHED_CORE_GET, 0, CS_SCOPE_THREAD, &cookie);

	if (err)
		return task_fail(-err, "checking core scheduling on", 0,
				 CS_SCOPE_THREAD);
	return 0;
}

static bool scope_ok(int scope)
{
	return scope >= CS_SCOPE_THREAD && scope <= CS_SCOPE_PROCESS_GROUP;
}

int cs_get(pid_t pid, __u64 *cookie)
{
	__u64 c = 0;
	int err;

	err = sched_core(PR_SCHED_CORE_GET, pid, CS_SCOPE_THREAD, &c);
	if (err)
		return task_fail(-err, "reading the cookie of", pid,
				 CS_SCOPE_THREAD);
	*cookie = c;
	return 0;
}

int cs_create(pid_t pid, enum cs_scope scope)
{
	int err;

	if (!scope_ok(scope))
		return task_fail(EINVAL, "creating a cookie for", pid, scope);
	err = sched_core(PR_SCHED_CORE_CREATE, pid, scope, NULL);
	return err ? task_fail(-err, "creating a cookie for", pid, scope) : 0;
}

int cs_share_to(pid_t pid, enum cs_scope scope)
{
	int err;

	if (!scope_ok(scope))
		return task_fail(EINVAL, "sharing the cookie with", pid, scope);
	err = sched_core(PR_SCHED_CORE_SHARE_TO, pid, scope, NULL);
	return err ? task_fail(-err, "sharing the cookie with", pid, scope) :
		     0;
}

int cs_share_from(pid_t pid)
{
	int err = sched_core(PR_SCHED_CORE_SHARE_FROM, pid, CS_SCOPE_THREAD,
			     NULL);

	return err ? task_fail(-err, "taking the cookie of", pid,
			       CS_SCOPE_THREAD) :
		     0;
}

/* cs_clear() from a thread with a cookie: a helper thread does the work. */
struct clear_job {
	pid_t pid;
	int scope;
	int err; /* result, -errno */
	char msg[sizeof(errmsg)];
};

/* Read "/proc/PATH" entries as numbers; false at the end. */
static bool next_id(DIR *dir, pid_t *id)
{
	struct dirent *de;
	char *end;
	long v;

	while ((de = readdir(dir))) {
		v = strtol(de->d_name, &end, 10);
		if (*end || end == de->d_name || v <= 0 || v > INT_MAX)
			continue;
		*id = (pid_t)v;
		return true;
	}
	return false;
}

/*
 * Take cookie 0 from the first task without a cookie that this thread may
 * trace: 0, or -ENOENT if there is none.
 */
static int take_zero_cookie(void)
{
	char path[64];
	DIR *procs, *tasks;
	pid_t pid, tid;
	__u64 c;
	int ret = -ENOENT;

	procs = opendir("/proc");
	if (!procs)
		return -errno;
	while (ret && next_id(procs, &pid)) {
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		tasks = opendir(path);
		if (!tasks)
			continue;
		while (ret && next_id(tasks, &tid)) {
			if (sched_core(PR_SCHED_CORE_GET, tid, 0, &c) || c)
				continue;
			/* It may have changed since: check what we got. */
			if (!sched_core(PR_SCHED_CORE_SHARE_FROM, tid, 0,
					NULL) &&
			    !sched_core(PR_SCHED_CORE_GET, 0, 0, &c) && !c)
				ret = 0;
		}
		closedir(tasks);
	}
	closedir(procs);
	return ret;
}

static void *clear_thread(void *arg)
{
	struct clear_job *job = arg;
	int err;

	err = take_zero_cookie();
	if (err == -ENOENT) {
		job->err = fail(
			EPERM,
			"clearing the cookie of %sPID %d: the caller has a cookie and may trace no task without one to take cookie 0 from; run this from a context without a cookie, or as root",
			scope_what(job->scope), (int)job->pid);
	} else if (err) {
		job->err = fail(-err,
				"clearing the cookie of %sPID %d: cannot list /proc: %s",
				scope_what(job->scope), (int)job->pid,
				strerror(-err));
	} else {
		err = sched_core(PR_SCHED_CORE_SHARE_TO, job->pid, job->scope,
				 NULL);
		job->err = err ? task_fail(-err, "clearing the cookie of",
					   job->pid, job->scope) :
				 0;
	}
	if (job->err)
		snprintf(job->msg, sizeof(job->msg), "%s", errmsg);
	return NULL;
}

int cs_clear(pid_t pid, enum cs_scope scope)
{
	struct clear_job job = { .scope = scope };
	pthread_t thread;
	__u64 own;
	int err;

	if (!scope_ok(scope))
		return task_fail(EINVAL, "clearing the cookie of", pid, scope);
	err = sched_core(PR_SCHED_CORE_GET, 0, 0, &own);
	if (err)
		return task_fail(-err, "clearing the cookie of", pid, scope);
	if (!own) {
		err = sched_core(PR_SCHED_CORE_SHARE_TO, pid, scope, NULL);
		return err ? task_fail(-err, "clearing the cookie of", pid,
				       scope) :
			     0;
	}
	/* PID 0 would name the helper: name the caller instead. */
	job.pid = pid ? pid : gettid();
	err = pthread_create(&thread, NULL, clear_thread, &job);
	if (err)
		return fail(err,
			    "clearing the cookie of %sPID %d: cannot start a helper thread: %s",
			    scope_what(scope), (int)job.pid, strerror(err));
	pthread_join(thread, NULL);
	if (job.err)
		snprintf(errmsg, sizeof(errmsg), "%s", job.msg);
	return job.err;
}

/* --- Pidfd variants ----------------------------------------------------- */

/* The PID that @pidfd refers to, from /proc/self/fdinfo. */
static int pidfd_pid(int pidfd, pid_t *pid)
{
	char path[64], line[128];
	bool found = false;
	FILE *f;
	int v = 0;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return fail(EBADF,
				    "file descriptor %d is not open; give a pidfd from pidfd_open()",
				    pidfd);
		return fail(errno, "cannot read %s: %s", path,
			    strerror(errno));
	}
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "Pid: %d", &v) == 1;
	fclose(f);
	if (!found)
		return fail(EBADF,
			    "file descriptor %d is not a pidfd; get one with pidfd_open()",
			    pidfd);
	if (v < 0)
		return fail(ESRCH,
			    "the process of pidfd %d has exited (and was reaped)",
			    pidfd);
	if (v == 0)
		return fail(ESRCH,
			    "the process of pidfd %d is not in this PID namespace; call from its namespace or an ancestor",
			    pidfd);
	*pid = v;
	return 0;
}

/* After a call on @pid: does @pidfd still refer to it? */
static int pidfd_recheck(int pidfd, pid_t pid)
{
	pid_t now = 0;
	int err = pidfd_pid(pidfd, &now);

	if (!err && now == pid)
		return 0;
	return fail(ESRCH,
		    "the process of pidfd %d (PID %d) exited during the call; if PID %d was reused meanwhile, the change may have reached the new task",
		    pidfd, (int)pid, (int)pid);
}

int cs_get_pidfd(int pidfd, __u64 *cookie)
{
	pid_t pid;
	__u64 c;
	int err;

	err = pidfd_pid(pidfd, &pid);
	if (!err)
		err = cs_get(pid, &c);
	if (!err)
		err = pidfd_recheck(pidfd, pid);
	if (!err)
		*cookie = c;
	return err;
}

int cs_create_pidfd(int pidfd, enum cs_scope scope)
{
	pid_t pid;
	int err;

	err = pidfd_pid(pidfd, &pid);
	if (!err)
		err = cs_create(pid, scope);
	return err ? err : pidfd_recheck(pidfd, pid);
}

int cs_share_to_pidfd(int pidfd, enum cs_scope scope)
{
	pid_t pid;
	int err;

	err = pidfd_pid(pidfd, &pid);
	if (!err)
		err = cs_share_to(pid, scope);
	return err ? err : pidfd_recheck(pidfd, pid);
}

int cs_share_from_pidfd(int pidfd)
{
	pid_t pid;
	int err;

	err = pidfd_pid(pidfd, &pid);
	if (!err)
		err = cs_share_from(pid);
	return err ? err : pidfd_recheck(pidfd, pid);
}

int cs_clear_pidfd(int pidfd, enum cs_scope scope)
{
	pid_t pid;
	int err;

	err = pidfd_pid(pidfd, &pid);
	if (!err)
		err = cs_clear(pid, scope);
	return err ? err : pidfd_recheck(pidfd, pid);
}

/* --- Cgroup cookies: scx_coresched's tag maps --------------------------- */

struct cs_cgroups {
	int cgrp_fd; /* CS_MAP_CGRP: cgroup id -> struct cs_tag */
	int ctl_fd; /* CS_MAP_CTL: tag generation */
	bool via_socket; /* no maps: requests to CS_CTL_SOCK */
};

static int socket_open(struct cs_cgroups **out);
static int socket_tag(const char *path, __u64 *cookie);
static int socket_untag(const char *path);
static int socket_get(const char *path, __u64 *cookie, __u64 *from_id);
static int socket_share(const char *src, const char *dst, __u64 *cookie);
static int socket_foreach(int (*fn)(__u64 cgid, __u64 cookie, void *ctx),
			  void *ctx);

/* The message for a failed bpf() call on map @map; @err is positive. */
static int map_fail(int err, const char *what, const char *map)
{
	if (err == EPERM || err == EACCES)
		return fail(err, "permission denied %s %s/%s; run as root",
			    what, CS_PIN_DIR, map);
	return fail(err, "%s %s/%s failed: %s", what, CS_PIN_DIR, map,
		    strerror(err));
}

/* Fail unless scx_coresched is the running sched_ext scheduler. */
static int check_scheduler(void)
{
	char state[32], ops[64];
	struct stat st;

	if (stat(CS_SCX_SYSFS, &st))
		return fail(EOPNOTSUPP,
			    "this kernel has no sched_ext (%s is missing), so cgroup cookies cannot work; boot a kernel with CONFIG_SCHED_CLASS_EXT=y (Linux 6.12 or later) and start scx_coresched",
			    CS_SCX_SYSFS);
	if (cs_scheduler_running())
		return 0;
	if (!cs_scx_state(state, sizeof(state)))
		return fail(EIO, "cannot read %s/state: %s; is sysfs mounted?",
			    CS_SCX_SYSFS, strerror(errno));
	if (!strcmp(state, "enabling"))
		return fail(EAGAIN,
			    "scx_coresched is not running yet (sched_ext state: enabling); retry in a moment");
	if (!strcmp(state, "enabled") && cs_scx_ops(ops, sizeof(ops)))
		return fail(ESRCH,
			    "scx_coresched is not running: the loaded sched_ext scheduler is '%s'; stop it, then start scx_coresched (cgroup cookies work only under scx_coresched)",
			    ops);
	return fail(ESRCH,
		    "scx_coresched is not running (sched_ext state: %s); cgroup cookies work only under it: start it first (scx_coresched &) and retry",
		    state);
}

/* Open pinned map @name and check its layout against this build. */
static int open_map(const char *name, __u32 key_size, __u32 value_size,
		    bool array, int *fdp)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	bool type_ok;
	int fd, err;

	fd = cs_open_pinned_map(name);
	if (fd == -ENOENT)
		return fail(ENOENT,
			    "scx_coresched is running but %s/%s is missing; coreschedctl and scx_coresched seem to be from different versions, rebuild and restart both",
			    CS_PIN_DIR, name);
	if (fd < 0)
		return map_fail(-fd, "opening", name);

	memset(&info, 0, sizeof(info));
	err = bpf_map_get_info_by_fd(fd, &info, &len);
	if (err) {
		close(fd);
		return map_fail(-err, "inspecting", name);
	}
	if (array)
		type_ok = info.type == BPF_MAP_TYPE_ARRAY &&
			  info.max_entries >= 1;
	else
		type_ok = info.type == BPF_MAP_TYPE_HASH ||
			  info.type == BPF_MAP_TYPE_LRU_HASH;
	if (!type_ok || info.key_size != key_size ||
	    info.value_size != value_size) {
		close(fd);
		return fail(EPROTO,
			    "%s/%s has an unexpected layout (map type %u, key %u bytes, value %u bytes); coreschedctl and scx_coresched seem to be from different versions, rebuild and restart both",
			    CS_PIN_DIR, name, info.type, info.key_size,
			    info.value_size);
	}
	*fdp = fd;
	return 0;
}

int cs_cgroups_open(struct cs_cgroups **out)
{
	struct cs_cgroups *h;
	struct stat st;
	int err;

	err = check_scheduler();
	if (err)
		return err;
	if (stat(CS_PIN_DIR, &st)) {
		if (errno == EACCES && geteuid() != 0)
			return socket_open(out);
		if (errno == EACCES)
			return fail(EACCES,
				    "permission denied looking up %s; run as root",
				    CS_PIN_DIR);
		return fail(errno,
			    "scx_coresched is running but its tag maps are not pinned in %s (%s); is bpffs mounted at /sys/fs/bpf? (mount -t bpf bpf /sys/fs/bpf, then restart scx_coresched)",
			    CS_PIN_DIR, strerror(errno));
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return fail(ENOMEM, "out of memory");
	h->cgrp_fd = h->ctl_fd = -1;
	err = open_map(CS_MAP_CGRP, sizeof(__u64), sizeof(struct cs_tag), false,
		       &h->cgrp_fd);
	if (!err)
		err = open_map(CS_MAP_CTL, sizeof(__u32), sizeof(struct cs_ctl),
			       true, &h->ctl_fd);
	if (err) {
		cs_cgroups_close(h);
		/* Not root: ask the running scx_coresched instead. */
		if ((err == -EPERM || err == -EACCES) && geteuid() != 0)
			return socket_open(out);
		return err;
	}
	*out = h;
	return 0;
}

void cs_cgroups_close(struct cs_cgroups *h)
{
	if (!h)
		return;
	if (h->cgrp_fd >= 0)
		close(h->cgrp_fd);
	if (h->ctl_fd >= 0)
		close(h->ctl_fd);
	free(h);
}

/* Resolve cgroup v2 directory @path to its id, with a message on error. */
static int cgroup_id(const char *path, __u64 *id)
{
	int err;

	if (!path || !*path)
		return fail(EINVAL,
			    "empty cgroup path; give a cgroup v2 directory such as %s/NAME",
			    CS_CGROUP_ROOT);
	err = cs_cgroup_id(path, id);
	switch (err) {
	case 0:
		return 0;
	case -ENOENT:
		return fail(ENOENT,
			    "%s does not exist; give an existing cgroup v2 directory (create a cgroup with mkdir under %s)",
			    path, CS_CGROUP_ROOT);
	case -ENOTDIR:
		return fail(ENOTDIR,
			    "%s is not a directory; give a cgroup v2 directory such as %s/NAME",
			    path, CS_CGROUP_ROOT);
	case -EMEDIUMTYPE:
		return fail(EMEDIUMTYPE,
			    "%s is not a cgroup: it is not on a cgroup v2 file system; give a directory under %s",
			    path, CS_CGROUP_ROOT);
	case -EACCES:
		return fail(EACCES,
			    "permission denied looking up %s; run as root",
			    path);
	default:
		return fail(-err, "cannot look up cgroup %s: %s", path,
			    strerror(-err));
	}
}

static int check_handle(struct cs_cgroups *h)
{
	if (!h)
		return fail(EBADF,
			    "no cgroup handle; call cs_cgroups_open() first");
	return 0;
}

/*
 * Set (@tag non-NULL) or delete the entry of cgroup @cgid, then bump the
 * tag generation; if the bump fails, put the old entry back, so that a
 * failed call changes nothing. *@had_old: whether there was an entry.
 */
static int set_tag(struct cs_cgroups *h, __u64 cgid, const struct cs_tag *tag,
		   bool *had_old)
{
	struct cs_tag old;
	int err;

	err = bpf_map_lookup_elem(h->cgrp_fd, &cgid, &old);
	if (err && err != -ENOENT)
		return map_fail(-err, "reading", CS_MAP_CGRP);
	*had_old = !err;

	if (tag)
		err = bpf_map_update_elem(h->cgrp_fd, &cgid, tag, BPF_ANY);
	else if (*had_old)
		err = bpf_map_delete_elem(h->cgrp_fd, &cgid);
	else
		return 0; /* nothing to delete, nothing to announce */
	if (err == -E2BIG)
		return fail(E2BIG,
			    "%s/%s is full (%d cgroups tagged); untag cgroups that no longer need a cookie and retry",
			    CS_PIN_DIR, CS_MAP_CGRP, CS_MAX_CGRP_TAGS);
	if (err)
		return map_fail(-err, "writing", CS_MAP_CGRP);

	err = cs_bump_tag_gen(h->ctl_fd);
	if (err) {
		if (*had_old)
			bpf_map_update_elem(h->cgrp_fd, &cgid, &old, BPF_ANY);
		else
			bpf_map_delete_elem(h->cgrp_fd, &cgid);
		return fail(-err,
			    "cannot bump the tag generation in %s/%s (%s); the change was undone, check that scx_coresched is healthy and retry",
			    CS_PIN_DIR, CS_MAP_CTL, strerror(-err));
	}
	return 0;
}

int cs_cgroup_tag(struct cs_cgroups *h, const char *path, __u64 *cookie)
{
	struct cs_tag tag;
	bool had_old;
	__u64 cgid;
	int err;

	err = check_handle(h);
	if (err)
		return err;
	if (h->via_socket)
		return socket_tag(path, cookie);
	err = cgroup_id(path, &cgid);
	if (err)
		return err;
	tag.cookie = CS_COOKIE_CGROUP | cgid;
	err = set_tag(h, cgid, &tag, &had_old);
	if (!err && cookie)
		*cookie = tag.cookie;
	return err;
}

int cs_cgroup_untag(struct cs_cgroups *h, const char *path)
{
	bool had_old;
	__u64 cgid;
	int err;

	err = check_handle(h);
	if (err)
		return err;
	if (h->via_socket)
		return socket_untag(path);
	err = cgroup_id(path, &cgid);
	if (!err)
		err = set_tag(h, cgid, NULL, &had_old);
	if (err)
		return err;
	if (!had_old)
		return fail(ENODATA, "cgroup %s is not tagged; nothing to untag",
			    path);
	return 0;
}

int cs_cgroup_get(struct cs_cgroups *h, const char *path, __u64 *cookie,
		  __u64 *from_id)
{
	char real[PATH_MAX], *slash;
	struct cs_tag tag;
	__u64 cgid;
	int err, i;

	err = check_handle(h);
	if (err)
		return err;
	if (h->via_socket)
		return socket_get(path, cookie, from_id);
	err = cgroup_id(path, &cgid);
	if (err)
		return err;
	if (!realpath(path, real))
		return fail(errno, "cannot resolve %s: %s", path,
			    strerror(errno));
	/* Like the scheduler: the cgroup, then up to the root, nearest wins. */
	for (i = 0; i < CS_MAX_CGRP_DEPTH; i++) {
		err = bpf_map_lookup_elem(h->cgrp_fd, &cgid, &tag);
		if (!err) {
			*cookie = tag.cookie;
			if (from_id)
				*from_id = cgid;
			return 0;
		}
		if (err != -ENOENT)
			return map_fail(-err, "reading", CS_MAP_CGRP);
		slash = strrchr(real, '/');
		if (!slash || slash == real)
			break;
		*slash = '\0';
		if (cs_cgroup_id(real, &cgid))
			break; /* above the cgroup2 mount */
	}
	/*
	 * No tag up to the root: 0. No tag in CS_MAX_CGRP_DEPTH levels, the
	 * root not reached: unknown, as the scheduler sees it (runs alone).
	 */
	*cookie = i < CS_MAX_CGRP_DEPTH ? 0 : CS_COOKIE_LOST;
	if (from_id)
		*from_id = 0;
	return 0;
}

int cs_cgroup_share(struct cs_cgroups *h, const char *src, const char *dst,
		    __u64 *cookie)
{
	struct cs_tag tag;
	__u64 dst_id, from;
	bool had_old;
	int err;

	if (h && h->via_socket)
		return socket_share(src, dst, cookie);
	err = cs_cgroup_get(h, src, &tag.cookie, &from);
	if (!err)
		err = cgroup_id(dst, &dst_id);
	if (err)
		return err;
	if (!tag.cookie)
		return fail(ENODATA,
			    "cgroup %s has no cookie (neither it nor an ancestor is tagged), so there is none to share with %s; tag it first",
			    src, dst);
	if (tag.cookie == CS_COOKIE_LOST)
		return fail(ENODATA,
			    "cgroup %s is deeper than the %d levels searched for a tag and none of them is tagged, so its cookie is unknown (its tasks run alone) and there is none to share with %s; tag it or a nearer ancestor first",
			    src, CS_MAX_CGRP_DEPTH, dst);
	err = set_tag(h, dst_id, &tag, &had_old);
	if (!err && cookie)
		*cookie = tag.cookie;
	return err;
}

int cs_cgroup_foreach(struct cs_cgroups *h,
		      int (*fn)(__u64 cgid, __u64 cookie, void *ctx), void *ctx)
{
	__u64 key, next, *prev = NULL;
	struct cs_tag tag;
	int err;

	err = check_handle(h);
	if (err)
		return err;
	if (h->via_socket)
		return socket_foreach(fn, ctx);
	while (!(err = bpf_map_get_next_key(h->cgrp_fd, prev, &next))) {
		key = next;
		prev = &key;
		err = bpf_map_lookup_elem(h->cgrp_fd, &key, &tag);
		if (err == -ENOENT)
			continue; /* untagged meanwhile */
		if (err)
			return map_fail(-err, "reading", CS_MAP_CGRP);
		err = fn(key, tag.cookie, ctx);
		if (err)
			return err;
	}
	if (err != -ENOENT)
		return map_fail(-err, "reading", CS_MAP_CGRP);
	return 0;
}

/* --- Cgroup cookies without root: scx_coresched's control socket -------- */

/*
 * A caller who may not open the pinned maps asks the running
 * scx_coresched through CS_CTL_SOCK instead (the protocol is described at
 * the top of src/cs_ctlsock.c). It changes a cgroup's tag only if the
 * cgroup is delegated to the caller, and says why not otherwise.
 */

/* The client waits a little longer than the server lets a request live. */
#define CS_CTL_CLIENT_TIMEOUT_MS (CS_CTL_TIMEOUT_MS + 1000)

static bool put_char(char *buf, size_t len, size_t *n, char c)
{
	if (*n + 1 >= len)
		return false;
	buf[(*n)++] = c;
	buf[*n] = '\0';
	return true;
}

static bool put_encoded(char *buf, size_t len, size_t *n, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c;

	for (; *s; s++) {
		c = (unsigned char)*s;
		if (!cs_ctl_path_encoded_char(c)) {
			if (!put_char(buf, len, n, (char)c))
				return false;
		} else if (!put_char(buf, len, n, '%') ||
			   !put_char(buf, len, n, hex[c >> 4]) ||
			   !put_char(buf, len, n, hex[c & 15])) {
			return false;
		}
	}
	return true;
}

/* Append " PATH" to a request: absolute (from the current directory). */
static int put_path(char *buf, size_t len, size_t *n, const char *path)
{
	char cwd[PATH_MAX];

	if (!path || !*path)
		return fail(EINVAL,
			    "empty cgroup path; give a cgroup v2 directory such as %s/NAME",
			    CS_CGROUP_ROOT);
	if (!put_char(buf, len, n, ' '))
		goto too_long;
	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return fail(errno,
				    "cannot resolve %s: the current directory is unknown (%s)",
				    path, strerror(errno));
		if (!put_encoded(buf, len, n, cwd) ||
		    (strcmp(cwd, "/") && !put_char(buf, len, n, '/')))
			goto too_long;
	}
	if (put_encoded(buf, len, n, path))
		return 0;
too_long:
	return fail(ENAMETOOLONG,
		    "cgroup path %s is too long for a request to scx_coresched",
		    path);
}

/* The request line "VERB [A [B]]\n" in @buf. */
static int make_request(char *buf, size_t len, const char *verb,
			const char *a, const char *b)
{
	size_t n = (size_t)snprintf(buf, len, "%s", verb);
	int err = 0;

	if (a)
		err = put_path(buf, len, &n, a);
	if (!err && b)
		err = put_path(buf, len, &n, b);
	if (!err && !put_char(buf, len, &n, '\n'))
		err = fail(ENAMETOOLONG,
			   "cgroup paths too long for a request to scx_coresched");
	return err;
}

/* Why CS_CTL_SOCK cannot be reached (@err positive). */
static int socket_unreachable(int err)
{
	if (err == ENOENT || err == ECONNREFUSED)
		return fail(EACCES,
			    "permission denied: %s is root's, and scx_coresched serves no control socket for unprivileged cgroup tagging (%s: %s); run as root, or restart scx_coresched with a version that serves it",
			    CS_PIN_DIR, CS_CTL_SOCK, strerror(err));
	if (err == EACCES || err == EPERM)
		return fail(err,
			    "permission denied connecting to %s; run as root",
			    CS_CTL_SOCK);
	return fail(err, "cannot connect to scx_coresched on %s: %s",
		    CS_CTL_SOCK, strerror(err));
}

/* A connected socket to CS_CTL_SOCK, or -errno. */
static int socket_connect(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = {
		.tv_sec = CS_CTL_CLIENT_TIMEOUT_MS / 1000,
		.tv_usec = CS_CTL_CLIENT_TIMEOUT_MS % 1000 * 1000,
	};
	int fd, err;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", CS_CTL_SOCK);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static int send_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read one reply line, without its newline, into malloc()ed *@out. */
static int read_reply(int fd, char **out)
{
	size_t cap = CS_CTL_MAX_REPLY, n = 0;
	char *buf = malloc(cap + 1), *nl = NULL;
	ssize_t r = 0;

	if (!buf)
		return -ENOMEM;
	while (!nl && n < cap) {
		r = recv(fd, buf + n, cap - n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		nl = memchr(buf + n, '\n', (size_t)r);
		n += (size_t)r;
	}
	if (!nl) {
		free(buf);
		return r < 0 ? -errno : -EPROTO;
	}
	*nl = '\0';
	*out = buf;
	return 0;
}

/* Turn reply line @reply into 0 and *@ok, or -errno with its message. */
static int parse_reply(char *reply, char **ok)
{
	char *end;
	long e;

	if (!strncmp(reply, "ok ", 3)) {
		memmove(reply, reply + 3, strlen(reply + 3) + 1);
		*ok = reply;
		return 0;
	}
	if (!strncmp(reply, "err ", 4)) {
		e = strtol(reply + 4, &end, 10);
		if (e > 0 && e < 4096 && *end == ' ') {
			e = fail((int)e, "%s", end + 1);
			free(reply);
			return (int)e;
		}
	}
	free(reply);
	return fail(EPROTO,
		    "unexpected reply from scx_coresched on %s; coreschedctl and scx_coresched seem to be from different versions, rebuild and restart both",
		    CS_CTL_SOCK);
}

/*
 * Send request @req to scx_coresched: 0 and the text after "ok " in *@ok
 * (malloc()ed), or -errno with its message (or ours).
 */
static int socket_call(const char *req, char **ok)
{
	char *reply = NULL;
	int fd, err;

	fd = socket_connect();
	if (fd < 0)
		return socket_unreachable(-fd);
	err = send_all(fd, req, strlen(req));
	if (!err)
		err = read_reply(fd, &reply);
	close(fd);
	if (err == -EAGAIN || err == -EWOULDBLOCK)
		return fail(ETIMEDOUT,
			    "scx_coresched did not answer on %s within %d ms; check that it is healthy and retry",
			    CS_CTL_SOCK, CS_CTL_CLIENT_TIMEOUT_MS);
	if (err)
		return fail(-err, "talking to scx_coresched on %s failed: %s",
			    CS_CTL_SOCK, strerror(-err));
	return parse_reply(reply, ok);
}

/* make_request() and socket_call() in one. */
static int socket_request(const char *verb, const char *a, const char *b,
			  char **ok)
{
	char req[CS_CTL_MAX_LINE + 1];
	int err;

	err = make_request(req, sizeof(req), verb, a, b);
	return err ? err : socket_call(req, ok);
}

/* Parse hexadecimal @s into *@v; the end in *@end. */
static bool parse_hex(const char *s, char **end, __u64 *v)
{
	errno = 0;
	*v = strtoull(s, end, 16);
	return !errno && *end != s;
}

/* A reply that is one cookie. */
static int reply_cookie(char *ok, __u64 *cookie)
{
	char *end;
	__u64 v;
	bool good = parse_hex(ok, &end, &v) && !*end;

	free(ok);
	if (!good)
		return fail(EPROTO,
			    "unexpected reply from scx_coresched on %s; rebuild and restart both",
			    CS_CTL_SOCK);
	if (cookie)
		*cookie = v;
	return 0;
}

static int socket_open(struct cs_cgroups **out)
{
	struct cs_cgroups *h;
	char *ok = NULL;
	int err;

	err = socket_request("ping", NULL, NULL, &ok);
	if (err)
		return err;
	free(ok);
	h = calloc(1, sizeof(*h));
	if (!h)
		return fail(ENOMEM, "out of memory");
	h->cgrp_fd = h->ctl_fd = -1;
	h->via_socket = true;
	*out = h;
	return 0;
}

static int socket_tag(const char *path, __u64 *cookie)
{
	char *ok;
	int err = socket_request("tag", path, NULL, &ok);

	return err ? err : reply_cookie(ok, cookie);
}

static int socket_untag(const char *path)
{
	char *ok;
	int err = socket_request("untag", path, NULL, &ok);

	return err ? err : reply_cookie(ok, NULL);
}

static int socket_share(const char *src, const char *dst, __u64 *cookie)
{
	char *ok;
	int err = socket_request("share", src, dst, &ok);

	return err ? err : reply_cookie(ok, cookie);
}

static int socket_get(const char *path, __u64 *cookie, __u64 *from_id)
{
	char *ok, *end;
	__u64 c, from;
	bool good;
	int err;

	err = socket_request("get", path, NULL, &ok);
	if (err)
		return err;
	good = parse_hex(ok, &end, &c) && *end == ' ' &&
	       parse_hex(end + 1, &end, &from) && !*end;
	free(ok);
	if (!good)
		return fail(EPROTO,
			    "unexpected reply from scx_coresched on %s; rebuild and restart both",
			    CS_CTL_SOCK);
	*cookie = c;
	if (from_id)
		*from_id = from;
	return 0;
}

static int socket_foreach(int (*fn)(__u64 cgid, __u64 cookie, void *ctx),
			  void *ctx)
{
	char *ok, *p, *end;
	__u64 n, id, cookie;
	int err;

	err = socket_request("list", NULL, NULL, &ok);
	if (err)
		return err;
	p = ok;
	if (!parse_hex(p, &end, &n))
		goto bad;
	for (p = end; n && !err; n--, p = end) {
		if (*p != ' ' || !parse_hex(p + 1, &end, &id) || *end != ':' ||
		    !parse_hex(end + 1, &end, &cookie))
			goto bad;
		err = fn(id, cookie, ctx);
	}
	free(ok);
	return err;
bad:
	free(ok);
	return fail(EPROTO,
		    "unexpected reply from scx_coresched on %s; rebuild and restart both",
		    CS_CTL_SOCK);
}
