#!/usr/bin/env bash
# Faults in the live loop: PX4 SITL (SIH, headless), the Micro XRCE-DDS
# agent, ghost launched with input_source:=px4 and a rosbag2 recorder, as
# test/sitl/gps_loss.sh flies them, with one fault injected mid-flight per
# phase. Each phase is its own flight, in OUTDIR/PHASE.
#
#   test/sitl/faults.sh OUTDIR [PHASE...]
#
# Phases (default: all, in this order):
#   kill      the node is killed (SIGKILL) mid-flight and launched with
#             respawn:=true respawn_delay:=1.0, so launch_ros starts it
#             again: the killed node's file is audited as it was left, the
#             restarted node's recording (node_restart001.mcap) on its
#             own, and the time from its "ready" to its first decision is
#             measured
#   agent     the agent is killed (SIGKILL) for AGENT_DOWN_S (10) s, then
#             started again; PX4's client reconnects and its time
#             synchronisation starts over
#   loss10    10 % of the packets between PX4 and the agent lost, both
#             ways, for FAULT_S (20) s
#   loss30    30 % lost
#   jitter    each packet delayed 25 ms +- 50 ms (uniform; packets may
#             overtake each other)
#   cpu       one flight per level in CPU_LEVELS (default "50 20 10",
#             percent of one core): the node in a CPU cgroup with that
#             quota from its start to its end
#   diskfull  the node records onto a 16 MiB tmpfs, filled at the fault
#             time, so its next write finds no space
#
# Loss and jitter act on the link to the autopilot: PX4's uXRCE-DDS client
# talks to the agent through test/sitl/udplink, which loses or delays
# packets while the fault is on. It does on that one UDP link what tc
# netem does on an interface, and needs neither root nor a kernel with
# sch_netem (many container and CI kernels lack it). Between the agent,
# ghost and the recorder, Fast DDS delivers over shared memory, which no
# network fault reaches: a lost or late PX4 sample is what ghost sees of
# a bad link. cpu needs a writable CPU cgroup (v2 cpu.max, or v1
# cpu.cfs_quota_us) and diskfull root to mount a tmpfs.
#
# Environment, as for gps_loss.sh: PX4_BUILD, XRCE_AGENT, ros2 on PATH
# (ROS 2 Humble with px4_msgs and ghost), and optionally EXECUTOR (px4),
# POLICY, DN (a decision_node binary for the audit; default go run),
# RMW_IMPLEMENTATION, ROS_DOMAIN_ID, HOVER_S (15, hover before the fault),
# FAULT_S (20), AFTER_S (15, after the fault ends), and
#   NODE_BIN  a decision_node built with -tags rclgo to run instead of the
#             installed one (the launch file still starts it, through
#             launch_prefix)
#
# The script prints, per phase: the fault and when, what ghost did
# (decisions before, during and after, the longest gap between two
# decisions, commands, /diagnostics levels and counters), what was
# recorded, and what verify says. docs/faults.md has the results.
set -euo pipefail
set -m

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [kill|agent|loss10|loss30|jitter|cpu|diskfull ...]" >&2; exit 2; }
out="$1"
shift
mkdir -p "$out" && out="$(cd "$out" && pwd)"
phases=("$@")
[ ${#phases[@]} -gt 0 ] || phases=(kill agent loss10 loss30 jitter cpu diskfull)
for p in "${phases[@]}"; do
	case "$p" in kill | agent | loss10 | loss30 | jitter | cpu | diskfull) ;; *)
		echo "unknown phase $p: want kill, agent, loss10, loss30, jitter, cpu or diskfull" >&2
		exit 2
		;;
	esac
done

: "${PX4_BUILD:?PX4_BUILD must name a px4_sitl_default build directory}"
: "${XRCE_AGENT:?XRCE_AGENT must name the MicroXRCEAgent binary}"
command -v ros2 >/dev/null || { echo "ros2 is not on PATH: source ROS 2 Humble and the workspace with px4_msgs and ghost" >&2; exit 2; }
share="$(ros2 pkg prefix ghost)/share/ghost"
EXECUTOR="${EXECUTOR-px4}"
POLICY="${POLICY:-$share/config/policies/px4_failsafe_like.yaml}"
HOVER_S="${HOVER_S:-15}" FAULT_S="${FAULT_S:-20}" AFTER_S="${AFTER_S:-15}"
AGENT_DOWN_S="${AGENT_DOWN_S:-10}"
CPU_LEVELS="${CPU_LEVELS:-50 20 10}"
export ROS_DOMAIN_ID="${ROS_DOMAIN_ID:-0}"

bin="$out/.bin"
mkdir -p "$bin"
(cd "$repo" && go build -o "$bin/faultsum" ./test/sitl/faultsum && go build -o "$bin/udplink" ./test/sitl/udplink &&
	go build -o "$bin/timeline" ./test/sitl/timeline)
faultsum() { "$bin/faultsum" "$@"; }
now_ns() { date +%s%N; }
say() { printf '%s  %s\n' "$(date +%T)" "$*"; }
load() { cut -d" " -f1-3 /proc/loadavg; }

# shellcheck source=processes.sh
. "$here/processes.sh"
ros_on_loopback

start_agent() {
	"$XRCE_AGENT" udp4 -p 8888 >>"$pd/agent.log" 2>&1 &
	agent=$!
	pids+=("$agent")
}

# start PHASEDIR [launch arguments...]: agent, PX4, ghost and the
# recorder, PX4's topics on once both listen (as gps_loss.sh).
start() {
	pd="$1"
	shift
	mkdir -p "$pd"
	say "$(basename "$pd"): agent and PX4 SIH, load average $(load)"
	echo "$(load)" >"$pd/load_start"
	start_agent
	start_px4 "$pd" || return 1

	local args=(input_source:=px4 config_file:="$share/config/px4_sitl.yaml" policy_file:="$POLICY")
	[ -n "$EXECUTOR" ] && args+=(executor:="$EXECUTOR")
	args+=(recording_path:="${rec_path:-$pd/node.mcap}")
	local prefix="${prefix:-}"
	if [ -n "${NODE_BIN:-}" ]; then
		# launch_prefix runs "PREFIX installed-binary ARGS": the wrapper
		# drops the installed binary's path and runs NODE_BIN instead.
		printf '#!/bin/sh\nshift\nexec %s "$@"\n' "$NODE_BIN" >"$pd/node_bin.sh"
		chmod +x "$pd/node_bin.sh"
		prefix="${prefix:+$prefix }$pd/node_bin.sh"
	fi
	[ -n "$prefix" ] && args+=(launch_prefix:="$prefix")
	args+=("$@")
	ros2 launch ghost decision.launch.py "${args[@]}" >"$pd/ghost.log" 2>&1 &
	pids+=($!)
	ros2 bag record -s mcap -o "$pd/bag" --qos-profile-overrides-path "$here/recorder_qos.yaml" /decisions /decisions/actions /decisions/evidence \
		/state/nav /self_assessment /parameter_events /diagnostics /rosout \
		/fmu/out/vehicle_local_position /fmu/out/vehicle_attitude /fmu/out/vehicle_status \
		/fmu/out/battery_status /fmu/out/vehicle_gps_position /fmu/out/estimator_status_flags /fmu/out/failsafe_flags \
		/fmu/out/vehicle_command_ack /fmu/in/vehicle_command \
		>"$pd/bag.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 90); do grep -qs "decision node ready" "$pd/ghost.log" && break; sleep 1; done
	grep -q "decision node ready" "$pd/ghost.log" || { echo "ghost did not start: $pd/ghost.log" >&2; return 1; }
	grep -m1 -o 'middleware=[a-z_]*' "$pd/ghost.log" | cut -d= -f2 >"$pd/middleware" || true
	subscribed() { grep -q "Subscribed to topic '$1'" "$pd/bag.log"; }
	for _ in $(seq 60); do subscribed /decisions && subscribed /state/nav && subscribed /self_assessment && subscribed /diagnostics && break; sleep 0.5; done
	local port=8888
	if [ -n "${link_args:-}" ]; then
		# shellcheck disable=SC2086 # the arguments are words
		"$bin/udplink" -listen 127.0.0.1:8889 -to 127.0.0.1:8888 $link_args >"$pd/udplink.log" 2>&1 &
		link=$!
		pids+=("$link")
		port=8889
	fi
	px4cmd uxrce_dds_client start -t udp -h 127.0.0.1 -p "$port" >/dev/null
	sleep 5
	say "arm, take off, hover ${HOVER_S} s"
	px4cmd commander arm
	px4cmd commander takeoff
	sleep "$HOVER_S"
}

# finish FROM_NS TO_NS FAULT: land, stop everything, audit, summarise.
finish() {
	local from="$1" to="$2" fault="$3"
	sleep "$AFTER_S"
	say "land and disarm, load average $(load)"
	echo "$(load)" >"$pd/load_end"
	px4cmd commander land || true
	for _ in $(seq 40); do px4cmd commander status 2>&1 | grep -q "arming_state: DISARMED\|Disarmed\|disarmed" && break; sleep 1; done
	px4cmd commander disarm 2>/dev/null || true
	sleep 2
	stop_all
	audit "$from" "$to" "$fault"
}

audit() {
	local from="$1" to="$2" fault="$3"
	printf '%s\n%s\n%s\n' "$from" "$to" "$fault" >"$pd/fault"
	# ros2 launch names the node's exit: "process has finished cleanly" or
	# "process has died [pid N, exit code C, ...]".
	# The launch starts one process: the node (under NODE_BIN's wrapper,
	# it carries the wrapper's name).
	local node_exit=0
	if grep -q "\]: process has died" "$pd/ghost.log"; then
		node_exit="$(grep -m1 -o '\]: process has died \[pid [0-9]*, exit code -\?[0-9]*' "$pd/ghost.log" | grep -o -- '-\?[0-9]*$')"
	fi
	echo "$node_exit" >"$pd/node_exit"
	local flags=(--policy-file "$POLICY" --config "$share/config/px4_sitl.yaml")
	[ -n "$EXECUTOR" ] && flags+=(--executor "$EXECUTOR")
	set +e
	dn verify "$pd/node.mcap" "${flags[@]}" >"$pd/verify_node.txt" 2>&1
	echo $? >"$pd/verify_node_exit"
	dn verify "$pd/bag" "${flags[@]}" >"$pd/verify_bag.txt" 2>&1
	echo $? >"$pd/verify_bag_exit"
	dn latency "$pd/node.mcap" --json "$pd/latency.json" >"$pd/latency.txt" 2>&1
	faultsum --from-ns "$from" --to-ns "$to" --node "$pd/node.mcap" --bag "$pd/bag/bag_0.mcap" >"$pd/summary.txt" 2>&1
	# A restarted node's recordings, each audited on its own.
	local r
	for r in "$pd"/node_restart*.mcap; do
		[ -e "$r" ] || continue
		dn verify "$r" "${flags[@]}" >"${r%.mcap}.verify.txt" 2>&1
		echo $? >"${r%.mcap}.verify_exit"
	done
	set -e
}

# phase_kill: SIGKILL to the node mid-flight, launch_ros respawning it.
phase_kill() {
	start "$out/kill" respawn:=true respawn_delay:=1.0
	local from to pid ready
	# launch names the process it started: under NODE_BIN, the wrapper,
	# which execs the node in place.
	pid="$(grep -m1 -o 'process started with pid \[[0-9]*\]' "$pd/ghost.log" | grep -o '[0-9]*')"
	from=$(now_ns)
	say "decision_node (pid $pid) killed with SIGKILL"
	kill -KILL "$pid"
	for _ in $(seq 60); do [ "$(grep -c 'decision node ready' "$pd/ghost.log")" -ge 2 ] && break; sleep 0.5; done
	to=$(now_ns)
	# slog's own time= field (a space before it; use_sim_time= has none).
	ready="$(grep 'decision node ready' "$pd/ghost.log" | sed -n 2p | grep -o ' time=[^ ]*' | head -n 1 | cut -d= -f2)"
	if [ -n "$ready" ]; then
		say "respawned: ready at $ready"
		date -d "$ready" +%s%N >"$pd/respawn_ready_ns"
	else
		say "not respawned within 30 s"
	fi
	grep -m1 -o 'decision node restarted[^"]*' "$pd/ghost.log" >"$pd/restarted.txt" || true
	finish "$from" "$to" "node SIGKILLed, respawned by launch"
	if [ -s "$pd/respawn_ready_ns" ] && [ -e "$pd/node_restart001.mcap" ]; then
		"$bin/timeline" --event-ns "$(cat "$pd/respawn_ready_ns")" "$pd/node_restart001.mcap" >"$pd/restart_timeline.txt" 2>&1 || true
	fi
}

phase_agent() {
	start "$out/agent"
	local from to
	from=$(now_ns)
	say "agent killed for ${AGENT_DOWN_S} s"
	kill -KILL "$agent"
	sleep "$AGENT_DOWN_S"
	to=$(now_ns)
	say "agent started again"
	start_agent
	finish "$from" "$to" "agent killed ${AGENT_DOWN_S} s"
}

# linkfault PHASE ARGS: the fault on the PX4-agent link (udplink ARGS)
# for FAULT_S seconds.
linkfault() {
	local name="$1"
	link_args="$2" start "$out/$name"
	local from to
	from=$(now_ns)
	say "link fault on: $2, ${FAULT_S} s"
	kill -USR1 "$link"
	sleep "$FAULT_S"
	kill -USR2 "$link"
	to=$(now_ns)
	say "link fault off"
	finish "$from" "$to" "link $2, ${FAULT_S} s"
}

# cgroup_for NAME PERCENT: a CPU cgroup with that quota of one core; its
# procs file in $cg_procs.
cgroup_for() {
	local name="$1" pct="$2" period=100000
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		grep -qw cpu /sys/fs/cgroup/cgroup.controllers || { echo "cgroup v2 without the cpu controller" >&2; return 1; }
		echo +cpu >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
		cg="/sys/fs/cgroup/$name"
		mkdir -p "$cg"
		echo "$((period * pct / 100)) $period" >"$cg/cpu.max"
	elif [ -d /sys/fs/cgroup/cpu ]; then
		cg="/sys/fs/cgroup/cpu/$name"
		mkdir -p "$cg"
		echo "$period" >"$cg/cpu.cfs_period_us"
		echo "$((period * pct / 100))" >"$cg/cpu.cfs_quota_us"
	else
		echo "no CPU cgroup found under /sys/fs/cgroup" >&2
		return 1
	fi
	cg_procs="$cg/cgroup.procs"
}

phase_cpu() {
	local pct
	for pct in $CPU_LEVELS; do
		local name="ghostfaults-cpu$pct-$$"
		cgroup_for "$name" "$pct"
		# shellcheck disable=SC2064 # $cg is fixed now
		trap "stop_all; rmdir '$cg' 2>/dev/null || true" EXIT
		# The node moves itself into the cgroup before it starts.
		mkdir -p "$out/cpu$pct"
		printf '#!/bin/sh\necho $$ >%s\nexec "$@"\n' "$cg_procs" >"$out/cpu$pct/into_cgroup.sh"
		chmod +x "$out/cpu$pct/into_cgroup.sh"
		prefix="$out/cpu$pct/into_cgroup.sh" start "$out/cpu$pct"
		local from to
		from=$(now_ns)
		say "node limited to ${pct} % of one core (since its start)"
		sleep "$FAULT_S"
		to=$(now_ns)
		finish "$from" "$to" "cpu ${pct} % of one core"
		cp "$cg/cpu.stat" "$pd/cpu.stat" 2>/dev/null || true
		rmdir "$cg" 2>/dev/null || true
	done
}

phase_diskfull() {
	local mnt="$out/diskfull/rec"
	mkdir -p "$mnt"
	mount -t tmpfs -o size=16m ghostfaults "$mnt"
	# shellcheck disable=SC2064 # $mnt is fixed now
	trap "stop_all; umount '$mnt' 2>/dev/null || true" EXIT
	rec_path="$mnt/node.mcap" start "$out/diskfull"
	local from to
	from=$(now_ns)
	say "recording filesystem filled"
	dd if=/dev/zero of="$mnt/filler" bs=64k 2>/dev/null || true
	sleep "$FAULT_S"
	to=$(now_ns)
	sleep "$AFTER_S"
	say "land and disarm, load average $(load)"
	echo "$(load)" >"$pd/load_end"
	px4cmd commander land || true
	for _ in $(seq 40); do px4cmd commander status 2>&1 | grep -q "arming_state: DISARMED\|Disarmed\|disarmed" && break; sleep 1; done
	sleep 2
	stop_all
	df -k "$mnt" >"$pd/df.txt" || true
	cp "$mnt/node.mcap" "$pd/node.mcap"
	umount "$mnt"
	audit "$from" "$to" "recording fs full"
}

run_phase() {
	case "$1" in
	kill) phase_kill ;;
	agent) phase_agent ;;
	loss10) linkfault loss10 "-loss 0.1" ;;
	loss30) linkfault loss30 "-loss 0.3" ;;
	jitter) linkfault jitter "-delay 25ms -jitter 50ms" ;;
	cpu) phase_cpu ;;
	diskfull) phase_diskfull ;;
	esac
}

# Each phase runs as a script of its own (FAULTS_ONE set): a fresh shell
# with job control, whose EXIT trap stops what the phase started.
if [ -n "${FAULTS_ONE:-}" ]; then
	trap stop_all EXIT
	run_phase "${phases[0]}"
	exit 0
fi
for p in "${phases[@]}"; do
	set +e
	FAULTS_ONE=1 "$0" "$out" "$p"
	echo $? >"$out/$p.rc"
	set -e
done

# The table: one block per flight.
echo
echo "== results ($(cat "$out"/*/middleware 2>/dev/null | sort -u | tr '\n' ' '))"
for d in "$out"/*/; do
	d="${d%/}"
	[ -f "$d/fault" ] || continue
	echo
	echo "-- $(basename "$d"): $(sed -n 3p "$d/fault"); load average $(cat "$d/load_start" 2>/dev/null) at start, $(cat "$d/load_end" 2>/dev/null) at the end"
	cat "$d/summary.txt"
	echo "node exit status: $(cat "$d/node_exit")"
	echo "verify node.mcap: exit $(cat "$d/verify_node_exit"); $(grep -m1 -E 'verdict|read_incomplete|stopped' "$d/verify_node.txt" || true)"
	echo "verify bag: exit $(cat "$d/verify_bag_exit"); $(grep -m1 -E 'verdict' "$d/verify_bag.txt" || true)"
	echo "latency: $(grep -E 'decision' "$d/latency.txt" | head -2 | tr -s ' ' | tr '\n' ';')"
	for v in "$d"/node_restart*.verify_exit; do
		[ -e "$v" ] || continue
		echo "verify $(basename "${v%.verify_exit}").mcap: exit $(cat "$v"); $(grep -m1 -E 'verdict' "${v%_exit}.txt" || true)"
	done
	if [ -e "$d/restarted.txt" ]; then
		echo "restart: $(cat "$d/restarted.txt" 2>/dev/null)"
		echo "after the restarted node's ready line: $(grep -m2 -E 'first decision:| sent: ' "$d/restart_timeline.txt" 2>/dev/null | tr -s ' ' | tr '\n' ';')"
	fi
done
