// SPDX-License-Identifier: GPL-2.0-only
/*
 * broken_sched: loads tests/guest/broken.bpf.c (a global FIFO that
 * ignores cookies; for coresched-audit's tests only) and keeps it loaded
 * until SIGINT or SIGTERM. Prints "broken_sched: attached" on stderr once
 * the kernel runs it. Exit status: 0 stopped by a signal; 1 it could not
 * be loaded, or the kernel ejected it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "broken.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Is a sched_ext scheduler enabled? */
static bool scx_enabled(void)
{
	char buf[32] = "";
	FILE *f = fopen("/sys/kernel/sched_ext/state", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	return !strncmp(buf, "enabled", 7);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct bpf_link *link;
	struct broken *skel;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	skel = broken__open_and_load();
	if (!skel) {
		fprintf(stderr, "broken_sched: cannot load: %s\n",
			strerror(errno));
		return 1;
	}
	link = bpf_map__attach_struct_ops(skel->maps.broken_ops);
	if (!link) {
		fprintf(stderr, "broken_sched: cannot attach: %s\n",
			strerror(errno));
		broken__destroy(skel);
		return 1;
	}
	fprintf(stderr, "broken_sched: attached\n");
	while (!stop && scx_enabled())
		sleep(1);
	bpf_link__destroy(link);
	broken__destroy(skel);
	if (!stop) {
		fprintf(stderr, "broken_sched: the kernel ejected it\n");
		return 1;
	}
	return 0;
}
