// SPDX-License-Identifier: GPL-2.0-only
/*
 * prctl_parity: what prctl(PR_SCHED_CORE) must do, checked against
 * whichever backend serves the call: the kernel's own core scheduling or
 * scx_coresched's handler. It is the executable definition of "upstream
 * semantics" for the handler. It covers the cases of the kernel selftest
 * tools/testing/selftests/sched/cs_prctl_test.c (reimplemented here in our
 * own code) and more:
 *
 *   - CREATE for scope thread, thread group and process group: who gets
 *     the new cookie and who does not; SHARE_TO, SHARE_FROM;
 *   - argument checks and their errnos (EINVAL, ESRCH, EFAULT) and which
 *     error wins when several apply;
 *   - GET: 0 untagged, equal when shared, different when not;
 *   - inheritance over fork, pthread_create and exec;
 *   - the permission rule (ptrace read access, real credentials) as a
 *     second user (uid/gid 65534) and as root.
 *
 *   prctl_parity BACKEND
 *
 * prints one line per check, "PASS prctl_BACKEND_NAME" or
 * "FAIL prctl_BACKEND_NAME: why", and exits 1 if any failed. Each check
 * runs in its own process, in its own process group, so that cookies it
 * sets never reach the caller. Run it as root on a machine with SMT.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "../harness.h"

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62
#endif
#ifndef PR_SCHED_CORE_GET
#define PR_SCHED_CORE_GET 0
#define PR_SCHED_CORE_CREATE 1
#define PR_SCHED_CORE_SHARE_TO 2
#define PR_SCHED_CORE_SHARE_FROM 3
#define PR_SCHED_CORE_MAX 4
#endif
#ifndef PR_SCHED_CORE_SCOPE_THREAD
#define PR_SCHED_CORE_SCOPE_THREAD 0
#define PR_SCHED_CORE_SCOPE_THREAD_GROUP 1
#define PR_SCHED_CORE_SCOPE_PROCESS_GROUP 2
#endif

#define GET PR_SCHED_CORE_GET
#define CREATE PR_SCHED_CORE_CREATE
#define SHARE_TO PR_SCHED_CORE_SHARE_TO
#define SHARE_FROM PR_SCHED_CORE_SHARE_FROM
#define THREAD PR_SCHED_CORE_SCOPE_THREAD
#define TGID PR_SCHED_CORE_SCOPE_THREAD_GROUP
#define PGID PR_SCHED_CORE_SCOPE_PROCESS_GROUP

#define NOBODY 65534
#define NTHREADS 3 /* threads per helper process, besides its leader */
#define POISON 0x5a5a5a5a5a5a5a5aULL /* what GET must overwrite */

typedef unsigned long long u64;

/* prctl(PR_SCHED_CORE, ...): 0, or the errno it failed with. */
static int core(unsigned long cmd, unsigned long pid, unsigned long scope,
		unsigned long arg5)
{
	return prctl(PR_SCHED_CORE, cmd, pid, scope, arg5) ? errno : 0;
}

/* GET the cookie of @pid into *@c (POISON first); 0 or the errno. */
static int get_cookie(pid_t pid, u64 *c)
{
	*c = POISON;
	return core(GET, pid, THREAD, (unsigned long)c);
}

static const char *ename(int e)
{
	const char *s;

	if (!e)
		return "success";
	s = strerrorname_np(e);
	return s ? s : "an unknown errno";
}

/* The cookie of @pid; the test fails if GET does. */
#define COOKIE(pid)							\
	({								\
		u64 c_;							\
		int e_ = get_cookie((pid), &c_);			\
		CHECK(!e_, "GET of %s (pid %d) failed: %s", #pid,	\
		      (int)(pid), ename(e_));				\
		c_;							\
	})

/* @expr (a core() call) fails with @want, or succeeds if @want is 0. */
#define CHECK_ERRNO(expr, want) __CHECK_ERRNO(expr, #expr, want)
#define CHECK_OK(expr) __CHECK_ERRNO(expr, #expr, 0)
#define __CHECK_ERRNO(expr, text, want)					\
	do {								\
		int g_ = (expr), w_ = (want);				\
		CHECK(g_ == w_, "%s: got %s, expected %s", text,	\
		      ename(g_), ename(w_));				\
	} while (0)

#define CHECK_ZERO(pid)							\
	do {								\
		u64 g_ = COOKIE(pid);					\
		CHECK(!g_, "cookie of %s = %#llx, expected 0", #pid, g_); \
	} while (0)

#define CHECK_TAGGED(pid)						\
	do {								\
		u64 g_ = COOKIE(pid);					\
		CHECK(g_ && g_ != POISON,				\
		      "cookie of %s = %#llx, expected a non-zero cookie", \
		      #pid, g_);					\
	} while (0)

/* The cookie of @pid is @want (a value read before). */
#define CHECK_IS(pid, want)						\
	do {								\
		u64 g_ = COOKIE(pid), w_ = (want);			\
		CHECK(g_ == w_, "cookie of %s = %#llx, expected %s = %#llx", \
		      #pid, g_, #want, w_);				\
	} while (0)

#define CHECK_NOT(pid, other)						\
	do {								\
		u64 g_ = COOKIE(pid), o_ = (other);			\
		CHECK(g_ != o_,						\
		      "cookie of %s = %#llx, expected it to differ from %s", \
		      #pid, g_, #other);				\
	} while (0)

/*
 * A helper process: a leader and NTHREADS more threads that wait. Asked
 * over @cmd, the leader answers with its own cookie (GET of pid 0), which
 * works whatever the asker's credentials. It exits when @cmd closes,
 * that is at the latest when the test process exits.
 */
struct helper {
	pid_t pid;
	pid_t tid[NTHREADS];
	int cmd; /* requests, to the helper */
	int ans; /* answers, from the helper */
};

struct answer {
	int err;
	u64 cookie;
};

enum {
	H_PGRP = 1, /* in a new process group of its own */
	H_NOBODY = 2, /* uid and gid 65534 (not dumpable then) */
	H_SAVED_ROOT = 4, /* with H_NOBODY: but saved uid 0 */
	H_DUMPABLE = 8, /* PR_SET_DUMPABLE 1 */
	H_KEEPCAPS = 16, /* with H_NOBODY: keep the permitted capabilities */
};

static pthread_barrier_t helper_barrier;

static bool become_nobody(uid_t suid)
{
	return !setgroups(0, NULL) && !setresgid(NOBODY, NOBODY, NOBODY) &&
	       !setresuid(NOBODY, NOBODY, suid);
}

static void *helper_thread(void *arg)
{
	*(pid_t *)arg = gettid();
	pthread_barrier_wait(&helper_barrier);
	for (;;)
		pause();
	return NULL;
}

static void __attribute__((noreturn)) helper_main(int cmd, int ans, int flags)
{
	pid_t tid[NTHREADS];
	struct answer a;
	pthread_t t;
	char c;
	int i;

	/* Hold no other pipe open: the harness's, other helpers'. */
	for (i = 3; i < 1024; i++)
		if (i != cmd && i != ans)
			close(i);
	if ((flags & H_PGRP) && setpgid(0, 0))
		_exit(2);
	if ((flags & H_KEEPCAPS) && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		_exit(2);
	if ((flags & H_NOBODY) &&
	    !become_nobody(flags & H_SAVED_ROOT ? 0 : NOBODY))
		_exit(2);
	if ((flags & H_DUMPABLE) && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		_exit(2);
	pthread_barrier_init(&helper_barrier, NULL, NTHREADS + 1);
	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&t, NULL, helper_thread, &tid[i]))
			_exit(2);
	pthread_barrier_wait(&helper_barrier);
	if (write(ans, tid, sizeof(tid)) != sizeof(tid))
		_exit(2);
	while (read(cmd, &c, 1) == 1) {
		a.err = get_cookie(0, &a.cookie);
		if (write(ans, &a, sizeof(a)) != sizeof(a))
			_exit(2);
	}
	_exit(0);
}

static bool spawn(struct helper *h, int flags)
{
	int cmd[2], ans[2];

	if (pipe(cmd) || pipe(ans))
		return false;
	fflush(stdout);
	h->pid = fork();
	if (h->pid < 0)
		return false;
	if (!h->pid) {
		close(cmd[1]);
		close(ans[0]);
		helper_main(cmd[0], ans[1], flags);
	}
	close(cmd[0]);
	close(ans[1]);
	h->cmd = cmd[1];
	h->ans = ans[0];
	return read(h->ans, h->tid, sizeof(h->tid)) == sizeof(h->tid);
}

/* Stop a helper and reap it: its pid is then unused. */
static void stop(struct helper *h)
{
	close(h->cmd);
	close(h->ans);
	waitpid(h->pid, NULL, 0);
}

#define SPAWN(h, flags)							\
	CHECK(spawn((h), (flags)), "cannot start helper %s: %s", #h,	\
	      strerror(errno))

/* The helper's own cookie, as it reads it (GET of pid 0). */
#define SELF_COOKIE(h)							\
	({								\
		struct answer a_ = { .err = EIO };			\
		CHECK(write((h)->cmd, "g", 1) == 1 &&			\
			      read((h)->ans, &a_, sizeof(a_)) == sizeof(a_), \
		      "helper %s does not answer", #h);			\
		CHECK(!a_.err, "helper %s: GET of itself failed: %s", #h, \
		      ename(a_.err));					\
		a_.cookie;						\
	})

/* Helper @h reads its own cookie as @want. */
#define CHECK_SELF(h, want)						\
	do {								\
		u64 g_ = SELF_COOKIE(h), w_ = (want);			\
		CHECK(g_ == w_,						\
		      "helper %s reads its own cookie as %#llx, expected %s = %#llx", \
		      #h, g_, #want, w_);				\
	} while (0)

/* The leader and every thread of helper @h have cookie @want. */
#define CHECK_ALL(h, want)						\
	do {								\
		int i_;							\
		CHECK_IS((h)->pid, want);				\
		for (i_ = 0; i_ < NTHREADS; i_++)			\
			CHECK_IS((h)->tid[i_], want);			\
	} while (0)

/* The test process's own cookie. */
#define MINE() COOKIE(0)

/* ----- The cases of cs_prctl_test.c, in its order ----- */

/* A fresh process, its thread and a child of it have no cookie. */
static bool test_get_untagged_zero(void)
{
	struct helper a;

	SPAWN(&a, 0);
	CHECK_ZERO(0);
	CHECK_ZERO(getpid());
	CHECK_ZERO(a.pid);
	CHECK_ZERO(a.tid[0]);
	return true;
}

/*
 * CREATE scope process group, pid 0: every thread of every process of the
 * caller's process group gets one new cookie; a process of another group
 * does not.
 */
static bool test_create_pgid(void)
{
	struct helper a, b, other;
	u64 c;

	SPAWN(&a, 0);
	SPAWN(&b, 0);
	SPAWN(&other, H_PGRP);
	CHECK_OK(core(CREATE, 0, PGID, 0));
	CHECK_TAGGED(0);
	c = MINE();
	CHECK_ALL(&a, c);
	CHECK_ALL(&b, c);
	CHECK_ALL(&other, 0);
	return true;
}

/*
 * CREATE scope thread group on another process: all its threads get a new
 * cookie; the caller and the threads of another process keep theirs.
 */
static bool test_create_tgid(void)
{
	struct helper a, b;
	u64 group, c;

	SPAWN(&a, 0);
	SPAWN(&b, 0);
	CHECK_OK(core(CREATE, 0, PGID, 0));
	group = MINE();
	CHECK_OK(core(CREATE, a.pid, TGID, 0));
	CHECK_TAGGED(a.pid);
	CHECK_NOT(a.pid, group);
	c = COOKIE(a.pid);
	CHECK_ALL(&a, c);
	CHECK_ALL(&b, group);
	CHECK_IS(0, group);
	return true;
}

/*
 * SHARE_TO scope thread: the caller's cookie goes to that one thread; the
 * other threads of its process keep theirs.
 */
static bool test_share_to_pid(void)
{
	struct helper a;
	u64 group, c;

	SPAWN(&a, 0);
	CHECK_OK(core(CREATE, 0, PGID, 0));
	group = MINE();
	CHECK_OK(core(CREATE, a.pid, TGID, 0));
	c = COOKIE(a.pid);
	CHECK_OK(core(SHARE_TO, a.pid, THREAD, 0));
	CHECK_IS(a.pid, group);
	CHECK_IS(a.tid[0], c);
	CHECK_NOT(a.tid[0], group);
	return true;
}

/*
 * SHARE_FROM scope thread: the caller takes the cookie of a thread of
 * another process; that process's leader keeps its own.
 */
static bool test_share_from_thread(void)
{
	struct helper a;
	u64 group, c;

	SPAWN(&a, 0);
	CHECK_OK(core(CREATE, 0, PGID, 0));
	group = MINE();
	CHECK_OK(core(CREATE, a.tid[0], THREAD, 0));
	c = COOKIE(a.tid[0]);
	CHECK_OK(core(SHARE_FROM, a.tid[0], THREAD, 0));
	CHECK_IS(0, c);
	CHECK_IS(a.pid, group);
	CHECK_NOT(a.pid, c);
	return true;
}

/* SHARE_TO scope process group, pid 0: the whole group gets the caller's. */
static bool test_share_to_pgid(void)
{
	struct helper a, b, other;
	u64 c;

	SPAWN(&a, 0);
	SPAWN(&b, 0);
	SPAWN(&other, H_PGRP);
	CHECK_OK(core(CREATE, a.pid, TGID, 0));
	CHECK_OK(core(CREATE, b.tid[1], THREAD, 0));
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	c = MINE();
	CHECK_OK(core(SHARE_TO, 0, PGID, 0));
	CHECK_IS(0, c);
	CHECK_ALL(&a, c);
	CHECK_ALL(&b, c);
	CHECK_ALL(&other, 0);
	return true;
}

/* PR_SCHED_CORE_MAX is not a command (cs_prctl_test.c's last cases). */
static bool test_cmd_max_einval(void)
{
	CHECK_ERRNO(core(PR_SCHED_CORE_MAX, 0, PGID, 0), EINVAL);
	CHECK_ERRNO(core(SHARE_TO, 0, PGID, 1), EINVAL);
	CHECK_ZERO(0);
	return true;
}

/* ----- CREATE ----- */

/* CREATE scope thread group naming a non-leader thread: its whole process. */
static bool test_create_tgid_by_tid(void)
{
	struct helper a, b;
	u64 c;

	SPAWN(&a, 0);
	SPAWN(&b, 0);
	CHECK_OK(core(CREATE, a.tid[1], TGID, 0));
	CHECK_TAGGED(a.pid);
	c = COOKIE(a.pid);
	CHECK_ALL(&a, c);
	CHECK_ALL(&b, 0);
	CHECK_ZERO(0);
	return true;
}

/* CREATE scope thread: only that thread, leader or not. */
static bool test_create_pid(void)
{
	struct helper a;
	u64 c;

	SPAWN(&a, 0);
	CHECK_OK(core(CREATE, a.tid[0], THREAD, 0));
	CHECK_TAGGED(a.tid[0]);
	CHECK_ZERO(a.pid);
	CHECK_ZERO(a.tid[1]);
	CHECK_ZERO(a.tid[2]);
	CHECK_ZERO(0);
	c = COOKIE(a.tid[0]);
	CHECK_OK(core(CREATE, a.pid, THREAD, 0));
	CHECK_TAGGED(a.pid);
	CHECK_NOT(a.pid, c);
	CHECK_IS(a.tid[0], c);
	CHECK_ZERO(a.tid[1]);
	return true;
}

/*
 * CREATE scope process group naming a process of another group: that
 * group (all its processes and threads), not the caller's.
 */
static bool test_create_pgid_other_group(void)
{
	struct helper mine, o1, o2;
	u64 c;

	SPAWN(&mine, 0);
	SPAWN(&o1, H_PGRP);
	SPAWN(&o2, 0);
	CHECK(!setpgid(o2.pid, o1.pid), "setpgid(o2, o1): %s", strerror(errno));
	CHECK_OK(core(CREATE, o2.pid, PGID, 0));
	CHECK_TAGGED(o1.pid);
	c = COOKIE(o1.pid);
	CHECK_ALL(&o1, c);
	CHECK_ALL(&o2, c);
	CHECK_ZERO(0);
	CHECK_ALL(&mine, 0);
	return true;
}

/* Every CREATE makes a new cookie; earlier holders keep the old one. */
static bool test_create_new_each_time(void)
{
	struct helper a;
	u64 c1, c2;

	SPAWN(&a, 0);
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	CHECK_TAGGED(0);
	c1 = MINE();
	CHECK_OK(core(SHARE_TO, a.pid, TGID, 0));
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	CHECK_TAGGED(0);
	c2 = MINE();
	CHECK(c1 != c2, "two CREATEs gave the same cookie %#llx", c1);
	CHECK_ALL(&a, c1);
	return true;
}

/* ----- SHARE_TO, SHARE_FROM ----- */

/* SHARE_TO scope thread group: every thread of that process, no other. */
static bool test_share_to_tgid(void)
{
	struct helper a, b;
	u64 c;

	SPAWN(&a, 0);
	SPAWN(&b, 0);
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	c = MINE();
	CHECK_OK(core(SHARE_TO, a.tid[2], TGID, 0));
	CHECK_ALL(&a, c);
	CHECK_ALL(&b, 0);
	return true;
}

/* SHARE_TO from an untagged caller clears the target's cookie. */
static bool test_share_to_untagged_clears(void)
{
	struct helper a;
	u64 c;

	SPAWN(&a, 0);
	CHECK_OK(core(CREATE, a.pid, TGID, 0));
	c = COOKIE(a.pid);
	CHECK_OK(core(SHARE_TO, a.tid[0], THREAD, 0));
	CHECK_ZERO(a.tid[0]);
	CHECK_IS(a.pid, c);
	CHECK_OK(core(SHARE_TO, a.pid, TGID, 0));
	CHECK_ALL(&a, 0);
	return true;
}

/* SHARE_FROM an untagged task clears the caller's cookie. */
static bool test_share_from_untagged_clears(void)
{
	struct helper a;

	SPAWN(&a, 0);
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	CHECK_TAGGED(0);
	CHECK_OK(core(SHARE_FROM, a.pid, THREAD, 0));
	CHECK_ZERO(0);
	return true;
}

/* SHARE_FROM with a scope other than thread: EINVAL, nothing changes. */
static bool test_share_from_scope_einval(void)
{
	struct helper a;
	u64 c;

	SPAWN(&a, 0);
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	c = MINE();
	CHECK_OK(core(CREATE, a.pid, TGID, 0));
	CHECK_ERRNO(core(SHARE_FROM, a.pid, TGID, 0), EINVAL);
	CHECK_ERRNO(core(SHARE_FROM, a.pid, PGID, 0), EINVAL);
	CHECK_ERRNO(core(SHARE_FROM, 0, TGID, 0), EINVAL);
	CHECK_IS(0, c);
	CHECK_NOT(a.pid, c);
	return true;
}

/* ----- GET ----- */

/* Two tasks sharing a cookie GET equal non-zero values, every time. */
static bool test_get_shared_equal(void)
{
	struct helper a;
	u64 c;

	SPAWN(&a, 0);
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	CHECK_TAGGED(0);
	c = MINE();
	CHECK_IS(0, c);
	CHECK_IS(getpid(), c);
	CHECK_OK(core(SHARE_TO, a.pid, THREAD, 0));
	CHECK_IS(a.pid, c);
	CHECK_SELF(&a, c);
	return true;
}

/* Different cookies GET different values. */
static bool test_get_distinct_differ(void)
{
	struct helper a, b;
	u64 c;

	SPAWN(&a, 0);
	SPAWN(&b, 0);
	CHECK_OK(core(CREATE, a.pid, THREAD, 0));
	CHECK_OK(core(CREATE, b.pid, THREAD, 0));
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	CHECK_TAGGED(a.pid);
	CHECK_TAGGED(b.pid);
	CHECK_TAGGED(0);
	c = COOKIE(a.pid);
	CHECK_NOT(b.pid, c);
	CHECK_NOT(0, c);
	CHECK_NOT(0, COOKIE(b.pid));
	return true;
}

/* GET with scope thread group or process group: EINVAL, nothing written. */
static bool test_get_scope_einval(void)
{
	u64 buf = POISON;

	CHECK_OK(core(CREATE, 0, THREAD, 0));
	CHECK_ERRNO(core(GET, 0, TGID, (unsigned long)&buf), EINVAL);
	CHECK_ERRNO(core(GET, 0, PGID, (unsigned long)&buf), EINVAL);
	CHECK(buf == POISON, "a failed GET wrote %#llx", buf);
	return true;
}

/* GET to an address that is not 8-byte aligned: EINVAL, nothing written. */
static bool test_get_misaligned_einval(void)
{
	unsigned char buf[24];
	int off, i;

	CHECK_OK(core(CREATE, 0, THREAD, 0));
	for (off = 1; off < 8; off++) {
		unsigned char *p = (unsigned char *)(((uintptr_t)buf + 7) & ~7UL) + off;

		memset(buf, 0x5a, sizeof(buf));
		CHECK_ERRNO(core(GET, 0, THREAD, (unsigned long)p), EINVAL);
		for (i = 0; i < (int)sizeof(buf); i++)
			CHECK(buf[i] == 0x5a, "GET at offset %d wrote byte %d", off, i);
	}
	return true;
}

/* GET to an aligned address that cannot be written: EFAULT. */
static bool test_get_bad_address_efault(void)
{
	CHECK_ERRNO(core(GET, 0, THREAD, 0), EFAULT);
	CHECK_ERRNO(core(GET, 0, THREAD, 8), EFAULT);
	return true;
}

/* ----- Argument checks ----- */

/* Anything but GET with a non-zero 5th argument: EINVAL, nothing changes. */
static bool test_arg5_einval(void)
{
	struct helper a;
	u64 buf, c;

	SPAWN(&a, 0);
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	c = MINE();
	CHECK_ERRNO(core(CREATE, 0, THREAD, 1), EINVAL);
	CHECK_ERRNO(core(CREATE, a.pid, TGID, (unsigned long)&buf), EINVAL);
	CHECK_ERRNO(core(SHARE_TO, a.pid, THREAD, 8), EINVAL);
	CHECK_ERRNO(core(SHARE_TO, 0, PGID, 1), EINVAL);
	CHECK_ERRNO(core(SHARE_FROM, a.pid, THREAD, 1), EINVAL);
	CHECK_IS(0, c);
	CHECK_ALL(&a, 0);
	return true;
}

/* Commands from PR_SCHED_CORE_MAX up: EINVAL, nothing changes. */
static bool test_bad_cmd_einval(void)
{
	static const unsigned long cmds[] = { PR_SCHED_CORE_MAX, 5, 255,
					      0x7fffffff, 0xffffffff, -1UL };
	u64 buf;
	int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		CHECK_ERRNO(core(cmds[i], 0, THREAD, 0), EINVAL);
		CHECK_ERRNO(core(cmds[i], 0, PGID, 0), EINVAL);
		CHECK_ERRNO(core(cmds[i], 0, THREAD, (unsigned long)&buf),
			    EINVAL);
	}
	CHECK_ZERO(0);
	return true;
}

/* Scopes above process group (-1 too): EINVAL for every command. */
static bool test_bad_scope_einval(void)
{
	static const unsigned long scopes[] = { 3, 4, 1000, 0xffffffff,
						-1UL };
	struct helper a;
	u64 buf = POISON;
	int i;

	SPAWN(&a, 0);
	CHECK_OK(core(CREATE, a.pid, THREAD, 0));
	for (i = 0; i < ARRAY_SIZE(scopes); i++) {
		CHECK_ERRNO(core(GET, 0, scopes[i], (unsigned long)&buf), EINVAL);
		CHECK_ERRNO(core(CREATE, 0, scopes[i], 0), EINVAL);
		CHECK_ERRNO(core(SHARE_TO, a.pid, scopes[i], 0), EINVAL);
		CHECK_ERRNO(core(SHARE_FROM, a.pid, scopes[i], 0), EINVAL);
	}
	CHECK(buf == POISON, "a failed GET wrote %#llx", buf);
	CHECK_ZERO(0);
	CHECK_TAGGED(a.pid);
	return true;
}

/* A negative pid: EINVAL for every command and scope. */
static bool test_negative_pid_einval(void)
{
	static const long pids[] = { -1, -2, INT_MIN };
	u64 buf = POISON;
	int i, s;

	for (i = 0; i < ARRAY_SIZE(pids); i++) {
		unsigned long pid = (unsigned long)pids[i];

		CHECK_ERRNO(core(GET, pid, THREAD, (unsigned long)&buf), EINVAL);
		CHECK_ERRNO(core(SHARE_FROM, pid, THREAD, 0), EINVAL);
		for (s = THREAD; s <= PGID; s++) {
			CHECK_ERRNO(core(CREATE, pid, s, 0), EINVAL);
			CHECK_ERRNO(core(SHARE_TO, pid, s, 0), EINVAL);
		}
	}
	CHECK(buf == POISON, "a failed GET wrote %#llx", buf);
	CHECK_ZERO(0);
	return true;
}

static pid_t pid_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	int n = 0;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

/* A pid no task has (an exited child's, pid_max): ESRCH for every command. */
static bool test_unknown_pid_esrch(void)
{
	struct helper gone;
	pid_t pids[2];
	u64 buf = POISON;
	int i, s;

	SPAWN(&gone, 0);
	stop(&gone);
	pids[0] = gone.pid;
	pids[1] = pid_max();
	CHECK(pids[1] > 0, "cannot read /proc/sys/kernel/pid_max");
	for (i = 0; i < ARRAY_SIZE(pids); i++) {
		CHECK_ERRNO(core(GET, pids[i], THREAD, (unsigned long)&buf), ESRCH);
		CHECK_ERRNO(core(SHARE_FROM, pids[i], THREAD, 0), ESRCH);
		for (s = THREAD; s <= PGID; s++) {
			CHECK_ERRNO(core(CREATE, pids[i], s, 0), ESRCH);
			CHECK_ERRNO(core(SHARE_TO, pids[i], s, 0), ESRCH);
		}
	}
	CHECK(buf == POISON, "a failed GET wrote %#llx", buf);
	CHECK_ZERO(0);
	return true;
}

/*
 * Which error wins: the argument checks (EINVAL) come before the pid
 * lookup (ESRCH); GET's and SHARE_FROM's own scope and address checks come
 * after it.
 */
static bool test_errno_precedence(void)
{
	struct helper gone;
	u64 buf[2];

	SPAWN(&gone, 0);
	stop(&gone);
	CHECK_ERRNO(core(CREATE, gone.pid, 3, 0), EINVAL);
	CHECK_ERRNO(core(SHARE_TO, gone.pid, THREAD, 1), EINVAL);
	CHECK_ERRNO(core(PR_SCHED_CORE_MAX, gone.pid, THREAD, 0), EINVAL);
	CHECK_ERRNO(core(CREATE, -1UL, THREAD, 1), EINVAL);
	CHECK_ERRNO(core(GET, gone.pid, TGID, (unsigned long)buf), ESRCH);
	CHECK_ERRNO(core(GET, gone.pid, THREAD, (unsigned long)buf + 4), ESRCH);
	CHECK_ERRNO(core(GET, gone.pid, THREAD, 0), ESRCH);
	CHECK_ERRNO(core(SHARE_FROM, gone.pid, PGID, 0), ESRCH);
	return true;
}

/*
 * The kernel takes the command, the pid and the scope as 32-bit values
 * (unsigned int, pid_t, enum pid_type): bits above 31 are ignored.
 */
static bool test_args_int_width(void)
{
	const unsigned long hi = 1UL << 32;
	struct helper a;
	u64 buf = POISON;

	SPAWN(&a, 0);
	CHECK_OK(core(CREATE, a.pid, TGID, 0));
	CHECK_OK(core(hi | GET, hi | a.pid, hi | THREAD, (unsigned long)&buf));
	CHECK_IS(a.pid, buf);
	CHECK_OK(core(hi | CREATE, hi, hi | THREAD, 0));
	CHECK_TAGGED(0);
	CHECK_ERRNO(core(CREATE, 0xffffffffUL, THREAD, 0), EINVAL);
	return true;
}

/* ----- pid 0, threads, inheritance ----- */

struct thread_result {
	int err; /* of the operation */
	u64 self; /* GET of pid 0 in the thread, after it */
	u64 child; /* GET of pid 0 in a thread this thread created */
	pid_t tid;
	pthread_barrier_t done, go;
	int cmd, scope;
	bool spawn_child;
};

static void *child_thread(void *arg)
{
	struct thread_result *r = arg;

	if (get_cookie(0, &r->child))
		r->child = POISON;
	return NULL;
}

/*
 * A thread that runs one prctl command on pid 0 (cmd < 0: none), GETs its
 * own cookie, optionally creates a thread that GETs its own, then waits
 * until the test has looked at it.
 */
static void *op_thread(void *arg)
{
	struct thread_result *r = arg;
	pthread_t t;

	r->tid = gettid();
	r->err = r->cmd < 0 ? 0 : core(r->cmd, 0, r->scope, 0);
	if (get_cookie(0, &r->self))
		r->self = POISON;
	r->child = POISON;
	if (r->spawn_child && !pthread_create(&t, NULL, child_thread, r))
		pthread_join(t, NULL);
	pthread_barrier_wait(&r->done);
	pthread_barrier_wait(&r->go);
	return NULL;
}

static bool start_thread(pthread_t *t, struct thread_result *r, int cmd,
			 int scope, bool spawn_child)
{
	memset(r, 0, sizeof(*r));
	r->cmd = cmd;
	r->scope = scope;
	r->spawn_child = spawn_child;
	pthread_barrier_init(&r->done, NULL, 2);
	pthread_barrier_init(&r->go, NULL, 2);
	if (pthread_create(t, NULL, op_thread, r))
		return false;
	pthread_barrier_wait(&r->done);
	return true;
}

static void end_thread(pthread_t t, struct thread_result *r)
{
	pthread_barrier_wait(&r->go);
	pthread_join(t, NULL);
}

/*
 * pid 0 is the calling thread: CREATE scope thread from a second thread
 * tags that thread only, scope thread group from it the whole process.
 */
static bool test_pid_zero_is_caller(void)
{
	struct thread_result r;
	pthread_t t;
	u64 c;

	CHECK(start_thread(&t, &r, CREATE, THREAD, false), "pthread_create");
	CHECK_OK(r.err);
	CHECK(r.self && r.self != POISON,
	      "thread's own cookie %#llx, expected non-zero", r.self);
	CHECK_IS(r.tid, r.self);
	CHECK_ZERO(getpid());
	CHECK_ZERO(0);
	end_thread(t, &r);

	CHECK(start_thread(&t, &r, CREATE, TGID, false), "pthread_create");
	CHECK_OK(r.err);
	CHECK_IS(0, r.self);
	CHECK_IS(r.tid, r.self);
	CHECK_TAGGED(getpid());
	end_thread(t, &r);

	CHECK_OK(core(CREATE, 0, THREAD, 0));
	c = COOKIE(getpid());
	CHECK_IS(0, c);
	return true;
}

/* A forked child has its parent's cookie (and its threads too). */
static bool test_fork_inherits(void)
{
	struct helper a;
	u64 c;

	CHECK_OK(core(CREATE, 0, THREAD, 0));
	c = MINE();
	SPAWN(&a, 0);
	CHECK_SELF(&a, c);
	CHECK_ALL(&a, c);
	return true;
}

/* A new thread has the cookie of its creator. */
static bool test_pthread_inherits(void)
{
	struct thread_result r;
	pthread_t t;
	u64 c;

	CHECK_OK(core(CREATE, 0, THREAD, 0));
	c = MINE();
	CHECK(start_thread(&t, &r, -1, 0, false), "pthread_create");
	CHECK(r.self == c, "new thread's cookie %#llx, expected its creator's %#llx",
	      r.self, c);
	CHECK_IS(r.tid, c);
	end_thread(t, &r);
	return true;
}

/*
 * ... of the creating thread, not of the process leader: a thread with a
 * cookie of its own passes that one on.
 */
static bool test_pthread_inherits_creator_thread(void)
{
	struct thread_result r;
	pthread_t t;

	CHECK(start_thread(&t, &r, CREATE, THREAD, true), "pthread_create");
	CHECK_OK(r.err);
	CHECK(r.self && r.self != POISON, "creating thread's cookie %#llx",
	      r.self);
	CHECK(r.child == r.self,
	      "new thread's cookie %#llx, expected its creator's %#llx", r.child,
	      r.self);
	CHECK_ZERO(0);
	end_thread(t, &r);
	return true;
}

/*
 * exec keeps the cookie: a child CREATEs its own, then execs this program
 * with --print-cookie, which GETs and prints it.
 */
static bool test_exec_keeps(void)
{
	u64 parent, before = POISON, after = POISON;
	int fd[2], status;
	char out[64] = "";
	ssize_t n;
	pid_t pid;

	CHECK_OK(core(CREATE, 0, THREAD, 0));
	parent = MINE();
	CHECK(!pipe(fd), "pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		u64 c;

		close(fd[0]);
		if (core(CREATE, 0, THREAD, 0) || get_cookie(0, &c) ||
		    write(fd[1], &c, sizeof(c)) != sizeof(c))
			_exit(2);
		dup2(fd[1], STDOUT_FILENO);
		execl("/proc/self/exe", "prctl_parity", "--print-cookie",
		      (char *)NULL);
		_exit(3);
	}
	close(fd[1]);
	n = read(fd[0], &before, sizeof(before));
	CHECK(n == sizeof(before), "the child could not CREATE and GET");
	n = read(fd[0], out, sizeof(out) - 1);
	close(fd[0]);
	waitpid(pid, &status, 0);
	CHECK(n > 0 && sscanf(out, "cookie %llx", &after) == 1,
	      "the exec'd child printed '%s' (exit status %#x)",
	      n > 0 ? out : "", status);
	CHECK(before && before != parent, "child's cookie %#llx before exec",
	      before);
	CHECK(after == before, "cookie after exec %#llx, expected %#llx (before)",
	      after, before);
	return true;
}

/* A child keeps its cookie when its parent later changes or drops its own. */
static bool test_child_keeps_after_parent_changes(void)
{
	struct helper untagged, a;
	u64 c;

	SPAWN(&untagged, 0);
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	c = MINE();
	SPAWN(&a, 0);
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	CHECK_NOT(0, c);
	CHECK_ALL(&a, c);
	CHECK_ALL(&untagged, 0);
	CHECK_OK(core(SHARE_FROM, untagged.pid, THREAD, 0));
	CHECK_ZERO(0);
	CHECK_ALL(&a, c);
	return true;
}

/* A cookie lives on with its holders after the task that made it exits. */
static bool test_cookie_outlives_creator(void)
{
	struct helper a, b;
	u64 c;

	SPAWN(&a, 0);
	SPAWN(&b, 0);
	CHECK_OK(core(CREATE, a.pid, TGID, 0));
	c = COOKIE(a.pid);
	CHECK_OK(core(SHARE_FROM, a.pid, THREAD, 0));
	stop(&a);
	CHECK_IS(0, c);
	CHECK_OK(core(SHARE_TO, b.pid, THREAD, 0));
	CHECK_IS(b.pid, c);
	CHECK_OK(core(CREATE, b.tid[0], THREAD, 0));
	CHECK_NOT(b.tid[0], c);
	return true;
}

/* ----- Permissions: PTRACE_MODE_READ_REALCREDS ----- */

/*
 * The test process, with cookie *@mine, becomes uid/gid 65534 (dumpable);
 * @root stays a root process with cookie *@theirs, in the same process
 * group.
 */
static bool nobody_and_root(struct helper *root, u64 *mine, u64 *theirs)
{
	CHECK(!getuid(), "must run as root");
	SPAWN(root, 0);
	CHECK_OK(core(CREATE, root->pid, TGID, 0));
	*theirs = COOKIE(root->pid);
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	*mine = MINE();
	CHECK(become_nobody(NOBODY) && !prctl(PR_SET_DUMPABLE, 1, 0, 0, 0),
	      "cannot become uid 65534: %s", strerror(errno));
	CHECK_IS(0, *mine);
	return true;
}

/* A second user may not GET a root task's cookie: EPERM, nothing written. */
static bool test_perm_nobody_get_root(void)
{
	struct helper root;
	u64 mine, theirs, buf = POISON;

	if (!nobody_and_root(&root, &mine, &theirs))
		return false;
	CHECK_ERRNO(core(GET, root.pid, THREAD, (unsigned long)&buf), EPERM);
	CHECK_ERRNO(core(GET, root.tid[0], THREAD, (unsigned long)&buf), EPERM);
	/* EPERM comes before GET's own scope and address checks. */
	CHECK_ERRNO(core(GET, root.pid, TGID, (unsigned long)&buf), EPERM);
	CHECK_ERRNO(core(GET, root.pid, THREAD, (unsigned long)&buf + 4), EPERM);
	CHECK(buf == POISON, "a failed GET wrote %#llx", buf);
	CHECK_SELF(&root, theirs);
	return true;
}

/* ... nor CREATE a cookie for it, in any scope that reaches it. */
static bool test_perm_nobody_create_root(void)
{
	struct helper root;
	u64 mine, theirs;

	if (!nobody_and_root(&root, &mine, &theirs))
		return false;
	CHECK_ERRNO(core(CREATE, root.pid, THREAD, 0), EPERM);
	CHECK_ERRNO(core(CREATE, root.tid[1], THREAD, 0), EPERM);
	CHECK_ERRNO(core(CREATE, root.pid, TGID, 0), EPERM);
	CHECK_ERRNO(core(CREATE, root.pid, PGID, 0), EPERM);
	CHECK_SELF(&root, theirs);
	CHECK_IS(0, mine);
	return true;
}

/* ... nor SHARE_TO it, nor SHARE_FROM it (the caller keeps its cookie). */
static bool test_perm_nobody_share_root(void)
{
	struct helper root;
	u64 mine, theirs;

	if (!nobody_and_root(&root, &mine, &theirs))
		return false;
	CHECK_ERRNO(core(SHARE_TO, root.pid, THREAD, 0), EPERM);
	CHECK_ERRNO(core(SHARE_TO, root.pid, TGID, 0), EPERM);
	CHECK_ERRNO(core(SHARE_FROM, root.pid, THREAD, 0), EPERM);
	CHECK_ERRNO(core(SHARE_FROM, root.tid[2], THREAD, 0), EPERM);
	/* EPERM comes before SHARE_FROM's scope check. */
	CHECK_ERRNO(core(SHARE_FROM, root.pid, TGID, 0), EPERM);
	CHECK_SELF(&root, theirs);
	CHECK_IS(0, mine);
	return true;
}

/*
 * A group scope is all or nothing: if one task of the process group may
 * not be touched, EPERM and no task of it changes.
 */
static bool test_perm_group_all_or_nothing(void)
{
	struct helper root, own;
	u64 mine, theirs, co;

	if (!nobody_and_root(&root, &mine, &theirs))
		return false;
	SPAWN(&own, 0);
	CHECK_ALL(&own, mine);
	CHECK_ERRNO(core(CREATE, 0, PGID, 0), EPERM);
	CHECK_ERRNO(core(CREATE, own.pid, PGID, 0), EPERM);
	CHECK_IS(0, mine);
	CHECK_ALL(&own, mine);
	CHECK_SELF(&root, theirs);
	CHECK_OK(core(CREATE, own.pid, TGID, 0));
	co = COOKIE(own.pid);
	CHECK(co != mine, "CREATE gave the caller's cookie again");
	CHECK_ERRNO(core(SHARE_TO, 0, PGID, 0), EPERM);
	CHECK_ALL(&own, co);
	CHECK_IS(0, mine);
	CHECK_SELF(&root, theirs);
	return true;
}

/* A second user may do everything on its own (dumpable) tasks. */
static bool test_perm_nobody_own_tasks(void)
{
	struct helper n1, n2;
	u64 c;

	CHECK(!getuid(), "must run as root");
	CHECK(become_nobody(NOBODY) && !prctl(PR_SET_DUMPABLE, 1, 0, 0, 0),
	      "cannot become uid 65534: %s", strerror(errno));
	SPAWN(&n1, 0);
	SPAWN(&n2, 0);
	CHECK_ZERO(n1.pid);
	CHECK_OK(core(CREATE, n1.pid, THREAD, 0));
	CHECK_TAGGED(n1.pid);
	CHECK_OK(core(CREATE, n1.pid, TGID, 0));
	c = COOKIE(n1.pid);
	CHECK_ALL(&n1, c);
	CHECK_OK(core(SHARE_FROM, n1.tid[0], THREAD, 0));
	CHECK_IS(0, c);
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	c = MINE();
	CHECK_OK(core(SHARE_TO, n2.pid, TGID, 0));
	CHECK_ALL(&n2, c);
	CHECK_OK(core(CREATE, 0, PGID, 0));
	c = MINE();
	CHECK_ALL(&n1, c);
	CHECK_ALL(&n2, c);
	return true;
}

/*
 * Same uid is not enough: a task that is not dumpable may only be touched
 * with CAP_SYS_PTRACE.
 */
static bool test_perm_nondumpable_eperm(void)
{
	struct helper n;
	u64 buf = POISON;

	CHECK(!getuid(), "must run as root");
	CHECK(become_nobody(NOBODY) && !prctl(PR_SET_DUMPABLE, 0, 0, 0, 0),
	      "cannot become uid 65534: %s", strerror(errno));
	SPAWN(&n, 0);
	CHECK_ERRNO(core(GET, n.pid, THREAD, (unsigned long)&buf), EPERM);
	CHECK_ERRNO(core(CREATE, n.pid, TGID, 0), EPERM);
	CHECK_ERRNO(core(SHARE_TO, n.pid, THREAD, 0), EPERM);
	CHECK_ERRNO(core(SHARE_FROM, n.pid, THREAD, 0), EPERM);
	CHECK_SELF(&n, 0);
	/* Its own threads are always fine. */
	CHECK_OK(core(CREATE, 0, TGID, 0));
	CHECK_TAGGED(0);
	return true;
}

/*
 * The target's real, effective and saved uids must all be the caller's:
 * a task with saved uid 0 is out of a second user's reach. (Control: the
 * same task without the saved root uid is within it.)
 */
static bool test_perm_target_saved_uid(void)
{
	struct helper saved_root, plain;
	u64 buf = POISON;

	CHECK(!getuid(), "must run as root");
	SPAWN(&saved_root, H_NOBODY | H_SAVED_ROOT | H_DUMPABLE);
	SPAWN(&plain, H_NOBODY | H_DUMPABLE);
	CHECK(become_nobody(NOBODY) && !prctl(PR_SET_DUMPABLE, 1, 0, 0, 0),
	      "cannot become uid 65534: %s", strerror(errno));
	CHECK_ERRNO(core(GET, saved_root.pid, THREAD, (unsigned long)&buf), EPERM);
	CHECK_ERRNO(core(CREATE, saved_root.pid, THREAD, 0), EPERM);
	CHECK_SELF(&saved_root, 0);
	CHECK_OK(core(GET, plain.pid, THREAD, (unsigned long)&buf));
	CHECK_OK(core(CREATE, plain.pid, THREAD, 0));
	CHECK_TAGGED(plain.pid);
	return true;
}

/*
 * The target may hold no capability the caller lacks: a task of the same
 * uid and gid that kept its permitted capabilities is out of a second
 * user's reach. (Control: the same task without them is within it.)
 */
static bool test_perm_target_more_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct caps[2];
	struct helper capable, plain;
	u64 buf = POISON;

	CHECK(!getuid(), "must run as root");
	SPAWN(&capable, H_NOBODY | H_KEEPCAPS | H_DUMPABLE);
	SPAWN(&plain, H_NOBODY | H_DUMPABLE);
	hdr.pid = capable.pid;
	CHECK(!syscall(SYS_capget, &hdr, caps) && caps[0].permitted,
	      "the helper kept no permitted capabilities");
	CHECK(become_nobody(NOBODY) && !prctl(PR_SET_DUMPABLE, 1, 0, 0, 0),
	      "cannot become uid 65534: %s", strerror(errno));
	CHECK_ERRNO(core(GET, capable.pid, THREAD, (unsigned long)&buf), EPERM);
	CHECK_ERRNO(core(CREATE, capable.pid, THREAD, 0), EPERM);
	CHECK_SELF(&capable, 0);
	CHECK_OK(core(GET, plain.pid, THREAD, (unsigned long)&buf));
	CHECK_OK(core(CREATE, plain.pid, THREAD, 0));
	CHECK_TAGGED(plain.pid);
	return true;
}

/*
 * Real credentials decide (REALCREDS), not effective ones: with real uid
 * 0 but effective uid 65534 and no effective capabilities, a root task may
 * still be read.
 */
static bool test_perm_real_uid_decides(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct caps[2];
	struct helper root;
	u64 theirs;

	CHECK(!getuid(), "must run as root");
	SPAWN(&root, 0);
	CHECK_OK(core(CREATE, root.pid, THREAD, 0));
	theirs = COOKIE(root.pid);
	CHECK(!setresuid(0, NOBODY, 0), "setresuid: %s", strerror(errno));
	CHECK(!syscall(SYS_capget, &hdr, caps) && !caps[0].effective &&
		      !caps[1].effective,
	      "effective capabilities remain with euid 65534");
	CHECK_IS(root.pid, theirs);
	return true;
}

/* Root may do everything on anyone's tasks, dumpable or not. */
static bool test_perm_root_on_anyone(void)
{
	struct helper n;
	u64 c;

	CHECK(!getuid(), "must run as root");
	SPAWN(&n, H_NOBODY);
	CHECK_ZERO(n.pid);
	CHECK_OK(core(CREATE, n.pid, TGID, 0));
	CHECK_TAGGED(n.pid);
	c = COOKIE(n.pid);
	CHECK_ALL(&n, c);
	CHECK_SELF(&n, c);
	CHECK_OK(core(SHARE_FROM, n.tid[0], THREAD, 0));
	CHECK_IS(0, c);
	CHECK_OK(core(CREATE, 0, THREAD, 0));
	c = MINE();
	CHECK_OK(core(SHARE_TO, n.pid, THREAD, 0));
	CHECK_IS(n.pid, c);
	CHECK_OK(core(CREATE, 0, PGID, 0));
	c = MINE();
	CHECK_ALL(&n, c);
	return true;
}

/* ----- Running ----- */

struct test {
	const char *name;
	bool (*fn)(void);
};

#define TEST(n) { #n, test_##n }

static const struct test tests[] = {
	TEST(get_untagged_zero),
	TEST(create_pgid),
	TEST(create_tgid),
	TEST(share_to_pid),
	TEST(share_from_thread),
	TEST(share_to_pgid),
	TEST(cmd_max_einval),
	TEST(create_tgid_by_tid),
	TEST(create_pid),
	TEST(create_pgid_other_group),
	TEST(create_new_each_time),
	TEST(share_to_tgid),
	TEST(share_to_untagged_clears),
	TEST(share_from_untagged_clears),
	TEST(share_from_scope_einval),
	TEST(get_shared_equal),
	TEST(get_distinct_differ),
	TEST(get_scope_einval),
	TEST(get_misaligned_einval),
	TEST(get_bad_address_efault),
	TEST(arg5_einval),
	TEST(bad_cmd_einval),
	TEST(bad_scope_einval),
	TEST(negative_pid_einval),
	TEST(unknown_pid_esrch),
	TEST(errno_precedence),
	TEST(args_int_width),
	TEST(pid_zero_is_caller),
	TEST(fork_inherits),
	TEST(pthread_inherits),
	TEST(pthread_inherits_creator_thread),
	TEST(exec_keeps),
	TEST(child_keeps_after_parent_changes),
	TEST(cookie_outlives_creator),
	TEST(perm_nobody_get_root),
	TEST(perm_nobody_create_root),
	TEST(perm_nobody_share_root),
	TEST(perm_group_all_or_nothing),
	TEST(perm_nobody_own_tasks),
	TEST(perm_nondumpable_eperm),
	TEST(perm_target_saved_uid),
	TEST(perm_target_more_caps),
	TEST(perm_real_uid_decides),
	TEST(perm_root_on_anyone),
};

static const struct test *current;

/* Each test in a process group of its own: group scopes stay inside it. */
static bool isolated(void)
{
	CHECK(!setpgid(0, 0), "setpgid: %s", strerror(errno));
	return current->fn();
}

int main(int argc, char **argv)
{
	char name[128];
	int i;

	if (argc == 2 && !strcmp(argv[1], "--print-cookie")) {
		u64 c;
		int err = get_cookie(0, &c);

		if (err) {
			printf("error %s\n", ename(err));
			return 1;
		}
		printf("cookie %llx\n", c);
		return 0;
	}
	if (argc != 2 || !argv[1][0] || argv[1][0] == '-') {
		fprintf(stderr, "usage: prctl_parity BACKEND\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		current = &tests[i];
		snprintf(name, sizeof(name), "prctl_%s_%s", argv[1],
			 tests[i].name);
		run(name, isolated);
	}
	return nr_failed ? 1 : 0;
}
