// SPDX-License-Identifier: GPL-2.0-only
/*
 * coresched-audit: loading its BPF side (bpf/audit.bpf.c) for the chosen
 * cookie source. ours reuses the tag maps scx_coresched pins; tenant fills
 * a private map from --tenant; upstream needs CONFIG_SCHED_CORE.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cs_audit.h"
#include "cs_btf.h"
#include "cs_common.h"

#include "audit.skel.h"

#define PROG CS_AUDIT_PROG

/* Core scheduling cookies exist (CONFIG_SCHED_CORE)? */
static bool kernel_has_core_cookie(void)
{
	return cs_kernel_has("task_struct", BTF_KIND_STRUCT, "core_cookie");
}

static int reuse_tag_map(struct bpf_map *map, const char *name,
			 enum bpf_map_type type, __u32 key_size,
			 __u32 value_size)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = cs_open_pinned_map(name), err;

	if (fd == -ENOENT) {
		fprintf(stderr,
			PROG ": " CS_PIN_DIR "/%s does not exist: the tag maps "
			"are created by scx_coresched; start it first (or use "
			"--source upstream or --tenant)\n", name);
		return fd;
	}
	if (fd < 0) {
		fprintf(stderr, PROG ": cannot open " CS_PIN_DIR "/%s: %s%s\n",
			name, strerror(-fd),
			fd == -EPERM || fd == -EACCES ? " (run as root)" : "");
		return fd;
	}
	err = bpf_map_get_info_by_fd(fd, &info, &len);
	if (err || info.type != type || info.key_size != key_size ||
	    info.value_size != value_size) {
		fprintf(stderr,
			PROG ": " CS_PIN_DIR "/%s is not a map of type %d with "
			"%u-byte keys and %u-byte values (left by another "
			"version? restart scx_coresched)\n",
			name, type, key_size, value_size);
		close(fd);
		return -EINVAL;
	}
	err = bpf_map__reuse_fd(map, fd);
	close(fd);
	if (err)
		fprintf(stderr, PROG ": cannot reuse " CS_PIN_DIR "/%s: %s\n",
			name, strerror(-err));
	return err;
}

/* Before loading: which maps the source uses. */
static int set_source(struct audit *skel, const struct cs_audit_opts *o)
{
	int err;

	if (o->source != OBS_SRC_OURS) {
		/* The fork maps are unused: keep them tiny. */
		err = bpf_map__set_max_entries(skel->maps.cs_fork_orphan, 1);
		err = err ?: bpf_map__set_max_entries(skel->maps.cs_fork_lost, 1);
		if (err)
			return err;
	}
	switch (o->source) {
	case OBS_SRC_UPSTREAM:
		if (!kernel_has_core_cookie()) {
			fprintf(stderr,
				PROG ": --source upstream needs core scheduling "
				"(CONFIG_SCHED_CORE), which this kernel lacks\n");
			return -EOPNOTSUPP;
		}
		/* The tag maps are unused: keep the hash tiny. */
		return bpf_map__set_max_entries(skel->maps.cs_cgrp_tag, 1);
	case OBS_SRC_TENANT:
		return bpf_map__set_max_entries(skel->maps.cs_cgrp_tag,
						CS_AUDIT_MAX_TENANTS);
	case OBS_SRC_OURS:
		break;
	}
	err = reuse_tag_map(skel->maps.cs_task_cookie, CS_MAP_TASK,
			    BPF_MAP_TYPE_TASK_STORAGE, sizeof(int),
			    sizeof(struct cs_tag));
	err = err ?: reuse_tag_map(skel->maps.cs_cgrp_tag, CS_MAP_CGRP,
				   BPF_MAP_TYPE_HASH, sizeof(__u64),
				   sizeof(struct cs_tag));
	err = err ?: reuse_tag_map(skel->maps.cs_fork_orphan, CS_MAP_ORPHAN,
				   BPF_MAP_TYPE_HASH, sizeof(__u32),
				   sizeof(struct cs_orphan));
	return err ?: reuse_tag_map(skel->maps.cs_fork_lost, CS_MAP_FORK_LOST,
				    BPF_MAP_TYPE_ARRAY, sizeof(__u32),
				    sizeof(__u64));
}

/* After loading: tenant i's cgroup gets cookie i + 1. */
static int fill_tenants(struct audit *skel, const struct cs_audit_opts *o)
{
	int i, err;

	for (i = 0; o->source == OBS_SRC_TENANT && i < o->nr_tenants; i++) {
		struct cs_tag tag = { .cookie = i + 1 };

		err = bpf_map__update_elem(skel->maps.cs_cgrp_tag,
					   &o->tenant[i].cgid, sizeof(__u64),
					   &tag, sizeof(tag), BPF_NOEXIST);
		if (err) {
			fprintf(stderr,
				PROG ": cannot map tenant %s's cgroup %s: %s\n",
				o->tenant[i].name, o->tenant[i].path,
				strerror(-err));
			return err;
		}
	}
	return 0;
}

static bool layout_matches(struct audit *skel)
{
	const struct btf *btf = bpf_object__btf(skel->obj);
	int id = btf ? btf__find_by_name_kind(btf, "obs_event", BTF_KIND_STRUCT)
		     : -1;

	return id > 0 && btf__resolve_size(btf, id) == sizeof(struct obs_event);
}

static void explain_load_error(int err)
{
	if (err == -EPERM || err == -EACCES)
		fprintf(stderr,
			PROG ": not allowed to load BPF programs (%s): run as "
			"root (CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN)\n",
			strerror(-err));
	else
		fprintf(stderr,
			PROG ": cannot load the BPF programs (%s): the kernel "
			"needs BTF (CONFIG_DEBUG_INFO_BTF) and the tracepoints "
			"sched_switch, sched_wakeup and sched_wakeup_new "
			"(-v shows libbpf's log)\n",
			strerror(-err));
}

/* Open and load with the forced idle probe or without it. */
static struct audit *try_open(const struct cs_audit_opts *o, bool forced,
			      int *err)
{
	struct audit *skel = audit__open();

	*err = 0;
	if (!skel) {
		fprintf(stderr, PROG ": cannot open the BPF object: %s\n",
			strerror(errno));
		return NULL;
	}
	if (!layout_matches(skel)) {
		fprintf(stderr, PROG ": struct obs_event differs between "
			"bpf/audit.bpf.c and include/cs_observe.h\n");
		goto fail;
	}
	skel->rodata->source = o->source;
	skel->rodata->trust_kthreads = o->trust_kthreads;
	bpf_program__set_autoload(skel->progs.obs_switch, forced);
	bpf_program__set_autoload(skel->progs.obs_switch_no_forced, !forced);
	bpf_program__set_autoload(skel->progs.obs_cpu_dead,
				  cs_kernel_has("cpuhp_report_idle_dead",
						BTF_KIND_FUNC, NULL));
	if (set_source(skel, o))
		goto fail;
	*err = audit__load(skel);
	if (*err || fill_tenants(skel, o))
		goto fail;
	return skel;
fail:
	audit__destroy(skel);
	return NULL;
}

struct audit *cs_audit_bpf_open(const struct cs_audit_opts *o, bool *forced)
{
	struct audit *skel;
	int err;

	*forced = true;
	skel = try_open(o, true, &err);
	if (skel || !err)
		return skel;
	/* Perhaps only runqueues is out of reach: try without it. */
	skel = try_open(o, false, &err);
	if (skel) {
		*forced = false;
		fprintf(stderr, PROG ": forced idle is not measured: this "
			"kernel does not give BPF the address of runqueues "
			"(CONFIG_KALLSYMS_ALL)\n");
	} else if (err) {
		explain_load_error(err);
	}
	return skel;
}

int cs_audit_bpf_attach(struct audit *skel)
{
	int err = audit__attach(skel);

	if (err)
		fprintf(stderr,
			PROG ": cannot attach to the tracepoints sched_switch, "
			"sched_wakeup and sched_wakeup_new: %s\n",
			strerror(-err));
	return err;
}

void cs_audit_bpf_detach(struct audit *skel)
{
	audit__detach(skel);
}

int cs_audit_bpf_events_fd(struct audit *skel)
{
	return bpf_map__fd(skel->maps.events);
}

__u64 cs_audit_bpf_lost(struct audit *skel)
{
	return skel->bss->lost_events;
}

void cs_audit_bpf_collect(struct audit *skel, struct cs_audit_result *r)
{
	struct bpf_program *prog;
	int i;

	r->bpf_ns = 0;
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (!bpf_prog_get_info_by_fd(fd, &info, &len))
			r->bpf_ns += info.run_time_ns;
	}
	for (i = 0; i < CS_MAX_CPUS; i++)
		if (skel->bss->worst_wait[i].wait_ns > r->worst_wait.wait_ns)
			r->worst_wait = skel->bss->worst_wait[i];
}

void cs_audit_bpf_close(struct audit *skel)
{
	audit__destroy(skel);
}
