/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tiny harness for the host unit tests: each test is a bool function
 * using CHECK*, run in a child process (a crash or a hang still gives its
 * FAIL line); one line per test, "PASS name" or "FAIL name: why".
 */
#ifndef __TESTS_HARNESS_H
#define __TESTS_HARNESS_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TEST_TIMEOUT /* a test file may allow its tests longer */
#define TEST_TIMEOUT 10 /* seconds */
#endif

static char fail_msg[512];
static int nr_failed;

#define CHECK(cond, fmt, ...)						\
	do {								\
		if (!(cond)) {						\
			snprintf(fail_msg, sizeof(fail_msg), "line %d: " fmt, \
				 __LINE__, ##__VA_ARGS__);		\
			return false;					\
		}							\
	} while (0)

#define CHECK_EQ(got, want)						\
	do {								\
		unsigned long long g_ = (got), w_ = (want);		\
		CHECK(g_ == w_, "%s = %llu (%#llx), expected %llu (%#llx)", \
		      #got, g_, g_, w_, w_);				\
	} while (0)

/*
 * Run one test in a child process, so that a crash or a hang still gives
 * its FAIL line and the other tests still run.
 */
static void run(const char *name, bool (*test)(void))
{
	char msg[sizeof(fail_msg)] = "";
	size_t got = 0;
	ssize_t n;
	int fd[2], status;
	pid_t pid;

	fflush(stdout);
	if (pipe(fd) || (pid = fork()) < 0) {
		printf("FAIL %s: cannot fork: %s\n", name, strerror(errno));
		nr_failed++;
		return;
	}
	if (!pid) {
		bool ok;

		close(fd[0]);
		alarm(TEST_TIMEOUT);
		ok = test();
		if (!ok && write(fd[1], fail_msg, strlen(fail_msg)) < 0)
			_exit(2);
		_exit(ok ? 0 : 1);
	}
	close(fd[1]);
	while (got < sizeof(msg) - 1 &&
	       (n = read(fd[0], msg + got, sizeof(msg) - 1 - got)) > 0)
		got += n;
	msg[got] = '\0';
	close(fd[0]);
	if (waitpid(pid, &status, 0) < 0)
		status = -1;
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		printf("PASS %s\n", name);
		return;
	}
	nr_failed++;
	if (WIFSIGNALED(status))
		printf("FAIL %s: killed by signal %d (%s)\n", name,
		       WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		printf("FAIL %s: %s\n", name, got ? msg : "no message");
}

#define RUN(name) run(#name, test_##name)

#define CHECK_INT(got, want)						\
	do {								\
		long long g_ = (got), w_ = (want);			\
		CHECK(g_ == w_, "%s = %lld, expected %lld", #got, g_,	\
		      w_);						\
	} while (0)

#define ARRAY_SIZE(a) ((int)(sizeof(a) / sizeof((a)[0])))

#endif /* __TESTS_HARNESS_H */
