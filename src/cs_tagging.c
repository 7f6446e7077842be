// SPDX-License-Identifier: GPL-2.0-only
/*
 * Install the tagging programs with pinned links, and keep the pin
 * directory safe. See cs_tagging.h and bpf/tagging.bpf.c.
 *
 * A pinned link holds its program attached after the process that made it
 * is gone, so per-task cookies keep being given through prctl and inherited
 * on fork while no scheduler runs. A new instance attaches its own
 * programs first and then renames its pins over the old ones, which
 * detaches the old programs: there is no moment without a handler.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "coresched.h"
#include "cs_btf.h"
#include "cs_common.h"
#include "cs_features.h"
#include "cs_tagging.h"

typedef __u8 u8;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
#include "tagging.skel.h"

/* Owned by root and writable by nobody else? */
static bool safe_owner_mode(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int cs_pin_dir_secure(char *err, size_t len)
{
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int fd;

	if (mkdir(CS_PIN_DIR, 0700) && errno != EEXIST)
		return cs_fail(err, len, "cannot create %s: %s", CS_PIN_DIR,
			    strerror(errno));
	fd = open(CS_PIN_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return cs_fail(err, len,
			    "%s is not a directory (%s); remove it: rm -rf %s",
			    CS_PIN_DIR, strerror(errno), CS_PIN_DIR);
	}
	if (!safe_owner_mode(&st)) {
		close(fd);
		return cs_fail(err, len,
			    "%s is owned by uid %u with mode %04o: someone else may have planted or may remove the tags; it must be root's and writable only by root. Check who made it, then: rm -rf %s",
			    CS_PIN_DIR, st.st_uid, st.st_mode & 07777,
			    CS_PIN_DIR);
	}
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return cs_fail(err, len, "cannot read %s: %s", CS_PIN_DIR,
			    strerror(errno));
	}
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    S_ISLNK(st.st_mode) || !safe_owner_mode(&st)) {
			closedir(dir);
			return cs_fail(err, len,
				    "%s/%s is not root's or is writable by others (uid %u, mode %04o): refusing to trust it; check who made it, then: rm -rf %s",
				    CS_PIN_DIR, de->d_name, st.st_uid,
				    st.st_mode & 07777, CS_PIN_DIR);
		}
	}
	closedir(dir);
	return 0;
}

int cs_pin_over(struct bpf_link *link, const char *name, char *err, size_t len)
{
	char path[256], tmp[272];
	int ret;

	/* bpffs refuses names with a dot. */
	snprintf(path, sizeof(path), "%s/%s", CS_PIN_DIR, name);
	snprintf(tmp, sizeof(tmp), "%s/new_%s", CS_PIN_DIR, name);
	unlink(tmp);
	ret = bpf_link__pin(link, tmp);
	if (ret)
		return cs_fail(err, len, "cannot pin %s: %s", tmp, strerror(-ret));
	if (rename(tmp, path)) {
		ret = errno;
		unlink(tmp);
		return cs_fail(err, len, "cannot replace %s: %s", path,
			    strerror(ret));
	}
	return 0;
}

/* Remove the pin @name, if any: its link detaches. 0, or -1 with a message. */
static int cs_unpin(const char *name, char *err, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", CS_PIN_DIR, name);
	if (unlink(path) && errno != ENOENT)
		return cs_fail(err, len, "cannot remove %s: %s", path,
			       strerror(errno));
	return 0;
}

/*
 * What the kernel was built with: kprobe override, its own core
 * scheduling, BPF LSM support (*@lsm_built; whether BPF LSM programs
 * really run is probed once they are loaded, probe_bpf_lsm()). A probe
 * that cannot answer is an error, never a guess: guessing "no own core
 * scheduling" would drop the backstop. 0, or -1 with a message.
 */
static int probe_kernel(struct cs_features *f, bool *lsm_built, char *err,
			size_t len)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int ret;

	if (!btf)
		return cs_fail(err, len,
			       "cannot read the kernel's BTF (/sys/kernel/btf/vmlinux): %s; the kernel needs CONFIG_DEBUG_INFO_BTF",
			       strerror(errno));
	f->kernel_core =
		cs_btf_has(btf, "task_struct", BTF_KIND_STRUCT, "core_cookie");
	*lsm_built = cs_btf_has(btf, "bpf_lsm_task_alloc", BTF_KIND_FUNC, NULL);
	btf__free(btf);
	ret = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
				      BPF_FUNC_override_return, NULL);
	if (ret < 0)
		return cs_fail(err, len,
			       "cannot probe whether kprobes may override a return value: %s",
			       strerror(-ret));
	f->override = ret == 1;
	return 0;
}

/*
 * Do BPF LSM programs run? Attaching one succeeds even when "bpf" is not
 * among the active LSMs, and then it never runs: call prctl() with an
 * option no kernel has, and see whether the backstop (attached, not yet
 * pinned) saw it.
 */
static bool probe_bpf_lsm(struct tagging *skel)
{
	skel->bss->lsm_probe_seen = 0;
	skel->bss->probe_tgid = getpid();
	prctl(CS_LSM_PROBE, 0, 0, 0, 0); /* EINVAL from the kernel */
	skel->bss->probe_tgid = 0;
	return skel->bss->lsm_probe_seen;
}

/* Attach what @plan asks for; NULL links for what it does not. */
static int attach_plan(struct tagging *skel, const struct cs_tagging_plan *plan,
		       struct bpf_link **prctl, struct bpf_link **fork,
		       char *err, size_t len)
{
	if (plan->handler) {
		*prctl = bpf_program__attach(skel->progs.cs_prctl);
		if (!*prctl)
			return cs_fail(err, len,
				       "cannot attach the prctl(PR_SCHED_CORE) handler to the prctl syscall: %s; the kernel needs CONFIG_KPROBES, CONFIG_FUNCTION_ERROR_INJECTION and CONFIG_BPF_KPROBE_OVERRIDE",
				       strerror(errno));
	}
	*fork = bpf_program__attach(plan->inherit_tp ?
					    skel->progs.cs_inherit_tp :
					    skel->progs.cs_inherit);
	if (!*fork)
		return cs_fail(err, len,
			       "cannot attach the fork hook (%s): %s; the kernel needs %s",
			       plan->inherit_tp ? "tracepoint task_newtask" :
						  "LSM task_alloc",
			       strerror(errno),
			       plan->inherit_tp ? "CONFIG_BPF_EVENTS" :
						  "CONFIG_BPF_LSM");
	return 0;
}

#define PR_SCHED_CORE_GET 0
#define PR_SCHED_CORE_SHARE_TO 2
#define ENGAGED_WAIT_MS 5000 /* the kernel disables it from a work item */

/* How many CPUs have the kernel's own core scheduling enabled, or -errno. */
static int kernel_core_engaged(struct tagging *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	int ret = bpf_prog_test_run_opts(
		bpf_program__fd(skel->progs.cs_kernel_core_engaged), &run);

	return ret ? -errno : (int)run.retval;
}

/*
 * Give every task that holds a cookie of the kernel's own core scheduling
 * one of ours (cs_adopt, one per kernel cookie), make the kernel drop its
 * cookies, and wait until it has disabled its core scheduling: attaching a
 * sched_ext scheduler beside it hung the test guest. Returns how many
 * tasks were adopted, or -1 with a message.
 */
static int adopt_kernel_cookies(struct tagging *skel, char *err, size_t len)
{
	unsigned long long mine = 0, cookie;
	int fd, tid, nomem, n = 0, bad = 0, i, engaged = 0;
	struct bpf_link *it;
	FILE *f;

	it = bpf_program__attach_iter(skel->progs.cs_adopt, NULL);
	if (!it)
		return cs_fail(err, len, "cannot walk the tasks: %s",
			       strerror(errno));
	fd = bpf_iter_create(bpf_link__fd(it));
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		bpf_link__destroy(it);
		return cs_fail(err, len, "cannot walk the tasks: %s",
			       strerror(errno));
	}
	/* Our handler lets our own prctl calls through to the kernel. */
	skel->bss->bypass_tgid = getpid();
	if (!prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0, 0, &mine) && mine) {
		bad = 1;
		cs_fail(err, len,
			"scx_coresched itself runs with a cookie of the kernel's core scheduling, so it cannot take the kernel's cookies away from other tasks; start it from a process without one");
	}
	while (!bad && fscanf(f, "%d %llu %d", &tid, &cookie, &nomem) == 3) {
		n++;
		/* From us (no cookie) to @tid: the kernel drops its cookie. */
		if (nomem ||
		    (prctl(PR_SCHED_CORE, PR_SCHED_CORE_SHARE_TO, tid, 0, 0) &&
		     errno != ESRCH)) {
			bad = 1;
			cs_fail(err, len,
				"cannot move task %d from the kernel's core scheduling to ours: %s",
				tid, nomem ? "out of memory" : strerror(errno));
		}
	}
	skel->bss->bypass_tgid = 0;
	fclose(f);
	bpf_link__destroy(it);
	if (bad)
		return -1;
	for (i = 0; i < ENGAGED_WAIT_MS / 10; i++) {
		engaged = kernel_core_engaged(skel);
		if (engaged <= 0)
			break;
		usleep(10000);
	}
	if (engaged < 0)
		return cs_fail(err, len,
			       "cannot tell whether the kernel's own core scheduling is enabled: %s",
			       strerror(-engaged));
	if (engaged > 0)
		return cs_fail(err, len,
			       "the kernel's own core scheduling is still enabled on %d CPUs; attaching a sched_ext scheduler beside it can hang the machine: find the tasks with cookies (coreschedctl list) and stop them",
			       engaged);
	return n;
}

/*
 * Fault injection for tests: SCX_CORESCHED_FAULT=fork-storage makes fork
 * inheritance without BPF LSM act as if the child's task storage could not
 * be created, fork-orphan as if cs_fork_orphan were full too. Unset or
 * empty: no fault. Anything else is an error.
 */
static int read_fault(__u32 *fault, char *err, size_t len)
{
	const char *v = getenv("SCX_CORESCHED_FAULT");

	*fault = 0;
	if (!v || !*v)
		return 0;
	if (!strcmp(v, "fork-storage"))
		*fault = CS_FAULT_FORK_STORAGE;
	else if (!strcmp(v, "fork-orphan"))
		*fault = CS_FAULT_FORK_STORAGE | CS_FAULT_FORK_ORPHAN;
	else
		return cs_fail(err, len,
			       "SCX_CORESCHED_FAULT=%s: unknown fault (fork-storage or fork-orphan)",
			       v);
	fprintf(stderr, "scx_coresched: test fault injected: %s\n", v);
	return 0;
}

/*
 * Load the tagging programs, probe the kernel, choose the plan and attach
 * what it asks for, with the backstop attached (unpinned) as early as the
 * kernel allows. Returns the loaded skeleton, or NULL with a message.
 */
static struct tagging *load_and_plan(bool smt_present, enum cs_prctl_want want,
				     int verbose, struct cs_tagging_plan *plan,
				     struct bpf_link **backstop, char *err,
				     size_t len)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = CS_PIN_DIR,
		    .kernel_log_level = verbose >= 2 ? 4 : 0);
	struct cs_features f = { 0 };
	struct tagging *skel;
	bool lsm_built = false;
	int ret;

	if (probe_kernel(&f, &lsm_built, err, len))
		return NULL;
	skel = tagging__open_opts(&opts);
	if (!skel) {
		cs_fail(err, len, "cannot open the tagging programs: %s",
			strerror(errno));
		return NULL;
	}
	skel->rodata->smt_present = smt_present;
	if (read_fault(&skel->rodata->fault, err, len))
		goto fail;
	/* Programs this kernel cannot load stay out. */
	bpf_program__set_autoload(skel->progs.cs_prctl,
				  f.override && want == CS_PRCTL_SERVE);
	bpf_program__set_autoload(skel->progs.cs_inherit, lsm_built);
	bpf_program__set_autoload(skel->progs.cs_prctl_backstop, lsm_built);
	ret = tagging__load(skel);
	if (ret) {
		cs_fail(err, len,
			"cannot load the tagging programs (%s); if %s holds maps of an older version, stop every scx_coresched and remove it: rm -rf %s (tags are lost)",
			strerror(-ret), CS_PIN_DIR, CS_PIN_DIR);
		goto fail;
	}
	f.bpf_lsm = false;
	if (lsm_built) {
		*backstop = bpf_program__attach_lsm(
			skel->progs.cs_prctl_backstop);
		if (!*backstop) {
			cs_fail(err, len,
				"cannot attach the prctl backstop (LSM task_prctl): %s",
				strerror(errno));
			goto fail;
		}
		f.bpf_lsm = probe_bpf_lsm(skel);
	}
	if (verbose)
		fprintf(stderr,
			"scx_coresched: kernel: kprobe override %s, BPF LSM %s, own core scheduling %s\n",
			f.override ? "yes" : "no",
			f.bpf_lsm ? "active" : lsm_built ? "built, not active" : "no",
			f.kernel_core ? "yes" : "no");
	if (cs_plan_tagging(&f, want, plan, err, len))
		goto fail;
	return skel;
fail:
	bpf_link__destroy(*backstop);
	*backstop = NULL;
	tagging__destroy(skel);
	return NULL;
}

/* Attach @prog, a hook every plan has, to *@link; 0 or -1 with a message. */
static int attach_hook(struct bpf_program *prog, struct bpf_link **link,
		       const char *what, char *err, size_t len)
{
	*link = bpf_program__attach(prog);
	if (!*link)
		return cs_fail(err, len, "cannot attach the %s: %s", what,
			       strerror(errno));
	return 0;
}

int cs_tagging_install(bool smt_present, enum cs_prctl_want want, int verbose,
		       int *adopted, struct cs_tagging_plan *plan, char *err,
		       size_t len)
{
	struct bpf_link *prctl = NULL, *fork = NULL, *backstop = NULL;
	struct bpf_link *rmdir = NULL, *exec = NULL;
	struct tagging *skel;
	int ret;

	skel = load_and_plan(smt_present, want, verbose, plan, &backstop, err,
			     len);
	if (!skel)
		return -1;
	ret = attach_plan(skel, plan, &prctl, &fork, err, len);
	if (!ret)
		ret = attach_hook(skel->progs.cs_cgroup_gone, &rmdir,
				  "cgroup removal hook (cgroup_rmdir)", err, len);
	if (!ret)
		ret = attach_hook(skel->progs.cs_exec_tp, &exec,
				  "exec hook (tracepoint sched_process_exec)",
				  err, len);
	if (!ret)
		ret = cs_pin_over(rmdir, CS_LINK_RMDIR, err, len);
	if (!ret)
		ret = cs_pin_over(exec, CS_LINK_EXEC, err, len);
	/* The backstop first: no moment with a handler but no backstop. */
	if (!ret)
		ret = plan->backstop ?
			      cs_pin_over(backstop, CS_LINK_BACKSTOP, err, len) :
			      cs_unpin(CS_LINK_BACKSTOP, err, len);
	if (!ret)
		ret = plan->handler ?
			      cs_pin_over(prctl, CS_LINK_PRCTL, err, len) :
			      cs_unpin(CS_LINK_PRCTL, err, len);
	if (!ret)
		ret = cs_pin_over(fork, CS_LINK_FORK, err, len);
	/* Pinned: the kernel keeps them attached after we let go. */
	if (!ret) {
		if (plan->handler)
			bpf_link__disconnect(prctl);
		if (plan->backstop)
			bpf_link__disconnect(backstop);
		bpf_link__disconnect(fork);
		bpf_link__disconnect(rmdir);
		bpf_link__disconnect(exec);
	}
	/* Our handler answers prctl from now on: no new kernel cookies. */
	if (!ret) {
		*adopted = adopt_kernel_cookies(skel, err, len);
		ret = *adopted < 0;
	}
	bpf_link__destroy(prctl);
	bpf_link__destroy(fork);
	bpf_link__destroy(backstop);
	bpf_link__destroy(rmdir);
	bpf_link__destroy(exec);
	tagging__destroy(skel);
	return ret ? -1 : 0;
}

int cs_tagging_uninstall(char *err, size_t len)
{
	struct dirent *de;
	char path[512];
	DIR *dir;

	if (cs_scheduler_running())
		return cs_fail(err, len,
			    "scx_coresched is running: stop it first, then uninstall");
	dir = opendir(CS_PIN_DIR);
	if (!dir)
		return errno == ENOENT ? 0 :
					 cs_fail(err, len, "cannot read %s: %s",
					      CS_PIN_DIR, strerror(errno));
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", CS_PIN_DIR, de->d_name);
		if (unlink(path)) {
			closedir(dir);
			return cs_fail(err, len, "cannot remove %s: %s", path,
				    strerror(errno));
		}
	}
	closedir(dir);
	if (rmdir(CS_PIN_DIR))
		return cs_fail(err, len, "cannot remove %s: %s", CS_PIN_DIR,
			    strerror(errno));
	return 0;
}

__u64 cs_fork_lost(void)
{
	int fd = cs_open_pinned_map(CS_MAP_FORK_STAT);
	struct cs_fork_stat st = { 0 };
	__u32 zero = 0;

	if (fd >= 0) {
		bpf_map_lookup_elem(fd, &zero, &st);
		close(fd);
	}
	return st.lost;
}

int cs_prune_cgroup_tags(void)
{
	int fd = cs_open_pinned_map(CS_MAP_CGRP), n = 0;
	__u64 key, next, *prev = NULL;

	if (fd < 0)
		return 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		if (cs_cgroup_exists(key) == 0 &&
		    !bpf_map_delete_elem(fd, &key)) {
			n++;
			continue; /* deleted: restart after the same key */
		}
		prev = &key;
	}
	close(fd);
	return n;
}
