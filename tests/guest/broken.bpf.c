// SPDX-License-Identifier: GPL-2.0-only
/*
 * broken_fifo: a deliberately broken core scheduler, built for the tests
 * of coresched-audit (tests/guest/audit.sh) and run by the benchmark as
 * its "empty" configuration (bench/configs.sh). It is one global FIFO
 * queue that ignores cookies, so tasks of different cookies run on SMT
 * siblings at the same time: the audit must see overlap and exit 1. It is
 * also the baseline of "a sched_ext scheduler with no core scheduling".
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "compat.bpf.h"

char _license[] SEC("license") = "GPL";

void BPF_STRUCT_OPS(broken_enqueue, struct task_struct *p, u64 enq_flags)
{
	cs_insert(p, SCX_DSQ_GLOBAL, SCX_SLICE_DFL, enq_flags);
}

SEC(".struct_ops.link")
struct sched_ext_ops broken_ops = {
	.enqueue = (void *)broken_enqueue,
	.name = "broken_fifo",
};
