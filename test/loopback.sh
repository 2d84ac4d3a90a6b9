# Sourced by the scripts that start ROS 2 processes on this host (the SITL
# flights, the SROS2 proof, the container scenario), not run: how ROS 2 is
# kept on loopback, said once.

# CYCLONEDDS_LOOPBACK_URI makes loopback Cyclone DDS's one network
# interface. Jazzy's discovery range LOCALHOST (and its deprecated
# ROS_LOCALHOST_ONLY=1, mapped to it) only turns multicast off and adds
# localhost as a peer: Cyclone still sends from the host's first network
# interface, where a localhost-only participant such as PX4's XRCE-DDS
# agent does not answer. Humble's ROS_LOCALHOST_ONLY=1 selects loopback
# itself and refuses it selected twice.
CYCLONEDDS_LOOPBACK_URI='<CycloneDDS><Domain><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces></General></Domain></CycloneDDS>'

# ros_on_loopback keeps ROS 2 discovery on this host, in the variable the
# sourced distro reads: ROS_AUTOMATIC_DISCOVERY_RANGE from Iron on (which
# warn that ROS_LOCALHOST_ONLY is deprecated whenever it is set, even to
# 0), ROS_LOCALHOST_ONLY on Humble, and both where ROS_DISTRO does not say
# (a ROS 2 built without ros_environment): loopback is what matters. From
# Iron on, Cyclone DDS also gets loopback as its one interface unless the
# caller configured it.
ros_on_loopback() {
	case "${ROS_DISTRO:-}" in
	humble) export ROS_LOCALHOST_ONLY=1 ;;
	"") export ROS_LOCALHOST_ONLY=1 ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST ;;
	*)
		unset ROS_LOCALHOST_ONLY
		export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
		export CYCLONEDDS_URI="${CYCLONEDDS_URI:-$CYCLONEDDS_LOOPBACK_URI}"
		;;
	esac
}
