// SPDX-License-Identifier: GPL-2.0-only
/*
 * The policy file parser, shared by scx_coresched and coreschedctl; see
 * cs_policy_file.h. Pure: no file system look-ups besides reading the file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cs_common.h"
#include "cs_policy_file.h"

#define BLANKS " \t\r\f\v"

__attribute__((format(printf, 3, 4))) static int bad(char *err, size_t len,
						     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

int cs_policy_path(const char *arg, char *out, char *err, size_t len)
{
	static const char root[] = CS_CGROUP_ROOT;
	const char *p = arg, *end;
	size_t n = 0, c;

	if (!strncmp(p, root, sizeof(root) - 1) &&
	    (p[sizeof(root) - 1] == '/' || !p[sizeof(root) - 1]))
		p += sizeof(root) - 1;
	else if (!strncmp(p, "/sys/", 5) || !strcmp(p, "/sys"))
		return bad(err, len,
			   "'%s' is outside %s; give a cgroup path such as /machine.slice or %s/machine.slice",
			   arg, root, root);
	out[n++] = '/';
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchrnul(p, '/');
		c = end - p;
		if ((c == 1 && p[0] == '.') || (c == 2 && !strncmp(p, "..", 2)))
			return bad(err, len,
				   "'%s' has a '%.*s' component; write the cgroup path without . or .. (as /proc/PID/cgroup shows it), under %s",
				   arg, (int)c, p, root);
		if (n > 1)
			out[n++] = '/';
		if (n + c > CS_POLICY_PATH_MAX)
			return bad(err, len,
				   "cgroup path '%s' is too long: at most %d characters (from the cgroup root) are supported",
				   arg, CS_POLICY_PATH_MAX);
		memcpy(out + n, p, c);
		n += c;
		p = end;
	}
	out[n] = '\0';
	return 0;
}

int cs_policy_parse_line(const char *line, struct cs_policy_rule *r,
			 char *err, size_t len)
{
	char buf[CS_POLICY_LINE_MAX + 2], *word[3], *s, *save;
	int nw = 0;

	if (strlen(line) > CS_POLICY_LINE_MAX)
		return bad(err, len, "line is longer than %d characters",
			   CS_POLICY_LINE_MAX);
	strcpy(buf, line);
	/* A comment starts with '#' at the start or after a blank. */
	for (s = buf; *s; s++) {
		if (*s == '#' && (s == buf || strchr(BLANKS, s[-1]))) {
			*s = '\0';
			break;
		}
	}
	for (s = strtok_r(buf, BLANKS, &save); s;
	     s = strtok_r(NULL, BLANKS, &save)) {
		if (nw == 3)
			break;
		word[nw++] = s;
	}
	if (!nw)
		return 0;
	memset(r, 0, sizeof(*r));
	if (!strcmp(word[0], "users")) {
		if (nw > 1)
			return bad(err, len,
				   "'users' takes no PATH (it means: children /user.slice); write 'children %s' for another cgroup",
				   word[1]);
		r->kind = CS_RULE_CHILDREN;
		r->users = true;
		strcpy(r->path, "/user.slice");
		return 1;
	}
	if (!strcmp(word[0], "cgroup"))
		r->kind = CS_RULE_CGROUP;
	else if (!strcmp(word[0], "children"))
		r->kind = CS_RULE_CHILDREN;
	else
		return bad(err, len,
			   "unknown rule '%s'; use 'cgroup PATH', 'children PATH' or 'users'",
			   word[0]);
	if (nw != 2)
		return bad(err, len,
			   nw == 1 ? "'%s' needs a PATH, e.g. '%s /machine.slice'" :
				     "'%s' takes one PATH, e.g. '%s /machine.slice' (paths with blanks are not supported)",
			   word[0], word[0]);
	return cs_policy_path(word[1], r->path, err, len) ? -1 : 1;
}

int cs_policy_parse(FILE *f, const char *name, struct cs_policy *p,
		    FILE *errs)
{
	char line[CS_POLICY_LINE_MAX + 2], err[512], what[CS_POLICY_PATH_MAX + 16];
	struct cs_policy_rule r;
	int lineno = 0, nerr = 0, i, ret;
	bool skipping = false;

#define REPORT(fmt, ...)                                                    \
	do {                                                                \
		if (nerr++ < CS_POLICY_MAX_ERRORS)                          \
			fprintf(errs, "%s:%d: " fmt "\n", name, lineno,     \
				##__VA_ARGS__);                             \
	} while (0)

	p->nr = 0;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		bool whole = n && line[n - 1] == '\n';

		if (skipping) { /* the rest of an over-long line */
			skipping = !whole;
			continue;
		}
		lineno++;
		if (whole)
			line[--n] = '\0';
		else if (n > CS_POLICY_LINE_MAX) {
			skipping = true;
			REPORT("line is longer than %d characters",
			       CS_POLICY_LINE_MAX);
			continue;
		}
		ret = cs_policy_parse_line(line, &r, err, sizeof(err));
		if (ret < 0) {
			REPORT("%s", err);
			continue;
		}
		if (!ret)
			continue;
		r.line = lineno;
		for (i = 0; i < p->nr; i++)
			if (p->rule[i].kind == r.kind &&
			    !strcmp(p->rule[i].path, r.path))
				break;
		if (i < p->nr) {
			REPORT("'%s' repeats the rule of line %d; remove one",
			       cs_policy_rule_str(&r, what, sizeof(what)),
			       p->rule[i].line);
			continue;
		}
		if (p->nr == CS_POLICY_MAX_RULES) {
			REPORT("more than %d rules; give a parent cgroup a 'children' rule instead of many 'cgroup' rules",
			       CS_POLICY_MAX_RULES);
			continue;
		}
		p->rule[p->nr++] = r;
	}
	if (ferror(f)) {
		lineno++;
		REPORT("read error: %s", strerror(errno));
	}
	if (nerr > CS_POLICY_MAX_ERRORS)
		fprintf(errs, "%s: %d more errors not shown\n", name,
			nerr - CS_POLICY_MAX_ERRORS);
#undef REPORT
	return nerr;
}

int cs_policy_read(const char *file, struct cs_policy *p, FILE *errs)
{
	FILE *f = fopen(file, "re");
	int ret;

	if (!f)
		return -errno;
	ret = cs_policy_parse(f, file, p, errs);
	fclose(f);
	return ret;
}

const char *cs_policy_rule_str(const struct cs_policy_rule *r, char *buf,
			       size_t len)
{
	if (r->users)
		snprintf(buf, len, "users");
	else
		snprintf(buf, len, "%s %s",
			 r->kind == CS_RULE_CGROUP ? "cgroup" : "children",
			 r->path);
	return buf;
}

void cs_policy_fs_path(const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", CS_CGROUP_ROOT, strcmp(path, "/") ? path : "");
}
