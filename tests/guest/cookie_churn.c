// SPDX-License-Identifier: GPL-2.0-only
/*
 * cookie_churn N [PARALLEL]: create and destroy N per-task core scheduling
 * cookies. Forks N short children (at most PARALLEL alive at once, default
 * 4); each one takes a new cookie with prctl(PR_SCHED_CORE_CREATE, scope
 * thread group), checks with PR_SCHED_CORE_GET that it has a cookie other
 * than its parent's, spins about a millisecond so that it is queued and run
 * with that cookie, and exits, which destroys the cookie.
 *
 * Prints "created N failed F first_error E" and exits 1 if any child
 * failed. Used by tests/guest/soak.sh (case churn).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static unsigned long long get_cookie(void)
{
	unsigned long long c = 0;

	if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0,
		  PR_SCHED_CORE_SCOPE_THREAD, (unsigned long)&c))
		return ~0ULL;
	return c;
}

static void spin_ms(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec <
	       ms * 1000000L);
}

/* The child: 0 if it got a cookie of its own, else an errno-like code. */
static int child(unsigned long long parent)
{
	unsigned long long c;

	if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0,
		  PR_SCHED_CORE_SCOPE_THREAD_GROUP, 0))
		return errno ? errno : 1;
	c = get_cookie();
	if (c == ~0ULL || c == 0 || c == parent)
		return 200;
	spin_ms(1);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	int par = argc > 2 ? atoi(argv[2]) : 4;
	int started = 0, alive = 0, ok = 0, failed = 0, first = 0;
	unsigned long long parent = get_cookie();

	if (n <= 0 || par <= 0) {
		fprintf(stderr, "usage: cookie_churn N [PARALLEL]\n");
		return 2;
	}
	while (ok + failed < n) {
		int status;
		pid_t pid;

		if (started < n && alive < par) {
			pid = fork();
			if (pid == 0)
				_exit(child(parent));
			if (pid > 0) {
				started++;
				alive++;
				continue;
			}
			if (!first)
				first = errno;
			failed++;
			started++;
			continue;
		}
		pid = wait(&status);
		if (pid < 0)
			break;
		alive--;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			ok++;
		} else {
			failed++;
			if (!first)
				first = WIFEXITED(status) ? WEXITSTATUS(status) :
							    -WTERMSIG(status);
		}
	}
	printf("created %d failed %d first_error %d\n", ok, failed, first);
	return failed ? 1 : 0;
}
