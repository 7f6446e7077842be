// SPDX-License-Identifier: GPL-2.0-only
/*
 * coreschedctl: tag cgroups and commands with core scheduling cookies for
 * scx_coresched. A thin command line over libcoresched; see usage().
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_common.h"
#include "libcoresched.h"

#define PROG "coreschedctl"

/* Exit codes; for 'new' also CMD's own status. */
enum {
	EXIT_USAGE = 2,
	EXIT_CANNOT_RUN = 126,
	EXIT_NOT_FOUND = 127,
};

static const char usage_text[] =
	"Usage: coreschedctl cgroup tag PATH\n"
	"       coreschedctl cgroup untag PATH\n"
	"       coreschedctl new [--] CMD [ARGS...]\n"
	"       coreschedctl get [PID]\n"
	"       coreschedctl -h | --help\n"
	"\n"
	"Give cgroups and commands core scheduling cookies for scx_coresched, which\n"
	"never runs tasks with different cookies at the same time on the SMT siblings\n"
	"of one core. scx_coresched must be running; changing tags needs root.\n"
	"\n"
	"Commands:\n"
	"  cgroup tag PATH     give cgroup PATH a cookie of its own, shared by all tasks\n"
	"                      in it and in its descendants; print the cookie\n"
	"  cgroup untag PATH   remove the cookie of cgroup PATH\n"
	"  new [--] CMD [ARGS...]\n"
	"                      run CMD with a fresh cookie, shared by CMD and the\n"
	"                      children and threads it creates\n"
	"  get [PID]           print the cookie of process or thread PID (default:\n"
	"                      coreschedctl itself, which has its parent's cookie)\n"
	"\n"
	"PATH is a cgroup v2 directory: an absolute path, a path relative to the\n"
	"current directory if it is '.' or '..' or starts with './' or '../', and\n"
	"otherwise a path relative to /sys/fs/cgroup ('app/web' is\n"
	"/sys/fs/cgroup/app/web).\n"
	"\n"
	"A task's cookie is its own (from 'new', inherited on fork) if it has one,\n"
	"else the cookie of its nearest tagged cgroup, else 0 (untagged). Cookies\n"
	"are printed as 0x and 16 hex digits; a cgroup's cookie is 0x8000000000000000\n"
	"| its cgroup id (the inode number of its directory).\n"
	"\n"
	"Options:\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 on success, 1 on error, 2 on a usage error. 'new' exits with\n"
	"CMD's status, or 126 if CMD cannot be run and 127 if it is not found.\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* An error message on stderr: "coreschedctl: MESSAGE". */
__attribute__((format(printf, 1, 2))) static void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/* Usage on stderr, then the problem, last so that it is seen. */
__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt,
							     ...)
{
	va_list ap;

	usage(stderr);
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

/*
 * Parse the options of a command, which has only -h/--help. Returns the
 * index of the first operand; with @stop_at_operand the operands start at
 * the first non-option (the CMD of 'new' keeps its own options). -1 means
 * exit with *@rc.
 */
static int parse_opts(int argc, char **argv, bool stop_at_operand, int *rc)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0; /* full reset: every command parses its own argv */
	opterr = 0;
	while ((c = getopt_long(argc, argv, stop_at_operand ? "+h" : "h",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			*rc = 0;
			return -1;
		default:
			if (optopt)
				*rc = usage_error("unknown option '-%c'",
						  optopt);
			else
				*rc = usage_error("unknown option '%s'",
						  argv[optind - 1]);
			return -1;
		}
	}
	return optind;
}

/* Open the library; print its message and return false on failure. */
static bool open_lib(struct cs_lib *lib, char *err, size_t len)
{
	if (!cs_lib_open(lib, err, len))
		return true;
	msg("%s", err);
	return false;
}

/*
 * Map a PATH operand to a file system path: absolute and explicitly
 * relative paths are kept, others are taken relative to the cgroup root.
 */
static bool cgroup_path(const char *arg, char *buf, size_t len)
{
	bool keep = arg[0] == '/' || !strcmp(arg, ".") || !strcmp(arg, "..") ||
		    !strncmp(arg, "./", 2) || !strncmp(arg, "../", 3);
	int n;

	if (keep)
		n = snprintf(buf, len, "%s", arg);
	else
		n = snprintf(buf, len, "%s/%s", CS_CGROUP_ROOT, arg);
	return n >= 0 && (size_t)n < len;
}

static int cmd_cgroup(int argc, char **argv)
{
	char path[PATH_MAX], err[512];
	const char *sub, *arg;
	struct cs_lib lib;
	bool tag;
	__u64 cookie;
	int i, rc;

	i = parse_opts(argc, argv, false, &rc);
	if (i < 0)
		return rc;
	if (i >= argc)
		return usage_error("%s: missing 'tag' or 'untag'", "cgroup");
	sub = argv[i];
	if (strcmp(sub, "tag") && strcmp(sub, "untag"))
		return usage_error(
			"unknown cgroup command '%s' (use 'tag' or 'untag')",
			sub);
	tag = !strcmp(sub, "tag");
	if (argc - i != 2)
		return usage_error(argc - i < 2 ? "cgroup %s: missing PATH" :
						  "cgroup %s: takes one PATH",
				   sub);
	arg = argv[i + 1];
	if (!*arg) {
		msg("cgroup %s: empty PATH; give a cgroup v2 directory such as %s/NAME",
		    sub, CS_CGROUP_ROOT);
		return EXIT_FAILURE;
	}
	if (!cgroup_path(arg, path, sizeof(path))) {
		msg("cgroup %s %s: path too long", sub, arg);
		return EXIT_FAILURE;
	}

	if (!open_lib(&lib, err, sizeof(err)))
		return EXIT_FAILURE;
	rc = tag ? cs_tag_cgroup(&lib, path, &cookie) :
		   cs_untag_cgroup(&lib, path);
	cs_lib_close(&lib);
	if (rc) {
		if (strcmp(arg, path))
			msg("cgroup %s %s: %s", sub, arg, err);
		else
			msg("cgroup %s: %s", sub, err);
		return EXIT_FAILURE;
	}
	if (tag)
		printf("0x%016llx\n", (unsigned long long)cookie);
	return EXIT_SUCCESS;
}

/*
 * Find @cmd the way execvp() will: 0 if it names an executable file, else
 * the -errno that execvp() would most likely fail with.
 */
static int find_cmd(const char *cmd)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[PATH_MAX];
	int err = -ENOENT;
	struct stat st;
	size_t dlen;

	if (!*cmd)
		return -ENOENT;
	if (strchr(cmd, '/')) {
		if (stat(cmd, &st))
			return -errno;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		return access(cmd, X_OK) ? -errno : 0;
	}
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		dlen = (size_t)(end - p);
		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)dlen, p,
			     dlen ? "/" : "", cmd) < (int)sizeof(buf) &&
		    !stat(buf, &st) && !S_ISDIR(st.st_mode)) {
			if (!access(buf, X_OK))
				return 0;
			err = -EACCES; /* like execvp(): remember, go on */
		}
		if (!*end)
			return err;
	}
}

/* Report that 'new' cannot run @cmd (positive errno @err); the exit code. */
static int cmd_error(const char *cmd, int err)
{
	if (err == ENOENT && !strchr(cmd, '/'))
		msg("new: '%s': command not found in PATH; check its name or give its full path",
		    cmd);
	else if (err == ENOENT)
		msg("new: '%s' not found (no such file); check the path", cmd);
	else if (err == EACCES)
		msg("new: cannot run '%s': permission denied; is it an executable file?",
		    cmd);
	else
		msg("new: cannot run '%s': %s", cmd, strerror(err));
	return err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}

static int cmd_new(int argc, char **argv)
{
	struct cs_lib lib;
	char err[512];
	__u64 cookie;
	int i, rc;

	i = parse_opts(argc, argv, true, &rc);
	if (i < 0)
		return rc;
	if (i >= argc)
		return usage_error(
			"%s: no command given (new -- CMD [ARGS...])", "new");

	if (!open_lib(&lib, err, sizeof(err)))
		return EXIT_FAILURE;
	/* Check CMD before tagging, so that the usual mistake changes nothing. */
	rc = find_cmd(argv[i]);
	if (rc) {
		cs_lib_close(&lib);
		return cmd_error(argv[i], -rc);
	}
	rc = cs_new_cookie_self(&lib, &cookie);
	cs_lib_close(&lib);
	if (rc) {
		msg("new: %s", err);
		return EXIT_FAILURE;
	}

	execvp(argv[i], &argv[i]);
	/* Our tag goes away with us: the scheduler deletes it at exit. */
	return cmd_error(argv[i], errno);
}

static int cmd_get(int argc, char **argv)
{
	char err[512], proc[64];
	struct cs_lib lib;
	struct stat st;
	__u64 cookie;
	pid_t pid;
	long val;
	char *end;
	int i, rc;

	i = parse_opts(argc, argv, false, &rc);
	if (i < 0)
		return rc;
	if (argc - i > 1)
		return usage_error("%s: takes at most one PID", "get");
	if (argc - i == 1) {
		errno = 0;
		val = strtol(argv[i], &end, 10);
		if (errno || end == argv[i] || *end || val <= 0 ||
		    val > INT_MAX)
			return usage_error(
				"get: '%s' is not a PID (a positive number)",
				argv[i]);
		pid = (pid_t)val;
		/* Name a missing PID before anything else can fail. */
		snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
		if (stat(proc, &st) && errno == ENOENT) {
			msg("get: no process or thread with PID %d; check the PID (ps -eLf lists threads)",
			    (int)pid);
			return EXIT_FAILURE;
		}
	} else {
		pid = getpid();
	}

	if (!open_lib(&lib, err, sizeof(err)))
		return EXIT_FAILURE;
	rc = cs_get_cookie(&lib, pid, &cookie);
	cs_lib_close(&lib);
	if (rc) {
		msg("get %d: %s", (int)pid, err);
		return EXIT_FAILURE;
	}
	printf("0x%016llx\n", (unsigned long long)cookie);
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "cgroup", cmd_cgroup },
		{ "new", cmd_new },
		{ "get", cmd_get },
	};
	unsigned int k;
	int i, rc;

	i = parse_opts(argc, argv, true, &rc);
	if (i < 0)
		return rc;
	if (i >= argc)
		return usage_error("%s", "no command given");
	for (k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
		if (!strcmp(argv[i], cmds[k].name)) {
			/* The command sees its name as argv[0]. */
			rc = cmds[k].fn(argc - i, argv + i);
			if (fflush(stdout) || ferror(stdout)) {
				msg("cannot write output: %s", strerror(errno));
				return EXIT_FAILURE;
			}
			return rc;
		}
	}
	return usage_error("unknown command '%s'", argv[i]);
}
