// SPDX-License-Identifier: GPL-2.0-only
/*
 * topo_dump [ROOT]: print the topology cs_topo_scan reads below ROOT
 * (default /sys/devices/system/cpu), one line for the machine and one per
 * possible CPU, for the guest checks of tools/vm's topologies.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cs_topo.h"

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : "/sys/devices/system/cpu";
	struct cs_topo_map *m = malloc(sizeof(*m));
	char err[512];
	int cpu;

	if (!m || cs_topo_scan(m, root, err, sizeof(err))) {
		fprintf(stderr, "topo_dump: %s\n", m ? err : "out of memory");
		return 1;
	}
	printf("possible %d online %d packages %d llcs %d nodes %d cores %d smt %d-%d llc_level %d\n",
	       m->nr_possible, m->nr_online, m->nr_packages, m->nr_llcs,
	       m->nr_nodes, m->nr_cores, m->smt_min, m->smt_max, m->llc_level);
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct cs_topo_cpu *c = &m->cpu[cpu];

		if (!m->possible[cpu])
			continue;
		printf("cpu %d %s package %d core_id %d core %d sib %d llc %d node %d\n",
		       cpu, c->online ? "online" : "offline", c->package,
		       c->core_id, c->core, c->sib, c->llc, c->node);
	}
	free(m);
	return 0;
}
