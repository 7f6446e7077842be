/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The policy file of scx_coresched (default CS_POLICY_DEFAULT): one rule
 * a line, shared by the loader (which applies it) and coreschedctl (policy
 * check, policy show). The parser has no side effects, for the host tests.
 *
 *   # comment (a '#' at the start of a line or after a blank)
 *   cgroup PATH     the cgroup PATH and its descendants share one cookie
 *   children PATH   every child cgroup of PATH gets a cookie of its own
 *   users           the same as "children /user.slice"
 *
 * PATH is a cgroup path as /proc/PID/cgroup shows it ("/machine.slice",
 * or "machine.slice"), or a directory under /sys/fs/cgroup
 * ("/sys/fs/cgroup/machine.slice"). Paths elsewhere under /sys, and paths
 * with "." or ".." components, are refused. Rules name paths, not ids, so
 * they survive reboots, and a rule may name a cgroup that does not exist
 * yet: it takes effect when the cgroup is created.
 */
#ifndef __CS_POLICY_FILE_H
#define __CS_POLICY_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cs_policy_rules.h"

#define CS_POLICY_DEFAULT "/etc/scx_coresched/policy"
/* Characters in one line of the policy file, newline excluded. */
#define CS_POLICY_LINE_MAX 1024
/* Errors reported for one file before the parser gives up. */
#define CS_POLICY_MAX_ERRORS 20

struct cs_policy_rule {
	int kind; /* CS_RULE_CGROUP or CS_RULE_CHILDREN */
	int line; /* 1-based line number in the file */
	bool users; /* written as "users" */
	char path[CS_POLICY_PATH_MAX + 1]; /* normalized: "/a/b", root "/" */
};

struct cs_policy {
	int nr;
	struct cs_policy_rule rule[CS_POLICY_MAX_RULES];
};

/*
 * Normalize rule path @arg to "/a/b" form in @out (CS_POLICY_PATH_MAX + 1
 * bytes). 0, or -1 with a message in @err.
 */
int cs_policy_path(const char *arg, char *out, char *err, size_t len);

/*
 * Parse one line (no newline) into @r. Returns 1 for a rule, 0 for a
 * blank or comment line, -1 with a message in @err (no file or line
 * prefix) for a bad one. @r->line is left to the caller.
 */
int cs_policy_parse_line(const char *line, struct cs_policy_rule *r,
			 char *err, size_t len);

/*
 * Parse stream @f (named @name in messages) into @p. Every bad line is
 * reported to @errs as "NAME:LINE: message\n" (at most
 * CS_POLICY_MAX_ERRORS). Returns the number of bad lines (0: valid).
 */
int cs_policy_parse(FILE *f, const char *name, struct cs_policy *p,
		    FILE *errs);

/*
 * Read and parse policy file @file. Returns as cs_policy_parse(), or
 * -errno if it cannot be opened (-ENOENT: no such file).
 */
int cs_policy_read(const char *file, struct cs_policy *p, FILE *errs);

/* "cgroup /a", "children /user.slice" or "users", for messages. */
const char *cs_policy_rule_str(const struct cs_policy_rule *r, char *buf,
			       size_t len);

/* The file system path of rule path @path ("/sys/fs/cgroup/a/b"). */
void cs_policy_fs_path(const char *path, char *buf, size_t len);

#endif /* __CS_POLICY_FILE_H */
