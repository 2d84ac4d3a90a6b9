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
//	decision_node ulog    --in flight.ulg --out flight.mcap
//	decision_node policy  check|test FILE ...
//	decision_node px4-standin                 answer VehicleCommands as PX4 (ROS 2)
//
// Exit status: 0 success; 1 the work was done but something is wrong (verify
// found a broken or missing chain or a divergent decision, or the input was
// truncated); 2 usage errors; 3 input or output unusable (missing file, not
// MCAP, bad configuration).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// Exit statuses.
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

const usage = `decision_node: the ghost decision node.

Usage:
  decision_node sim     [--out flight.mcap] [--duration 120s] [--rate 50] [flags]
  decision_node replay  --in input.mcap --out output.mcap [flags]
  decision_node verify  recording.mcap [--json report.json] [--policy-file FILE ...]
  decision_node report  recording.mcap --out report.html [--figures DIR]
  decision_node ulog    --in flight.ulg --out flight.mcap [flags]
  decision_node honesty recording.mcap [--json FILE]   beliefs against a simulator's truth
  decision_node policy  check FILE | test FILE CASES
  decision_node px4-standin [--deny KIND] [--ros-args ...]   a PX4 stand-in on ROS 2
  decision_node --ros-args ...      run as a ROS 2 node (builds with -tags rclgo)

Run 'decision_node <command> -h' for a command's flags and an example.
`

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

// readsRecordings is whether the command line replays or verifies
// recordings: the commands whose memory must not grow with their input.
func readsRecordings(args []string) bool {
	return len(args) > 0 && (args[0] == "replay" || args[0] == "verify")
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
	switch {
	case len(args) == 0 && rosBuild:
		err = runNode(args, stderr) // ros2 run ghost decision_node
	case len(args) == 0:
		fmt.Fprint(stderr, usage)
		return exitUsage
	case args[0] == "sim":
		err = runSim(args[1:], stdout, stderr)
	case args[0] == "replay":
		err = runReplay(args[1:], stdout, stderr)
	case args[0] == "verify":
		err = runVerify(args[1:], stdout, stderr)
	case args[0] == "report":
		err = runReport(args[1:], stdout, stderr)
	case args[0] == "ulog":
		err = runULog(args[1:], stdout, stderr)
	case args[0] == "honesty":
		err = runHonesty(args[1:], stdout, stderr)
	case args[0] == "policy":
		err = runPolicy(args[1:], stdout, stderr)
	case args[0] == "px4-standin":
		err = runStandin(args[1:], stdout, stderr)
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		// Anything else is a ROS 2 command line (launch passes --ros-args).
		err = runNode(args, stderr)
	}
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && !errors.Is(ee.err, errHelp) {
			fmt.Fprintf(stderr, "decision_node: %v\n", ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "decision_node: %v\n", err)
	return exitIO
}
