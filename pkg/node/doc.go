// Package node wires a ROS 2 transport to the decision Loop and Runner: it
// is the live decision node without the ROS client library. Serialized
// messages arrive from a transport.Transport, are decoded with the project's
// CDR codec and fed to the Loop with their receive time as arrival time
// (with use_sim_time, the /clock time: see simtime.go); ticks advance time
// while inputs pause, so a belief whose self-assessment never comes is
// decided after the assessment timeout; the Runner publishes
// every decision with its rationale on /decisions (and, when configured, to
// an MCAP recording of the inputs and decisions); /diagnostics reports the
// Runner's counters.
//
// The package owns the goroutine structure and shutdown order of the live
// node. It must not decide anything itself (the Loop and the policy do), nor
// import rclgo: the concrete transport is chosen by the caller, so every
// line here runs under plain `go test` with transport.FakeTransport.
package node
