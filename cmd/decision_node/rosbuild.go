package main

import "fmt"

// The ROS 2 build this binary was linked against, set by the package's
// CMake build with -ldflags "-X main.rosDistro=... -X main.rclVersion=...";
// empty in a build made outside it.
var (
	rosDistro  string
	rclVersion string
)

// rosLine describes the ROS 2 side of a build for version: the
// distribution it was built for, the one the environment names
// (envDistro, ROS_DISTRO) and the middleware rmw_implementation loads
// (middleware, "" when it loads none). A build without the transport
// (withROS false) has none of these.
func rosLine(withROS bool, distro, rcl, envDistro, middleware string) string {
	if !withROS {
		return "ROS 2: none (a build without the ROS 2 transport)"
	}
	built := "built for ROS 2 " + distro
	if distro == "" {
		built = "built for an unrecorded ROS 2 distribution (not built by the package's CMake)"
	}
	if rcl != "" {
		built += fmt.Sprintf(" (rcl %s)", rcl)
	}
	env := "ROS_DISTRO " + envDistro
	if envDistro == "" {
		env = "ROS_DISTRO unset"
	}
	mw := "middleware " + middleware
	if middleware == "" {
		mw = "no middleware loadable (is a ROS 2 environment sourced, RMW_IMPLEMENTATION installed?)"
	}
	s := "ROS 2: " + built + "; running with " + env + ", " + mw
	if distro != "" && envDistro != "" && envDistro != distro {
		s += fmt.Sprintf("; this build links %s's libraries: run it in a %s environment", distro, distro)
	}
	return s
}
