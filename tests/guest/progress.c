// SPDX-License-Identifier: GPL-2.0-only
/*
 * progress: a worker that reports how much it got done in every interval.
 *
 *   progress cpu|mem SECS [INTERVAL_MS]
 *
 * Prints one line per interval, "<n> <units>", where units are loop
 * iterations (cpu: integer arithmetic; mem: cache-missing walks over a
 * 64 MiB buffer). The guest tests use it to check that every worker makes
 * progress in every interval and to compare throughput.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t len = 64 << 20, idx = 0;
	unsigned long long n = 0, x = 1;
	double end, next, interval;
	unsigned char *buf = NULL;
	int mem;

	if (argc < 3 || (strcmp(argv[1], "cpu") && strcmp(argv[1], "mem"))) {
		fprintf(stderr, "usage: progress cpu|mem SECS [INTERVAL_MS]\n");
		return 2;
	}
	mem = !strcmp(argv[1], "mem");
	interval = argc > 3 ? atoi(argv[3]) / 1000.0 : 1.0;
	if (mem) {
		buf = malloc(len);
		if (!buf)
			return 1;
		memset(buf, 1, len);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	next = now() + interval;
	end = now() + atof(argv[2]);
	for (;;) {
		int i;

		for (i = 0; i < 1000; i++) {
			if (mem) {
				idx = (idx + 4096 * 17 + 64) % len;
				x += buf[idx]++;
			} else {
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			}
		}
		n++;
		if (now() >= next) {
			printf("%llu\n", n);
			n = 0;
			next += interval;
			if (next > end)
				break;
		}
	}
	return x == 42; /* keep x alive */
}
