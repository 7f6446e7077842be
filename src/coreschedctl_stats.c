// SPDX-License-Identifier: GPL-2.0-only
/*
 * coreschedctl stats: print the statistics the running scx_coresched
 * wrote for its last interval (cs_statsfile.h), as text, JSON or in the
 * Prometheus text format. Figures older than two intervals and a margin
 * are refused: they would describe a scheduler that stopped writing.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "coreschedctl.h"
#include "cs_common.h"
#include "cs_ctlsock.h"
#include "cs_statsfile.h"

/* Figures are stale after 2 intervals plus this many seconds. */
#define STATS_STALE_MARGIN_S 5

static void stats_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage:\n"
		" %1$s stats [--json | --prometheus]\n"
		"\n"
		"Print the statistics of the running scx_coresched for its last\n"
		"interval (1 s, or its --stats SECS): forced idle (total and per\n"
		"core), each cookie's share of core time, run time and the forced\n"
		"idle it caused, cookie switches/s, sibling kicks/s, the worst wait.\n"
		"They are in %2$s/{%3$s,%4$s,%5$s}, replaced atomically.\n"
		"\n"
		" -J, --json         one JSON line, as scx_coresched --stats --json\n"
		" -P, --prometheus   the Prometheus text format (node_exporter's\n"
		"                      textfile collector reads %2$s/%5$s\n"
		"                      with --collector.textfile.directory=%2$s)\n"
		" -h, --help         display this help\n",
		prog, CS_CTL_DIR, CS_STATS_TEXT, CS_STATS_JSON, CS_STATS_PROM);
}

/* The interval the last figures cover, from stats.json; 0 if unknown. */
static double stats_interval(void)
{
	double secs = 0;
	FILE *f = fopen(CS_CTL_DIR "/" CS_STATS_JSON, "r");

	if (!f)
		return 0;
	if (fscanf(f, "{\"interval_s\":%lf", &secs) != 1)
		secs = 0;
	fclose(f);
	return secs;
}

int ctl_stats(int argc, char **argv, const char *prog)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "prometheus", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *name = CS_STATS_TEXT;
	char path[128], buf[4096];
	struct stat st;
	size_t n;
	double age;
	FILE *f;
	int c;

	optind = 0;
	opterr = 0; /* our message names the program, not "stats" */
	while ((c = getopt_long(argc, argv, "JPh", lopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			name = CS_STATS_JSON;
			break;
		case 'P':
			name = CS_STATS_PROM;
			break;
		case 'h':
			stats_usage(stdout, prog);
			return fflush(stdout) ? 1 : 0;
		default:
			fprintf(stderr, "%1$s: stats: bad option '%2$s'\nTry '%1$s stats --help' for more information.\n",
				prog, argv[optind - 1]);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: stats takes no operand ('%s'); try '%s stats --help'\n",
			prog, argv[optind], prog);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", CS_CTL_DIR, name);
	f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT && !cs_scheduler_running())
			fprintf(stderr, "%s: scx_coresched is not running: no statistics\n",
				prog);
		else if (errno == ENOENT)
			fprintf(stderr, "%s: %s does not exist yet: scx_coresched writes it after its first interval; try again in a moment\n",
				prog, path);
		else
			fprintf(stderr, "%s: cannot read %s: %s\n", prog, path,
				strerror(errno));
		return 1;
	}
	age = fstat(fileno(f), &st) ? 0 : difftime(time(NULL), st.st_mtime);
	if (age > 2 * stats_interval() + STATS_STALE_MARGIN_S) {
		fprintf(stderr, "%s: %s is %.0f s old: scx_coresched stopped writing statistics (%s)\n",
			prog, path, age,
			cs_scheduler_running() ? "is it stuck?" : "it is not running");
		fclose(f);
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return fflush(stdout) ? 1 : 0;
}
