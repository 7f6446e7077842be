// SPDX-License-Identifier: GPL-2.0-only
/*
 * cookie_get PID: print the core scheduling cookie of task PID, as
 * prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, PID, PIDTYPE_PID) returns it
 * (under scx_coresched its handler answers, else the kernel), in decimal.
 * Exits 1 with the errno on stderr if the prctl fails. The guest tests'
 * cookie_of; a C program because a Python one took seconds to start in a
 * TCG guest whose vCPUs all spin.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62
#define PR_SCHED_CORE_GET 0
#endif
#define PIDTYPE_PID 0

int main(int argc, char **argv)
{
	unsigned long long cookie = 0;
	char *end;
	long pid;

	if (argc != 2) {
		fprintf(stderr, "usage: cookie_get PID\n");
		return 2;
	}
	errno = 0;
	pid = strtol(argv[1], &end, 10);
	if (errno || *end || end == argv[1] || pid < 0 || pid > 0x7fffffff) {
		fprintf(stderr, "cookie_get: '%s' is not a PID\n", argv[1]);
		return 2;
	}
	if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, pid, PIDTYPE_PID,
		  (unsigned long)&cookie)) {
		fprintf(stderr, "prctl GET %ld: errno %d (%s)\n", pid, errno,
			strerror(errno));
		return 1;
	}
	printf("%llu\n", cookie);
	return 0;
}
