package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/bridge"
)

const replayDescription = `
Replays a recording through the decision path: reads its beliefs
(/state/nav), self-assessments (/self_assessment) and perception modes
(/perception/mode) in log-time order, decides every belief stamp as the live
node would (log times stand in for receive times), and writes a new recording
holding those inputs and the decisions with their rationales on /decisions.
An unindexed recording (its recorder was killed) is read in file order and
sorted within a 2 s window of log time; messages further out of order are
processed as read and counted. A rosbag2 bag directory (ros2 bag record -s
mcap) is one recording, split or not: its files are read in the order its
metadata.yaml lists them, merged by log time where two files meet.
Decisions already in the input are not copied: the replay's replace them.
The same input always gives the same output bytes.

A recording the Python reference wrote (JSON messages) is translated into
a ghost ROS 2 recording (CDR): its beliefs on /state/nav (fields a belief
does not carry, such as position and velocities, are zero), its raw
self-assessments on /self_assessment, its calibrated self-assessments on
/self_assessment/calibrated and its perception modes on /perception/mode,
with the decisions re-decided on /decisions. Where it holds calibrated
self-assessments the calibrated input is enabled, so the decisions use the
calibrated context as the reference's did; verify reads the output as is.

A truncated input is processed up to the damage; the output is still a
complete recording and the exit status is 1. Corrupt messages are skipped,
counted and reported with their topic and byte offset.`

const replayExample = `  decision_node replay --in flight.mcap --out replayed.mcap
  decision_node verify replayed.mcap
  decision_node replay --in rosbag2_folder --out replayed.mcap   # a bag, split or not`

func runReplay(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("replay", replayDescription, replayExample, stdout)
	in := fs.String("in", "", "input recording (`file`, MCAP, or a rosbag2 bag directory)")
	out := fs.String("out", "", "output recording (`file`, MCAP); must not exist unless --force")
	source := fs.String("input-source", "", "what the recording holds: ghost (VehicleState, BeliefSelfAssessment), px4 (PX4 topics, px4_msgs) or odometry (nav_msgs/Odometry); default from the configuration's input.source (ghost)")
	var df decisionFlags
	df.register(fs.FlagSet)
	var ef executorFlags
	ef.register(fs.FlagSet)
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
	if *source != "" {
		cfg.Input.Source = *source
		sopts.Loop.Actions.Deadlines = cfg.Deadlines()
	}
	rec, ok := recordingAt(*in)
	switch {
	case !ok:
		return fail(exitIO, "%s is a directory but not a rosbag2 bag (it has no %s): name an .mcap file or a bag directory", *in, bag.BagMetadataFile)
	case rec.err != nil:
		return fail(exitIO, "%w", rec.err)
	}
	if cfg.Input.Source != config.SourceGhost {
		return replayVehicle(&df, rec, *out, cfg, sopts, stderr)
	}
	if isReferenceRecording(rec.files[0]) {
		if len(rec.files) > 1 {
			return fail(exitIO, "%s: a %s split into %d files: replay its files one by one", rec.name, formatReference, len(rec.files))
		}
		return replayReference(&df, rec.files[0], *out, cfg, stderr)
	}
	if err := ef.apply(&sopts, false, nil); err != nil {
		return err
	}
	files, err := openReplayFiles(rec, func(f string) (*bag.Reader, error) {
		return openInput(f, sopts.Inputs, decisionsTopic(cfg), "", stderr, nil)
	})
	if err != nil {
		return err
	}
	defer files.Close()
	if len(sopts.Executors) > 0 {
		// The replayed node commands the vehicle the recording's did.
		target, err := ef.targetChoice(sopts, df.config).of(rec, actionsTopic(cfg))
		if err != nil {
			return err
		}
		sopts.TargetVehicle = target.Vehicle
		if !df.quiet {
			fmt.Fprintf(stderr, "target vehicle: %s\n", targetText(target))
		}
	}
	src, reportOrder := files.source(stderr)
	defer reportOrder()
	_, err = df.decideInto("replay", src, files.total, *in, *out, cfg, sopts, stderr)
	return err
}

// openReplayFiles opens every file of rec with open.
func openReplayFiles(rec recording, open func(path string) (*bag.Reader, error)) (*openedFiles, error) {
	first, err := open(rec.files[0])
	if err != nil {
		return nil, err
	}
	return openFiles(rec, first, open)
}

// openInput opens a recording for reading the given topics, reporting
// channels it cannot use on stderr, with exit statuses for the common
// failures (missing, unreadable, not MCAP).
// With decisions named, only the inputs, decisions, actions and extra
// topics are read.
func openInput(path string, inputs []session.InputSpec, decisions, actions string, stderr io.Writer, encodings []bag.Encoding, extra ...string) (*bag.Reader, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fail(exitIO, "%w", err)
	}
	if st.IsDir() {
		return nil, fail(exitIO, "%s is a directory, not an MCAP recording (name the .mcap file inside it)", path)
	}
	// With no topics named, every channel is read and none is checked.
	var topics []string
	var schemas map[string]string
	if decisions != "" {
		topics = []string{decisions}
		schemas = map[string]string{decisions: "ghost/msg/DecisionRationale"}
		if actions != "" {
			topics = append(topics, actions)
			schemas[actions] = "ghost/msg/ActionReceipt"
		}
		for _, in := range inputs {
			topics = append(topics, in.Topic)
			schemas[in.Topic] = in.Type
		}
		topics = append(topics, extra...)
	}
	r, err := bag.OpenRecording(path, bag.ReaderOptions{
		Topics:    topics,
		Schemas:   schemas,
		Encodings: encodings,
		OnProblem: func(p bag.ChannelProblem) {
			fmt.Fprintf(stderr, "decision_node: %s: channel %d (%s): %v\n", path, p.Channel.ID, p.Channel.Topic, p.Err)
		},
	})
	if err != nil {
		if errors.Is(err, bag.ErrNotMCAP) {
			return nil, fail(exitIO, "%s is not an MCAP recording: %w", path, err)
		}
		return nil, fail(exitIO, "%w", err)
	}
	return r, nil
}

// replayVehicle replays a recording of a vehicle's own topics (PX4,
// nav_msgs/Odometry) as the live node with that input.source decides them:
// each estimator sample becomes a belief and its assessment, recorded next
// to the vehicle's messages, then decided.
func replayVehicle(df *decisionFlags, rec recording, out string, cfg config.Config, sopts session.SessionOptions, stderr io.Writer) error {
	in := rec.name
	files, err := openReplayFiles(rec, func(f string) (*bag.Reader, error) {
		return openInput(f, nil, "", "", stderr, nil)
	})
	if err != nil {
		return err
	}
	defer files.Close()
	reader, reportOrder := files.source(stderr)
	defer reportOrder()
	channels := files.channels()
	b, err := bridge.New(bridge.Options{StateTopic: session.TopicOf(sopts.Inputs, session.KeyState),
		AssessmentTopic: session.TopicOf(sopts.Inputs, session.KeySelfAssessment), Thresholds: cfg.Thresholds})
	if err != nil {
		return fail(exitUsage, "%w", err)
	}
	var src bridge.Source
	switch cfg.Input.Source {
	case config.SourcePX4:
		defs, err := bridge.PX4DefinitionsOf(channels)
		if err != nil {
			return fail(exitIO, "%s: %w", in, err)
		}
		src, err = bridge.NewPX4(b, bridge.PX4Options{Definitions: defs, Namespace: cfg.Input.PX4Namespace, Position: cfg.Input.PX4Position})
		if err != nil {
			return fail(exitUsage, "%w", err)
		}
	case config.SourceOdometry:
		defs, err := bridge.OdometryDefinitionsOf(channels)
		if err != nil {
			return fail(exitIO, "%s: %w", in, err)
		}
		src, err = bridge.NewOdometry(b, defs, cfg.Input.OdometryTopic, cfg.Input.BatteryTopic)
		if err != nil {
			return fail(exitUsage, "%w", err)
		}
	default:
		return fail(exitUsage, "--input-source %q: want ghost, px4 or odometry", cfg.Input.Source)
	}
	t := bridge.NewTranslation(reader, src)
	if _, err := df.decideInto("replay", t, 0, in, out, cfg, sopts, stderr); err != nil {
		return err
	}
	if !df.quiet {
		c := b.Tracker().Counters()
		fmt.Fprintf(stderr, "vehicle messages: %d beliefs made, %d refused (%d by the mapping's stamp and attitude rules)", c.Beliefs, t.Rejected, c.RejectedTotal())
		if t.LastErr != nil {
			fmt.Fprintf(stderr, " (last: %v)", t.LastErr)
		}
		fmt.Fprintln(stderr)
	}
	return nil
}
