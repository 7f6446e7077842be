/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket: unprivileged cgroup tagging through the running
 * scx_coresched. The protocol and the trust decision are explained at
 * the top of cs_ctlsock.c; libcoresched is the client.
 */
#ifndef __CS_CTLSOCK_H
#define __CS_CTLSOCK_H

#include "coresched.h"

#define CS_CTL_DIR "/run/scx_coresched" /* root's, 0755 */
#define CS_CTL_SOCK CS_CTL_DIR "/ctl.sock" /* 0666 */

/* A request line, its newline included, is at most this long. */
#define CS_CTL_MAX_LINE 4096
/* A reply line is at most this long ("list" names every tagged cgroup). */
#define CS_CTL_MAX_REPLY (64 + CS_MAX_CGRP_TAGS * 40)
/* A client has this long to send its request and read the reply. */
#define CS_CTL_TIMEOUT_MS 2000

/*
 * Paths travel percent-encoded: every byte that is not a printable ASCII
 * character other than ' ' and '%' is sent as %XX, so one request stays
 * one line of space-separated words whatever the cgroup's name.
 */
static inline int cs_ctl_path_encoded_char(unsigned char c)
{
	return c <= ' ' || c == '%' || c >= 0x7f;
}

/*
 * Start serving CS_CTL_SOCK in a thread of its own (once; later calls do
 * nothing). A failure is logged to stderr and otherwise ignored: the
 * scheduler's isolation never depends on the control socket. The server
 * stops, and the socket is removed, when the process exits normally.
 */
void cs_ctlsock_start(int verbose);

/* Stop the server and remove the socket (also run at exit). */
void cs_ctlsock_stop(void);

/*
 * Create or check CS_CTL_DIR: root's, writable by root only, searchable
 * (0755). Returns an O_DIRECTORY fd, or -1 with a message in @err.
 */
int cs_open_run_dir(char *err, size_t len);

#endif /* __CS_CTLSOCK_H */
