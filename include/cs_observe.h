/* SPDX-License-Identifier: GPL-2.0-only */
/* coresched-audit: the switch records its BPF side sends to user space. */
#ifndef __CS_OBSERVE_H
#define __CS_OBSERVE_H

#ifndef __bpf__
#include <linux/types.h>
#endif

enum obs_source {
	OBS_SRC_OURS = 0, /* cookies from scx_coresched's tag maps */
	OBS_SRC_UPSTREAM = 1, /* cookies from task->core_cookie */
	OBS_SRC_TENANT = 2, /* a cgroup-to-tenant map given by user space */
};

enum obs_class {
	OBS_IDLE = 0,
	OBS_TRUSTED = 1,
	OBS_TASK = 2,
	OBS_FOREIGN = 3, /* RT/DL/stop-class kernel thread: not sched_ext's */
};

struct obs_event {
	__u64 ts;
	__u64 cookie;
	__u64 wait_ns; /* runnable before this switch-in; 0 if not seen */
	__u32 tid;
	__u32 cpu;
	enum obs_class class;
	__u32 lost_before; /* this CPU's records lost just before this one */
	__u32 forced; /* idle while its runqueue held tasks (forced idle) */
	char comm[16];
};

#endif /* __CS_OBSERVE_H */
