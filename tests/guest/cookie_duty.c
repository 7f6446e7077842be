// SPDX-License-Identifier: GPL-2.0-only
/*
 * cookie_duty COOKIES TASKS SECONDS: TASKS tasks in COOKIES core
 * scheduling cookies (as even as it goes), each busy 6 ms then asleep
 * 4 ms, for SECONDS. Forks one child per cookie, which takes a new cookie
 * with prctl(PR_SCHED_CORE_CREATE, scope thread group) and forks the
 * cookie's other tasks, which inherit it. The sleeps make wakeups, so
 * every scheduler callback runs (bench/scale_guest.sh). Prints "cookies N
 * tasks T failed F"; exits 1 if a cookie could not be created.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Work 6 ms, sleep 4 ms, until @end. */
static void duty(long long end)
{
	struct timespec nap = { 0, 4000000 };

	while (now_ns() < end) {
		long long until = now_ns() + 6000000;

		while (now_ns() < until)
			;
		nanosleep(&nap, NULL);
	}
}

/* One cookie: take it, fork its other @nr - 1 tasks, work; 0 or 1. */
static int cookie(int nr, long long end)
{
	int i;

	if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0,
		  PR_SCHED_CORE_SCOPE_THREAD_GROUP, 0)) {
		fprintf(stderr, "cookie_duty: PR_SCHED_CORE_CREATE: %s\n",
			strerror(errno));
		return 1;
	}
	for (i = 1; i < nr; i++)
		if (fork() == 0) {
			duty(end);
			_exit(0);
		}
	duty(end);
	while (wait(NULL) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	int cookies = argc == 4 ? atoi(argv[1]) : 0;
	int tasks = argc == 4 ? atoi(argv[2]) : 0;
	int secs = argc == 4 ? atoi(argv[3]) : 0;
	int i, st, failed = 0;
	long long end;

	if (cookies < 1 || tasks < cookies || secs < 1) {
		fprintf(stderr,
			"usage: cookie_duty COOKIES TASKS SECONDS (TASKS >= COOKIES >= 1)\n");
		return 2;
	}
	end = now_ns() + secs * 1000000000LL;
	for (i = 0; i < cookies; i++) {
		int nr = tasks / cookies + (i < tasks % cookies);

		if (fork() == 0)
			_exit(cookie(nr, end));
	}
	while (wait(&st) > 0)
		failed += !WIFEXITED(st) || WEXITSTATUS(st);
	printf("cookies %d tasks %d failed %d\n", cookies, tasks, failed);
	return failed ? 1 : 0;
}
