package main

import (
	"errors"
	"fmt"
	"github.com/ghost-robotics/ghost/internal/limitedfile"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/audit/whatif"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/bridge"
	"github.com/ghost-robotics/ghost/pkg/vehicle/ulog"
)

const whatifDescription = `
Asks what a candidate policy would have decided on the flights already
flown. Every recording (a ghost recording, a rosbag2 bag, a Python reference
recording, a PX4 ULog; directories are searched for them) is re-decided
under the candidate, as replay decides it, and compared stamp by stamp with
the decisions it holds, or with --baseline, with a second policy run on the
same inputs. A ULog holds no ghost decisions: without --baseline it is
compared with the policy of the configuration (--config), as 'decision_node
ulog' would decide it.

Per flight: the decisions that differ by kind pair (hold->engage_land ...),
the first divergence with its stamp, each failsafe kind's onset moved
earlier or later, the reasons (and rules) that fired differently, and rows
of the differing decisions. From the first decision that would have
commanded the vehicle differently (an executor's kinds: hold,
yield_to_pilot, engage_rtl, engage_land, engage_kill) the recorded vehicle
is what the baseline made of it, so every later row is marked
counterfactual. Then a fleet summary: flights changed, the earliest and
latest onset shifts, new abstains, kinds never decided before, the
candidate's table cases (--cases, by default the .cases.yaml beside the
policy file) as 'policy test' runs them, and every flight that could not
be compared, by name.

Flights are compared on all cores and printed sorted by path, so the same
inputs give the same output whatever the cores. --json prints one JSON
object per line instead: one per flight, then the summary. --html writes
one page in the report's style with a timeline per changed flight.

Exit status 0 when every flight was compared (changed or not); 1 when one
was read only up to damage, one had nothing to compare, or a candidate's
case fails; 3 when a recording could not be read (the worst wins).`

const whatifExample = `  decision_node whatif --policy-file candidate.yaml flights/
  decision_node whatif --policy-file config/policies/px4_failsafe_tight_position.yaml \
      --baseline config/policies/px4_failsafe_like.yaml --html whatif.html flights/ log.ulg`

func runWhatif(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("whatif", whatifDescription, whatifExample, stdout)
	candidateFile := fs.String("policy-file", "", "the candidate: a YAML rule policy `file`")
	configFile := fs.String("config", "", "ROS 2 parameters `file` both sides decide with: topics, timeouts, thresholds (ULogs), and a ULog's baseline policy; default: the built-in ones")
	baselineArg := fs.String("baseline", "", "compare with this `policy` (a rule policy file or a built-in policy id) on the same inputs, instead of the recorded decisions")
	casesFile := fs.String("cases", "", "the candidate's table cases `file` (default: the policy file's .cases.yaml, when there is one)")
	jsonOut := fs.Bool("json", false, "print one JSON object per line (a line per flight, then the summary) instead of text")
	htmlOut := fs.String("html", "", "also write the comparison as one HTML page to `file`")
	workers := fs.Int("workers", 0, "flights compared at once (default: the number of cores)")
	position := fs.String("position", bridge.PositionLocalPosition, "ULogs: the estimator topic that makes beliefs, local_position or odometry")
	quiet := fs.Bool("quiet", false, "no progress on stderr (shown only on a terminal)")
	var ef executorFlags
	ef.register(fs.FlagSet)
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fail(exitUsage, "whatif needs a recording (or several, or a directory of them)")
	}
	if *candidateFile == "" {
		return fail(exitUsage, "whatif needs --policy-file, the candidate policy")
	}
	if *workers < 0 {
		return fail(exitUsage, "--workers %d: must be at least 1 (0: one per core)", *workers)
	}
	if *position != bridge.PositionLocalPosition && *position != bridge.PositionOdometry {
		return fail(exitUsage, "--position %q: want %s or %s", capText(*position, 40), bridge.PositionLocalPosition, bridge.PositionOdometry)
	}
	setup, err := whatifSettings(*configFile, *candidateFile, *baselineArg, &ef)
	if err != nil {
		return err
	}
	setup.position = *position
	ins := fs.inputsWith(setup.cfg)
	if err := fs.checkOutputs(ins); err != nil {
		return err
	}
	cases, err := candidateCases(setup.candidate, *candidateFile, *casesFile)
	if err != nil {
		return err
	}
	flights, err := expandFlights(fs.Args())
	if err != nil {
		return err
	}
	return whatifRun(setup, flights, cases, whatifOutputs{json: *jsonOut, html: *htmlOut, workers: *workers, quiet: *quiet, ins: ins}, stdout, stderr)
}

// whatifSetup is what every flight of a what-if is decided with.
type whatifSetup struct {
	cfg       config.Config
	candidate *rules.Policy
	baseline  decisions.Policy // nil: the recorded decisions
	// logBaseline is the configuration's policy, a PX4 log's baseline
	// without --baseline.
	logBaseline decisions.Policy
	ef          executorFlags
	// target picks each recording's target vehicle.
	target   targetChoice
	position string
}

// whatifOutputs are where and how the comparison is written.
type whatifOutputs struct {
	json    bool
	html    string
	workers int
	quiet   bool
	// ins are the files the command line names for reading; the page is
	// never written over one of them, nor over a recording found in a
	// directory.
	ins inputs
}

// whatifSettings resolves the configuration, the candidate and the
// baseline.
func whatifSettings(configFile, candidateFile, baselineArg string, ef *executorFlags) (whatifSetup, error) {
	df := decisionFlags{config: configFile}
	cfg, sopts, err := df.session()
	if err != nil {
		return whatifSetup{}, err
	}
	if err := ef.apply(&sopts, false, nil); err != nil {
		return whatifSetup{}, err
	}
	cand, err := rules.ParseFile(candidateFile)
	if err != nil {
		return whatifSetup{}, fail(exitIO, "--policy-file: %w", err)
	}
	s := whatifSetup{cfg: cfg, candidate: cand, ef: *ef, target: ef.targetChoice(sopts, configFile), logBaseline: sopts.Loop.Policy}
	if baselineArg != "" {
		if s.baseline, err = baselinePolicy(baselineArg); err != nil {
			return whatifSetup{}, err
		}
	}
	return s, nil
}

// baselinePolicy is the policy --baseline names: a built-in id, or a rule
// policy file.
func baselinePolicy(arg string) (decisions.Policy, error) {
	if p, err := decisions.LookupPolicy(arg); err == nil {
		return p, nil
	}
	p, err := rules.ParseFile(arg)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fail(exitIO, "--baseline %s: neither a built-in policy (%s) nor a file: %w", arg, strings.Join(decisions.PolicyIDs(), ", "), err)
		}
		return nil, fail(exitIO, "--baseline: %w", err)
	}
	return p, nil
}

// candidateCases runs the candidate's table cases: casesFile, or the
// .cases.yaml beside the policy file when there is one; nil when neither.
func candidateCases(p *rules.Policy, policyFile, casesFile string) (*whatif.CasesView, error) {
	if casesFile == "" {
		sibling := strings.TrimSuffix(policyFile, filepath.Ext(policyFile)) + ".cases.yaml"
		if st, err := os.Stat(sibling); err != nil || !st.Mode().IsRegular() {
			return nil, nil
		}
		casesFile = sibling
	}
	results, err := rules.RunCasesFile(p, casesFile)
	if err != nil {
		return nil, fail(exitIO, "--cases: %w", err)
	}
	return whatif.NewCasesView(casesFile, results), nil
}

// whatifRun compares the flights and writes the outputs.
func whatifRun(setup whatifSetup, recs []recording, cases *whatif.CasesView, out whatifOutputs, stdout, stderr io.Writer) error {
	errw := &lockedWriter{w: stderr}
	flights := make([]whatif.Flight, len(recs))
	for i, rec := range recs {
		flights[i] = whatif.Flight{Name: rec.name, Open: func() (*whatif.Input, error) { return openFlight(rec, setup, errw) }}
	}
	var w whatif.Writer = whatif.NewTextWriter(stdout)
	if out.json {
		w = whatif.NewJSONWriter(stdout)
	}
	var page *atomicFile
	if out.html != "" {
		// Never over a recording it reads.
		ins := slices.Clone(out.ins)
		for _, rec := range recs {
			ins = append(ins, input{by: "a recording", path: rec.name})
		}
		var err error
		if page, err = createAtomic("--html", out.html, ins, true); err != nil {
			return err
		}
		defer page.Abort() // after a successful Commit, a no-op
		w = bothWriters{w, whatif.NewHTMLWriter(page)}
	}
	opts := whatif.Options{
		Candidate: setup.candidate,
		Baseline:  setup.baseline,
		Workers:   out.workers,
		Compare:   whatif.CompareOptions{RuleNames: whatif.RuleNames(setup.candidate, setup.baseline, setup.logBaseline)},
		OnCorrupt: func(flight string, err error) {
			fmt.Fprintf(errw, "decision_node: whatif: %s: skipped: %v\n", flight, err)
		},
	}
	if !out.quiet && isTerminal(stderr) {
		opts.Progress = func(done, total int) {
			fmt.Fprintf(errw, "\rwhatif: %d/%d flights", done, total)
			if done == total {
				fmt.Fprintln(errw)
			}
		}
	}
	sum, err := whatif.Run(flights, opts, w)
	if err != nil {
		return fail(exitIO, "whatif: %w", err)
	}
	sum.Cases = cases
	sum.ExitStatus = whatifExit(sum)
	if err := w.Summary(sum); err != nil {
		return fail(exitIO, "whatif: %w", err)
	}
	if page != nil {
		if err := page.Commit(); err != nil {
			return err
		}
	}
	if sum.ExitStatus != exitOK {
		return &exitError{code: sum.ExitStatus, err: fmt.Errorf("whatif: %s", whatifTrouble(sum))}
	}
	return nil
}

// whatifExit is the exit status of a what-if: 3 when a recording could not
// be read, 1 when one was compared only up to damage or not at all, or a
// candidate's case fails, 0 otherwise.
func whatifExit(s *whatif.Summary) int {
	switch {
	case s.Unreadable > 0:
		return exitIO
	case s.Truncated > 0 || s.NotCompared > 0 || s.Cases != nil && s.Cases.Failed > 0:
		return exitFindings
	}
	return exitOK
}

// whatifTrouble says why the exit status is not 0.
func whatifTrouble(s *whatif.Summary) string {
	var parts []string
	if n := s.Unreadable + s.Truncated + s.NotCompared; n > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d flights not compared to their end (%d unreadable, %d truncated, %d with nothing to compare)",
			n, s.Flights, s.Unreadable, s.Truncated, s.NotCompared))
	}
	if s.Cases != nil && s.Cases.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%s: %d of %d cases fail", s.Cases.File, s.Cases.Failed, s.Cases.Passed+s.Cases.Failed))
	}
	return strings.Join(parts, "; ")
}

// bothWriters writes to two writers.
type bothWriters [2]whatif.Writer

func (b bothWriters) Flight(r *whatif.FlightResult) error {
	return errors.Join(b[0].Flight(r), b[1].Flight(r))
}

func (b bothWriters) Summary(s *whatif.Summary) error {
	return errors.Join(b[0].Summary(s), b[1].Summary(s))
}

// openFlight opens one recording for a what-if: a PX4 log through the
// ULog bridge, anything else as verify opens it.
func openFlight(rec recording, setup whatifSetup, stderr io.Writer) (*whatif.Input, error) {
	so, err := setup.cfg.SessionOptions()
	if err != nil {
		return nil, err
	}
	so.LifecycleFromEvents = true
	if err := setup.ef.apply(&so, false, nil); err != nil {
		return nil, err
	}
	if rec.err == nil && len(rec.files) == 1 && isULogName(rec.files[0]) {
		return openULogFlight(rec.files[0], setup, so)
	}
	in, err := openAuditOf(rec, setup.cfg, so, setup.target, stderr)
	if err != nil {
		return nil, err
	}
	return &whatif.Input{
		Source: in.src, Total: in.total, Format: in.format,
		Session: in.vopts.Session, DecisionsTopic: in.vopts.DecisionsTopic, DecisionFormat: in.vopts.Format,
		Close: func() { in.reportOrder(); in.Close() },
	}, nil
}

// openULogFlight maps a PX4 log to beliefs and assessments with the
// configuration's topics and thresholds; its baseline, unless --baseline,
// is the configuration's policy.
func openULogFlight(path string, setup whatifSetup, so session.SessionOptions) (*whatif.Input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := ulog.NewReader(f, ulog.Options{})
	if err != nil {
		f.Close()
		if errors.Is(err, ulog.ErrNotULog) {
			return nil, fmt.Errorf("not a PX4 ULog file: %w", err)
		}
		return nil, err
	}
	src, _, err := ulogSource(r, setup.position, setup.cfg, bridge.ULogTruthCounts{})
	if err != nil {
		f.Close()
		return nil, err
	}
	in := &whatif.Input{
		Source: src, Format: "PX4 ULog, beliefs from " + setup.position, Session: so, Baseline: so.Loop.Policy,
		Damage: func() error {
			if t, ok := r.Truncated(); ok {
				return t
			}
			return nil
		},
		Close: func() { f.Close() },
	}
	return in, nil
}

// isULogName reports whether path names a PX4 log.
func isULogName(path string) bool { return strings.EqualFold(filepath.Ext(path), ".ulg") }

// expandFlights is expandRecordings for a what-if: directories are also
// searched for PX4 logs (*.ulg), every directory in lexical order, and the
// recordings are sorted by path, each once.
func expandFlights(args []string) ([]recording, error) {
	for _, a := range args {
		// What the command line names is a recording, a bag or a folder of
		// them: anything else is refused before any flight is compared (a
		// file that fails to read is a named failure in the summary).
		if st, err := os.Stat(a); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
			return nil, fail(exitIO, "%s is %s, not a recording or a folder of them: refused (name a file or a folder)", a, limitedfile.Kind(st.Mode()))
		}
	}
	recs, err := expandWith(args, []string{".mcap", ".ulg"}, "no .mcap recordings, rosbag2 bags or .ulg logs in this directory")
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(recs, func(a, b recording) int { return strings.Compare(a.name, b.name) })
	return slices.CompactFunc(recs, func(a, b recording) bool { return a.name == b.name }), nil
}
