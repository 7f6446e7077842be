/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CPU topology from sysfs: the whole machine as sysfs shows it
 * (cs_topo_scan: packages, last-level caches, NUMA nodes, cores and SMT
 * siblings of up to CS_TOPO_MAX_CPUS possible CPUs, online or not), and the
 * SMT topology as the scheduler's rodata wants it (cs_topo_read).
 */
#ifndef __CS_TOPO_H
#define __CS_TOPO_H

#include <stdbool.h>
#include <stddef.h>

#include "coresched.h"

/*
 * Limits of cs_topo_scan. CS_TOPO_MAX_CPUS: the largest hosts we aim at
 * (and the test kernel's NR_CPUS); a higher possible CPU is refused.
 * CS_TOPO_MAX_SMT: SMT8, as on POWER.
 */
#define CS_TOPO_MAX_CPUS 512
#define CS_TOPO_MAX_SMT 8

/* One possible CPU. Offline: all but @online and @node are -1. */
struct cs_topo_cpu {
	bool online;
	int package; /* topology/physical_package_id; 0 if sysfs has none */
	int core_id; /* topology/core_id (unique within a package), or -1 */
	int core; /* dense index of its SMT sibling set, in CPU order */
	int sib; /* its place in that set, in CPU order */
	int llc; /* dense index of its last-level cache, socket by socket */
	int node; /* NUMA node (cpuN/nodeM); 0 if sysfs has none; -1 if cpuN is absent */
};

/* One core: its online SMT siblings in CPU order. */
struct cs_topo_core {
	int nr;
	int cpu[CS_TOPO_MAX_SMT];
};

struct cs_topo_map {
	int nr_cpus; /* highest possible CPU + 1 */
	int nr_possible, nr_online;
	int nr_cores, nr_llcs, nr_packages, nr_nodes; /* online CPUs' */
	int smt_min, smt_max; /* narrowest and widest core */
	/*
	 * Cache level that defines the LLCs: the highest data or unified
	 * level in cpuN/cache (3 when index3 is there). 0: sysfs has no
	 * cache information, and each package counts as one LLC.
	 */
	int llc_level;
	bool possible[CS_TOPO_MAX_CPUS];
	struct cs_topo_cpu cpu[CS_TOPO_MAX_CPUS];
	struct cs_topo_core core[CS_TOPO_MAX_CPUS];
};

/*
 * The SMT topology the scheduler takes: at most CS_MAX_CPUS CPUs, cores of
 * at most CS_MAX_SMT. A possible CPU whose siblings are unknown (offline
 * when read) has cpu_core -1 until cs_topo_merge() places it.
 */
struct cs_topo {
	int nr_cpus; /* highest possible cpu + 1 */
	int nr_cores;
	int smt; /* most siblings in one core */
	int cpu_core[CS_MAX_CPUS]; /* -1: not possible */
	int cpu_sib[CS_MAX_CPUS];
	int core_nr[CS_MAX_CPUS];
	int core_cpu[CS_MAX_CPUS][CS_MAX_SMT]; /* -1: none */
	/*
	 * Which core sysfs names it: (package << 16 | core_id) + 1, from its
	 * first CPU; 0 if sysfs gives no core_id. cs_topo_merge() matches on
	 * it, since sibling lists show online CPUs only.
	 */
	int core_key[CS_MAX_CPUS];
	/*
	 * Last-level caches: a dense index per known CPU (-1: unknown),
	 * socket by socket as read (cs_topo_scan), then in the order placed
	 * (CPUs online later); @nr_llcs of them.
	 */
	int nr_llcs;
	int cpu_llc[CS_MAX_CPUS];
};

/*
 * Parse a kernel cpu list ("0-3,8,10-11", optionally ending in a newline)
 * into @mask[0..max). Returns the number of cpus set, -EINVAL on a
 * malformed list, or -ERANGE if it names a cpu >= @max; @mask[max..] is
 * never written.
 */
int cs_parse_cpulist(const char *s, bool *mask, int max);

/*
 * Read the cpu list in the file @path into @mask[0..max). Returns the
 * number of cpus, -errno if the file cannot be read, or as
 * cs_parse_cpulist.
 */
int cs_read_cpulist(const char *path, bool *mask, int max);

/*
 * Read the whole topology below @root (normally "/sys/devices/system/cpu";
 * NUMA nodes come from the cpuN/nodeM links). Offline possible CPUs are
 * reported offline, with their NUMA node if cpuN exists. Refused, with a
 * message naming the file: a possible CPU >= CS_TOPO_MAX_CPUS, a core
 * wider than CS_TOPO_MAX_SMT, malformed or inconsistent lists. Returns 0,
 * or -1 with a message in @err.
 */
int cs_topo_scan(struct cs_topo_map *m, const char *root, char *err,
		 size_t len);

/*
 * Read the SMT topology below @root, as cs_topo_scan does, for the
 * scheduler: every possible CPU must be online, since an offline CPU's
 * siblings are unknown, and at most CS_MAX_CPUS CPUs and CS_MAX_SMT
 * threads per core are taken. Returns 0, or -1 with a message in @err.
 */
int cs_topo_read(struct cs_topo *t, const char *root, char *err, size_t len);

/*
 * As cs_topo_read(), but an offline CPU is left out (cpu_core -1) instead of
 * being an error: for tools that watch the CPUs as they are (the audit
 * starts while --fail-mode closed holds SMT off).
 */
int cs_topo_read_online(struct cs_topo *t, const char *root, char *err,
			size_t len);

/*
 * Place the CPUs that @now (a later cs_topo_read_online) shows online and
 * @t does not know (cpu_core -1) into @t, keeping every core and sibling
 * index @t already gave: a CPU joins the core of a sibling @t knows, or
 * the core of @t with the same core_key (its known threads may be offline
 * now, and then missing from the sibling lists), as its next sibling; or
 * else a new core with its other new siblings. It joins the last-level
 * cache of a CPU @t knows that shares one with it in @now, or a new one.
 * The CPUs placed go to @added (at most @max), in the order they were placed;
 * returns how many. A CPU that would make its core wider than CS_MAX_SMT,
 * or whose known siblings and core_key name two cores of @t (sysfs
 * disagrees with what was read before), or that has no core_key and would
 * get a new core while a CPU @t knows is offline (it may be its sibling),
 * stays unknown, and @err says which (else it is "").
 */
int cs_topo_merge(struct cs_topo *t, const struct cs_topo *now, int *added,
		  int max, char *err, size_t len);

/* How many CPUs below @t's nr_cpus it does not know (cpu_core -1). */
int cs_topo_nr_unknown(const struct cs_topo *t);

/*
 * Read the online CPUs below @root (cs_topo_read_online) and place those
 * @t does not know (cs_topo_merge): for the scheduler's loader and the
 * audit, when such a CPU comes online. Returns how many were placed, or
 * -1 if sysfs could not be read (@err says why); with 0 or more, @err
 * says which CPU stays unknown and why, or is "".
 */
int cs_topo_place_online(struct cs_topo *t, const char *root, int *added,
			 int max, char *err, size_t len);

#endif /* __CS_TOPO_H */
