// SPDX-License-Identifier: GPL-2.0-only
/*
 * prctl_check: the kernel's own core scheduling (PR_SCHED_CORE), the
 * upstream anchor. Prints PASS/FAIL lines for create, get and fork
 * inheritance.
 */
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62
#define PR_SCHED_CORE_GET 0
#define PR_SCHED_CORE_CREATE 1
#endif
#define PIDTYPE_PID 0

static unsigned long long get_cookie(pid_t pid)
{
	unsigned long long c = 0;

	if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, pid, PIDTYPE_PID,
		  (unsigned long)&c))
		return ~0ULL;
	return c;
}

int main(void)
{
	unsigned long long before = get_cookie(0), mine, child;
	int fds[2], status, bad = 0;
	pid_t pid;

	printf("%s upstream_prctl_untagged_zero%s\n", before == 0 ? "PASS" : "FAIL",
	       before == 0 ? "" : ": a fresh process has a nonzero cookie");
	bad |= before != 0;
	if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0, PIDTYPE_PID, 0)) {
		perror("prctl(PR_SCHED_CORE_CREATE)");
		printf("FAIL upstream_prctl_create: prctl failed\n");
		return 1;
	}
	mine = get_cookie(0);
	printf("%s upstream_prctl_create\n", mine && mine != ~0ULL ? "PASS" : "FAIL");
	bad |= !mine || mine == ~0ULL;
	if (pipe(fds))
		return 1;
	pid = fork();
	if (pid == 0) {
		unsigned long long c = get_cookie(0);

		if (write(fds[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	if (read(fds[0], &child, sizeof(child)) != sizeof(child))
		child = 0;
	printf("%s upstream_prctl_fork_inherits%s\n",
	       child == mine ? "PASS" : "FAIL",
	       child == mine ? "" : ": child cookie differs from parent's");
	bad |= child != mine;
	return bad;
}
