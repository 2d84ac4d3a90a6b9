package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/bridge"
	"github.com/ghost-robotics/ghost/pkg/vehicle/mapping"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/vehicle/ulog"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

const ulogDescription = `
Turns a PX4 flight log (.ulg) into a ghost recording and decides it. Every
sample of the estimator (vehicle_local_position with vehicle_attitude, as
PX4 logs by default, or vehicle_odometry with --position odometry) becomes a
belief (ghost/msg/VehicleState on /state/nav) carrying the latest
vehicle_status and battery_status, is assessed with the configured
thresholds (ADR-0020) into /self_assessment, and decided as the live node
decides; the output holds the beliefs, the assessments and /decisions, so
'decision_node verify' audits it like any recording.

Fields are read by name from the definitions the log carries, so any PX4
release's layout works. The mapping (frames, covariance, flight status,
stamps) is written down in docs/inputs.md. Samples it rejects (a stamp that
repeats or goes back, no attitude yet, a quaternion of zero norm) are
skipped and counted. A truncated log is decided up to the damage (exit
status 1); a log nothing is decided from exits 1 saying why (no sample of
the estimator topic, or none that became a belief); a log with an unknown
incompatible flag is refused.

A simulated flight's log (PX4 SITL) holds the simulator's ground truth:
when it has both vehicle_local_position_groundtruth and
vehicle_attitude_groundtruth, the output also holds them, ENU, on
/ground_truth/position, /ground_truth/velocity and /ground_truth/attitude,
with the estimator's position resets on /ground_truth/estimator_reset (no
decision reads them; 'decision_node honesty' compares the beliefs with
them). One of the two alone is no simulator truth and is left out
(ADR-0037). --truth=false leaves the truth out.`

const ulogExample = `  decision_node ulog --in flight.ulg --out flight.mcap
  decision_node verify flight.mcap`

func runULog(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("ulog", ulogDescription, ulogExample, stdout)
	in := fs.String("in", "", "PX4 flight log (`file`, ULog)")
	out := fs.String("out", "", "output recording (`file`, MCAP); must not exist unless --force")
	position := fs.String("position", bridge.PositionLocalPosition, "estimator topic that makes beliefs: local_position or odometry")
	emit := fs.String("emit", "decisions", "what to write: decisions (beliefs, assessments and decisions) or px4 (the log as the PX4 topics a vehicle publishes over uXRCE-DDS, for ros2 bag play or replay --input-source px4)")
	px4Msgs := fs.String("px4-msgs", "", "for --emit px4: ament prefix path holding share/px4_msgs (default: AMENT_PREFIX_PATH)")
	px4NS := fs.String("px4-namespace", "", `for --emit px4: namespace of the topics ("" for /fmu/..., /uav_1 for /uav_1/fmu/...)`)
	withTruth := fs.Bool("truth", true, "write the simulator's ground truth when the log holds it (both *_groundtruth topics)")
	var df decisionFlags
	df.register(fs.FlagSet)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := fs.need("in", "out"); err != nil {
		return err
	}
	cfg, sopts, err := df.session()
	if err != nil {
		return err
	}
	df.inputs = fs.inputsWith(cfg)
	if err := fs.checkOutputs(df.inputs); err != nil {
		return err
	}
	f, r, err := openULog(*in)
	if err != nil {
		return err
	}
	defer f.Close()
	inLog, err := scanULogTruth(*in, *withTruth)
	if err != nil {
		return err
	}
	if *emit == "px4" {
		if df.signingKeyFile != "" {
			// The log's own topics are the vehicle's record, not a claim
			// ghost makes: sealing them would vouch for what it never took.
			return fail(exitUsage, "--signing-key seals what ghost decides: --emit px4 writes the vehicle's topics only")
		}
		return emitPX4(&df, r, *in, *out, *px4Msgs, *px4NS, inLog.Both(), cfg, stderr)
	}
	if *emit != "decisions" {
		return fail(exitUsage, "--emit %q: want decisions or px4", *emit)
	}
	src, b, err := ulogSource(r, *position, cfg, inLog)
	if err != nil {
		return err
	}
	decided, err := df.decideInto("ulog", src, 0, *in, *out, cfg, sopts, stderr)
	if err != nil {
		return err
	}
	if !df.quiet {
		printULogSummary(stderr, src, b.Tracker().Counters())
		if *withTruth {
			printULogTruth(stderr, inLog, src.Truth, *out)
		}
	}
	t, truncated := r.Truncated()
	switch {
	case decided == 0 && truncated:
		return fail(exitFindings, "%s: nothing decided: %s, and %v; %s holds no decision", *in, nothingDecided(src, b.Tracker().Counters(), *position), t, *out)
	case decided == 0:
		return fail(exitFindings, "%s: nothing decided: %s; %s holds no decision", *in, nothingDecided(src, b.Tracker().Counters(), *position), *out)
	case truncated:
		return fail(exitFindings, "%s: %v (the output holds every decision up to there)", *in, t)
	}
	return nil
}

// openULog opens the flight log at path, a regular file (see limitedfile),
// and reads its header.
func openULog(path string) (*os.File, *ulog.Reader, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fail(exitIO, "%w", err)
	}
	if st.IsDir() {
		return nil, nil, fail(exitIO, "%s is a directory, not a ULog file", path)
	}
	f, err := limitedfile.Open(path)
	if err != nil {
		return nil, nil, fail(exitIO, "%w", err)
	}
	r, err := ulog.NewReader(f, ulog.Options{})
	if err != nil {
		f.Close()
		if errors.Is(err, ulog.ErrNotULog) {
			return nil, nil, fail(exitIO, "%s is not a PX4 ULog file: %w", path, err)
		}
		return nil, nil, fail(exitIO, "%s: %w", path, err)
	}
	return f, r, nil
}

// nothingDecided says why a log gave no decision: no sample of the
// estimator topic that makes beliefs, or none of them became a belief.
func nothingDecided(src *bridge.ULogSource, c mapping.Counters, position string) string {
	topic, other, otherFlag := "vehicle_local_position", "vehicle_odometry", bridge.PositionOdometry
	if position == bridge.PositionOdometry {
		topic, other, otherFlag = other, topic, bridge.PositionLocalPosition
	}
	n := src.Samples[topic]
	switch {
	case n == 0 && src.Samples[other] > 0:
		return fmt.Sprintf("the log holds no %s sample (beliefs are made from it with --position %s) but %d %s samples: pass --position %s",
			topic, position, src.Samples[other], other, otherFlag)
	case n == 0:
		return fmt.Sprintf("the log holds no %s sample, which beliefs are made from", topic)
	case c.Beliefs == 0:
		var why []string
		for i, k := range c.Rejected {
			if k > 0 {
				why = append(why, fmt.Sprintf("%d rejected: %s", k, mapping.Reason(i)))
			}
		}
		if src.FieldErrors > 0 {
			why = append(why, fmt.Sprintf("%d lacked a field, the last: %v", src.FieldErrors, src.LastFieldError))
		}
		return fmt.Sprintf("none of its %d %s samples became a belief (%s)", n, topic, strings.Join(why, "; "))
	}
	return fmt.Sprintf("%d beliefs were made and none was decided", c.Beliefs)
}

// ulogSource maps the log's estimator samples to beliefs with the
// configuration's topics and thresholds, and passes on the ground truth
// that inLog counts in the log when it holds a simulator's (both halves),
// with the global position and the estimator's origin when it has those.
func ulogSource(r *ulog.Reader, position string, cfg config.Config, inLog bridge.ULogTruthCounts) (*bridge.ULogSource, *bridge.Bridge, error) {
	resolved, err := cfg.ResolvedTopics()
	if err != nil {
		return nil, nil, fail(exitUsage, "%w", err)
	}
	b, err := bridge.New(bridge.Options{
		StateTopic: resolved[session.KeyState], AssessmentTopic: resolved[session.KeySelfAssessment], Thresholds: cfg.Thresholds,
	})
	if err != nil {
		return nil, nil, fail(exitUsage, "%w", err)
	}
	src, err := bridge.NewULogSource(r, b, position)
	if err != nil {
		return nil, nil, fail(exitUsage, "--position: %w", err)
	}
	if inLog.Both() {
		if err := src.WithTruth(); err != nil {
			return nil, nil, fail(exitIO, "%w", err)
		}
	}
	if inLog.Both() && inLog.Global > 0 {
		if err := src.WithGlobalTruth(); err != nil {
			return nil, nil, fail(exitIO, "%w", err)
		}
	}
	return src, b, nil
}

func printULogSummary(w io.Writer, src *bridge.ULogSource, c mapping.Counters) {
	fmt.Fprintf(w, "log samples read: vehicle_local_position %d, vehicle_odometry %d, vehicle_attitude %d, vehicle_status %d, battery_status %d\n",
		src.Samples["vehicle_local_position"], src.Samples["vehicle_odometry"], src.Samples["vehicle_attitude"],
		src.Samples["vehicle_status"], src.Samples["battery_status"])
	printULogHealth(w, src.Samples)
	fmt.Fprintf(w, "beliefs made: %d; samples rejected by the mapping: %d", c.Beliefs, c.RejectedTotal())
	sep := " ("
	for i, n := range c.Rejected {
		if n > 0 {
			fmt.Fprintf(w, "%s%s %d", sep, mapping.Reason(i), n)
			sep = ", "
		}
	}
	if sep != " (" {
		fmt.Fprint(w, ")")
	}
	fmt.Fprintln(w)
	if src.FieldErrors > 0 {
		fmt.Fprintf(w, "samples lacking a field: %d (last: %v)\n", src.FieldErrors, src.LastFieldError)
	}
	printULogUnknowns(w, c)
	if p := src.Reader().Problems(); len(p) > 0 {
		fmt.Fprintf(w, "log problems: %d (first: %v)\n", len(p), p[0])
	}
}

// printULogUnknowns says which blocks of the beliefs PX4's log left
// unknown, and why: an unknown block makes the overall level unknown, and a
// policy reading it abstains.
func printULogUnknowns(w io.Writer, c mapping.Counters) {
	if c.AttitudeFromEstimator > 0 {
		fmt.Fprintf(w, "attitude variance: from the estimator's covariance (estimator_states; estimator_status before PX4 1.13) in %d beliefs: vehicle_local_position has none before PX4 1.15\n",
			c.AttitudeFromEstimator)
	}
	if c.AttitudeUnknown > 0 {
		fmt.Fprintf(w, "orientation unknown in %d beliefs: vehicle_local_position has no tilt_var or heading_var before PX4 1.15, and no estimator_states "+
			"(estimator_status before 1.13) with a quaternion covariance was logged beside them; log estimator_states (PX4 logs it by default from "+
			"1.13), or use --position odometry if the log has vehicle_odometry (its orientation_variance)\n", c.AttitudeUnknown)
	}
	if c.NoHorizontalPosition > 0 || c.NoHorizontalVelocity > 0 {
		fmt.Fprintf(w, "horizontal position unknown in %d beliefs, horizontal velocity in %d: PX4 marked them invalid (vehicle_local_position "+
			"xy_valid, v_xy_valid false: the estimator had no horizontal aiding, such as GNSS), so the overall level is unknown there and "+
			"the reference policy abstains: that is what the log supports, not a gap in the mapping\n", c.NoHorizontalPosition, c.NoHorizontalVelocity)
	}
}

// printULogHealth counts the health topics read, and says which health
// conditions a policy cannot evaluate on this log and why.
func printULogHealth(w io.Writer, n map[string]uint64) {
	gps, flags, status, fs := n["vehicle_gps_position"], n["estimator_status_flags"], n["estimator_status"], n["failsafe_flags"]
	fmt.Fprintf(w, "health samples read: vehicle_gps_position %d, estimator_status_flags %d, estimator_status %d, failsafe_flags %d\n", gps, flags, status, fs)
	var unknown []string
	if gps == 0 {
		unknown = append(unknown, "gnss (no vehicle_gps_position)")
	}
	if flags == 0 && status == 0 {
		unknown = append(unknown, "estimator (no estimator_status_flags or estimator_status)")
	}
	if fs == 0 {
		unknown = append(unknown, "px4_failsafe (no failsafe_flags: PX4 logs it from 1.14)")
	}
	if len(unknown) > 0 {
		fmt.Fprintf(w, "unknown on this log, so a rule on them abstains (missing_*): %s\n", strings.Join(unknown, "; "))
	}
}

// scanULogTruth counts the ground truth of the log at path, in a read of
// its own before the conversion; none when the truth is not wanted.
func scanULogTruth(path string, want bool) (bridge.ULogTruthCounts, error) {
	if !want {
		return bridge.ULogTruthCounts{}, nil
	}
	f, err := limitedfile.Open(path)
	if err != nil {
		return bridge.ULogTruthCounts{}, fail(exitIO, "%w", err)
	}
	defer f.Close()
	c, err := bridge.ScanULogTruth(f)
	if err != nil {
		return c, fail(exitIO, "%s: %w", path, err)
	}
	return c, nil
}

// printULogTruth says what became of the log's ground truth.
func printULogTruth(w io.Writer, inLog bridge.ULogTruthCounts, out *bridge.ULogTruthCounts, path string) {
	switch {
	case inLog.Position == 0 && inLog.Attitude == 0:
		fmt.Fprintln(w, "ground truth: none in the log (a real flight, or a simulation that logged none)")
		return
	case out == nil:
		fmt.Fprintf(w, "ground truth: left out, the log has %s %d and %s %d samples: a simulator truth needs both\n",
			bridge.ULogPositionTruth, inLog.Position, bridge.ULogAttitudeTruth, inLog.Attitude)
		return
	}
	fmt.Fprintf(w, "ground truth written: position %d, velocity %d, attitude %d; estimator resets %d", out.Position, out.Velocity, out.Attitude, out.Resets)
	if out.LostResets > 0 {
		fmt.Fprintf(w, " (and %d whose steps the log does not tell)", out.LostResets)
	}
	fmt.Fprintln(w)
	if inLog.Global > 0 {
		fmt.Fprintf(w, "global position written: %d; origins the estimator declared: %d (with them the audit puts the truth in the estimator's frame)\n",
			out.Global, out.Origins)
	}
	if out.Rejected > 0 {
		fmt.Fprintf(w, "ground truth left out as unusable: %d (last: %v)\n", out.Rejected, out.LastRejected)
	}
	fmt.Fprintln(w, "compare the beliefs with it: decision_node honesty", path)
}

// emitPX4 writes the log as PX4's DDS topics, with PX4's writer QoS in the
// recording's metadata, so that `ros2 bag play` stands in for a PX4 vehicle.
func emitPX4(df *decisionFlags, r *ulog.Reader, in, out, prefix, ns string, withTruth bool, cfg config.Config, stderr io.Writer) error {
	if prefix == "" {
		prefix = os.Getenv("AMENT_PREFIX_PATH")
	}
	defs, err := px4.LoadFromAmentIndex(prefix)
	if err != nil {
		return fail(exitIO, "--emit px4 needs px4_msgs: %w", err)
	}
	t, err := bridge.NewPX4Topics(r, defs, ns)
	if err != nil {
		return fail(exitUsage, "%w", err)
	}
	if withTruth {
		if err := t.WithTruth(); err != nil {
			return fail(exitUsage, "%w", err)
		}
	}
	chans, err := t.Channels()
	if err != nil {
		return fail(exitUsage, "%w", err)
	}
	rec, file, err := df.createOutput(out, cfg)
	if err != nil {
		return err
	}
	defer file.Abort() // after a successful Commit, a no-op
	ids := map[string]bag.ChannelID{}
	profile := qos.Profile{Reliability: qos.ReliabilityBestEffort, Durability: qos.DurabilityTransientLocal, History: qos.HistoryKeepLast, Depth: 1}
	for _, c := range chans {
		if ids[c.Topic], err = rec.AddChannel(c.Topic, c.SchemaName, c.SchemaText, profile); err != nil {
			_ = rec.Close()
			return fail(exitIO, "%w", err)
		}
	}
	var werr error
	for {
		m, err := t.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				werr = err
			}
			break
		}
		if err := rec.Write(ids[m.Topic], m.LogTime, m.PublishTime, m.Data); err != nil {
			werr = err
			break
		}
	}
	if err := rec.Close(); err != nil {
		return fail(exitIO, "write %s: %w", out, err)
	}
	if werr != nil {
		return fail(exitIO, "%s: %w", in, werr)
	}
	if err := file.Commit(); err != nil {
		return err
	}
	if !df.quiet {
		fmt.Fprintf(stderr, "PX4 %s topics written to %s: vehicle_local_position %d, vehicle_attitude %d, vehicle_status %d, battery_status %d, vehicle_odometry %d\n",
			defs.Release(), out, t.Samples["vehicle_local_position"], t.Samples["vehicle_attitude"], t.Samples["vehicle_status"],
			t.Samples["battery_status"], t.Samples["vehicle_odometry"])
		if withTruth {
			fmt.Fprintf(stderr, "ground truth written: %s %d, %s %d\n", bridge.ULogPositionTruth, t.Samples[bridge.ULogPositionTruth],
				bridge.ULogAttitudeTruth, t.Samples[bridge.ULogAttitudeTruth])
		}
	}
	if tr, ok := r.Truncated(); ok {
		return fail(exitFindings, "%s: %v (the output holds every sample up to there)", in, tr)
	}
	return nil
}
