# syntax=docker/dockerfile:1.4
#
# ghost decision node on ROS 2 Humble.
#
#   docker build -t ghost .
#   docker run --rm -it --net=host ghost
#   docker run --rm -it --net=host ghost ros2 launch ghost decision.launch.py namespace:=drone1
#
# --net=host (or a shared network with the simulator) lets DDS discovery
# reach Gazebo SITL and the bridges running next to it.

ARG ROS_DISTRO=humble

# Go toolchain, copied into the ROS image below (Ubuntu 22.04's golang is
# too old for go.mod).
FROM golang:1.26-bookworm AS go

FROM ros:${ROS_DISTRO}-ros-base AS build
ARG ROS_DISTRO
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ros-${ROS_DISTRO}-diagnostic-msgs \
      ros-${ROS_DISTRO}-rosidl-default-generators \
 && rm -rf /var/lib/apt/lists/*
COPY --from=go /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:${PATH} \
    GOTOOLCHAIN=local \
    GOFLAGS=-mod=readonly

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

FROM ros:${ROS_DISTRO}-ros-base AS runtime
ARG ROS_DISTRO
ENV ROS_DISTRO=${ROS_DISTRO}
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ros-${ROS_DISTRO}-diagnostic-msgs \
      ros-${ROS_DISTRO}-rosbag2-storage-mcap \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /ws/install /ws/install
# rclgo is developed and tested with cgo pointer checks off.
ENV GODEBUG=cgocheck=0
COPY --chmod=0755 <<'EOF_ENTRYPOINT' /ghost_entrypoint.sh
#!/bin/bash
set -e
source "/opt/ros/${ROS_DISTRO}/setup.bash"
source /ws/install/setup.bash
exec "$@"
EOF_ENTRYPOINT
WORKDIR /ws
# `docker stop` sends this signal to PID 1, the entrypoint's command (ros2
# launch): launch forwards SIGINT to the node, which decides what is pending,
# publishes it and closes its recording; it ignores the default SIGTERM.
STOPSIGNAL SIGINT
ENTRYPOINT ["/ghost_entrypoint.sh"]
CMD ["ros2", "launch", "ghost", "decision.launch.py"]
