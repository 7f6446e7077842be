// SPDX-License-Identifier: GPL-2.0-only
/*
 * calib SECS: for SECS seconds, run bench/calib.bpf.c's fixed work in
 * batches of CALIB_REPEAT runs (the kernel's BPF test-run, which times
 * them in guest time and pauses its clock while the task is switched
 * out), one batch every CALIB_GAP_MS, and print
 *   calib batches=N ns_per_run=MEAN ns_median=MEDIAN ns_min=MIN
 * over the batches' ns per run. bench/scale divides each callback's cost
 * by the mean, the same kind of figure as the kernel's run_time_ns /
 * run_cnt: under TCG a vCPU thread the host switches out in the middle of
 * a run makes that run long, in a callback as in this work, and only a
 * mean counts those runs in the same proportion (bench/calib.bpf.c).
 * Exit status 1 if the program cannot be loaded or no batch ran.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "calib.skel.h"

#define CALIB_REPEAT 200
#define CALIB_GAP_MS 100
#define CALIB_MAX_BATCHES 4096

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_u32(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static unsigned int ns[CALIB_MAX_BATCHES];
	unsigned char pkt[64] = { 0 };
	double secs, end;
	struct calib *skel;
	unsigned long long sum = 0;
	int n = 0, i, fd;

	if (argc != 2 || (secs = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: calib SECS\n");
		return 2;
	}
	skel = calib__open_and_load();
	if (!skel) {
		fprintf(stderr, "calib: cannot load the program: %s\n",
			strerror(errno));
		return 1;
	}
	fd = bpf_program__fd(skel->progs.calib_work);
	end = now_s() + secs;
	while (now_s() < end && n < CALIB_MAX_BATCHES) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt,
			    .data_size_in = sizeof(pkt),
			    .repeat = CALIB_REPEAT);

		if (bpf_prog_test_run_opts(fd, &opts)) {
			fprintf(stderr, "calib: test run failed: %s\n",
				strerror(errno));
			break;
		}
		ns[n++] = opts.duration;
		usleep(CALIB_GAP_MS * 1000);
	}
	calib__destroy(skel);
	if (!n)
		return 1;
	for (i = 0; i < n; i++)
		sum += ns[i];
	qsort(ns, n, sizeof(ns[0]), cmp_u32);
	printf("calib batches=%d ns_per_run=%llu ns_median=%u ns_min=%u\n", n,
	       sum / n, ns[n / 2], ns[0]);
	return 0;
}
