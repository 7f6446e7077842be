// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for src/cs_topo.c: cpu list parsing, and reading the SMT
 * topology from fake sysfs trees built under a temporary directory.
 *
 * Prints one line per test, "PASS name" or "FAIL name: why"; exits 1 if any
 * test failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cs_topo.h"
#include "fake_sysfs.h"
#include "harness.h"

/*
 * Check that @mask[0..max) holds exactly the cpus in @want (terminated by
 * -1), writing the first difference to @why.
 */
static bool mask_is(const bool *mask, int max, const int *want, char *why,
		    size_t len)
{
	bool expect[CS_MAX_CPUS] = { false };
	int i;

	for (i = 0; want[i] >= 0; i++)
		expect[want[i]] = true;
	for (i = 0; i < max; i++)
		if (mask[i] != expect[i]) {
			snprintf(why, len, "cpu %d is %s", i,
				 mask[i] ? "set" : "clear");
			return false;
		}
	return true;
}

#define CHECK_MASK(mask, max, ...)					\
	do {								\
		static const int want_[] = { __VA_ARGS__, -1 };		\
		char why_[64];						\
		CHECK(mask_is(mask, max, want_, why_, sizeof(why_)),	\
		      "%s: %s", #mask, why_);				\
	} while (0)

/* cs_parse_cpulist */

static bool test_topo_parse_single(void)
{
	bool mask[CS_MAX_CPUS];

	memset(mask, 1, sizeof(mask)); /* must be cleared */
	CHECK_INT(cs_parse_cpulist("0", mask, CS_MAX_CPUS), 1);
	CHECK_MASK(mask, CS_MAX_CPUS, 0);
	CHECK_INT(cs_parse_cpulist("63", mask, CS_MAX_CPUS), 1);
	CHECK_MASK(mask, CS_MAX_CPUS, 63);
	return true;
}

static bool test_topo_parse_range(void)
{
	bool mask[CS_MAX_CPUS];

	CHECK_INT(cs_parse_cpulist("0-3", mask, CS_MAX_CPUS), 4);
	CHECK_MASK(mask, CS_MAX_CPUS, 0, 1, 2, 3);
	CHECK_INT(cs_parse_cpulist("5-5", mask, CS_MAX_CPUS), 1);
	CHECK_MASK(mask, CS_MAX_CPUS, 5);
	return true;
}

static bool test_topo_parse_ranges(void)
{
	bool mask[CS_MAX_CPUS];

	CHECK_INT(cs_parse_cpulist("0-3,8-11", mask, CS_MAX_CPUS), 8);
	CHECK_MASK(mask, CS_MAX_CPUS, 0, 1, 2, 3, 8, 9, 10, 11);
	CHECK_INT(cs_parse_cpulist("0,2-3,7\n", mask, CS_MAX_CPUS), 4);
	CHECK_MASK(mask, CS_MAX_CPUS, 0, 2, 3, 7);
	/* Overlaps count each cpu once. */
	CHECK_INT(cs_parse_cpulist("0-2,1-3", mask, CS_MAX_CPUS), 4);
	CHECK_MASK(mask, CS_MAX_CPUS, 0, 1, 2, 3);
	return true;
}

static bool test_topo_parse_newline(void)
{
	bool mask[CS_MAX_CPUS];

	CHECK_INT(cs_parse_cpulist("1,3\n", mask, CS_MAX_CPUS), 2);
	CHECK_MASK(mask, CS_MAX_CPUS, 1, 3);
	CHECK_INT(cs_parse_cpulist("0-1\n", mask, CS_MAX_CPUS), 2);
	CHECK_MASK(mask, CS_MAX_CPUS, 0, 1);
	return true;
}

static bool test_topo_parse_malformed(void)
{
	static const char *const bad[] = {
		"3-1", "a", "0-", "1,,2", "-1", "1-2-3", "1;2", "0-a", "2 3",
	};
	bool mask[CS_MAX_CPUS];
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int n = cs_parse_cpulist(bad[i], mask, CS_MAX_CPUS);

		CHECK(n == -EINVAL, "\"%s\" gave %d, expected -EINVAL", bad[i], n);
	}
	return true;
}

static bool test_topo_parse_max(void)
{
	bool mask[CS_MAX_CPUS];
	bool small[8];
	int i;

	CHECK_INT(cs_parse_cpulist("512", mask, CS_MAX_CPUS), -ERANGE);
	CHECK_INT(cs_parse_cpulist("0-512", mask, CS_MAX_CPUS), -ERANGE);
	CHECK_INT(cs_parse_cpulist("0-511", mask, CS_MAX_CPUS), CS_MAX_CPUS);
	/* With max 4, nothing at or past index 4 is touched. */
	memset(small, 1, sizeof(small));
	CHECK_INT(cs_parse_cpulist("0-3", small, 4), 4);
	CHECK_INT(cs_parse_cpulist("1", small, 4), 1);
	CHECK_MASK(small, 4, 1);
	CHECK_INT(cs_parse_cpulist("4", small, 4), -ERANGE);
	CHECK_INT(cs_parse_cpulist("2-4", small, 4), -ERANGE);
	for (i = 4; i < 8; i++)
		CHECK(small[i], "small[%d] was written", i);
	return true;
}

/* cs_topo_read on fake sysfs trees */

/*
 * Build a fake /sys/devices/system/cpu named @name. @sibs[cpu] is the
 * content of cpu<cpu>/topology/thread_siblings_list, NULL for none.
 */
static const char *tree(const char *name, const char *possible,
			const char *online, const char *const *sibs, int n)
{
	static char dir[300];
	char rel[64];
	int cpu;

	snprintf(dir, sizeof(dir), "%s/%s", tmp_root, name);
	if (!fake_put(dir, "possible", possible) ||
	    !fake_put(dir, "online", online))
		return NULL;
	for (cpu = 0; cpu < n; cpu++) {
		if (!sibs[cpu])
			continue;
		snprintf(rel, sizeof(rel),
			 "cpu%d/topology/thread_siblings_list", cpu);
		if (!fake_put(dir, rel, sibs[cpu]))
			return NULL;
	}
	return dir;
}

#define TREE(name, possible, online, sibs)				\
	tree(name, possible, online, sibs, ARRAY_SIZE(sibs))

/* Check the whole of @t against the per-core cpu lists in @cores. */
static bool topo_is(const struct cs_topo *t, int nr_cpus, int smt,
		    int nr_cores, const int cores[][CS_MAX_SMT + 1], char *why,
		    size_t len)
{
	int want_core[CS_MAX_CPUS], want_sib[CS_MAX_CPUS];
	int c, i, cpu;

	memset(want_core, -1, sizeof(want_core));
	memset(want_sib, 0, sizeof(want_sib));
	for (c = 0; c < nr_cores; c++)
		for (i = 0; cores[c][i] >= 0; i++) {
			want_core[cores[c][i]] = c;
			want_sib[cores[c][i]] = i;
		}

	if (t->nr_cpus != nr_cpus || t->nr_cores != nr_cores ||
	    t->smt != smt) {
		snprintf(why, len,
			 "nr_cpus/nr_cores/smt = %d/%d/%d, expected %d/%d/%d",
			 t->nr_cpus, t->nr_cores, t->smt, nr_cpus, nr_cores,
			 smt);
		return false;
	}
	for (cpu = 0; cpu < CS_MAX_CPUS; cpu++) {
		if (t->cpu_core[cpu] != want_core[cpu]) {
			snprintf(why, len, "cpu_core[%d] = %d, expected %d",
				 cpu, t->cpu_core[cpu], want_core[cpu]);
			return false;
		}
		if (want_core[cpu] >= 0 && t->cpu_sib[cpu] != want_sib[cpu]) {
			snprintf(why, len, "cpu_sib[%d] = %d, expected %d", cpu,
				 t->cpu_sib[cpu], want_sib[cpu]);
			return false;
		}
	}
	for (c = 0; c < CS_MAX_CPUS; c++) {
		int nr = 0;

		for (i = 0; c < nr_cores && cores[c][i] >= 0; i++)
			nr++;
		if (t->core_nr[c] != nr) {
			snprintf(why, len, "core_nr[%d] = %d, expected %d", c,
				 t->core_nr[c], nr);
			return false;
		}
		for (i = 0; i < CS_MAX_SMT; i++) {
			int want = i < nr ? cores[c][i] : -1;

			if (t->core_cpu[c][i] != want) {
				snprintf(why, len,
					 "core_cpu[%d][%d] = %d, expected %d",
					 c, i, t->core_cpu[c][i], want);
				return false;
			}
		}
	}
	return true;
}

#define CHECK_TOPO(t, nr_cpus, smt, nr_cores, cores)			\
	do {								\
		char why_[128];						\
		CHECK(topo_is(t, nr_cpus, smt, nr_cores, cores, why_,	\
			      sizeof(why_)),				\
		      "%s", why_);					\
	} while (0)

static bool test_topo_read_2x2_interleaved(void)
{
	/* Intel numbering: thread 1 of every core comes after all thread 0s. */
	static const char *const sibs[] = { "0,2\n", "1,3\n", "0,2\n",
					    "1,3\n" };
	static const int cores[][CS_MAX_SMT + 1] = { { 0, 2, -1 },
						     { 1, 3, -1 } };
	const char *root = TREE("2x2", "0-3\n", "0-3\n", sibs);
	struct cs_topo t;
	char err[256] = "";

	CHECK(root, "cannot build the fake tree");
	CHECK(!cs_topo_read(&t, root, err, sizeof(err)), "failed: %s", err);
	CHECK_TOPO(&t, 4, 2, 2, cores);
	CHECK_INT(t.cpu_sib[2], 1);
	CHECK_INT(t.cpu_core[3], 1);
	return true;
}

static bool test_topo_read_smt4(void)
{
	static const char *const sibs[] = { "0-3\n", "0-3\n", "0-3\n",
					    "0-3\n" };
	static const int cores[][CS_MAX_SMT + 1] = { { 0, 1, 2, 3, -1 } };
	const char *root = TREE("smt4", "0-3\n", "0-3\n", sibs);
	struct cs_topo t;
	char err[256] = "";

	CHECK(root, "cannot build the fake tree");
	CHECK(!cs_topo_read(&t, root, err, sizeof(err)), "failed: %s", err);
	CHECK_TOPO(&t, 4, 4, 1, cores);
	return true;
}

static bool test_topo_read_no_smt(void)
{
	static const char *const sibs[] = { "0\n", "1\n", "2\n", "3\n" };
	static const int cores[][CS_MAX_SMT + 1] = {
		{ 0, -1 }, { 1, -1 }, { 2, -1 }, { 3, -1 }
	};
	const char *root = TREE("nosmt", "0-3\n", "0-3\n", sibs);
	struct cs_topo t;
	char err[256] = "";

	CHECK(root, "cannot build the fake tree");
	CHECK(!cs_topo_read(&t, root, err, sizeof(err)), "failed: %s", err);
	CHECK_TOPO(&t, 4, 1, 4, cores);
	return true;
}

/* Hybrid parts: SMT2 performance cores, single-thread efficiency cores. */
static bool test_topo_read_hybrid(void)
{
	static const char *const sibs[] = { "0-1\n", "0-1\n", "2-3\n",
					    "2-3\n", "4\n",   "5\n" };
	static const int cores[][CS_MAX_SMT + 1] = {
		{ 0, 1, -1 }, { 2, 3, -1 }, { 4, -1 }, { 5, -1 }
	};
	const char *root = TREE("hybrid", "0-5\n", "0-5\n", sibs);
	struct cs_topo t;
	char err[256] = "";

	CHECK(root, "cannot build the fake tree");
	CHECK(!cs_topo_read(&t, root, err, sizeof(err)), "failed: %s", err);
	CHECK_TOPO(&t, 6, 2, 4, cores);
	return true;
}

static bool test_topo_read_offline_cpu(void)
{
	/*
	 * cpu3 (cpu1's sibling) is offline: it has no topology directory,
	 * and cpu1's list no longer shows it.
	 */
	static const char *const sibs[] = { "0,2\n", "1\n", "0,2\n", NULL };
	const char *root = TREE("offline", "0-3\n", "0-2\n", sibs);
	struct cs_topo t;
	char err[256] = "";

	CHECK(root, "cannot build the fake tree");
	CHECK_INT(cs_topo_read(&t, root, err, sizeof(err)), -1);
	CHECK(strstr(err, "CPU 3 ") && strstr(err, "offline"),
	      "message does not name offline CPU 3: %s", err);
	return true;
}

/* The edge of CS_MAX_SMT: eight threads are one core, nine are refused. */
static bool test_topo_read_eight_threads(void)
{
	static const char *const sibs[] = { "0-7\n", "0-7\n", "0-7\n",
					    "0-7\n", "0-7\n", "0-7\n",
					    "0-7\n", "0-7\n" };
	static const int cores[][CS_MAX_SMT + 1] = {
		{ 0, 1, 2, 3, 4, 5, 6, 7, -1 }
	};
	const char *root = TREE("smt8", "0-7\n", "0-7\n", sibs);
	struct cs_topo t;
	char err[256] = "";

	CHECK(root, "cannot build the fake tree");
	CHECK(!cs_topo_read(&t, root, err, sizeof(err)), "read: %s", err);
	CHECK_TOPO(&t, 8, 8, 1, cores);
	return true;
}

static bool test_topo_read_nine_threads(void)
{
	static const char *const sibs[] = { "0-8\n", "0-8\n", "0-8\n",
					    "0-8\n", "0-8\n", "0-8\n",
					    "0-8\n", "0-8\n", "0-8\n" };
	const char *root = TREE("smt9", "0-8\n", "0-8\n", sibs);
	struct cs_topo t;
	char err[256] = "";

	CHECK(root, "cannot build the fake tree");
	CHECK_INT(cs_topo_read(&t, root, err, sizeof(err)), -1);
	CHECK(strstr(err, "CPU 0 ") && strstr(err, "more than 8"),
	      "unexpected message: %s", err);
	return true;
}

/* cpu2 claims cpu1, which cpu0 already put in its own core. */
static bool test_topo_read_overlapping_lists(void)
{
	static const char *const sibs[] = { "0-1\n", "0-1\n", "1-2\n",
					    "3\n" };
	const char *root = TREE("overlap", "0-3\n", "0-3\n", sibs);
	struct cs_topo t;
	char err[256] = "";

	CHECK(root, "cannot build the fake tree");
	CHECK_INT(cs_topo_read(&t, root, err, sizeof(err)), -1);
	CHECK(strstr(err, "CPU 1 ") && strstr(err, "two sibling lists"),
	      "unexpected message: %s", err);
	return true;
}

/* cpu0 says "0-1" but cpu1 says "1": lists that disagree are refused. */
static bool test_topo_read_asymmetric_lists(void)
{
	static const char *const sibs[] = { "0-1\n", "1\n", "2-3\n",
					    "2-3\n" };
	const char *root = TREE("asym", "0-3\n", "0-3\n", sibs);
	struct cs_topo t;
	char err[256] = "";

	CHECK(root, "cannot build the fake tree");
	CHECK_INT(cs_topo_read(&t, root, err, sizeof(err)), -1);
	CHECK(strstr(err, "CPU 1's sibling list") && strstr(err, "disagrees"),
	      "unexpected message: %s", err);
	return true;
}

/* cpu2's list does not contain cpu2. */
static bool test_topo_read_not_own_list(void)
{
	static const char *const sibs[] = { "0-1\n", "0-1\n", "3\n", "3\n" };
	const char *root = TREE("notown", "0-3\n", "0-3\n", sibs);
	struct cs_topo t;
	char err[256] = "";

	CHECK(root, "cannot build the fake tree");
	CHECK_INT(cs_topo_read(&t, root, err, sizeof(err)), -1);
	CHECK(strstr(err, "CPU 2 ") && strstr(err, "own sibling list"),
	      "unexpected message: %s", err);
	return true;
}

static bool test_topo_read_missing_siblings(void)
{
	static const char *const sibs[] = { "0\n", NULL };
	const char *root = TREE("nosibs", "0-1\n", "0-1\n", sibs);
	struct cs_topo t;
	char err[256] = "";

	CHECK(root, "cannot build the fake tree");
	CHECK_INT(cs_topo_read(&t, root, err, sizeof(err)), -1);
	CHECK(strstr(err, "cpu1/topology/thread_siblings_list"),
	      "message does not name the file: %s", err);
	return true;
}

/* The edge: CS_MAX_CPUS (512) CPUs, SMT2, the last core 510-511. */
static bool test_topo_read_max_cpus(void)
{
	static char lists[CS_MAX_CPUS][16];
	static const char *sibs[CS_MAX_CPUS];
	const char *root;
	struct cs_topo t;
	char err[256] = "", range[16];
	int cpu;

	for (cpu = 0; cpu < CS_MAX_CPUS; cpu++) {
		snprintf(lists[cpu], sizeof(lists[cpu]), "%d-%d\n", cpu & ~1,
			 cpu | 1);
		sibs[cpu] = lists[cpu];
	}
	snprintf(range, sizeof(range), "0-%d\n", CS_MAX_CPUS - 1);
	root = tree("max", range, range, sibs, CS_MAX_CPUS);
	CHECK(root, "cannot build the fake tree");
	CHECK(!cs_topo_read(&t, root, err, sizeof(err)), "failed: %s", err);
	CHECK_INT(t.nr_cpus, CS_MAX_CPUS);
	CHECK_INT(t.nr_cores, CS_MAX_CPUS / 2);
	CHECK_INT(t.smt, 2);
	CHECK_INT(t.cpu_core[CS_MAX_CPUS - 1], CS_MAX_CPUS / 2 - 1);
	CHECK_INT(t.cpu_sib[CS_MAX_CPUS - 1], 1);
	CHECK_INT(t.core_cpu[CS_MAX_CPUS / 2 - 1][0], CS_MAX_CPUS - 2);
	return true;
}

/* One CPU past the edge: possible 0-512 is refused, naming the file. */
static bool test_topo_read_too_many_cpus(void)
{
	static const char *const sibs[] = { "0\n" };
	const char *root = TREE("big", "0-512\n", "0-512\n", sibs);
	struct cs_topo t;
	char err[256] = "";

	CHECK(root, "cannot build the fake tree");
	CHECK_INT(cs_topo_read(&t, root, err, sizeof(err)), -1);
	CHECK(strstr(err, "/possible"), "message does not name the file: %s",
	      err);
	return true;
}

/* nosmt: possible 0-3, siblings {0,1} and {2,3}, only 0 and 2 online. */
static bool test_topo_read_online_fences_offline(void)
{
	static const char *const sibs[] = { "0\n", NULL, "2\n", NULL };
	static const int cores[][CS_MAX_SMT + 1] = { { 0, -1 }, { 2, -1 } };
	const char *root = TREE("nosmt-boot", "0-3\n", "0,2\n", sibs);
	struct cs_topo t;
	char err[256] = "";

	CHECK(root, "cannot build the fake tree");
	CHECK(!cs_topo_read_online(&t, root, err, sizeof(err)), "failed: %s",
	      err);
	CHECK_TOPO(&t, 4, 1, 2, cores);
	CHECK_INT(cs_topo_nr_unknown(&t), 2);
	return true;
}

/* A topology by hand: @cores lists per core (-1 ends each), @nr_cores. */
static void topo_by_hand(struct cs_topo *t, int nr_cpus,
			 const int cores[][CS_MAX_SMT + 1], int nr_cores)
{
	int c, i;

	memset(t, 0, sizeof(*t));
	memset(t->cpu_core, -1, sizeof(t->cpu_core));
	memset(t->core_cpu, -1, sizeof(t->core_cpu));
	memset(t->cpu_llc, -1, sizeof(t->cpu_llc));
	t->nr_cpus = nr_cpus;
	t->nr_cores = nr_cores;
	t->nr_llcs = 1;
	for (c = 0; c < nr_cores; c++)
		for (i = 0; cores[c][i] >= 0; i++) {
			t->core_cpu[c][i] = cores[c][i];
			t->cpu_core[cores[c][i]] = c;
			t->cpu_sib[cores[c][i]] = i;
			t->cpu_llc[cores[c][i]] = 0;
			t->core_nr[c] = i + 1;
			if (i + 1 > t->smt)
				t->smt = i + 1;
		}
}

/*
 * SMT switched on after a nosmt boot: CPUs 1 and 3 join the cores of 0
 * and 2 as their second threads; the known places do not move.
 */
static bool test_topo_merge_siblings_join(void)
{
	static const int before[][CS_MAX_SMT + 1] = { { 0, -1 }, { 2, -1 } };
	static const int after[][CS_MAX_SMT + 1] = { { 0, 1, -1 },
						     { 2, 3, -1 } };
	struct cs_topo t, now;
	int added[CS_MAX_CPUS];
	char err[256];

	topo_by_hand(&t, 4, before, 2);
	topo_by_hand(&now, 4, after, 2);
	CHECK_INT(cs_topo_merge(&t, &now, added, CS_MAX_CPUS, err, sizeof(err)),
		  2);
	CHECK(!err[0], "unexpected message: %s", err);
	CHECK_INT(added[0], 1);
	CHECK_INT(added[1], 3);
	CHECK_TOPO(&t, 4, 2, 2, after);
	return true;
}

/*
 * maxcpus=2 on 2x2 numbered by thread (cores {0,2}, {1,3}): CPUs 0 and 1
 * were read as two cores; 2 and 3 join them. Then a new core {4,5}, read
 * with another numbering (5's core first), gets the next core index, and
 * keeps every index the first read gave.
 */
static bool test_topo_merge_new_core(void)
{
	static const int before[][CS_MAX_SMT + 1] = { { 0, -1 }, { 1, -1 } };
	static const int now1[][CS_MAX_SMT + 1] = { { 0, 2, -1 },
						    { 1, 3, -1 } };
	static const int now2[][CS_MAX_SMT + 1] = { { 4, 5, -1 },
						    { 1, 3, -1 },
						    { 0, 2, -1 } };
	static const int after[][CS_MAX_SMT + 1] = { { 0, 2, -1 },
						     { 1, 3, -1 },
						     { 4, 5, -1 } };
	struct cs_topo t, now;
	int added[CS_MAX_CPUS];
	char err[256];

	topo_by_hand(&t, 6, before, 2);
	topo_by_hand(&now, 6, now1, 2);
	CHECK_INT(cs_topo_merge(&t, &now, added, CS_MAX_CPUS, err, sizeof(err)),
		  2);
	topo_by_hand(&now, 6, now2, 3);
	CHECK_INT(cs_topo_merge(&t, &now, added, CS_MAX_CPUS, err, sizeof(err)),
		  2);
	CHECK_INT(added[0], 4);
	CHECK_INT(added[1], 5);
	CHECK(!err[0], "unexpected message: %s", err);
	CHECK_TOPO(&t, 6, 2, 3, after);
	return true;
}

/*
 * The edge of CS_MAX_SMT: a ninth thread for a known SMT8 core stays
 * fenced, and the message names it; the merge goes on with the others.
 */
static bool test_topo_merge_too_wide(void)
{
	static const int before[][CS_MAX_SMT + 1] = {
		{ 0, 1, 2, 3, 4, 5, 6, 7, -1 }, { 9, -1 }
	};
	static const int now1[][CS_MAX_SMT + 1] = {
		{ 0, 1, 2, 3, 4, 5, 6, 7, -1 }, { 8, 1, -1 }, { 9, 10, -1 }
	};
	static const int after[][CS_MAX_SMT + 1] = {
		{ 0, 1, 2, 3, 4, 5, 6, 7, -1 }, { 9, 10, -1 }
	};
	struct cs_topo t, now;
	int added[CS_MAX_CPUS];
	char err[256];

	topo_by_hand(&t, 11, before, 2);
	topo_by_hand(&now, 11, now1, 3);
	CHECK_INT(cs_topo_merge(&t, &now, added, CS_MAX_CPUS, err, sizeof(err)),
		  1);
	CHECK_INT(added[0], 10);
	CHECK(strstr(err, "CPU 8 ") && strstr(err, "fenced"),
	      "message does not name CPU 8: %s", err);
	CHECK_INT(t.cpu_core[8], -1);
	CHECK_TOPO(&t, 11, 8, 2, after);
	return true;
}

/*
 * 2x2 numbered by thread (cores {0,2} and {1,3}), loaded with CPU 3
 * offline: {0,2} and {1}. CPU 1 goes offline, then 3 comes online: its
 * sibling list shows only 3, but its core id is core 1's, so it joins
 * core 1 (not a core of its own, beside which 1 could later run another
 * cookie).
 */
static bool test_topo_merge_by_core_id(void)
{
	static const int before[][CS_MAX_SMT + 1] = { { 0, 2, -1 },
						      { 1, -1 } };
	static const int now1[][CS_MAX_SMT + 1] = { { 0, 2, -1 },
						    { 3, -1 } };
	static const int after[][CS_MAX_SMT + 1] = { { 0, 2, -1 },
						     { 1, 3, -1 } };
	struct cs_topo t, now;
	int added[CS_MAX_CPUS];
	char err[256];

	topo_by_hand(&t, 4, before, 2);
	t.core_key[0] = 1; /* package 0, core_id 0 */
	t.core_key[1] = 2; /* package 0, core_id 1 */
	topo_by_hand(&now, 4, now1, 2);
	now.cpu_core[1] = -1; /* offline now */
	now.core_key[0] = 1;
	now.core_key[1] = 2;
	CHECK_INT(cs_topo_merge(&t, &now, added, CS_MAX_CPUS, err, sizeof(err)),
		  1);
	CHECK(!err[0], "unexpected message: %s", err);
	CHECK_INT(added[0], 3);
	CHECK_TOPO(&t, 4, 2, 2, after);
	/*
	 * The same without core ids: 1, offline, may be 3's sibling, so 3
	 * stays fenced and the message says why; once 1 is back online, its
	 * list shows 3 and 3 joins it.
	 */
	topo_by_hand(&t, 4, before, 2);
	topo_by_hand(&now, 4, now1, 2);
	now.cpu_core[1] = -1;
	CHECK_INT(cs_topo_merge(&t, &now, added, CS_MAX_CPUS, err, sizeof(err)),
		  0);
	CHECK(strstr(err, "CPU 3 ") && strstr(err, "CPU 1,"),
	      "message does not name CPUs 3 and 1: %s", err);
	CHECK_INT(t.cpu_core[3], -1);
	topo_by_hand(&now, 4, after, 2);
	CHECK_INT(cs_topo_merge(&t, &now, added, CS_MAX_CPUS, err, sizeof(err)),
		  1);
	CHECK_TOPO(&t, 4, 2, 2, after);
	return true;
}

/* Siblings that a first read put in two cores: the newcomer stays out. */
static bool test_topo_merge_disagreeing_reads(void)
{
	static const int before[][CS_MAX_SMT + 1] = { { 0, -1 }, { 1, -1 } };
	static const int now1[][CS_MAX_SMT + 1] = { { 0, 1, 2, -1 } };
	struct cs_topo t, now;
	int added[CS_MAX_CPUS];
	char err[256];

	topo_by_hand(&t, 3, before, 2);
	topo_by_hand(&now, 3, now1, 1);
	CHECK_INT(cs_topo_merge(&t, &now, added, CS_MAX_CPUS, err, sizeof(err)),
		  0);
	CHECK(strstr(err, "CPU 2 ") && strstr(err, "two cores"),
	      "message does not name CPU 2: %s", err);
	CHECK_INT(t.cpu_core[2], -1);
	CHECK_INT(t.nr_cores, 2);
	return true;
}

int main(void)
{
	if (fake_init())
		return 1;

	RUN(topo_parse_single);
	RUN(topo_parse_range);
	RUN(topo_parse_ranges);
	RUN(topo_parse_newline);
	RUN(topo_parse_malformed);
	RUN(topo_parse_max);
	RUN(topo_read_2x2_interleaved);
	RUN(topo_read_smt4);
	RUN(topo_read_no_smt);
	RUN(topo_read_hybrid);
	RUN(topo_read_offline_cpu);
	RUN(topo_read_eight_threads);
	RUN(topo_read_nine_threads);
	RUN(topo_read_overlapping_lists);
	RUN(topo_read_asymmetric_lists);
	RUN(topo_read_not_own_list);
	RUN(topo_read_missing_siblings);
	RUN(topo_read_max_cpus);
	RUN(topo_read_too_many_cpus);
	RUN(topo_read_online_fences_offline);
	RUN(topo_merge_siblings_join);
	RUN(topo_merge_new_core);
	RUN(topo_merge_too_wide);
	RUN(topo_merge_disagreeing_reads);
	RUN(topo_merge_by_core_id);

	if (fake_cleanup())
		return 1;
	return nr_failed ? 1 : 0;
}
