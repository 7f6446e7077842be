/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sched_ext kfuncs scx_coresched uses, by their Linux 6.12 names.
 * Later kernels renamed some of them (scx_bpf_dispatch* became
 * scx_bpf_dsq_insert*, scx_bpf_consume became scx_bpf_dsq_move_to_local);
 * every call site goes through the cs_* wrappers below, so a port to those
 * kernels only changes this file.
 */
#ifndef __CS_COMPAT_BPF_H
#define __CS_COMPAT_BPF_H

/* Task flags and errno values that vmlinux.h (BTF) cannot carry. */
#define PF_IDLE 0x00000002
#define PF_EXITING 0x00000004
#define PF_KTHREAD 0x00200000
#define ESRCH 3
#define EFAULT 14
#define ENODEV 19
#define EINVAL 22
#define ENOMEM 12
#define EPERM 1

/* 6.12 kfuncs (kernel/sched/ext.c). */
s32 scx_bpf_create_dsq(u64 dsq_id, s32 node) __ksym;
void scx_bpf_dispatch(struct task_struct *p, u64 dsq_id, u64 slice,
		      u64 enq_flags) __ksym;
void scx_bpf_dispatch_vtime(struct task_struct *p, u64 dsq_id, u64 slice,
			    u64 vtime, u64 enq_flags) __ksym;
bool scx_bpf_consume(u64 dsq_id) __ksym;
void scx_bpf_kick_cpu(s32 cpu, u64 flags) __ksym;
s32 scx_bpf_dsq_nr_queued(u64 dsq_id) __ksym;
bool scx_bpf_test_and_clear_cpu_idle(s32 cpu) __ksym;
s32 scx_bpf_task_cpu(const struct task_struct *p) __ksym;
bool scx_bpf_task_running(const struct task_struct *p) __ksym;
const struct cpumask *scx_bpf_get_idle_cpumask(void) __ksym;
void scx_bpf_put_idle_cpumask(const struct cpumask *cpumask) __ksym;
struct rq *scx_bpf_cpu_rq(s32 cpu) __ksym;
void scx_bpf_exit_bstr(s64 exit_code, char *fmt, unsigned long long *data,
		       u32 data__sz) __ksym;
void scx_bpf_error_bstr(char *fmt, unsigned long long *data,
			u32 data_len) __ksym;

#define cs_create_dsq(id) scx_bpf_create_dsq((id), -1)
#define cs_insert(p, dsq, slice, flags) \
	scx_bpf_dispatch((p), (dsq), (slice), (flags))
#define cs_insert_vtime(p, dsq, slice, vtime, flags) \
	scx_bpf_dispatch_vtime((p), (dsq), (slice), (vtime), (flags))
#define cs_move_to_local(dsq) scx_bpf_consume(dsq)
#define cs_kick(cpu, flags) scx_bpf_kick_cpu((cpu), (flags))
#define cs_nr_queued(dsq) scx_bpf_dsq_nr_queued(dsq)

/* scx_bpf_error() with printf-style arguments, as the kernel's helpers do. */
#define cs_error(fmt, args...)                                            \
	({                                                                \
		static char ___fmt[] = fmt;                               \
		unsigned long long ___param[___bpf_narg(args)];           \
		_Pragma("GCC diagnostic push")                            \
		_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")    \
		___bpf_fill(___param, args);                              \
		_Pragma("GCC diagnostic pop")                             \
		scx_bpf_error_bstr(___fmt, ___param, sizeof(___param));   \
	})

#define BPF_STRUCT_OPS(name, args...) \
	SEC("struct_ops/" #name) BPF_PROG(name, ##args)
#define BPF_STRUCT_OPS_SLEEPABLE(name, args...) \
	SEC("struct_ops.s/" #name) BPF_PROG(name, ##args)

#endif /* __CS_COMPAT_BPF_H */
