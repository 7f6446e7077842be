// SPDX-License-Identifier: GPL-2.0-only
/*
 * coreschedctl policy: check a policy file, and explain which rule gives
 * a task or a cgroup its cookie (or why it has none). See
 * cs_policy_file.h for the file, bpf/policy.bpf.c for how the rules act.
 *
 * show reads the tags from the pinned map (CS_PIN_DIR/cs_cgrp_tag), which
 * exists whether or not the scheduler runs, and the rules from the file:
 * a tagged cgroup is "by rule N" if rule N names it (cgroup PATH) or its
 * parent (children PATH) and the tag is the cgroup's own cookie; any other
 * tag was set by hand (coreschedctl cgroup tag/share).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "coresched.h"
#include "coreschedctl.h"
#include "cs_common.h"
#include "cs_policy_file.h"
#include "libcoresched.h"

#define PF_KTHREAD 0x00200000 /* linux/sched.h, not in the UAPI */

static const char *prog;

static void policy_usage(FILE *f)
{
	fprintf(f,
		"Usage:\n"
		" %1$s policy check [FILE]\n"
		" %1$s policy show [--policy FILE] [--pid PID | PATH]\n"
		"\n"
		"check: validate a policy file (default %2$s); errors name\n"
		"  the line. Exit status 1 if any line is bad.\n"
		"show: which rule of the policy gives task PID (or cgroup PATH) its\n"
		"  cookie, or why it has none; without PID or PATH, every rule and\n"
		"  what it tags now.\n",
		prog, CS_POLICY_DEFAULT);
}

/* Read @file; NULL @file: the default, where a missing file is empty. */
static int load(const char *file, struct cs_policy *p, const char **name)
{
	int ret;

	*name = file ? file : CS_POLICY_DEFAULT;
	ret = cs_policy_read(*name, p, stderr);
	if (ret == -ENOENT && !file) {
		p->nr = 0;
		return 0;
	}
	if (ret < 0) {
		fprintf(stderr, "%s: cannot read the policy file %s: %s\n",
			prog, *name, strerror(-ret));
		return -1;
	}
	if (ret > 0) {
		fprintf(stderr,
			"%s: %s: %d bad line%s; fix %s and check again: %s policy check %s\n",
			prog, *name, ret, ret == 1 ? "" : "s",
			ret == 1 ? "it" : "them", prog, *name);
		return -1;
	}
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	char fs[PATH_MAX], what[CS_POLICY_PATH_MAX + 16];
	struct cs_policy *p;
	const char *name;
	__u64 id;
	int i;

	if (argc > 1) {
		fprintf(stderr, "%s: policy check takes one FILE at most\n",
			prog);
		return EXIT_FAILURE;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAILURE;
	}
	/* check names the file it reads, even the default one. */
	if (load(argc ? argv[0] : CS_POLICY_DEFAULT, p, &name)) {
		free(p);
		return EXIT_FAILURE;
	}
	for (i = 0; i < p->nr; i++) {
		cs_policy_fs_path(p->rule[i].path, fs, sizeof(fs));
		if (cs_cgroup_id(fs, &id) == -ENOENT)
			printf("%s:%d: note: '%s': %s does not exist yet; the rule applies when it is created\n",
			       name, p->rule[i].line,
			       cs_policy_rule_str(&p->rule[i], what,
						  sizeof(what)),
			       fs);
	}
	printf("%s: %d rule%s, OK\n", name, p->nr, p->nr == 1 ? "" : "s");
	free(p);
	return EXIT_SUCCESS;
}

/* In place: "/a/b" -> "/a"; "/a" -> "/". */
static void up(char *path)
{
	char *slash = strrchr(path, '/');

	if (slash && slash != path)
		*slash = '\0';
	else
		strcpy(path, "/");
}

/* The rule that tags cgroup @path with its own cookie, or -1. */
static int rule_for(const struct cs_policy *p, const char *path)
{
	char parent[CS_POLICY_PATH_MAX + 1];
	int i;

	snprintf(parent, sizeof(parent), "%s", path);
	up(parent);
	for (i = 0; i < p->nr; i++) {
		if (p->rule[i].kind == CS_RULE_CGROUP &&
		    !strcmp(p->rule[i].path, path))
			return i;
		if (p->rule[i].kind == CS_RULE_CHILDREN && strcmp(path, "/") &&
		    !strcmp(p->rule[i].path, parent))
			return i;
	}
	return -1;
}

static void print_rule(const struct cs_policy *p, int i, const char *name)
{
	char what[CS_POLICY_PATH_MAX + 16];

	printf("rule %d (%s:%d: %s)", i + 1, name, p->rule[i].line,
	       cs_policy_rule_str(&p->rule[i], what, sizeof(what)));
}

/* The tag of cgroup @path ("/a/b"): 1 and *@cookie, 0 none, -errno. */
static int tag_of(int fd, const char *path, __u64 *id, __u64 *cookie)
{
	char fs[PATH_MAX];
	struct cs_tag t;
	int ret;

	cs_policy_fs_path(path, fs, sizeof(fs));
	ret = cs_cgroup_id(fs, id);
	if (ret)
		return ret;
	ret = bpf_map_lookup_elem(fd, id, &t);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	*cookie = t.cookie;
	return 1;
}

/*
 * Explain the cookie the tasks of cgroup @path get from it (the nearest
 * tagged ancestor, as the scheduler looks). Prints the rest of a line.
 */
static int explain_cgroup(int fd, const struct cs_policy *p, const char *name,
			  const char *path)
{
	char cur[CS_POLICY_PATH_MAX + 1], other[PATH_MAX];
	__u64 id, cookie = 0;
	int i, r, ret = 0;

	snprintf(cur, sizeof(cur), "%s", path);
	for (i = 0; i < CS_MAX_CGRP_DEPTH; i++) {
		ret = fd < 0 ? 0 : tag_of(fd, cur, &id, &cookie);
		if (ret)
			break;
		if (!strcmp(cur, "/"))
			break;
		up(cur);
	}
	if (ret < 0) {
		printf("cannot read the tag of cgroup %s: %s\n", cur,
		       strerror(-ret));
		return -1;
	}
	if (ret == 0 && fd >= 0 && i == CS_MAX_CGRP_DEPTH) {
		printf("unknown (cookie 0x%llx: its tasks run alone): no tagged cgroup in the %d levels from %s up, and the root is further up\n",
		       (unsigned long long)CS_COOKIE_LOST, CS_MAX_CGRP_DEPTH,
		       path);
		return 0;
	}
	if (ret == 0) {
		printf("untagged (cookie 0): no tagged cgroup from %s up", path);
		snprintf(cur, sizeof(cur), "%s", path);
		for (i = 0; i < CS_MAX_CGRP_DEPTH; i++) {
			r = rule_for(p, cur);
			if (r >= 0) {
				printf("; ");
				print_rule(p, r, name);
				printf(" names %s but its tag is missing: start scx_coresched, which applies the policy at start\n",
				       cur);
				return 0;
			}
			if (!strcmp(cur, "/"))
				break;
			up(cur);
		}
		printf("; no rule of %s names it or an ancestor\n", name);
		return 0;
	}
	printf("cookie 0x%llx from cgroup %s", (unsigned long long)cookie, cur);
	if (strcmp(cur, path))
		printf(" (inherited)");
	r = rule_for(p, cur);
	if (cookie == (CS_COOKIE_CGROUP | id) && r >= 0) {
		printf(": tagged by ");
		print_rule(p, r, name);
		putchar('\n');
	} else if (cookie == (CS_COOKIE_CGROUP | id)) {
		printf(": tagged by hand (coreschedctl cgroup tag); no rule of %s names it\n",
		       name);
	} else {
		if (!(cookie & CS_COOKIE_CGROUP) ||
		    !cs_cgroup_path(cookie & ~CS_COOKIE_CGROUP, other,
				    sizeof(other)))
			snprintf(other, sizeof(other), "another cgroup");
		printf(": shares the cookie of %s, set by hand (coreschedctl cgroup share)\n",
		       other);
	}
	return 0;
}

/* Cgroup operand -> rule path form ("/a/b"); false with a message. */
static bool cgroup_operand(const char *arg, char *out)
{
	char fs[PATH_MAX], real[PATH_MAX], err[512];
	__u64 id;
	int ret;

	if (!ctl_cgroup_path(arg, fs, sizeof(fs)) || !realpath(fs, real)) {
		fprintf(stderr,
			"%s: cgroup %s: %s; give an existing cgroup v2 directory (absolute, ./relative, or relative to %s)\n",
			prog, arg, strerror(errno), CS_CGROUP_ROOT);
		return false;
	}
	ret = cs_cgroup_id(real, &id);
	if (ret || cs_policy_path(real, out, err, sizeof(err)) ||
	    strncmp(real, CS_CGROUP_ROOT, strlen(CS_CGROUP_ROOT))) {
		fprintf(stderr,
			"%s: %s is not a cgroup v2 directory under %s; give one such as %s/NAME\n",
			prog, real, CS_CGROUP_ROOT, CS_CGROUP_ROOT);
		return false;
	}
	return true;
}

static int show_pid(int fd, const struct cs_policy *p, const char *name,
		    pid_t pid)
{
	char file[64], line[PATH_MAX + 32], comm[64] = "?", path[CS_POLICY_PATH_MAX + 1];
	unsigned int flags = 0;
	__u64 own;
	char *s;
	int err;

	snprintf(file, sizeof(file), "/proc/%d/comm", (int)pid);
	if (!cs_read_line(file, comm, sizeof(comm))) {
		fprintf(stderr, "%s: no task with PID %d (%s); give a running task's PID\n",
			prog, (int)pid, strerror(errno));
		return EXIT_FAILURE;
	}
	snprintf(file, sizeof(file), "/proc/%d/stat", (int)pid);
	if (cs_read_line(file, line, sizeof(line)) && (s = strrchr(line, ')')))
		sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %u", &flags);
	printf("pid %d (%s): ", (int)pid, comm);
	if (flags & PF_KTHREAD) {
		printf("kernel thread: never tagged (cookie 0)\n");
		return EXIT_SUCCESS;
	}
	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	if (!cs_read_line(file, line, sizeof(line)) ||
	    strncmp(line, "0::/", 4)) {
		printf("\n");
		fprintf(stderr, "%s: cannot find the cgroup v2 of PID %d in %s\n",
			prog, (int)pid, file);
		return EXIT_FAILURE;
	}
	if (strlen(line + 3) > CS_POLICY_PATH_MAX) {
		printf("\n");
		fprintf(stderr,
			"%s: the cgroup of PID %d is longer than the %d bytes a policy path may have, so no rule can name it: %s\n",
			prog, (int)pid, CS_POLICY_PATH_MAX, line + 3);
		return EXIT_FAILURE;
	}
	snprintf(path, sizeof(path), "%s", line + 3);
	err = cs_get(pid, &own);
	if (err) {
		printf("\n");
		fprintf(stderr, "%s: cannot read the cookie of PID %d: %s\n",
			prog, (int)pid, cs_errmsg());
		return EXIT_FAILURE;
	}
	/* GET reports the effective cookie: its own, else its cgroup's. */
	if (own == CS_COOKIE_LOST) {
		printf("cookie 0x%llx, unknown: it runs alone (a child that lost its parent's cookie at fork, or a cgroup too deep); its cgroup %s gives: ",
		       (unsigned long long)own, path);
	} else if (own && !(own & CS_COOKIE_CGROUP)) {
		printf("cookie 0x%llx: its own per-task cookie (prctl PR_SCHED_CORE, e.g. coreschedctl new), not from a rule; its cgroup %s alone would give: ",
		       (unsigned long long)own, path);
	} else {
		printf("in cgroup %s: ", path);
	}
	return explain_cgroup(fd, p, name, path) ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Every rule and what it tags now. */
static int show_rules(int fd, const struct cs_policy *p, const char *name)
{
	char fs[PATH_MAX], sub[PATH_MAX + 256];
	__u64 id, cookie;
	int i, n, tagged, ret;
	struct dirent *de;
	DIR *dir;

	printf("policy %s: %d rule%s\n", name, p->nr, p->nr == 1 ? "" : "s");
	for (i = 0; i < p->nr; i++) {
		print_rule(p, i, name);
		cs_policy_fs_path(p->rule[i].path, fs, sizeof(fs));
		if (cs_cgroup_id(fs, &id)) {
			printf(": %s does not exist yet; the rule applies when it is created\n",
			       fs);
			continue;
		}
		if (p->rule[i].kind == CS_RULE_CGROUP) {
			ret = fd < 0 ? 0 : tag_of(fd, p->rule[i].path, &id, &cookie);
			printf(": %s is %s\n", fs,
			       ret == 1 && cookie == (CS_COOKIE_CGROUP | id) ?
				       "tagged" : "NOT tagged (start scx_coresched)");
			continue;
		}
		n = tagged = 0;
		dir = opendir(fs);
		while (dir && (de = readdir(dir))) {
			if (de->d_type != DT_DIR || de->d_name[0] == '.')
				continue;
			n++;
			snprintf(sub, sizeof(sub), "%s/%s", fs, de->d_name);
			if (fd >= 0 && !cs_cgroup_id(sub, &id) &&
			    !bpf_map_lookup_elem(fd, &id, &cookie) &&
			    cookie == (CS_COOKIE_CGROUP | id))
				tagged++;
		}
		if (dir)
			closedir(dir);
		printf(": %d of %d child cgroups of %s tagged%s\n", tagged, n,
		       fs, tagged < n ? " (start scx_coresched to tag the rest)" : "");
	}
	return EXIT_SUCCESS;
}

static int cmd_show(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "pid", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char path[CS_POLICY_PATH_MAX + 1];
	const char *file = NULL, *name;
	struct cs_policy *p;
	pid_t pid = -1;
	int c, fd, rc;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+p:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			file = optarg;
			break;
		case 'P':
			if (ctl_pid(optarg, &pid) || pid <= 0) {
				fprintf(stderr, "%s: --pid '%s': give a task's PID\n",
					prog, optarg);
				return EXIT_FAILURE;
			}
			break;
		case 'h':
			policy_usage(stdout);
			return EXIT_SUCCESS;
		default:
			policy_usage(stderr);
			return EXIT_FAILURE;
		}
	}
	if (argc - optind > 1 || (pid > 0 && optind < argc)) {
		fprintf(stderr, "%s: policy show takes --pid PID or one cgroup PATH\n",
			prog);
		return EXIT_FAILURE;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAILURE;
	}
	if (load(file, p, &name)) {
		free(p);
		return EXIT_FAILURE;
	}
	fd = cs_open_pinned_map(CS_MAP_CGRP);
	if (fd < 0 && fd != -ENOENT) {
		fprintf(stderr, "%s: cannot open %s/%s: %s%s\n", prog, CS_PIN_DIR,
			CS_MAP_CGRP, strerror(-fd),
			fd == -EPERM || fd == -EACCES ? "; run as root" : "");
		free(p);
		return EXIT_FAILURE;
	}
	if (fd < 0)
		fprintf(stderr, "%s: no cgroup is tagged: %s/%s does not exist (scx_coresched has not run since boot)\n",
			prog, CS_PIN_DIR, CS_MAP_CGRP);
	if (pid > 0)
		rc = show_pid(fd, p, name, pid);
	else if (optind < argc) {
		rc = EXIT_FAILURE;
		if (cgroup_operand(argv[optind], path)) {
			printf("cgroup %s: ", path);
			rc = explain_cgroup(fd, p, name, path) ? EXIT_FAILURE :
								 EXIT_SUCCESS;
		}
	} else
		rc = show_rules(fd, p, name);
	if (fd >= 0)
		close(fd);
	free(p);
	return rc;
}

int ctl_policy(int argc, char **argv, const char *progname)
{
	prog = progname;
	if (argc < 1) {
		fprintf(stderr, "%s: policy requires a function: check or show\n",
			prog);
		policy_usage(stderr);
		return EXIT_FAILURE;
	}
	if (!strcmp(argv[0], "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[0], "show"))
		return cmd_show(argc, argv);
	if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		policy_usage(stdout);
		return EXIT_SUCCESS;
	}
	fprintf(stderr, "%s: unknown policy function '%s'; use check or show\n",
		prog, argv[0]);
	return EXIT_FAILURE;
}
