/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sched_ext kfuncs scx_coresched uses, and the one place that knows
 * their names changed. Linux 6.13 renamed scx_bpf_dispatch() to
 * scx_bpf_dsq_insert(), scx_bpf_dispatch_vtime() to
 * scx_bpf_dsq_insert_vtime() and scx_bpf_consume() to
 * scx_bpf_dsq_move_to_local(), keeping the old names for a while only.
 * Each renamed kfunc is declared under both names, weak and with a
 * "___" flavour suffix (libbpf drops the suffix when it looks the name up
 * in the kernel's BTF, and the suffix keeps our declarations apart from
 * any prototypes a newer vmlinux.h carries). libbpf resolves at load time
 * whichever name the running kernel has and leaves the other NULL;
 * bpf_ksym_exists() picks the one that exists, and the verifier drops the
 * branch of the other as dead code. So one object loads on 6.12 and on
 * later kernels. Every call site goes through the cs_* wrappers below.
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

/* kfuncs with one name from 6.12 on (kernel/sched/ext.c). */
s32 scx_bpf_create_dsq(u64 dsq_id, s32 node) __ksym;
void scx_bpf_kick_cpu(s32 cpu, u64 flags) __ksym;
s32 scx_bpf_dsq_nr_queued(u64 dsq_id) __ksym;
bool scx_bpf_test_and_clear_cpu_idle(s32 cpu) __ksym;
s32 scx_bpf_task_cpu(const struct task_struct *p) __ksym;
bool scx_bpf_task_running(const struct task_struct *p) __ksym;
const struct cpumask *scx_bpf_get_idle_cpumask(void) __ksym;
bool bpf_cpumask_test_cpu(u32 cpu, const struct cpumask *cpumask) __ksym;
void scx_bpf_put_idle_cpumask(const struct cpumask *cpumask) __ksym;
struct rq *scx_bpf_cpu_rq(s32 cpu) __ksym;
void bpf_rcu_read_lock(void) __ksym;
void bpf_rcu_read_unlock(void) __ksym;
void scx_bpf_exit_bstr(s64 exit_code, char *fmt, unsigned long long *data,
		       u32 data__sz) __ksym;
void scx_bpf_error_bstr(char *fmt, unsigned long long *data,
			u32 data_len) __ksym;

/*
 * Renamed in 6.13: ___new is the current name, ___old the 6.12 one. (6.19
 * adds a bool-returning scx_bpf_dsq_insert___v2; the void one stays.)
 */
void scx_bpf_dsq_insert___new(struct task_struct *p, u64 dsq_id, u64 slice,
			      u64 enq_flags) __ksym __weak;
void scx_bpf_dispatch___old(struct task_struct *p, u64 dsq_id, u64 slice,
			    u64 enq_flags) __ksym __weak;
void scx_bpf_dsq_insert_vtime___new(struct task_struct *p, u64 dsq_id,
				    u64 slice, u64 vtime,
				    u64 enq_flags) __ksym __weak;
void scx_bpf_dispatch_vtime___old(struct task_struct *p, u64 dsq_id,
				  u64 slice, u64 vtime,
				  u64 enq_flags) __ksym __weak;
bool scx_bpf_dsq_move_to_local___new(u64 dsq_id) __ksym __weak;
bool scx_bpf_consume___old(u64 dsq_id) __ksym __weak;

#define cs_create_dsq(id) scx_bpf_create_dsq((id), -1)
#define cs_insert(p, dsq, slice, flags)                                   \
	(bpf_ksym_exists(scx_bpf_dsq_insert___new) ?                      \
		 scx_bpf_dsq_insert___new((p), (dsq), (slice), (flags)) : \
		 scx_bpf_dispatch___old((p), (dsq), (slice), (flags)))
#define cs_insert_vtime(p, dsq, slice, vtime, flags)                     \
	(bpf_ksym_exists(scx_bpf_dsq_insert_vtime___new) ?               \
		 scx_bpf_dsq_insert_vtime___new((p), (dsq), (slice),     \
						(vtime), (flags)) :      \
		 scx_bpf_dispatch_vtime___old((p), (dsq), (slice), (vtime), \
					      (flags)))
#define cs_move_to_local(dsq)                              \
	(bpf_ksym_exists(scx_bpf_dsq_move_to_local___new) ? \
		 scx_bpf_dsq_move_to_local___new(dsq) :      \
		 scx_bpf_consume___old(dsq))
/* Moving one task out of an iterated DSQ: 6.12's name, 6.13's name. */
int bpf_iter_scx_dsq_new(struct bpf_iter_scx_dsq *it, u64 dsq_id,
			 u64 flags) __ksym __weak;
struct task_struct *bpf_iter_scx_dsq_next(struct bpf_iter_scx_dsq *it) __ksym __weak;
void bpf_iter_scx_dsq_destroy(struct bpf_iter_scx_dsq *it) __ksym __weak;
bool scx_bpf_dsq_move___new(struct bpf_iter_scx_dsq *it__iter,
			    struct task_struct *p, u64 dsq_id,
			    u64 enq_flags) __ksym __weak;
bool scx_bpf_dispatch_from_dsq___old(struct bpf_iter_scx_dsq *it__iter,
				     struct task_struct *p, u64 dsq_id,
				     u64 enq_flags) __ksym __weak;
#define cs_move_iterated(it, p, dsq)                                    \
	(bpf_ksym_exists(scx_bpf_dsq_move___new) ?                      \
		 scx_bpf_dsq_move___new((it), (p), (dsq), 0) :          \
		 scx_bpf_dispatch_from_dsq___old((it), (p), (dsq), 0))
/* Re-queueing an iterated task in a vtime-ordered DSQ at a new vtime. */
void scx_bpf_dsq_move_set_vtime___new(struct bpf_iter_scx_dsq *it__iter,
				      u64 vtime) __ksym __weak;
bool scx_bpf_dsq_move_vtime___new(struct bpf_iter_scx_dsq *it__iter,
				  struct task_struct *p, u64 dsq_id,
				  u64 enq_flags) __ksym __weak;
void scx_bpf_dispatch_from_dsq_set_vtime___old(struct bpf_iter_scx_dsq *it__iter,
					       u64 vtime) __ksym __weak;
bool scx_bpf_dispatch_vtime_from_dsq___old(struct bpf_iter_scx_dsq *it__iter,
					   struct task_struct *p, u64 dsq_id,
					   u64 enq_flags) __ksym __weak;
#define cs_requeue_iterated(it, p, dsq, vtime)                                \
	({                                                                    \
		bool ___moved;                                                \
		if (bpf_ksym_exists(scx_bpf_dsq_move_vtime___new)) {          \
			scx_bpf_dsq_move_set_vtime___new((it), (vtime));      \
			___moved = scx_bpf_dsq_move_vtime___new((it), (p),    \
								(dsq), 0);    \
		} else {                                                      \
			scx_bpf_dispatch_from_dsq_set_vtime___old((it),       \
								  (vtime));   \
			___moved = scx_bpf_dispatch_vtime_from_dsq___old(     \
				(it), (p), (dsq), 0);                         \
		}                                                             \
		___moved;                                                     \
	})
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
