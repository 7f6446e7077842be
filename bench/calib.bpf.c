// SPDX-License-Identifier: GPL-2.0-only
/*
 * calib: a fixed amount of BPF work, run by bench/calib through the
 * kernel's test-run interface, so that bench/scale can tell how much of a
 * callback's growing cost is the machine's (under TCG, more vCPUs share
 * the same host cores, so every instruction takes longer in guest time)
 * and how much is the scheduler's own (loops over CPUs or cookies, lock
 * contention).
 *
 * The work mixes what the scheduler's callbacks do: loads and stores to a
 * global table, dependent arithmetic, and an atomic add every eighth
 * step. Example: CALIB_STEPS = 128 steps of about 8 instructions, so
 * about a thousand instructions a run. Under TCG a run took 1.9 to 2.6 us
 * (mean) on 4 vCPUs and 3.0 to 3.1 us on 64. Had it gone from 2 us to 6
 * us while the scheduler's dispatch went from 150 us to 450 us, the
 * dispatch would have grown by exactly the machine's factor (3x), none of
 * it the scheduler's; a dispatch that grows 200x beside a yardstick that
 * grows 1.5x spends its time waiting (locks, IPIs), not computing.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

#define CALIB_STEPS 128
#define CALIB_TBL 64

__u64 tbl[CALIB_TBL];
__u64 ctr;

SEC("tc")
int calib_work(struct __sk_buff *skb)
{
	u64 x = skb->len;
	int i;

	for (i = 0; i < CALIB_STEPS; i++) {
		x = tbl[(x + i) & (CALIB_TBL - 1)] * 31 + i;
		tbl[i & (CALIB_TBL - 1)] += x;
		if (!(i & 7))
			__sync_fetch_and_add(&ctr, 1);
	}
	return 0;
}
