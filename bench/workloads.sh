# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Benchmark workloads (sourced by bench/guest.sh after bench/configs.sh).
# Each wl_NAME RUNDIR starts its tenants with tenant_run, their output in
# RUNDIR/t.TENANT.TOOL[.K].out (bench/parse.py reads it by TOOL), and
# returns when they are done; every tenant stops by itself within about
# $SECS seconds (one core: $ONECORE_SECS), except pipe, hackbench and the
# build, which run a fixed amount of work (PIPE_LOOPS, HACK_LOOPS,
# BUILD_TARGETS).

# shellcheck disable=SC2034 # used by bench/guest.sh
WORKLOADS=(cpu2 cpu_db four pipe hackbench onecore light build latency)

# Long-lived state set up once per boot by wl_setup.
DB_PIDS=()
DB_NOTE=
SRC=/tmp/bench-src
PREP=$ROOT/build/bench # bench/prepare.sh

sb_cpu() { echo sysbench cpu --threads="$1" --time="$SECS" --report-interval=1 run; }
sb_oltp() {
	echo sysbench oltp_read_write --db-driver=mysql --mysql-socket="/tmp/bench-$1.sock" \
		--mysql-user=root --tables=1 --table-size="$DB_ROWS" --threads="$2" \
		--time="$SECS" --report-interval=1 run
}

# db_launch NAME: start mysqld on datadir /tmp/bench-NAME, in tenant NAME's
# cgroup; db_ready NAME waits until it answers.
db_launch() {
	local n=$1 cg=$CG/t_b_$1
	mkdir -p "$cg"
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" \
		mysqld --no-defaults --datadir="/tmp/bench-$n" --user=root \
		--socket="/tmp/bench-$n.sock" --pid-file="/tmp/bench-$n.pid" \
		--skip-networking --skip-grant-tables --innodb-buffer-pool-size=32M \
		--innodb-log-file-size=16M --innodb-flush-log-at-trx-commit=2 \
		--log-error="/tmp/bench-$n.log" </dev/null >/dev/null 2>&1 &
	DB_PIDS+=($!)
}
db_ready() {
	local n=$1 pid=${DB_PIDS[$((${1#db} - 1))]} i
	for i in $(seq 1 600); do
		mysql --socket="/tmp/bench-$n.sock" -e 'select 1' >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	DB_NOTE="mysqld $n did not start: $(tail -n 2 "/tmp/bench-$n.log" | tr '\n' ' ')"
	return 1
}

# db_setup: two copies of the data directory bench/prepare.sh initialised
# (and packed), on tmpfs (the guest root is read-only); a sysbench table
# each. The two servers start, and their tables fill, side by side.
db_setup() {
	command -v mysqld >/dev/null ||
		{ DB_NOTE="mariadb-server is not installed (make deps)"; return 1; }
	[ -f "$PREP/db.tar.gz" ] ||
		{ DB_NOTE="no packed data directory $PREP/db.tar.gz: run bench/prepare.sh"; return 1; }
	mkdir -p /tmp/bench-db1 && tar -xzf "$PREP/db.tar.gz" -C /tmp/bench-db1 ||
		{ DB_NOTE="cannot unpack $PREP/db.tar.gz"; return 1; }
	cp -a /tmp/bench-db1 /tmp/bench-db2
	local n p pids=() bad=
	db_launch db1
	db_launch db2
	db_ready db1 && db_ready db2 || return 1
	for n in db1 db2; do
		{ mysql --socket="/tmp/bench-$n.sock" -e 'create database sbtest' &&
			sysbench oltp_read_write --db-driver=mysql --mysql-socket="/tmp/bench-$n.sock" \
				--mysql-user=root --tables=1 --table-size="$DB_ROWS" prepare >/dev/null; } &
		pids+=($!)
	done
	for p in 0 1; do
		wait "${pids[$p]}" || bad+=" db$((p + 1))"
	done
	[ -z "$bad" ] || { DB_NOTE="sysbench prepare failed on$bad"; return 1; }
}

db_stop() {
	[ ${#DB_PIDS[@]} -gt 0 ] || return 0
	kill "${DB_PIDS[@]}" 2>/dev/null
	wait "${DB_PIDS[@]}" 2>/dev/null
	rmdir "$CG/t_b_db1" "$CG/t_b_db2" 2>/dev/null
	DB_PIDS=()
}

# src_setup: two copies of the zlib tree bench/prepare.sh configured, on
# tmpfs; bench/cc-count counts each finished compile.
src_setup() {
	local t
	[ -f "$PREP/zlib/.bench-stamp" ] ||
		{ info "no configured zlib in $PREP/zlib: run bench/prepare.sh"; return 1; }
	mkdir -p "$SRC"
	for t in a b; do
		cp -a "$PREP/zlib" "$SRC/$t" || return 1
	done
	# Page the compiler in once, so that the first configuration does not
	# pay for reading it over 9p.
	make -s -C "$SRC/a" adler32.o >/dev/null 2>&1
}

# wl_setup: what the workloads in WORKLOADS need (the databases take a
# minute or more to set up in a TCG guest: only for cpu_db and four).
wl_setup() {
	if [[ " ${WORKLOADS[*]} " == *" cpu_db "* || " ${WORKLOADS[*]} " == *" four "* ]]; then
		db_setup || info "database: $DB_NOTE"
	fi
	if [[ " ${WORKLOADS[*]} " == *" build "* ]]; then
		src_setup || info "parallel build: zlib source not set up"
	fi
}

wl_cleanup() { db_stop; }

# The db tenants: mysqld's cookie is the tenant's (it is the holder).
db_client() {
	local n=$1 out=$2 threads=$3 i=$(( ${1#db} - 1 ))
	if [ ${#DB_PIDS[@]} -le $i ]; then
		echo "no database: $DB_NOTE" >>"${out%/*}/error"
		return 1
	fi
	tenant_cg "$n" "${DB_PIDS[$i]}" || return 1
	# shellcheck disable=SC2046 # sb_oltp prints the words of a command
	tenant_run "$n" "$out" $(sb_oltp "$n" "$threads")
}

# 1. sysbench cpu + sysbench cpu, as many threads as vCPUs each.
wl_cpu2() {
	# shellcheck disable=SC2046
	tenant_run a "$1/t.a.sysbench.out" $(sb_cpu "$NCPU")
	# shellcheck disable=SC2046
	tenant_run b "$1/t.b.sysbench.out" $(sb_cpu "$NCPU")
	window "$1"
}

# 2. sysbench cpu + a database (mysqld and its sysbench oltp client).
wl_cpu_db() {
	# shellcheck disable=SC2046
	tenant_run a "$1/t.a.sysbench.out" $(sb_cpu "$NCPU")
	db_client db1 "$1/t.db1.oltp.out" "$NCPU"
	window "$1"
}

# 3. four tenants: cpu, cpu, db, db.
wl_four() {
	# shellcheck disable=SC2046
	tenant_run a "$1/t.a.sysbench.out" $(sb_cpu "$NCPU")
	# shellcheck disable=SC2046
	tenant_run b "$1/t.b.sysbench.out" $(sb_cpu "$NCPU")
	db_client db1 "$1/t.db1.oltp.out" "$NCPU"
	db_client db2 "$1/t.db2.oltp.out" "$NCPU"
	window "$1"
}

# 4. context switching: NCPU/2 pipe ping-pong pairs in one tenant.
wl_pipe() {
	local k
	for k in $(seq 1 $(((NCPU + 1) / 2))); do
		tenant_run pipe "$1/t.pipe.perfpipe.$k.out" \
			perf bench sched pipe -l "$PIPE_LOOPS"
	done
	window "$1"
}

# 5. hackbench, one tenant.
wl_hackbench() {
	tenant_run hb "$1/t.hb.hackbench.out" hackbench -g 4 -f 5 -l "$HACK_LOOPS"
	window "$1"
}

# 6. one core: a cpu-bound and a memory-bound sysbench of two cookies on
# the two siblings of cpu0's core (on cpu0 alone when SMT is off).
wl_onecore() {
	local sib
	sib=$(tr ',-' '  ' </sys/devices/system/cpu/cpu0/topology/thread_siblings_list |
		awk '{ print ($2 != "") ? $2 : 0 }')
	tenant_run a "$1/t.a.sysbench.out" taskset -c 0 sysbench cpu --threads=1 \
		--time="$ONECORE_SECS" --report-interval=1 run
	tenant_run b "$1/t.b.sysmem.out" taskset -c "$sib" sysbench memory \
		--memory-block-size=1M --memory-total-size=1000T --threads=1 \
		--time="$ONECORE_SECS" --report-interval=1 run
	window "$1"
}

# 7. light load: two tenants, half the vCPUs busy in total.
wl_light() {
	local n=$(((NCPU / 4) > 0 ? NCPU / 4 : 1))
	# shellcheck disable=SC2046
	tenant_run a "$1/t.a.sysbench.out" $(sb_cpu $n)
	# shellcheck disable=SC2046
	tenant_run b "$1/t.b.sysbench.out" $(sb_cpu $n)
	window "$1"
}

# 8. parallel build: make -j NCPU of BUILD_TARGETS of zlib (at -O0, see
# bench/prepare.sh) from clean, once in each of two tenants; the figure is
# compiles finished per second of the tenant's build.
wl_build() {
	local t
	for t in a b; do
		[ -f "$SRC/$t/Makefile" ] || return 1
		make -s -C "$SRC/$t" clean >/dev/null 2>&1
		: >"$SRC/$t/cc-count.log"
		# shellcheck disable=SC2016 # the script is for sh -c
		tenant_run $t "$1/t.$t.build.out" sh -c '
			cd "$0" || exit 1
			s=$(date +%s%N)
			make -s -j"$1" $2 >/dev/null 2>&1 || exit 1
			echo "ms $((($(date +%s%N) - s) / 1000000)) compiles $(wc -l <cc-count.log)"' \
			"$SRC/$t" "$NCPU" "$BUILD_TARGETS"
	done
	window "$1"
}

# 9. latency: cyclictest (SCHED_OTHER, 1 ms period) beside a cpu-bound
# tenant of another cookie.
wl_latency() {
	# shellcheck disable=SC2046
	tenant_run a "$1/t.a.sysbench.out" $(sb_cpu "$NCPU")
	tenant_run lat "$1/t.lat.cyclictest.out" cyclictest -t1 -i 1000 \
		-D "$SECS" -q -h 20000
	window "$1"
}
