// SPDX-License-Identifier: GPL-2.0-only
/*
 * libcoresched: give tasks and cgroups core scheduling cookies by writing
 * the tag maps of scx_coresched. See libcoresched.h.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "coresched.h"
#include "cs_common.h"
#include "libcoresched.h"

#define MAP_TASK "cs_task_tag"
#define MAP_CGRP "cs_cgrp_tag"
#define MAP_CTL "cs_ctl"

#define PF_KTHREAD 0x00200000 /* linux/sched.h, not in the UAPI */

/* Format a message into the handle's buffer and return -@err. */
__attribute__((format(printf, 4, 5))) static int
fail(char *buf, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	if (buf && len) {
		va_start(ap, fmt);
		vsnprintf(buf, len, fmt, ap);
		va_end(ap);
	}
	return -err;
}

#define lib_fail(l, e, ...) fail((l)->err, (l)->errlen, e, __VA_ARGS__)

/* The message for a failed bpf() call on map @map; @err is positive. */
static int map_fail(struct cs_lib *lib, int err, const char *what,
		    const char *map)
{
	if (err == EPERM || err == EACCES)
		return lib_fail(lib, err,
				"permission denied %s %s/%s; run as root", what,
				CS_PIN_DIR, map);
	return lib_fail(lib, err, "%s %s/%s failed: %s", what, CS_PIN_DIR, map,
			strerror(err));
}

/* Fail unless the kernel has sched_ext and scx_coresched is the loaded scheduler. */
static int check_scheduler(struct cs_lib *lib)
{
	char state[32], ops[64];
	struct stat st;

	if (stat(CS_SCX_SYSFS, &st))
		return lib_fail(
			lib, EOPNOTSUPP,
			"this kernel has no sched_ext (%s is missing); boot a kernel built with CONFIG_SCHED_CLASS_EXT=y (Linux 6.12 or later) and start scx_coresched",
			CS_SCX_SYSFS);
	if (cs_scheduler_running())
		return 0;
	if (!cs_scx_state(state, sizeof(state)))
		return lib_fail(lib, EIO,
				"cannot read %s/state: %s; is sysfs mounted?",
				CS_SCX_SYSFS, strerror(errno));
	if (!strcmp(state, "enabling"))
		return lib_fail(
			lib, EAGAIN,
			"scx_coresched is not running yet (sched_ext state: enabling); retry in a moment");
	if (!strcmp(state, "enabled") && cs_scx_ops(ops, sizeof(ops)))
		return lib_fail(
			lib, ESRCH,
			"scx_coresched is not running: the loaded sched_ext scheduler is '%s'; stop it, then start scx_coresched",
			ops);
	return lib_fail(
		lib, ESRCH,
		"scx_coresched is not running (sched_ext state: %s); start it first (scx_coresched &) and retry",
		state);
}

/*
 * Open pinned map @name and check that its layout is the one this library
 * was built for: the kernel copies value_size bytes into our buffers.
 */
static int open_map(struct cs_lib *lib, const char *name, __u32 key_size,
		    bool array, int *fdp)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	bool type_ok;
	int fd, err;

	fd = cs_open_pinned_map(name);
	if (fd == -ENOENT)
		return lib_fail(
			lib, ENOENT,
			"scx_coresched is running but %s/%s is missing; coreschedctl and scx_coresched seem to be from different versions, rebuild and restart both",
			CS_PIN_DIR, name);
	if (fd < 0)
		return map_fail(lib, -fd, "opening", name);

	memset(&info, 0, sizeof(info));
	err = bpf_map_get_info_by_fd(fd, &info, &len);
	if (err) {
		close(fd);
		return map_fail(lib, -err, "inspecting", name);
	}
	if (array)
		type_ok = info.type == BPF_MAP_TYPE_ARRAY &&
			  info.max_entries >= 1;
	else
		type_ok = info.type == BPF_MAP_TYPE_HASH ||
			  info.type == BPF_MAP_TYPE_LRU_HASH;
	if (!type_ok || info.key_size != key_size ||
	    info.value_size != sizeof(struct cs_tag)) {
		close(fd);
		return lib_fail(
			lib, EPROTO,
			"%s/%s has an unexpected layout (map type %u, key %u bytes, value %u bytes); coreschedctl and scx_coresched seem to be from different versions, rebuild and restart both",
			CS_PIN_DIR, name, info.type, info.key_size,
			info.value_size);
	}
	*fdp = fd;
	return 0;
}

int cs_lib_open(struct cs_lib *lib, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	_Static_assert(sizeof(struct cs_ctl) == sizeof(struct cs_tag),
		       "open_map() checks both value sizes against cs_tag");

	lib->backend = CS_BACKEND_NONE;
	lib->task_fd = lib->cgrp_fd = lib->ctl_fd = -1;
	lib->err = err;
	lib->errlen = errlen;

	ret = check_scheduler(lib);
	if (ret)
		return ret;
	if (stat(CS_PIN_DIR, &st)) {
		if (errno == EACCES)
			return lib_fail(
				lib, EACCES,
				"permission denied looking up %s; run as root",
				CS_PIN_DIR);
		return lib_fail(
			lib, errno,
			"scx_coresched is running but its tag maps are not pinned in %s (%s); is bpffs mounted at /sys/fs/bpf? (mount -t bpf bpf /sys/fs/bpf, then restart scx_coresched)",
			CS_PIN_DIR, strerror(errno));
	}

	ret = open_map(lib, MAP_TASK, sizeof(__u32), false, &lib->task_fd);
	if (!ret)
		ret = open_map(lib, MAP_CGRP, sizeof(__u64), false,
			       &lib->cgrp_fd);
	if (!ret)
		ret = open_map(lib, MAP_CTL, sizeof(__u32), true, &lib->ctl_fd);
	if (ret) {
		lib->backend = CS_BACKEND_SCX; /* let close() see the fds */
		cs_lib_close(lib);
		return ret;
	}
	lib->backend = CS_BACKEND_SCX;
	return 0;
}

void cs_lib_close(struct cs_lib *lib)
{
	if (lib->backend != CS_BACKEND_SCX)
		return;
	if (lib->task_fd >= 0)
		close(lib->task_fd);
	if (lib->cgrp_fd >= 0)
		close(lib->cgrp_fd);
	if (lib->ctl_fd >= 0)
		close(lib->ctl_fd);
	lib->task_fd = lib->cgrp_fd = lib->ctl_fd = -1;
	lib->backend = CS_BACKEND_NONE;
}

static int check_open(struct cs_lib *lib)
{
	if (lib->backend != CS_BACKEND_SCX)
		return lib_fail(
			lib, EBADF,
			"libcoresched handle is not open; call cs_lib_open() first");
	return 0;
}

/* Resolve cgroup v2 directory @path to its id, with a message on error. */
static int cgroup_id(struct cs_lib *lib, const char *path, __u64 *id)
{
	int err;

	if (!*path)
		return lib_fail(
			lib, EINVAL,
			"empty cgroup path; give a cgroup v2 directory such as %s/NAME",
			CS_CGROUP_ROOT);
	err = cs_cgroup_id(path, id);
	switch (err) {
	case 0:
		return 0;
	case -ENOENT:
		return lib_fail(
			lib, ENOENT,
			"%s does not exist; give an existing cgroup v2 directory (create a cgroup with mkdir under %s)",
			path, CS_CGROUP_ROOT);
	case -ENOTDIR:
		return lib_fail(
			lib, ENOTDIR,
			"%s is not a directory; give a cgroup v2 directory such as %s/NAME",
			path, CS_CGROUP_ROOT);
	case -EMEDIUMTYPE:
		return lib_fail(
			lib, EMEDIUMTYPE,
			"%s is not a cgroup: it is not on a cgroup v2 file system; give a directory under %s",
			path, CS_CGROUP_ROOT);
	case -EACCES:
		return lib_fail(lib, EACCES,
				"permission denied looking up %s; run as root",
				path);
	default:
		return lib_fail(lib, -err, "cannot look up cgroup %s: %s", path,
				strerror(-err));
	}
}

/*
 * Set (@tag non-NULL) or delete the entry @key of tag map @fd, then bump
 * the tag generation. If the bump fails, put the old entry back, so that a
 * failed call leaves the maps as they were. *@had_old tells whether there
 * was an entry before (for untag).
 */
static int set_tag(struct cs_lib *lib, int fd, const char *map, const void *key,
		   const struct cs_tag *tag, bool *had_old)
{
	struct cs_tag old;
	int err;

	err = bpf_map_lookup_elem(fd, key, &old);
	if (err && err != -ENOENT)
		return map_fail(lib, -err, "reading", map);
	*had_old = !err;

	if (tag)
		err = bpf_map_update_elem(fd, key, tag, BPF_ANY);
	else if (*had_old)
		err = bpf_map_delete_elem(fd, key);
	else
		return 0; /* nothing to delete, nothing to announce */
	if (err == -E2BIG)
		return lib_fail(
			lib, E2BIG,
			"%s/%s is full (%d entries); remove tags that are no longer needed and retry",
			CS_PIN_DIR, map,
			fd == lib->task_fd ? CS_MAX_TASK_TAGS :
					     CS_MAX_CGRP_TAGS);
	if (err)
		return map_fail(lib, -err, "writing", map);

	err = cs_bump_tag_gen(lib->ctl_fd);
	if (err) {
		if (*had_old)
			bpf_map_update_elem(fd, key, &old, BPF_ANY);
		else
			bpf_map_delete_elem(fd, key);
		return lib_fail(
			lib, -err,
			"cannot bump the tag generation in %s/%s (%s), so tools watching the tags would miss the change; the change was undone, check that scx_coresched is healthy and retry",
			CS_PIN_DIR, MAP_CTL, strerror(-err));
	}
	return 0;
}

int cs_tag_cgroup(struct cs_lib *lib, const char *path, __u64 *cookie)
{
	struct cs_tag tag;
	bool had_old;
	__u64 cgid;
	int err;

	err = check_open(lib);
	if (!err)
		err = cgroup_id(lib, path, &cgid);
	if (err)
		return err;

	tag.cookie = CS_COOKIE_CGROUP | cgid;
	err = set_tag(lib, lib->cgrp_fd, MAP_CGRP, &cgid, &tag, &had_old);
	if (err)
		return err;
	*cookie = tag.cookie;
	return 0;
}

int cs_untag_cgroup(struct cs_lib *lib, const char *path)
{
	bool had_old;
	__u64 cgid;
	int err;

	err = check_open(lib);
	if (!err)
		err = cgroup_id(lib, path, &cgid);
	if (!err)
		err = set_tag(lib, lib->cgrp_fd, MAP_CGRP, &cgid, NULL,
			      &had_old);
	if (err)
		return err;
	if (!had_old)
		return lib_fail(lib, ENOENT,
				"cgroup %s is not tagged; nothing to untag",
				path);
	return 0;
}

int cs_new_cookie_self(struct cs_lib *lib, __u64 *cookie)
{
	__u32 tid = (__u32)gettid();
	struct cs_tag tag;
	bool had_old;
	ssize_t n;
	int err;

	err = check_open(lib);
	if (err)
		return err;

	tag.cookie = 0;
	do {
		n = getrandom(&tag.cookie, sizeof(tag.cookie), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(tag.cookie))
			return lib_fail(
				lib, n < 0 ? errno : EIO,
				"cannot get random bytes for a cookie: %s",
				n < 0 ? strerror(errno) : "short read");
		tag.cookie &= ~CS_COOKIE_CGROUP;
	} while (!tag.cookie);

	err = set_tag(lib, lib->task_fd, MAP_TASK, &tid, &tag, &had_old);
	if (err)
		return err;
	/* Get re-queued: the scheduler picks the new cookie up at enqueue. */
	sched_yield();
	*cookie = tag.cookie;
	return 0;
}

/*
 * Read the cgroup v2 path of thread @tid (relative to the cgroup root, so
 * starting with '/') from /proc/TID/cgroup.
 */
static int task_cgroup(struct cs_lib *lib, pid_t tid, char *buf, size_t len)
{
	char path[64], line[PATH_MAX + 16];
	bool found = false;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)tid);
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return lib_fail(
				lib, ESRCH,
				"no process or thread with ID %d; check the ID (ps -eLf lists threads)",
				(int)tid);
		return lib_fail(lib, errno, "cannot read %s: %s", path,
				strerror(errno));
	}
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		n = snprintf(buf, len, "%s", line + 3);
		found = buf[0] == '/' && n > 0 && (size_t)n < len;
		break;
	}
	if (ferror(f) && errno == ESRCH) {
		fclose(f);
		return lib_fail(lib, ESRCH, "process or thread %d exited",
				(int)tid);
	}
	fclose(f);
	if (!found)
		return lib_fail(
			lib, ENOENT,
			"%s has no cgroup v2 entry; mount cgroup2 at %s", path,
			CS_CGROUP_ROOT);
	return 0;
}

/* Whether thread @tid is a kernel thread (PF_KTHREAD in /proc/TID/stat). */
static int task_is_kthread(struct cs_lib *lib, pid_t tid, bool *kthread)
{
	char path[64], line[1024], *p;
	unsigned int flags;
	bool ok;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return lib_fail(lib, errno == ENOENT ? ESRCH : errno,
				"cannot read %s: %s", path, strerror(errno));
	ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	/* "pid (comm) state ppid pgrp session tty_nr tpgid flags ..." */
	p = ok ? strrchr(line, ')') : NULL;
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %u", &flags) != 1)
		return lib_fail(lib, EIO, "cannot parse %s", path);
	*kthread = flags & PF_KTHREAD;
	return 0;
}

int cs_get_cookie(struct cs_lib *lib, pid_t tid, __u64 *cookie)
{
	size_t root_len = strlen(CS_CGROUP_ROOT);
	char cg[PATH_MAX], path[PATH_MAX + sizeof(CS_CGROUP_ROOT)];
	__u32 key = (__u32)tid;
	struct cs_tag tag;
	__u64 cgid;
	bool kthread = false;
	char *slash;
	int err, i;

	err = check_open(lib);
	if (err)
		return err;
	if (tid <= 0)
		return lib_fail(
			lib, EINVAL,
			"invalid thread ID %d; give a positive process or thread ID",
			(int)tid);
	/* Also checks that the task exists: the maps may lag behind exits. */
	err = task_cgroup(lib, tid, cg, sizeof(cg));
	if (!err)
		err = task_is_kthread(lib, tid, &kthread);
	if (err)
		return err;
	/* The rules of the scheduler's task_cookie(), in its order. */
	if (kthread) {
		*cookie = 0;
		return 0;
	}

	err = bpf_map_lookup_elem(lib->task_fd, &key, &tag);
	if (!err) {
		*cookie = tag.cookie;
		return 0;
	}
	if (err != -ENOENT)
		return map_fail(lib, -err, "reading", MAP_TASK);

	/*
	 * Walk from the task's cgroup up towards the root; the nearest tag
	 * wins. Like the scheduler, look at most CS_MAX_CGRP_DEPTH levels up.
	 */
	snprintf(path, sizeof(path), "%s%s", CS_CGROUP_ROOT,
		 strcmp(cg, "/") ? cg : "");
	for (i = 0; i < CS_MAX_CGRP_DEPTH; i++) {
		err = cs_cgroup_id(path, &cgid);
		if (err == -ENOENT || err == -ENOTDIR || err == -EMEDIUMTYPE)
			return lib_fail(
				lib, ENOENT,
				"cannot find cgroup %s of task %d under %s (%s); mount cgroup2 at %s (coreschedctl must see the same cgroup namespace as the task)",
				cg, (int)tid, CS_CGROUP_ROOT, strerror(-err),
				CS_CGROUP_ROOT);
		if (err)
			return lib_fail(
				lib, -err,
				"cannot look up cgroup %s of task %d: %s", path,
				(int)tid, strerror(-err));

		err = bpf_map_lookup_elem(lib->cgrp_fd, &cgid, &tag);
		if (!err) {
			*cookie = tag.cookie;
			return 0;
		}
		if (err != -ENOENT)
			return map_fail(lib, -err, "reading", MAP_CGRP);

		if (strlen(path) <= root_len)
			break;
		slash = strrchr(path, '/');
		*slash = '\0';
	}
	*cookie = 0;
	return 0;
}
