// Package config turns the decision node's command line into a typed,
// validated Config, the way a native ROS 2 node would: it reads the
// `--ros-args ... --` section (params files, -p overrides, remaps, __node and
// __ns, --log-level), honours the ROS 2 parameter YAML layout and its
// wildcard node keys, types values as rcl does, and resolves topic names
// against the namespace before applying remaps.
//
// rclgo offers no parameter API, so this package is the node's parameter
// server at start-up. While the node runs, Config.Get and Config.Set give
// package param the same values and checks; which parameters may change
// then is param's call.
//
// It must not talk to ROS, open sockets or read anything but the params
// files it is told about, and it never starts goroutines: it is plain,
// deterministic parsing, fully covered by `go test` without ROS 2.
package config
