/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Failing closed: what happens while no isolation is possible.
 *
 *   open    (default) tasks run under the default scheduler, SMT on, with
 *           no isolation until scx_coresched is back.
 *   closed  SMT is switched off (/sys/devices/system/cpu/smt/control) the
 *           moment isolation ends, and on again once a scheduler isolates
 *           again. While scx_coresched runs, a guard process holds the
 *           scheduler's links too: if the loader is killed, the guard
 *           switches SMT off first and only then lets the scheduler go.
 *           Before SMT goes off under the scheduler, the siblings that
 *           go down are drained (bpf/coresched.bpf.c). A restart attaches
 *           with the siblings still offline, then switches SMT on.
 *
 * SMT is only switched back on if scx_coresched switched it off: it
 * leaves a marker in CS_RUN_DIR.
 */
#ifndef __CS_GUARD_H
#define __CS_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cs_topo.h"

#define CS_RUN_DIR "/run/scx_coresched"
#define CS_SMT_CONTROL "/sys/devices/system/cpu/smt/control"
/* How long SMT off waits for the siblings going down to drain. */
#define CS_DRAIN_WAIT_MS 1000

enum cs_fail_mode {
	CS_FAIL_OPEN = 0,
	CS_FAIL_CLOSED = 1,
};

/* Can SMT be switched here? 0, or -1 with a message in @err. */
int cs_smt_check(char *err, size_t len);
/* Switch SMT off and leave the marker. 0, or -1 with a message. */
int cs_smt_off(char *err, size_t len);
/* Is SMT on (the control reads "on")? */
bool cs_smt_on(void);
/* Switch SMT on if we switched it off. 1 done, 0 nothing to do, -1 error. */
int cs_smt_restore(char *err, size_t len);

/*
 * Start the guard: a child that holds every descriptor the caller holds
 * (the scheduler's links among them) and, when the caller dies or asks,
 * calls @before_off(@arg) (if given), switches SMT off and exits.
 * Returns its pid; *@fd is the caller's end of the pipe: closing it (or
 * dying) triggers the guard.
 */
pid_t cs_guard_start(int *fd, void (*before_off)(void *), void *arg);
/* Trigger the guard and wait until SMT is off and it has exited. */
void cs_guard_stop(pid_t pid, int fd);

/*
 * The topology of the last successful load, for a restart while SMT is off
 * (offline CPUs have no topology in sysfs). 0, or -1.
 */
int cs_topo_save(const struct cs_topo *t);
int cs_topo_load(struct cs_topo *t);

#endif /* __CS_GUARD_H */
