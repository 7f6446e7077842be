/* SPDX-License-Identifier: GPL-2.0-only */
/* The drain before SMT goes off (src/cs_drain.c). */
#ifndef __CS_DRAIN_H
#define __CS_DRAIN_H

#include "cs_skel.h"

/* What cs_drain_siblings() needs; the guard gets a copy at its fork. */
struct drain_arg {
	struct coresched *skel; /* its .bss is shared with the guard */
};

/*
 * Drain every sibling but the lowest-numbered CPU of each core, move the
 * tasks waiting on them, and say how it went on stderr (@arg: a struct
 * drain_arg; the signature of cs_guard_start()'s callback).
 */
void cs_drain_siblings(void *arg);

#endif /* __CS_DRAIN_H */
