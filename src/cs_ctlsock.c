// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control socket: cgroup tags for users without root.
 *
 * Cgroup tags live in a map pinned root-only under CS_PIN_DIR. While
 * scx_coresched runs, this thread serves CS_CTL_SOCK (a Unix stream
 * socket, mode 0666, in a root-owned 0755 directory), through which a user
 * may tag the cgroup subtree delegated to them, and nothing else.
 * libcoresched is the client: its cgroup calls use the socket when the
 * caller may not open the pinned maps.
 *
 * Protocol: one request line per connection, one reply line, then the
 * server closes. Words are separated by single spaces; PATH is absolute,
 * under /sys/fs/cgroup, percent-encoded (cs_ctl_path_encoded_char());
 * numbers in replies are hexadecimal, ERRNO is a positive decimal errno.
 *
 *   ping            -> ok 0
 *   tag PATH        -> ok COOKIE
 *   untag PATH      -> ok 0
 *   get PATH        -> ok COOKIE FROM_ID   (FROM_ID: the tagged cgroup, or 0)
 *   share SRC DST   -> ok COOKIE           (DST gets SRC's cookie)
 *   list            -> ok N ID:COOKIE ...  (every tagged cgroup)
 *   anything else   -> err ERRNO MESSAGE   (the request changed nothing)
 *
 * Trust decision. The caller is whom SO_PEERCRED names (its credentials
 * at connect()). Root (uid 0) may do everything. Everyone may ping, get
 * and list: a cgroup cookie is derived from the cgroup's id, which every
 * user sees in /sys/fs/cgroup and /proc/PID/cgroup. Any other uid may tag,
 * untag and share only cgroups delegated to it: the uid owns the cgroup's
 * directory AND its cgroup.procs file, the marks that systemd's
 * Delegate=yes (or root's chown) leaves; a cgroup the user creates inside
 * its delegated one is the user's too. For share both SRC and DST must
 * be delegated: otherwise a user could join another tenant's cookie and
 * share its cores. Example, with user@1000.service delegated to uid 1000:
 *
 *   uid 1000: tag /sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/vm
 *     -> ok 8000000000000a3c                  (vm was made by uid 1000)
 *   uid 1000: tag /sys/fs/cgroup/system.slice
 *     -> err 13 permission denied: cgroup /sys/fs/cgroup/system.slice is
 *        not delegated to you (owner uid 0, you are uid 1000); ...
 *   uid 1000: share /sys/fs/cgroup/system.slice/db.service .../vm
 *     -> err 13 ... (SRC is not delegated: no joining another cookie)
 *
 * Paths are resolved without trusting the caller: '..' is refused, the
 * path must lie under /sys/fs/cgroup, and it is opened from the cgroup2
 * root with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV)
 * as an O_PATH directory. Ownership is checked on that descriptor, and
 * libcoresched writes the tag through it (/proc/self/fd/N/.), so a rename
 * between the check and the write cannot redirect the tag.
 *
 * Limits, so that a local user can neither hang nor crash the loader: one
 * thread polls at most CS_CTL_MAX_CONNS connections, CS_CTL_MAX_PER_UID
 * of one uid; a request is one line of at most CS_CTL_MAX_LINE bytes; a
 * connection lives at most CS_CTL_TIMEOUT_MS; a non-root uid may make
 * CS_CTL_RATE changes per second (bursts of CS_CTL_RATE_BURST); non-root
 * tags stop at CS_CTL_USER_TAGS entries, keeping the rest of the map for
 * root. The scheduler never waits for this thread: a failure here is
 * logged and isolation goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/openat2.h>

#include "coresched.h"
#include "cs_common.h"
#include "cs_ctlsock.h"
#include "libcoresched.h"

#define CS_CTL_SOCK_NAME "ctl.sock"
#define CS_CTL_BACKLOG 16
#define CS_CTL_MAX_CONNS 16
#define CS_CTL_MAX_PER_UID 4
#define CS_CTL_RATE 20 /* changes per second per non-root uid */
#define CS_CTL_RATE_BURST 40
#define CS_CTL_RATE_UIDS 32 /* uids whose rate is tracked at once */
#define CS_CTL_USER_TAGS (CS_MAX_CGRP_TAGS * 3 / 4)
#define CS_CTL_MAX_WORDS 3
#define CS_CTL_MSG_LEN 1024
#define CS_CTL_RETRY_MS 100 /* pause after accept() ran out of descriptors */

#define CS_STR_(x) #x
#define CS_STR(x) CS_STR_(x)

struct conn {
	int fd; /* -1: free slot */
	struct ucred cred;
	__u64 deadline_ns;
	char in[CS_CTL_MAX_LINE + 1]; /* the request line, NUL-terminated */
	size_t in_len;
	char *out; /* the reply, once there is one */
	size_t out_len, out_pos;
};

struct bucket {
	uid_t uid;
	bool used;
	double tokens;
	__u64 at_ns;
};

/* One request being answered. */
struct req {
	struct ucred cred;
	char *word[CS_CTL_MAX_WORDS];
	int nr_words;
	struct cs_cgroups *h;
	char *ok; /* the text after "ok ", malloc()ed */
	int err; /* positive errno of a refusal */
	char msg[CS_CTL_MSG_LEN];
};

/* A cgroup named in a request, opened safely. */
struct cgroup_ref {
	int fd; /* O_PATH descriptor of its directory */
	struct stat st;
	char name[PATH_MAX]; /* as the caller named it, for messages */
	char via[48]; /* /proc/self/fd/N/.: libcoresched's path to it */
};

struct verb {
	const char *name;
	int nr_args;
	bool changes; /* rate-limited for non-root */
	int (*fn)(struct req *r);
};

static struct {
	bool running, atexit_done;
	int verbose;
	int listen_fd, stop_fd;
	ino_t sock_ino;
	pthread_t thread;
	struct conn conns[CS_CTL_MAX_CONNS];
	struct bucket rates[CS_CTL_RATE_UIDS];
} srv = { .listen_fd = -1, .stop_fd = -1 };

/*
 * Log without stdio: the loader forks its guard process while this thread
 * runs, and a stdio lock held here at that moment would stay held there.
 */
__attribute__((format(printf, 1, 2))) static void ctl_log(const char *fmt,
							  ...)
{
	char line[CS_CTL_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	dprintf(STDERR_FILENO, "scx_coresched: control socket: %s\n", line);
}

/* --- Answers ------------------------------------------------------------ */

__attribute__((format(printf, 3, 4))) static int refuse(struct req *r, int err,
							const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->err = err;
	return -1;
}

__attribute__((format(printf, 2, 3))) static int answer(struct req *r,
							const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&r->ok, fmt, ap);
	va_end(ap);
	if (n < 0) {
		r->ok = NULL;
		return refuse(r, ENOMEM, "out of memory");
	}
	return 0;
}

/* Copy @src to @dst, every @from replaced by @to. */
static void replace_all(char *dst, size_t len, const char *src,
			const char *from, const char *to)
{
	size_t flen = strlen(from), tlen = strlen(to), n = 0;
	const char *hit;

	while (n + 1 < len && *src) {
		hit = strstr(src, from);
		if (hit == src) {
			snprintf(dst + n, len - n, "%s", to);
			n = tlen < len - n ? n + tlen : len - 1;
			src += flen;
		} else {
			dst[n++] = *src++;
		}
	}
	dst[n] = '\0';
}

/*
 * Refuse with libcoresched's message for @err, naming the cgroups as the
 * caller did rather than by our descriptor paths.
 */
static int refuse_lib(struct req *r, int err, const struct cgroup_ref *a,
		      const struct cgroup_ref *b)
{
	char tmp[CS_CTL_MSG_LEN];

	snprintf(r->msg, sizeof(r->msg), "%s", cs_errmsg());
	if (a) {
		replace_all(tmp, sizeof(tmp), r->msg, a->via, a->name);
		snprintf(r->msg, sizeof(r->msg), "%s", tmp);
	}
	if (b) {
		replace_all(tmp, sizeof(tmp), r->msg, b->via, b->name);
		snprintf(r->msg, sizeof(r->msg), "%s", tmp);
	}
	r->err = err < 0 ? -err : err;
	return -1;
}

/* The reply line for @r, malloc()ed; NULL without memory. */
static char *reply_line(struct req *r)
{
	char *line;
	size_t i;
	int n;

	if (!r->err && r->ok)
		n = asprintf(&line, "ok %s\n", r->ok);
	else
		n = asprintf(&line, "err %d %s\n", r->err ? r->err : EIO,
			     r->msg);
	if (n < 0)
		return NULL;
	/* Names come from the caller: keep the reply one line. */
	for (i = 0; i + 1 < (size_t)n; i++)
		if ((unsigned char)line[i] < ' ')
			line[i] = '?';
	return line;
}

/* --- Cgroups named in requests ----------------------------------------- */

static int unhex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Undo the percent-encoding of a path; false if malformed or too long. */
static bool decode_path(const char *in, char *out, size_t len)
{
	size_t n = 0;
	int hi, lo;

	for (; *in; in++) {
		if (n + 1 >= len)
			return false;
		if (*in != '%') {
			out[n++] = *in;
			continue;
		}
		hi = unhex(in[1]);
		lo = hi < 0 ? -1 : unhex(in[2]);
		if (lo < 0 || (hi == 0 && lo == 0))
			return false;
		out[n++] = (char)(hi << 4 | lo);
		in += 2;
	}
	out[n] = '\0';
	return n > 0;
}

static bool has_dotdot(const char *path)
{
	const char *p = path;

	while ((p = strstr(p, ".."))) {
		if ((p == path || p[-1] == '/') && (p[2] == '/' || !p[2]))
			return true;
		p += 2;
	}
	return false;
}

/* @path below CS_CGROUP_ROOT, relative to it ("." for the root); or NULL. */
static const char *below_root(const char *path)
{
	size_t n = strlen(CS_CGROUP_ROOT);

	if (strncmp(path, CS_CGROUP_ROOT, n) || (path[n] && path[n] != '/'))
		return NULL;
	while (path[n] == '/')
		n++;
	return path[n] ? path + n : ".";
}

static int refuse_open(struct req *r, const char *name, int err)
{
	switch (err) {
	case ELOOP:
		return refuse(r, EACCES,
			      "refused: %s contains a symbolic link; give the cgroup's real path",
			      name);
	case EXDEV:
		return refuse(r, EACCES,
			      "refused: %s leaves the cgroup2 file system at %s; give a cgroup directory below it",
			      name, CS_CGROUP_ROOT);
	case ENOENT:
		return refuse(r, ENOENT,
			      "%s does not exist; give an existing cgroup v2 directory",
			      name);
	case ENOTDIR:
		return refuse(r, ENOTDIR,
			      "%s is not a directory; give a cgroup v2 directory such as %s/NAME",
			      name, CS_CGROUP_ROOT);
	default:
		return refuse(r, err, "cannot open cgroup %s: %s", name,
			      strerror(err));
	}
}

/* Open the cgroup2 root; -1 (refused) if it is not cgroup v2. */
static int open_cgroup_root(struct req *r)
{
	struct statfs sfs;
	int fd, err;

	fd = open(CS_CGROUP_ROOT, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		return refuse(r, err, "cannot open %s: %s", CS_CGROUP_ROOT,
			      strerror(err));
	}
	if (fstatfs(fd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		close(fd);
		return refuse(r, EMEDIUMTYPE,
			      "%s is not a cgroup v2 file system on this machine",
			      CS_CGROUP_ROOT);
	}
	return fd;
}

/* Resolve encoded path @arg to an open cgroup2 directory, safely. */
static int open_cgroup(struct req *r, const char *arg, struct cgroup_ref *cg)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	const char *rel;
	int root, err;

	cg->fd = -1;
	if (!decode_path(arg, cg->name, sizeof(cg->name)))
		return refuse(r, EINVAL,
			      "malformed or too long cgroup path in the request");
	if (cg->name[0] != '/')
		return refuse(r, EINVAL,
			      "cgroup path %s is not absolute; give the full path under %s",
			      cg->name, CS_CGROUP_ROOT);
	if (has_dotdot(cg->name))
		return refuse(r, EACCES,
			      "refused: cgroup path %s contains '..'; give the path without '..'",
			      cg->name);
	rel = below_root(cg->name);
	if (!rel)
		return refuse(r, EACCES,
			      "refused: %s is not under %s (symbolic links are not followed); give the cgroup's real path",
			      cg->name, CS_CGROUP_ROOT);
	root = open_cgroup_root(r);
	if (root < 0)
		return -1;
	cg->fd = (int)syscall(SYS_openat2, root, rel, &how, sizeof(how));
	err = errno;
	close(root);
	if (cg->fd < 0)
		return refuse_open(r, cg->name, err);
	if (fstat(cg->fd, &cg->st)) {
		err = errno;
		return refuse(r, err, "cannot inspect cgroup %s: %s", cg->name,
			      strerror(err));
	}
	snprintf(cg->via, sizeof(cg->via), "/proc/self/fd/%d/.", cg->fd);
	return 0;
}

static void close_cgroup(struct cgroup_ref *cg)
{
	if (cg->fd >= 0)
		close(cg->fd);
	cg->fd = -1;
}

/* May the caller change the tag of @cg? Root always; others if delegated. */
static int check_delegated(struct req *r, const struct cgroup_ref *cg)
{
	uid_t uid = r->cred.uid;
	struct stat procs;
	int err;

	if (uid == 0)
		return 0;
	if (cg->st.st_uid != uid)
		return refuse(r, EACCES,
			      "permission denied: cgroup %s is not delegated to you (owner uid %u, you are uid %u); run as root, or have root delegate it to you (chown the directory and its cgroup.procs to you, as systemd's Delegate=yes does); nothing was changed",
			      cg->name, (unsigned int)cg->st.st_uid,
			      (unsigned int)uid);
	if (fstatat(cg->fd, "cgroup.procs", &procs, AT_SYMLINK_NOFOLLOW)) {
		err = errno;
		return refuse(r, EACCES,
			      "permission denied: cannot check that cgroup %s is delegated to you (%s/cgroup.procs: %s); nothing was changed",
			      cg->name, cg->name, strerror(err));
	}
	if (procs.st_uid != uid)
		return refuse(r, EACCES,
			      "permission denied: cgroup %s is not delegated to you: you own the directory, but its cgroup.procs belongs to uid %u; run as root, or have root chown cgroup.procs to you too (as systemd's Delegate=yes does); nothing was changed",
			      cg->name, (unsigned int)procs.st_uid);
	return 0;
}

/* Take a token of the caller's change rate; refuse if there is none. */
static int check_rate(struct req *r)
{
	struct bucket *b = NULL, *spare = &srv.rates[0];
	__u64 now = cs_now_ns();
	int i;

	if (r->cred.uid == 0)
		return 0;
	for (i = 0; i < CS_CTL_RATE_UIDS && !b; i++) {
		if (srv.rates[i].used && srv.rates[i].uid == r->cred.uid)
			b = &srv.rates[i];
		else if (!srv.rates[i].used ||
			 (spare->used && srv.rates[i].at_ns < spare->at_ns))
			spare = &srv.rates[i];
	}
	if (!b) {
		b = spare;
		*b = (struct bucket){ .uid = r->cred.uid, .used = true,
				      .tokens = CS_CTL_RATE_BURST, .at_ns = now };
	}
	b->tokens += (double)(now - b->at_ns) / 1e9 * CS_CTL_RATE;
	if (b->tokens > CS_CTL_RATE_BURST)
		b->tokens = CS_CTL_RATE_BURST;
	b->at_ns = now;
	if (b->tokens < 1)
		return refuse(r, EAGAIN,
			      "too many changes: uid %u may make %d per second; retry in a moment",
			      (unsigned int)r->cred.uid, CS_CTL_RATE);
	b->tokens -= 1;
	return 0;
}

struct tag_count {
	__u64 cgid;
	unsigned int n;
	bool found;
};

static int count_tag(__u64 cgid, __u64 cookie, void *ctx)
{
	struct tag_count *c = ctx;

	(void)cookie;
	c->n++;
	c->found |= cgid == c->cgid;
	return 0;
}

/* Non-root users may not take the tags kept for root. */
static int check_room(struct req *r, const struct cgroup_ref *cg)
{
	struct tag_count c = { .cgid = cg->st.st_ino };
	int err;

	if (r->cred.uid == 0)
		return 0;
	err = cs_cgroup_foreach(r->h, count_tag, &c);
	if (err)
		return refuse_lib(r, err, NULL, NULL);
	if (!c.found && c.n >= CS_CTL_USER_TAGS)
		return refuse(r, ENOSPC,
			      "refused: %u of %d cgroup tags are in use, and the rest are kept for root; untag cgroups you no longer need, or ask root",
			      c.n, CS_MAX_CGRP_TAGS);
	return 0;
}

/* --- Requests ------------------------------------------------------------ */

static int do_ping(struct req *r)
{
	return answer(r, "0");
}

static int do_tag(struct req *r)
{
	struct cgroup_ref cg;
	__u64 cookie;
	int err;

	err = open_cgroup(r, r->word[1], &cg);
	if (!err)
		err = check_delegated(r, &cg);
	if (!err)
		err = check_room(r, &cg);
	if (!err) {
		err = cs_cgroup_tag(r->h, cg.via, &cookie);
		err = err ? refuse_lib(r, err, &cg, NULL) :
			    answer(r, "%llx", (unsigned long long)cookie);
	}
	close_cgroup(&cg);
	return err;
}

static int do_untag(struct req *r)
{
	struct cgroup_ref cg;
	int err;

	err = open_cgroup(r, r->word[1], &cg);
	if (!err)
		err = check_delegated(r, &cg);
	if (!err) {
		err = cs_cgroup_untag(r->h, cg.via);
		err = err ? refuse_lib(r, err, &cg, NULL) : answer(r, "0");
	}
	close_cgroup(&cg);
	return err;
}

static int do_get(struct req *r)
{
	struct cgroup_ref cg;
	__u64 cookie, from;
	int err;

	err = open_cgroup(r, r->word[1], &cg);
	if (!err) {
		err = cs_cgroup_get(r->h, cg.via, &cookie, &from);
		err = err ? refuse_lib(r, err, &cg, NULL) :
			    answer(r, "%llx %llx", (unsigned long long)cookie,
				   (unsigned long long)from);
	}
	close_cgroup(&cg);
	return err;
}

static int do_share(struct req *r)
{
	struct cgroup_ref src, dst = { .fd = -1 };
	__u64 cookie;
	int err;

	err = open_cgroup(r, r->word[1], &src);
	if (!err)
		err = open_cgroup(r, r->word[2], &dst);
	if (!err)
		err = check_delegated(r, &src);
	if (!err)
		err = check_delegated(r, &dst);
	if (!err)
		err = check_room(r, &dst);
	if (!err) {
		err = cs_cgroup_share(r->h, src.via, dst.via, &cookie);
		err = err ? refuse_lib(r, err, &src, &dst) :
			    answer(r, "%llx", (unsigned long long)cookie);
	}
	close_cgroup(&src);
	close_cgroup(&dst);
	return err;
}

struct list_buf {
	char *text;
	size_t len, cap;
	unsigned int n;
};

static int list_one(__u64 cgid, __u64 cookie, void *ctx)
{
	struct list_buf *l = ctx;
	char item[40];
	int n;

	n = snprintf(item, sizeof(item), " %llx:%llx",
		     (unsigned long long)cgid, (unsigned long long)cookie);
	if (l->len + (size_t)n + 1 > l->cap)
		return -E2BIG; /* more entries than the map holds */
	memcpy(l->text + l->len, item, (size_t)n + 1);
	l->len += (size_t)n;
	l->n++;
	return 0;
}

static int do_list(struct req *r)
{
	struct list_buf l = { .cap = CS_CTL_MAX_REPLY - 32 };
	int err;

	l.text = calloc(1, l.cap);
	if (!l.text)
		return refuse(r, ENOMEM, "out of memory");
	err = cs_cgroup_foreach(r->h, list_one, &l);
	if (err == -E2BIG)
		err = refuse(r, E2BIG, "too many tagged cgroups to list");
	else if (err)
		err = refuse_lib(r, err, NULL, NULL);
	else
		err = answer(r, "%x%s", l.n, l.text);
	free(l.text);
	return err;
}

static const struct verb verbs[] = {
	{ "ping", 0, false, do_ping },	   { "tag", 1, true, do_tag },
	{ "untag", 1, true, do_untag },	   { "get", 1, false, do_get },
	{ "share", 2, true, do_share },	   { "list", 0, false, do_list },
};

/* Split @line into words; false if it has too many. */
static bool split_words(struct req *r, char *line)
{
	char *save = NULL, *w;

	for (w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (r->nr_words == CS_CTL_MAX_WORDS)
			return false;
		r->word[r->nr_words++] = w;
	}
	return r->nr_words > 0;
}

static bool printable(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] < ' ' || s[i] > '~')
			return false;
	return true;
}

static const struct verb *find_verb(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

/* Answer request @line (without its newline, @len bytes) into @r. */
static void handle_request(struct req *r, char *line, size_t len)
{
	const struct verb *v = NULL;
	int err;

	if (!printable(line, len)) {
		refuse(r, EINVAL,
		       "the request is not one line of printable ASCII (paths are percent-encoded)");
		return;
	}
	if (split_words(r, line))
		v = find_verb(r->word[0]);
	if (!v || r->nr_words != v->nr_args + 1) {
		refuse(r, EINVAL,
		       "unknown request; send one of: ping, tag PATH, untag PATH, get PATH, share SRC DST, list");
		return;
	}
	if (v->changes && check_rate(r))
		return;
	if (v->fn != do_ping) {
		err = cs_cgroups_open(&r->h);
		if (err) {
			refuse_lib(r, err, NULL, NULL);
			return;
		}
	}
	v->fn(r);
	cs_cgroups_close(r->h);
	r->h = NULL;
}

/* --- Connections -------------------------------------------------------- */

static void conn_close(struct conn *c)
{
	close(c->fd);
	free(c->out);
	c->fd = -1;
	c->out = NULL;
	c->in_len = c->out_len = c->out_pos = 0;
}

/* Give @c the reply to its request (in c->in, @len bytes). */
static void conn_answer(struct conn *c, size_t len)
{
	struct req r = { .cred = c->cred };

	c->in[len] = '\0';
	handle_request(&r, c->in, len);
	c->out = reply_line(&r);
	free(r.ok);
	if (!c->out) {
		conn_close(c);
		return;
	}
	c->out_len = strlen(c->out);
	if (srv.verbose && r.err)
		ctl_log("uid %u pid %d refused: %s", (unsigned int)c->cred.uid,
			(int)c->cred.pid, r.msg);
}

/* Answer @c with an error of our own (no request was read). */
static void conn_refuse(struct conn *c, int err, const char *msg)
{
	if (asprintf(&c->out, "err %d %s\n", err, msg) < 0) {
		c->out = NULL;
		conn_close(c);
		return;
	}
	c->out_len = strlen(c->out);
}

static void conn_read(struct conn *c)
{
	ssize_t n;
	char *nl;

	n = recv(c->fd, c->in + c->in_len, CS_CTL_MAX_LINE - c->in_len,
		 MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c); /* EOF before a whole line: nothing to answer */
		return;
	}
	c->in_len += (size_t)n;
	nl = memchr(c->in, '\n', c->in_len);
	if (nl)
		conn_answer(c, (size_t)(nl - c->in));
	else if (c->in_len == CS_CTL_MAX_LINE)
		conn_refuse(c, E2BIG,
			    "request longer than the limit of " CS_STR(CS_CTL_MAX_LINE) " bytes; nothing was changed");
}

static void conn_write(struct conn *c)
{
	ssize_t n;

	n = send(c->fd, c->out + c->out_pos, c->out_len - c->out_pos,
		 MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		conn_close(c);
		return;
	}
	c->out_pos += (size_t)n;
	if (c->out_pos == c->out_len)
		conn_close(c);
}

static void conn_io(struct conn *c, short revents)
{
	if (c->out && (revents & (POLLOUT | POLLERR | POLLHUP)))
		conn_write(c);
	else if (!c->out && (revents & (POLLIN | POLLERR | POLLHUP)))
		conn_read(c);
}

static int conns_of(uid_t uid)
{
	int i, n = 0;

	for (i = 0; i < CS_CTL_MAX_CONNS; i++)
		n += srv.conns[i].fd >= 0 && srv.conns[i].cred.uid == uid;
	return n;
}

static struct conn *free_conn(void)
{
	int i;

	for (i = 0; i < CS_CTL_MAX_CONNS; i++)
		if (srv.conns[i].fd < 0)
			return &srv.conns[i];
	return NULL;
}

static void accept_one(void)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct conn *c;
	int fd;

	fd = accept4(srv.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOMEM) {
			ctl_log("accept: %s", strerror(errno));
			usleep(CS_CTL_RETRY_MS * 1000);
		}
		return;
	}
	c = free_conn();
	if (!c || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		close(fd);
		return;
	}
	c->fd = fd;
	c->cred = cred;
	c->deadline_ns = cs_now_ns() + CS_CTL_TIMEOUT_MS * 1000000ULL;
	if (conns_of(cred.uid) > CS_CTL_MAX_PER_UID)
		conn_refuse(c, EAGAIN,
			    "too many connections from your uid; retry in a moment");
}

/* Close connections past their deadline; the poll timeout to the next. */
static int expire_conns(void)
{
	__u64 now = cs_now_ns(), next = 0;
	int i;

	for (i = 0; i < CS_CTL_MAX_CONNS; i++) {
		struct conn *c = &srv.conns[i];

		if (c->fd < 0)
			continue;
		if (c->deadline_ns <= now) {
			conn_close(c);
			continue;
		}
		if (!next || c->deadline_ns < next)
			next = c->deadline_ns;
	}
	return next ? (int)((next - now) / 1000000) + 1 : -1;
}

static void *serve(void *arg)
{
	struct pollfd pfd[2 + CS_CTL_MAX_CONNS];
	struct conn *slot[2 + CS_CTL_MAX_CONNS];
	int i, n, timeout;

	(void)arg;
	for (;;) {
		timeout = expire_conns();
		n = 0;
		pfd[n++] = (struct pollfd){ .fd = srv.stop_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = srv.listen_fd,
					    .events = free_conn() ? POLLIN : 0 };
		for (i = 0; i < CS_CTL_MAX_CONNS; i++) {
			if (srv.conns[i].fd < 0)
				continue;
			slot[n] = &srv.conns[i];
			pfd[n++] = (struct pollfd){
				.fd = srv.conns[i].fd,
				.events = srv.conns[i].out ? POLLOUT : POLLIN,
			};
		}
		if (poll(pfd, (nfds_t)n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			ctl_log("poll: %s; no longer serving %s",
				strerror(errno), CS_CTL_SOCK);
			break;
		}
		if (pfd[0].revents)
			break;
		for (i = 2; i < n; i++)
			if (pfd[i].revents)
				conn_io(slot[i], pfd[i].revents);
		if (pfd[1].revents & POLLIN)
			accept_one();
	}
	for (i = 0; i < CS_CTL_MAX_CONNS; i++)
		if (srv.conns[i].fd >= 0)
			conn_close(&srv.conns[i]);
	return NULL;
}

/* --- The socket ------------------------------------------------------------ */

int cs_open_run_dir(char *err, size_t len)
{
	struct stat st;
	int fd;

	if (mkdir(CS_CTL_DIR, 0755) && errno != EEXIST)
		return cs_fail(err, len, "cannot create %s: %s", CS_CTL_DIR,
			       strerror(errno));
	fd = open(CS_CTL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return cs_fail(err, len, "%s is not a directory (%s)",
			       CS_CTL_DIR, strerror(errno));
	}
	if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return cs_fail(err, len,
			       "%s is owned by uid %u with mode %04o; it must be root's and writable only by root: check who made it, then remove it",
			       CS_CTL_DIR, (unsigned int)st.st_uid,
			       st.st_mode & 07777);
	}
	/* Users must reach the socket (the other files in it are 0600). */
	if ((st.st_mode & 07777) != 0755 && fchmod(fd, 0755)) {
		close(fd);
		return cs_fail(err, len, "cannot chmod %s: %s", CS_CTL_DIR,
			       strerror(errno));
	}
	return fd;
}

/* Remove a socket left by an earlier run; refuse anything else. */
static int clear_old_socket(int dfd, char *err, size_t len)
{
	struct stat st;

	if (fstatat(dfd, CS_CTL_SOCK_NAME, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 :
					 cs_fail(err, len, "cannot inspect %s: %s",
						 CS_CTL_SOCK, strerror(errno));
	if (!S_ISSOCK(st.st_mode) || st.st_uid != 0)
		return cs_fail(err, len,
			       "%s exists and is not a socket of root's (uid %u, mode %06o): refusing to replace it; check who made it, then remove it",
			       CS_CTL_SOCK, (unsigned int)st.st_uid,
			       (unsigned int)st.st_mode);
	if (unlinkat(dfd, CS_CTL_SOCK_NAME, 0))
		return cs_fail(err, len, "cannot remove the old %s: %s",
			       CS_CTL_SOCK, strerror(errno));
	return 0;
}

/* Bind and listen on CS_CTL_SOCK in directory @dfd. */
static int listen_socket(int dfd, char *err, size_t len)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", CS_CTL_SOCK);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return cs_fail(err, len, "socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    fchmodat(dfd, CS_CTL_SOCK_NAME, 0666, 0) ||
	    fstatat(dfd, CS_CTL_SOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) ||
	    listen(fd, CS_CTL_BACKLOG)) {
		cs_fail(err, len, "cannot serve %s: %s", CS_CTL_SOCK,
			strerror(errno));
		close(fd);
		return -1;
	}
	srv.sock_ino = st.st_ino;
	return fd;
}

static int make_socket(char *err, size_t len)
{
	int dfd, fd = -1;

	dfd = cs_open_run_dir(err, len);
	if (dfd < 0)
		return -1;
	if (!clear_old_socket(dfd, err, len))
		fd = listen_socket(dfd, err, len);
	close(dfd);
	return fd;
}

/* Close the socket and remove it, if it is still ours. */
static void close_socket(void)
{
	struct stat st;

	if (srv.stop_fd >= 0)
		close(srv.stop_fd);
	close(srv.listen_fd);
	srv.stop_fd = srv.listen_fd = -1;
	if (!lstat(CS_CTL_SOCK, &st) && st.st_ino == srv.sock_ino)
		unlink(CS_CTL_SOCK);
}

/* Start the thread with every signal blocked: they are main()'s. */
static int start_thread(void)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&srv.thread, NULL, serve, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

void cs_ctlsock_start(int verbose)
{
	char err[512];
	int i, ret;

	if (srv.running)
		return;
	srv.verbose = verbose;
	for (i = 0; i < CS_CTL_MAX_CONNS; i++)
		srv.conns[i].fd = -1;
	srv.listen_fd = make_socket(err, sizeof(err));
	if (srv.listen_fd < 0) {
		ctl_log("%s; unprivileged cgroup tagging is off", err);
		return;
	}
	srv.stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ret = srv.stop_fd < 0 ? errno : start_thread();
	if (ret) {
		ctl_log("cannot start its thread: %s; unprivileged cgroup tagging is off",
			strerror(ret));
		close_socket();
		return;
	}
	srv.running = true;
	if (!srv.atexit_done)
		srv.atexit_done = !atexit(cs_ctlsock_stop);
	if (verbose)
		ctl_log("serving %s", CS_CTL_SOCK);
}

void cs_ctlsock_stop(void)
{
	__u64 one = 1;

	if (!srv.running)
		return;
	srv.running = false;
	if (write(srv.stop_fd, &one, sizeof(one)) != sizeof(one)) {
		ctl_log("cannot stop its thread: %s", strerror(errno));
		return; /* it serves on until the process exits */
	}
	pthread_join(srv.thread, NULL);
	close_socket();
}
