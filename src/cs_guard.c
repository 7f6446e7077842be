// SPDX-License-Identifier: GPL-2.0-only
/*
 * Failing closed: SMT control, the guard process and the topology cache.
 * See cs_guard.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cs_common.h"
#include "cs_guard.h"

#define SMT_MARKER CS_RUN_DIR "/smt-off"
#define TOPO_CACHE CS_RUN_DIR "/topology"
#define TOPO_MAGIC 0x63737470u /* "cstp" */

static int read_smt(char *buf, size_t len)
{
	return cs_read_line(CS_SMT_CONTROL, buf, len) ? 0 : -errno;
}

static int write_smt(const char *val)
{
	int fd = open(CS_SMT_CONTROL, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int cs_smt_check(char *err, size_t len)
{
	char state[32];
	int ret = read_smt(state, sizeof(state));

	if (ret)
		return cs_fail(err, len,
			    "--fail-mode closed switches SMT off through %s, which cannot be read (%s): the kernel needs CONFIG_HOTPLUG_SMT",
			    CS_SMT_CONTROL, strerror(-ret));
	if (strcmp(state, "on") && strcmp(state, "off"))
		return cs_fail(err, len,
			    "--fail-mode closed switches SMT off through %s, but SMT control is '%s' here",
			    CS_SMT_CONTROL, state);
	return 0;
}

bool cs_smt_on(void)
{
	char state[32];

	return !read_smt(state, sizeof(state)) && !strcmp(state, "on");
}

int cs_smt_off(char *err, size_t len)
{
	char state[32];
	int fd, ret;

	if (!read_smt(state, sizeof(state)) && !strcmp(state, "off") &&
	    access(SMT_MARKER, F_OK))
		return 0; /* off already, and not by us: leave it so */
	mkdir(CS_RUN_DIR, 0700);
	fd = open(SMT_MARKER, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
		close(fd);
	ret = write_smt("off");
	if (ret)
		return cs_fail(err, len, "cannot switch SMT off (%s): %s",
			    CS_SMT_CONTROL, strerror(-ret));
	return 0;
}

int cs_smt_restore(char *err, size_t len)
{
	int ret;

	if (access(SMT_MARKER, F_OK))
		return 0;
	ret = write_smt("on");
	if (ret)
		return cs_fail(err, len, "cannot switch SMT back on (%s): %s",
			    CS_SMT_CONTROL, strerror(-ret));
	unlink(SMT_MARKER);
	return 1;
}

/* The guard's life: wait for EOF, switch SMT off, exit. */
static void guard_main(int fd, void (*before_off)(void *), void *arg)
{
	char err[256], c;
	ssize_t n;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, "scx_cs_guard");
	do {
		n = read(fd, &c, 1);
	} while (n > 0 || (n < 0 && errno == EINTR));
	if (before_off)
		before_off(arg);
	if (cs_smt_off(err, sizeof(err)))
		fprintf(stderr, "scx_coresched guard: %s\n", err);
	else
		fprintf(stderr,
			"scx_coresched guard: the scheduler process is gone: SMT is off until isolation is back\n");
	_exit(0);
}

pid_t cs_guard_start(int *fd, void (*before_off)(void *), void *arg)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		/*
		 * The guard keeps the loader's other descriptors on purpose:
		 * among them the scheduler's struct_ops link, so after a
		 * SIGKILL of the loader the scheduler stays attached, and
		 * isolating, until the guard has switched SMT off and exits.
		 */
		close(p[1]);
		guard_main(p[0], before_off, arg);
	}
	close(p[0]);
	*fd = p[1];
	return pid;
}

void cs_guard_stop(pid_t pid, int fd)
{
	if (fd >= 0)
		close(fd);
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

struct topo_file {
	__u32 magic;
	__u32 size;
	struct cs_topo topo;
};

int cs_topo_save(const struct cs_topo *t)
{
	struct topo_file f = { TOPO_MAGIC, sizeof(*t), *t };
	int fd, ret = 0;

	mkdir(CS_RUN_DIR, 0700);
	fd = open(TOPO_CACHE ".tmp", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	if (write(fd, &f, sizeof(f)) != sizeof(f))
		ret = -1;
	close(fd);
	if (!ret && rename(TOPO_CACHE ".tmp", TOPO_CACHE))
		ret = -1;
	return ret;
}

int cs_topo_load(struct cs_topo *t)
{
	struct topo_file f;
	int fd = open(TOPO_CACHE, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, &f, sizeof(f));
	close(fd);
	if (n != sizeof(f) || f.magic != TOPO_MAGIC || f.size != sizeof(*t))
		return -1;
	*t = f.topo;
	return 0;
}
