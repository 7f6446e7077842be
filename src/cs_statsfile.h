/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Statistics on demand: the running scx_coresched writes the figures of
 * its last interval to files in CS_CTL_DIR, each replaced atomically
 * (written to a temporary file, then renamed), for coreschedctl stats and
 * for monitoring (stats.prom suits node_exporter's textfile collector).
 */
#ifndef __CS_STATSFILE_H
#define __CS_STATSFILE_H

#include "cs_report.h"

#define CS_STATS_TEXT "stats" /* as --stats prints */
#define CS_STATS_JSON "stats.json" /* as --stats --json prints: one line */
#define CS_STATS_PROM "stats.prom" /* Prometheus text format */

/*
 * Write the three files for interval @iv ending at snapshot @b. A failure
 * is reported once on stderr and otherwise ignored: isolation never
 * depends on statistics. The files are removed when the process exits.
 */
void cs_stats_publish(const struct cs_topo *t, const struct cs_snapshot *b,
		      const struct cs_interval *iv);

#endif /* __CS_STATSFILE_H */
