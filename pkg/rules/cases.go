package rules

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"go.yaml.in/yaml/v3"
)

// CaseResult is the outcome of one table case.
type CaseResult struct {
	Name string
	// Line is where the case starts in the cases file.
	Line int
	Pass bool
	// Step is the index of the step the result is about: the first step
	// whose expectation failed, or the last step.
	Step     int
	StepLine int
	// Want is the expected "kind" or "kind/reason"; Got the decision.
	Want string
	Got  decisions.Decision
	// Err is set when the step's context was rejected or Decide failed.
	Err error
}

// String is one line: "ok   name: kind/reason" or "FAIL name (line N) step K: ...".
func (r CaseResult) String() string {
	switch {
	case r.Err != nil:
		return fmt.Sprintf("FAIL %s (line %d) step %d: %v", r.Name, r.StepLine, r.Step, r.Err)
	case !r.Pass:
		return fmt.Sprintf("FAIL %s (line %d) step %d: want %s, got %s/%s", r.Name, r.StepLine, r.Step, r.Want, r.Got.Kind, r.Got.Reason)
	}
	return fmt.Sprintf("ok   %s: %s/%s", r.Name, r.Got.Kind, r.Got.Reason)
}

// caseStep is one context of a case with an optional expectation.
type caseStep struct {
	ctx        decisions.Context
	line       int
	expect     bool
	wantKind   decisions.Kind
	wantReason string // "" when any reason is accepted
}

type tableCase struct {
	name  string
	line  int
	steps []caseStep
}

var (
	caseKeys = []string{"name", "steps"}
	stepKeys = func() []string {
		keys := []string{"at"}
		for _, f := range stepFields {
			keys = append(keys, f.key)
		}
		return keys
	}()
	assessmentKeys = append(append([]string{"level", "overall", "std"}, blockNames[:3]...), axisNames...)
)

// caseThresholds are the thresholds every case assessment claims; policies
// read levels and standard deviations, never thresholds.
var caseThresholds = decisions.Thresholds{
	PositionKnownStdM: 0.5, PositionUnknownStdM: 2, VelocityKnownStdMps: 0.2, VelocityUnknownStdMps: 1,
	OrientationKnownStdRad: 0.05, OrientationUnknownStdRad: 0.2, SchemaVersion: decisions.SchemaVersion,
}

// RunCasesFile reads a cases file and runs it against p.
func RunCasesFile(p *Policy, path string) ([]CaseResult, error) {
	data, err := limitedfile.ReadFile(path, maxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("rule policy cases: %w", err)
	}
	return RunCases(p, path, data)
}

// RunCases parses a cases file (filename for messages only) and runs each
// case on a fresh instance of p: its steps in order, each decided with
// decisions.DecideWithRationale so contexts and decisions are validated as
// in operation. A malformed file is a *ParseError; failing cases are
// results, not errors.
func RunCases(p *Policy, filename string, data []byte) ([]CaseResult, error) {
	cases, err := parseCases(filename, data)
	if err != nil {
		return nil, err
	}
	out := make([]CaseResult, 0, len(cases))
	for _, tc := range cases {
		inst := newInstance(p.d)
		res := CaseResult{Name: tc.name, Line: tc.line, Pass: true}
		for i, st := range tc.steps {
			res.Step, res.StepLine = i, st.line
			d, _, err := decisions.DecideWithRationale(inst, st.ctx, st.ctx.SelfAssessmentSHA256())
			res.Got = d
			if err != nil {
				res.Pass, res.Err = false, err
				break
			}
			if !st.expect {
				continue
			}
			res.Want = st.wantKind.String()
			if st.wantReason != "" {
				res.Want += "/" + st.wantReason
			}
			if d.Kind != st.wantKind || (st.wantReason != "" && d.Reason != st.wantReason) {
				res.Pass = false
				break
			}
		}
		out = append(out, res)
	}
	return out, nil
}

func parseCases(filename string, data []byte) ([]tableCase, error) {
	r := &reader{file: filename}
	root, err := r.document(data)
	if err != nil {
		return nil, err
	}
	top, err := r.fields(root, "cases file", []string{"cases"}, []string{"cases"})
	if err != nil {
		return nil, err
	}
	items, err := r.seq(top["cases"].val, "cases")
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, r.errf(top["cases"].val, "cases: want at least one case")
	}
	var out []tableCase
	names := map[string]bool{}
	for i, it := range items {
		what := "cases[" + strconv.Itoa(i) + "]"
		f, err := r.fields(it, what, caseKeys, caseKeys)
		if err != nil {
			return nil, err
		}
		tc := tableCase{line: it.Line}
		if tc.name, err = r.ident(f["name"].val, what+".name", 64); err != nil {
			return nil, err
		}
		if names[tc.name] {
			return nil, r.errf(f["name"].val, "%s.name = %s: used by an earlier case", what, quote(tc.name))
		}
		names[tc.name] = true
		steps, err := r.seq(f["steps"].val, what+".steps")
		if err != nil {
			return nil, err
		}
		if len(steps) == 0 {
			return nil, r.errf(f["steps"].val, "%s.steps: want at least one step", what)
		}
		prev := caseStep{ctx: decisions.Context{
			BeliefStampSimNs: -1,
			Flight:           decisions.FlightStatus{BatteryPct: math.NaN(), BatteryV: math.NaN()},
			Mission:          decisions.MissionStatus{StartedSimNs: decisions.NotStarted},
		}}
		for j, sn := range steps {
			st, err := parseStep(r, sn, what+".steps["+strconv.Itoa(j)+"]", prev)
			if err != nil {
				return nil, err
			}
			tc.steps = append(tc.steps, st)
			prev = st
		}
		if !tc.steps[len(tc.steps)-1].expect {
			return nil, r.errf(steps[len(steps)-1], "%s: the last step must have an expect", what)
		}
		out = append(out, tc)
	}
	return out, nil
}

// parseStep reads one step; fields it does not set keep the previous
// step's values, so a sequence lists only what changes.
func parseStep(r *reader, n *yaml.Node, what string, prev caseStep) (caseStep, error) {
	f, err := r.fields(n, what, stepKeys, []string{"at"})
	if err != nil {
		return caseStep{}, err
	}
	st := caseStep{ctx: prev.ctx, line: n.Line}
	at, err := r.duration(f["at"].val, what+".at")
	if err != nil {
		return caseStep{}, err
	}
	if at <= prev.ctx.BeliefStampSimNs {
		return caseStep{}, r.errf(f["at"].val, "%s.at = %s: must be later than the previous step", what, quote(f["at"].val.Value))
	}
	c := &st.ctx
	c.BeliefStampSimNs = at
	// Copies of what the step may change in place: the earlier steps keep
	// their own.
	if c.SelfAssessment != nil {
		a := *c.SelfAssessment
		c.SelfAssessment = &a
	}
	if c.Actions != nil {
		a := *c.Actions
		c.Actions = &a
	}
	for _, sf := range stepFields { // fixed order: errors do not depend on map order
		if e, ok := f[sf.key]; ok {
			if err := sf.set(r, e.val, what+"."+sf.key, &st); err != nil {
				return caseStep{}, err
			}
		}
	}
	if c.SelfAssessment != nil {
		c.SelfAssessment.BeliefStampSimNs = at
	}
	return st, nil
}

// stepField is a key a step may hold besides at, and how it sets the step
// (whose context is already at the step's stamp).
type stepField struct {
	key string
	set func(r *reader, v *yaml.Node, what string, st *caseStep) error
}

// stepFields are the keys of a step after at, in the order they are read.
var stepFields = []stepField{
	{"assessment", func(r *reader, v *yaml.Node, what string, st *caseStep) (err error) {
		st.ctx.SelfAssessment, err = parseAssessment(r, v, what)
		return err
	}},
	{"calibrated_level", parseCalibration},
	{"armed", func(r *reader, v *yaml.Node, what string, st *caseStep) (err error) {
		st.ctx.Flight.Armed, err = r.boolean(v, what)
		return err
	}},
	{"flight_mode", func(r *reader, v *yaml.Node, what string, st *caseStep) error {
		m, err := r.name(v, what, flightModeNames)
		st.ctx.Flight.Mode = decisions.FlightMode(m)
		return err
	}},
	{"mission_mode", func(r *reader, v *yaml.Node, what string, st *caseStep) error {
		m, err := r.name(v, what, missionModeNames)
		st.ctx.Mission.Mode = decisions.MissionMode(m)
		return err
	}},
	{"perception_mode", parsePerception},
	{"battery_pct", func(r *reader, v *yaml.Node, what string, st *caseStep) (err error) {
		st.ctx.Flight.BatteryPct, err = optionalFloat(r, v, what)
		return err
	}},
	{"battery_v", func(r *reader, v *yaml.Node, what string, st *caseStep) (err error) {
		st.ctx.Flight.BatteryV, err = optionalFloat(r, v, what)
		return err
	}},
	{"gnss", parseStepGNSS},
	{"estimator", parseStepEstimator},
	{"px4_failsafe", parseStepFailsafe},
	{"actions", func(r *reader, v *yaml.Node, what string, st *caseStep) error {
		return parseActions(r, v, what, &st.ctx)
	}},
	{"expect", parseExpect},
}

// parseCalibration reads a calibrated level, or missing.
func parseCalibration(r *reader, v *yaml.Node, what string, st *caseStep) error {
	if isMissing(v) {
		st.ctx.Calibration = nil
		return nil
	}
	l, err := r.name(v, what, levelNames)
	if err != nil {
		return err
	}
	st.ctx.Calibration = &decisions.Calibration{
		AdjustedOverallLevel: decisions.Level(l), AdjustmentPolicyID: "table_case", AdjustmentReason: "set_by_case",
		History: decisions.CalibrationHistory{MostRecentObservedStampSimNs: -1, SchemaVersion: decisions.SchemaVersion},
	}
	return nil
}

// parsePerception reads a perception mode, or missing.
func parsePerception(r *reader, v *yaml.Node, what string, st *caseStep) error {
	if isMissing(v) {
		st.ctx.Perception = nil
		return nil
	}
	m, err := r.name(v, what, perceptionModeNames)
	if err != nil {
		return err
	}
	st.ctx.Perception = &decisions.PerceptionReport{StampSimNs: st.ctx.BeliefStampSimNs, Mode: decisions.PerceptionMode(m)}
	return nil
}

// optionalFloat reads a number, or missing (NaN).
func optionalFloat(r *reader, v *yaml.Node, what string) (float64, error) {
	if isMissing(v) {
		return math.NaN(), nil
	}
	return r.float(v, what)
}

// parseExpect reads {action: K, reason: R}.
func parseExpect(r *reader, v *yaml.Node, what string, st *caseStep) error {
	ef, err := r.fields(v, what, []string{"action", "reason"}, []string{"action"})
	if err != nil {
		return err
	}
	st.expect = true
	if st.wantKind, err = parseKind(r, ef["action"].val, what+".action"); err != nil {
		return err
	}
	if re, ok := ef["reason"]; ok {
		if st.wantReason, err = r.ident(re.val, what+".reason", 64); err != nil {
			return err
		}
	}
	return nil
}

func isMissing(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Value == "missing"
}

// parseAssessment builds a self-assessment from `missing` or a mapping:
// `level` sets every axis, a block name its three axes, an axis name one
// axis (applied in that order); block levels are the worst of their axes
// and the overall level the worst of the blocks unless `overall` says
// otherwise; `std` maps axis names to numbers or `none` (default 0.0).
func parseAssessment(r *reader, n *yaml.Node, what string) (*decisions.SelfAssessment, error) {
	if isMissing(n) {
		return nil, nil
	}
	f, err := r.fields(n, what, assessmentKeys, nil)
	if err != nil {
		return nil, err
	}
	a := &decisions.SelfAssessment{
		ThresholdsUsed: caseThresholds, ThresholdsSHA256: caseThresholds.SHA256(),
		CovarianceAvailable: true, SchemaVersion: decisions.SchemaVersion,
	}
	set := func(key string, from, to int) error {
		e, ok := f[key]
		if !ok {
			return nil
		}
		l, err := r.name(e.val, what+"."+key, levelNames)
		for i := from; i < to; i++ {
			a.AxisLevel[i] = decisions.Level(l)
		}
		return err
	}
	if err := set("level", 0, 9); err != nil {
		return nil, err
	}
	for b, name := range blockNames[:3] {
		if err := set(name, 3*b, 3*b+3); err != nil {
			return nil, err
		}
	}
	for i, name := range axisNames {
		if err := set(name, i, i+1); err != nil {
			return nil, err
		}
	}
	for b := range a.BlockLevel {
		a.BlockLevel[b] = decisions.Worst(a.AxisLevel[3*b : 3*b+3]...)
	}
	a.OverallLevel = decisions.Worst(a.BlockLevel[:]...)
	if e, ok := f["overall"]; ok {
		l, err := r.name(e.val, what+".overall", levelNames)
		if err != nil {
			return nil, err
		}
		a.OverallLevel = decisions.Level(l)
	}
	if e, ok := f["std"]; ok {
		sf, err := r.fields(e.val, what+".std", axisNames, nil)
		if err != nil {
			return nil, err
		}
		for i, name := range axisNames {
			se, ok := sf[name]
			switch {
			case !ok:
			case se.val.Kind == yaml.ScalarNode && se.val.Tag == "!!str" && se.val.Value == "none":
				a.Std[i] = math.NaN()
			default:
				if a.Std[i], err = r.float(se.val, what+".std."+name); err != nil {
					return nil, err
				}
			}
		}
	}
	return a, nil
}

// parseActions applies a step's `actions` to the context c (already at the
// step's stamp): a mapping of kinds to an outcome name or to {outcome: O,
// enabled: B, commands: N}. A kind it names is routed, and enabled unless it says
// enabled: false; an outcome that differs from the previous step's is a
// new command, seen from this step on; commands sets the count of the
// episode's commands (0 to 255), which otherwise is 1 for a command that
// was sent. Kinds it does not name keep the
// previous step's state; before the first `actions`, no kind is routed.
func parseActions(r *reader, n *yaml.Node, what string, c *decisions.Context) error {
	f, err := r.fields(n, what, kindNames, nil)
	if err != nil {
		return err
	}
	s := decisions.ActionStates{}
	if c.Actions != nil {
		s = *c.Actions
	} else {
		for k := range s {
			s[k].SinceStampSimNs = -1
		}
	}
	for k, name := range kindNames { // catalog order: errors do not depend on map order
		e, ok := f[name]
		if !ok {
			continue
		}
		w := what + "." + name
		a := &s[k]
		out, enabled, commands := a.Outcome, true, -1
		if e.val.Kind == yaml.ScalarNode {
			o, err := r.name(e.val, w, outcomeNames)
			if err != nil {
				return err
			}
			out = decisions.ActionOutcome(o)
		} else {
			af, err := r.fields(e.val, w, []string{"outcome", "enabled", "commands"}, nil)
			if err != nil {
				return err
			}
			if oe, ok := af["outcome"]; ok {
				o, err := r.name(oe.val, w+".outcome", outcomeNames)
				if err != nil {
					return err
				}
				out = decisions.ActionOutcome(o)
			}
			if ee, ok := af["enabled"]; ok {
				if enabled, err = r.boolean(ee.val, w+".enabled"); err != nil {
					return err
				}
			}
			if ce, ok := af["commands"]; ok {
				n, err := strconv.Atoi(ce.val.Value)
				if err != nil || ce.val.Kind != yaml.ScalarNode || n < 0 || n > 255 {
					return r.errf(ce.val, "%s.commands = %s: want a count from 0 to 255", w, quote(ce.val.Value))
				}
				commands = n
			}
		}
		a.Routed, a.Enabled = true, enabled
		if out == a.Outcome {
			if commands >= 0 {
				a.Commands = uint8(commands)
			}
			continue
		}
		*a = decisions.ActionState{Routed: true, Enabled: enabled, Outcome: out, SinceStampSimNs: -1}
		if out != decisions.ActionNone {
			a.ID, a.DecisionStampSimNs, a.SinceStampSimNs = uint64(c.BeliefStampSimNs)+1, c.BeliefStampSimNs, c.BeliefStampSimNs
			if out != decisions.ActionNotApplicable && out != decisions.ActionBlockedByPolicy {
				a.Attempts, a.Commands = 1, 1
			}
		}
		if commands >= 0 {
			a.Commands = uint8(commands)
		}
	}
	c.Actions = &s
	return nil
}

// setHealth writes h into the step's flight status, leaving the other
// error flags as they are.
func setHealth(st *caseStep, h decisions.Health) {
	f := &st.ctx.Flight
	f.ErrorFlags = f.ErrorFlags&^decisions.HealthMask | h.Flags()
}

// parseStepGNSS reads `missing` or {fix: F, satellites: N}; what it does
// not name keeps the previous step's value.
func parseStepGNSS(r *reader, v *yaml.Node, what string, st *caseStep) error {
	h := st.ctx.Flight.Health()
	if isMissing(v) {
		h.Fix, h.Satellites = decisions.GNSSFixUnknown, 0
		setHealth(st, h)
		return nil
	}
	f, err := r.fields(v, what, []string{"fix", "satellites"}, nil)
	if err != nil {
		return err
	}
	if e, ok := f["fix"]; ok {
		i, err := r.name(e.val, what+".fix", gnssFixNames)
		if err != nil {
			return err
		}
		h.Fix = decisions.GNSSFix(i + 1)
	}
	if e, ok := f["satellites"]; ok {
		n, err := r.integer(e.val, what+".satellites")
		if err != nil {
			return err
		}
		if n < 0 || n > 255 {
			return r.errf(e.val, "%s.satellites = %d: want a count from 0 to 255", what, n)
		}
		h.Satellites = uint8(n)
	}
	if h.Fix == decisions.GNSSFixUnknown {
		return r.errf(v, "%s: want a fix (a receiver that reports satellites reports its fix)", what)
	}
	setHealth(st, h)
	return nil
}

// parseStepEstimator reads `missing` or {FLAG: true or false, ...}; the
// flags it does not name keep the previous step's values (clear at
// first).
func parseStepEstimator(r *reader, v *yaml.Node, what string, st *caseStep) error {
	h := st.ctx.Flight.Health()
	if isMissing(v) {
		h.EstimatorReported, h.DeadReckoningReported, h.Estimator = false, false, 0
		setHealth(st, h)
		return nil
	}
	f, err := r.fields(v, what, estimatorFlagNames, nil)
	if err != nil {
		return err
	}
	h.EstimatorReported = true
	for i, name := range estimatorFlagNames { // table order: errors do not depend on map order
		e, ok := f[name]
		if !ok {
			continue
		}
		set, err := r.boolean(e.val, what+"."+name)
		if err != nil {
			return err
		}
		h.Estimator = h.Estimator&^(1<<i) | bit(set)<<i
		if decisions.EstimatorFlag(i) == decisions.EstimatorDeadReckoning {
			h.DeadReckoningReported = true
		}
	}
	setHealth(st, h)
	return nil
}

// parseStepFailsafe reads `missing` or the list of raised flags (empty:
// reported, none raised), as a PX4 1.16 reports them.
func parseStepFailsafe(r *reader, v *yaml.Node, what string, st *caseStep) error {
	h := st.ctx.Flight.Health()
	h.FailsafeReported, h.NavigatorFailureReported, h.Failsafe = false, false, 0
	if !isMissing(v) {
		items, err := r.seq(v, what)
		if err != nil {
			return err
		}
		h.FailsafeReported, h.NavigatorFailureReported = true, true
		for _, it := range items {
			i, err := r.name(it, what, failsafeFlagNames)
			if err != nil {
				return err
			}
			if h.Failsafe&(1<<i) != 0 {
				return r.errf(it, "%s: %s listed twice", what, quote(it.Value))
			}
			h.Failsafe |= 1 << i
		}
	}
	setHealth(st, h)
	return nil
}
