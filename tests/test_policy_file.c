// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests of the policy file parser (src/cs_policy_file.c): good
 * and bad lines, comments, blanks, the 'users' alias, unknown keywords,
 * relative and absolute paths, paths outside /sys/fs/cgroup, line numbers
 * in messages, limits.
 */
#include <stdlib.h>

#include "harness.h"
#include "cs_policy_file.h"

static struct cs_policy pol;
static char errs[8192];

/* Parse @text as file "p"; messages in errs. Returns the error count. */
static int parse(const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	FILE *out = fmemopen(errs, sizeof(errs), "w");
	int n;

	memset(errs, 0, sizeof(errs));
	if (!in || !out)
		return -1000;
	setvbuf(out, NULL, _IONBF, 0);
	n = cs_policy_parse(in, "p", &pol, out);
	fclose(in);
	fclose(out);
	return n;
}

/* Normalize one path; the result, or "ERR: message". */
static const char *norm(const char *arg)
{
	static char out[CS_POLICY_PATH_MAX + 1], msg[600];
	char err[512];

	if (cs_policy_path(arg, out, err, sizeof(err))) {
		snprintf(msg, sizeof(msg), "ERR: %s", err);
		return msg;
	}
	return out;
}

/* Messages quote at most 200 characters of a string. */
#define CHECK_STR(got, want)                                              \
	do {                                                              \
		const char *g_ = (got), *w_ = (want);                     \
		CHECK(!strcmp(g_, w_), "%s = '%.200s', expected '%.200s'", \
		      #got, g_, w_);                                      \
	} while (0)

#define CHECK_HAS(hay, needle)                                            \
	CHECK(strstr(hay, needle), "'%.100s' not in '%.200s'", needle, hay)

static bool test_good_file(void)
{
	CHECK_INT(parse("# scx_coresched policy\n"
			"cgroup /tenant-a.slice\n"
			"children /machine.slice   # one cookie per VM\n"
			"\n"
			"   \t  \n"
			"  # indented comment\n"
			"\tusers\n"
			"children kubepods.slice/kubepods-burstable.slice\n"),
		  0);
	CHECK_INT(pol.nr, 4);
	CHECK_INT(pol.rule[0].kind, CS_RULE_CGROUP);
	CHECK_STR(pol.rule[0].path, "/tenant-a.slice");
	CHECK_INT(pol.rule[0].line, 2);
	CHECK_INT(pol.rule[1].kind, CS_RULE_CHILDREN);
	CHECK_STR(pol.rule[1].path, "/machine.slice");
	CHECK_INT(pol.rule[1].line, 3);
	CHECK_INT(pol.rule[2].line, 7);
	CHECK_STR(pol.rule[3].path,
		  "/kubepods.slice/kubepods-burstable.slice");
	CHECK_INT(pol.rule[3].line, 8);
	CHECK_STR(errs, "");
	return true;
}

static bool test_empty_and_comments_only(void)
{
	CHECK_INT(parse(""), 0);
	CHECK_INT(pol.nr, 0);
	CHECK_INT(parse("# nothing\n\n#cgroup /x\n"), 0);
	CHECK_INT(pol.nr, 0);
	return true;
}

static bool test_users_alias(void)
{
	char buf[64];

	CHECK_INT(parse("users\n"), 0);
	CHECK_INT(pol.nr, 1);
	CHECK_INT(pol.rule[0].kind, CS_RULE_CHILDREN);
	CHECK_STR(pol.rule[0].path, "/user.slice");
	CHECK(pol.rule[0].users, "users flag");
	CHECK_STR(cs_policy_rule_str(&pol.rule[0], buf, sizeof(buf)), "users");
	/* The alias and its expansion are the same rule. */
	CHECK_INT(parse("users\nchildren /user.slice\n"), 1);
	CHECK_HAS(errs, "p:2: 'children /user.slice' repeats the rule of line 1");
	CHECK_INT(parse("users /x\n"), 1);
	CHECK_HAS(errs, "p:1: 'users' takes no PATH");
	return true;
}

static bool test_whitespace_and_crlf(void)
{
	CHECK_INT(parse("  cgroup\t\t/a  \r\n\tchildren   /b\t# c\r\n"), 0);
	CHECK_INT(pol.nr, 2);
	CHECK_STR(pol.rule[0].path, "/a");
	CHECK_STR(pol.rule[1].path, "/b");
	/* No newline at the end of the file. */
	CHECK_INT(parse("cgroup /a"), 0);
	CHECK_INT(pol.nr, 1);
	return true;
}

static bool test_hash_inside_a_name(void)
{
	/* '#' starts a comment only at the start or after a blank. */
	CHECK_INT(parse("cgroup /a#b #comment\n"), 0);
	CHECK_STR(pol.rule[0].path, "/a#b");
	return true;
}

static bool test_unknown_keyword(void)
{
	CHECK_INT(parse("cgroup /a\ncgrup /b\nCgroup /c\n"), 2);
	CHECK_HAS(errs, "p:2: unknown rule 'cgrup'; use 'cgroup PATH', 'children PATH' or 'users'");
	CHECK_HAS(errs, "p:3: unknown rule 'Cgroup'");
	CHECK_INT(pol.nr, 1);
	return true;
}

static bool test_missing_and_extra_words(void)
{
	CHECK_INT(parse("cgroup\nchildren\ncgroup /a /b\n"), 3);
	CHECK_HAS(errs, "p:1: 'cgroup' needs a PATH");
	CHECK_HAS(errs, "p:2: 'children' needs a PATH");
	CHECK_HAS(errs, "p:3: 'cgroup' takes one PATH");
	return true;
}

static bool test_relative_and_absolute_paths(void)
{
	CHECK_STR(norm("machine.slice"), "/machine.slice");
	CHECK_STR(norm("/machine.slice"), "/machine.slice");
	CHECK_STR(norm("/sys/fs/cgroup/machine.slice"), "/machine.slice");
	CHECK_STR(norm("/sys/fs/cgroup/machine.slice/"), "/machine.slice");
	CHECK_STR(norm("//a///b//"), "/a/b");
	CHECK_STR(norm("a/b"), "/a/b");
	CHECK_STR(norm("/"), "/");
	CHECK_STR(norm("/sys/fs/cgroup"), "/");
	CHECK_STR(norm("/sys/fs/cgroup/"), "/");
	/* "sys" relative to the cgroup root is a cgroup like any other. */
	CHECK_STR(norm("sys/x"), "/sys/x");
	CHECK_STR(norm("a..b/.c"), "/a..b/.c");
	return true;
}

static bool test_paths_outside_refused(void)
{
	CHECK_HAS(norm("/sys/fs/bpf/x"), "ERR: '/sys/fs/bpf/x' is outside /sys/fs/cgroup");
	CHECK_HAS(norm("/sys/fs/cgroupfoo"), "is outside /sys/fs/cgroup");
	CHECK_HAS(norm("/sys"), "is outside /sys/fs/cgroup");
	CHECK_HAS(norm("/sys/fs/cgroup/../bpf"), "has a '..' component");
	CHECK_HAS(norm("../etc"), "has a '..' component");
	CHECK_HAS(norm("/a/../../etc"), "has a '..' component");
	CHECK_HAS(norm("./a"), "has a '.' component");
	CHECK_HAS(norm("/a/."), "has a '.' component");
	CHECK_INT(parse("children /t_vms\ncgroup /sys/fs/cgroup/../../etc\n"), 1);
	CHECK_HAS(errs, "p:2: '/sys/fs/cgroup/../../etc' has a '..' component");
	return true;
}

static bool test_line_numbers_count_every_line(void)
{
	CHECK_INT(parse("# 1\n\ncgroup /a\n\n# 5\nbogus\n"), 1);
	CHECK(!strncmp(errs, "p:6: ", 5), "errs '%.200s'", errs);
	return true;
}

static bool test_duplicates(void)
{
	CHECK_INT(parse("cgroup /a\nchildren /a\ncgroup /sys/fs/cgroup/a/\n"), 1);
	CHECK_HAS(errs, "p:3: 'cgroup /a' repeats the rule of line 1");
	CHECK_INT(pol.nr, 2); /* cgroup and children of one path: both */
	return true;
}

static bool test_path_too_long(void)
{
	char line[CS_POLICY_PATH_MAX + 64], path[CS_POLICY_PATH_MAX + 2];

	memset(path, 'x', sizeof(path));
	path[0] = '/';
	path[CS_POLICY_PATH_MAX] = '\0'; /* exactly the limit */
	snprintf(line, sizeof(line), "cgroup %s\n", path);
	CHECK_INT(parse(line), 0);
	CHECK_INT(strlen(pol.rule[0].path), CS_POLICY_PATH_MAX);
	path[CS_POLICY_PATH_MAX] = 'x';
	path[CS_POLICY_PATH_MAX + 1] = '\0'; /* one more */
	snprintf(line, sizeof(line), "cgroup %s\n", path);
	CHECK_INT(parse(line), 1);
	CHECK_HAS(errs, "is too long: at most 255 characters");
	return true;
}

static bool test_line_too_long(void)
{
	static char text[3 * CS_POLICY_LINE_MAX];

	memset(text, ' ', 2 * CS_POLICY_LINE_MAX);
	memcpy(text, "cgroup /a", 9);
	strcpy(text + 2 * CS_POLICY_LINE_MAX, "\nbogus\ncgroup /b\n");
	CHECK_INT(parse(text), 2);
	CHECK_HAS(errs, "p:1: line is longer than 1024 characters");
	CHECK_HAS(errs, "p:2: unknown rule 'bogus'"); /* still counted right */
	CHECK_INT(pol.nr, 1);
	CHECK_STR(pol.rule[0].path, "/b");
	return true;
}

static bool test_too_many_rules(void)
{
	static char text[(CS_POLICY_MAX_RULES + 1) * 16];
	char *p = text;
	int i;

	for (i = 0; i <= CS_POLICY_MAX_RULES; i++)
		p += sprintf(p, "cgroup /c%d\n", i);
	CHECK_INT(parse(text), 1);
	CHECK_INT(pol.nr, CS_POLICY_MAX_RULES);
	CHECK_HAS(errs, "p:257: more than 256 rules");
	return true;
}

static bool test_error_count_capped(void)
{
	static char text[64 * 8];
	char *p = text;
	int i;

	for (i = 0; i < 30; i++)
		p += sprintf(p, "bogus\n");
	CHECK_INT(parse(text), 30);
	CHECK_HAS(errs, "p:20: unknown rule");
	CHECK(!strstr(errs, "p:21:"), "more than CS_POLICY_MAX_ERRORS shown");
	CHECK_HAS(errs, "p: 10 more errors not shown");
	return true;
}

static bool test_read_missing_file(void)
{
	CHECK_INT(cs_policy_read("/nonexistent/policy", &pol, stderr), -ENOENT);
	return true;
}

static bool test_fs_path(void)
{
	char buf[64];

	cs_policy_fs_path("/", buf, sizeof(buf));
	CHECK_STR(buf, "/sys/fs/cgroup");
	cs_policy_fs_path("/a/b", buf, sizeof(buf));
	CHECK_STR(buf, "/sys/fs/cgroup/a/b");
	return true;
}

int main(void)
{
	RUN(good_file);
	RUN(empty_and_comments_only);
	RUN(users_alias);
	RUN(whitespace_and_crlf);
	RUN(hash_inside_a_name);
	RUN(unknown_keyword);
	RUN(missing_and_extra_words);
	RUN(relative_and_absolute_paths);
	RUN(paths_outside_refused);
	RUN(line_numbers_count_every_line);
	RUN(duplicates);
	RUN(path_too_long);
	RUN(line_too_long);
	RUN(too_many_rules);
	RUN(error_count_capped);
	RUN(read_missing_file);
	RUN(fs_path);
	return nr_failed ? 1 : 0;
}
