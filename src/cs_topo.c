// SPDX-License-Identifier: GPL-2.0-only
/* SMT topology from sysfs; see cs_topo.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_topo.h"

int cs_parse_cpulist(const char *s, bool *mask, int max)
{
	int n = 0;

	memset(mask, 0, sizeof(*mask) * max);
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0)
			return -1;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		if (b >= max)
			return -1;
		for (; a <= b; a++) {
			n += !mask[a];
			mask[a] = true;
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return n;
}

static int read_list(const char *path, bool *mask, char *err, size_t len)
{
	char buf[1024];
	FILE *f = fopen(path, "r");
	int n = -1;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			n = cs_parse_cpulist(buf, mask, CS_MAX_CPUS);
		fclose(f);
	}
	if (n < 0)
		snprintf(err, len, "cannot read cpu list %s (%s); more than %d CPUs are not supported",
			 path, f ? "malformed" : strerror(errno), CS_MAX_CPUS);
	return n;
}

static int topo_read(struct cs_topo *t, const char *root, bool online_only,
		     char *err, size_t len)
{
	bool possible[CS_MAX_CPUS], online[CS_MAX_CPUS], sibs[CS_MAX_CPUS];
	char path[512];
	int cpu, i;

	memset(t, 0, sizeof(*t));
	memset(t->cpu_core, -1, sizeof(t->cpu_core));
	memset(t->core_cpu, -1, sizeof(t->core_cpu));

	snprintf(path, sizeof(path), "%s/possible", root);
	if (read_list(path, possible, err, len) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/online", root);
	if (read_list(path, online, err, len) < 0)
		return -1;

	for (cpu = 0; cpu < CS_MAX_CPUS; cpu++) {
		if (!possible[cpu])
			continue;
		t->nr_cpus = cpu + 1;
		if (!online[cpu] && online_only) {
			possible[cpu] = false;
			continue;
		}
		if (!online[cpu]) {
			snprintf(err, len,
				 "CPU %d is offline, so its SMT siblings are unknown; bring it online (echo 1 > %s/cpu%d/online) before starting",
				 cpu, root, cpu);
			return -1;
		}
	}

	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		int core;

		if (!possible[cpu])
			continue;
		snprintf(path, sizeof(path),
			 "%s/cpu%d/topology/thread_siblings_list", root, cpu);
		if (read_list(path, sibs, err, len) < 0)
			return -1;
		if (t->cpu_core[cpu] >= 0) {
			/* Every sibling must list exactly the same core. */
			core = t->cpu_core[cpu];
			for (i = 0; i < CS_MAX_CPUS; i++)
				if ((sibs[i] && possible[i]) != (t->cpu_core[i] == core)) {
					snprintf(err, len,
						 "CPU %d's sibling list %s disagrees with CPU %d's; inconsistent topology",
						 cpu, path, t->core_cpu[core][0]);
					return -1;
				}
			continue;
		}
		core = t->nr_cores++;
		for (i = 0; i < CS_MAX_CPUS; i++) {
			if (!sibs[i] || !possible[i])
				continue;
			if (t->core_nr[core] >= CS_MAX_SMT) {
				snprintf(err, len,
					 "core of CPU %d has more than %d SMT threads; not supported",
					 cpu, CS_MAX_SMT);
				return -1;
			}
			if (t->cpu_core[i] >= 0) {
				snprintf(err, len,
					 "CPU %d appears in two sibling lists; inconsistent topology",
					 i);
				return -1;
			}
			t->cpu_core[i] = core;
			t->cpu_sib[i] = t->core_nr[core];
			t->core_cpu[core][t->core_nr[core]++] = i;
		}
		if (t->cpu_core[cpu] != core) {
			snprintf(err, len, "CPU %d is not in its own sibling list %s",
				 cpu, path);
			return -1;
		}
		if (t->core_nr[core] > t->smt)
			t->smt = t->core_nr[core];
	}
	return 0;
}

int cs_topo_read(struct cs_topo *t, const char *root, char *err, size_t len)
{
	return topo_read(t, root, false, err, len);
}

int cs_topo_read_online(struct cs_topo *t, const char *root, char *err,
			size_t len)
{
	return topo_read(t, root, true, err, len);
}
