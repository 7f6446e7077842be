/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fake /sys/devices/system/cpu trees under a temporary directory, for the
 * host tests of src/cs_topo.c: single files (fake_put), and whole machines
 * of sockets, cores and SMT threads (fake_machine) as Linux shows them.
 */
#ifndef __TESTS_FAKE_SYSFS_H
#define __TESTS_FAKE_SYSFS_H

#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cs_topo.h"

static char tmp_root[256];

/*
 * Create the temporary directory the trees go in: on tmpfs (/dev/shm) if
 * there is one, as a 512-CPU tree is thousands of files. 0, or -1.
 */
static inline int fake_init(void)
{
	strcpy(tmp_root, "/dev/shm/test_topo.XXXXXX");
	if (mkdtemp(tmp_root))
		return 0;
	strcpy(tmp_root, "/tmp/test_topo.XXXXXX");
	if (!mkdtemp(tmp_root)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

static inline int fake_rm_one(const char *path, const struct stat *st, int flag,
		       struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove the temporary directory. 0, or -1. */
static inline int fake_cleanup(void)
{
	if (nftw(tmp_root, fake_rm_one, 16, FTW_DEPTH | FTW_PHYS)) {
		perror(tmp_root);
		return -1;
	}
	return 0;
}

/* Create the directory @dir/@rel and its parents below tmp_root. */
static inline bool fake_mkdir(const char *dir, const char *rel)
{
	char path[1024];
	char *p;

	snprintf(path, sizeof(path), "%s/%s/", dir, rel);
	if (!mkdir(path, 0755) || errno == EEXIST)
		return true; /* the common case: the parent is there */
	for (p = path + strlen(tmp_root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return false;
		*p = '/';
	}
	return true;
}

/* Write @text to @dir/@rel, creating the directories on the way. */
static inline bool fake_put(const char *dir, const char *rel, const char *text)
{
	char path[1024], parent[256];
	char *slash;
	FILE *f;

	snprintf(parent, sizeof(parent), "%s", rel);
	slash = strrchr(parent, '/');
	*(slash ? slash : parent) = '\0';
	if (!fake_mkdir(dir, parent))
		return false;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (!f)
		return false;
	fputs(text, f);
	return !fclose(f);
}

/* @mask[0..n) as a kernel cpu list ("0-3,8\n") in @buf. */
static inline void fake_list(const bool *mask, int n, char *buf, size_t len)
{
	size_t at = 0;
	int a, b;

	buf[0] = '\0';
	for (a = 0; a < n; a = b + 1) {
		if (!mask[a]) {
			b = a;
			continue;
		}
		for (b = a; b + 1 < n && mask[b + 1]; b++)
			;
		at += snprintf(buf + at, len - at, "%s%d", at ? "," : "", a);
		if (b > a)
			at += snprintf(buf + at, len - at, "-%d", b);
	}
	snprintf(buf + at, len - at, "\n");
}

/*
 * A machine: @sockets x @cores cores, numbered as Linux does under qemu
 * (socket, then core, then thread, in order). The last @e_cores cores of
 * each socket have one thread, the others @threads (hybrid parts). CPUs
 * past the machine's, up to @possible, are possible but absent (no cpuN);
 * those in @offline are present but offline (a cpuN with only its NUMA
 * link, which sysfs keeps). Online CPUs get topology files, and unless
 * @no_cache caches L1d, L1i and L2 per core and L3 per socket; with @numa,
 * socket s is NUMA node s.
 */
struct fake_shape {
	const char *name;
	int sockets, cores, threads, e_cores;
	int possible; /* 0: the machine's CPUs */
	const char *offline; /* cpu list, or NULL */
	bool numa, no_cache;
};

/* What fake_machine built: per CPU, -1 past the machine. */
struct fake_cpus {
	int nr; /* the machine's CPUs */
	int socket[CS_TOPO_MAX_CPUS + 1];
	int core[CS_TOPO_MAX_CPUS + 1]; /* dense core index */
	int thread[CS_TOPO_MAX_CPUS + 1];
	bool online[CS_TOPO_MAX_CPUS + 1];
};

static inline bool fake_cache(const char *dir, int cpu, int index, int level,
		       const char *type, const char *list)
{
	char rel[128], num[16];

	snprintf(num, sizeof(num), "%d\n", level);
	snprintf(rel, sizeof(rel), "cpu%d/cache/index%d/level", cpu, index);
	if (!fake_put(dir, rel, num))
		return false;
	snprintf(rel, sizeof(rel), "cpu%d/cache/index%d/type", cpu, index);
	if (!fake_put(dir, rel, type))
		return false;
	snprintf(rel, sizeof(rel), "cpu%d/cache/index%d/shared_cpu_list", cpu,
		 index);
	return fake_put(dir, rel, list);
}

/* Build @s below tmp_root; its root in @dir, what it holds in @c. */
static inline bool fake_machine(const struct fake_shape *s, struct fake_cpus *c,
			 char *dir, size_t dlen)
{
	static bool mask[CS_TOPO_MAX_CPUS + 1], off[CS_TOPO_MAX_CPUS + 1];
	static char list[4096];
	int possible, sock, core, t, cpu, i, dense = 0;
	char rel[128], num[16];

	snprintf(dir, dlen, "%s/%s", tmp_root, s->name);
	memset(c, -1, sizeof(*c));
	memset(off, 0, sizeof(off));
	c->nr = 0;
	for (sock = 0; sock < s->sockets; sock++)
		for (core = 0; core < s->cores; core++, dense++)
			for (t = 0; t < (core >= s->cores - s->e_cores ? 1 : s->threads); t++) {
				c->socket[c->nr] = sock;
				c->core[c->nr] = dense;
				c->thread[c->nr++] = t;
			}
	possible = s->possible ? s->possible : c->nr;
	if (s->offline && cs_parse_cpulist(s->offline, off, c->nr) < 0)
		return false;
	for (cpu = 0; cpu <= CS_TOPO_MAX_CPUS; cpu++) {
		c->online[cpu] = cpu < c->nr && !off[cpu];
		mask[cpu] = cpu < possible;
	}
	fake_list(mask, possible, list, sizeof(list));
	if (!fake_put(dir, "possible", list))
		return false;
	fake_list(c->online, c->nr, list, sizeof(list));
	if (!fake_put(dir, "online", list))
		return false;

	for (cpu = 0; cpu < c->nr; cpu++) {
		snprintf(rel, sizeof(rel), "cpu%d/node%d", cpu,
			 s->numa ? c->socket[cpu] : 0);
		if (!fake_mkdir(dir, rel))
			return false;
		if (!c->online[cpu])
			continue;
		snprintf(num, sizeof(num), "%d\n", c->socket[cpu]);
		snprintf(rel, sizeof(rel),
			 "cpu%d/topology/physical_package_id", cpu);
		if (!fake_put(dir, rel, num))
			return false;
		snprintf(num, sizeof(num), "%d\n", c->core[cpu] % s->cores);
		snprintf(rel, sizeof(rel), "cpu%d/topology/core_id", cpu);
		if (!fake_put(dir, rel, num))
			return false;
		/* Siblings: the online threads of the core. */
		for (i = 0; i < c->nr; i++)
			mask[i] = c->online[i] && c->core[i] == c->core[cpu];
		fake_list(mask, c->nr, list, sizeof(list));
		snprintf(rel, sizeof(rel), "cpu%d/topology/thread_siblings_list",
			 cpu);
		if (!fake_put(dir, rel, list))
			return false;
		if (s->no_cache)
			continue;
		if (!fake_cache(dir, cpu, 0, 1, "Data\n", list) ||
		    !fake_cache(dir, cpu, 1, 1, "Instruction\n", list) ||
		    !fake_cache(dir, cpu, 2, 2, "Unified\n", list))
			return false;
		for (i = 0; i < c->nr; i++)
			mask[i] = c->online[i] && c->socket[i] == c->socket[cpu];
		fake_list(mask, c->nr, list, sizeof(list));
		if (!fake_cache(dir, cpu, 3, 3, "Unified\n", list))
			return false;
	}
	return true;
}

#endif /* __TESTS_FAKE_SYSFS_H */
