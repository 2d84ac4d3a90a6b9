package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/ghost-robotics/ghost/pkg/audit/honesty"
	"github.com/ghost-robotics/ghost/pkg/audit/report"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/session"
)

const honestyDescription = `
Did the vehicle know what it claimed to know? Compares every belief of a
recording (an MCAP file, or a rosbag2 bag directory) with the simulator's
ground truth the recording holds, and follows the claims into the
decisions. The truth is ghost's /ground_truth/* (sim --truth, or ulog of a
SITL log) or PX4's /fmu/out/vehicle_local_position_groundtruth with
/fmu/out/vehicle_attitude_groundtruth (a SITL vehicle exporting them), and
where recorded the simulator's global position with the origin the
estimator declares (/ground_truth/global_position and
/ground_truth/estimator_origin, or PX4's
/fmu/out/vehicle_global_position_groundtruth with
/fmu/out/vehicle_local_position).

Per axis (position_x ... orientation_z): the KNOWN claims whose true error
exceeded the known threshold (overconfident), the UNCERTAIN or UNKNOWN
claims whose true error was within it (underconfident), with their time,
and the RMS of the error over the claimed standard deviation (1 when the
claims are honest); per block the NEES with its chi-square bounds; the
decisions taken on overconfident beliefs, and the needless holds and
abstentions. The truth is interpolated to each belief stamp from the
samples on either side, within --max-gap (--max-global-gap for the global
position). Each position axis is compared in the estimator's own frame when
the recording holds the global position and the estimator's origin (the
truth projected into that origin); otherwise the offset between the frames
is the median of estimate minus truth over a window from the axis' first
claim within the known threshold, following the estimator's resets. The
output says which, per axis (docs/honesty.md).

The verdict is honest (every KNOWN claim had a true error within the known
threshold), overconfident (some had not: how many, how long, on which
axes) or none (no simulator truth, only one half of it, nothing compared).

Exit status 0 when a verdict is given, honest or overconfident (the verdict
and --json's "verdict" say which); 1 when none could be given, or the
recording is truncated (the figures cover what was read); 2 usage errors; 3
input unusable. The estimator's own output is never taken for truth.`

const honestyExample = `  decision_node sim --truth --out flight.mcap
  decision_node honesty flight.mcap --json honesty.json`

func runHonesty(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("honesty", honestyDescription, honestyExample, stdout)
	jsonOut := fs.String("json", "", "also write the figures as JSON to `file` (- for stdout, then without the table)")
	config := fs.String("config", "", "ROS 2 parameters `file` naming the topics (as config/decision.yaml); default: the built-in topic names")
	ns := fs.String("px4-namespace", "", `namespace of PX4's ground-truth topics ("/uav_1"); default: the only one the recording has`)
	maxGap := fs.Duration("max-gap", 50*time.Millisecond, "farthest a truth sample may be from a belief stamp, on either side")
	align := fs.String("align", "auto", "how to align the position: auto (in the estimator's frame when the recording holds the global position and the estimator's origin, else by offset) or offset")
	maxGlobalGap := fs.Duration("max-global-gap", 150*time.Millisecond, "farthest a global-position truth sample may be from a belief stamp, on either side (PX4 logs it at 10 Hz)")
	quiet := fs.Bool("quiet", false, "print no table")
	if err := fs.parse(args); err != nil {
		return err
	}
	path, err := fs.oneRecording()
	if err != nil {
		return err
	}
	if *maxGap <= 0 {
		return fail(exitUsage, "--max-gap %v: must be > 0", *maxGap)
	}
	if *maxGlobalGap <= 0 {
		return fail(exitUsage, "--max-global-gap %v: must be > 0", *maxGlobalGap)
	}
	if *align != "auto" && *align != "offset" {
		return fail(exitUsage, "--align %q: want auto or offset", *align)
	}
	cfg, err := (&decisionFlags{config: *config}).settings()
	if err != nil {
		return err
	}
	ins := fs.inputsWith(cfg)
	if err := fs.checkOutputs(ins); err != nil {
		return err
	}
	opts, err := honestyOptions(cfg, *ns, *maxGap)
	if err != nil {
		return err
	}
	opts.MaxGlobalGap, opts.OffsetOnly = *maxGlobalGap, *align == "offset"
	res, rerr := auditHonesty(path, opts, stderr)
	if res == nil {
		return rerr
	}
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, ins, stdout, res); err != nil {
			return err
		}
	}
	if !*quiet && *jsonOut != "-" {
		if err := honesty.WriteTable(stdout, res); err != nil {
			return fail(exitIO, "write table: %w", err)
		}
	}
	switch {
	case rerr != nil:
		return fail(exitFindings, "%s: %w (the numbers cover what was read)", path, rerr)
	case !res.Given() && res.Truth.Source == "none":
		return fail(exitFindings, "%s: no verdict: %s; %s", path, res.Reason, truthHint)
	case !res.Given():
		return fail(exitFindings, "%s: no verdict: %s", path, res.Reason)
	}
	return nil
}

// truthHint says how to make a recording with a simulator's truth.
const truthHint = "to get one, record the truth with the flight: 'decision_node sim --truth --out FILE', " +
	"or 'decision_node ulog' of a PX4 SITL log that logged vehicle_local_position_groundtruth and vehicle_attitude_groundtruth (docs/honesty.md)"

// honestyOptions are the audit's options from the configuration's topics.
func honestyOptions(cfg config.Config, ns string, maxGap time.Duration) (honesty.Options, error) {
	t, err := cfg.ResolvedTopics()
	if err != nil {
		return honesty.Options{}, fail(exitUsage, "%w", err)
	}
	return honesty.Options{
		StateTopic: t[session.KeyState], AssessmentTopic: t[session.KeySelfAssessment], DecisionsTopic: t.Decisions(),
		PX4Namespace: ns, MaxGap: maxGap,
	}, nil
}

// auditHonesty opens the recording at path (a file, or a rosbag2 bag's
// files as one stream in log-time order) and audits it. A nil Result comes
// with an exit error; a Result with an error is what was read before a
// damage.
func auditHonesty(path string, opts honesty.Options, stderr io.Writer) (*honesty.Result, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fail(exitIO, "%w", err)
	}
	rec, ok := recordingAt(path)
	switch {
	case !ok:
		return nil, fail(exitIO, "%s is a directory but not a rosbag2 bag (it has no %s): honesty takes one recording", path, bag.BagMetadataFile)
	case rec.err != nil:
		return nil, fail(exitIO, "%w", rec.err)
	}
	open := func(f string) (*bag.Reader, error) { return openInput(f, nil, "", "", stderr, nil) }
	first, err := open(rec.files[0])
	if err != nil {
		return nil, err
	}
	files, err := openFiles(rec, first, open)
	if err != nil {
		first.Close()
		return nil, err
	}
	defer files.Close()
	channels, err := allChannels(files)
	if err != nil {
		return nil, err
	}
	src, reportOrder := files.source(stderr)
	res, err := honesty.Audit(src, channels, opts)
	reportOrder()
	switch {
	case res == nil && errors.Is(err, honesty.ErrTruth):
		return nil, fail(exitIO, "%s: %w", path, err)
	case res == nil:
		return nil, fail(exitIO, "%s: %w", path, err)
	case err != nil:
		return res, fmt.Errorf("read: %w", err)
	}
	return res, nil
}

// allChannels are the channels of every file of o. An indexed file lists
// them in its summary; one without an index (its recorder was killed, or
// it was cut short) names each only where its messages start, so it is
// read through once for them: the truth's channels must be known before
// the first belief is judged.
func allChannels(o *openedFiles) ([]bag.Channel, error) {
	indexed := true
	for _, r := range o.readers {
		indexed = indexed && r.Indexed()
	}
	if indexed {
		return o.channels(), nil
	}
	var scans []*bag.Reader
	defer func() {
		for _, r := range scans {
			r.Close()
		}
	}()
	for _, f := range o.rec.files {
		r, err := bag.OpenRecording(f, bag.ReaderOptions{Stream: true})
		if err != nil {
			return nil, fail(exitIO, "%w", err)
		}
		scans = append(scans, r)
		for _, err := range r.Messages() {
			if err != nil {
				break // the audit reads up to the same damage and says so
			}
		}
	}
	if len(scans) == 1 {
		return scans[0].Channels(), nil
	}
	return bag.NewChain(scans, o.rec.files).Channels(), nil
}

// addTruth audits the recording at path against its simulator truth, as
// honesty does, and gives the flight the result to draw (report --truth).
// The flight always gets a Truth, which says why when there is no verdict;
// the error is then the exit status to end with, once the report is out.
func addTruth(f *report.Flight, path string, cfg config.Config, stderr io.Writer) error {
	opts, err := honestyOptions(cfg, "", 0)
	if err != nil {
		return err
	}
	c := report.NewTruthCollector(f)
	opts.OnSample = func(s *honesty.Sample) { c.Add(s.StampNs, s.Err, s.Std) }
	res, aerr := auditHonesty(path, opts, stderr)
	if res == nil {
		f.Truth = c.Finish("none", honesty.VerdictNone, aerr.Error(), nil, nil)
		return aerr
	}
	var rows []report.TruthRow
	for _, name := range honesty.AxisNames {
		a := res.Axes[name]
		rms := math.NaN()
		if a.RMSNormalizedError != nil {
			rms = float64(*a.RMSNormalizedError)
		}
		rows = append(rows, report.TruthRow{Axis: name, Unit: a.Unit, KnownThreshold: float64(a.KnownThreshold), Samples: a.Samples,
			KnownClaims: a.KnownClaims, KnownViolations: a.KnownViolations, UnknownClaims: a.UnknownClaims,
			UnknownButWithin: a.UnknownButWithin, KnownViolationsS: float64(a.KnownViolationsS), UnknownButWithinS: float64(a.UnknownButWithinS),
			RMSNormalized: rms})
	}
	source := res.Truth.Origin
	if res.Truth.Frame != "" {
		source += ", frame " + res.Truth.Frame
	}
	// The report says how each position axis was aligned, first among
	// the notes.
	notes := []string{res.PositionAlignment}
	for _, name := range honesty.AxisNames[:3] {
		if al := res.Alignment.Axes[name]; al != nil {
			notes = append(notes, name+": "+al.How)
			if al.Note != "" {
				notes = append(notes, name+": "+al.Note)
			}
		}
	}
	f.Truth = c.Finish(source, res.Verdict, res.Reason, rows, append(notes, res.Notes...))
	switch {
	case aerr != nil:
		return fail(exitFindings, "%s: truth: %w", path, aerr)
	case !res.Given():
		return fail(exitFindings, "%s: truth: no verdict: %s", path, res.Reason)
	}
	return nil
}
