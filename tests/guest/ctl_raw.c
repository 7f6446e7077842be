// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctl_raw: talk to scx_coresched's control socket byte by byte, for the
 * tests of what a hostile client may send (tests/guest/unpriv.sh).
 *
 *   ctl_raw LINE          send LINE and a newline, print the reply line
 *   ctl_raw --bytes N     send N bytes 'A' and no newline, print the reply
 *   ctl_raw --silent      connect, send nothing, print what comes back
 *                         (the server must hang up after its timeout)
 *
 * Prints the reply (or "EOF" if the server closed without one) and how
 * long it took, as "REPLY (N ms)". Exits 0 if it got a reply or EOF, 1
 * if connecting or reading failed (2 s beyond the server's limit).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SOCK_PATH "/run/scx_coresched/ctl.sock"
#define READ_TIMEOUT_S 5
#define REPLY_MAX 65536

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int dial(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = READ_TIMEOUT_S };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", SOCK_PATH);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		perror("ctl_raw: connect " SOCK_PATH);
		exit(1);
	}
	return fd;
}

/* Send @len bytes; the server may hang up early (E2BIG), which is fine. */
static void send_some(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

int main(int argc, char **argv)
{
	static char reply[REPLY_MAX];
	size_t len = 0;
	char *req = NULL;
	ssize_t n = 0;
	long t0;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "--bytes")) {
		len = strtoul(argv[2], NULL, 10);
		req = malloc(len + 1);
		if (!req)
			return 1;
		memset(req, 'A', len);
	} else if (argc == 2 && !strcmp(argv[1], "--silent")) {
		req = strdup("");
	} else if (argc == 2) {
		len = strlen(argv[1]) + 1;
		req = malloc(len + 1);
		if (!req)
			return 1;
		snprintf(req, len + 1, "%s\n", argv[1]);
	} else {
		fprintf(stderr, "usage: ctl_raw LINE | --bytes N | --silent\n");
		return 2;
	}
	fd = dial();
	t0 = now_ms();
	send_some(fd, req, len);
	len = 0;
	while (len < sizeof(reply) - 1 &&
	       (n = recv(fd, reply + len, sizeof(reply) - 1 - len, 0)) > 0) {
		len += (size_t)n;
		if (memchr(reply, '\n', len))
			break;
	}
	if (n < 0 && !len) {
		perror("ctl_raw: read");
		return 1;
	}
	reply[len] = '\0';
	reply[strcspn(reply, "\n")] = '\0';
	printf("%s (%ld ms)\n", len ? reply : "EOF", now_ms() - t0);
	close(fd);
	free(req);
	return 0;
}
