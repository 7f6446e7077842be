#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host test of tools/vm's topology options and of cs_topo_scan on a real
# kernel: one guest of 2 sockets x 2 cores x 2 threads, one NUMA node per
# socket, 12 possible vCPUs (4 absent) of which 6 are online at boot. The
# guest prints sysfs' CPU lists and build/topo_dump's view before and after
# it brings cpu6 and cpu7 online; this script checks both. It boots a
# guest, so run it under the guest lock from the repository root
# (tests/run --guest-only does):  flock /tmp/scx-guest.lock tests/vm_topology.sh
set -u
cd "$(dirname "$0")/.."

nfail=0
pass() { echo "PASS $1"; }
fail() {
	echo "FAIL $1: $2"
	nfail=$((nfail + 1))
}

[ -x build/topo_dump ] || { echo "FAIL vm_topology: no build/topo_dump; run make"; exit 1; }

out=$(tools/vm --timeout 300 --sockets 2 --cores 2 --threads 2 --numa \
	--maxcpus 12 --online 6 -- sh -c '
	s=/sys/devices/system/cpu
	echo "lists $(cat $s/possible) $(cat $s/present) $(cat $s/online)"
	echo "nodes $(cat /sys/devices/system/node/online)"
	build/topo_dump | sed "s/^/before /"
	echo 1 >$s/cpu6/online && echo 1 >$s/cpu7/online
	build/topo_dump | sed "s/^/after /"' 2>&1)
rc=$?
[ $rc = 0 ] || fail vm_topology_boot "tools/vm exited $rc: $(echo "$out" | tail -n 3)"

# line PREFIX: the first line of the guest's output starting with PREFIX.
line() { echo "$out" | grep -m1 "^$1" || echo "(no '$1' line)"; }

want="lists 0-11 0-7 0-5"
if [ "$(line lists)" = "$want" ]; then
	pass vm_topology_possible_present_online
else
	fail vm_topology_possible_present_online "'$(line lists)', expected '$want'"
fi
want="nodes 0-1"
if [ "$(line nodes)" = "$want" ]; then
	pass vm_topology_numa_nodes
else
	fail vm_topology_numa_nodes "'$(line nodes)', expected '$want'"
fi

# At boot: cores {0,1} {2,3} on socket 0, {4,5} on socket 1; cpu6 and cpu7
# present and offline on node 1; cpu8 to cpu11 absent.
want="before possible 12 online 6 packages 2 llcs 2 nodes 2 cores 3 smt 2-2 llc_level 3"
if [ "$(line 'before possible')" = "$want" ]; then
	pass vm_topology_scan_at_boot
else
	fail vm_topology_scan_at_boot "'$(line 'before possible')', expected '$want'"
fi
bad=
for cpu in 0 1 2 3 4 5; do
	s=$((cpu / 4)) c=$((cpu / 2))
	w="before cpu $cpu online package $s core_id $((c % 2)) core $c sib $((cpu % 2)) llc $s node $s"
	[ "$(line "before cpu $cpu ")" = "$w" ] || bad+=" [$(line "before cpu $cpu ") != $w]"
done
for cpu in 6 7 8 9 10 11; do
	n=$([ $cpu -lt 8 ] && echo 1 || echo -1)
	w="before cpu $cpu offline package -1 core_id -1 core -1 sib -1 llc -1 node $n"
	[ "$(line "before cpu $cpu ")" = "$w" ] || bad+=" [$(line "before cpu $cpu ") != $w]"
done
if [ -z "$bad" ]; then
	pass vm_topology_scan_cpus
else
	fail vm_topology_scan_cpus "$bad"
fi

want="after possible 12 online 8 packages 2 llcs 2 nodes 2 cores 4 smt 2-2 llc_level 3"
w7="after cpu 7 online package 1 core_id 1 core 3 sib 1 llc 1 node 1"
if [ "$(line 'after possible')" = "$want" ] && [ "$(line 'after cpu 7 ')" = "$w7" ]; then
	pass vm_topology_scan_after_online
else
	fail vm_topology_scan_after_online "'$(line 'after possible')' and '$(line 'after cpu 7 ')', expected '$want' and '$w7'"
fi
[ $nfail = 0 ]
