// SPDX-License-Identifier: GPL-2.0-only
/*
 * coresched-audit render: reading a trace written by cs_trace.c; see
 * cs_trace.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cs_common.h"
#include "cs_trace.h"

/*
 * The reader: a small JSON parser. Values become a tree (struct jv); the
 * events of traceEvents are parsed and dropped one at a time, so a trace
 * of millions of events needs memory only for what is kept of them.
 */
enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type type;
	double num;
	char *str;
	struct jv *kid; /* array items or object values */
	char **key; /* object keys */
	int n;
};

struct parser {
	const char *p, *end;
	const char *why; /* first error */
};

static void jv_free(struct jv *v)
{
	int i;

	for (i = 0; i < v->n; i++) {
		jv_free(&v->kid[i]);
		if (v->key)
			free(v->key[i]);
	}
	free(v->kid);
	free(v->key);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && isspace((unsigned char)*ps->p))
		ps->p++;
}

static bool bad(struct parser *ps, const char *why)
{
	if (!ps->why)
		ps->why = why;
	return false;
}

static bool take(struct parser *ps, char c)
{
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == c) {
		ps->p++;
		return true;
	}
	return false;
}

static void put_utf8(char *out, size_t *n, unsigned int c)
{
	if (c < 0x80) {
		out[(*n)++] = c;
	} else if (c < 0x800) {
		out[(*n)++] = 0xc0 | (c >> 6);
		out[(*n)++] = 0x80 | (c & 0x3f);
	} else {
		out[(*n)++] = 0xe0 | (c >> 12);
		out[(*n)++] = 0x80 | ((c >> 6) & 0x3f);
		out[(*n)++] = 0x80 | (c & 0x3f);
	}
}

static bool parse_str(struct parser *ps, char **out)
{
	const char *q;
	size_t n = 0;
	char *s;

	if (!take(ps, '"'))
		return bad(ps, "a string was expected");
	for (q = ps->p; q < ps->end && *q != '"'; q++)
		if (*q == '\\')
			q++;
	if (q >= ps->end)
		return bad(ps, "a string is not terminated");
	s = malloc(q - ps->p + 1);
	if (!s)
		return bad(ps, "out of memory");
	while (ps->p < q) {
		char c = *ps->p++;
		unsigned int u;

		if (c != '\\') {
			s[n++] = c;
			continue;
		}
		c = *ps->p++;
		switch (c) {
		case 'n': s[n++] = '\n'; break;
		case 't': s[n++] = '\t'; break;
		case 'r': s[n++] = '\r'; break;
		case 'b': s[n++] = '\b'; break;
		case 'f': s[n++] = '\f'; break;
		case 'u':
			if (q - ps->p < 4 || sscanf(ps->p, "%4x", &u) != 1) {
				free(s);
				return bad(ps, "a \\u escape is malformed");
			}
			ps->p += 4;
			put_utf8(s, &n, u); /* 3 bytes at most, from 6 */
			break;
		default: s[n++] = c; break;
		}
	}
	s[n] = '\0';
	ps->p = q + 1;
	*out = s;
	return true;
}

static bool parse_value(struct parser *ps, struct jv *v, int depth);

/* Append a fresh item to @v (an array or object). */
static struct jv *grow(struct parser *ps, struct jv *v)
{
	struct jv *kid = realloc(v->kid, (v->n + 1) * sizeof(*kid));

	if (!kid) {
		bad(ps, "out of memory");
		return NULL;
	}
	v->kid = kid;
	memset(&kid[v->n], 0, sizeof(*kid));
	if (v->type == JV_OBJ) {
		char **key = realloc(v->key, (v->n + 1) * sizeof(*key));

		if (!key) {
			bad(ps, "out of memory");
			return NULL;
		}
		v->key = key;
		key[v->n] = NULL;
	}
	return &kid[v->n++];
}

static bool parse_items(struct parser *ps, struct jv *v, char close,
			int depth)
{
	if (take(ps, close))
		return true;
	do {
		struct jv *kid = grow(ps, v);

		if (!kid)
			return false;
		if (v->type == JV_OBJ &&
		    (!parse_str(ps, &v->key[v->n - 1]) || !take(ps, ':')))
			return bad(ps, "an object key is malformed");
		if (!parse_value(ps, kid, depth + 1))
			return false;
	} while (take(ps, ','));
	return take(ps, close) || bad(ps, "a ',' or closing bracket is missing");
}

static bool parse_value(struct parser *ps, struct jv *v, int depth)
{
	char *end;

	if (depth > CS_JSON_MAX_DEPTH)
		return bad(ps, "nested too deeply");
	skip_ws(ps);
	if (ps->p >= ps->end)
		return bad(ps, "the file ends too early");
	switch (*ps->p) {
	case '{':
		ps->p++;
		v->type = JV_OBJ;
		return parse_items(ps, v, '}', depth);
	case '[':
		ps->p++;
		v->type = JV_ARR;
		return parse_items(ps, v, ']', depth);
	case '"':
		v->type = JV_STR;
		return parse_str(ps, &v->str);
	}
	if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "null", 4)) {
		v->type = *ps->p == 't' ? JV_BOOL : JV_NULL;
		v->num = *ps->p == 't';
		ps->p += 4;
		return true;
	}
	if (!strncmp(ps->p, "false", 5)) {
		v->type = JV_BOOL;
		ps->p += 5;
		return true;
	}
	v->num = strtod(ps->p, &end);
	if (end == ps->p || end > ps->end)
		return bad(ps, "a value is malformed");
	v->type = JV_NUM;
	ps->p = end;
	return true;
}

static const struct jv *get(const struct jv *o, const char *key)
{
	int i;

	for (i = 0; o->type == JV_OBJ && i < o->n; i++)
		if (!strcmp(o->key[i], key))
			return &o->kid[i];
	return NULL;
}

static const char *get_str(const struct jv *o, const char *key)
{
	const struct jv *v = get(o, key);

	return v && v->type == JV_STR ? v->str : NULL;
}

static bool get_num(const struct jv *o, const char *key, double *out)
{
	const struct jv *v = get(o, key);

	if (!v || v->type != JV_NUM)
		return false;
	*out = v->num;
	return true;
}

static struct cs_trace_track *track_of(struct cs_trace_data *d, int pid,
				       int tid)
{
	struct cs_trace_track *t;
	int i;

	for (i = 0; i < d->nr_tracks; i++)
		if (d->track[i].pid == pid && d->track[i].tid == tid)
			return &d->track[i];
	t = realloc(d->track, (d->nr_tracks + 1) * sizeof(*t));
	if (!t)
		return NULL;
	d->track = t;
	t = &d->track[d->nr_tracks++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	return t;
}

static int name_index(struct cs_trace_data *d, const char *name)
{
	char **names;
	int i;

	for (i = 0; i < d->nr_names; i++)
		if (!strcmp(d->names[i], name))
			return i;
	names = realloc(d->names, (d->nr_names + 1) * sizeof(*names));
	if (!names)
		return -1;
	d->names = names;
	names[d->nr_names] = strdup(name);
	return names[d->nr_names] ? d->nr_names++ : -1;
}

static bool set_proc_name(struct cs_trace_data *d, int pid, const char *name)
{
	char **p;

	if (pid < 0 || pid > CS_MAX_CPUS)
		return true; /* not one of ours: ignored */
	if (pid >= d->nr_procs) {
		p = realloc(d->proc_name, (pid + 1) * sizeof(*p));
		if (!p)
			return false;
		memset(p + d->nr_procs, 0, (pid + 1 - d->nr_procs) * sizeof(*p));
		d->proc_name = p;
		d->nr_procs = pid + 1;
	}
	free(d->proc_name[pid]);
	d->proc_name[pid] = strdup(name);
	return d->proc_name[pid];
}

/* Keep what the renderer needs of one event; false: out of memory. */
static bool keep_event(struct cs_trace_data *d, const struct jv *e)
{
	const char *ph = get_str(e, "ph"), *name = get_str(e, "name");
	const struct jv *args = get(e, "args");
	struct cs_trace_track *t;
	struct cs_trace_slice *sl;
	double pid, tid = -1, ts, dur;

	if (!ph || !name || !get_num(e, "pid", &pid))
		return true;
	get_num(e, "tid", &tid);
	if (!strcmp(ph, "M")) {
		const char *n = args ? get_str(args, "name") : NULL;

		if (!n)
			return true;
		if (!strcmp(name, "process_name"))
			return set_proc_name(d, (int)pid, n);
		if (!strcmp(name, "thread_name")) {
			t = track_of(d, (int)pid, (int)tid);
			if (!t)
				return false;
			free(t->name);
			t->name = strdup(n);
			return t->name;
		}
		return true;
	}
	if (strcmp(ph, "X") || !get_num(e, "ts", &ts) ||
	    !get_num(e, "dur", &dur))
		return true;
	t = track_of(d, (int)pid, (int)tid);
	if (!t)
		return false;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;

		sl = realloc(t->s, cap * sizeof(*sl));
		if (!sl)
			return false;
		t->s = sl;
		t->cap = cap;
	}
	sl = &t->s[t->nr++];
	sl->ts = ts;
	sl->dur = dur;
	sl->overlap = !strcmp(name, CS_TRACE_OVERLAP);
	sl->forced_idle = !strcmp(name, CS_TRACE_FORCED_IDLE);
	sl->name = sl->overlap || sl->forced_idle ? -1 : name_index(d, name);
	if (ts + dur > d->t_end)
		d->t_end = ts + dur;
	return true;
}

/* The top-level object, with each of traceEvents handed to keep_event. */
static bool parse_trace(struct parser *ps, struct cs_trace_data *d)
{
	bool seen = false;

	if (!take(ps, '{'))
		return bad(ps, "it does not start with '{'");
	if (take(ps, '}'))
		return bad(ps, "it has no traceEvents");
	do {
		char *key = NULL;
		struct jv v = {};
		bool ok;

		if (!parse_str(ps, &key) || !take(ps, ':')) {
			free(key);
			return bad(ps, "an object key is malformed");
		}
		ok = strcmp(key, "traceEvents");
		free(key);
		if (ok) { /* another member: parsed and dropped */
			ok = parse_value(ps, &v, 1);
			jv_free(&v);
			if (!ok)
				return false;
			continue;
		}
		seen = true;
		if (!take(ps, '['))
			return bad(ps, "traceEvents is not an array");
		if (take(ps, ']'))
			continue;
		do {
			ok = parse_value(ps, &v, 2) && keep_event(d, &v);
			jv_free(&v);
			if (!ok)
				return bad(ps, "out of memory");
		} while (take(ps, ','));
		if (!take(ps, ']'))
			return bad(ps, "traceEvents is not terminated");
	} while (take(ps, ','));
	if (!take(ps, '}'))
		return bad(ps, "a ',' or '}' is missing");
	skip_ws(ps);
	if (ps->p != ps->end)
		return bad(ps, "there is more after the top-level object");
	return seen || bad(ps, "it has no traceEvents");
}

int cs_trace_read(const char *path, struct cs_trace_data *d, char *err,
		  size_t len)
{
	struct parser ps = {};
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t size = 0;
	long n;

	memset(d, 0, sizeof(*d));
	if (!f)
		return cs_fail(err, len, "cannot open %s: %s", path,
			       strerror(errno));
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(buf = malloc(n + 1)) ||
	    (size = fread(buf, 1, n, f)) != (size_t)n) {
		int e = errno;

		fclose(f);
		free(buf);
		return cs_fail(err, len, "cannot read %s: %s", path,
			       buf ? "short read" : strerror(e));
	}
	fclose(f);
	buf[size] = '\0';
	ps.p = buf;
	ps.end = buf + size;
	if (!parse_trace(&ps, d)) {
		cs_fail(err, len,
			"%s is not a trace written by coresched-audit --trace: %s (at byte %zu)",
			path, ps.why, (size_t)(ps.p - buf));
		free(buf);
		cs_trace_data_free(d);
		return -1;
	}
	free(buf);
	return 0;
}

void cs_trace_data_free(struct cs_trace_data *d)
{
	int i;

	for (i = 0; i < d->nr_tracks; i++) {
		free(d->track[i].name);
		free(d->track[i].s);
	}
	for (i = 0; i < d->nr_procs; i++)
		free(d->proc_name[i]);
	for (i = 0; i < d->nr_names; i++)
		free(d->names[i]);
	free(d->track);
	free(d->proc_name);
	free(d->names);
	memset(d, 0, sizeof(*d));
}
