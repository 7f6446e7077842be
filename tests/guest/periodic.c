// SPDX-License-Identifier: GPL-2.0-only
/*
 * periodic PERIOD_US RUN_US SECS: a periodic real-time style task. Wakes
 * every PERIOD_US microseconds (absolute CLOCK_MONOTONIC deadlines), spins
 * RUN_US microseconds, for SECS seconds or until SIGINT/SIGTERM. Run it
 * under chrt -f or chrt -d (tests/guest/soak.sh, case rtdl).
 *
 * Prints "cycles N missed M max_late_us L": cycles run, periods whose
 * wakeup came after the next period had begun, and the worst lateness of
 * a wakeup. Exits 1 if it ran no cycle.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000LL

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long period, run, end, next, late, woke, max_late = 0;
	unsigned long long cycles = 0, missed = 0;
	struct timespec ts;

	if (argc != 4 || atoll(argv[1]) <= 0 || atoll(argv[2]) < 0 ||
	    atoll(argv[3]) <= 0) {
		fprintf(stderr, "usage: periodic PERIOD_US RUN_US SECS\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	period = atoll(argv[1]) * 1000;
	run = atoll(argv[2]) * 1000;
	next = now_ns();
	end = next + atoll(argv[3]) * NSEC_PER_SEC;
	while (next < end && !stop) {
		next += period;
		ts.tv_sec = next / NSEC_PER_SEC;
		ts.tv_nsec = next % NSEC_PER_SEC;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR && !stop)
			;
		if (stop)
			break;
		woke = now_ns();
		late = woke - next;
		if (late > max_late)
			max_late = late;
		if (late > period) {
			missed++;
			/* Skip the periods already over, as a real task would. */
			next += late / period * period;
		}
		while (now_ns() - woke < run)
			;
		cycles++;
	}
	printf("cycles %llu missed %llu max_late_us %lld\n", cycles, missed,
	       max_late / 1000);
	return cycles == 0;
}
