// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_coresched tagging: per-task cookies kept with the task, given out
 * through prctl(PR_SCHED_CORE) exactly as the kernel's own core scheduling
 * does, so that util-linux coresched, cloud-hypervisor or crosvm work
 * unchanged. These programs are separate from the scheduler and their links
 * are pinned in bpffs: tags keep being given, inherited and kept while no
 * scheduler runs (a restart, a crash, an ejection), and the kernel's own
 * core scheduling never engages beside ours.
 *
 * 1. Storage. A task's cookie is a u64 in task storage (cs_task_cookie):
 *    it lives and dies with the task, so a reused PID never inherits a dead
 *    tenant's cookie. New cookies come from a counter in cs_tag_seq (which
 *    only BPF writes), written by cs_task_cookie_make() (coresched.h:
 *    scrambled, never reused, bit 63 clear); cgroup cookies have bit 63
 *    set.
 *
 * 2. Inheritance. The task_alloc LSM hook runs in copy_process() in the
 *    parent (current), before the child can run: the child gets the
 *    cookie of the thread that forked or cloned it, as upstream's
 *    sched_core_fork() does. If its storage cannot be allocated the fork
 *    fails with ENOMEM (fail closed) and cs_tag_seq counts it. exec keeps it.
 *    Where BPF LSM programs do not run, the task_newtask tracepoint does
 *    the same; the children it cannot tag are recorded (cs_fork_orphan)
 *    and have the recorded cookie until the scheduler stores it, and
 *    those it cannot record are marked lost (cs_fork_lost) and run alone
 *    (src/cs_features.c has the table of what runs on which kernel).
 *
 * 3. prctl. A kprobe on the prctl syscall answers PR_SCHED_CORE itself and
 *    overrides the syscall's return value (bpf_override_return), so the
 *    kernel's sched_core_share_pid() does not run. A call the kprobe does
 *    not see (a 32-bit prctl enters through another syscall entry point)
 *    is refused with EPERM by an LSM backstop on task_prctl, and so is
 *    every call when the handler is not attached (--prctl refuse, or a
 *    kernel without CONFIG_BPF_KPROBE_OVERRIDE), where BPF LSM runs;
 *    without it the kernel answers (EINVAL, as it then has no core
 *    scheduling: cs_features.c). A BPF LSM program cannot
 *    answer the call itself: its 0 means "not handled", after which the
 *    kernel's own code runs. The answer follows sched_core_share_pid()
 *    check by check:
 *
 *      ENODEV  the machine has no SMT
 *      EINVAL  scope > process group, command >= PR_SCHED_CORE_MAX,
 *              pid < 0, or a 5th argument to anything but GET
 *      ESRCH   no task has that pid in the caller's PID namespace
 *      EPERM   the caller may not ptrace-read the task (or, for a group
 *              scope, any task of the group); nothing is changed then
 *      GET     scope thread and an 8-byte aligned address, else EINVAL;
 *              writes the task's cookie (0: none), EFAULT if it cannot
 *      CREATE  a fresh cookie for the task, its thread group or its
 *              process group
 *      SHARE_TO    the caller's cookie, to the task or its group
 *      SHARE_FROM  the task's cookie, to the caller (scope thread only)
 *
 *    Example: a VMM thread 100 calls prctl(PR_SCHED_CORE, CREATE, 0,
 *    THREAD_GROUP, 0). Its pid namespace is the initial one, pid 0 is the
 *    caller; threads 100, 101 and 102 share its thread group and all pass
 *    the permission check; cs_tag_seq.nr_cookies goes 41 -> 42 and the
 *    three threads get cs_task_cookie_make(42) = 0x1abdbeacecedebaf
 *    (coresched.h), then cs_ctl.tag_gen is bumped. A vCPU thread
 *    it clones afterwards gets the same cookie at task_alloc. prctl returns 0.
 *
 *    The cookie a task is given or reports is its effective one: its own,
 *    else its cgroup's (see cookie.bpf.h), so SHARE_FROM a task of a
 *    tagged cgroup joins that cgroup's trust domain.
 *
 * 4. Adoption. Tasks that took cookies of the kernel's own core scheduling
 *    before these programs were installed keep their trust domains: the
 *    loader walks every task once (cs_adopt), gives each kernel cookie one
 *    new cookie of ours, then has the kernel drop its cookies (prctl
 *    SHARE_TO from a cookie-less loader, let through by bypass_tgid) and
 *    waits until no runqueue has core scheduling enabled
 *    (cs_kernel_core_engaged) before a scheduler attaches: sched_ext with
 *    the kernel's core scheduling engaged hung the test guest.
 *
 * The permission rule is upstream's __ptrace_may_access() for
 * PTRACE_MODE_READ_REALCREDS: same thread group; or the caller's real uid
 * and gid equal the target's real, effective and saved ones; or the caller
 * has CAP_SYS_PTRACE over the target's user namespace. A target whose mm
 * is not dumpable, or (commoncap) that holds permitted capabilities the
 * caller lacks, also needs that capability. Other LSMs' ptrace checks
 * (Yama, SELinux) are not consulted. Group scopes are walked with the task iterator
 * without the tasklist lock: a task forked during the walk inherits from
 * its parent, before or after the change.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "coresched.h"
#include "compat.bpf.h"
#include "cookie.bpf.h"

char _license[] SEC("license") = "GPL";

/* include/uapi/linux/prctl.h */
#define PR_SCHED_CORE 62
#define PR_SCHED_CORE_GET 0
#define PR_SCHED_CORE_CREATE 1
#define PR_SCHED_CORE_SHARE_TO 2
#define PR_SCHED_CORE_SHARE_FROM 3
#define PR_SCHED_CORE_MAX 4
#define SCOPE_THREAD 0 /* PIDTYPE_PID */
#define SCOPE_THREAD_GROUP 1 /* PIDTYPE_TGID */
#define SCOPE_PROCESS_GROUP 2 /* PIDTYPE_PGID */

#define CAP_SYS_PTRACE 19
#define SUID_DUMP_USER 1
#define MMF_DUMPABLE_MASK 3
#define MAX_USERNS_DEPTH 33 /* kernel/user_namespace.c: 32 levels below init */
#define MAX_PIDNS_LEVEL 32 /* MAX_PID_NS_LEVEL */

/* The open-coded task iterator (kernel/bpf/task_iter.c, Linux 6.7+). */
int bpf_iter_task_new(struct bpf_iter_task *it, struct task_struct *task,
		      unsigned int flags) __ksym;
struct task_struct *bpf_iter_task_next(struct bpf_iter_task *it) __ksym;
void bpf_iter_task_destroy(struct bpf_iter_task *it) __ksym;

/* Set by the loader: does any core have more than one thread? */
const volatile bool smt_present = true;

/* Set by the loader from SCX_CORESCHED_FAULT, for tests: CS_FAULT_*. */
const volatile u32 fault;

/* Tasks whose prctl goes to the kernel (the loader's own, while it adopts). */
u32 bypass_tgid;

/*
 * The loader's probe that BPF LSM programs really run: attaching one
 * succeeds even when "bpf" is not among the active LSMs, and it then
 * never runs. The loader (probe_tgid) calls prctl(CS_LSM_PROBE), an
 * option no kernel has; the backstop notes it and lets the kernel refuse.
 */
u32 probe_tgid;
u32 lsm_probe_seen;

/* How the last calls went, for tests and --verbose. */
u64 nr_prctl_calls;
u64 nr_prctl_errors;
u64 nr_prctl_backstops; /* calls the kprobe missed, refused by the LSM */

static struct task_struct *current_task(void)
{
	return bpf_get_current_task_btf();
}

/*
 * The struct pid that names @p for @type, as the kernel's task_pid_type():
 * one value for every task in the same thread (group, process group).
 */
static struct pid *pid_of_type(struct task_struct *p, int type)
{
	if (type == SCOPE_THREAD)
		return BPF_CORE_READ(p, thread_pid);
	if (type == SCOPE_THREAD_GROUP)
		return BPF_CORE_READ(p, signal, pids[PIDTYPE_TGID]);
	return BPF_CORE_READ(p, signal, pids[PIDTYPE_PGID]);
}

/* The number of @pid in namespace @ns at @level, or 0 if not visible there. */
static s32 pid_nr_in(struct pid *pid, struct pid_namespace *ns, u32 level)
{
	struct upid up = {};
	void *at;

	if (!pid || BPF_CORE_READ(pid, level) < level ||
	    level >= MAX_PIDNS_LEVEL)
		return 0;
	at = (void *)pid + bpf_core_field_offset(struct pid, numbers) +
	     level * bpf_core_type_size(struct upid);
	if (bpf_probe_read_kernel(&up, sizeof(up), at))
		return 0;
	return up.ns == ns ? up.nr : 0;
}

/*
 * Does the caller hold @cap over user namespace @ns? The kernel's
 * cap_capable(): walk @ns up to the caller's namespace, where the
 * capability must be effective; the owner of a child namespace of the
 * caller's has every capability in it.
 */
static bool has_cap_over(const struct cred *cred, struct user_namespace *ns,
			 int cap)
{
	struct user_namespace *mine = BPF_CORE_READ(cred, user_ns);
	int i;

	for (i = 0; i < MAX_USERNS_DEPTH && ns; i++) {
		if (ns == mine)
			return BPF_CORE_READ(cred, cap_effective.val) &
			       (1ULL << cap);
		if (BPF_CORE_READ(ns, level) <= BPF_CORE_READ(mine, level))
			return false;
		if (BPF_CORE_READ(ns, parent) == mine &&
		    BPF_CORE_READ(ns, owner.val) == BPF_CORE_READ(cred, euid.val))
			return true;
		ns = BPF_CORE_READ(ns, parent);
	}
	return false;
}

/*
 * __ptrace_may_access(@t, PTRACE_MODE_READ_REALCREDS) by the caller. A
 * global function: the verifier checks it once, not at each of its three
 * call sites (two in task walks). For the prctl handler it processed
 * 83,592 instructions inlined and 16,951 as a global function (3.9 s and
 * 0.35-0.48 s of a 2x2 TCG guest's load).
 */
__noinline int may_access(struct task_struct *cur __arg_trusted,
			  struct task_struct *t __arg_trusted)
{
	const struct cred *cred = BPF_CORE_READ(cur, cred);
	const struct cred *tcred = BPF_CORE_READ(t, real_cred);
	u32 uid = BPF_CORE_READ(cred, uid.val), gid = BPF_CORE_READ(cred, gid.val);
	struct mm_struct *mm;

	if (BPF_CORE_READ(cur, signal) == BPF_CORE_READ(t, signal))
		return true;
	if (!(uid == BPF_CORE_READ(tcred, euid.val) &&
	      uid == BPF_CORE_READ(tcred, suid.val) &&
	      uid == BPF_CORE_READ(tcred, uid.val) &&
	      gid == BPF_CORE_READ(tcred, egid.val) &&
	      gid == BPF_CORE_READ(tcred, sgid.val) &&
	      gid == BPF_CORE_READ(tcred, gid.val)) &&
	    !has_cap_over(cred, BPF_CORE_READ(tcred, user_ns), CAP_SYS_PTRACE))
		return false;
	mm = BPF_CORE_READ(t, mm);
	if (mm && (BPF_CORE_READ(mm, flags) & MMF_DUMPABLE_MASK) != SUID_DUMP_USER &&
	    !has_cap_over(cred, BPF_CORE_READ(mm, user_ns), CAP_SYS_PTRACE))
		return false;
	/* commoncap: the target may not hold capabilities the caller lacks. */
	if (BPF_CORE_READ(cred, user_ns) == BPF_CORE_READ(tcred, user_ns) &&
	    !(BPF_CORE_READ(tcred, cap_permitted.val) &
	      ~BPF_CORE_READ(cred, cap_permitted.val)))
		return true;
	return has_cap_over(cred, BPF_CORE_READ(tcred, user_ns), CAP_SYS_PTRACE);
}

/* What one prctl call asks for, and what the walks found. */
struct core_req {
	u32 cmd;
	s32 pid;
	u32 type;
	u64 uaddr;
	struct pid *grp; /* the target's pid of @type */
	u64 target_cookie; /* the target's effective cookie */
	u64 cookie; /* the cookie to give */
	bool found;
	bool denied;
	bool nomem;
};

/*
 * Find the target: pid 0 is the caller, otherwise the task with that pid
 * in the caller's PID namespace (find_task_by_vpid()).
 */
static void find_target(struct core_req *rq, struct task_struct *cur)
{
	struct pid *mine = BPF_CORE_READ(cur, thread_pid);
	u32 level = BPF_CORE_READ(mine, level);
	struct pid_namespace *ns = NULL;
	struct upid up = {};
	struct task_struct *t;

	if (rq->pid == 0) {
		rq->found = true;
		rq->grp = pid_of_type(cur, rq->type);
		rq->target_cookie = task_cookie(cur);
		rq->denied = !may_access(cur, cur);
		return;
	}
	if (level < MAX_PIDNS_LEVEL &&
	    !bpf_probe_read_kernel(&up, sizeof(up),
				   (void *)mine +
					   bpf_core_field_offset(struct pid, numbers) +
					   level * bpf_core_type_size(struct upid)))
		ns = up.ns;
	bpf_for_each(task, t, NULL, BPF_TASK_ITER_ALL_THREADS) {
		if (pid_nr_in(BPF_CORE_READ(t, thread_pid), ns, level) != rq->pid)
			continue;
		rq->found = true;
		rq->grp = pid_of_type(t, rq->type);
		rq->target_cookie = task_cookie(t);
		rq->denied = !may_access(cur, t);
		break;
	}
}

/*
 * Check every task of the target's group, and make sure each has storage,
 * so that the second walk cannot fail half-way (upstream also checks all
 * before changing any).
 */
static void check_group(struct core_req *rq, struct task_struct *cur)
{
	struct task_struct *t;

	bpf_for_each(task, t, NULL, BPF_TASK_ITER_ALL_THREADS) {
		if (pid_of_type(t, rq->type) != rq->grp)
			continue;
		if (!may_access(cur, t)) {
			rq->denied = true;
			break;
		}
		if (!bpf_task_storage_get(&cs_task_cookie, t, NULL,
					  BPF_LOCAL_STORAGE_GET_F_CREATE)) {
			rq->nomem = true;
			break;
		}
	}
}

static void set_group(struct core_req *rq)
{
	struct task_struct *t;
	struct cs_tag *tag;

	bpf_for_each(task, t, NULL, BPF_TASK_ITER_ALL_THREADS) {
		if (pid_of_type(t, rq->type) != rq->grp)
			continue;
		tag = bpf_task_storage_get(&cs_task_cookie, t, NULL, 0);
		if (tag)
			set_own_cookie(t, tag, rq->cookie);
	}
}

/*
 * A cookie never handed out before: the n-th, scrambled (so that ids do
 * not look like small numbers that tools may confuse), bit 63 clear.
 */
static u64 new_cookie(void)
{
	struct cs_tag_seq *seq = tag_seq();
	u64 n;

	if (!seq)
		return 0;
	n = __sync_add_and_fetch(&seq->nr_cookies, 1);
	return cs_task_cookie_make(n);
}

static void tags_changed(void)
{
	struct cs_ctl *ctl = tag_ctl();

	if (ctl)
		__sync_fetch_and_add(&ctl->tag_gen, 1);
}

/* sched_core_share_pid(), answered from our tags. Returns 0 or -errno. */
static long sched_core_prctl(struct core_req *rq)
{
	struct task_struct *cur = current_task();
	struct cs_tag *tag;

	if (!smt_present)
		return -ENODEV;
	if (rq->type > SCOPE_PROCESS_GROUP || rq->cmd >= PR_SCHED_CORE_MAX ||
	    rq->pid < 0 || (rq->cmd != PR_SCHED_CORE_GET && rq->uaddr))
		return -EINVAL;
	/* SHARE_FROM and GET act on the target thread itself. */
	find_target(rq, cur);
	if (!rq->found)
		return -ESRCH;
	if (rq->denied)
		return -EPERM;

	switch (rq->cmd) {
	case PR_SCHED_CORE_GET:
		if (rq->type != SCOPE_THREAD || (rq->uaddr & 7))
			return -EINVAL;
		if (bpf_probe_write_user((void *)rq->uaddr, &rq->target_cookie,
					 sizeof(u64)))
			return -EFAULT;
		return 0;
	case PR_SCHED_CORE_CREATE:
		rq->cookie = new_cookie();
		if (!rq->cookie)
			return -ENOMEM;
		break;
	case PR_SCHED_CORE_SHARE_TO:
		rq->cookie = task_cookie(cur);
		break;
	case PR_SCHED_CORE_SHARE_FROM:
		if (rq->type != SCOPE_THREAD)
			return -EINVAL;
		tag = bpf_task_storage_get(&cs_task_cookie, cur, NULL,
					   BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!tag)
			return -ENOMEM;
		set_own_cookie(cur, tag, rq->target_cookie);
		tags_changed();
		return 0;
	}

	check_group(rq, cur);
	if (rq->denied)
		return -EPERM;
	if (rq->nomem)
		return -ENOMEM;
	set_group(rq);
	tags_changed();
	return 0;
}

SEC("ksyscall/prctl")
int BPF_KSYSCALL(cs_prctl, int option, unsigned long arg2, unsigned long arg3,
		 unsigned long arg4, unsigned long arg5)
{
	/* The kernel passes these on as unsigned int, pid_t and enum pid_type. */
	struct core_req rq = {
		.cmd = (u32)arg2,
		.pid = (s32)arg3,
		.type = (u32)arg4,
		.uaddr = arg5,
	};
	long ret;

	if (option != PR_SCHED_CORE)
		return 0;
	if (bypass_tgid && (bpf_get_current_pid_tgid() >> 32) == bypass_tgid)
		return 0;
	ret = sched_core_prctl(&rq);
	__sync_fetch_and_add(&nr_prctl_calls, 1);
	if (ret)
		__sync_fetch_and_add(&nr_prctl_errors, 1);
	bpf_override_return(ctx, ret);
	return 0;
}

/*
 * The backstop: this LSM hook runs inside prctl() only if the kprobe did
 * not answer the call: a 32-bit or int 0x80 prctl (another syscall entry),
 * or a kprobe skipped because another BPF program was running on this CPU.
 * Then the kernel's own core scheduling would serve it, and it must never
 * engage beside ours: refuse (EPERM), except for the loader's adoption.
 */
SEC("lsm/task_prctl")
int BPF_PROG(cs_prctl_backstop, int option, unsigned long arg2,
	     unsigned long arg3, unsigned long arg4, unsigned long arg5)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (option == CS_LSM_PROBE && probe_tgid && tgid == probe_tgid)
		lsm_probe_seen = 1;
	if (option != PR_SCHED_CORE)
		return 0;
	if (bypass_tgid && tgid == bypass_tgid)
		return 0;
	__sync_fetch_and_add(&nr_prctl_backstops, 1);
	return -EPERM;
}

#define DFL_HIERARCHY_ID 0 /* cgroup v2 */

/*
 * A removed cgroup v2 loses its tag, here and not in the scheduler: this
 * runs for every cgroup (with or without the cpu controller) and while no
 * scheduler runs. Cgroup ids are never reused; this frees room.
 */
SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(cs_cgroup_gone, struct cgroup *cgrp, const char *path)
{
	u64 id;

	if (BPF_CORE_READ(cgrp, root, hierarchy_id) != DFL_HIERARCHY_ID)
		return 0;
	id = BPF_CORE_READ(cgrp, kn, id);
	if (!bpf_map_delete_elem(&cs_cgrp_tag, &id))
		tags_changed();
	return 0;
}

/* With BPF LSM: in copy_process(), where a failure fails the fork. */
SEC("lsm/task_alloc")
int BPF_PROG(cs_inherit, struct task_struct *task, unsigned long clone_flags)
{
	struct cs_tag_seq *seq;

	if (!inherit_cookie(current_task(), task))
		return 0;
	seq = tag_seq();
	if (seq)
		__sync_fetch_and_add(&seq->inherit_failures, 1);
	return -ENOMEM;
}

/*
 * Without BPF LSM: the task_newtask tracepoint, in copy_process() for
 * every child (fork, clone, io_uring and vhost workers), before it can be
 * woken. It cannot fail the fork, and its task-storage helper can also
 * fail when another task on this CPU is inside a task-storage operation.
 * A child it could not tag is recorded in cs_fork_orphan (preallocated),
 * and the scheduler gives it its cookie before it runs under sched_ext
 * (coresched.bpf.c, init_task); while a scheduler runs, its init_task
 * has already tagged the child (and can fail the fork). A child it could
 * not record either (the map is full) is marked in cs_fork_lost, which
 * cannot fail: its cookie is CS_COOKIE_LOST and it runs alone on its
 * core, as do the children it forks, until it exits. Small window:
 * the child is already findable by pid here, so a SHARE_TO racing with
 * this hook can be overwritten by the inherited cookie.
 */
SEC("tp_btf/task_newtask")
int BPF_PROG(cs_inherit_tp, struct task_struct *task, u64 clone_flags)
{
	struct cs_orphan o = { .start_ns = task->start_time };
	struct cs_fork_stat *st = fork_stat();
	u32 tid = task->pid;

	/* A record or mark left on this tid by a dead owner is not ours. */
	if (fork_trouble()) {
		bpf_map_delete_elem(&cs_fork_orphan, &tid);
		fork_lost_mark(tid, false);
	}
	o.cookie = own_cookie(current_task());
	if (!o.cookie)
		return 0;
	if (o.cookie == CS_COOKIE_LOST) { /* lost like its parent */
		fork_lost_mark(tid, true);
		return 0;
	}
	if (!(fault & CS_FAULT_FORK_STORAGE) &&
	    !inherit_cookie(current_task(), task))
		return 0;
	if (!st)
		return 0; /* cannot happen: an array's only element */
	/* Counted first: own_cookie() looks only once a counter is set. */
	__sync_fetch_and_add(&st->orphans, 1);
	if ((fault & CS_FAULT_FORK_ORPHAN) ||
	    bpf_map_update_elem(&cs_fork_orphan, &tid, &o, BPF_ANY)) {
		/* Fail closed: the mark cannot fail. */
		__sync_fetch_and_add(&st->lost, 1);
		__sync_fetch_and_sub(&st->orphans, 1);
		fork_lost_mark(tid, true);
	}
	return 0;
}

/*
 * An exec from a thread other than the leader: de_thread() gives it the
 * leader's tid and start time (exchange_tids()). Its fork record or mark,
 * kept by tid, moves with it; the leader's, on that tid, goes with the
 * leader. Attached with task_newtask.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(cs_exec_tp, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	struct cs_fork_stat *st = fork_stat();
	u32 old = old_pid, tid = p->pid;
	struct cs_orphan *o, moved;
	bool lost;

	if (old == tid || !fork_trouble())
		return 0;
	lost = fork_lost(old);
	o = bpf_map_lookup_elem(&cs_fork_orphan, &old);
	if (o) {
		moved.cookie = o->cookie;
		moved.start_ns = p->start_time;
		if (bpf_map_update_elem(&cs_fork_orphan, &tid, &moved,
					BPF_ANY)) {
			if (st)
				__sync_fetch_and_add(&st->lost, 1);
			lost = true;
		}
		bpf_map_delete_elem(&cs_fork_orphan, &old);
	} else {
		bpf_map_delete_elem(&cs_fork_orphan, &tid);
	}
	fork_lost_mark(tid, lost);
	fork_lost_mark(old, false);
	return 0;
}

/* Kernel cookie -> the cookie of ours it became, for one adoption walk. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, u64);
	__type(value, u64);
} adopted SEC(".maps");

/*
 * One line "tid cookie" per task that holds a cookie of the kernel's own
 * core scheduling; the task gets the cookie of ours that stands for it.
 */
SEC("iter/task")
int cs_adopt(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	u64 kc, id, *ours;
	struct cs_tag *tag;

	if (!t || !bpf_core_field_exists(t->core_cookie))
		return 0;
	kc = BPF_CORE_READ(t, core_cookie);
	if (!kc)
		return 0;
	ours = bpf_map_lookup_elem(&adopted, &kc);
	if (!ours) {
		id = new_cookie();
		if (!id)
			return 0;
		bpf_map_update_elem(&adopted, &kc, &id, BPF_NOEXIST);
		ours = bpf_map_lookup_elem(&adopted, &kc);
		if (!ours)
			return 0;
	}
	tag = bpf_task_storage_get(&cs_task_cookie, t, NULL,
				   BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (tag)
		set_own_cookie(t, tag, *ours);
	BPF_SEQ_PRINTF(seq, "%d %llu %d\n", t->pid, *ours, tag ? 0 : -ENOMEM);
	return 0;
}

extern const struct rq runqueues __ksym __weak;

/* How many CPUs' runqueues have the kernel's core scheduling enabled. */
SEC("syscall")
int cs_kernel_core_engaged(void *ctx)
{
	const struct rq *rq;
	int cpu, n = 0;

	if (!bpf_core_field_exists(struct rq, core_enabled))
		return 0;
	bpf_for(cpu, 0, 8192) {
		rq = bpf_per_cpu_ptr(&runqueues, cpu);
		if (!rq)
			break;
		if (BPF_CORE_READ(rq, core_enabled))
			n++;
	}
	return n;
}
