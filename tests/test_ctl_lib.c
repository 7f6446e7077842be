// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of libcoresched's task calls, linked against the shared library.
 * On a host without core scheduling only the checks that come before the
 * prctl run (pidfd resolution, argument checks); where prctl works (a
 * tools/vm guest with SMT) the calls themselves are checked too.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "harness.h"
#include "libcoresched.h"

static bool supported;

static int pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* A child that sleeps until killed. */
static pid_t sleeper(void)
{
	pid_t pid = fork();

	if (!pid) {
		pause();
		_exit(0);
	}
	return pid;
}

static bool test_pidfd_not_pidfd(void)
{
	int fds[2];
	__u64 c;

	CHECK(!pipe(fds), "pipe");
	CHECK_INT(cs_get_pidfd(fds[0], &c), -EBADF);
	CHECK(strstr(cs_errmsg(), "is not a pidfd"), "message: %s",
	      cs_errmsg());
	close(fds[0]);
	CHECK_INT(cs_create_pidfd(fds[0], CS_SCOPE_THREAD), -EBADF);
	CHECK(strstr(cs_errmsg(), "is not open"), "message: %s", cs_errmsg());
	return true;
}

static bool test_pidfd_reaped(void)
{
	pid_t pid = fork();
	int fd, status;
	__u64 c;

	if (!pid)
		_exit(0);
	fd = pidfd_open(pid);
	CHECK(fd >= 0, "pidfd_open: %s", strerror(errno));
	waitpid(pid, &status, 0);
	CHECK_INT(cs_get_pidfd(fd, &c), -ESRCH);
	CHECK_INT(cs_clear_pidfd(fd, CS_SCOPE_THREAD_GROUP), -ESRCH);
	CHECK(strstr(cs_errmsg(), "has exited"), "message: %s", cs_errmsg());
	return true;
}

static bool test_bad_scope(void)
{
	CHECK_INT(cs_create(0, (enum cs_scope)3), -EINVAL);
	CHECK(strstr(cs_errmsg(), "invalid scope 3"), "message: %s",
	      cs_errmsg());
	CHECK_INT(cs_share_to(0, (enum cs_scope)-1), -EINVAL);
	return true;
}

static bool test_pidfd_calls(void)
{
	pid_t pid = sleeper();
	__u64 a = 0, b = 1;
	int fd = pidfd_open(pid);

	CHECK(fd >= 0, "pidfd_open: %s", strerror(errno));
	CHECK_INT(cs_create_pidfd(fd, CS_SCOPE_THREAD_GROUP), 0);
	CHECK_INT(cs_get_pidfd(fd, &a), 0);
	CHECK(a != 0, "no cookie after create");
	CHECK_INT(cs_get(pid, &b), 0);
	CHECK_EQ(a, b);
	CHECK_INT(cs_share_from_pidfd(fd), 0);
	CHECK_INT(cs_get(0, &b), 0);
	CHECK_EQ(b, a);
	/* We hold its cookie now: clearing needs the helper thread. */
	CHECK_INT(cs_clear_pidfd(fd, CS_SCOPE_THREAD_GROUP), 0);
	CHECK_INT(cs_get(pid, &b), 0);
	CHECK_EQ(b, 0);
	CHECK_INT(cs_get(0, &b), 0);
	CHECK_EQ(b, a); /* the caller kept its cookie */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK_INT(cs_share_to_pidfd(fd, CS_SCOPE_THREAD), -ESRCH);
	return true;
}

static bool test_missing_pid(void)
{
	__u64 c;
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	CHECK_INT(cs_get(pid, &c), -ESRCH);
	CHECK(strstr(cs_errmsg(), "no such process"), "message: %s",
	      cs_errmsg());
	return true;
}

int main(void)
{
	int err = cs_supported();

	supported = !err;
	if (!supported)
		printf("# prctl(PR_SCHED_CORE) unavailable here (%s): only the checks before it run\n",
		       strerror(-err));
	RUN(pidfd_not_pidfd);
	RUN(pidfd_reaped);
	RUN(bad_scope);
	if (supported) {
		RUN(pidfd_calls);
		RUN(missing_pid);
	}
	return nr_failed ? 1 : 0;
}
