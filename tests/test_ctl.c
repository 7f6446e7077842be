// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests of coreschedctl's command line parser: util-linux
 * coresched(1)'s rules, defaults and messages, and our functions.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "harness.h"
#include "coreschedctl.h"

static struct ctl_args args;
static char msg[256];
static char *argv[32];

/* Parse the NULL-terminated words after the program name. */
static enum ctl_parse parse(const char *first, ...)
{
	int argc = 1;
	va_list ap;
	const char *w;

	argv[0] = "coresched";
	va_start(ap, first);
	for (w = first; w && argc < 31; w = va_arg(ap, const char *))
		argv[argc++] = (char *)w;
	va_end(ap);
	argv[argc] = NULL;
	return ctl_parse(argc, argv, &args, msg, sizeof(msg));
}

#define USAGE(want_msg, ...)                                              \
	do {                                                              \
		CHECK_INT(parse(__VA_ARGS__, NULL), CTL_PARSE_USAGE);     \
		CHECK(!strcmp(msg, want_msg), "message '%s', want '%s'", \
		      msg, want_msg);                                     \
	} while (0)

static bool test_scope_names(void)
{
	CHECK_INT(ctl_scope("pid"), 0);
	CHECK_INT(ctl_scope("tgid"), 1);
	CHECK_INT(ctl_scope("pgid"), 2);
	CHECK_INT(ctl_scope("PID"), -1);
	CHECK_INT(ctl_scope(""), -1);
	CHECK_INT(ctl_scope("thread"), -1);
	CHECK(!strcmp(ctl_scope_name(2), "pgid"), "name of 2");
	return true;
}

static bool test_pid_numbers(void)
{
	pid_t p = -7;

	CHECK_INT(ctl_pid("123", &p), 0);
	CHECK_INT(p, 123);
	CHECK_INT(ctl_pid("0", &p), 0);
	CHECK_INT(p, 0);
	CHECK_INT(ctl_pid("2147483647", &p), 0);
	CHECK_INT(ctl_pid("2147483648", &p), -ERANGE);
	CHECK_INT(ctl_pid("-1", &p), -ERANGE);
	CHECK_INT(ctl_pid("99999999999999999999999", &p), -ERANGE);
	CHECK_INT(ctl_pid("", &p), -EINVAL);
	CHECK_INT(ctl_pid("12x", &p), -EINVAL);
	CHECK_INT(ctl_pid("abc", &p), -EINVAL);
	return true;
}

static bool test_defaults(void)
{
	CHECK_INT(parse(NULL), CTL_PARSE_OK);
	CHECK_INT(args.cmd, CTL_GET);
	CHECK_INT(args.src, 0); /* main() makes it getpid() */
	CHECK_INT(args.type, 1); /* tgid */
	CHECK(!args.verbose && !args.json, "flags");
	CHECK_INT(parse("get", "-s", "42", NULL), CTL_PARSE_OK);
	CHECK_INT(args.cmd, CTL_GET);
	CHECK_INT(args.src, 42);
	CHECK_INT(parse("--source", "43", "get", NULL), CTL_PARSE_OK);
	CHECK_INT(args.src, 43);
	return true;
}

static bool test_new_and_copy(void)
{
	CHECK_INT(parse("-v", "new", "-d", "5", NULL), CTL_PARSE_OK);
	CHECK_INT(args.cmd, CTL_NEW);
	CHECK_INT(args.dest, 5);
	CHECK(args.verbose, "-v");
	CHECK_INT(args.exec_index, 0);

	CHECK_INT(parse("new", "-t", "pgid", "--", "sh", "-c", "x", NULL),
		  CTL_PARSE_OK);
	CHECK_INT(args.type, 2);
	/* getopt moves the options and "--" before "new" */
	CHECK(args.exec_index > 0 && !strcmp(argv[args.exec_index], "sh") &&
		      !strcmp(argv[args.exec_index + 1], "-c"),
	      "exec_index %d", args.exec_index);

	CHECK_INT(parse("copy", "-s", "9", "--dest-type", "pid", "-d", "10",
			NULL),
		  CTL_PARSE_OK);
	CHECK_INT(args.cmd, CTL_COPY);
	CHECK_INT(args.src, 9);
	CHECK_INT(args.dest, 10);
	CHECK_INT(args.type, 0);

	CHECK_INT(parse("copy", "-s", "9", "--", "true", NULL), CTL_PARSE_OK);
	CHECK(args.exec_index > 0 && !strcmp(argv[args.exec_index], "true"),
	      "copy -- CMD: exec_index %d", args.exec_index);
	return true;
}

static bool test_util_linux_usage_errors(void)
{
	USAGE("get does not accept the --dest option", "get", "-d", "1");
	USAGE("new does not accept the --source option", "new", "-s", "1",
	      "-d", "2");
	USAGE("bad usage of the get function", "get", "extra");
	USAGE("new requires either a -d/--dest or a command", "new");
	USAGE("new requires either a -d/--dest or a command", "new", "-d",
	      "3", "--", "true");
	USAGE("copy requires either a -d/--dest or a command", "copy");
	/* -d 0 counts as not given, as in util-linux. */
	USAGE("new requires either a -d/--dest or a command", "new", "-d",
	      "0");
	USAGE("'thread' is an invalid option. Must be one of pid/tgid/pgid",
	      "new", "-t", "thread", "-d", "1");
	USAGE("Unknown function 'bogus'", "bogus");
	return true;
}

static bool test_pid_errors(void)
{
	CHECK_INT(parse("get", "-s", "abc", NULL), CTL_PARSE_ERROR);
	CHECK(!strcmp(msg, "Failed to parse PID for -s/--source: 'abc'"),
	      "message '%s'", msg);
	CHECK_INT(parse("new", "-d", "-5", NULL), CTL_PARSE_ERROR);
	CHECK(!strncmp(msg, "Failed to parse PID for -d/--dest: '-5': ", 40),
	      "message '%s'", msg);
	return true;
}

static bool test_help_version_order(void)
{
	CHECK_INT(parse("-h", NULL), CTL_PARSE_HELP);
	CHECK_INT(parse("--version", NULL), CTL_PARSE_VERSION);
	CHECK_INT(parse("new", "--help", NULL), CTL_PARSE_HELP);
	/* Options are taken in order: a bad scope before -h is reported. */
	CHECK_INT(parse("-t", "x", "-h", NULL), CTL_PARSE_USAGE);
	return true;
}

static bool test_ours(void)
{
	CHECK_INT(parse("clear", "-t", "pid", "-d", "7", NULL), CTL_PARSE_OK);
	CHECK_INT(args.cmd, CTL_CLEAR);
	CHECK_INT(args.dest, 7);
	CHECK_INT(args.type, 0);
	USAGE("clear requires -d/--dest PID", "clear");
	USAGE("clear does not accept the --source option", "clear", "-s", "1",
	      "-d", "2");

	CHECK_INT(parse("list", "--json", NULL), CTL_PARSE_OK);
	CHECK_INT(args.cmd, CTL_LIST);
	CHECK(args.json, "--json");
	USAGE("list takes no arguments", "list", "x");
	USAGE("list does not accept -s, -d or -t", "list", "-d", "1");

	CHECK_INT(parse("cgroup", "tag", "a/b", NULL), CTL_PARSE_OK);
	CHECK_INT(args.cmd, CTL_CGROUP_TAG);
	CHECK(!strcmp(args.path[0], "a/b"), "path");
	CHECK_INT(parse("cgroup", "get", "-J", "x", NULL), CTL_PARSE_OK);
	CHECK_INT(args.cmd, CTL_CGROUP_GET);
	CHECK(args.json, "-J");
	CHECK_INT(parse("cgroup", "share", "a", "b", NULL), CTL_PARSE_OK);
	CHECK_INT(args.cmd, CTL_CGROUP_SHARE);
	CHECK(!strcmp(args.path[1], "b"), "dst");
	USAGE("cgroup share requires two PATHs: SRC and DST", "cgroup",
	      "share", "a");
	USAGE("cgroup untag requires one PATH (a cgroup v2 directory)",
	      "cgroup", "untag");
	USAGE("Unknown cgroup function 'rm'; use tag, untag, get or share",
	      "cgroup", "rm", "x");
	USAGE("cgroup requires a function: tag, untag, get or share",
	      "cgroup");
	USAGE("--json is only for get, list and cgroup get", "new", "--json",
	      "-d", "1");
	USAGE("--json is only for get, list and cgroup get", "cgroup", "tag",
	      "-J", "x");
	return true;
}

static bool test_cgroup_paths(void)
{
	char buf[64];

	CHECK(ctl_cgroup_path("app/web", buf, sizeof(buf)), "fits");
	CHECK(!strcmp(buf, "/sys/fs/cgroup/app/web"), "got %s", buf);
	CHECK(ctl_cgroup_path("/x/y", buf, sizeof(buf)) &&
		      !strcmp(buf, "/x/y"),
	      "absolute: %s", buf);
	CHECK(ctl_cgroup_path("./c", buf, sizeof(buf)) && !strcmp(buf, "./c"),
	      "relative: %s", buf);
	CHECK(ctl_cgroup_path("..", buf, sizeof(buf)) && !strcmp(buf, ".."),
	      "dotdot: %s", buf);
	CHECK(!ctl_cgroup_path("a-rather-long-name-that-does-not-fit-in-64-bytes-at-all",
			       buf, sizeof(buf)),
	      "too long accepted");
	return true;
}

int main(void)
{
	/* getopt's own messages for unknown options would be noise. */
	if (!freopen("/dev/null", "w", stderr))
		return 1;
	RUN(scope_names);
	RUN(pid_numbers);
	RUN(defaults);
	RUN(new_and_copy);
	RUN(util_linux_usage_errors);
	RUN(pid_errors);
	RUN(help_version_order);
	RUN(ours);
	RUN(cgroup_paths);
	return nr_failed ? 1 : 0;
}
