#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Foundation checks in a tools/vm guest: the topology asked for, sched_ext,
# the scheduler attaching and detaching (also when its loader is killed),
# bad input, and the kernel's own prctl(PR_SCHED_CORE) core scheduling.
#   tools/vm --cores 2 --threads 2 -- tests/guest/foundation.sh
. tests/guest/lib.sh

check_topology

if [ -d /sys/kernel/sched_ext ] && [ "$(scx_state)" = disabled ]; then
	pass sched_ext_present
else
	fail sched_ext_present "/sys/kernel/sched_ext missing or not disabled"
fi

# verifier_cost: the verifier's work per program, from the -vv log (libbpf
# prints its statistics: "processed N insns", "verification time T usec").
# A measurement, with two bounds on instruction counts, which do not
# depend on the host's speed (a load's time is a restart's gap, so it is
# printed, not bounded: no timing asserts):
# - no program may take half the verifier's 1,000,000-instruction limit
#   (a kernel that verifies a little differently would refuse it);
# - all programs together stay within a budget: every load pays their sum
#   (the guest tests load the scheduler dozens of times, at about 15 us
#   an insn under TCG). A scan the verifier walked turn by turn doubled
#   one program once (guard.bpf.h) at 68,602 insns; locals that a nested
#   loop compares with constants took the sum to 266,000, about 155,000
#   without them (pick_cpu before pick_take, place.bpf.h).
VERIFY_MAX_INSNS=500000
VERIFY_BUDGET_INSNS=200000
verifier_cost() {
	local name insns total secs
	awk '/-- BEGIN PROG LOAD LOG --/ { p = $3; gsub("[:\x27]", "", p) }
		/^verification time/ { t[p] = $3 }
		/^processed [0-9]+ insns/ { n[p] = $2 }
		END { for (p in n) printf "%s %d %d\n", p, n[p], t[p] }' "$TMP/sched.err" |
		sort -k2,2nr >"$TMP/verifier"
	read -r total secs < <(awk '{ n += $2; t += $3 }
		END { printf "%d %.2f\n", n, t / 1e6 }' "$TMP/verifier")
	info "verifier (program, insns processed, us), the costliest:" \
		"$(head -n 4 "$TMP/verifier" | tr '\n' ';')" \
		"all $(wc -l <"$TMP/verifier") programs: $total insns, $secs s"
	read -r name insns _ <"$TMP/verifier" # the costliest
	# (the tagging and policy programs log there too: dispatch must)
	if ! grep -q '^cs_dispatch [0-9]' "$TMP/verifier"; then
		fail verifier_within_limit "no verifier statistics for cs_dispatch in the -vv log"
		fail verifier_total_within_budget "no verifier statistics in the -vv log"
		return
	fi
	if [ "$insns" -gt $VERIFY_MAX_INSNS ]; then
		fail verifier_within_limit "$name: $insns insns processed, over $VERIFY_MAX_INSNS"
	else
		pass verifier_within_limit
	fi
	if [ "$total" -gt $VERIFY_BUDGET_INSNS ]; then
		fail verifier_total_within_budget "all programs: $total insns processed, over $VERIFY_BUDGET_INSNS"
	else
		pass verifier_total_within_budget
	fi
}

if start_sched -vv; then
	ops=$(scx_ops)
	if stop_sched INT && grep -q "detached: unregistered from user space" "$TMP/sched.err"; then
		pass sched_attach_detach
	else
		fail sched_attach_detach "no clean detach: $(tail -n 1 "$TMP/sched.err")"
	fi
	info "ops name while enabled: $ops"
	verifier_cost
else
	fail sched_attach_detach "did not attach"
fi

if start_sched; then
	if stop_sched KILL; then
		pass sched_detach_on_sigkill
	else
		fail sched_detach_on_sigkill "state '$(scx_state)' after SIGKILL of the loader"
	fi
else
	fail sched_detach_on_sigkill "did not attach"
fi

# Bad input: a second instance names the first; bad options are refused.
if start_sched; then
	out=$("$SCHED" 2>&1)
	rc=$?
	if [ $rc != 0 ] && echo "$out" | grep -q "another sched_ext scheduler ('coresched')"; then
		pass sched_refuses_second_instance
	else
		fail sched_refuses_second_instance "rc=$rc: $out"
	fi
	stop_sched
else
	fail sched_refuses_second_instance "did not attach"
fi
out=$("$SCHED" --mode loose 2>&1)
rc=$?
if [ $rc != 0 ] && echo "$out" | grep -q "mode 'loose'"; then
	pass sched_bad_option
else
	fail sched_bad_option "rc=$rc: $out"
fi
# A duration under 100 us is refused with the option named, before loading.
out=$("$SCHED" --grace-us 50 2>&1)
rc=$?
if [ $rc != 0 ] && echo "$out" | grep -q "grace-us '50'" &&
	[ "$(scx_state)" != enabled ]; then
	pass sched_bad_grace
else
	fail sched_bad_grace "rc=$rc state=$(scx_state): $out"
fi

"$ROOT/build/prctl_check" || nfail=$((nfail + 1))
finish
