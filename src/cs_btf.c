// SPDX-License-Identifier: GPL-2.0-only
/* What the running kernel's BTF describes (cs_btf.h). */
#include <string.h>
#include <bpf/btf.h>

#include "cs_btf.h"

/* Has struct/union @id a member @name, also inside anonymous members? */
static bool has_member(const struct btf *btf, __u32 id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	int i;

	if (!t || !btf_is_composite(t))
		return false;
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		__u32 type = btf__resolve_type(btf, m->type);

		if (n && *n ? !strcmp(n, name) : has_member(btf, type, name))
			return true;
	}
	return false;
}

bool cs_btf_has(const struct btf *btf, const char *name, __u32 kind,
		const char *member)
{
	int id = btf__find_by_name_kind(btf, name, kind);

	return id > 0 && (!member || has_member(btf, id, member));
}

bool cs_kernel_has(const char *name, __u32 kind, const char *member)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool found;

	if (!btf)
		return true;
	found = cs_btf_has(btf, name, kind, member);
	btf__free(btf);
	return found;
}
