#!/usr/bin/env bash
# The ghost image built and run with podman on a host that cannot pull the
# official base images.
#
#   test/container/run.sh [OUTDIR]
#
# It makes local stand-ins for the Dockerfile's two bases and builds the
# image on them:
#   - Debian bookworm, made with debootstrap from Debian's package mirror
#     and imported (localhost/ghost-standin/debian:bookworm);
#   - golang:1.26-bookworm: that Debian with this host's Go toolchain
#     copied in (localhost/ghost-standin/golang:1.26-bookworm);
#   - ros:DISTRO-ros-base: that Debian with the Debian packages a ROS 2
#     built on bookworm needs, the ROS 2 installation of this host copied
#     to /opt/ros/DISTRO and the official image's entrypoint
#     (localhost/ghost-standin/ros:DISTRO-ros-base).
# It copies; it builds neither ROS 2 nor px4_msgs. Then it shows, all on
# loopback (host network; ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST, or on
# Humble ROS_LOCALHOST_ONLY=1):
#   1. `podman run` starts the node (the time to "decision node ready" is
#      measured), and its decisions on a `sim` recording played with
#      `ros2 bag play` verify, from the node's own recording (written to a
#      mounted directory) and from `ros2 bag record` in a second container;
#   2. `podman stop` ends the node within the grace period, exit status 0,
#      its recording complete;
#   3. with px4_msgs in the image, the node starts with input_source:=px4.
#
# Environment (all optional):
#   ROS_DISTRO       jazzy (default) or humble: the distro of the stand-in
#                    and the image's ROS_DISTRO build argument
#   ROS_INSTALL      the ROS 2 installation of that distro to copy
#                    (/opt/ros/$ROS_DISTRO)
#   PX4_MSGS         px4_msgs for the image: a colcon install tree (or a
#                    source tree, which the image build would compile)
#   GO_ROOT          the Go toolchain to copy (`go env GOROOT`)
#   GHOST_IMAGE      the tag built (localhost/ghost:$ROS_DISTRO)
#   PODMAN_RUNTIME   the OCI runtime (runc)
#   STANDIN_CACHE    where the Debian root filesystem is made
#                    (${XDG_CACHE_HOME:-~/.cache}/ghost-standin)
#   REBUILD_STANDINS 1 remakes the stand-in images
#   ROS_DOMAIN_ID    the DDS domain of the test (default: from this PID)
#   GRACE_S          podman stop's grace period (10)
#   READY_RUNS       how many `podman run` to "ready" are timed (3)
#   RMW_IMPLEMENTATION the middleware of every container the scenario runs
#                    (unset: the image's default, Fast DDS as in the
#                    official image); the summary says which one the node
#                    reported. Run it once per middleware to check both.
#   HOST_CA_BUNDLE   a CA bundle mounted over the ghost build's own
#                    (/etc/ssl/certs/ca-certificates.crt when it exists; ""
#                    for none): `go mod download` in the build then trusts
#                    what this host trusts, a TLS-intercepting proxy too
#
# Without podman, the ROS installation, or the means to make a missing
# stand-in (debootstrap as root, a Go toolchain), it says why and exits 0:
# CI has no registry and no ROS 2, and does not run this.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

skip() { echo "SKIP: $*"; exit 0; }
say() { printf '%s  %s\n' "$(date +%T)" "$*"; }
die() { echo "FAIL: $*" >&2; exit 1; }

command -v podman >/dev/null || skip "podman is not installed"
DISTRO="${ROS_DISTRO:-jazzy}"
case "$DISTRO" in humble | jazzy) ;; *) echo "ROS_DISTRO must be humble or jazzy, not \"$DISTRO\"" >&2; exit 2 ;; esac
ROS_INSTALL="${ROS_INSTALL:-/opt/ros/$DISTRO}"
[ -f "$ROS_INSTALL/setup.bash" ] || skip "no ROS 2 $DISTRO installation at $ROS_INSTALL (set ROS_INSTALL)"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/containers.conf}"

RUNTIME="${PODMAN_RUNTIME:-runc}"
IMAGE="${GHOST_IMAGE:-localhost/ghost:$DISTRO}"
DEBIAN_IMAGE=localhost/ghost-standin/debian:bookworm
GO_IMAGE=localhost/ghost-standin/golang:1.26-bookworm
ROS_IMAGE=localhost/ghost-standin/ros:$DISTRO-ros-base
CACHE="${STANDIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ghost-standin}"
GRACE_S="${GRACE_S:-10}"
READY_RUNS="${READY_RUNS:-3}"
DOMAIN="${ROS_DOMAIN_ID:-$(($$ % 100 + 1))}"

have_image() { [ "${REBUILD_STANDINS:-0}" != 1 ] && podman image exists "$1"; }

# Preconditions for the stand-ins that must be made, checked before
# anything is built so that a host without them skips cleanly.
if ! have_image "$DEBIAN_IMAGE"; then
	command -v debootstrap >/dev/null || skip "no $DEBIAN_IMAGE and no debootstrap to make it"
	[ "$(id -u)" -eq 0 ] || skip "no $DEBIAN_IMAGE, and debootstrap needs root"
fi
if ! have_image "$GO_IMAGE"; then
	GO_ROOT="${GO_ROOT:-$(go env GOROOT 2>/dev/null || true)}"
	[ -x "${GO_ROOT:-/nonexistent}/bin/go" ] || skip "no $GO_IMAGE and no Go toolchain to copy (set GO_ROOT)"
fi

# Outputs go to OUTDIR, by default a new folder under $TMPDIR (or /tmp),
# never inside the checkout.
out="${1:-${TMPDIR:-/tmp}/ghost-container-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out" && out="$(cd "$out" && pwd)"
say "outputs in $out, DDS domain $DOMAIN"

# --format docker: the OCI format drops SHELL, and the Dockerfile's RUN
# lines are bash. --network host: apt and the Go module proxy.
ca=()
HOST_CA_BUNDLE="${HOST_CA_BUNDLE-/etc/ssl/certs/ca-certificates.crt}"
[ -f "$HOST_CA_BUNDLE" ] && ca=(-v "$HOST_CA_BUNDLE:/etc/ssl/certs/ca-certificates.crt:ro")
build() { podman build --runtime "$RUNTIME" --format docker --network host "$@"; }

# The Debian packages the stand-in ROS image installs: what the ROS 2
# installation links (checked below with ldd) and imports, and what the
# official ros-base image has for building a package (compiler, CMake,
# colcon, Python headers and NumPy for the Python interfaces).
ROS_DEBIAN_PACKAGES=(
	ca-certificates build-essential cmake git pkg-config python3-dev
	colcon python3-colcon-bash python3-colcon-cmake python3-colcon-core
	python3-colcon-defaults python3-colcon-library-path python3-colcon-metadata
	python3-colcon-output python3-colcon-package-information
	python3-colcon-package-selection python3-colcon-parallel-executor
	python3-colcon-pkg-config python3-colcon-python-setup-py
	python3-colcon-recursive-crawl python3-colcon-ros python3-colcon-test-result
	python3-empy python3-lark python3-catkin-pkg python3-numpy python3-yaml
	python3-setuptools python3-argcomplete python3-netifaces python3-psutil
	python3-importlib-metadata python3-packaging python3-cryptography python3-lxml
	libyaml-dev libtinyxml2-dev libspdlog-dev libfmt-dev libzstd-dev liblz4-dev
	libsqlite3-dev libconsole-bridge-dev libyaml-cpp-dev libacl1-dev libssl-dev
	cyclonedds-dev libddsc0debian
	libiceoryx-binding-c-dev libiceoryx-posh-dev libiceoryx-hoofs-dev
	# Fast DDS, which the official image has as its default middleware; here
	# it is the library a Micro XRCE-DDS agent built on bookworm links.
	libfastrtps2.9 libfastcdr1
	# What a package built against a ROS 2 with rmw_fastrtps finds through
	# rmw_fastrtps_shared_cpp's CMake config: foonathan_memory's, and asio.
	libfoonathan-memory-dev libasio-dev
)

make_debian() {
	local rootfs="$CACHE/rootfs-bookworm"
	say "stand-in $DEBIAN_IMAGE: debootstrap (log $out/debootstrap.log)"
	rm -rf "$rootfs" && mkdir -p "$CACHE"
	debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$out/debootstrap.log" 2>&1 ||
		die "debootstrap failed: $out/debootstrap.log"
	# As the official image: no package cache, no package lists.
	rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
	tar -C "$rootfs" --numeric-owner -c . | podman import --change 'CMD ["bash"]' - "$DEBIAN_IMAGE" >/dev/null 2>>"$out/debootstrap.log"
	rm -rf "$rootfs"
}

make_go() {
	say "stand-in $GO_IMAGE: Go from $GO_ROOT"
	build -f "$here/go.Containerfile" --build-arg BASE="$DEBIAN_IMAGE" \
		--build-context go="$GO_ROOT" -t "$GO_IMAGE" "$here" >"$out/standin-go.log" 2>&1 ||
		die "the Go stand-in did not build: $out/standin-go.log"
}

make_ros() {
	say "stand-in $ROS_IMAGE: $ROS_INSTALL copied (log $out/standin-ros.log)"
	local pkgs
	pkgs="${ROS_DEBIAN_PACKAGES[*]}"
	build -f "$here/ros.Containerfile" --build-arg BASE="$DEBIAN_IMAGE" --build-arg ROS_DISTRO="$DISTRO" \
		--build-arg PACKAGES="$pkgs" --build-context ros="$ROS_INSTALL" \
		-t "$ROS_IMAGE" "$here" >"$out/standin-ros.log" 2>&1 ||
		die "the ROS stand-in did not build: $out/standin-ros.log"
	# Every library the installation links must resolve in the image.
	podman run --rm --runtime "$RUNTIME" "$ROS_IMAGE" bash -c '
		find /opt/ros/$ROS_DISTRO -type f \( -name "*.so*" -o -perm -u+x \) -print0 |
			xargs -0 ldd 2>/dev/null | grep "not found" | sort -u' >"$out/standin-ros-ldd.txt" || true
	[ ! -s "$out/standin-ros-ldd.txt" ] || die "libraries missing in $ROS_IMAGE: $out/standin-ros-ldd.txt"
}

have_image "$DEBIAN_IMAGE" || make_debian
have_image "$GO_IMAGE" || make_go
have_image "$ROS_IMAGE" || make_ros

say "ghost image $IMAGE (log $out/build.log)"
ctx=()
[ -n "${PX4_MSGS:-}" ] && ctx=(--build-context px4_msgs="$PX4_MSGS")
t0=$(date +%s%N)
build "${ca[@]}" --build-arg ROS_DISTRO="$DISTRO" --build-arg ROS_IMAGE="$ROS_IMAGE" --build-arg GO_IMAGE="$GO_IMAGE" "${ctx[@]}" \
	-t "$IMAGE" "$repo" >"$out/build.log" 2>&1 || die "the image did not build: $out/build.log"
build_s=$(( ($(date +%s%N) - t0) / 1000000 ))

# The rest is the scenario; everything it starts is removed by name.
run_id="ghost-test-$$"
started=()
cleanup() { for c in "${started[@]}"; do podman rm -f -t 0 "$c" >/dev/null 2>&1 || true; done; }
trap cleanup EXIT
# Humble reads ROS_LOCALHOST_ONLY (which also puts Cyclone DDS on
# loopback); later distros read the discovery range, warn that the first is
# deprecated, and leave Cyclone on the host's first interface unless told.
# shellcheck source=../loopback.sh
. "$here/../loopback.sh"
loopback=(-e ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST -e "CYCLONEDDS_URI=$CYCLONEDDS_LOOPBACK_URI")
[ "$DISTRO" = humble ] && loopback=(-e ROS_LOCALHOST_ONLY=1)
net=(--runtime "$RUNTIME" --network host --ipc host
	"${loopback[@]}" -e ROS_DOMAIN_ID="$DOMAIN" -v "$out:/data")
[ -n "${RMW_IMPLEMENTATION:-}" ] && net+=(-e RMW_IMPLEMENTATION="$RMW_IMPLEMENTATION")
dn=/ws/install/ghost/lib/ghost/decision_node
ns_of() { date -d "$1" +%s%N; }

# wait_log NAME TEXT SECONDS: the container's first log line with TEXT,
# with podman's timestamp; fails when it does not come in time.
wait_log() {
	local line
	for _ in $(seq $(($3 * 10))); do
		line="$(podman logs --timestamps "$1" 2>&1 | grep -m1 -F "$2" || true)"
		[ -n "$line" ] && { echo "$line"; return 0; }
		podman container exists "$1" || break
		sleep 0.1
	done
	return 1
}

say "podman run to \"decision node ready\", $READY_RUNS times"
ready_ms=()
for i in $(seq "$READY_RUNS"); do
	c="$run_id-ready$i"
	started+=("$c")
	t0=$(date +%s%N)
	podman run -d --name "$c" "${net[@]}" "$IMAGE" >/dev/null
	line="$(wait_log "$c" "decision node ready" 60)" || { podman logs "$c" >"$out/ready$i.log" 2>&1; die "no ready line: $out/ready$i.log"; }
	ready_ms+=($(( ($(ns_of "${line%% *}") - t0) / 1000000 )))
	podman stop -t "$GRACE_S" "$c" >/dev/null
done

say "a sim recording, made inside the image"
podman run --rm "${net[@]}" "$IMAGE" "$dn" sim --out /data/sim.mcap --duration 20s --rate 20 \
	>"$out/sim.txt" 2>&1 || die "sim failed: $out/sim.txt"

say "the node (in-node recording /data/node.mcap) and the recorder"
cat >"$out/node.yaml" <<'EOF'
/**:
  ros__parameters:
    recording:
      path: /data/node.mcap
EOF
node="$run_id-node" rec="$run_id-rec"
started+=("$node" "$rec")
podman run -d --name "$node" "${net[@]}" "$IMAGE" \
	ros2 launch ghost decision.launch.py config_file:=/data/node.yaml >/dev/null
wait_log "$node" "decision node ready" 60 >/dev/null || { podman logs "$node" >"$out/node.log" 2>&1; die "the node did not start: $out/node.log"; }
# rosbag2 subscribes with a history of 10, whatever the publisher keeps: a
# recorder starved of CPU for a moment lost 9 of 401 decisions in one run on
# two busy cores. The node keeps 100; so does the recorder here.
cat >"$out/recorder_qos.yaml" <<'EOF'
/decisions:
  history: keep_last
  depth: 100
  reliability: reliable
  durability: transient_local
EOF
podman run -d --name "$rec" "${net[@]}" "$IMAGE" \
	ros2 bag record -s mcap -o /data/bag --qos-profile-overrides-path /data/recorder_qos.yaml \
	/decisions /state/nav /self_assessment /perception/mode >/dev/null

say "ros2 bag play of the sim recording's inputs, in a third container"
podman run --rm "${net[@]}" "$IMAGE" ros2 bag play /data/sim.mcap --delay 3 \
	--topics /state/nav /self_assessment /perception/mode >"$out/play.log" 2>&1 || die "play failed: $out/play.log"
sleep 2

say "podman stop (SIGINT, grace ${GRACE_S} s): the node, then the recorder"
t0=$(date +%s%N)
podman stop -t "$GRACE_S" "$node" >/dev/null
stop_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
node_exit="$(podman inspect -f '{{.State.ExitCode}}' "$node")"
podman logs "$node" >"$out/node.log" 2>&1
sleep 1
podman stop -t "$GRACE_S" "$rec" >/dev/null
rec_exit="$(podman inspect -f '{{.State.ExitCode}}' "$rec")"
podman logs "$rec" >"$out/rec.log" 2>&1

say "decision_node verify, inside the image"
set +e
podman run --rm -v "$out:/data" --runtime "$RUNTIME" "$IMAGE" "$dn" verify --quiet /data/node.mcap >"$out/verify_node.txt" 2>&1
v_node=$?
podman run --rm -v "$out:/data" --runtime "$RUNTIME" "$IMAGE" "$dn" verify --quiet /data/bag >"$out/verify_bag.txt" 2>&1
v_bag=$?
set -e

px4="no px4_msgs in the image"
if podman run --rm --runtime "$RUNTIME" "$IMAGE" test -f /opt/px4_msgs/share/px4_msgs/package.xml; then
	say "px4_msgs in the image: the node with input_source:=px4"
	c="$run_id-px4"
	started+=("$c")
	podman run -d --name "$c" "${net[@]}" "$IMAGE" \
		ros2 launch ghost decision.launch.py input_source:=px4 >/dev/null
	if wait_log "$c" "decision node ready" 60 >/dev/null; then px4="input_source:=px4 ready"; else px4="input_source:=px4 did not start"; fi
	podman stop -t "$GRACE_S" "$c" >/dev/null
	podman logs "$c" >"$out/px4.log" 2>&1
fi

size() { podman image inspect -f '{{.Size}}' "$1"; }
mb() { echo "$(($1 / 1000000)) MB"; }
middleware="$(grep -m1 -o 'middleware=[a-z_]*' "$out/node.log" | cut -d= -f2 || true)"
{
	echo "distro $DISTRO; decision_node version: $(podman run --rm "${net[@]}" "$IMAGE" "$dn" version | grep -m1 '^ROS 2:' || echo "no ROS 2 line")"
	echo "middleware: ${middleware:-not reported} (RMW_IMPLEMENTATION ${RMW_IMPLEMENTATION:-unset: the image default})"
	echo "image $IMAGE: $(mb "$(size "$IMAGE")") ($(mb $(($(size "$IMAGE") - $(size "$ROS_IMAGE")))) over $ROS_IMAGE, $(mb "$(size "$ROS_IMAGE")"))"
	echo "build: $((build_s / 1000)) s"
	echo "podman run to \"decision node ready\": ${ready_ms[*]} ms"
	echo "stop signal: $(podman image inspect -f '{{.Config.StopSignal}}' "$IMAGE")"
	echo "podman stop: ${stop_ms} ms (grace ${GRACE_S} s), node exit status $node_exit, recorder exit status $rec_exit"
	echo "node log: $(grep -c -F 'decision node stopped' "$out/node.log") \"decision node stopped\""
	echo "verify node.mcap: exit $v_node: $(grep -m1 -i verdict "$out/verify_node.txt" || true)"
	echo "verify bag: exit $v_bag: $(grep -m1 -i verdict "$out/verify_bag.txt" || true)"
	echo "px4: $px4"
} | tee "$out/summary.txt"

[ "$node_exit" = 0 ] && [ "$stop_ms" -lt $((GRACE_S * 1000)) ] || die "the node did not stop cleanly within the grace period"
grep -q -F 'decision node stopped' "$out/node.log" || die "no \"decision node stopped\" in $out/node.log"
[ "$v_node" = 0 ] && [ "$v_bag" = 0 ] || die "verify failed: $out/verify_node.txt, $out/verify_bag.txt"
case "$px4" in *"did not start") die "$px4: $out/px4.log" ;; esac
say "PASS"
