/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Statistics the scheduler keeps in its global data, read by
 * scx_coresched --stats through the skeleton's memory-mapped .bss.
 * All counters are cumulative; the reader takes differences.
 */
#ifndef __CS_STATS_H
#define __CS_STATS_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/*
 * One per CPU, each on cache lines of its own: written mostly by its own
 * CPU (a re-queue from another CPU, and the loader's reset of max_wait_ns,
 * write it from elsewhere).
 */
struct cs_cpu_stat {
	__u64 busy_ns; /* time running our tasks */
	__u64 forced_idle_ns; /* idle while blocked by a sibling's cookie */
	__u64 kicks; /* sibling kicks sent for isolation */
	__u64 cookie_switches; /* claims of a cookie other than the core's last */
	__u64 max_wait_ns; /* worst enqueue-to-run delay; reader resets it */
	__u64 transit_retries; /* claims that waited for a sibling's switch */
	__u64 unclaimed_runs; /* runs without a matching claim (load transition,
				 a running task re-queued with a new cookie,
				 a claim the core word held only as EXCL) */
	__u64 untagged_rescues; /* untagged work queued past
				   CS_UNTAGGED_MAX_WAIT_NS: its vtime lowered */
	__u64 cookie_rescues; /* tagged cookies queued past
				 CS_COOKIE_MAX_WAIT_NS: their vtime lowered */
	__u64 task_rescues; /* tasks queued past CS_TASK_MAX_WAIT_NS in a
			       cookie that runs: moved to a queue's head */
	__u64 migrations; /* runs of a task on another CPU than its last */
	__u64 llc_migrations; /* of them, from another last-level cache */
	__u64 llc_steals; /* tasks taken from another LLC's queue of their
			     cookie (steal_queue, move_from_others) */
	__u64 renewals; /* slices renewed at a tick (slice_renew) */
	__u64 untagged_switches; /* of cookie_switches, those to or from
				    work of no tagged slot (untagged,
				    trusted kthreads, EXCL) */
	__u64 stalls; /* ticks two ticks or more after the running task's
			 last charge: the CPU missed one (cs_stall_lost) */
	__u64 stall_ns; /* the time they found lost (still charged) */
	__u64 sync_keeps; /* dispatches that kept the claim for a synchronous
			     wakee without the pick (cs_sync_keep) */
	__u64 fi_start; /* internal: start of the current forced idle, or 0 */
	__u32 fi_slot; /* internal: slot that caused it */
	__u32 forced; /* internal: blocked, wants a kick when the core frees */
	/* internal: charges not yet added to the cookie's (charge_flush) */
	__u64 pend_core_ns;
	__u64 pend_run_ns;
	__u64 pend_cookie; /* the slot's owner then (slots are reused) */
	__u32 pend_slot;
	__u32 fresh_pid; /* internal: the task of this CPU's last ops.runnable */
	__u64 task_scan_at; /* internal: this CPU's last task guard look */
	/*
	 * internal: 1 + the slot whose overdue task the next dispatch here
	 * re-queues (task guard), or 0, and in bits 16 and up the queue of
	 * that slot it waits in
	 */
	__u32 rescue;
	__u32 task_looks; /* internal: task guard looks (queue in turn) */
	/*
	 * internal: 1 + the claim of a task left on the local DSQ, which
	 * ops.cpu_release replaced by the intruder's until the intruder's
	 * commit (intrude); 0 if none
	 */
	__u32 kept;
	__u32 task_scan_slot; /* internal: 1 + the slot of the last look */
	/*
	 * internal: 1 + the tagged slot of a synchronous wakee placed here
	 * since the last dispatch (cs_sync_keep), or 0
	 */
	__u32 sync_hint;
	/* internal: a tick or a sibling's preempt asked for a full dispatch */
	__u32 disp_owed;
} __attribute__((aligned(64)));

struct cs_slot_stat {
	__u64 cookie; /* cookie that owns the slot (valid while live) */
	__u64 core_ns; /* core time charged (running + siblings held idle) */
	__u64 run_ns; /* CPU time run */
	__u64 forced_idle_ns; /* sibling forced idle it caused (core_forceidle_sum) */
};

/*
 * Bytes of the kernel's debug dump kept when it ejects the scheduler (its
 * runqueues and the tasks on them, the stalled one first): sched_ext
 * writes at most this much (ops.exit_dump_len), the loader prints it.
 */
#define CS_EXIT_DUMP_LEN 32768

struct cs_exit_info {
	__s32 kind; /* enum scx_exit_kind, 0 while running */
	__s64 exit_code;
	char reason[128];
	char msg[1024];
	char dump[CS_EXIT_DUMP_LEN]; /* empty unless the kernel ejected us */
};

#endif /* __CS_STATS_H */
