// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for cs_topo_scan (src/cs_topo.c): whole machines in fake
 * sysfs trees (tests/fake_sysfs.h) with sockets, NUMA nodes, last-level
 * caches, SMT widths 1 to 8, hybrid cores, offline and absent CPUs, the
 * CS_TOPO_MAX_CPUS edge, and malformed files.
 *
 * Prints one line per test, "PASS name" or "FAIL name: why"; exits 1 if any
 * test failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_topo.h"
#include "fake_sysfs.h"
#define TEST_TIMEOUT 60 /* 512-CPU trees; slow on a loaded host */
#include "harness.h"

static struct cs_topo_map map;
static struct fake_cpus cpus;
static char root[512];

/*
 * Check @m against the machine fake_machine built: for every pair of
 * online CPUs, same core and same LLC exactly when the fake machine says
 * so; each CPU's package, core_id, NUMA node and place among its online
 * siblings; offline CPUs reported offline.
 */
static bool scan_matches(const struct cs_topo_map *m, const struct fake_cpus *c,
			 const struct fake_shape *s, char *why, size_t len)
{
	int a, b;

	for (a = 0; a < c->nr; a++) {
		const struct cs_topo_cpu *x = &m->cpu[a];
		int sib = 0;

		if (!m->possible[a] || x->online != c->online[a]) {
			snprintf(why, len, "cpu %d: possible %d online %d", a,
				 m->possible[a], x->online);
			return false;
		}
		if (x->node != (s->numa ? c->socket[a] : 0)) {
			snprintf(why, len, "cpu %d: node %d", a, x->node);
			return false;
		}
		if (!x->online) {
			if (x->package != -1 || x->core != -1 || x->llc != -1 ||
			    x->sib != -1 || x->core_id != -1) {
				snprintf(why, len, "offline cpu %d has a place", a);
				return false;
			}
			continue;
		}
		if (x->package != c->socket[a] ||
		    x->core_id != c->core[a] % s->cores) {
			snprintf(why, len, "cpu %d: package %d core_id %d", a,
				 x->package, x->core_id);
			return false;
		}
		for (b = 0; b < c->nr; b++) {
			const struct cs_topo_cpu *y = &m->cpu[b];

			if (!c->online[b])
				continue;
			if ((x->core == y->core) != (c->core[a] == c->core[b]) ||
			    (x->llc == y->llc) != (c->socket[a] == c->socket[b])) {
				snprintf(why, len,
					 "cpus %d and %d: cores %d %d, llcs %d %d",
					 a, b, x->core, y->core, x->llc, y->llc);
				return false;
			}
			sib += b < a && c->core[a] == c->core[b];
		}
		if (x->sib != sib || m->core[x->core].cpu[sib] != a) {
			snprintf(why, len, "cpu %d: sib %d, expected %d", a,
				 x->sib, sib);
			return false;
		}
	}
	return true;
}

/* Build @s, scan it and check the result against the fake machine. */
#define SCAN_OK(s)							\
	do {								\
		char err_[512] = "", why_[128];				\
		CHECK(fake_machine(s, &cpus, root, sizeof(root)),	\
		      "cannot build the fake tree");			\
		CHECK(!cs_topo_scan(&map, root, err_, sizeof(err_)),	\
		      "scan failed: %s", err_);				\
		CHECK(scan_matches(&map, &cpus, s, why_, sizeof(why_)), \
		      "%s", why_);					\
	} while (0)

/* What the scan and the legacy reader must refuse, with @want in @err. */
#define SCAN_FAILS(want)						\
	do {								\
		char err_[512] = "";					\
		CHECK_INT(cs_topo_scan(&map, root, err_, sizeof(err_)), -1); \
		CHECK(strstr(err_, want), "message '%s' lacks '%s'", err_, \
		      want);						\
	} while (0)

static bool test_scan_2s2c2t_numa(void)
{
	static const struct fake_shape s = { .name = "2s2c2t", .sockets = 2,
					     .cores = 2, .threads = 2,
					     .numa = true };
	struct cs_topo t;
	char err[256];

	SCAN_OK(&s);
	CHECK_INT(map.nr_cpus, 8);
	CHECK_INT(map.nr_possible, 8);
	CHECK_INT(map.nr_online, 8);
	CHECK_INT(map.nr_packages, 2);
	CHECK_INT(map.nr_nodes, 2);
	CHECK_INT(map.nr_llcs, 2);
	CHECK_INT(map.nr_cores, 4);
	CHECK_INT(map.smt_min, 2);
	CHECK_INT(map.smt_max, 2);
	CHECK_INT(map.llc_level, 3);
	/* cpu 5: socket 1, its core 0, thread 1. */
	CHECK_INT(map.cpu[5].package, 1);
	CHECK_INT(map.cpu[5].node, 1);
	CHECK_INT(map.cpu[5].core, 2);
	CHECK_INT(map.cpu[5].sib, 1);
	CHECK_INT(map.cpu[5].core_id, 0);
	CHECK_INT(map.core[2].cpu[0], 4);
	/* The scheduler's reader takes it too. */
	CHECK(!cs_topo_read(&t, root, err, sizeof(err)), "read: %s", err);
	CHECK_INT(t.nr_cores, 4);
	CHECK_INT(t.cpu_core[5], 2);
	CHECK_INT(t.nr_llcs, 2);
	CHECK_INT(t.cpu_llc[3], 0);
	CHECK_INT(t.cpu_llc[4], 1);
	CHECK_INT(t.cpu_llc[5], 1);
	return true;
}

static bool test_scan_smt8(void)
{
	static const struct fake_shape s = { .name = "smt8", .sockets = 1,
					     .cores = 4, .threads = 8 };
	struct cs_topo t;
	char err[256];
	int i;

	SCAN_OK(&s);
	CHECK_INT(map.nr_cores, 4);
	CHECK_INT(map.smt_min, 8);
	CHECK_INT(map.smt_max, 8);
	for (i = 0; i < 8; i++)
		CHECK_INT(map.core[3].cpu[i], 24 + i);
	/* The scheduler's reader takes SMT8 (CS_MAX_SMT), as it is. */
	CHECK(!cs_topo_read(&t, root, err, sizeof(err)), "read: %s", err);
	CHECK_INT(t.nr_cores, 4);
	CHECK_INT(t.smt, 8);
	CHECK_INT(t.core_nr[3], 8);
	for (i = 0; i < 8; i++) {
		CHECK_INT(t.core_cpu[3][i], 24 + i);
		CHECK_INT(t.cpu_sib[24 + i], i);
	}
	return true;
}

/* Nine threads in one core: wider than CS_TOPO_MAX_SMT. */
static bool test_scan_smt9_refused(void)
{
	static const struct fake_shape s = { .name = "smt9", .sockets = 1,
					     .cores = 1, .threads = 9 };

	CHECK(fake_machine(&s, &cpus, root, sizeof(root)), "cannot build");
	SCAN_FAILS("more than 8 SMT threads");
	return true;
}

/* Hybrid: four SMT2 performance cores, two single-thread efficiency cores. */
static bool test_scan_hybrid(void)
{
	static const struct fake_shape s = { .name = "hybrid", .sockets = 1,
					     .cores = 6, .threads = 2,
					     .e_cores = 2 };

	SCAN_OK(&s);
	CHECK_INT(map.nr_cpus, 10);
	CHECK_INT(map.nr_cores, 6);
	CHECK_INT(map.smt_min, 1);
	CHECK_INT(map.smt_max, 2);
	CHECK_INT(map.core[4].nr, 1);
	CHECK_INT(map.core[4].cpu[0], 8);
	CHECK_INT(map.cpu[9].core, 5);
	CHECK_INT(map.cpu[9].sib, 0);
	CHECK_INT(map.nr_llcs, 1);
	return true;
}

/*
 * 2 sockets x 2 cores x 2 threads with NUMA and 4 more possible CPUs:
 * cpu1 (cpu0's sibling) and socket 1 (4-7) are offline, 8-11 absent.
 */
static bool test_scan_offline(void)
{
	static const struct fake_shape s = { .name = "offline", .sockets = 2,
					     .cores = 2, .threads = 2,
					     .possible = 12,
					     .offline = "1,4-7", .numa = true };
	struct cs_topo t;
	char err[256];

	SCAN_OK(&s);
	CHECK_INT(map.nr_cpus, 12);
	CHECK_INT(map.nr_possible, 12);
	CHECK_INT(map.nr_online, 3);
	CHECK(!map.cpu[1].online && !map.cpu[6].online && !map.cpu[10].online,
	      "offline cpus reported online");
	CHECK_INT(map.cpu[6].node, 1); /* present: its node is known */
	CHECK_INT(map.cpu[10].node, -1); /* absent */
	CHECK_INT(map.cpu[10].core, -1);
	CHECK_INT(map.core[map.cpu[0].core].nr, 1);
	CHECK_INT(map.smt_min, 1);
	CHECK_INT(map.smt_max, 2);
	CHECK_INT(map.nr_packages, 1);
	CHECK_INT(map.nr_nodes, 1);
	/* The scheduler's reader still refuses offline CPUs. */
	CHECK_INT(cs_topo_read(&t, root, err, sizeof(err)), -1);
	CHECK(strstr(err, "CPU 1 ") && strstr(err, "offline"), "message: %s",
	      err);
	return true;
}

/*
 * Last-level caches of CPUs placed after the load: 3 sockets x 2 x 2
 * with socket 1 (CPUs 4-7) and cpu1 offline. The first read numbers the
 * LLCs of sockets 0 and 2 as 0 and 1; the second, with all online, as 0,
 * 1 and 2. After the merge cpu1 joins LLC 0, socket 1 gets a new LLC (2,
 * though the second read called it 1), and socket 2 keeps 1.
 */
static bool test_scan_offline_llc_placed(void)
{
	static const struct fake_shape before = { .name = "llc-before",
						  .sockets = 3, .cores = 2,
						  .threads = 2,
						  .offline = "1,4-7" };
	static const struct fake_shape after = { .name = "llc-after",
						 .sockets = 3, .cores = 2,
						 .threads = 2 };
	struct cs_topo t, now;
	int added[CS_MAX_CPUS];
	char err[256];

	CHECK(fake_machine(&before, &cpus, root, sizeof(root)), "cannot build");
	CHECK(!cs_topo_read_online(&t, root, err, sizeof(err)), "read: %s",
	      err);
	CHECK_INT(t.nr_llcs, 2);
	CHECK_INT(t.cpu_llc[4], -1);
	CHECK_INT(t.cpu_llc[8], 1);
	CHECK(fake_machine(&after, &cpus, root, sizeof(root)), "cannot build");
	CHECK(!cs_topo_read_online(&now, root, err, sizeof(err)), "read: %s",
	      err);
	CHECK_INT(now.cpu_llc[4], 1);
	CHECK_INT(cs_topo_merge(&t, &now, added, CS_MAX_CPUS, err, sizeof(err)),
		  5);
	CHECK_INT(t.nr_llcs, 3);
	CHECK_INT(t.cpu_llc[1], 0);
	CHECK_INT(t.cpu_llc[4], 2);
	CHECK_INT(t.cpu_llc[7], 2);
	CHECK_INT(t.cpu_llc[8], 1);
	CHECK_INT(t.cpu_llc[11], 1);
	return true;
}

/* CS_TOPO_MAX_CPUS exactly: 2 sockets x 128 cores x 2 threads. */
static bool test_scan_512(void)
{
	static const struct fake_shape s = { .name = "cpus512", .sockets = 2,
					     .cores = 128, .threads = 2,
					     .numa = true };
	struct cs_topo t;
	char err[256];

	SCAN_OK(&s);
	CHECK_INT(map.nr_cpus, CS_TOPO_MAX_CPUS);
	CHECK_INT(map.nr_online, 512);
	CHECK_INT(map.nr_cores, 256);
	CHECK_INT(map.nr_llcs, 2);
	CHECK_INT(map.nr_nodes, 2);
	CHECK_INT(map.cpu[511].package, 1);
	CHECK_INT(map.cpu[511].core, 255);
	CHECK_INT(map.cpu[511].core_id, 127);
	CHECK_INT(map.cpu[511].sib, 1);
	CHECK_INT(map.cpu[511].llc, 1);
	/* The scheduler's CS_MAX_CPUS too: it takes all of them. */
	CHECK(!cs_topo_read(&t, root, err, sizeof(err)), "refused: %s", err);
	CHECK_INT(t.nr_cpus, CS_MAX_CPUS);
	CHECK_INT(t.nr_cores, 256);
	CHECK_INT(t.cpu_core[511], 255);
	return true;
}

/* One possible CPU past CS_TOPO_MAX_CPUS. */
static bool test_scan_513_refused(void)
{
	static const struct fake_shape s = { .name = "cpus513", .sockets = 1,
					     .cores = 1, .threads = 1 };

	CHECK(fake_machine(&s, &cpus, root, sizeof(root)), "cannot build");
	CHECK(fake_put(root, "possible", "0-512\n"), "cannot write");
	SCAN_FAILS("/possible names a CPU >= 512; more than 512 CPUs");
	return true;
}

/* No cpuN/cache: each package is one LLC, llc_level 0. */
static bool test_scan_no_cache(void)
{
	static const struct fake_shape s = { .name = "nocache", .sockets = 2,
					     .cores = 2, .threads = 1,
					     .no_cache = true };

	SCAN_OK(&s);
	CHECK_INT(map.llc_level, 0);
	CHECK_INT(map.nr_llcs, 2);
	CHECK_INT(map.cpu[3].llc, 1);
	return true;
}

/*
 * LLCs are numbered socket by socket: CPUs numbered round-robin over two
 * packages (0, 1, 0, 1), each CPU its own L3, give its LLCs 0, 2, 1, 3.
 */
static bool test_scan_llcs_by_package(void)
{
	static const struct fake_shape s = {
		.name = "rrllc", .sockets = 1, .cores = 4, .threads = 1
	};
	char rel[64], num[16], err[256];
	int cpu;

	CHECK(fake_machine(&s, &cpus, root, sizeof(root)), "cannot build");
	for (cpu = 0; cpu < 4; cpu++) {
		snprintf(rel, sizeof(rel), "cpu%d/topology/physical_package_id",
			 cpu);
		snprintf(num, sizeof(num), "%d\n", cpu % 2);
		CHECK(fake_put(root, rel, num), "cannot write");
		snprintf(rel, sizeof(rel), "cpu%d/cache/index3/shared_cpu_list",
			 cpu);
		snprintf(num, sizeof(num), "%d\n", cpu);
		CHECK(fake_put(root, rel, num), "cannot write");
	}
	CHECK_INT(cs_topo_scan(&map, root, err, sizeof(err)), 0);
	CHECK_INT(map.nr_packages, 2);
	CHECK_INT(map.nr_llcs, 4);
	CHECK_INT(map.cpu[0].llc, 0);
	CHECK_INT(map.cpu[1].llc, 2);
	CHECK_INT(map.cpu[2].llc, 1);
	CHECK_INT(map.cpu[3].llc, 3);
	return true;
}

/*
 * Malformed or inconsistent files in an otherwise good 1x2x2 machine: each
 * is refused with a message naming the file (or the CPU).
 */
static bool test_scan_malformed(void)
{
	static const struct {
		const char *file, *text, *want;
	} bad[] = {
		{ "possible", "0-\n", "possible is malformed" },
		{ "possible", "\n", "possible is empty" },
		{ "online", "0-3x\n", "online is malformed" },
		{ "online", "0-4\n", "CPU 4 is online but not in" },
		{ "cpu2/topology/thread_siblings_list", "2,,3\n",
		  "cpu2/topology/thread_siblings_list is malformed" },
		{ "cpu2/topology/thread_siblings_list", "2-3,9\n",
		  "names CPU 9, which is not possible" },
		{ "cpu1/topology/thread_siblings_list", "1\n",
		  "CPU 1's sibling list" },
		{ "cpu3/cache/index3/shared_cpu_list", "a\n",
		  "index3/shared_cpu_list is malformed" },
		{ "cpu3/cache/index3/shared_cpu_list", "0-1\n",
		  "CPU 3 is not in its own last-level cache list" },
	};
	static const struct fake_shape s = { .name = "bad", .sockets = 1,
					     .cores = 2, .threads = 2 };
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char err[512] = "";

		CHECK(fake_machine(&s, &cpus, root, sizeof(root)), "cannot build");
		CHECK(!cs_topo_scan(&map, root, err, sizeof(err)),
		      "good tree refused: %s", err);
		CHECK(fake_put(root, bad[i].file, bad[i].text), "cannot write");
		CHECK(cs_topo_scan(&map, root, err, sizeof(err)) == -1,
		      "%s = '%.10s' accepted", bad[i].file, bad[i].text);
		CHECK(strstr(err, bad[i].want), "%s: message '%s' lacks '%s'",
		      bad[i].file, err, bad[i].want);
	}
	return true;
}

/* The one cpu list parser is strict about what the kernel never writes. */
static bool test_scan_parse_strict(void)
{
	static const char *const bad[] = { "+1", " 1", "1,", ",1", "1-+2",
					   "1 ", "0x1" };
	bool mask[CS_TOPO_MAX_CPUS];
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(cs_parse_cpulist(bad[i], mask, CS_TOPO_MAX_CPUS) == -EINVAL,
		      "\"%s\" accepted", bad[i]);
	CHECK_INT(cs_parse_cpulist("", mask, CS_TOPO_MAX_CPUS), 0);
	CHECK_INT(cs_parse_cpulist("99999999999999999999", mask,
				   CS_TOPO_MAX_CPUS), -ERANGE);
	CHECK_INT(cs_parse_cpulist("0-511", mask, CS_TOPO_MAX_CPUS), 512);
	CHECK_INT(cs_parse_cpulist("511-512", mask, CS_TOPO_MAX_CPUS), -ERANGE);
	return true;
}

int main(void)
{
	if (fake_init())
		return 1;

	RUN(scan_2s2c2t_numa);
	RUN(scan_smt8);
	RUN(scan_smt9_refused);
	RUN(scan_hybrid);
	RUN(scan_offline);
	RUN(scan_offline_llc_placed);
	RUN(scan_512);
	RUN(scan_513_refused);
	RUN(scan_no_cache);
	RUN(scan_llcs_by_package);
	RUN(scan_malformed);
	RUN(scan_parse_strict);

	if (fake_cleanup())
		return 1;
	return nr_failed ? 1 : 0;
}
