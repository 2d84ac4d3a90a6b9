#!/usr/bin/env bash
# The GPS-loss flight of test/sitl/gps_loss.sh, flown through compose.yaml:
# PX4 SITL (SIH, or Gazebo with SIM=gz), the agent, ghost (advisory unless
# GHOST_ARGS says otherwise) and the recorder, each in its container, all on
# loopback.
#
#   PX4_BUILD=... XRCE_AGENT_DIR=... test/container/sitl.sh [OUTDIR]
#   SIM=gz GZ_IMAGE=... GZ_MODELS=... [GZ_PREFIX=...] PX4_BUILD=... test/container/sitl.sh [OUTDIR]
#
# It builds nothing. It needs the ghost image with px4_msgs (GHOST_IMAGE),
# the variables compose.yaml documents, and a compose that reads it
# (COMPOSE, default "docker compose"). It arms, takes off and hovers through
# PX4's own shell, stops the simulated GPS, starts it again, lands, stops
# the services with their stop signal and audits the recorder's bag with
# decision_node verify inside the ghost image. Without a compose or the
# PX4 build it says so and exits 0.
#
#   SIM          sih (default: compose.yaml alone) or gz (compose.yaml with
#                compose.gazebo.yaml: the Gazebo server and PX4 standalone
#                against it, the variables that file documents)
#   ROS_DISTRO   jazzy (default: compose.yaml's images) or humble
#                (compose.humble.yaml after compose.yaml: Humble's images,
#                ghost:humble unless GHOST_IMAGE says otherwise)
#   HOVER_S, LOSS_S, BACK_S  seconds of hover, of GPS loss, after GPS is back
#   VERIFY_ARGS  verify's flags, matching GHOST_ARGS (default: the
#                px4_failsafe_like policy compose.yaml launches ghost with)
#
# The outputs are the same for both: compose.log, the recorder's bag,
# echo.txt, verify_bag.txt and PX4's working directory px4/ (ULog in log/).
#
# compose.yaml starts PX4 only once the recorder's healthcheck passes.
# podman runs healthchecks from systemd timers; where it has none (podman
# 4.3 with cgroupfs), this script runs them itself while compose waits.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
skip() { echo "SKIP: $*"; exit 0; }
say() { printf '%s  %s\n' "$(date +%T)" "$*"; }

read -r -a compose <<<"${COMPOSE:-docker compose}"
"${compose[@]}" version >/dev/null 2>&1 || skip "no compose (${compose[*]})"
[ -x "${PX4_BUILD:-}/bin/px4" ] || skip "PX4_BUILD must name a px4_sitl_default build directory"
[ -x "${XRCE_AGENT_DIR:-/usr/local}/bin/MicroXRCEAgent" ] || skip "no bin/MicroXRCEAgent under XRCE_AGENT_DIR"
SIM="${SIM:-sih}"
files=(-f "$repo/compose.yaml")
case "${ROS_DISTRO:-jazzy}" in
jazzy) IMAGE="${GHOST_IMAGE:-ghost}" ;;
humble)
	files+=(-f "$repo/compose.humble.yaml")
	IMAGE="${GHOST_IMAGE:-ghost:humble}"
	;;
*) echo "ROS_DISTRO must be jazzy or humble, not \"$ROS_DISTRO\"" >&2; exit 2 ;;
esac
case "$SIM" in
sih) ;;
gz)
	files+=(-f "$repo/compose.gazebo.yaml")
	[ -e "$PX4_BUILD/bin/px4-gz_bridge" ] || skip "PX4_BUILD has no gz_bridge: build PX4 with Gazebo (make px4_sitl)"
	models="${GZ_MODELS:-$repo/../PX4-Autopilot/Tools/simulation/gz}"
	[ -f "$models/worlds/${GZ_WORLD:-default}.sdf" ] && [ -f "$models/server.config" ] ||
		skip "GZ_MODELS must name PX4-gazebo-models (worlds/${GZ_WORLD:-default}.sdf, server.config)"
	;;
*) echo "SIM must be sih or gz, not \"$SIM\"" >&2; exit 2 ;;
esac
HOVER_S="${HOVER_S:-20}" LOSS_S="${LOSS_S:-30}" BACK_S="${BACK_S:-20}"
# The container engine for the audit: podman when there is one (its Docker
# API, under podman 4.3, loses the exit status of `docker run --rm`).
engine=podman
command -v podman >/dev/null || engine=docker

# Outputs go to OUTDIR, by default a new folder under $TMPDIR (or /tmp),
# never inside the checkout.
out="${1:-${TMPDIR:-/tmp}/ghost-sitl-compose-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out" && out="$(cd "$out" && pwd)"
export RECORD_DIR="$out"
project="ghost-sitl-$$"
dc() { "${compose[@]}" "${files[@]}" -p "$project" "$@"; }
pump=""
down() {
	[ -z "$pump" ] || kill "$pump" 2>/dev/null || true
	dc logs --no-color >"$out/compose.log" 2>&1 || true
	dc down -t 10 >/dev/null 2>&1 || true
}
trap down EXIT

# wait_for SERVICE TEXT SECONDS
wait_for() {
	for _ in $(seq "$3"); do
		dc logs --no-color "$1" 2>&1 | grep -q -F "$2" && return 0
		sleep 1
	done
	echo "no \"$2\" from $1 in $3 s: $out/compose.log" >&2
	return 1
}
px4() { dc exec -T px4-sitl sh -c '"$(dirname "$PX4_BIN")/px4-$0" "$@"' "$@"; }

# run_healthchecks: runs the project's pending healthchecks every 2 s,
# for a podman that does not run them itself.
run_healthchecks() {
	while :; do
		for c in $(podman ps --filter "label=com.docker.compose.project=$project" --filter health=starting --format '{{.Names}}' 2>/dev/null); do
			podman healthcheck run "$c" >/dev/null 2>&1 || true
		done
		sleep 2
	done
}

say "compose up, SIM=$SIM (project $project, outputs in $out)"
if command -v podman >/dev/null; then
	run_healthchecks &
	pump=$!
fi
up=0
dc up -d || up=$?
[ -z "$pump" ] || { kill "$pump"; wait "$pump" 2>/dev/null || true; pump=""; }
[ "$up" -eq 0 ] || { echo "compose up failed ($up): $out/compose.log" >&2; exit 1; }
[ "$SIM" = gz ] && wait_for px4-sitl "Gazebo simulator" 60
wait_for px4-sitl "Ready for takeoff" 180
wait_for px4-sitl "localhost-only participant" 60
wait_for ghost "decision node ready" 60
sleep 5 # discovery between the agent's participant, ghost and the recorder

say "arm, take off, hover ${HOVER_S} s"
px4 commander arm
px4 commander takeoff
say "ros2 topic echo --once /decisions, in the recorder's container"
timeout 30 "${compose[@]}" "${files[@]}" -p "$project" exec -T recorder \
	/ghost_entrypoint.sh ros2 topic echo --once /decisions >"$out/echo.txt" 2>&1 || true
grep -E "^  (kind|reason):|^policy_id:" "$out/echo.txt" || true
sleep "$HOVER_S"
say "GPS off for ${LOSS_S} s"
# Under load PX4 can answer "timeout, forcing stop" with a failing status;
# the simulated GPS is stopped all the same.
px4 sensor_gps_sim stop || true
sleep "$LOSS_S"
say "GPS on again"
px4 sensor_gps_sim start
sleep "$BACK_S"
say "land"
px4 commander land || true
for _ in $(seq 60); do
	px4 listener vehicle_status -n 1 2>&1 | grep -q "arming_state: 1" && break
	sleep 1
done

say "compose stop (SIGINT to each service)"
dc stop -t 10
down
trap - EXIT

bag="$(cd "$out" && ls -d bag-* | head -n 1)"
say "verify $bag inside the ghost image"
set +e
read -r -a vargs <<<"${VERIFY_ARGS:---policy-file /ws/install/ghost/share/ghost/config/policies/px4_failsafe_like.yaml}"
"$engine" run --rm -v "$out:/data" "$IMAGE" /ws/install/ghost/lib/ghost/decision_node verify --quiet \
	"${vargs[@]}" "/data/$bag" >"$out/verify_bag.txt" 2>&1
v=$?
set -e
cat "$out/verify_bag.txt"
echo
grep -iE "failsafe|gps|land|takeoff" "$out/compose.log" | grep px4-sitl | tail -15 || true
echo "SIM=$SIM verify exit $v; outputs in $out (compose.log, $bag/, px4/log/)"
[ "$v" -eq 0 ]
