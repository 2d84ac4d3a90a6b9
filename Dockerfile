# syntax=docker/dockerfile:1.4
#
# ghost decision node on ROS 2 Jazzy (or Humble), with the px4_msgs of your
# PX4 release.
#
#   docker build -t ghost --build-context px4_msgs=$HOME/px4_ws/install .
#   docker build -t ghost --build-context px4_msgs=$HOME/px4_ws/src/px4_msgs .
#   docker build -t ghost .          # no px4_msgs: input_source:=px4 refuses to start
#   docker build -t ghost:humble --build-arg ROS_DISTRO=humble \
#       --build-context px4_msgs=$HOME/px4_ws_humble/install .
#   docker run --rm -it --net=host --ipc=host ghost
#   docker run --rm -it --net=host --ipc=host ghost \
#       ros2 launch ghost decision.launch.py input_source:=px4
#
# px4_msgs come from the build context named px4_msgs: a source tree (the
# directory with its package.xml; colcon builds it here) or an install tree
# (a colcon install directory, merged or not, or the package's own prefix;
# copied as it is). Nothing here downloads them. docs/container.md has the
# details, and how the image was built and run without a registry.
#
# --net=host (or a network shared with the simulator) lets DDS discovery
# reach PX4's agent and the bridges running next to it; --ipc=host lets
# Fast DDS's shared-memory transport work between containers.

# jazzy or humble: the same tree builds on both. An install-tree px4_msgs
# context must have been built for the same distro.
ARG ROS_DISTRO=jazzy
# The bases. Any image with the same layout works: the ROS one needs a ROS 2
# installation in /opt/ros/${ROS_DISTRO} with colcon and a compiler, the Go
# one a Go toolchain in /usr/local/go.
ARG ROS_IMAGE=ros:${ROS_DISTRO}-ros-base
ARG GO_IMAGE=golang:1.26-bookworm

# Go toolchain, copied into the ROS image below (Ubuntu's golang is too old
# for go.mod).
FROM ${GO_IMAGE} AS go

# px4_msgs, empty unless `--build-context px4_msgs=PATH` replaces this stage.
FROM scratch AS px4_msgs

# The ROS packages a stage needs are installed with apt only when the base
# lacks them, so a base that already has them (or whose ROS 2 was not
# installed by apt) needs neither apt sources nor the network here.
FROM ${ROS_IMAGE} AS ros
ARG ROS_DISTRO
ENV ROS_DISTRO=${ROS_DISTRO}
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN printf '%s\n' \
      '#!/bin/bash' \
      '# ros-install-missing PKG...: apt-get install ros-$ROS_DISTRO-PKG for each' \
      '# ROS package PKG (underscores) not already in /opt/ros/$ROS_DISTRO.' \
      'set -euo pipefail' \
      'missing=()' \
      'for pkg in "$@"; do' \
      '  [ -f "/opt/ros/${ROS_DISTRO}/share/${pkg}/package.xml" ] || missing+=("ros-${ROS_DISTRO}-${pkg//_/-}")' \
      'done' \
      '[ ${#missing[@]} -eq 0 ] && { echo "ROS packages present: $*"; exit 0; }' \
      'apt-get update' \
      'DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"' \
      'rm -rf /var/lib/apt/lists/*' \
      > /usr/local/bin/ros-install-missing \
 && chmod 0755 /usr/local/bin/ros-install-missing

# px4_msgs installed under /opt/px4_msgs, whichever form the context has.
FROM ros AS px4_msgs_install
COPY --from=px4_msgs . /tmp/px4_msgs/
RUN ros-install-missing rosidl_default_generators \
 && src=/tmp/px4_msgs \
 && mkdir -p /opt/px4_msgs \
 && if [ -z "$(ls -A "$src")" ]; then \
      echo "no px4_msgs context: the image will not read PX4 topics (see docs/container.md)"; \
    elif grep -qs '<name>px4_msgs</name>' "$src/package.xml"; then \
      echo "px4_msgs: building the source tree" \
      && source "/opt/ros/${ROS_DISTRO}/setup.bash" \
      && colcon build --base-paths "$src" --build-base /tmp/px4_msgs_build \
           --install-base /opt/px4_msgs --merge-install \
           --cmake-args -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
      && rm -rf /tmp/px4_msgs_build log; \
    else \
      found="$(cd "$src" && find . -maxdepth 4 -path '*/share/px4_msgs/package.xml' | sort | head -n 1)" \
      && [ -n "$found" ] || { echo "px4_msgs context has neither a px4_msgs package.xml nor share/px4_msgs/package.xml" >&2; exit 1; } \
      && prefix="${found%/share/px4_msgs/package.xml}" \
      && echo "px4_msgs: copying the install prefix ${prefix#./}" \
      && cp -a "$src/$prefix/." /opt/px4_msgs/; \
    fi \
 && rm -rf "$src"

FROM ros AS build
RUN ros-install-missing diagnostic_msgs rosidl_default_generators
COPY --from=go /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:${PATH} \
    GOTOOLCHAIN=local \
    GOFLAGS=-mod=readonly
# Module download settings, passed on when given with --build-arg. rclgo is
# served only as a pseudo-version that the checksum database lacks.
ARG GOPROXY
ARG GONOSUMDB=github.com/tiiuae/rclgo

WORKDIR /ws
# Modules first, so source edits do not refetch them.
COPY go.mod go.sum src/ghost/
RUN cd src/ghost && go mod download
COPY . src/ghost
RUN source /opt/ros/${ROS_DISTRO}/setup.bash \
 && colcon build \
      --packages-select ghost \
      --metas src/ghost/colcon.meta \
      --event-handlers console_direct+

FROM ros AS runtime
RUN ros-install-missing diagnostic_msgs rosbag2_storage_mcap
COPY --from=px4_msgs_install /opt/px4_msgs /opt/px4_msgs
COPY --from=build /ws/install /ws/install
# rclgo is developed and tested with cgo pointer checks off.
ENV GODEBUG=cgocheck=0
# The entrypoint sources ROS 2, px4_msgs when the image has them, and the
# workspace, then runs its command (as /ros_entrypoint.sh does for ROS 2).
RUN printf '%s\n' \
      '#!/bin/bash' \
      'set -e' \
      'source "/opt/ros/${ROS_DISTRO}/setup.bash"' \
      'if [ -f /opt/px4_msgs/share/px4_msgs/local_setup.bash ]; then' \
      '  source /opt/px4_msgs/share/px4_msgs/local_setup.bash' \
      'fi' \
      'source /ws/install/setup.bash' \
      'exec "$@"' \
      > /ghost_entrypoint.sh \
 && chmod 0755 /ghost_entrypoint.sh
WORKDIR /ws
# `docker stop` sends this signal to PID 1, the entrypoint's command (ros2
# launch): launch forwards SIGINT to the node, which decides what is pending,
# publishes it and closes its recording. On the default SIGTERM launch
# abandons its processes instead (it warns of orphans), and the node dies
# with the container.
STOPSIGNAL SIGINT
ENTRYPOINT ["/ghost_entrypoint.sh"]
CMD ["ros2", "launch", "ghost", "decision.launch.py"]
