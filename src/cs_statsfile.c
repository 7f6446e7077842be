// SPDX-License-Identifier: GPL-2.0-only
/* Statistics files in /run/scx_coresched; see cs_statsfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cs_ctlsock.h"
#include "cs_statsfile.h"

enum stats_format { STATS_TEXT, STATS_JSON, STATS_PROM };

static const char *const names[] = { CS_STATS_TEXT, CS_STATS_JSON, CS_STATS_PROM };
static bool warned, registered;

static void remove_files(void)
{
	int dfd = open(CS_CTL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	size_t i;

	if (dfd < 0)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlinkat(dfd, names[i], 0);
	close(dfd);
}

/* Write @name in @dfd through a temporary file; 0 or -errno. */
static int write_one(int dfd, enum stats_format fmt, const struct cs_topo *t,
		     const struct cs_snapshot *b, const struct cs_interval *iv,
		     double unix_time)
{
	char tmp[64];
	FILE *f;
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), ".%s.tmp", names[fmt]);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlinkat(dfd, tmp, 0);
		return err;
	}
	if (fmt == STATS_PROM)
		cs_interval_print_prom(f, t, b, iv, unix_time);
	else
		cs_interval_print(f, t, b, iv, fmt == STATS_JSON);
	if (ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && renameat(dfd, tmp, dfd, names[fmt]))
		err = -errno;
	if (err)
		unlinkat(dfd, tmp, 0);
	return err;
}

void cs_stats_publish(const struct cs_topo *t, const struct cs_snapshot *b,
		      const struct cs_interval *iv)
{
	struct timespec now;
	char err[512];
	int dfd, ret = 0;
	size_t i;

	if (!registered) {
		atexit(remove_files);
		registered = true;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	dfd = cs_open_run_dir(err, sizeof(err));
	if (dfd < 0)
		goto fail;
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && !ret; i++)
		ret = write_one(dfd, i, t, b, iv,
				(double)now.tv_sec + (double)now.tv_nsec / 1e9);
	close(dfd);
	if (!ret)
		return;
	snprintf(err, sizeof(err), "cannot write %s/%s: %s", CS_CTL_DIR,
		 names[i - 1], strerror(-ret));
fail:
	if (!warned)
		fprintf(stderr, "scx_coresched: statistics files: %s (isolation is not affected)\n",
			err);
	warned = true;
}
