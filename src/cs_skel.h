/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The scheduler's skeleton (build/coresched.skel.h), for the loader's
 * files. The skeleton spells the BPF side's global variables with kernel
 * types, and make prof's build has the profile's (cs_prof.h).
 */
#ifndef __CS_SKEL_H
#define __CS_SKEL_H

#include <linux/types.h>
#include "cs_policy.h"
#include "cs_prof.h"
#include "cs_stats.h"

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
#include "coresched.skel.h"

#endif /* __CS_SKEL_H */
