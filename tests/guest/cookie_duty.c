// SPDX-License-Identifier: GPL-2.0-only
/*
 * cookie_duty COOKIES TASKS SECONDS [BUSY_MS SLEEP_MS]: TASKS tasks in
 * COOKIES core scheduling cookies (as even as it goes), each busy BUSY_MS
 * (default 6) then asleep SLEEP_MS (default 4), in turn. Each cookie is a
 * process (forked by one of CD_SPAWNERS spawners) that takes a new cookie
 * with prctl(PR_SCHED_CORE_CREATE, scope thread group) and forks the
 * cookie's other tasks, which inherit it. The sleeps make wakeups, so
 * every scheduler callback runs (bench/scale_guest.sh).
 *
 * Every task waits until all have started (at most CD_START_SECS), so
 * that the busy ones do not slow the forks of the others; then they all
 * run for SECONDS, and each task's finished busy periods are counted.
 * They wait on a futex, woken at once. (They waited for a pipe's EOF
 * before: woken together, all of them then took the pipe's mutex in
 * turn. With the same scheduler, 2,729 to 2,991 of 4,097 tasks
 * progressed that way and 4,088 with the futex; that the mutex's
 * spinning charged some cookies far more core time than others is the
 * likely cause, not measured.)
 * Prints "go S" when they go, then "cookies N tasks T failed F started S
 * progressed P slowest R median M fastest X start A window W": F cookies
 * could not be created, S tasks started, P tasks finished at least one
 * busy period in the SECONDS, the slowest task finished R of them, the
 * median one M, the fastest X; starting took A seconds, and this process
 * woke W seconds after they went (more than SECONDS when it waited for a
 * CPU: untagged, it shares one cookie's turn). Only busy periods that
 * ended within the SECONDS count, however late this process looks.
 * Exits 1 unless every cookie was created and every task progressed
 * (tests/guest/cookies.sh). With CD_RUNS=FILE in the environment, each
 * task's count and timings go to FILE too (write_runs; task i is of
 * cookie i when there are as many tasks as cookies).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define CD_START_SECS 300 /* for every task to start */
#define CD_MAX_TASKS 65536
#define CD_SPAWNERS 8 /* processes that fork the cookies */

/* One task's figures (write_runs prints them). */
struct task_log {
	unsigned long runs; /* busy periods that ended in time */
	long long first_ns; /* its first timestamp after the go, since the go */
	long long gap_ns; /* longest time between two ends of a period */
	long long cpu_ns; /* CPU time from its wait for the go to its exit */
	/* Its first busy period: CPU time, and the longest step of its loop */
	long long first_cpu_ns, first_step_ns;
	/* and its context switches: involuntary, voluntary */
	long first_nivcsw, first_nvcsw;
};

/*
 * Shared by every task: how many started, stop, cookies that failed and
 * the tasks they would have had, and each task's figures.
 */
struct board {
	int started, go, stop, failed, failed_tasks;
	long long go_at; /* when they went */
	long long until; /* busy periods count if they end before this */
	struct task_log task[];
};

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static long long cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long busy_ms = 6, sleep_ms = 4;

/* This thread's context switches so far: involuntary, voluntary. */
static void switches(long *inv, long *vol)
{
	struct rusage ru = { 0 };

	getrusage(RUSAGE_THREAD, &ru);
	*inv = ru.ru_nivcsw;
	*vol = ru.ru_nvcsw;
}

/*
 * The first busy period of @log, begun with CPU time @cpu0 and switch
 * counts @inv0 and @vol0: how much CPU time it took, the longest step of
 * its loop (a preemption, a block, or a vCPU the host did not run), the
 * context switches in it.
 */
static void note_first(struct task_log *log, long long cpu0, long inv0,
		       long vol0, long long step)
{
	long inv, vol;

	switches(&inv, &vol);
	log->first_cpu_ns = cpu_ns() - cpu0;
	log->first_step_ns = step;
	log->first_nivcsw = inv - inv0;
	log->first_nvcsw = vol - vol0;
}

/* Work, sleep, until told to stop; count the work in task[@i]. */
static void duty(struct board *b, int i)
{
	struct task_log *log = &b->task[i];
	long long cpu0, last, cpu1;
	bool first = true;
	long inv1, vol1;

	/*
	 * Map its log's page(s) now: the first write of each process to a
	 * page of the shared board faults (fork copies no page tables of a
	 * shared mapping), and about 70 logs share a page. Made after the
	 * go, that fault could wait for the page's lock behind a task of
	 * another cookie, preempted while it held it: in one run, tasks of
	 * one page sat 7 s together in their first period, blocked.
	 */
	memset(log, 0, sizeof(*log));
	cpu0 = cpu_ns();
	__atomic_add_fetch(&b->started, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&b->go, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, &b->go, FUTEX_WAIT, 0, NULL, NULL, 0);
	cpu1 = cpu_ns();
	switches(&inv1, &vol1);
	last = now_ns();
	log->first_ns = last - b->go_at;
	last = now_ns(); /* its first step starts after that write */
	while (!__atomic_load_n(&b->stop, __ATOMIC_SEQ_CST)) {
		long long until = now_ns() + busy_ms * 1000000, end;
		long long prev = last, step = 0;

		do {
			end = now_ns();
			if (end - prev > step)
				step = end - prev;
			prev = end;
		} while (end < until);
		if (first)
			note_first(log, cpu1, inv1, vol1, step);
		first = false;
		/* By when it ended: a period begun in time may end late. */
		if (end <= __atomic_load_n(&b->until, __ATOMIC_RELAXED))
			__atomic_add_fetch(&log->runs, 1, __ATOMIC_RELAXED);
		if (end - last > log->gap_ns)
			log->gap_ns = end - last;
		last = end;
		nap_ms(sleep_ms);
	}
	log->cpu_ns = cpu_ns() - cpu0;
}

/*
 * @nr tasks that will never start (@why failed, errno says how); @cookie:
 * they were a whole cookie, which was not created.
 */
static void lost(struct board *b, int nr, bool cookie, const char *why)
{
	fprintf(stderr, "cookie_duty: %s: %s\n", why, strerror(errno));
	__atomic_add_fetch(&b->failed_tasks, nr, __ATOMIC_SEQ_CST);
	if (cookie)
		__atomic_add_fetch(&b->failed, 1, __ATOMIC_SEQ_CST);
}

/* One cookie: take it, fork its other @nr - 1 tasks (@first + 1 ...). */
static int cookie(struct board *b, int first, int nr)
{
	int i;

	if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0,
		  PR_SCHED_CORE_SCOPE_THREAD_GROUP, 0)) {
		lost(b, nr, true, "PR_SCHED_CORE_CREATE");
		return 1;
	}
	for (i = 1; i < nr; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			duty(b, first + i);
			_exit(0);
		}
		if (pid < 0)
			lost(b, 1, false, "fork of a task");
	}
	duty(b, first);
	while (wait(NULL) > 0)
		;
	return 0;
}

/* The first task index of cookie @i: tasks spread as evenly as it goes. */
static int first_task(int i, int cookies, int tasks)
{
	int rem = tasks % cookies;

	return i * (tasks / cookies) + (i < rem ? i : rem);
}

/*
 * Spawner @k of @nr: fork cookies k, k + nr, ... (several spawners fork
 * at once: a fork takes tens of ms in a TCG guest), then wait for them.
 */
static int spawner(struct board *b, int k, int nr, int cookies, int tasks)
{
	int i;

	for (i = k; i < cookies; i += nr) {
		int first = first_task(i, cookies, tasks);
		int nr_tasks = first_task(i + 1, cookies, tasks) - first;
		pid_t pid = fork();

		if (pid == 0)
			_exit(cookie(b, first, nr_tasks));
		if (pid < 0)
			lost(b, nr_tasks, true, "fork of a cookie");
	}
	while (wait(NULL) > 0)
		;
	return 0;
}

/*
 * With CD_RUNS=FILE: per task, "TASK RUNS FIRST_MS GAP_MS CPU_US
 * FIRST_CPU_US FIRST_STEP_US FIRST_NIVCSW FIRST_NVCSW" a line:
 * its busy periods in time; its first timestamp after the go (taken in
 * user space once the wait returns: a task preempted on its way out of
 * the futex ran before it); its longest time between two ends of a
 * period (from that first timestamp for the first); its CPU time from its
 * wait for the go to its exit; of its first busy period (from that first
 * timestamp to its end), the CPU time, the longest step between two
 * looks at the clock (the loop's own, or a stall: preempted, blocked, or
 * its vCPU not run by the host) and its involuntary and voluntary
 * context switches. A task whose cookie or fork failed has a line of
 * zeros (no CPU time).
 */
static void write_runs(const char *path, const struct board *b,
		       const unsigned long *at, int tasks)
{
	FILE *f = path ? fopen(path, "w") : NULL;
	int i;

	if (path && !f) {
		fprintf(stderr, "cookie_duty: %s: %s\n", path, strerror(errno));
		return;
	}
	for (i = 0; f && i < tasks; i++)
		fprintf(f, "%d %lu %lld %lld %lld %lld %lld %ld %ld\n", i,
			at[i], b->task[i].first_ns / 1000000,
			b->task[i].gap_ns / 1000000, b->task[i].cpu_ns / 1000,
			b->task[i].first_cpu_ns / 1000,
			b->task[i].first_step_ns / 1000,
			b->task[i].first_nivcsw, b->task[i].first_nvcsw);
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	bool ok = argc == 4 || argc == 6;
	int cookies = ok ? atoi(argv[1]) : 0;
	int tasks = ok ? atoi(argv[2]) : 0;
	int secs = ok ? atoi(argv[3]) : 0;
	int i, started, progressed = 0, nr_spawners;
	unsigned long *at;
	long long deadline, start_at = now_ns(), go_at, end_at;
	struct board *b;

	if (argc == 6) {
		busy_ms = atol(argv[4]);
		sleep_ms = atol(argv[5]);
	}
	if (cookies < 1 || tasks < cookies || tasks > CD_MAX_TASKS ||
	    secs < 1 || busy_ms < 1 || sleep_ms < 0) {
		fprintf(stderr,
			"usage: cookie_duty COOKIES TASKS SECONDS [BUSY_MS SLEEP_MS] (%d >= TASKS >= COOKIES >= 1)\n",
			CD_MAX_TASKS);
		return 2;
	}
	b = mmap(NULL, sizeof(*b) + tasks * sizeof(b->task[0]),
		 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	at = calloc(tasks, sizeof(*at));
	if (b == MAP_FAILED || !at) {
		perror("cookie_duty: memory");
		return 1;
	}
	nr_spawners = cookies < CD_SPAWNERS ? cookies : CD_SPAWNERS;
	for (i = 0; i < nr_spawners; i++)
		if (fork() == 0)
			_exit(spawner(b, i, nr_spawners, cookies, tasks));
	deadline = now_ns() + CD_START_SECS * 1000000000LL;
	while (__atomic_load_n(&b->started, __ATOMIC_SEQ_CST) +
			       __atomic_load_n(&b->failed_tasks,
					       __ATOMIC_SEQ_CST) <
		       tasks &&
	       now_ns() < deadline)
		nap_ms(50);
	started = __atomic_load_n(&b->started, __ATOMIC_SEQ_CST);
	printf("go %d\n", started);
	fflush(stdout);
	go_at = now_ns();
	b->go_at = go_at;
	b->until = go_at + secs * 1000000000LL;
	for (i = 0; i < tasks; i++)
		at[i] = __atomic_load_n(&b->task[i].runs, __ATOMIC_RELAXED);
	__atomic_store_n(&b->go, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &b->go, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	nap_ms(secs * 1000L);
	end_at = now_ns();
	/* Every task gone: each period that ended in time is counted. */
	__atomic_store_n(&b->stop, 1, __ATOMIC_SEQ_CST);
	while (wait(NULL) > 0)
		;
	for (i = 0; i < tasks; i++) {
		at[i] = __atomic_load_n(&b->task[i].runs, __ATOMIC_RELAXED) -
			at[i];
		progressed += at[i] > 0;
	}
	write_runs(getenv("CD_RUNS"), b, at, tasks);
	qsort(at, tasks, sizeof(*at), cmp_ulong);
	printf("cookies %d tasks %d failed %d started %d progressed %d slowest %lu median %lu fastest %lu start %.1f window %.1f\n",
	       cookies, tasks, b->failed, started, progressed, at[0],
	       at[tasks / 2], at[tasks - 1], (go_at - start_at) / 1e9,
	       (end_at - go_at) / 1e9);
	return b->failed || progressed < tasks ? 1 : 0;
}
