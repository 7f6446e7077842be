// SPDX-License-Identifier: GPL-2.0-only
/*
 * cookie_spin THREADS SECONDS: a tenant of the kernel's own core
 * scheduling. Gives this thread group a new core scheduling cookie (prctl
 * PR_SCHED_CORE_CREATE, scope PR_SCHED_CORE_SCOPE_THREAD_GROUP, which is
 * PIDTYPE_TGID), then spins THREADS threads for SECONDS seconds. It
 * sleeps 2 ms (two ticks) between the two, so that the outside observer,
 * which reads a task's cookie when the task is switched in, records the
 * main thread's new one before its threads run beside it (a running
 * task's new cookie takes effect at its next tick: README, "Differences
 * from upstream").
 * Built by make (build/cookie_spin); the guest tests' $SPIN.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <sys/prctl.h>

static time_t deadline;

static void *spin(void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
	while (time(NULL) < deadline)
		n++;
	return NULL;
}

int main(int argc, char **argv)
{
	int i, nr = argc == 3 ? atoi(argv[1]) : 0;
	int secs = argc == 3 ? atoi(argv[2]) : 0;
	pthread_t *tids;

	if (nr <= 0 || secs <= 0) {
		fprintf(stderr, "usage: cookie_spin THREADS SECONDS\n");
		return 2;
	}
	if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0,
		  PR_SCHED_CORE_SCOPE_THREAD_GROUP, 0)) {
		fprintf(stderr, "cookie_spin: PR_SCHED_CORE_CREATE: %s\n",
			strerror(errno));
		return 1;
	}
	usleep(2000);
	deadline = time(NULL) + secs;
	tids = calloc(nr, sizeof(*tids));
	if (!tids)
		return 1;
	for (i = 0; i < nr; i++)
		if (pthread_create(&tids[i], NULL, spin, NULL))
			return 1;
	for (i = 0; i < nr; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
