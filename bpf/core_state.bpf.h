/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Core state: one 64-bit word per core holding, for each sibling, the slot
 * it has claimed (next) and the slot it is running (cur); see
 * include/cs_policy.h for the layout and the compatibility rule. Every
 * change is a compare-and-swap of the whole word, so a claim is checked
 * against all siblings atomically.
 *
 * Topology comes from the loader, before the scheduler attaches, for every
 * CPU that is online then (or in the topology cached at an earlier start).
 * A possible CPU that is offline at load is unknown (cpu_known 0): nobody
 * knows its siblings until it comes online. It is fenced: it belongs to no
 * core word and runs nothing but its own bound kernel threads, like a
 * draining CPU. When it comes online, ops.cpu_online asks the loader
 * (online_rb), which reads its siblings from sysfs and writes them here,
 * in an order that keeps every reader safe: the core's core_cpu[] entry,
 * the CPU's cpu_sib and cpu_core, the core's core_nr, and cpu_known last.
 * A sibling that sees the new core_nr before cpu_known finds the new
 * CPU's next and cur idle in the word; claims check every index, so a
 * claim made just after the new CPU's is not missed (core_claim). The
 * kernel thread a CPU runs when it is unfenced is not in the word: its
 * next tick commits it and preempts conflicting siblings (cs_tick).
 */
#ifndef __CS_CORE_STATE_BPF_H
#define __CS_CORE_STATE_BPF_H

const volatile u32 nr_cpus = 1; /* highest possible CPU + 1 */
const volatile u32 mode = CS_MODE_STRICT;
/* Written by the loader, before attaching and when a CPU comes online: */
u16 cpu_core[CS_MAX_CPUS]; /* cpu -> core index */
u8 cpu_sib[CS_MAX_CPUS]; /* cpu -> sibling index in its core */
u8 cpu_known[CS_MAX_CPUS]; /* its siblings are known: it has a core */
u8 core_nr[CS_MAX_CPUS]; /* core -> number of siblings */
u16 core_cpu[CS_MAX_CPUS][CS_MAX_SMT]; /* core, sibling -> cpu */
u16 cpu_llc[CS_MAX_CPUS]; /* cpu -> last-level cache (before cpu_known) */
u32 nr_llcs; /* last-level caches known: locality matters past 1 */

#define CS_NO_CPU 0xffff /* core_cpu[][] of a sibling the core lacks */

struct cs_core core_state[CS_MAX_CPUS];

/*
 * Compare-and-swap attempts on one core word before giving up. Up to 7
 * siblings race on a word, each changing it a few times per switch, so a
 * CPU that loses this many times in a row is not contending any more: the
 * state is broken, and the scheduler stops itself (fail closed) rather than
 * run on with a word that no longer tells the truth.
 */
#define CS_CAS_TRIES 4096

/* Indexes are masked rather than checked: the verifier follows masks. */
static u32 core_of(s32 cpu)
{
	return cpu_core[(u32)cpu & (CS_MAX_CPUS - 1)] & (CS_MAX_CPUS - 1);
}

/* Is @cpu outside every core (offline at load, siblings not read yet)? */
static bool fenced(s32 cpu)
{
	return !*(volatile u8 *)&cpu_known[(u32)cpu & (CS_MAX_CPUS - 1)];
}

static u64 *core_word_of(s32 cpu)
{
	if (cpu < 0 || cpu >= CS_MAX_CPUS || fenced(cpu))
		return NULL;
	return &core_state[core_of(cpu)].word;
}

static u32 llc_of(s32 cpu)
{
	return cpu_llc[(u32)cpu & (CS_MAX_CPUS - 1)];
}

static int sib_of(s32 cpu)
{
	return cpu_sib[(u32)cpu & (CS_MAX_CPUS - 1)] & (CS_MAX_SMT - 1);
}

/* Siblings in @cpu's core, itself included; 0 if it is fenced. */
static int nr_sibs(s32 cpu)
{
	return fenced(cpu) ? 0 : core_nr[core_of(cpu)];
}

/* The cpu of sibling @i in @cpu's core, or -1. */
static s32 sib_cpu(s32 cpu, int i)
{
	u16 c = core_cpu[core_of(cpu)][i & (CS_MAX_SMT - 1)];

	return c == CS_NO_CPU ? -1 : c;
}

/*
 * Try to set next[@cpu] = @slot. Returns a cs_verdict; on CS_CLAIM_OK the
 * claim is in place and no sibling can start an incompatible cookie;
 * CS_CLAIM_RACED if every CAS lost: no sibling's commit is due to wake
 * this CPU, so it kicks itself to look again.
 * Global (verified once) functions keep the verifier's work linear.
 * Every sibling index is checked, not only the first core_nr: the loader
 * may add a sibling (unfence) between two tries, and an index no sibling
 * has holds NONE, which conflicts with nothing.
 */
__attribute__((noinline)) int core_claim(s32 cpu, u32 slot)
{
	u64 *wp = core_word_of(cpu);
	int sib = sib_of(cpu), i;

	if (!wp)
		return CS_BLOCKED_STABLE;
	/* bpf_for, not for: the verifier walks the body once, not 8 times. */
	bpf_for(i, 0, 8) {
		u64 w = *(volatile u64 *)wp;
		int v = cs_claim_verdict(w, sib, CS_MAX_SMT, slot, mode);

		if (v != CS_CLAIM_OK)
			return v;
		/* Already ours (a core that keeps its cookie): nothing to write. */
		if (cs_next(w, sib) == slot)
			return CS_CLAIM_OK;
		if (__sync_val_compare_and_swap(wp, w, cs_set_next(w, sib, slot)) == w)
			return CS_CLAIM_OK;
	}
	cs_kick(cpu, 0);
	return CS_CLAIM_RACED;
}

/* Set next[@cpu] (no check: releasing or re-claiming what it runs). */
__attribute__((noinline)) u32 core_set_next(s32 cpu, u32 slot)
{
	u64 *wp = core_word_of(cpu);
	int sib = sib_of(cpu), i;

	if (!wp)
		return CS_SLOT_NONE;
	bpf_for(i, 0, CS_CAS_TRIES) {
		u64 w = *(volatile u64 *)wp;

		if (__sync_val_compare_and_swap(wp, w, cs_set_next(w, sib, slot)) == w)
			return cs_next(w, sib);
	}
	cs_error("cpu %d: setting its claim to slot %u lost %d compare-and-swap races on core word %llx",
		 cpu, slot, CS_CAS_TRIES, *(volatile u64 *)wp);
	return CS_SLOT_NONE;
}

/*
 * Commit: @cpu now runs @slot (called after its context switch). Returns
 * the slot it ran before (NONE if fenced, or on an error, which stops the
 * scheduler).
 */
__attribute__((noinline)) u32 core_set_cur(s32 cpu, u32 slot)
{
	u64 *wp = core_word_of(cpu);
	int sib = sib_of(cpu), i;

	if (!wp) {
		if (cpu < 0 || cpu >= CS_MAX_CPUS)
			cs_error("cpu %d has no core state word: not in the topology",
				 cpu);
		return CS_SLOT_NONE; /* fenced: it runs only its own kthreads */
	}
	bpf_for(i, 0, CS_CAS_TRIES) {
		u64 w = *(volatile u64 *)wp;

		if (cs_cur(w, sib) == slot)
			return slot;
		if (__sync_val_compare_and_swap(wp, w, cs_set_cur(w, sib, slot)) == w)
			return cs_cur(w, sib);
	}
	cs_error("cpu %d: committing slot %u lost %d compare-and-swap races on core word %llx",
		 cpu, slot, CS_CAS_TRIES, *(volatile u64 *)wp);
	return CS_SLOT_NONE;
}

static u64 core_read(s32 cpu)
{
	u64 *wp = core_word_of(cpu);

	return wp ? *(volatile u64 *)wp : CS_WORD_IDLE;
}

#endif /* __CS_CORE_STATE_BPF_H */
