// SPDX-License-Identifier: GPL-2.0-only
/*
 * coreschedctl's command line parser; see coreschedctl.h. The rules, the
 * defaults and the messages of util-linux coresched(1) for get, new and
 * copy; our functions follow the same style.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_common.h"
#include "coreschedctl.h"

static const char *const scope_names[] = { "pid", "tgid", "pgid" };

int ctl_scope(const char *name)
{
	int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(name, scope_names[i]))
			return i;
	return -1;
}

const char *ctl_scope_name(int type)
{
	return type >= 0 && type < 3 ? scope_names[type] : "?";
}

int ctl_pid(const char *s, pid_t *pid)
{
	uintmax_t v;
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	if (strtoimax(s, &end, 10) < 0 && !errno)
		return -ERANGE;
	errno = 0;
	v = strtoumax(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == s || *end)
		return -EINVAL;
	if (v > INT_MAX)
		return -ERANGE;
	*pid = (pid_t)v;
	return 0;
}

bool ctl_cgroup_path(const char *arg, char *buf, size_t len)
{
	bool keep = arg[0] == '/' || !strcmp(arg, ".") || !strcmp(arg, "..") ||
		    !strncmp(arg, "./", 2) || !strncmp(arg, "../", 3);
	int n;

	if (keep || !*arg)
		n = snprintf(buf, len, "%s", arg);
	else
		n = snprintf(buf, len, "%s/%s", CS_CGROUP_ROOT, arg);
	return n >= 0 && (size_t)n < len;
}

__attribute__((format(printf, 4, 5))) static enum ctl_parse
say(enum ctl_parse rc, char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return rc;
}

static enum ctl_parse parse_pid(const char *arg, const char *opt, pid_t *pid,
				char *msg, size_t len)
{
	int err = ctl_pid(arg, pid);

	if (err == -ERANGE)
		return say(CTL_PARSE_ERROR, msg, len,
			   "Failed to parse PID for %s: '%s': %s", opt, arg,
			   strerror(ERANGE));
	if (err)
		return say(CTL_PARSE_ERROR, msg, len,
			   "Failed to parse PID for %s: '%s'", opt, arg);
	return CTL_PARSE_OK;
}

/* The operands of 'cgroup FUNCTION ...'. */
static enum ctl_parse parse_cgroup(int argc, char **argv, int i,
				   struct ctl_args *a, char *msg, size_t len)
{
	static const struct {
		const char *name;
		enum ctl_cmd cmd;
		int nargs;
	} funcs[] = {
		{ "tag", CTL_CGROUP_TAG, 1 },
		{ "untag", CTL_CGROUP_UNTAG, 1 },
		{ "get", CTL_CGROUP_GET, 1 },
		{ "share", CTL_CGROUP_SHARE, 2 },
	};
	unsigned int k;
	int n;

	if (i >= argc)
		return say(CTL_PARSE_USAGE, msg, len,
			   "cgroup requires a function: tag, untag, get or share");
	for (k = 0; k < sizeof(funcs) / sizeof(funcs[0]); k++)
		if (!strcmp(argv[i], funcs[k].name))
			break;
	if (k == sizeof(funcs) / sizeof(funcs[0]))
		return say(CTL_PARSE_USAGE, msg, len,
			   "Unknown cgroup function '%s'; use tag, untag, get or share",
			   argv[i]);
	a->cmd = funcs[k].cmd;
	n = argc - i - 1;
	if (n != funcs[k].nargs)
		return say(CTL_PARSE_USAGE, msg, len,
			   funcs[k].nargs == 1 ?
				   "cgroup %s requires one PATH (a cgroup v2 directory)" :
				   "cgroup %s requires two PATHs: SRC and DST",
			   funcs[k].name);
	a->path[0] = argv[i + 1];
	a->path[1] = funcs[k].nargs == 2 ? argv[i + 2] : NULL;
	return CTL_PARSE_OK;
}

enum ctl_parse ctl_parse(int argc, char **argv, struct ctl_args *a, char *msg,
			 size_t len)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "dest", required_argument, NULL, 'd' },
		{ "dest-type", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'J' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum ctl_parse rc;
	bool type_set = false;
	const char *fn;
	int c;

	memset(a, 0, sizeof(*a));
	a->type = 1; /* PR_SCHED_CORE_SCOPE_THREAD_GROUP, as util-linux */
	msg[0] = '\0';

	/* policy: its own options (--pid, --policy), see ctl_policy(). */
	if (argc > 1 && !strcmp(argv[1], "policy")) {
		a->cmd = CTL_POLICY;
		a->policy_index = 2;
		return CTL_PARSE_OK;
	}

	optind = 0; /* full reset: ctl_parse() may be called again */
	opterr = 1; /* getopt reports unknown options, as in util-linux */
	while ((c = getopt_long(argc, argv, "s:d:t:vJVh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 's':
			rc = parse_pid(optarg, "-s/--source", &a->src, msg, len);
			if (rc)
				return rc;
			break;
		case 'd':
			rc = parse_pid(optarg, "-d/--dest", &a->dest, msg, len);
			if (rc)
				return rc;
			break;
		case 't':
			a->type = ctl_scope(optarg);
			if (a->type < 0)
				return say(CTL_PARSE_USAGE, msg, len,
					   "'%s' is an invalid option. Must be one of pid/tgid/pgid",
					   optarg);
			type_set = true;
			break;
		case 'v':
			a->verbose = true;
			break;
		case 'J':
			a->json = true;
			break;
		case 'V':
			return CTL_PARSE_VERSION;
		case 'h':
			return CTL_PARSE_HELP;
		default:
			return CTL_PARSE_USAGE;
		}
	}

	if (optind >= argc) {
		a->cmd = CTL_GET;
	} else {
		fn = argv[optind++];
		if (!strcmp(fn, "get"))
			a->cmd = CTL_GET;
		else if (!strcmp(fn, "new"))
			a->cmd = CTL_NEW;
		else if (!strcmp(fn, "copy"))
			a->cmd = CTL_COPY;
		else if (!strcmp(fn, "clear"))
			a->cmd = CTL_CLEAR;
		else if (!strcmp(fn, "list"))
			a->cmd = CTL_LIST;
		else if (!strcmp(fn, "cgroup"))
			a->cmd = CTL_CGROUP_TAG; /* refined below */
		else
			return say(CTL_PARSE_USAGE, msg, len,
				   "Unknown function '%s'", fn);
	}

	if (a->json && a->cmd != CTL_GET && a->cmd != CTL_LIST &&
	    !(a->cmd == CTL_CGROUP_TAG && optind < argc &&
	      !strcmp(argv[optind], "get")))
		return say(CTL_PARSE_USAGE, msg, len,
			   "--json is only for get, list and cgroup get");

	switch (a->cmd) {
	case CTL_GET:
		if (a->dest)
			return say(CTL_PARSE_USAGE, msg, len,
				   "get does not accept the --dest option");
		if (optind < argc)
			return say(CTL_PARSE_USAGE, msg, len,
				   "bad usage of the get function");
		return CTL_PARSE_OK;
	case CTL_NEW:
	case CTL_COPY:
		fn = a->cmd == CTL_NEW ? "new" : "copy";
		if (a->cmd == CTL_NEW && a->src)
			return say(CTL_PARSE_USAGE, msg, len,
				   "new does not accept the --source option");
		if (optind < argc && !a->dest)
			a->exec_index = optind;
		else if (optind < argc || !a->dest)
			return say(CTL_PARSE_USAGE, msg, len,
				   "%s requires either a -d/--dest or a command",
				   fn);
		return CTL_PARSE_OK;
	case CTL_CLEAR:
		if (a->src)
			return say(CTL_PARSE_USAGE, msg, len,
				   "clear does not accept the --source option");
		if (optind < argc)
			return say(CTL_PARSE_USAGE, msg, len,
				   "clear runs no command; give the task with -d/--dest PID");
		if (!a->dest)
			return say(CTL_PARSE_USAGE, msg, len,
				   "clear requires -d/--dest PID");
		return CTL_PARSE_OK;
	case CTL_LIST:
		if (a->src || a->dest || type_set)
			return say(CTL_PARSE_USAGE, msg, len,
				   "list does not accept -s, -d or -t");
		if (optind < argc)
			return say(CTL_PARSE_USAGE, msg, len,
				   "list takes no arguments");
		return CTL_PARSE_OK;
	default:
		if (a->src || a->dest || type_set)
			return say(CTL_PARSE_USAGE, msg, len,
				   "cgroup does not accept -s, -d or -t");
		return parse_cgroup(argc, argv, optind, a, msg, len);
	}
}
