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

# ros_on_loopback (test/loopback.sh) keeps ROS 2 on this host's loopback.
# shellcheck source=../loopback.sh
. "$(dirname "${BASH_SOURCE[0]}")/../loopback.sh"
