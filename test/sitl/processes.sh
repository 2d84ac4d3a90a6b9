# Sourced by the SITL scripts (gps_loss.sh, faults.sh, soak.sh), not run:
# the background processes they start and stop, and the audit's binary.
# The sourcing script sets `repo` and runs with job control (set -m), so
# each background job is a process group whose ID is its PID: signalling
# the group reaches ros2 launch's children too, and a launch that is slow
# to stop cannot leave decision_node running with its recording
# unfinished.

# pids are the process groups started, in start order.
pids=()

# stop_all interrupts every group, newest first, waits up to STOP_WAIT_S
# (default 20) seconds for each, then kills what is left.
stop_all() {
	local tries=$((${STOP_WAIT_S:-20} * 5))
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		kill -INT -- "-${pids[i]}" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		for _ in $(seq "$tries"); do kill -0 -- "-$p" 2>/dev/null || break; sleep 0.2; done
		kill -KILL -- "-$p" 2>/dev/null || true
	done
	pids=()
}

# dn runs decision_node for the audit: the binary DN names, or the
# checkout's through go run.
dn() { if [ -n "${DN:-}" ]; then "$DN" "$@"; else (cd "$repo" && go run ./cmd/decision_node "$@"); fi; }

# px4cmd runs one of PX4's shell commands against the running SITL.
px4cmd() { "$PX4_BUILD/bin/px4-$1" "${@:2}"; }

# start_px4 DIR [VAR=VALUE...]: PX4 SITL from PX4_BUILD, headless, in the
# working directory DIR/px4 with its log in DIR/px4.log, SIH unless the
# variables say otherwise (they are PX4's environment); a process group of
# pids. It returns once PX4 is ready for takeoff, its uXRCE-DDS client set
# to ask for a localhost-only participant and to keep PX4's own clock in
# its stamps, and stopped: PX4's topics stay off until the caller starts
# the client, once ghost and its recorder listen.
start_px4() {
	local d="$1" env=("${@:2}")
	[ ${#env[@]} -gt 0 ] || env=(PX4_SIM_MODEL=sihsim_quadx PX4_SIMULATOR=sihsim)
	# PX4's startup script starts the client before any parameter can be
	# set: on 8887, where no agent listens, it never reaches the agent with
	# PX4's default parameters.
	env+=(PX4_UXRCE_DDS_PORT=8887)
	mkdir -p "$d/px4"
	(cd "$d/px4" && exec env "${env[@]}" "$PX4_BUILD/bin/px4" -d -w "$d/px4" "$PX4_BUILD/etc") >"$d/px4.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 120); do grep -q "Ready for takeoff" "$d/px4.log" && break; sleep 1; done
	grep -q "Ready for takeoff" "$d/px4.log" || { echo "PX4 never became ready: $d/px4.log" >&2; return 1; }
	px4cmd param set UXRCE_DDS_PTCFG 1 >/dev/null
	px4cmd param set UXRCE_DDS_SYNCT 0 >/dev/null
	px4cmd uxrce_dds_client stop >/dev/null || true
}

# ros_on_loopback (test/loopback.sh) keeps ROS 2 on this host's loopback.
# shellcheck source=../loopback.sh
. "$(dirname "${BASH_SOURCE[0]}")/../loopback.sh"
