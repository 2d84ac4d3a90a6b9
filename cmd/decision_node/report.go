package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/audit/pyref"
	"github.com/ghost-robotics/ghost/pkg/audit/report"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
)

const reportDescription = `
Writes an audit report of a recording (an MCAP file, or a rosbag2 bag
directory read as verify reads it) as one self-contained HTML file (no
scripts, fonts or links outside it: it opens offline): a header with the
recording, its span and date, the policies, the audit verdict with its
counts and the input source; a timeline, on one time axis in seconds from
the start, of the decisions coloured by kind with the action trail under
them (each command sent, retried, acknowledged, reached, or failed with its
class), escalation marks, the battery against the policy's thresholds, the
armed state, the flight mode and where it differs from the decision; a
detail of each crowded stretch at full width; the self-assessment levels,
the standard deviation per axis against the known/unknown thresholds, the
perception mode, and marks where a belief was decided without an
assessment, where an input was rejected and where the audit found a
problem; one legend giving each colour one meaning; and the tables of
decision episodes and actions, linked from the timeline. Long recordings
are drawn by time slice (every change of decision kind and every receipt
is kept), so a day's flight gives a report of a few megabytes.

--figures DIR also writes each figure as a standalone SVG file. --truth adds
the beliefs against the simulator's ground truth the recording holds, as
'decision_node honesty' finds them, with the true error of each axis drawn
against the claimed ±1σ and ±3σ (exit status 1 when it gives no verdict).

Exit status 0 when the report is written and the audit passed or was not
run; 1 when the audit found problems or the recording is truncated (the
report is still written); 2 usage errors; 3 input or output unusable.`

const reportExample = `  decision_node sim --out flight.mcap
  decision_node report flight.mcap --out report.html --figures figures/`

// auditFlight reads rec once: verify's audit (ghost or Python reference),
// with the report's Collector observing what it reads and decodes. It
// returns the flight the report draws and what it shows of the audit;
// cerr is damage met after some of the recording was read (the report
// shows what was read). ok is false when the audit could not start, aerr
// then saying why; nothing was read.
func auditFlight(rec recording, path string, cfg config.Config, sopts session.SessionOptions, target targetChoice, policies []decisions.Policy, hints auditHints) (f *report.Flight, cerr error, a report.Audit, aerr error, ok bool) {
	in, err := openAuditOf(rec, cfg, sopts, target, io.Discard)
	if err != nil {
		return nil, nil, a, err, false
	}
	defer in.Close()
	c, err := report.NewCollector(report.Options{})
	if err != nil {
		return nil, nil, a, err, false
	}
	vopts := in.vopts
	vopts.Policies, vopts.Total = policies, in.total // the size picks the decode workers
	vopts.Observer = c
	rep, verr := audit.Verify(in.src, vopts)
	if rep == nil {
		return nil, nil, a, verr, false
	}
	read := report.Read{Name: filepath.Base(path), Library: in.readers[0].Library(), Profile: in.readers[0].Profile()}
	if len(rec.files) > 1 {
		read.Name += " (" + rec.kind() + ")"
		read.Problems = bag.NewChain(in.readers, rec.files).Problems()
	} else {
		read.Path, read.Problems = rec.files[0], in.readers[0].Problems()
	}
	if ie := (*audit.IncompleteReadError)(nil); errors.As(verr, &ie) {
		read.Err = ie.Err
	}
	f, cerr = c.FinishRead(read)
	a = reportAudit(rep, in.format)
	for _, cause := range rep.ProblemCauses() {
		if text, _, fixable := causeText(cause, path, rep, hints); fixable {
			a.Hints = append(a.Hints, text)
		}
	}
	return f, cerr, a, nil, true
}

// escalatingRules are, for each policy the host has, the reasons of its
// rules that read what actions achieved: none for a built-in policy.
func escalatingRules(policies []decisions.Policy) map[string][]string {
	out := map[string][]string{}
	for _, p := range policies {
		out[p.ID()] = []string{}
		if rp, ok := p.(*rules.Policy); ok {
			out[p.ID()] = rp.OutcomeReasons()
		}
	}
	return out
}

// reportTruthHint says how to compare the recording's beliefs with a truth, for
// a report made without --truth: add it when the recording holds one,
// else how to record one.
func reportTruthHint(rec recording) string {
	r, err := bag.OpenRecording(rec.files[0], bag.ReaderOptions{})
	if err != nil {
		return ""
	}
	defer r.Close()
	if found, err := truth.Find(r.Channels(), ""); err == nil && found.Form != truth.FormNone {
		return "Not compared: the recording holds a simulator's truth (in " + found.Form.String() + "'s form); " +
			"add --truth to compare the beliefs with it, or run decision_node honesty on the recording (docs/honesty.md)."
	}
	return "Not compared: the recording holds no simulator truth. Record one with the flight (decision_node sim --truth, " +
		"or decision_node ulog of a PX4 SITL log with its *_groundtruth topics), then report --truth or decision_node honesty (docs/honesty.md)."
}

// reportAudit is what the report shows of rep.
func reportAudit(rep *audit.AuditReport, format string) report.Audit {
	a := report.Audit{Verdict: rep.Verdict, Reasons: rep.Reasons, ProblemsOmitted: rep.ProblemsOmitted, Source: format}
	if rep.Target != nil {
		a.Target = targetText(*rep.Target)
	}
	for s := audit.ChainStatus(0); s < audit.NumChainStatuses; s++ {
		a.Chain = append(a.Chain, report.Count{Name: s.String(), N: rep.ChainCount(s)})
	}
	for s := audit.RerunStatus(0); s < audit.NumRerunStatuses; s++ {
		a.Rerun = append(a.Rerun, report.Count{Name: s.String(), N: rep.RerunCount(s)})
	}
	a.PolicyIDs, _ = rep.Policies()
	for _, p := range rep.Problems {
		a.Problems = append(a.Problems, report.Problem{StampNs: p.Stamp, LogNs: p.LogTimeNs, Text: p.KindName + ": " + p.Problem})
	}
	for _, n := range rep.Notes {
		a.Problems = append(a.Problems, report.Problem{StampNs: -1, LogNs: -1, Text: n})
	}
	return a
}

// batteryThresholds are the battery thresholds of the rule policies that
// decided in the recording, for the report's battery plots.
func batteryThresholds(policies []decisions.Policy, decided []report.Count) []report.Threshold {
	var out []report.Threshold
	for _, p := range policies {
		rp, ok := p.(*rules.Policy)
		if !ok || !slices.ContainsFunc(decided, func(c report.Count) bool { return c.Name == rp.ID() }) {
			continue
		}
		for _, th := range rp.BatteryThresholds() {
			out = append(out, report.Threshold{Field: th.Field, Op: th.Op, Value: th.Value, Negated: th.Negated,
				Kind: th.Kind, Rule: th.Rule, Reason: th.Reason})
		}
	}
	return out
}

// collectReference reads a Python reference recording into the report's
// model: its JSON beliefs, raw assessments and decisions.
func collectReference(path string, stderr io.Writer) (*report.Flight, error) {
	r, err := openInput(path, nil, "", "", stderr, jsonEncoding)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	c, err := report.NewCollector(report.Options{})
	if err != nil {
		return nil, err
	}
	roles := map[uint16]pyref.Role{}
	for i, ch := range channelInfos(r) {
		roles[r.Channels()[i].ID] = pyref.RoleOf(ch)
	}
	var readErr error
	for m, err := range r.Messages() {
		if err != nil {
			readErr = err
			break
		}
		t := int64(m.LogTime)
		switch roles[m.ChannelID] {
		case pyref.RoleBelief:
			if b, err := pyref.DecodeBelief(m.Data); err == nil {
				c.Belief(t, &b)
			} else {
				c.Undecodable(t, m.Topic, err)
			}
		case pyref.RoleAssessment:
			if a, err := pyref.DecodeAssessment(m.Data); err == nil {
				c.Assessment(t, &a)
			} else {
				c.Undecodable(t, m.Topic, err)
			}
		case pyref.RoleDecision:
			if d, err := pyref.DecodeRationale(m.Data); err == nil {
				c.Decision(t, &d)
			} else {
				c.Undecodable(t, m.Topic, err)
			}
		case pyref.RolePerception:
			if p, err := pyref.DecodePerception(m.Data); err == nil {
				c.Perception(t, p)
			} else {
				c.Undecodable(t, m.Topic, err)
			}
		}
	}
	f := c.Finish()
	f.Recording, f.Library, f.Profile = filepath.Base(path), r.Library(), r.Profile()
	if readErr != nil {
		return f, fmt.Errorf("read %s: %w", path, readErr)
	}
	return f, nil
}

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", reportDescription, reportExample, stdout)
	out := fs.String("out", "", "output report (`file`, HTML); must not exist unless --force")
	figures := fs.String("figures", "", "also write each figure as an SVG file into `dir` (created if needed)")
	config := fs.String("config", "", "ROS 2 parameters `file` naming the topics (as config/decision.yaml); default: the built-in topic names")
	force := fs.Bool("force", false, "replace the output file if it exists")
	var policyFiles []string
	fs.Func("policy-file", "YAML rule policy `file` the audit may re-run (repeatable), as for verify",
		func(s string) error { policyFiles = append(policyFiles, s); return nil })
	quiet := fs.Bool("quiet", false, "print nothing on success")
	withTruth := fs.Bool("truth", false, "also compare the beliefs with the simulator's ground truth the recording holds (see decision_node honesty)")
	// The action trail is audited with the executors the recording host
	// ran, as verify does.
	var ef executorFlags
	ef.register(fs.FlagSet)
	if err := fs.parse(args); err != nil {
		return err
	}
	path, err := fs.oneRecording()
	if err != nil {
		return err
	}
	if *out == "" {
		return fail(exitUsage, "report needs --out")
	}
	cfg, sopts, policies, err := auditSettings(*config, policyFiles)
	if err != nil {
		return err
	}
	ins := fs.inputsWith(cfg)
	if err := fs.checkOutputs(ins); err != nil {
		return err
	}
	if err := ef.apply(&sopts, false, nil); err != nil {
		return err
	}
	rec, err := reportInput(path, *out, *figures, ins, *force)
	if err != nil {
		return err
	}
	if cfg.PolicyFile != "" {
		policyFiles = append(policyFiles, cfg.PolicyFile)
	}
	flight, cerr, aud, aerr, audited := auditFlight(rec, path, cfg, sopts, ef.targetChoice(sopts, *config), policies, auditHints{rulePolicies: rulePolicyFiles(policyFiles)})
	if !audited {
		// Without an audit the flight is still drawn, from a read of its own.
		if flight, cerr, err = collectFlight(rec, path, cfg, sopts.Inputs, stderr); err != nil {
			return err
		}
		aud = report.Audit{Verdict: "not audited", Reasons: []string{"the audit failed: " + aerr.Error()}}
	}
	var terr error
	if *withTruth {
		terr = addTruth(flight, path, cfg, stderr)
	} else {
		aud.TruthHint = reportTruthHint(rec)
	}
	aud.Thresholds = batteryThresholds(policies, flight.Policies)
	aud.Escalating = escalatingRules(policies)

	if err := writeReport(*out, *figures, ins, *force, flight, aud); err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stdout, "report %s: %d decisions in %d episodes, audit %s\n", *out, flight.Counts.Decisions,
			uint64(len(flight.Episodes))+flight.EpisodesOmitted, aud.Verdict)
		if aud.Target != "" {
			fmt.Fprintf(stdout, "target vehicle: %s\n", aud.Target)
		}
		if s := report.UnfollowedSummary(flight); s != "" {
			fmt.Fprintf(stdout, "decided X, vehicle in Y: %s\n", s)
		}
		for _, h := range aud.Hints {
			fmt.Fprintf(stdout, "to fix: %s\n", h)
		}
	}
	return reportExit(path, cerr, aerr, terr, aud)
}

// reportExit is the exit status of a written report: a damaged read, an
// audit that could not run or failed, then the truth's.
func reportExit(path string, cerr, aerr, terr error, aud report.Audit) error {
	switch {
	case cerr != nil:
		return fail(exitFindings, "%s: %w (the report shows what was read)", path, cerr)
	case aerr != nil:
		return fail(exitFindings, "%s: audit: %w", path, aerr)
	case aud.Verdict == audit.VerdictFail:
		return &exitError{code: exitFindings, err: fmt.Errorf("%s: verdict FAIL: %s", path, strings.Join(aud.Reasons, "; "))}
	}
	return terr
}

// reportInput is the recording report reads, checked with its outputs
// before the work: an output that is an input, not a regular file, or
// exists without --force is refused, and so is a figures folder that is
// not one.
func reportInput(path, out, figures string, ins inputs, force bool) (recording, error) {
	if err := checkFiguresDir(figures, out); err != nil {
		return recording{}, err
	}
	if _, err := os.Stat(path); err != nil {
		return recording{}, fail(exitIO, "%w", err)
	}
	rec, ok := recordingAt(path)
	switch {
	case !ok:
		return recording{}, fail(exitIO, "%s is a directory but not a rosbag2 bag (it has no %s): report takes one recording", path, bag.BagMetadataFile)
	case rec.err != nil:
		return recording{}, fail(exitIO, "%w", rec.err)
	}
	return rec, checkOutput("--out", out, ins, force)
}

// checkFiguresDir refuses, before the work, a --figures that is no
// directory (a file, a device) or the report itself.
func checkFiguresDir(dir, out string) error {
	if dir == "" {
		return nil
	}
	if filepath.Clean(dir) == filepath.Clean(out) {
		return fail(exitUsage, "--figures %s is the --out file: name a folder for the figures", dir)
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fail(exitIO, "--figures %s: %w", dir, err)
	case !st.IsDir():
		return fail(exitIO, "--figures %s is %s, not a folder: name a folder (created if needed)", dir, fileKind(st.Mode()))
	}
	return nil
}

// collectFlight reads the flight the report draws when the audit cannot
// run, on the topics of the session's inputs and the configuration's
// outputs. cerr is damage met after some of it was read (the report shows
// what was read); err, a recording that could not be read at all.
func collectFlight(rec recording, path string, cfg config.Config, inputs []session.InputSpec, stderr io.Writer) (flight *report.Flight, cerr, err error) {
	topics := report.Topics{State: session.TopicOf(inputs, session.KeyState), SelfAssessment: session.TopicOf(inputs, session.KeySelfAssessment),
		PerceptionMode: session.TopicOf(inputs, session.KeyPerceptionMode), Evidence: session.TopicOf(inputs, session.KeyActionEvidence),
		Decisions: decisionsTopic(cfg), Actions: actionsTopic(cfg)}
	if len(rec.files) == 1 && isReferenceRecording(rec.files[0]) {
		flight, cerr = collectReference(rec.files[0], stderr)
	} else {
		name := filepath.Base(path)
		if len(rec.files) > 1 {
			name += " (" + rec.kind() + ")"
		}
		flight, cerr = report.CollectFiles(name, rec.files, report.Options{Topics: topics})
	}
	if flight == nil {
		if errors.Is(cerr, bag.ErrNotMCAP) {
			return nil, nil, fail(exitIO, "%s is not an MCAP recording: %w", path, cerr)
		}
		return nil, nil, fail(exitIO, "%w", cerr)
	}
	return flight, cerr, nil
}

// writeReport writes the HTML and, with a figures folder, each figure,
// through temporary files renamed into place together: a failed run never
// leaves half a report, nor a report without the figures asked for.
func writeReport(out, figures string, ins inputs, force bool, f *report.Flight, a report.Audit) error {
	file, err := createAtomic("--out", out, ins, force)
	if err != nil {
		return err
	}
	files := []*atomicFile{file}
	abort := func() {
		for _, f := range files {
			f.Abort()
		}
	}
	if err := report.Render(file, f, a); err != nil {
		abort()
		return fail(exitIO, "write %s: %w", out, err)
	}
	if figures != "" {
		figs, err := report.FigureFiles(f, a)
		if err != nil {
			abort()
			return fail(exitIO, "figures: %w", err)
		}
		if err := os.MkdirAll(figures, 0o755); err != nil {
			abort()
			return fail(exitIO, "--figures: %w", err)
		}
		for _, fig := range figs {
			path := filepath.Join(figures, fig.Name)
			ff, err := createAtomic("--figures", path, ins, true)
			if err != nil {
				abort()
				return err
			}
			files = append(files, ff)
			if _, err := ff.Write(fig.Data); err != nil {
				abort()
				return fail(exitIO, "write %s: %w", path, err)
			}
		}
	}
	return commitAll(files...)
}
