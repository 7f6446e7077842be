// SPDX-License-Identifier: GPL-2.0-only
/* Helpers shared by the scx_coresched programs; see cs_common.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>

#include "coresched.h"
#include "cs_common.h"

#define CS_FILEID_KERNFS 0xfe /* include/linux/exportfs.h: cgroupfs handles */

int cs_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

bool cs_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

bool cs_scx_state(char *buf, size_t len)
{
	return cs_read_line(CS_SCX_SYSFS "/state", buf, len);
}

bool cs_scx_ops(char *buf, size_t len)
{
	return cs_read_line(CS_SCX_SYSFS "/root/ops", buf, len) && buf[0];
}

bool cs_scheduler_running(void)
{
	char state[32], ops[64];

	return cs_scx_state(state, sizeof(state)) &&
	       !strcmp(state, "enabled") && cs_scx_ops(ops, sizeof(ops)) &&
	       !strcmp(ops, CS_OPS_NAME);
}

int cs_open_pinned_map(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", CS_PIN_DIR, name);
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int cs_bump_tag_gen(int ctl_fd)
{
	struct cs_ctl ctl;
	__u32 key = 0;

	/*
	 * The map is an array updated with BPF_F_LOCK-free read-modify-write;
	 * concurrent bumpers may merge into one increment, which is fine:
	 * readers only compare generations for inequality.
	 */
	if (bpf_map_lookup_elem(ctl_fd, &key, &ctl))
		return -errno;
	ctl.tag_gen++;
	if (bpf_map_update_elem(ctl_fd, &key, &ctl, BPF_ANY))
		return -errno;
	return 0;
}

int cs_cgroup_id(const char *path, __u64 *id)
{
	struct statfs sfs;
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (statfs(path, &sfs))
		return -errno;
	if (sfs.f_type != CGROUP2_SUPER_MAGIC)
		return -EMEDIUMTYPE;
	*id = st.st_ino;
	return 0;
}

static __u64 walk_id;
static char *walk_buf;
static size_t walk_len;
static bool walk_found;

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_D && st->st_ino == walk_id) {
		const char *rel = path + strlen(CS_CGROUP_ROOT);

		snprintf(walk_buf, walk_len, "%s", *rel ? rel : "/");
		walk_found = true;
		return 1;
	}
	return 0;
}

bool cs_cgroup_path(__u64 id, char *buf, size_t len)
{
	walk_id = id;
	walk_buf = buf;
	walk_len = len;
	walk_found = false;
	nftw(CS_CGROUP_ROOT, walk_one, 16, FTW_PHYS | FTW_MOUNT);
	return walk_found;
}

int cs_cgroup_exists(__u64 id)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + sizeof(__u64)];
	} h = { .fh = { .handle_bytes = sizeof(__u64),
			.handle_type = CS_FILEID_KERNFS } };
	int root, fd, err;

	root = open(CS_CGROUP_ROOT, O_RDONLY | O_DIRECTORY);
	if (root < 0)
		return -errno;
	memcpy(h.fh.f_handle, &id, sizeof(id));
	fd = open_by_handle_at(root, &h.fh, O_RDONLY);
	err = errno;
	close(root);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	if (err == ESTALE || err == ENOENT)
		return 0;
	/* No file handles (CONFIG_FHANDLE=n): look for it by walking. */
	if (err == ENOSYS || err == EOPNOTSUPP) {
		char path[PATH_MAX];

		return cs_cgroup_path(id, path, sizeof(path));
	}
	return -err;
}

__u64 cs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}
