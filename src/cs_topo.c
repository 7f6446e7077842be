// SPDX-License-Identifier: GPL-2.0-only
/* CPU topology from sysfs; see cs_topo.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_topo.h"

/* Highest cpuN/cache/indexM we look at. */
#define CS_TOPO_MAX_CACHE_INDEX 16

int cs_parse_cpulist(const char *s, bool *mask, int max)
{
	int n = 0;

	memset(mask, 0, sizeof(*mask) * max);
	while (*s && *s != '\n') {
		char *end;
		long a, b;

		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		a = strtol(s, &end, 10);
		b = a;
		if (*end == '-') {
			s = end + 1;
			if (!isdigit((unsigned char)*s))
				return -EINVAL;
			b = strtol(s, &end, 10);
			if (b < a)
				return -EINVAL;
		}
		s = end;
		if (*s == ',' && isdigit((unsigned char)s[1]))
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
		if (b >= max)
			return -ERANGE;
		for (; a <= b; a++) {
			n += !mask[a];
			mask[a] = true;
		}
	}
	return n;
}

int cs_read_cpulist(const char *path, bool *mask, int max)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		n = ferror(f) ? -EIO : -EINVAL;
	} else if (!strchr(buf, '\n') && !feof(f)) {
		n = -E2BIG; /* longer than any list of CS_TOPO_MAX_CPUS */
	} else {
		n = cs_parse_cpulist(buf, mask, max);
	}
	fclose(f);
	return n;
}

/* cs_read_cpulist, with a message naming @path in @err on failure. */
static int read_list(const char *path, bool *mask, int max, char *err,
		     size_t len)
{
	int n = cs_read_cpulist(path, mask, max);

	if (n == -ERANGE)
		snprintf(err, len,
			 "cpu list %s names a CPU >= %d; more than %d CPUs are not supported",
			 path, max, max);
	else if (n == -EINVAL || n == -E2BIG)
		snprintf(err, len, "cpu list %s is malformed", path);
	else if (n < 0)
		snprintf(err, len, "cannot read cpu list %s: %s", path,
			 strerror(-n));
	return n;
}

/* One decimal integer from @path: 0, or -1 if missing or malformed. */
static int read_int(const char *path, int *val)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%d", val) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/*
 * Put online @cpu into a group of @what (cores, LLCs) with the online CPUs
 * of @set, read from @path (offline ones are left out): a new group
 * numbered *@nr, or the group that already holds @cpu, which must then have
 * exactly the CPUs of @set. @of[] maps each CPU to its group, -1 for none.
 * 0, or -1 with a message.
 */
static int join(const struct cs_topo_map *m, int *of, int *nr, int cpu,
		bool *set, const char *what, const char *path, char *err,
		size_t len)
{
	int i, first = -1, nr_cpus = m->nr_cpus;

	for (i = 0; i < CS_TOPO_MAX_CPUS; i++) {
		if (set[i] && !m->possible[i]) {
			snprintf(err, len,
				 "%s list %s names CPU %d, which is not possible; inconsistent topology",
				 what, path, i);
			return -1;
		}
		set[i] = set[i] && m->cpu[i].online;
	}
	if (!set[cpu]) {
		snprintf(err, len, "CPU %d is not in its own %s list %s", cpu,
			 what, path);
		return -1;
	}
	if (of[cpu] < 0) {
		for (i = 0; i < nr_cpus; i++) {
			if (!set[i])
				continue;
			if (of[i] >= 0) {
				snprintf(err, len,
					 "CPU %d appears in two %s lists; inconsistent topology",
					 i, what);
				return -1;
			}
			of[i] = *nr;
		}
		(*nr)++;
		return 0;
	}
	for (i = 0; i < nr_cpus; i++)
		if (of[i] == of[cpu] && first < 0)
			first = i;
	for (i = 0; i < nr_cpus; i++)
		if (set[i] != (of[i] == of[cpu])) {
			snprintf(err, len,
				 "CPU %d's %s list %s disagrees with CPU %d's; inconsistent topology",
				 cpu, what, path, first);
			return -1;
		}
	return 0;
}

/*
 * The CPUs sharing @cpu's last-level cache, into @set: the highest data or
 * unified level in cpuN/cache, whose level goes to *@level; without cache
 * information (*@level 0), the online CPUs of its package.
 */
static int llc_list(const struct cs_topo_map *m, const char *root, int cpu,
		    bool *set, int *level, char *path, size_t plen, char *err,
		    size_t len)
{
	int i, lvl, best = -1;
	char type[32];
	FILE *f;

	*level = 0;
	for (i = 0; i < CS_TOPO_MAX_CACHE_INDEX; i++) {
		snprintf(path, plen, "%s/cpu%d/cache/index%d/level", root, cpu,
			 i);
		if (read_int(path, &lvl))
			break; /* the kernel numbers them from 0 without gaps */
		if (lvl <= *level)
			continue;
		snprintf(path, plen, "%s/cpu%d/cache/index%d/type", root, cpu,
			 i);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(type, sizeof(type), f))
				type[0] = '\0';
			fclose(f);
			if (!strncmp(type, "Instruction", 11))
				continue;
		}
		*level = lvl;
		best = i;
	}
	if (best < 0) {
		snprintf(path, plen, "%s/cpu%d/topology/physical_package_id",
			 root, cpu);
		for (i = 0; i < CS_TOPO_MAX_CPUS; i++)
			set[i] = i < m->nr_cpus && m->cpu[i].online &&
				 m->cpu[i].package == m->cpu[cpu].package;
		return 0;
	}
	snprintf(path, plen, "%s/cpu%d/cache/index%d/shared_cpu_list", root,
		 cpu, best);
	return read_list(path, set, CS_TOPO_MAX_CPUS, err, len) < 0 ? -1 : 0;
}

/* @cpu's NUMA node from its cpuN/nodeM link: 0 if none, -1 if no cpuN. */
static int cpu_node(const char *root, int cpu, char *path, size_t plen)
{
	struct dirent *d;
	int node = 0;
	DIR *dir;

	snprintf(path, plen, "%s/cpu%d", root, cpu);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		char *end;
		long n;

		if (strncmp(d->d_name, "node", 4) || !isdigit((unsigned char)d->d_name[4]))
			continue;
		n = strtol(d->d_name + 4, &end, 10);
		if (!*end && n <= INT_MAX) {
			node = n;
			break;
		}
	}
	closedir(dir);
	return node;
}

/* How many different values @v[0..n) takes where @use[i]. */
static int distinct(const int *v, const bool *use, int n)
{
	int i, j, nr = 0;

	for (i = 0; i < n; i++) {
		if (!use[i])
			continue;
		for (j = 0; j < i; j++)
			if (use[j] && v[j] == v[i])
				break;
		nr += j == i;
	}
	return nr;
}

/*
 * Number the LLCs socket by socket: by the package of their first CPU,
 * then by that CPU, so that the LLCs of one socket are neighbours, which
 * the scheduler's per-LLC queues group by (cs_llc_queue). In CPU order
 * alone, CPUs numbered round-robin over two sockets would give the
 * sockets' LLCs alternate numbers. Example: LLCs first seen at CPUs 0
 * (package 0), 1 (package 1), 2 (package 0): numbered 0, 2, 1.
 */
static void llcs_by_package(struct cs_topo_map *m)
{
	int first[CS_TOPO_MAX_CPUS], rank[CS_TOPO_MAX_CPUS];
	int cpu, i, j, n = m->nr_llcs;

	for (i = 0; i < n; i++)
		first[i] = -1;
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		i = m->cpu[cpu].llc;
		if (m->cpu[cpu].online && i >= 0 && i < n && first[i] < 0)
			first[i] = cpu;
	}
	for (i = 0; i < n; i++) {
		int pi = first[i] < 0 ? 0 : m->cpu[first[i]].package;

		rank[i] = 0;
		for (j = 0; j < n; j++) {
			int pj = first[j] < 0 ? 0 : m->cpu[first[j]].package;

			if (pj < pi || (pj == pi && first[j] < first[i]))
				rank[i]++;
		}
	}
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		i = m->cpu[cpu].llc;
		if (m->cpu[cpu].online && i >= 0 && i < n)
			m->cpu[cpu].llc = rank[i];
	}
}

int cs_topo_scan(struct cs_topo_map *m, const char *root, char *err,
		 size_t len)
{
	int core_of[CS_TOPO_MAX_CPUS], llc_of[CS_TOPO_MAX_CPUS];
	int package[CS_TOPO_MAX_CPUS], node[CS_TOPO_MAX_CPUS];
	bool online[CS_TOPO_MAX_CPUS], set[CS_TOPO_MAX_CPUS];
	char path[512];
	int cpu, i, n;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/possible", root);
	n = read_list(path, m->possible, CS_TOPO_MAX_CPUS, err, len);
	if (n < 0)
		return -1;
	if (!n) {
		snprintf(err, len, "cpu list %s is empty", path);
		return -1;
	}
	m->nr_possible = n;
	snprintf(path, sizeof(path), "%s/online", root);
	if (read_list(path, online, CS_TOPO_MAX_CPUS, err, len) < 0)
		return -1;

	for (cpu = 0; cpu < CS_TOPO_MAX_CPUS; cpu++) {
		if (m->possible[cpu])
			m->nr_cpus = cpu + 1;
		else if (online[cpu]) {
			snprintf(err, len,
				 "CPU %d is online but not in %s/possible; inconsistent topology",
				 cpu, root);
			return -1;
		}
	}
	memset(core_of, -1, sizeof(core_of));
	memset(llc_of, -1, sizeof(llc_of));
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct cs_topo_cpu *c = &m->cpu[cpu];

		c->online = online[cpu];
		c->package = c->core_id = c->core = c->sib = c->llc = -1;
		c->node = m->possible[cpu] ? cpu_node(root, cpu, path, sizeof(path)) : -1;
		if (!c->online)
			continue;
		m->nr_online++;
		snprintf(path, sizeof(path),
			 "%s/cpu%d/topology/physical_package_id", root, cpu);
		if (read_int(path, &c->package))
			c->package = 0;
		snprintf(path, sizeof(path), "%s/cpu%d/topology/core_id", root,
			 cpu);
		if (read_int(path, &c->core_id))
			c->core_id = -1;
	}

	/* Cores, from the sibling lists. */
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		if (!online[cpu])
			continue;
		snprintf(path, sizeof(path),
			 "%s/cpu%d/topology/thread_siblings_list", root, cpu);
		if (read_list(path, set, CS_TOPO_MAX_CPUS, err, len) < 0 ||
		    join(m, core_of, &m->nr_cores, cpu, set, "sibling", path,
			 err, len))
			return -1;
	}
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct cs_topo_core *core;

		if (!online[cpu])
			continue;
		core = &m->core[core_of[cpu]];
		if (core->nr == CS_TOPO_MAX_SMT) {
			snprintf(err, len,
				 "core of CPU %d has more than %d SMT threads; not supported",
				 core->cpu[0], CS_TOPO_MAX_SMT);
			return -1;
		}
		m->cpu[cpu].core = core_of[cpu];
		m->cpu[cpu].sib = core->nr;
		core->cpu[core->nr++] = cpu;
	}
	m->smt_min = m->nr_cores ? CS_TOPO_MAX_SMT : 0;
	for (i = 0; i < m->nr_cores; i++) {
		if (m->core[i].nr < m->smt_min)
			m->smt_min = m->core[i].nr;
		if (m->core[i].nr > m->smt_max)
			m->smt_max = m->core[i].nr;
	}

	/* Last-level caches. */
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		int level;

		if (!online[cpu])
			continue;
		if (llc_list(m, root, cpu, set, &level, path, sizeof(path),
			     err, len) ||
		    join(m, llc_of, &m->nr_llcs, cpu, set, "last-level cache",
			 path, err, len))
			return -1;
		if (level > m->llc_level)
			m->llc_level = level;
		m->cpu[cpu].llc = llc_of[cpu];
	}
	llcs_by_package(m);

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		package[cpu] = m->cpu[cpu].package;
		node[cpu] = m->cpu[cpu].node;
	}
	m->nr_packages = distinct(package, online, m->nr_cpus);
	m->nr_nodes = distinct(node, online, m->nr_cpus);
	return 0;
}

static int topo_read(struct cs_topo *t, const char *root, bool online_only,
		     char *err, size_t len)
{
	struct cs_topo_map *m = malloc(sizeof(*m));
	int cpu, core, i, ret = -1;
	char path[512];

	if (!m) {
		snprintf(err, len, "cannot read the topology: out of memory");
		return -1;
	}
	memset(t, 0, sizeof(*t));
	memset(t->cpu_core, -1, sizeof(t->cpu_core));
	memset(t->core_cpu, -1, sizeof(t->core_cpu));
	memset(t->cpu_llc, -1, sizeof(t->cpu_llc));
	/* The scheduler's limit first: no use reading a topology it cannot take. */
	snprintf(path, sizeof(path), "%s/possible", root);
	if (read_list(path, m->possible, CS_MAX_CPUS, err, len) < 0 ||
	    cs_topo_scan(m, root, err, len))
		goto out;
	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		if (m->possible[cpu] && !m->cpu[cpu].online && !online_only) {
			snprintf(err, len,
				 "CPU %d is offline, so its SMT siblings are unknown; bring it online (echo 1 > %s/cpu%d/online) before starting",
				 cpu, root, cpu);
			goto out;
		}
	for (core = 0; core < m->nr_cores; core++)
		if (m->core[core].nr > CS_MAX_SMT) {
			snprintf(err, len,
				 "core of CPU %d has more than %d SMT threads; not supported",
				 m->core[core].cpu[0], CS_MAX_SMT);
			goto out;
		}

	t->nr_cpus = m->nr_cpus;
	t->nr_cores = m->nr_cores;
	t->smt = m->smt_max;
	t->nr_llcs = m->nr_llcs;
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		t->cpu_core[cpu] = m->cpu[cpu].core;
		t->cpu_llc[cpu] = m->cpu[cpu].llc;
		t->cpu_sib[cpu] = m->possible[cpu] && m->cpu[cpu].online ?
					 m->cpu[cpu].sib : 0;
	}
	for (core = 0; core < m->nr_cores; core++) {
		const struct cs_topo_cpu *c = &m->cpu[m->core[core].cpu[0]];

		t->core_nr[core] = m->core[core].nr;
		for (i = 0; i < m->core[core].nr; i++)
			t->core_cpu[core][i] = m->core[core].cpu[i];
		t->core_key[core] =
			c->core_id < 0 ? 0 : (c->package << 16 | c->core_id) + 1;
	}
	ret = 0;
out:
	free(m);
	return ret;
}

/*
 * The core of @t that @cpu belongs to, by its siblings in @now (other
 * than @cpu) and by its core_key: -1 if neither names one, -2 if they
 * name two.
 */
static int known_core(const struct cs_topo *t, const struct cs_topo *now,
		      int cpu)
{
	int k = now->cpu_core[cpu], i, core = -1;

	for (i = 0; i < now->core_nr[k]; i++) {
		int c = now->core_cpu[k][i], ck;

		if (c == cpu || (ck = t->cpu_core[c]) < 0)
			continue;
		if (core >= 0 && core != ck)
			return -2;
		core = ck;
	}
	for (i = 0; now->core_key[k] && i < t->nr_cores; i++) {
		if (t->core_key[i] != now->core_key[k])
			continue;
		if (core >= 0 && core != i)
			return -2;
		core = i;
	}
	return core;
}

/*
 * The last-level cache of @t that @cpu (new) belongs to: that of a CPU @t
 * knows which shares one with it in @now; else a new one.
 */
static int known_llc(struct cs_topo *t, const struct cs_topo *now, int cpu)
{
	int c;

	for (c = 0; c < now->nr_cpus && c < CS_MAX_CPUS; c++)
		if (c != cpu && t->cpu_llc[c] >= 0 &&
		    now->cpu_llc[c] == now->cpu_llc[cpu])
			return t->cpu_llc[c];
	return t->nr_llcs++;
}

/* A CPU @t knows that @now shows offline, or -1. */
static int known_offline(const struct cs_topo *t, const struct cs_topo *now)
{
	int cpu;

	for (cpu = 0; cpu < t->nr_cpus && cpu < CS_MAX_CPUS; cpu++)
		if (t->cpu_core[cpu] >= 0 &&
		    (cpu >= now->nr_cpus || now->cpu_core[cpu] < 0))
			return cpu;
	return -1;
}

int cs_topo_merge(struct cs_topo *t, const struct cs_topo *now, int *added,
		  int max, char *err, size_t len)
{
	int cpu, core, n = 0;

	err[0] = '\0';
	for (cpu = 0; cpu < now->nr_cpus && cpu < CS_MAX_CPUS; cpu++) {
		if (now->cpu_core[cpu] < 0 || t->cpu_core[cpu] >= 0)
			continue; /* offline now, or known already */
		if (n >= max)
			break;
		core = known_core(t, now, cpu);
		if (core == -2) {
			snprintf(err, len,
				 "the siblings and the core id of CPU %d name two cores of the topology read before: it stays fenced",
				 cpu);
			continue;
		}
		if (core < 0 && !now->core_key[now->cpu_core[cpu]] &&
		    known_offline(t, now) >= 0) {
			snprintf(err, len,
				 "CPU %d has no core id and CPU %d, known, is offline: either may be its sibling, so it stays fenced until %d is online",
				 cpu, known_offline(t, now), known_offline(t, now));
			continue;
		}
		if (core < 0) {
			core = t->nr_cores++;
			t->core_key[core] = now->core_key[now->cpu_core[cpu]];
		}
		if (t->core_nr[core] >= CS_MAX_SMT) {
			snprintf(err, len,
				 "CPU %d would be thread %d of its core; at most %d are supported: it stays fenced",
				 cpu, t->core_nr[core] + 1, CS_MAX_SMT);
			if (core == t->nr_cores - 1 && !t->core_nr[core]) {
				t->core_key[core] = 0;
				t->nr_cores--;
			}
			continue;
		}
		t->core_cpu[core][t->core_nr[core]] = cpu;
		t->cpu_sib[cpu] = t->core_nr[core]++;
		t->cpu_core[cpu] = core;
		t->cpu_llc[cpu] = known_llc(t, now, cpu);
		if (t->core_nr[core] > t->smt)
			t->smt = t->core_nr[core];
		added[n++] = cpu;
	}
	return n;
}

int cs_topo_nr_unknown(const struct cs_topo *t)
{
	int cpu, n = 0;

	for (cpu = 0; cpu < t->nr_cpus && cpu < CS_MAX_CPUS; cpu++)
		n += t->cpu_core[cpu] < 0;
	return n;
}

int cs_topo_place_online(struct cs_topo *t, const char *root, int *added,
			 int max, char *err, size_t len)
{
	struct cs_topo *now = malloc(sizeof(*now));
	int n = -1;

	if (!now)
		snprintf(err, len, "cannot read the topology: out of memory");
	else if (!cs_topo_read_online(now, root, err, len))
		n = cs_topo_merge(t, now, added, max, err, len);
	free(now);
	return n;
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
