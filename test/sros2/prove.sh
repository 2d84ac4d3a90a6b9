#!/usr/bin/env bash
# SROS2 on a real ROS 2 graph: with ROS_SECURITY_ENABLE=true and
# ROS_SECURITY_STRATEGY=Enforce, only participants the keystore knows, and
# permits, feed the decision node or read what it publishes.
#
#   test/sros2/prove.sh [OUTDIR]
#
# This script builds nothing. It needs, already built and sourced:
#   ros2        ROS 2 (Humble or Jazzy) with sros2, rosbag2 (MCAP storage), the
#               middleware to prove, and the ghost package (colcon build)
#   the middleware's security plugins: Fast DDS (rmw_fastrtps_cpp, ROS 2's
#               default) has them inside libfastrtps when it was built
#               with SECURITY=ON; Cyclone DDS (rmw_cyclonedds_cpp) loads
#               libdds_security_{auth,ac,crypto}.so from
#               DDS_SECURITY_LIB_DIR, LD_LIBRARY_PATH or the linker's path,
#               or the private directory of Debian's libddsc0debian
# The middleware is RMW_IMPLEMENTATION, as everywhere in ROS 2 (unset: ROS
# 2's default); the script never replaces it, and prints which one ran.
# Without ros2, sros2, the ghost package or the plugins it prints SKIP and
# exits 0. Optional: SROS2_DOMAIN_ID, the ROS_DOMAIN_ID it runs in (default
# 73: a domain of its own, so that no other graph on this host is recorded
# or heard; the keystore is made for it), px4_msgs in the environment (else
# the PX4 enclaves are not started).
#
# It makes a keystore in OUTDIR with the node's enclaves
# (config/sros2/decision_node.policy.xml) and the test participants'
# (participants.policy.xml here), then shows, each run with a fresh node:
#   enclave  the node with --enclave naming no enclave of the keystore does
#            not start; launched with enclave:=/ghost/decision_node it does,
#            and rcl names that enclave's directory. Each enclave of the
#            policy starts the node run its way; an enclave refuses the node
#            what another way needs (commanding PX4, publishing /state/nav).
#   (a)      a secured vehicle (ros2 bag play of a sim recording) feeds the
#            secured node: a secured listener sees its decisions, as many as
#            the node made, and a secured recorder's bag verifies.
#   (b)      the same vehicle without keys is not heard: zero decisions, the
#            node received nothing.
#   (c)      a participant with keys whose permissions do not include
#            publishing /state/nav: its /state/nav publisher is refused, the
#            node receives its self-assessments but no belief, and decides
#            nothing.
#   (d)      during (a), a recorder without keys (ros2 bag record -a) records
#            no ghost message, and ros2 topic list without keys lists none of
#            the node's topics. Where it may open a raw socket (root), it also
#            captures every UDP packet on loopback to or from the node's
#            ports: during (a) none holds readable decision text, while the
#            same capture of an unsecured node and vehicle does.
# Every process it starts it stops by PID. Results: OUTDIR/results.txt; the
# exit status is 1 if a check failed.
set -euo pipefail
set -m # background jobs get SIGINT, so every process can be stopped cleanly

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

skip() { echo "SKIP: $*"; exit 0; }
command -v ros2 >/dev/null || skip "ros2 is not on PATH (source ROS 2 and the workspace with ghost)"
prefix="$(ros2 pkg prefix ghost 2>/dev/null)" || skip "the ghost package is not in the sourced environment"
ros2 security -h >/dev/null 2>&1 || skip "sros2 (ros2 security) is not installed"
RMW="${RMW_IMPLEMENTATION:-rmw_fastrtps_cpp}"
case "$RMW" in
rmw_fastrtps_cpp | rmw_cyclonedds_cpp) ;;
*) skip "RMW_IMPLEMENTATION is $RMW; this proof knows rmw_fastrtps_cpp and rmw_cyclonedds_cpp" ;;
esac
if [ -n "${RMW_IMPLEMENTATION:-}" ]; then echo "middleware: $RMW (RMW_IMPLEMENTATION)"; else echo "middleware: $RMW (the ROS 2 default)"; fi

# Cyclone dlopens its security plugins by name, so their directory goes on
# LD_LIBRARY_PATH (Debian's libddsc also tries its private directory).
plugins="${DDS_SECURITY_LIB_DIR:-}"
if [ "$RMW" = rmw_cyclonedds_cpp ] && [ -z "$plugins" ] && ! ldconfig -p 2>/dev/null | grep -q libdds_security_auth.so; then
	for d in ${LD_LIBRARY_PATH//:/ }; do [ -e "$d/libdds_security_auth.so" ] && plugins="$d" && break; done
	if [ -z "$plugins" ] && command -v dpkg >/dev/null; then
		f="$(dpkg -L libddsc0debian 2>/dev/null | grep -m1 '/libdds_security_auth\.so$' || true)"
		[ -n "$f" ] && plugins="$(dirname "$f")"
	fi
	[ -n "$plugins" ] || skip "Cyclone DDS's security plugins (libdds_security_auth.so) not found; set DDS_SECURITY_LIB_DIR"
fi
if [ -n "$plugins" ]; then export LD_LIBRARY_PATH="$plugins${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi

# Outputs go to OUTDIR, by default a new folder under $TMPDIR (or /tmp),
# never inside the checkout.
out="${1:-${TMPDIR:-/tmp}/ghost-sros2-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out" && out="$(cd "$out" && pwd)"
cd "$out"
DN="$prefix/lib/ghost/decision_node"
CFG="$prefix/share/ghost/config"
POLICY="$repo/config/sros2/decision_node.policy.xml"
PARTICIPANTS="$here/participants.policy.xml"
LAUNCH="$repo/launch/decision.launch.py"

# Everything stays on this host, in a domain of its own: the keystore's
# governance and permissions name the domain in force when they are made.
# Loopback the way the sourced distro reads it (test/loopback.sh).
export RCUTILS_COLORIZED_OUTPUT=0
# shellcheck source=../loopback.sh
. "$here/../loopback.sh"
ros_on_loopback
export ROS_DOMAIN_ID="${SROS2_DOMAIN_ID:-73}"
transport=""
if [ "$RMW" = rmw_fastrtps_cpp ]; then
	# Fast DDS carries data between processes of one host through shared
	# memory (the loopback settings above keep that transport), where no packet
	# capture can look. Here every participant uses one UDPv4 transport bound
	# to loopback instead, so traffic stays on this host and (d) sees every
	# byte the participants exchange.
	cat >"$out/fastdds-loopback-udp.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<profiles xmlns="http://www.eprosima.com/XMLSchemas/fastRTPS_Profiles">
  <transport_descriptors>
    <transport_descriptor>
      <transport_id>loopback_udp</transport_id>
      <type>UDPv4</type>
      <interfaceWhiteList><address>127.0.0.1</address></interfaceWhiteList>
    </transport_descriptor>
  </transport_descriptors>
  <participant profile_name="loopback_udp_only" is_default_profile="true">
    <rtps>
      <userTransports><transport_id>loopback_udp</transport_id></userTransports>
      <useBuiltinTransports>false</useBuiltinTransports>
    </rtps>
  </participant>
</profiles>
XML
	# The profile must be the participant's whole transport: Humble leaves
	# it so with ROS_LOCALHOST_ONLY=0; from Jazzy on, the discovery range
	# LOCALHOST replaces it with shared memory and UDP, and only
	# SYSTEM_DEFAULT leaves Fast DDS's own configuration alone.
	export FASTRTPS_DEFAULT_PROFILES_FILE="$out/fastdds-loopback-udp.xml"
	if [ "${ROS_DISTRO:-humble}" = humble ]; then
		export ROS_LOCALHOST_ONLY=0
	else
		export ROS_AUTOMATIC_DISCOVERY_RANGE=SYSTEM_DEFAULT
	fi
	transport="UDPv4 on loopback only, no shared memory ($FASTRTPS_DEFAULT_PROFILES_FILE)"
fi
unset ROS_SECURITY_ENABLE ROS_SECURITY_STRATEGY ROS_SECURITY_KEYSTORE ROS_SECURITY_ENCLAVE_OVERRIDE
KS="$out/keystore"
# Command prefixes (external commands, so that a PID taken with $! is the
# tool's own): the node takes its enclave from --enclave, the ROS 2 tools
# from ROS_SECURITY_ENCLAVE_OVERRIDE.
secured=(env ROS_SECURITY_KEYSTORE="$KS" ROS_SECURITY_ENABLE=true ROS_SECURITY_STRATEGY=Enforce)
vehicle=("${secured[@]}" ROS_SECURITY_ENCLAVE_OVERRIDE=/ghost_test/vehicle)
listener=("${secured[@]}" ROS_SECURITY_ENCLAVE_OVERRIDE=/ghost_test/listener)
intruder=("${secured[@]}" ROS_SECURITY_ENCLAVE_OVERRIDE=/ghost_test/intruder)

pids=()
stop() { # stop PID...: SIGINT, then SIGKILL after 15 s; forgets them
	local p q keep=()
	for p in "$@"; do kill -INT "$p" 2>/dev/null || true; done
	for p in "$@"; do
		for _ in $(seq 75); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	for q in "${pids[@]}"; do [[ " $* " == *" $q "* ]] || keep+=("$q"); done
	pids=("${keep[@]}")
}
stop_all() { if ((${#pids[@]})); then stop "${pids[@]}"; fi; }
trap stop_all EXIT
start() { # start LOG CMD...: run CMD in the background; its PID in $!
	"${@:2}" >"$1" 2>&1 &
	pids+=($!)
}
wait_for() { # wait_for LOG PATTERN PID SECONDS: PATTERN in LOG while PID lives
	local i
	for ((i = 0; i < $4 * 5; i++)); do
		grep -aq -- "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || { grep -aq -- "$2" "$1" 2>/dev/null; return; }
		sleep 0.2
	done
	return 1
}

fails=0
: >results.txt
echo "middleware: $RMW${transport:+, $transport}" | tee -a results.txt
check() { # check NAME DETAIL CONDITION...
	local name="$1" detail="$2"
	shift 2
	if "$@"; then echo "PASS $name: $detail" | tee -a results.txt; else
		echo "FAIL $name: $detail" | tee -a results.txt
		fails=$((fails + 1))
	fi
}
# belief stamps echoed with --field belief_stamp_sim_ns, one a decision
count_decisions() { grep -cE '^-?[0-9]+$' "$1" 2>/dev/null || true; }
# the count the node logs when it stops
node_decisions() { { grep -ao 'decision node stopped.* decisions=[0-9]*' "$1" | grep -o '[0-9]*$' | tail -1; } 2>/dev/null || true; }
diag() { # diag ECHO_LOG KEY: the last value of KEY in echoed /diagnostics
	awk -v k="key: $2" '$0 ~ k"$" {getline; gsub(/[^0-9]/, "", $0); v=$0} END {print (v == "" ? "none" : v)}' "$1" 2>/dev/null || echo none
}

# A recorder below DDS: counts the UDP packets on loopback to or from PORTS
# (comma-separated), the RTPS ones, and those in which MARKER is readable,
# until SIGINT.
SNIFF='
import socket, struct, sys
ports = {int(p) for p in sys.argv[1].split(",") if p}
marker = sys.argv[2].encode()
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.ntohs(3))
s.bind(("lo", 0))
n = rtps = readable = 0
try:
    while True:
        pkt, addr = s.recvfrom(65535)
        if addr[2] == socket.PACKET_OUTGOING:  # loopback shows each packet twice
            continue
        ip = pkt[14:]
        if len(ip) < 28 or ip[0] >> 4 != 4 or ip[9] != 17:
            continue
        h = (ip[0] & 15) * 4
        sport, dport = struct.unpack("!HH", ip[h:h + 4])
        if sport in ports or dport in ports:
            data = ip[h + 8:]
            n += 1
            rtps += data[:4] == b"RTPS"
            readable += marker in data
except KeyboardInterrupt:
    pass
print(f"packets={n} rtps={rtps} readable={readable}", flush=True)
'
MARKER=uncertainty_aware_reference_v1 # the policy id, in every decision
can_sniff() { python3 -c 'import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW)' 2>/dev/null; }
node_ports() { ss -uanpH | awk -v p="pid=$1," 'index($0, p) {n = split($4, a, ":"); print a[n]}' | paste -sd, -; }
sniffed() { grep -o "$2=[0-9]*" "$1" 2>/dev/null | cut -d= -f2 || true; } # sniffed FILE packets|rtps|readable

# --- keystore ---------------------------------------------------------------
echo "keystore for ROS_DOMAIN_ID=$ROS_DOMAIN_ID in $KS"
rm -rf "$KS"
quiet() { "$@" >>keystore.log 2>&1 || { cat keystore.log; exit 1; }; }
quiet ros2 security create_keystore "$KS"
for e in decision_node decision_node_acting decision_node_px4; do
	quiet ros2 security create_enclave "$KS" "/ghost/$e"
	quiet ros2 security create_permission "$KS" "/ghost/$e" "$POLICY"
done
for e in vehicle listener intruder; do
	quiet ros2 security create_enclave "$KS" "/ghost_test/$e"
	quiet ros2 security create_permission "$KS" "/ghost_test/$e" "$PARTICIPANTS"
done

# The vehicle's recording: 10 s of the embedded simulator, 101 beliefs.
quiet "$DN" sim --out sim.mcap --duration 10s --rate 10
FEED=(ros2 bag play sim.mcap --delay 3 --topics /state/nav /self_assessment /perception/mode)

# --- the enclave reaches rcl -------------------------------------------------
# rcl_init fails, and the node exits. rcl's message names the missing
# directory ("SECURITY ERROR: directory ... does not exist") but rcutils keeps
# it per thread, so rclgo sometimes reads it from another and says "error
# not set": the check is the failed init, the message is reported.
rc=0 ok=0
"${secured[@]}" timeout 60 "$DN" --ros-args --enclave /ghost/nobody >enclave.wrong.log 2>&1 || rc=$?
grep -aq "rcl: init context" enclave.wrong.log && ! grep -aq "decision node ready" enclave.wrong.log &&
	[ "$rc" != 0 -a "$rc" != 124 ] && ok=1
check "enclave: an unknown enclave" "decision_node --ros-args --enclave /ghost/nobody exits $rc: $(grep -ao 'rcl: init context: .*' enclave.wrong.log | head -1 | cut -c1-160)" \
	[ "$ok" = 1 ]

ok=0
"${secured[@]}" timeout 60 ros2 launch "$LAUNCH" enclave:=/ghost/nobody >launch.wrong.log 2>&1 || true
grep -aq "process has died.*--enclave /ghost/nobody" launch.wrong.log && grep -aq "rcl: init context" launch.wrong.log && ok=1
check "enclave: launch enclave:=/ghost/nobody" "$(grep -ao 'process has died[^,]*, exit code [0-9]*' launch.wrong.log | head -1): $(grep -ao 'rcl: init context: .*' launch.wrong.log | head -1 | cut -c1-160)" \
	[ "$ok" = 1 ]

start launch.right.log "${secured[@]}" ros2 launch "$LAUNCH" enclave:=/ghost/decision_node
lp=$!
ok=0
wait_for launch.right.log "decision node ready" "$lp" 60 && ok=1
found="$(grep -ao "Found security directory: [^ ]*" launch.right.log | head -1 | tr -d '\r' || true)"
check "enclave: launch enclave:=/ghost/decision_node" "decision node ready: $ok; rcl: ${found:-nothing found}" \
	[ "$ok" = 1 -a "$found" = "Found security directory: $KS/enclaves/ghost/decision_node" ]
stop "$lp"
check "enclave: SIGINT to ros2 launch" "the node finishes cleanly" grep -aq "process has finished cleanly" launch.right.log

# Each enclave starts the node run its way (every optional entity on), and
# refuses it what another way needs.
both="-p lifecycle:=true -p use_sim_time:=true -p seal.key_file:=$out/seal.key"
(umask 077; openssl genpkey -algorithm ed25519 -out seal.key) 2>/dev/null || both="-p lifecycle:=true -p use_sim_time:=true"
run_enclave() { # run_enclave NAME WANT(ready|refused) PATTERN ARGS...
	local name="$1" want="$2" pattern="$3" p got=refused
	shift 3
	start "way.$name.log" "${secured[@]}" "$DN" --ros-args "$@"
	p=$!
	wait_for "way.$name.log" "decision node ready" "$p" 60 && got=ready
	stop "$p"
	check "enclave: $name" "$want (${*:1:2}; $(grep -ao "$pattern" "way.$name.log" | head -1 | cut -c1-120))" \
		[ "$got" = "$want" ]
}
# shellcheck disable=SC2086
run_enclave advisory ready "Found security directory: [^ ]*" --enclave /ghost/decision_node \
	--params-file "$CFG/decision.yaml" $both -p executors.executor:=log
if ros2 pkg prefix px4_msgs >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	{
		run_enclave acting ready "Found security directory: [^ ]*" --enclave /ghost/decision_node_acting \
			--params-file "$CFG/decision.yaml" $both -p executors.executor:=px4
		run_enclave px4 ready "Found security directory: [^ ]*" --enclave /ghost/decision_node_px4 \
			--params-file "$CFG/decision.yaml" --params-file "$CFG/px4_sitl.yaml" $both -p executors.executor:=px4
		run_enclave px4-odometry ready "Found security directory: [^ ]*" --enclave /ghost/decision_node_px4 \
			--params-file "$CFG/decision.yaml" --params-file "$CFG/px4_sitl.yaml" $both -p executors.executor:=px4 -p px4.position:=odometry
		run_enclave advisory-commanding refused "advertise /fmu/in/vehicle_command[^[]*" --enclave /ghost/decision_node \
			--params-file "$CFG/decision.yaml" -p executors.executor:=px4
		run_enclave acting-publishing-beliefs refused "advertise /state/nav[^[]*" --enclave /ghost/decision_node_acting \
			--params-file "$CFG/decision.yaml" --params-file "$CFG/px4_sitl.yaml" -p executors.executor:=px4
	}
else
	echo "note: px4_msgs is not in the environment: the PX4 enclaves were not started" | tee -a results.txt
fi

# --- (a)-(d) ------------------------------------------------------------------
# node_case NAME FEEDER...: a fresh secured node and a secured listener of
# /decisions and /diagnostics; FEEDER plays the vehicle's recording. Beside
# case a, the recorders of (d) run.
node_case() {
	local name="$1" np ep dp
	shift
	start "$name.node.log" "${secured[@]}" "$DN" --ros-args --enclave /ghost/decision_node
	np=$!
	start "$name.decisions.txt" "${listener[@]}" ros2 topic echo --no-daemon /decisions ghost/msg/DecisionRationale --field belief_stamp_sim_ns
	ep=$!
	start "$name.diagnostics.txt" "${listener[@]}" ros2 topic echo --no-daemon /diagnostics diagnostic_msgs/msg/DiagnosticArray
	dp=$!
	wait_for "$name.node.log" "decision node ready" "$np" 60 || true
	# Secured discovery: the authentication handshakes take seconds, more on
	# a loaded machine. The /diagnostics listener hearing the node says its
	# handshake is done; the /decisions listener started beside it gets a
	# little longer.
	wait_for "$name.diagnostics.txt" "hardware_id" "$dp" 60 || true
	sleep 2
	[ "$name" != a ] || recorders_start "$np"
	"$@" >"$name.feed.log" 2>&1 || echo "feeder exit $?" >>"$name.feed.log"
	sleep 4 # the last decisions and a /diagnostics period
	[ "$name" != a ] || recorders_stop
	stop "$ep" "$dp" "$np"
}

# recorders_start NODE_PID: a secured recorder (the control), one without
# keys, and the packet capture of the node's ports.
recorders_start() {
	start a.rec.log "${listener[@]}" ros2 bag record -s mcap -o a_secured_rec /decisions /state/nav /self_assessment /perception/mode
	rp=$!
	start d.rec.log ros2 bag record -s mcap -a -o d_unsecured_rec
	up=$!
	sp=""
	if can_sniff; then
		start d.sniff.txt python3 -c "$SNIFF" "$(node_ports "$1")" "$MARKER"
		sp=$!
	fi
	sleep 5
	ros2 topic list --no-daemon >d.topic_list.txt 2>&1 || true
}
# shellcheck disable=SC2086
recorders_stop() { stop "$rp" "$up" $sp; }

# (a) the secured vehicle, and (d) beside it.
rm -rf a_secured_rec d_unsecured_rec
node_case a "${vehicle[@]}" "${FEED[@]}"

seen="$(count_decisions a.decisions.txt)"
made="$(node_decisions a.node.log)"
check "(a) a secured vehicle is heard" "the node made ${made:-?} decisions on $(diag a.diagnostics.txt received.state) beliefs; the secured listener saw $seen" \
	[ "${seen:-0}" -gt 0 -a "${seen:-0}" = "${made:-x}" ]
vrc=0
"$DN" verify a_secured_rec >a.verify.txt 2>&1 || vrc=$?
check "(a) the secured recorder's bag" "decision_node verify exits $vrc: $(grep -a '^verdict' a.verify.txt | head -1)" [ "$vrc" = 0 ]

ros2 bag info d_unsecured_rec >d.info.txt 2>&1 || true
ghost_in_bag="$(grep -aEc 'Topic: /(decisions|state/nav|self_assessment|perception/mode|diagnostics)' d.info.txt || true)"
ghost_bytes="$(cat d_unsecured_rec/*.mcap 2>/dev/null | grep -ac 'ghost/msg' || true)"
with_messages="$(grep -aoE 'Topic: [^ ]+ .*Count: [1-9][0-9]*' d.info.txt | awk '{print $2 "=" $NF}' | tr '\n' ' ' || true)"
check "(d) a recorder without keys" "ros2 bag record -a recorded $(grep -a 'Messages:' d.info.txt | tr -s ' ' | cut -d' ' -f2) messages (${with_messages:-none}); ghost topics in its bag: $ghost_in_bag; 'ghost/msg' in its files: $ghost_bytes" \
	[ "$ghost_in_bag" = 0 -a "$ghost_bytes" = 0 ]
check "(d) ros2 topic list without keys" "lists: $(grep -a '^/' d.topic_list.txt | tr '\n' ' ')" \
	[ -z "$(grep -aE '^/(decisions|state/nav|self_assessment|perception/mode|diagnostics)' d.topic_list.txt)" ]

if [ -s d.sniff.txt ]; then
	# The same capture of an unsecured node, vehicle and listener: the
	# capture reads decisions when they are not encrypted.
	start e.node.log "$DN"
	np=$!
	start e.decisions.txt ros2 topic echo --no-daemon /decisions ghost/msg/DecisionRationale --field belief_stamp_sim_ns
	ep=$!
	wait_for e.node.log "decision node ready" "$np" 60 || true
	start e.sniff.txt python3 -c "$SNIFF" "$(node_ports "$np")" "$MARKER"
	sp=$!
	sleep 3
	"${FEED[@]}" >e.feed.log 2>&1 || true
	sleep 2
	stop "$sp" "$ep" "$np"
	check "(d) a packet capture without keys" "loopback packets to or from the secured node during (a): $(cat d.sniff.txt), readable = holding '$MARKER'; unsecured, $(count_decisions e.decisions.txt) decisions echoed: $(cat e.sniff.txt)" \
		[ "$(sniffed d.sniff.txt rtps)" -gt 0 -a "$(sniffed d.sniff.txt readable)" = 0 -a "$(sniffed e.sniff.txt readable)" -gt 0 ]
else
	echo "note: no raw socket (not root): the packet capture was not made" | tee -a results.txt
fi

# (b) the vehicle without keys.
node_case b "${FEED[@]}"
seen="$(count_decisions b.decisions.txt)"
made="$(node_decisions b.node.log)"
check "(b) a vehicle without keys is not heard" "the node made ${made:-?} decisions, received $(diag b.diagnostics.txt received.state) beliefs and $(diag b.diagnostics.txt received.self_assessment) self-assessments; the listener saw $seen" \
	[ "${made:-x}" = 0 -a "${seen:-x}" = 0 -a "$(diag b.diagnostics.txt received.state)" = 0 ]

# (c) keys, but no permission to publish /state/nav.
node_case c "${intruder[@]}" "${FEED[@]}"
seen="$(count_decisions c.decisions.txt)"
made="$(node_decisions c.node.log)"
refused="$(grep -ao "Ignoring a topic '/state/nav'[^.]*" c.feed.log | head -1)"
check "(c) keys without permission for /state/nav" "the player: ${refused:-no refusal logged}; the node made ${made:-?} decisions, received $(diag c.diagnostics.txt received.state) beliefs and $(diag c.diagnostics.txt received.self_assessment) self-assessments; the listener saw $seen" \
	[ -n "$refused" -a "${made:-x}" = 0 -a "${seen:-x}" = 0 -a "$(diag c.diagnostics.txt received.state)" = 0 -a "$(diag c.diagnostics.txt received.self_assessment)" != 0 ]

echo
echo "results in $out/results.txt: $fails failed"
[ "$fails" = 0 ]
