// Command decision_node is the ghost decision node.
//
// Run as a ROS 2 node (built with -tags rclgo, started by
// `ros2 launch ghost decision.launch.py`), it subscribes to the vehicle's
// belief and self-assessment and publishes every decision with its rationale
// on /decisions. Without ROS 2 it runs the same decision path on recordings:
//
//	decision_node sim     --out flight.mcap   simulate a flight and decide it
//	decision_node replay  --in in.mcap --out out.mcap
//	decision_node verify  recording.mcap [--json report.json]
//	decision_node report  recording.mcap --out report.html
//	decision_node whatif  --policy-file candidate.yaml flights/   a policy against flights flown
//	decision_node ulog    --in flight.ulg --out flight.mcap
//	decision_node honesty recording.mcap      beliefs against a simulator's truth
//	decision_node policy  check|test FILE ...
//	decision_node latency node.mcap           a live node's decision latency
//	decision_node px4-standin                 answer VehicleCommands as PX4 (ROS 2)
//	decision_node version
//
// Only a command line that starts with a flag (launch passes --ros-args
// first) runs the node; any other first word must be a command. The exit
// status follows one rule for every command: see exitRule.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// Exit statuses: one rule for every command (see exitRule).
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
	exitIO       = 3
)

// exitError carries an exit status with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func fail(code int, format string, a ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, a...)}
}

func main() {
	// GOGC, when set, decides.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent(os.Args[1:]))
	}
	stop := func() {}
	if readsRecordings(os.Args[1:]) {
		stop = startHeapCeiling(os.Getenv)
	}
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// readsRecordings is whether the command line replays, verifies or compares
// recordings: the commands whose memory must not grow with their input.
func readsRecordings(args []string) bool {
	return len(args) > 0 && (args[0] == "replay" || args[0] == "verify" || args[0] == "whatif")
}

// gcPercent is the collector's target for a command line. The recording
// commands allocate a few kilobytes per message and keep a small live heap;
// collecting less often buys throughput for some tens of megabytes. Replay
// and verify decode into reused storage and allocate a few hundred bytes per
// message, so Go's default target costs them no measurable CPU and keeps
// their peak memory near twice the live heap, however long the recording
// (400 let a long run reach five times it).
func gcPercent(args []string) int {
	if readsRecordings(args) {
		return 100
	}
	return 400
}

func run(args []string, stdout, stderr io.Writer) int {
	var err error
	var cmd *command
	switch {
	case len(args) == 0 && rosBuild:
		err = runNode(args, stderr) // ros2 run ghost decision_node
	case len(args) == 0:
		fmt.Fprint(stderr, usage)
		return exitUsage
	case isHelp(args[0]) || args[0] == "help":
		return runHelp(args[1:], stdout, stderr)
	case args[0] == "--version" || args[0] == "-version":
		err = runVersion(args[1:], stdout, stderr)
	case strings.HasPrefix(args[0], "-"):
		// A ROS 2 command line: launch passes --ros-args first.
		err = runNode(args, stderr)
	default:
		if cmd = lookupCommand(args[0]); cmd == nil {
			unknownCommand(args[0], stderr)
			return exitUsage
		}
		err = cmd.run(args[1:], stdout, stderr)
	}
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		ee = &exitError{code: exitIO, err: err}
	}
	if ee.err != nil && !errors.Is(ee.err, errHelp) {
		fmt.Fprintf(stderr, "decision_node: %v\n", ee.err)
		if ee.code == exitUsage && cmd != nil {
			// The error, then how the command is used: never its whole
			// help, which would push the error off the screen.
			fmt.Fprintf(stderr, "%s\nrun 'decision_node %s -h' for help\n", strings.TrimSpace("usage: decision_node "+cmd.name+" "+cmd.synopsis), cmd.name)
		}
	}
	return ee.code
}
