// SPDX-License-Identifier: GPL-2.0-only
/*
 * The drain before SMT goes off under the scheduler (fail-mode closed,
 * bpf/coresched.bpf.c, Draining): the siblings that go down are told to
 * run nothing but their own kernel threads, the tasks waiting on their
 * runqueues are moved to CPUs that stay (bpf/claim.bpf.h, Stranded
 * tasks), and only then does the caller switch SMT off. From the start
 * of the drain every tagged cookie is charged at weight 100
 * (bpf/slots.bpf.h, drain_even): a cookie of tiny weight would otherwise
 * hold the hotplug up, its tasks' mm locks awaited by cpuhp/N. Run by the
 * loader before it ends, or by its guard process (src/cs_guard.c) when
 * the loader is gone, through the scheduler's .bss, which both map.
 *
 * Example, 2x2 (cores {0,1} and {2,3}): CPUs 1 and 3 are marked
 * draining; once neither runs anything but its kthreads, the scan moves
 * the 4 tasks waiting on CPU 1 to CPU 0 and 2 ("siblings drained in 8.3
 * ms (4 waiting tasks moved off them)"); a task allowed only CPU 1 stays,
 * and is named in a message instead of being waited for.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cs_common.h"
#include "cs_drain.h"
#include "cs_guard.h"
#include "cs_policy.h"

/*
 * Move the tasks that wait on a draining CPU's runqueue and may run
 * elsewhere off it, and count those left (bpf/claim.bpf.h, Stranded
 * tasks): 0, or -errno.
 */
static int scan_stranded(const struct drain_arg *d)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	int fd = bpf_program__fd(d->skel->progs.cs_drain_evacuate);
	int ret = bpf_prog_test_run_opts(fd, &run);

	return ret < 0 ? -errno : 0;
}

/* Does @cpu run nothing but its own kernel threads (or nothing)? */
static bool cpu_quiet(const struct drain_arg *d, int cpu)
{
	volatile struct coresched__bss *bss = d->skel->bss;
	int core = bss->cpu_core[cpu], sib = bss->cpu_sib[cpu];

	return bss->drained[cpu] || !bss->cpu_known[cpu] ||
	       cs_cur(bss->core_state[core].word, sib) == CS_SLOT_NONE;
}

/*
 * The draining CPUs that still run other work (@tasks NULL), or whose
 * count in @tasks (a per-CPU array of the scan: stranded[], unmovable[])
 * is not 0, adding those counts to *@sum if given; the first of them in
 * *first.
 */
static int count_left(const struct drain_arg *d, const volatile __u32 *tasks,
		      int *first, unsigned int *sum)
{
	volatile struct coresched__bss *bss = d->skel->bss;
	int cpu, left = 0;

	*first = -1;
	for (cpu = 0; cpu < CS_MAX_CPUS; cpu++) {
		if (!bss->drain_cpu[cpu] ||
		    (tasks ? !tasks[cpu] : cpu_quiet(d, cpu)))
			continue;
		if (!left++)
			*first = cpu;
		if (tasks && sum)
			*sum += tasks[cpu];
	}
	return left;
}

/* Say which tasks the scan could not move because they cannot leave. */
static void say_unmovable(const struct drain_arg *d)
{
	unsigned int n = 0;
	int first;

	count_left(d, d->skel->bss->unmovable, &first, &n);
	if (n)
		fprintf(stderr,
			"scx_coresched: %u tasks waiting on the siblings going down (CPU %d first) may run on no CPU that stays (their affinity, or in migrate_disable): they run there once, beside their siblings' work, as the siblings go down\n",
			n, first);
}

/*
 * Before SMT goes off under the scheduler: drain every sibling but the
 * lowest-numbered of each core (the kernel's primary thread, the one that
 * stays online; bpf/coresched.bpf.c, Draining) and wait until each runs
 * nothing but its own kernel threads and holds no task that may run
 * elsewhere (scan_stranded), up to CS_DRAIN_WAIT_MS (then it says so).
 * Nothing to do if SMT is off already. The cores are read from the
 * scheduler's .bss, which the guard shares: CPUs placed after the guard
 * forked (serve_fenced) are there.
 */
void cs_drain_siblings(void *arg)
{
	const struct drain_arg *d = arg;
	volatile struct coresched__bss *bss = d->skel->bss;
	volatile __u8 *drain = bss->drain_cpu;
	__u64 t0 = cs_now_ns();
	int core, i, nr = 0, left = 0, first = -1, low, err = 0;
	bool stranded = false;

	if (!cs_smt_on()) { /* off already: nothing goes down */
		char ctl[32] = "?", online[64] = "?";

		cs_read_line(CS_SMT_CONTROL, ctl, sizeof(ctl));
		cs_read_line("/sys/devices/system/cpu/online", online,
			     sizeof(online));
		fprintf(stderr,
			"scx_coresched: no sibling to drain: SMT control is '%s', not 'on' (CPUs online: %s)\n",
			ctl, online);
		return;
	}
	for (core = 0; core < CS_MAX_CPUS; core++) {
		int n = bss->core_nr[core] < CS_MAX_SMT ? bss->core_nr[core] :
							  CS_MAX_SMT;

		for (low = 0, i = 1; i < n; i++)
			if (bss->core_cpu[core][i] < bss->core_cpu[core][low])
				low = i;
		for (i = 0; i < n; i++) {
			if (i == low)
				continue;
			__atomic_store_n(&drain[bss->core_cpu[core][i] %
						CS_MAX_CPUS],
					 1, __ATOMIC_SEQ_CST);
			nr++;
		}
	}
	if (!nr) {
		fprintf(stderr,
			"scx_coresched: no core with more than one CPU known: no sibling to drain\n");
		return;
	}
	/* Every tagged cookie at weight 100 until the end (slots.bpf.h). */
	__atomic_store_n(&bss->drain_even, 1, __ATOMIC_SEQ_CST);
	bss->evacuated = 0;
	/*
	 * First every draining CPU runs nothing but its kthreads; then the
	 * tasks stranded on them move (scan_stranded), which is safe only
	 * once they are quiet (bpf/claim.bpf.h, Stranded tasks).
	 */
	for (;;) {
		stranded = false;
		left = count_left(d, NULL, &first, NULL);
		if (!left) {
			err = scan_stranded(d);
			if (err)
				break;
			stranded = true;
			left = count_left(d, bss->stranded, &first, NULL);
		}
		if (!left) {
			fprintf(stderr,
				"scx_coresched: siblings drained in %.1f ms (%llu waiting tasks moved off them); switching SMT off\n",
				(double)(cs_now_ns() - t0) / 1e6,
				(unsigned long long)bss->evacuated);
			say_unmovable(d);
			return;
		}
		if (cs_now_ns() - t0 > CS_DRAIN_WAIT_MS * 1000000ULL)
			break;
		usleep(1000);
	}
	if (err)
		fprintf(stderr,
			"scx_coresched: cannot move the tasks waiting on the siblings going down (%s); switching SMT off anyway: they run there once, beside their siblings' work, as the siblings go down\n",
			strerror(-err));
	else if (stranded)
		fprintf(stderr,
			"scx_coresched: %d siblings (CPU %d first: %u tasks) still hold tasks that could not be moved off %d ms after being drained; switching SMT off anyway: they run there once, beside their siblings' work, as the siblings go down\n",
			left, first, bss->stranded[first], CS_DRAIN_WAIT_MS);
	else
		fprintf(stderr,
			"scx_coresched: %d siblings (CPU %d first) still run tasks %d ms after being drained; switching SMT off anyway\n",
			left, first, CS_DRAIN_WAIT_MS);
	say_unmovable(d); /* of the last scan, if one ran */
}
