#!/usr/bin/env bash
# GPS loss in flight, with ghost deciding on PX4's own estimate: PX4 SITL
# (SIH, the physics inside PX4, or the x500 in Gazebo Harmonic's server,
# both headless), the Micro XRCE-DDS agent, ghost launched with
# input_source:=px4 and a rosbag2 recorder, all on loopback.
#
#   test/sitl/gps_loss.sh [OUTDIR]
#   SIM=gz test/sitl/gps_loss.sh [OUTDIR]
#
# OUTDIR (default: a new ghost-sitl-<date> folder under $TMPDIR or /tmp,
# never inside the checkout) receives the recordings, logs and report.
#
# This script builds nothing. It needs, already built and named by the
# environment:
#   PX4_BUILD   a PX4 v1.15 px4_sitl_default build directory (bin/px4, etc/)
#   XRCE_AGENT  the MicroXRCEAgent binary
#   ros2        on PATH, from a sourced ROS 2 Humble with px4_msgs
#               (release/1.15) and the ghost package (colcon build)
# and, optionally:
#   SIM         sih (default: PX4's own physics) or gz (Gazebo Harmonic).
#               gz needs `gz` on PATH (Gazebo Harmonic, gz-sim 8) and a
#               PX4_BUILD configured with it, which has gz_bridge and
#               rootfs/gz_env.sh (the models and worlds of
#               Tools/simulation/gz); without them the script exits 77,
#               skipped. docs/gazebo.md has the set-up.
#   GZ_WORLD    the Gazebo world [default]
#   GZ_RTF      the world's real-time factor, e.g. 0.5 for a simulation
#               at half speed (PX4 follows it in lockstep) [the world's]
#   GZ_SIM_SERVER_CONFIG_PATH  Gazebo's server systems, as Gazebo reads it
#               [Tools/simulation/gz/server.config of the PX4 tree]
#   EXECUTOR    px4 (default: ghost commands PX4) or "" (advisory: ghost
#               only decides, PX4's own failsafe acts)
#   POLICY      a policy file (default: the installed px4_failsafe_like.yaml)
#   DN          a decision_node binary for the audit (default: go run)
#   NODE_PREFIX a command the node runs under (the launch argument
#               launch_prefix), e.g. "nice -n -10"; default none
#   HOVER_S, LOSS_S, BACK_S  seconds of hover, of GPS loss, after GPS is back
#   RMW_IMPLEMENTATION  the middleware, as everywhere in ROS 2: unset, ROS 2's
#               default (Fast DDS, rmw_fastrtps_cpp, on Humble); the script
#               never replaces it, and prints the one the node reported
#
# It arms, takes off and hovers through PX4's own shell (px4-commander),
# stops the simulated GPS (px4-sensor_gps_sim stop), lets the belief
# degrade, starts it again, lands, and stops everything by PID. Then it
# verifies both recordings, measures latency, writes the report and prints
# what followed the GPS loss. docs/px4-sitl.md says how to run it and what was checked.
set -euo pipefail
# Job control: without it the background processes below ignore SIGINT, so
# ros2 launch, the recorder and PX4 could only be killed, and the node's
# recording and the bag would not be finished.
set -m

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${1:-${TMPDIR:-/tmp}/ghost-sitl-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out" && out="$(cd "$out" && pwd)"
echo "gps_loss: writing to $out"

: "${PX4_BUILD:?PX4_BUILD must name a px4_sitl_default build directory}"
: "${XRCE_AGENT:?XRCE_AGENT must name the MicroXRCEAgent binary}"
SIM="${SIM:-sih}"
case "$SIM" in
sih | gz) ;;
*) echo "SIM must be sih or gz, not '$SIM'" >&2; exit 2 ;;
esac
# Without Gazebo the Gazebo flight is skipped, with the conventional
# status 77 of a skipped test, and says what is missing.
if [ "$SIM" = gz ]; then
	command -v gz >/dev/null || { echo "SIM=gz skipped: gz is not on PATH: source Gazebo Harmonic's environment" >&2; exit 77; }
	[ -f "$PX4_BUILD/rootfs/gz_env.sh" ] || { echo "SIM=gz skipped: $PX4_BUILD has no rootfs/gz_env.sh: PX4 was built without Gazebo (configure it with gz-transport13 found)" >&2; exit 77; }
fi
command -v ros2 >/dev/null || { echo "ros2 is not on PATH: source ROS 2 Humble and the workspace with px4_msgs and ghost" >&2; exit 2; }
share="$(ros2 pkg prefix ghost)/share/ghost"
EXECUTOR="${EXECUTOR-px4}"
POLICY="${POLICY:-$share/config/policies/px4_failsafe_like.yaml}"
HOVER_S="${HOVER_S:-20}" LOSS_S="${LOSS_S:-30}" BACK_S="${BACK_S:-20}"

# Everything stays on this host: ROS 2 on loopback, and PX4 asks the agent
# for a localhost-only participant (UXRCE_DDS_PTCFG 1). The middleware is
# the caller's: RMW_IMPLEMENTATION as given, or ROS 2's default.
export ROS_DOMAIN_ID="${ROS_DOMAIN_ID:-0}"

# shellcheck source=processes.sh
. "$here/processes.sh"
ros_on_loopback
trap stop_all EXIT
now_ns() { date +%s%N; }
say() { printf '%s  %s\n' "$(date +%T)" "$*"; }

say "agent and PX4 ($SIM; logs in $out), load average $(cut -d" " -f1-3 /proc/loadavg)"
"$XRCE_AGENT" udp4 -p 8888 >"$out/agent.log" 2>&1 &
pids+=($!)
if [ "$SIM" = gz ]; then
	# Gazebo's server runs on its own, headless, and PX4 attaches to it
	# (PX4_GZ_STANDALONE): PX4's gz_bridge spawns the x500 in the world and
	# steps in lockstep with Gazebo's clock. gz-transport stays on loopback.
	# PX4's gz_env.sh appends to GZ_SIM_RESOURCE_PATH (set -u).
	export GZ_SIM_RESOURCE_PATH="${GZ_SIM_RESOURCE_PATH:-}"
	# shellcheck source=/dev/null
	. "$PX4_BUILD/rootfs/gz_env.sh"
	export GZ_IP=127.0.0.1
	export GZ_SIM_SERVER_CONFIG_PATH="${GZ_SIM_SERVER_CONFIG_PATH:-$PX4_GZ_MODELS/../server.config}"
	GZ_WORLD="${GZ_WORLD:-default}"
	world="$PX4_GZ_WORLDS/$GZ_WORLD.sdf"
	mkdir -p "$out/gz"
	if [ -n "${GZ_RTF:-}" ]; then
		sed "s|<real_time_factor>[^<]*</real_time_factor>|<real_time_factor>$GZ_RTF</real_time_factor>|" "$world" >"$out/gz/$GZ_WORLD.sdf"
		grep -q "<real_time_factor>$GZ_RTF</real_time_factor>" "$out/gz/$GZ_WORLD.sdf" ||
			{ echo "GZ_RTF: $world sets no real_time_factor to change" >&2; exit 2; }
		world="$out/gz/$GZ_WORLD.sdf"
	fi
	(cd "$out/gz" && exec gz sim -s -r -v 2 "$world") >"$out/gz.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 60); do gz topic -l 2>/dev/null | grep -q "^/world/$GZ_WORLD/clock" && break; sleep 1; done
	gz topic -l 2>/dev/null | grep -q "^/world/$GZ_WORLD/clock" || { echo "Gazebo never served world $GZ_WORLD: $out/gz.log" >&2; exit 1; }
	px4env=(PX4_GZ_STANDALONE=1 PX4_SIM_MODEL=gz_x500 PX4_GZ_WORLD="$GZ_WORLD" HEADLESS=1)
else
	px4env=()
fi
# PX4's topics stay off until ghost and the recorder are up: the recorder
# must be subscribed to ghost's topics before ghost's first decision, or
# the bag starts with decisions whose inputs it never saw (verify fails
# them: assessment_missing).
start_px4 "$out" "${px4env[@]}" || exit 1

say "ghost (executor '${EXECUTOR}') and the recorder"
# ros2 launch refuses an empty value: advisory omits the argument.
executor=()
[ -n "$EXECUTOR" ] && executor=(executor:="$EXECUTOR")
[ -n "${NODE_PREFIX:-}" ] && executor+=(launch_prefix:="$NODE_PREFIX")
ros2 launch ghost decision.launch.py input_source:=px4 "${executor[@]}" \
	config_file:="$share/config/px4_sitl.yaml" policy_file:="$POLICY" \
	recording_path:="$out/node.mcap" >"$out/ghost.log" 2>&1 &
pids+=($!)
ros2 bag record -s mcap -o "$out/bag" --qos-profile-overrides-path "$here/recorder_qos.yaml" /decisions /decisions/actions /decisions/evidence \
	/state/nav /self_assessment /parameter_events /diagnostics \
	/fmu/out/vehicle_local_position /fmu/out/vehicle_attitude /fmu/out/vehicle_status \
	/fmu/out/battery_status /fmu/out/vehicle_gps_position /fmu/out/estimator_status_flags /fmu/out/failsafe_flags \
	/fmu/out/vehicle_command_ack /fmu/in/vehicle_command \
	>"$out/bag.log" 2>&1 &
pids+=($!)
for _ in $(seq 60); do grep -q "decision node ready" "$out/ghost.log" && break; sleep 1; done
grep -q "decision node ready" "$out/ghost.log" || { echo "ghost did not start: $out/ghost.log" >&2; exit 1; }
middleware="$(grep -m1 -o 'middleware=[a-z_]*' "$out/ghost.log" | cut -d= -f2)"
say "middleware: ${middleware:-unknown} (RMW_IMPLEMENTATION=${RMW_IMPLEMENTATION:-unset, the ROS 2 default})"
echo "${middleware:-unknown}" >"$out/middleware"
subscribed() { grep -q "Subscribed to topic '$1'" "$out/bag.log"; }
for _ in $(seq 60); do subscribed /decisions && subscribed /state/nav && subscribed /self_assessment && break; sleep 0.5; done
subscribed /decisions && subscribed /state/nav && subscribed /self_assessment ||
	{ echo "the recorder did not subscribe to ghost's topics: $out/bag.log" >&2; exit 1; }
say "PX4's topics on"
px4cmd uxrce_dds_client start -t udp -h 127.0.0.1 -p 8888 >/dev/null
sleep 5 # discovery between the agent's participant, ghost and the recorder

if [ "$SIM" = gz ]; then
	# Gazebo's real-time factor every 5 s: in lockstep PX4's clock runs at it.
	(while sleep 5; do gz topic -e -t "/world/$GZ_WORLD/stats" -n 1 2>/dev/null |
		awk -v t="$(date +%T)" '/^real_time_factor/ {print t, $2}'; done) >"$out/gz_rtf.txt" 2>&1 &
	pids+=($!)
fi

say "arm, take off, hover ${HOVER_S} s"
# PX4 refuses to arm until its estimator has settled, which takes longer
# in wall time when the simulator runs slower than real time: ask again.
armed=false
for _ in $(seq 30); do
	px4cmd commander arm >/dev/null 2>&1 || true
	if grep -q "Armed by" "$out/px4.log"; then armed=true; break; fi
	sleep 2
done
$armed || { echo "PX4 refused to arm for 60 s: $out/px4.log" >&2; exit 1; }
px4cmd commander takeoff
sleep "$HOVER_S"

loss=$(now_ns)
say "GPS off for ${LOSS_S} s"
# Under load PX4 can answer "timeout, forcing stop" with a failing status;
# the simulated GPS is stopped all the same.
px4cmd sensor_gps_sim stop || true
sleep "$LOSS_S"
back=$(now_ns)
say "GPS on again"
px4cmd sensor_gps_sim start
sleep "$BACK_S"

say "land and disarm, load average $(cut -d" " -f1-3 /proc/loadavg)"
px4cmd commander land || true
for _ in $(seq 60); do px4cmd commander status 2>&1 | grep -q "arming_state: DISARMED\|Disarmed\|disarmed" && break; sleep 1; done
px4cmd commander disarm 2>/dev/null || true
sleep 2
stop_all
trap - EXIT
echo "$loss" >"$out/gps_loss_ns"
echo "$back" >"$out/gps_back_ns"

say "audit"
flags=(--policy-file "$POLICY")
[ -n "$EXECUTOR" ] && flags+=(--executor "$EXECUTOR")
set +e
dn verify "$out/node.mcap" "${flags[@]}" --config "$share/config/px4_sitl.yaml" >"$out/verify_node.txt" 2>&1
v_node=$?
dn verify "$out/bag" "${flags[@]}" --config "$share/config/px4_sitl.yaml" >"$out/verify_bag.txt" 2>&1
v_bag=$?
dn latency "$out/node.mcap" --json "$out/latency.json" >"$out/latency.txt" 2>&1
dn report "$out/node.mcap" --out "$out/report.html" "${flags[@]}" --config "$share/config/px4_sitl.yaml" >"$out/report.txt" 2>&1
(cd "$repo" && go run ./test/sitl/timeline --event-ns "$loss" "$out/node.mcap") >"$out/timeline.txt" 2>&1
# Honesty against the simulator's own truth: PX4's ULog holds it
# (*_groundtruth, which SIH and Gazebo's gz_bridge fill from the physics).
ulg="$(ls -t "$out"/px4/log/*/*.ulg 2>/dev/null | head -1)"
h=1
if [ -n "$ulg" ]; then
	dn ulog --in "$ulg" --out "$out/ulog.mcap" --force --policy-file "$POLICY" --config "$share/config/px4_sitl.yaml" >"$out/ulog.txt" 2>&1
	dn honesty "$out/ulog.mcap" --json "$out/honesty.json" >"$out/honesty.txt" 2>&1
	h=$?
fi
set -e

echo
echo "== middleware: ${middleware:-unknown}"
echo
echo "== what followed the GPS loss (ghost's own recording)"
cat "$out/timeline.txt"
echo
echo "== PX4's own log"
grep -iE "failsafe|position|gps|land|takeoff|mode" "$out/px4.log" | tail -20 || true
echo
echo "== verify: node recording exit $v_node, rosbag2 recording exit $v_bag"
grep -E "^decisions|  (proceed|hold|engage_land|engage_rtl|abstain_uncertain) |verdict" "$out/verify_node.txt" || true
grep -E "verdict" "$out/verify_bag.txt" || true
echo
echo "== latency"
cat "$out/latency.txt"
echo
echo "== honesty against the simulator's ground truth (exit $h)"
cat "$out/honesty.txt" 2>/dev/null || echo "no PX4 flight log"
if [ "$SIM" = gz ]; then
	echo
	echo "== Gazebo real-time factor (every 5 s)"
	awk '{print $2}' "$out/gz_rtf.txt" | sort -n | awk '{a[NR]=$1} END {if (NR) printf "min %s  median %s  max %s  (%d samples)\n", a[1], a[int((NR+1)/2)], a[NR], NR; else print "no sample"}'
fi
echo
echo "outputs in $out (node.mcap, bag/, report.html, px4/log/*.ulg)"
[ "$v_node" -eq 0 ] && [ "$v_bag" -eq 0 ]
