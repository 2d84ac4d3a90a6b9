#!/usr/bin/env bash
# The stand-in for the Gazebo Harmonic image (docker/gz-harmonic.Containerfile)
# on a host that reaches neither a registry nor the Gazebo project's
# packages: test/container/gz.Containerfile on the Debian bookworm stand-in
# that run.sh makes, for a Gazebo built from source on Debian 12 whose
# install prefix is mounted.
#
#   GZ_PREFIX=<Gazebo install prefix> [PX4_BUILD=<px4_sitl_default>] test/container/gz-standin.sh [OUTDIR]
#
# It builds the image (GZ_IMAGE, default
# localhost/ghost-standin/gz-harmonic:bookworm), then, with GZ_PREFIX mounted
# at its own path as compose.gazebo.yaml mounts it, checks with ldd that
# every library and program of the prefix (and PX4's bin/px4 when PX4_BUILD
# is given) resolves in it, and that `gz sim --versions` answers. Without
# podman, the Debian stand-in or GZ_PREFIX it says so and exits 0.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
skip() { echo "SKIP: $*"; exit 0; }
say() { printf '%s  %s\n' "$(date +%T)" "$*"; }
die() { echo "FAIL: $*" >&2; exit 1; }

command -v podman >/dev/null || skip "podman is not installed"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/containers.conf}"
RUNTIME="${PODMAN_RUNTIME:-runc}"
DEBIAN_IMAGE=localhost/ghost-standin/debian:bookworm
IMAGE="${GZ_IMAGE:-localhost/ghost-standin/gz-harmonic:bookworm}"
podman image exists "$DEBIAN_IMAGE" || skip "no $DEBIAN_IMAGE: test/container/run.sh makes it"
[ -x "${GZ_PREFIX:-}/bin/gz" ] || skip "GZ_PREFIX must name a Gazebo install prefix with bin/gz"

out="${1:-gz-standin-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out" && out="$(cd "$out" && pwd)"

say "image $IMAGE (log $out/build.log)"
t0=$(date +%s)
podman build --runtime "$RUNTIME" --format docker --network host \
	--build-arg BASE="$DEBIAN_IMAGE" -f "$here/gz.Containerfile" -t "$IMAGE" "$here" \
	>"$out/build.log" 2>&1 || die "the image did not build: $out/build.log"
build_s=$(($(date +%s) - t0))

mounts=(-v "$GZ_PREFIX:$GZ_PREFIX:ro")
px4=""
if [ -n "${PX4_BUILD:-}" ]; then
	mounts+=(-v "$PX4_BUILD:/px4:ro")
	px4=/px4/bin/px4
fi
say "ldd of $GZ_PREFIX${px4:+ and $px4} in the image"
podman run --rm --runtime "$RUNTIME" "${mounts[@]}" -e LD_LIBRARY_PATH="$GZ_PREFIX/lib" \
	-e PX4="$px4" -e P="$GZ_PREFIX" "$IMAGE" bash -c '
		{ find "$P" -type f \( -name "*.so*" -o -perm -u+x \) -print0; [ -z "$PX4" ] || printf "%s\0" "$PX4"; } |
			xargs -0 ldd 2>/dev/null | grep "not found" | sort -u' >"$out/ldd.txt" || true
[ ! -s "$out/ldd.txt" ] || die "libraries missing in $IMAGE: $out/ldd.txt"
podman run --rm --runtime "$RUNTIME" "${mounts[@]}" -e LD_LIBRARY_PATH="$GZ_PREFIX/lib" \
	-e GZ_CONFIG_PATH="$GZ_PREFIX/share/gz" "$IMAGE" "$GZ_PREFIX/bin/gz" sim --versions \
	>"$out/versions.txt" 2>&1 || die "gz sim --versions failed: $out/versions.txt"
size="$(podman image inspect -f '{{.Size}}' "$IMAGE")"
base="$(podman image inspect -f '{{.Size}}' "$DEBIAN_IMAGE")"
{
	over=$(((size - base) / 1000000))
	echo "image $IMAGE: $((size / 1000000)) MB ($over MB over $DEBIAN_IMAGE)"
	echo "build: ${build_s} s"
	echo "ldd: every library resolves${px4:+, $px4 too}"
	echo "gz sim --versions: $(tr '\n' ' ' <"$out/versions.txt")"
} | tee "$out/summary.txt"
say "PASS"
