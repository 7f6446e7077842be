/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * coreschedctl's command line: the util-linux coresched(1) syntax plus
 * scx_coresched's own functions. Parsing is kept apart from main() (and
 * free of side effects other than getopt's own messages) so that the host
 * unit tests can check it.
 */
#ifndef __CORESCHEDCTL_H
#define __CORESCHEDCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum ctl_cmd {
	CTL_GET = 0, /* util-linux */
	CTL_NEW,
	CTL_COPY,
	CTL_CLEAR, /* ours from here */
	CTL_LIST,
	CTL_CGROUP_TAG,
	CTL_CGROUP_UNTAG,
	CTL_CGROUP_GET,
	CTL_CGROUP_SHARE,
	CTL_POLICY, /* policy check|show: parsed by ctl_policy() */
};

struct ctl_args {
	enum ctl_cmd cmd;
	pid_t src; /* -s; 0: not given */
	pid_t dest; /* -d; 0: not given */
	int type; /* -t, a PR_SCHED_CORE_SCOPE_*; default thread group */
	bool verbose;
	bool json;
	int exec_index; /* index in argv of the command to run; 0: none */
	const char *path[2]; /* cgroup operands */
	int policy_index; /* CTL_POLICY: index in argv of its first argument */
};

enum ctl_parse {
	CTL_PARSE_OK = 0,
	CTL_PARSE_HELP, /* -h: print usage, exit 0 */
	CTL_PARSE_VERSION, /* -V: print version, exit 0 */
	CTL_PARSE_USAGE, /* usage error: message in msg (may be ""), exit 1 */
	CTL_PARSE_ERROR, /* other error (a bad number): message, exit 1 */
};

/*
 * Parse @argv into @a. On CTL_PARSE_USAGE and CTL_PARSE_ERROR @msg gets
 * the one-line message (without the program name); "" for an unknown
 * option, which getopt has reported itself.
 */
enum ctl_parse ctl_parse(int argc, char **argv, struct ctl_args *a, char *msg,
			 size_t len);

/* A scope name (pid, tgid, pgid) to its PR_SCHED_CORE_SCOPE_*; -1 if none. */
int ctl_scope(const char *name);
/* The name of scope @type. */
const char *ctl_scope_name(int type);

/*
 * Parse a PID as util-linux does: a non-negative decimal number up to
 * INT_MAX. 0 on success, -EINVAL if it is not a number, -ERANGE if it is
 * negative or too large.
 */
int ctl_pid(const char *s, pid_t *pid);

/*
 * Map a cgroup PATH operand to a file system path: absolute paths and
 * paths starting with ./ or ../ (or . and ..) are kept, others are taken
 * relative to the cgroup root. False if it does not fit in @len.
 */
bool ctl_cgroup_path(const char *arg, char *buf, size_t len);

/*
 * coreschedctl policy check|show (coreschedctl_policy.c): @argv starts
 * with the function. Returns the exit status.
 */
int ctl_policy(int argc, char **argv, const char *prog);

/*
 * coreschedctl stats [--json|--prometheus] (coreschedctl_stats.c): @argv
 * starts at "stats"; returns the exit status.
 */
int ctl_stats(int argc, char **argv, const char *prog);

#endif /* __CORESCHEDCTL_H */
