// SPDX-License-Identifier: GPL-2.0-only
/*
 * coreschedctl (also installed as coresched): manage core scheduling
 * cookies. For get, new and copy it behaves as util-linux coresched(1):
 * same syntax, defaults, output, messages and exit codes. On top: clear,
 * list, cgroup cookies for scx_coresched, and --json. Built on
 * libcoresched; see usage().
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coresched.h"
#include "coreschedctl.h"
#include "cs_common.h"
#include "libcoresched.h"

#define CS_VERSION "0.2"

/* Exit codes of util-linux for a command that cannot be executed. */
#define EX_EXEC_FAILED 126
#define EX_EXEC_ENOENT 127

static const char *prog;

static void usage(void)
{
	printf("\nUsage:\n"
	       " %1$s [get] [--source <PID>] [--json]\n"
	       " %1$s new [-t <TYPE>] --dest <PID>\n"
	       " %1$s new [-t <TYPE>] -- PROGRAM [ARGS...]\n"
	       " %1$s copy [--source <PID>] [-t <TYPE>] --dest <PID>\n"
	       " %1$s copy [--source <PID>] [-t <TYPE>] -- PROGRAM [ARGS...]\n"
	       " %1$s clear [-t <TYPE>] --dest <PID>\n"
	       " %1$s list [--json]\n"
	       " %1$s cgroup tag|untag PATH\n"
	       " %1$s cgroup get PATH [--json]\n"
	       " %1$s cgroup share SRC DST\n"
	       " %1$s policy check [FILE]\n"
	       " %1$s policy show [--policy FILE] [--pid PID | PATH]\n"
	       " %1$s stats [--json | --prometheus]\n",
	       prog);
	printf("\nManage core scheduling cookies of tasks and cgroups: tasks with\n"
	       "different cookies never run at the same time on the SMT siblings of\n"
	       "one core.\n");
	printf("\nFunctions:\n"
	       " get      print the cookie of a PID\n"
	       " new      give an existing PID a new cookie, or run a program\n"
	       "            with a new cookie\n"
	       " copy     copy the cookie of one PID to another PID, or run a\n"
	       "            program with that cookie\n"
	       " clear    take the cookie of a PID away (cookie 0)\n"
	       " list     every cookie in use: its tasks and tagged cgroups\n"
	       " cgroup   cgroup cookies, under scx_coresched only: tag gives a\n"
	       "            cgroup v2 directory a cookie of its own for all tasks\n"
	       "            in it and below it that have no cookie of their own;\n"
	       "            untag removes it; get prints the cookie its tasks get;\n"
	       "            share gives DST the cookie of SRC\n"
	       " policy   the tagging policy of scx_coresched: check validates a\n"
	       "            policy file; show tells which rule gives a task or\n"
	       "            cgroup its cookie, or why it has none\n"
	       " stats    the running scx_coresched's statistics of its last\n"
	       "            interval, as text, JSON or Prometheus text format\n");
	printf("\nOptions:\n"
	       " -s, --source <PID>       the PID to take the cookie from; default:\n"
	       "                            %s itself\n"
	       " -d, --dest <PID>         the PID whose cookie to change\n"
	       " -t, --dest-type <TYPE>   which tasks of the destination or new PID\n"
	       "                            change: pid (the thread), tgid (its\n"
	       "                            process), pgid (its process group);\n"
	       "                            default: tgid\n"
	       " -J, --json               JSON output (get, list, cgroup get)\n",
	       prog);
	printf("\n -v, --verbose      verbose\n"
	       "%-20s%s\n%-20s%s\n",
	       " -h, --help", "display this help", " -V, --version",
	       "display version");
	printf("\nPATH is a cgroup v2 directory: absolute, relative to the current\n"
	       "directory if it starts with ./ or ../, else relative to %s.\n"
	       "Cookies are printed in hex; 0 means no cookie. Reading cookies\n"
	       "needs no privilege beyond being allowed to ptrace the task;\n"
	       "changing a task's cookie needs the same; cgroup functions need\n"
	       "root and a running scx_coresched.\n",
	       CS_CGROUP_ROOT);
	printf("\nExit status: 0 on success, 1 on failure; with a PROGRAM its exit\n"
	       "status, or 126 if it cannot be executed and 127 if it is not found.\n");
}

__attribute__((format(printf, 1, 2))) static void msgx(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * A failed library call: util-linux's line ("MESSAGE: strerror"), then the
 * library's line, which says what to do. Returns the exit code.
 */
__attribute__((format(printf, 2, 3))) static int lib_error(int err,
							   const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(-err));
	if (*cs_errmsg())
		msgx("%s", cs_errmsg());
	return EXIT_FAILURE;
}

/* The cookie of @pid for a verbose message; exits as util-linux on error. */
static unsigned long long verbose_cookie(pid_t pid)
{
	__u64 cookie;
	int err = cs_get(pid, &cookie);

	if (err)
		exit(lib_error(err, "Failed to get cookie from PID %d",
			       (int)pid));
	return cookie;
}

/* Print @s as a JSON string. */
static void json_str(const char *s)
{
	const unsigned char *p;

	putchar('"');
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static int cmd_get(const struct ctl_args *a)
{
	__u64 cookie;
	int err = cs_get(a->src, &cookie);

	if (err)
		return lib_error(err, "Failed to get cookie from PID %d",
				 (int)a->src);
	if (a->json)
		printf("{\"pid\": %d, \"cookie\": \"0x%llx\"}\n", (int)a->src,
		       (unsigned long long)cookie);
	else
		printf("cookie of PID %d is 0x%llx\n", (int)a->src,
		       (unsigned long long)cookie);
	return EXIT_SUCCESS;
}

/* new or copy with a PROGRAM: set our own cookie, then become PROGRAM. */
static int cmd_exec(const struct ctl_args *a, char **argv)
{
	char **cmd = argv + a->exec_index;
	pid_t pid;
	int err;

	if (a->src) {
		pid = a->src;
		err = cs_share_from(pid);
		if (err)
			return lib_error(err, "Failed to pull cookie from PID %d",
					 (int)pid);
	} else {
		pid = getpid();
		err = cs_create(pid, a->type);
		if (err)
			return lib_error(err,
					 "Failed to create cookie for PID %d",
					 (int)pid);
	}
	if (a->verbose)
		msgx("set cookie of PID %d to 0x%llx", (int)pid,
		      verbose_cookie(pid));
	fflush(stdout);
	execvp(cmd[0], cmd);
	err = errno;
	fprintf(stderr, "%s: failed to execute %s: %s\n", prog, cmd[0],
		strerror(err));
	return err == ENOENT ? EX_EXEC_ENOENT : EX_EXEC_FAILED;
}

static int cmd_new(const struct ctl_args *a)
{
	int err = cs_create(a->dest, a->type);

	if (err)
		return lib_error(err, "Failed to create cookie for PID %d",
				 (int)a->dest);
	if (a->verbose)
		msgx("set cookie of PID %d to 0x%llx", (int)a->dest,
		      verbose_cookie(a->dest));
	return EXIT_SUCCESS;
}

static int cmd_copy(const struct ctl_args *a)
{
	int err = cs_share_from(a->src);

	if (err)
		return lib_error(err, "Failed to pull cookie from PID %d",
				 (int)a->src);
	err = cs_share_to(a->dest, a->type);
	if (err)
		return lib_error(err, "Failed to push cookie to PID %d",
				 (int)a->dest);
	if (a->verbose)
		msgx("copied cookie 0x%llx from PID %d to PID %d",
		      verbose_cookie(a->src), (int)a->src, (int)a->dest);
	return EXIT_SUCCESS;
}

static int cmd_clear(const struct ctl_args *a)
{
	int err = cs_clear(a->dest, a->type);

	if (err)
		return lib_error(err, "Failed to clear cookie of PID %d",
				 (int)a->dest);
	if (a->verbose)
		msgx("set cookie of PID %d to 0x%llx", (int)a->dest,
		      verbose_cookie(a->dest));
	return EXIT_SUCCESS;
}

/* --- list --------------------------------------------------------------- */

struct member {
	__u64 cookie;
	__u64 cgid; /* 0 for a task */
	pid_t tid, tgid;
	bool via_cgroup; /* a task without a cookie of its own */
	char *name; /* comm of a task, path of a cgroup */
};

struct members {
	struct member *v;
	size_t n, cap;
};

static int add_member(struct members *m, __u64 cookie, __u64 cgid, pid_t tid,
		      pid_t tgid, bool via_cgroup, const char *name)
{
	struct member *v;

	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 256;
		v = realloc(m->v, m->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		m->v = v;
	}
	v = &m->v[m->n];
	*v = (struct member){ .cookie = cookie,
			      .cgid = cgid,
			      .tid = tid,
			      .tgid = tgid,
			      .via_cgroup = via_cgroup,
			      .name = strdup(name) };
	if (!v->name)
		return -ENOMEM;
	m->n++;
	return 0;
}

static int cmp_member(const void *pa, const void *pb)
{
	const struct member *a = pa, *b = pb;

	if (a->cookie != b->cookie)
		return a->cookie < b->cookie ? -1 : 1;
	if (!a->cgid != !b->cgid)
		return a->cgid ? 1 : -1; /* tasks first */
	if (a->cgid)
		return strcmp(a->name, b->name);
	return a->tid - b->tid;
}

/* Numeric entries of directory @dir, one by one. */
static bool next_num(DIR *dir, pid_t *id)
{
	struct dirent *de;

	while ((de = readdir(dir)))
		if (!ctl_pid(de->d_name, id) && *id > 0)
			return true;
	return false;
}

#define PF_KTHREAD 0x00200000 /* linux/sched.h, not in the UAPI */

/* Cgroup path -> the cookie its tasks get, for list. */
struct cg_cache {
	struct {
		char *path;
		__u64 cookie;
	} v[256];
	int n;
};

/* Read the first line of /proc/TGID/task/TID/@file into @buf. */
static bool read_task_file(pid_t tgid, pid_t tid, const char *file, char *buf,
			   size_t len)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)tgid,
		 (int)tid, file);
	return cs_read_line(path, buf, len);
}

/*
 * The cookie a task without a cookie of its own gets from its cgroup under
 * scx_coresched (0 for kernel threads, which it never tags).
 */
static __u64 task_cgroup_cookie(struct cs_cgroups *h, struct cg_cache *cache,
				pid_t tgid, pid_t tid)
{
	char line[PATH_MAX + 32], path[PATH_MAX + sizeof(CS_CGROUP_ROOT)];
	unsigned int flags;
	__u64 cookie = 0;
	char *p;
	int i;

	if (!read_task_file(tgid, tid, "stat", line, sizeof(line)))
		return 0;
	/* "pid (comm) state ppid pgrp session tty_nr tpgid flags ..." */
	p = strrchr(line, ')');
	if (!p ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %u", &flags) != 1 ||
	    (flags & PF_KTHREAD))
		return 0;
	if (!read_task_file(tgid, tid, "cgroup", line, sizeof(line)) ||
	    strncmp(line, "0::/", 4))
		return 0;
	if (snprintf(path, sizeof(path), "%s%.*s", CS_CGROUP_ROOT, PATH_MAX,
		     strcmp(line + 3, "/") ? line + 3 : "") >=
	    (int)sizeof(path))
		return 0;
	for (i = 0; i < cache->n; i++)
		if (!strcmp(cache->v[i].path, path))
			return cache->v[i].cookie;
	if (cs_cgroup_get(h, path, &cookie, NULL))
		return 0; /* gone meanwhile */
	if (cache->n < (int)(sizeof(cache->v) / sizeof(cache->v[0]))) {
		cache->v[cache->n].path = strdup(path);
		if (cache->v[cache->n].path)
			cache->v[cache->n++].cookie = cookie;
	}
	return cookie;
}

/*
 * Every thread with a cookie: its own, or with @h (scx_coresched running)
 * its cgroup's. *@denied counts those we may not read.
 */
static int list_tasks(struct members *m, struct cs_cgroups *h,
		      unsigned int *denied)
{
	struct cg_cache *cache = NULL;
	bool via_cgroup;
	int i;
	char path[64], comm[64];
	DIR *procs, *tasks;
	pid_t tgid, tid;
	__u64 cookie, cg;
	int err = 0;

	if (h) {
		cache = calloc(1, sizeof(*cache));
		if (!cache) {
			msgx("out of memory");
			return -ENOMEM;
		}
	}
	procs = opendir("/proc");
	if (!procs) {
		msgx("cannot list /proc: %s; is procfs mounted?",
		     strerror(errno));
		free(cache);
		return -errno;
	}
	while (next_num(procs, &tgid)) {
		snprintf(path, sizeof(path), "/proc/%d/task", (int)tgid);
		tasks = opendir(path);
		if (!tasks)
			continue; /* exited */
		while (next_num(tasks, &tid)) {
			err = cs_get(tid, &cookie);
			if (err == -ESRCH)
				continue;
			if (err) {
				(*denied)++;
				continue;
			}
			/*
			 * Its cgroup's cookie? GET may give either 0 or, from
			 * scx_coresched, the cgroup cookie itself.
			 */
			via_cgroup = false;
			if (h && (!cookie || (cookie & CS_COOKIE_CGROUP))) {
				cg = task_cgroup_cookie(h, cache, tgid, tid);
				via_cgroup = cg && (!cookie || cookie == cg);
				if (via_cgroup)
					cookie = cg;
			}
			if (!cookie)
				continue;
			if (!read_task_file(tgid, tid, "comm", comm,
					    sizeof(comm)))
				comm[0] = '\0';
			err = add_member(m, cookie, 0, tid, tgid, via_cgroup,
					 comm);
			if (err)
				break;
		}
		closedir(tasks);
		if (err == -ENOMEM)
			break;
	}
	closedir(procs);
	for (i = 0; cache && i < cache->n; i++)
		free(cache->v[i].path);
	free(cache);
	if (err == -ENOMEM)
		msgx("out of memory");
	return err == -ENOMEM ? err : 0;
}

/* The path of cgroup @cgid, for output. */
static void cgroup_name(__u64 cgid, char *buf, size_t len)
{
	char rel[PATH_MAX];

	if (cs_cgroup_path(cgid, rel, sizeof(rel)))
		snprintf(buf, len, "%s%s", CS_CGROUP_ROOT,
			 strcmp(rel, "/") ? rel : "");
	else /* removed, or outside our view of the cgroup tree */
		snprintf(buf, len, "(cgroup id %llu)",
			 (unsigned long long)cgid);
}

static int add_cgroup(__u64 cgid, __u64 cookie, void *ctx)
{
	char path[PATH_MAX + sizeof(CS_CGROUP_ROOT)];

	cgroup_name(cgid, path, sizeof(path));
	return add_member(ctx, cookie, cgid, 0, 0, false, path);
}

static void print_list(const struct members *m, bool json)
{
	size_t i, j, k, tasks;

	if (json)
		printf("{\"cookies\": [");
	for (i = 0; i < m->n; i = j) {
		for (j = i, tasks = 0; j < m->n && m->v[j].cookie == m->v[i].cookie;
		     j++)
			tasks += !m->v[j].cgid;
		if (json) {
			printf("%s\n  {\"cookie\": \"0x%llx\", \"tasks\": [",
			       i ? "," : "", (unsigned long long)m->v[i].cookie);
			for (k = i; k < i + tasks; k++) {
				printf("%s{\"pid\": %d, \"tgid\": %d, \"comm\": ",
				       k > i ? ", " : "", (int)m->v[k].tid,
				       (int)m->v[k].tgid);
				json_str(m->v[k].name);
				printf(", \"via\": \"%s\"}",
				       m->v[k].via_cgroup ? "cgroup" : "task");
			}
			printf("], \"cgroups\": [");
			for (k = i + tasks; k < j; k++) {
				if (k > i + tasks)
					printf(", ");
				json_str(m->v[k].name);
			}
			printf("]}");
			continue;
		}
		printf("cookie 0x%llx: %zu task%s, %zu cgroup%s\n",
		       (unsigned long long)m->v[i].cookie, tasks,
		       tasks == 1 ? "" : "s", j - i - tasks,
		       j - i - tasks == 1 ? "" : "s");
		for (k = i; k < j; k++) {
			if (m->v[k].cgid)
				printf("  cgroup %s\n", m->v[k].name);
			else
				printf("  pid %d tgid %d %s%s\n", (int)m->v[k].tid,
				       (int)m->v[k].tgid, m->v[k].name,
				       m->v[k].via_cgroup ? " (by its cgroup)" :
							    "");
		}
	}
	if (json)
		printf("%s]}\n", m->n ? "\n" : "");
}

static int cmd_list(const struct ctl_args *a)
{
	struct cs_cgroups *h = NULL;
	struct members m = { 0 };
	unsigned int denied = 0;
	size_t i;
	int err;

	/* Cgroup cookies count only under scx_coresched. */
	if (cs_scheduler_running() && cs_cgroups_open(&h))
		msgx("cgroup cookies not listed: %s", cs_errmsg());
	err = list_tasks(&m, h, &denied);
	if (!err && h) {
		err = cs_cgroup_foreach(h, add_cgroup, &m);
		if (err)
			msgx("%s", err == -ENOMEM ? "out of memory" :
						    cs_errmsg());
	}
	cs_cgroups_close(h);
	if (!err) {
		qsort(m.v, m.n, sizeof(*m.v), cmp_member);
		print_list(&m, a->json);
		if (denied)
			msgx("%u task%s not listed: no permission to read %s cookie; run as root to list all",
			      denied, denied == 1 ? "" : "s",
			      denied == 1 ? "its" : "their");
	}
	for (i = 0; i < m.n; i++)
		free(m.v[i].name);
	free(m.v);
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* --- cgroup ------------------------------------------------------------- */

static int cmd_cgroup(const struct ctl_args *a)
{
	char path[2][PATH_MAX], from_path[PATH_MAX + sizeof(CS_CGROUP_ROOT)];
	__u64 cookie, from, own;
	struct cs_cgroups *h;
	int i, err;

	for (i = 0; i < 2 && a->path[i]; i++) {
		if (!ctl_cgroup_path(a->path[i], path[i], sizeof(path[i]))) {
			msgx("cgroup path '%s' is too long", a->path[i]);
			return EXIT_FAILURE;
		}
	}
	err = cs_cgroups_open(&h);
	if (err) {
		msgx("%s", cs_errmsg());
		return EXIT_FAILURE;
	}
	switch (a->cmd) {
	case CTL_CGROUP_TAG:
		err = cs_cgroup_tag(h, path[0], &cookie);
		if (!err && a->verbose)
			msgx("set cookie of cgroup %s to 0x%llx", path[0],
			      (unsigned long long)cookie);
		break;
	case CTL_CGROUP_UNTAG:
		err = cs_cgroup_untag(h, path[0]);
		if (!err && a->verbose)
			msgx("removed the cookie of cgroup %s", path[0]);
		break;
	case CTL_CGROUP_SHARE:
		err = cs_cgroup_share(h, path[0], path[1], &cookie);
		if (!err && a->verbose)
			msgx("copied cookie 0x%llx from cgroup %s to cgroup %s",
			      (unsigned long long)cookie, path[0], path[1]);
		break;
	default:
		err = cs_cgroup_get(h, path[0], &cookie, &from);
		if (err)
			break;
		from_path[0] = '\0';
		if (from && (cs_cgroup_id(path[0], &own) || own != from))
			cgroup_name(from, from_path, sizeof(from_path));
		if (a->json) {
			printf("{\"cgroup\": ");
			json_str(path[0]);
			printf(", \"cookie\": \"0x%llx\", \"unknown\": %s, \"inherited_from\": ",
			       (unsigned long long)cookie,
			       cookie == CS_COOKIE_LOST ? "true" : "false");
			if (*from_path)
				json_str(from_path);
			else
				printf("null");
			printf("}\n");
		} else {
			printf("cookie of cgroup %s is 0x%llx", path[0],
			       (unsigned long long)cookie);
			if (*from_path)
				printf(" (inherited from %s)", from_path);
			if (cookie == CS_COOKIE_LOST)
				printf(" (unknown: deeper than the %d levels searched for a tag, none of them tagged; its tasks run alone)",
				       CS_MAX_CGRP_DEPTH);
			putchar('\n');
		}
	}
	if (err)
		msgx("%s", cs_errmsg());
	cs_cgroups_close(h);
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}

static bool uses_prctl(enum ctl_cmd cmd)
{
	return cmd <= CTL_LIST;
}

int main(int argc, char **argv)
{
	struct ctl_args a;
	char msg[512];
	int rc, err;

	prog = program_invocation_short_name;
	if (argc > 1 && !strcmp(argv[1], "stats")) /* stats hook */
		return ctl_stats(argc - 1, argv + 1, prog);
	switch (ctl_parse(argc, argv, &a, msg, sizeof(msg))) {
	case CTL_PARSE_OK:
		break;
	case CTL_PARSE_HELP:
		usage();
		return fflush(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
	case CTL_PARSE_VERSION:
		printf("%s from scx_coresched %s\n", prog, CS_VERSION);
		return fflush(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
	case CTL_PARSE_USAGE:
		if (*msg)
			msgx("%s", msg);
		fprintf(stderr, "Try '%s --help' for more information.\n",
			prog);
		return EXIT_FAILURE;
	case CTL_PARSE_ERROR:
		msgx("%s", msg);
		return EXIT_FAILURE;
	}

	if (a.cmd == CTL_POLICY) /* policy hook */
		return ctl_policy(argc - a.policy_index,
				  argv + a.policy_index, prog);

	/* As util-linux: the source defaults to this process. */
	if (a.cmd != CTL_NEW && !a.src)
		a.src = getpid();

	if (uses_prctl(a.cmd)) {
		err = cs_supported();
		if (err == -EINVAL || err == -ENODEV) {
			msgx("Core scheduling is not supported on this system. Either SMT is unavailable or your kernel does not support CONFIG_SCHED_CORE.");
			return EXIT_FAILURE;
		}
	}

	switch (a.cmd) {
	case CTL_GET:
		rc = cmd_get(&a);
		break;
	case CTL_NEW:
		rc = a.exec_index ? cmd_exec(&a, argv) : cmd_new(&a);
		break;
	case CTL_COPY:
		rc = a.exec_index ? cmd_exec(&a, argv) : cmd_copy(&a);
		break;
	case CTL_CLEAR:
		rc = cmd_clear(&a);
		break;
	case CTL_LIST:
		rc = cmd_list(&a);
		break;
	default:
		rc = cmd_cgroup(&a);
	}
	if (fflush(stdout) || ferror(stdout)) {
		msgx("write error: %s", strerror(errno));
		return EXIT_FAILURE;
	}
	return rc;
}
