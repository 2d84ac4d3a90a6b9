package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/bridge"
	"github.com/ghost-robotics/ghost/pkg/nodeconfig"
	"github.com/ghost-robotics/ghost/pkg/px4"
	"github.com/ghost-robotics/ghost/pkg/ros2"
	"github.com/ghost-robotics/ghost/pkg/runner"
	"github.com/ghost-robotics/ghost/pkg/ulog"
	"github.com/ghost-robotics/ghost/pkg/vehicle"
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
status 1); a log with an unknown incompatible flag is refused.`

const ulogExample = `  decision_node ulog --in flight.ulg --out flight.mcap
  decision_node verify flight.mcap`

func runULog(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("ulog", "ulog --in flight.ulg --out flight.mcap [flags]", ulogDescription, ulogExample, stderr)
	in := fs.String("in", "", "PX4 flight log (`file`, ULog)")
	out := fs.String("out", "", "output recording (`file`, MCAP); must not exist unless --force")
	position := fs.String("position", bridge.PositionLocalPosition, "estimator topic that makes beliefs: local_position or odometry")
	emit := fs.String("emit", "decisions", "what to write: decisions (beliefs, assessments and decisions) or px4 (the log as the PX4 topics a vehicle publishes over uXRCE-DDS, for ros2 bag play or replay --input-source px4)")
	px4Msgs := fs.String("px4-msgs", "", "for --emit px4: ament prefix path holding share/px4_msgs (default: AMENT_PREFIX_PATH)")
	px4NS := fs.String("px4-namespace", "", `for --emit px4: namespace of the topics ("" for /fmu/..., /uav_1 for /uav_1/fmu/...)`)
	var df decisionFlags
	df.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *in == "" || *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return fail(exitUsage, "ulog needs --in and --out (and no other arguments)")
	}
	cfg, sopts, err := df.session()
	if err != nil {
		return err
	}
	st, err := os.Stat(*in)
	if err != nil {
		return fail(exitIO, "%w", err)
	}
	if st.IsDir() {
		return fail(exitIO, "%s is a directory, not a ULog file", *in)
	}
	f, err := os.Open(*in)
	if err != nil {
		return fail(exitIO, "%w", err)
	}
	defer f.Close()
	r, err := ulog.NewReader(f, ulog.Options{})
	if err != nil {
		if errors.Is(err, ulog.ErrNotULog) {
			return fail(exitIO, "%s is not a PX4 ULog file: %w", *in, err)
		}
		return fail(exitIO, "%s: %w", *in, err)
	}
	if *emit == "px4" {
		if df.signingKeyFile != "" {
			// The log's own topics are the vehicle's record, not a claim
			// ghost makes: sealing them would vouch for what it never took.
			return fail(exitUsage, "--signing-key seals what ghost decides: --emit px4 writes the vehicle's topics only")
		}
		return emitPX4(&df, r, *in, *out, *px4Msgs, *px4NS, cfg, stderr)
	}
	if *emit != "decisions" {
		return fail(exitUsage, "--emit %q: want decisions or px4", *emit)
	}
	resolved, err := cfg.ResolvedTopics()
	if err != nil {
		return fail(exitUsage, "%w", err)
	}
	b, err := bridge.New(bridge.Options{
		StateTopic: resolved[runner.KeyState], AssessmentTopic: resolved[runner.KeySelfAssessment], Thresholds: cfg.Thresholds,
	})
	if err != nil {
		return fail(exitUsage, "%w", err)
	}
	src, err := bridge.NewULogSource(r, b, *position)
	if err != nil {
		return fail(exitUsage, "--position: %w", err)
	}
	if err := df.decideInto("ulog", src, 0, *in, *out, cfg, sopts, stderr); err != nil {
		return err
	}
	if !df.quiet {
		printULogSummary(stderr, src, b.Tracker().Counters())
	}
	if t, ok := r.Truncated(); ok {
		return fail(exitFindings, "%s: %v (the output holds every decision up to there)", *in, t)
	}
	return nil
}

func printULogSummary(w io.Writer, src *bridge.ULogSource, c vehicle.Counters) {
	fmt.Fprintf(w, "log samples read: vehicle_local_position %d, vehicle_odometry %d, vehicle_attitude %d, vehicle_status %d, battery_status %d\n",
		src.Samples["vehicle_local_position"], src.Samples["vehicle_odometry"], src.Samples["vehicle_attitude"],
		src.Samples["vehicle_status"], src.Samples["battery_status"])
	fmt.Fprintf(w, "beliefs made: %d; samples rejected by the mapping: %d", c.Beliefs, c.RejectedTotal())
	sep := " ("
	for i, n := range c.Rejected {
		if n > 0 {
			fmt.Fprintf(w, "%s%s %d", sep, vehicle.Reason(i), n)
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
	if p := src.Reader().Problems(); len(p) > 0 {
		fmt.Fprintf(w, "log problems: %d (first: %v)\n", len(p), p[0])
	}
}

// emitPX4 writes the log as PX4's DDS topics, with PX4's writer QoS in the
// recording's metadata, so that `ros2 bag play` stands in for a PX4 vehicle.
func emitPX4(df *decisionFlags, r *ulog.Reader, in, out, prefix, ns string, cfg nodeconfig.Config, stderr io.Writer) error {
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
	chans, err := t.Channels()
	if err != nil {
		return fail(exitUsage, "%w", err)
	}
	rec, file, err := df.createOutput(out, in, cfg)
	if err != nil {
		return err
	}
	defer file.Abort() // after a successful Commit, a no-op
	ids := map[string]bag.ChannelID{}
	qos := ros2.QoSProfile{Reliability: ros2.ReliabilityBestEffort, Durability: ros2.DurabilityTransientLocal, History: ros2.HistoryKeepLast, Depth: 1}
	for _, c := range chans {
		if ids[c.Topic], err = rec.AddChannel(c.Topic, c.SchemaName, c.SchemaText, qos); err != nil {
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
	}
	if tr, ok := r.Truncated(); ok {
		return fail(exitFindings, "%s: %v (the output holds every sample up to there)", in, tr)
	}
	return nil
}
