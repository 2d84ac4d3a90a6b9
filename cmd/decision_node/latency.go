package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/ghost-robotics/ghost/pkg/audit/latency"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/session"
)

const latencyDescription = `Measures, from a live node's own recording (recording.path), how long
the node took from the last input of a belief stamp (the belief or its
self-assessment, whichever came later) to the decision on it, and to the
first send of the command that decision started: p50, p99 and max.

The node records each input's wall-clock receive time and each output's
wall-clock record time as the messages' publish times. The figures are the
node's own processing time on the host's wall clock: they do not slow with
a simulator slower than real time (nor with PX4's clock in lockstep with
it) and compare with nothing the vehicle does. Recordings without them
(sim, replay, ros2 bag record of another process) have nothing to measure:
exit status 1.`

const latencyExample = `  ros2 launch ghost decision.launch.py input_source:=px4 executor:=px4 ...
  decision_node latency node.mcap --json latency.json`

func runLatency(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("latency", latencyDescription, latencyExample, stdout)
	jsonOut := fs.String("json", "", "also write the figures as JSON to `file` (- for stdout, then without the table)")
	var df decisionFlags
	fs.StringVar(&df.config, "config", "", "ROS 2 parameters `file` naming the node's topics (default: the built-in topics)")
	if err := fs.parse(args); err != nil {
		return err
	}
	path, err := fs.oneRecording()
	if err != nil {
		return err
	}
	cfg, err := df.settings()
	if err != nil {
		return err
	}
	ins := fs.inputsWith(cfg)
	if err := fs.checkOutputs(ins); err != nil {
		return err
	}
	resolved, err := cfg.ResolvedTopics()
	if err != nil {
		return fail(exitIO, "%w", err)
	}
	topics := latency.Topics{State: resolved[session.KeyState], Assessment: resolved[session.KeySelfAssessment],
		Decisions: decisionsTopic(cfg), Actions: actionsTopic(cfg)}
	rec, r, readErr := measureLatency(path, topics, stderr)
	if rec.name == "" {
		return readErr
	}
	if *jsonOut != "-" {
		printLatency(stdout, rec.name, r)
	}
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, ins, stdout, r); err != nil {
			return err
		}
	}
	switch {
	case readErr != nil:
		return fail(exitFindings, "%s: read to the damage only: %w", rec.name, readErr)
	case !r.WallClock:
		return fail(exitFindings, "%s has no wall-clock publish times (not a live node's own recording): nothing to measure", rec.name)
	case r.Decisions.N == 0:
		return fail(exitFindings, "%s: no decision whose inputs were recorded", rec.name)
	}
	return nil
}

// measureLatency reads the recording at path (a file or a rosbag2 bag) and
// measures it. A recording it cannot open comes back with an empty name and
// the error; one damaged on the way, with what was read before and the
// damage.
func measureLatency(path string, topics latency.Topics, stderr io.Writer) (recording, latency.Report, error) {
	rec, ok := recordingAt(path)
	if !ok {
		return recording{}, latency.Report{}, fail(exitIO, "%s is a directory but not a rosbag2 bag", path)
	}
	if rec.err != nil {
		return recording{}, latency.Report{}, fail(exitIO, "%w", rec.err)
	}
	open := func(path string) (*bag.Reader, error) {
		r, err := bag.OpenRecording(path, bag.ReaderOptions{Topics: []string{topics.State, topics.Assessment, topics.Decisions, topics.Actions}})
		if err != nil {
			return nil, fail(exitIO, "%s: %w", path, err)
		}
		return r, nil
	}
	first, err := open(rec.files[0])
	if err != nil {
		return recording{}, latency.Report{}, err
	}
	files, err := openFiles(rec, first, open)
	if err != nil {
		first.Close()
		return recording{}, latency.Report{}, err
	}
	defer files.Close()
	src, _ := files.source(stderr)
	m := latency.New(topics)
	for {
		msg, err := src.Next()
		if errors.Is(err, io.EOF) {
			return rec, m.Report(), nil
		}
		if err != nil {
			return rec, m.Report(), err
		}
		_ = m.Add(msg) // counted in the report
	}
}

func printLatency(w io.Writer, name string, r latency.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "recording\t%s\n", name)
	fmt.Fprintf(tw, "clock\twall: the node's own processing time, not the vehicle's\n")
	fmt.Fprintf(tw, "\tpairs\tp50\tp99\tmax\n")
	row := func(label string, s latency.Stats) {
		if s.N == 0 {
			fmt.Fprintf(tw, "%s\t0\t-\t-\t-\n", label)
			return
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", label, s.N, us(s.P50), us(s.P99), us(s.Max))
	}
	row("last input -> decision", r.Decisions)
	row("last input -> command sent", r.Commands)
	fmt.Fprintf(tw, "unmatched\t%d\n", r.Unmatched)
	fmt.Fprintf(tw, "undecodable\t%d\n", r.Undecodable)
	tw.Flush()
}

// us prints a duration in microseconds with one decimal.
func us(d time.Duration) string { return fmt.Sprintf("%.1f us", float64(d)/1e3) }
