/* SPDX-License-Identifier: GPL-2.0-only */
/* SMT topology from sysfs, as the scheduler's rodata wants it. */
#ifndef __CS_TOPO_H
#define __CS_TOPO_H

#include <stdbool.h>
#include <stddef.h>

#include "coresched.h"

struct cs_topo {
	int nr_cpus; /* highest possible cpu + 1 */
	int nr_cores;
	int smt; /* most siblings in one core */
	int cpu_core[CS_MAX_CPUS]; /* -1: not possible */
	int cpu_sib[CS_MAX_CPUS];
	int core_nr[CS_MAX_CPUS];
	int core_cpu[CS_MAX_CPUS][CS_MAX_SMT]; /* -1: none */
};

/*
 * Parse a kernel cpu list ("0-3,8,10-11") into @mask[0..max). Returns the
 * number of cpus set, or -1 on a malformed list or a cpu >= @max.
 */
int cs_parse_cpulist(const char *s, bool *mask, int max);

/*
 * Read the topology below @root (normally "/sys/devices/system/cpu").
 * Every possible CPU must be online, since an offline CPU's siblings are
 * unknown. Returns 0, or -1 with a message in @err.
 */
int cs_topo_read(struct cs_topo *t, const char *root, char *err, size_t len);

/*
 * As cs_topo_read(), but an offline CPU is left out (cpu_core -1) instead of
 * being an error: for tools that watch the CPUs as they are (the audit
 * starts while --fail-mode closed holds SMT off).
 */
int cs_topo_read_online(struct cs_topo *t, const char *root, char *err,
			size_t len);

#endif /* __CS_TOPO_H */
