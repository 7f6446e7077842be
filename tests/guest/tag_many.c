// SPDX-License-Identifier: GPL-2.0-only
/*
 * tag_many DIR N: the cgroup tag limit at its edge. Makes cgroups DIR/0 to
 * DIR/N-1 (DIR must be a cgroup v2 directory) and tags them in order with
 * libcoresched's cs_cgroup_tag() until one fails, then counts the tags in
 * the map (cs_cgroup_foreach) and prints
 *   tagged K held M failed_at I errno E: MESSAGE
 * (failed_at -1 and errno 0 if all N were tagged). Exits 0 once it has
 * printed that line, 1 if it could not make a cgroup or open the maps.
 * The guest tests' ctl_cgroup_tag_limit (tests/guest/ctl.sh): a C program,
 * since thousands of coreschedctl runs take minutes in a TCG guest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libcoresched.h"

static int count(__u64 cgid, __u64 cookie, void *ctx)
{
	(void)cgid;
	(void)cookie;
	++*(long *)ctx;
	return 0;
}

int main(int argc, char **argv)
{
	struct cs_cgroups *h;
	char path[4096];
	long n, i, held = 0, failed_at = -1;
	int err = 0;

	if (argc != 3 || (n = strtol(argv[2], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: tag_many DIR N\n");
		return 2;
	}
	if (cs_cgroups_open(&h)) {
		fprintf(stderr, "tag_many: %s\n", cs_errmsg());
		return 1;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%ld", argv[1], i);
		if (mkdir(path, 0755) && errno != EEXIST) {
			fprintf(stderr, "tag_many: mkdir %s: %s\n", path,
				strerror(errno));
			cs_cgroups_close(h);
			return 1;
		}
		err = cs_cgroup_tag(h, path, NULL);
		if (err) {
			failed_at = i;
			break;
		}
	}
	cs_cgroup_foreach(h, count, &held);
	printf("tagged %ld held %ld failed_at %ld errno %d: %s\n",
	       failed_at < 0 ? n : failed_at, held, failed_at, -err,
	       err ? cs_errmsg() : "");
	cs_cgroups_close(h);
	return 0;
}
