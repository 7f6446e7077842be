/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the running kernel's BTF describes: optional BPF programs are loaded
 * only where the function or field they need exists.
 */
#ifndef __CS_BTF_H
#define __CS_BTF_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * Does the kernel's BTF have @kind (BTF_KIND_*) @name, with member @member
 * if given (also inside anonymous members)? Without BTF: true, so that
 * loading reports the missing BTF.
 */
bool cs_kernel_has(const char *name, __u32 kind, const char *member);

struct btf;

/* The same question of an already loaded @btf. */
bool cs_btf_has(const struct btf *btf, const char *name, __u32 kind,
		const char *member);

#endif
