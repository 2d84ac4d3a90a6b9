#!/usr/bin/env bash
# Soak: the live loop for a long flight. PX4 SITL (SIH, headless, in real
# time), the Micro XRCE-DDS agent and ghost deciding on PX4's own topics
# with the PX4 executor, all on loopback; the vehicle takes off and hovers
# until the end. Every SAMPLE_S seconds the node's resident memory, threads,
# file descriptors and CPU time are read from /proc, and its goroutines and
# heap from /diagnostics (runtime.*); at the end the split recording is
# verified as one flight and its decisions counted against the node's own.
#
#   test/sitl/soak.sh OUTDIR [DURATION_S]
#
# DURATION_S defaults to 3600. OUTDIR receives samples.tsv (one row a
# sample), events.txt (what the driver did to the vehicle), the logs, the
# recording (rec/node.mcap, rec/node_001.mcap, ...) and verify.txt. The
# script prints the table and a verdict: flat when, after the first tenth
# of the run, the least-squares growth of resident memory over that window
# stays under 5 % of its mean and goroutines and file descriptors vary by
# at most 2.
#
# It builds nothing. It needs, already built and named by the environment:
#   PX4_BUILD   a PX4 v1.15 px4_sitl_default build directory
#   XRCE_AGENT  the MicroXRCEAgent binary (or a script running it)
#   ros2        on PATH, from a sourced ROS 2 Humble with px4_msgs and ghost
# and, optionally:
#   NODE        the decision_node binary to soak (default: the installed one)
#   DN          a decision_node binary for the audit (default: go run)
#   CONFIG      parameters file (default: the checkout's config/px4_sitl.yaml)
#   POLICY      policy file (default: the checkout's px4_failsafe_like.yaml)
#   EXECUTOR    px4 (default) or "" (advisory)
#   SPLIT_S, SPLIT_MB  recording.max_duration_s (default 600) and
#               recording.max_size_mb (default 0)
#   SAMPLE_S    seconds between samples (default 60)
#
# Other PX4 instances on the same host would share PX4's sockets, the
# agent's port and DDS discovery; docs/faults.md (soak) says how to run the
# script alone in a network and mount namespace.
set -euo pipefail
set -m

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${1:?usage: soak.sh OUTDIR [DURATION_S]}"
duration="${2:-3600}"
mkdir -p "$out/rec" && out="$(cd "$out" && pwd)"

: "${PX4_BUILD:?PX4_BUILD must name a px4_sitl_default build directory}"
: "${XRCE_AGENT:?XRCE_AGENT must name the MicroXRCEAgent binary}"
command -v ros2 >/dev/null || { echo "ros2 is not on PATH: source ROS 2 Humble and the workspace with px4_msgs and ghost" >&2; exit 2; }
NODE="${NODE:-$(ros2 pkg prefix ghost)/lib/ghost/decision_node}"
CONFIG="${CONFIG:-$repo/config/px4_sitl.yaml}"
POLICY="${POLICY:-$repo/config/policies/px4_failsafe_like.yaml}"
EXECUTOR="${EXECUTOR-px4}"
SPLIT_S="${SPLIT_S:-600}" SPLIT_MB="${SPLIT_MB:-0}" SAMPLE_S="${SAMPLE_S:-60}"

export ROS_DOMAIN_ID="${ROS_DOMAIN_ID:-0}"

# An hour's recording may take a while to close.
STOP_WAIT_S="${STOP_WAIT_S:-30}"
# shellcheck source=processes.sh
. "$here/processes.sh"
ros_on_loopback
trap stop_all EXIT
say() { printf '%s  %s\n' "$(date -u +%T)" "$*"; }
event() { say "$*" | tee -a "$out/events.txt"; }

say "soak for ${duration} s, a sample every ${SAMPLE_S} s, writing to $out; $(nproc) cores, load average $(cut -d" " -f1-3 /proc/loadavg)"
"$XRCE_AGENT" udp4 -p 8888 >"$out/agent.log" 2>&1 &
pids+=($!)
# PX4's topics stay off until the node records: the recording then holds
# every input its decisions used.
start_px4 "$out" || exit 1

executor=()
[ -n "$EXECUTOR" ] && executor=(-p "executors.executor:=$EXECUTOR")
"$NODE" --ros-args --params-file "$CONFIG" -p input.source:=px4 -p "policy_file:=$POLICY" "${executor[@]}" \
	-p "recording.path:=$out/rec/node.mcap" -p "recording.max_duration_s:=$SPLIT_S" -p "recording.max_size_mb:=$SPLIT_MB" \
	>"$out/node.log" 2>&1 &
node_group=$!
pids+=($node_group)
for _ in $(seq 60); do grep -q "decision node ready" "$out/node.log" && break; sleep 1; done
grep -q "decision node ready" "$out/node.log" || { echo "the node did not start: $out/node.log" >&2; exit 1; }
# The group's leader is the node itself (no wrapper).
pid=$node_group
px4cmd uxrce_dds_client start -t udp -h 127.0.0.1 -p 8888 >/dev/null
sleep 5

# armed prints 1 when PX4 reports the vehicle armed.
armed() {
	px4cmd listener vehicle_status -n 1 2>/dev/null | awk '$1 == "arming_state:" { print ($2 == 2) ? 1 : 0; exit }'
}
fly() {
	px4cmd commander arm >/dev/null 2>&1 || true
	px4cmd commander takeoff >/dev/null 2>&1 || true
}
event "arm and take off"
fly

# diag KEY prints KEY's value in the last /diagnostics report read.
diag() { awk -v k="$1" '$0 ~ "key: " k "$" { getline; gsub(/[^0-9]/, "", $0); print; exit }' "$out/diag.yaml"; }

printf 'min\tt_s\trss_kb\tthreads\tfds\tcpu_s\tgoroutines\theap_kb\tgo_total_kb\tdecisions\trec_messages\trec_files\tarmed\tload1\n' >"$out/samples.tsv"
start=$(date +%s)
k=0
while :; do
	now=$(date +%s)
	t=$((now - start))
	kill -0 "$pid" 2>/dev/null || { event "the node exited at ${t} s"; break; }
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
	threads=$(awk '/^Threads:/ { print $2 }' "/proc/$pid/status")
	fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l)
	cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' "/proc/$pid/stat")
	timeout 30 ros2 topic echo --once /diagnostics diagnostic_msgs/msg/DiagnosticArray >"$out/diag.yaml" 2>/dev/null || : >"$out/diag.yaml"
	a=$(armed)
	heap=$(diag runtime.heap_bytes)
	gomem=$(diag runtime.total_bytes)
	printf '%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$t" "$rss" "$threads" "$fds" "$cpu" \
		"$(diag runtime.goroutines)" "$((${heap:-0} / 1024))" "$((${gomem:-0} / 1024))" "$(diag decisions)" \
		"$(diag recording.messages)" "$(diag recording.files)" "${a:-?}" "$(cut -d" " -f1 /proc/loadavg)" >>"$out/samples.tsv"
	tail -n 1 "$out/samples.tsv"
	if [ "$t" -ge "$duration" ]; then
		break
	fi
	if [ "${a:-1}" = 0 ]; then
		event "disarmed at ${t} s: arm and take off again"
		fly
	fi
	k=$((k + 1))
	sleep $((start + k * SAMPLE_S - $(date +%s) > 0 ? start + k * SAMPLE_S - $(date +%s) : 0))
done

say "stop the node (SIGINT), then PX4 and the agent; load average $(cut -d" " -f1-3 /proc/loadavg)"
kill -INT "$pid" 2>/dev/null || true
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
stop_all
trap - EXIT
# The daemon `ros2 topic echo` started outlives the script otherwise.
ros2 daemon stop >/dev/null 2>&1 || true

say "audit"
flags=(--policy-file "$POLICY" --config "$CONFIG")
[ -n "$EXECUTOR" ] && flags+=(--executor "$EXECUTOR")
set +e
dn verify "$out/rec" "${flags[@]}" >"$out/verify.txt" 2>&1
verified=$?
set -e
decided=$(grep -o 'msg="decision node stopped".*' "$out/node.log" | grep -o ' decisions=[0-9]*' | cut -d= -f2)

echo
column -t -s $'\t' "$out/samples.tsv"
echo
echo "== files"
ls -l "$out/rec"
echo
echo "== verify (exit $verified)"
grep -E "^decisions|verdict|files" "$out/verify.txt" || tail -5 "$out/verify.txt"
echo "decided by the node: ${decided:-unknown}"
echo
echo "== vehicle"
cat "$out/events.txt"
echo
# The second half's RSS slope, for a run whose memory steps up early and
# then stays (the verdict below does not use it).
awk -F'\t' -v from="$((duration / SAMPLE_S / 2))" 'NR > 1 && $1 >= from && $7 != "" {
	n++; x = $2 / 60; y = $3; sx += x; sy += y; sxx += x * x; sxy += x * y
} END {
	if (n >= 3) printf "second half: %d samples, RSS slope %.1f kB/min\n", n, (n * sxy - sx * sy) / (n * sxx - sx * sx)
}' "$out/samples.tsv"
# Flat: after the first tenth (start-up, discovery, take-off), the
# least-squares slope of RSS times the window is under 5 % of the mean,
# and goroutines and fds vary by at most 2.
awk -F'\t' -v skip="$((duration / SAMPLE_S / 10))" 'NR > 1 && $1 >= skip && $7 != "" {
	n++; x = $2 / 60; y = $3; sx += x; sy += y; sxx += x * x; sxy += x * y
	if (n == 1 || x < x0) x0 = x; if (x > x1) x1 = x
	if (n == 1 || $7 < gmin) gmin = $7; if ($7 > gmax) gmax = $7
	if (n == 1 || $5 < fmin) fmin = $5; if ($5 > fmax) fmax = $5
} END {
	if (n < 3) { print "verdict: too few samples"; exit 1 }
	slope = (n * sxy - sx * sy) / (n * sxx - sx * sx); mean = sy / n; grow = slope * (x1 - x0)
	printf "window: %d samples, %.0f min; RSS mean %.0f kB, slope %.1f kB/min (%.0f kB over the window, %.1f %%)\n", n, x1 - x0, mean, slope, grow, 100 * grow / mean
	printf "goroutines %d..%d, fds %d..%d\n", gmin, gmax, fmin, fmax
	flat = (grow < 0.05 * mean && gmax - gmin <= 2 && fmax - fmin <= 2)
	print (flat ? "verdict: flat" : "verdict: NOT flat")
	exit !flat
}' "$out/samples.tsv"
