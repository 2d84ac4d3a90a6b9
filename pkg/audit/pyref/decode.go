package pyref

import (
	"math"
	"strconv"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Reference class names as used in errors (the last part of the schema name).
const (
	classVehicleState    = "VehicleState"
	classAssessment      = "BeliefSelfAssessment"
	classCalibrated      = "CalibratedSelfAssessment"
	classRationale       = "DecisionRationale"
	classPerceptionEvent = "PerceptionModeChanged"
)

// DecodeBelief decodes a VehicleState payload into the part of the belief
// decisions depend on: stamp_sim_ns, nav.pose.orientation_q,
// nav.covariance_15x15 (15x15 array, row-major, or null for none), flight
// and mission. Everything else (stamp_wall_ns, position, twists,
// acceleration, IMU biases, sensor health, schema_version) has no
// counterpart in a ghost belief and is not read. A null battery_v or
// battery_pct becomes NaN, a null started_sim_ns NotStarted, a null goal
// yaw NaN; goal metadata is kept as its JSON text. The result is not
// validated: call Validate.
func DecodeBelief(data []byte) (decisions.Belief, error) {
	d, err := newDecoder(classVehicleState, data)
	if err != nil {
		return decisions.Belief{}, err
	}
	b := d.belief(0)
	if d.err != nil {
		return decisions.Belief{}, d.err
	}
	return b, nil
}

// DecodeAssessment decodes a BeliefSelfAssessment payload. A null std
// becomes NaN. Every float must be written as a float literal (1.0, not 1):
// the reference hashes what it decoded, so an integer literal would hash
// differently from anything ghost can represent, and is refused. The
// result is not validated: call Validate.
func DecodeAssessment(data []byte) (decisions.SelfAssessment, error) {
	d, err := newDecoder(classAssessment, data)
	if err != nil {
		return decisions.SelfAssessment{}, err
	}
	a := d.assessment("", 0)
	if d.err != nil {
		return decisions.SelfAssessment{}, d.err
	}
	return a, nil
}

// DecodeCalibrated decodes a CalibratedSelfAssessment payload (ADR-0027)
// into the raw assessment it carries and the calibration envelope. A null
// most_recent_observed_stamp_sim_ns becomes -1. The envelope's own
// schema_version has no counterpart and is not read.
func DecodeCalibrated(data []byte) (raw decisions.SelfAssessment, cal decisions.Calibration, err error) {
	d, err := newDecoder(classCalibrated, data)
	if err != nil {
		return raw, cal, err
	}
	raw, cal = d.calibrated(0)
	if d.err != nil {
		return decisions.SelfAssessment{}, decisions.Calibration{}, d.err
	}
	return raw, cal, nil
}

// DecodeRationale decodes a DecisionRationale payload; a null
// self_assessment_sha256 (a decision taken without assessment) becomes "".
// The result is not validated: call Validate.
func DecodeRationale(data []byte) (decisions.Rationale, error) {
	d, err := newDecoder(classRationale, data)
	if err != nil {
		return decisions.Rationale{}, err
	}
	r := d.rationale(0)
	if d.err != nil {
		return decisions.Rationale{}, d.err
	}
	return r, nil
}

// DecodePerception decodes a PerceptionModeChanged payload (the reference's
// /perception/mode channel) into the report in force from its stamp: the
// stamp and to_mode. from_mode, reason and producer_ids have no counterpart.
func DecodePerception(data []byte) (decisions.PerceptionReport, error) {
	d, err := newDecoder(classPerceptionEvent, data)
	if err != nil {
		return decisions.PerceptionReport{}, err
	}
	r := d.perception(0)
	if d.err != nil {
		return decisions.PerceptionReport{}, d.err
	}
	return r, nil
}

// decoder walks a parsed payload; the first error sticks and every later
// read returns a zero value, so decoding code reads straight through.
type decoder struct {
	p      *parser
	schema string
	err    *DecodeError
}

func newDecoder(schema string, data []byte) (*decoder, error) {
	p, serr := parseJSON(data)
	if serr != nil {
		return nil, &DecodeError{Schema: schema, Offset: serr.off, Reason: "invalid JSON: " + serr.reason}
	}
	return &decoder{p: p, schema: schema}, nil
}

func join(parent, name string) string {
	if name == "" {
		return parent
	}
	if parent == "" {
		return name
	}
	if strings.HasPrefix(name, "[") {
		return parent + name
	}
	return parent + "." + name
}

// fail records the first error against node i.
func (d *decoder) fail(parent, name string, i int, reason string, err error) {
	if d.err != nil {
		return
	}
	n := &d.p.nodes[i]
	d.err = &DecodeError{
		Schema: d.schema,
		Field:  join(parent, name),
		Offset: n.start,
		Value:  excerpt(d.p.src[n.start:n.end]),
		Reason: reason,
		Err:    err,
	}
}

// maxFields bounds the members one object decoder looks up.
const maxFields = 32

// fields looks up names in the object at node i: idx[k] is the node of the
// last member named names[k] (Python keeps the last duplicate), or -1.
// Members not in names are ignored, as the reference's decoder ignores
// them. A missing name is an error unless its bit is set in optional.
func (d *decoder) fields(parent, name string, i int, names []string, optional uint64) (idx [maxFields]int) {
	for k := range idx {
		idx[k] = -1
	}
	if d.err != nil {
		return idx
	}
	n := &d.p.nodes[i]
	if n.kind != jsonObject {
		d.fail(parent, name, i, "want an object, got "+n.kind.String(), nil)
		return idx
	}
	for c := n.first; c >= 0; c = d.p.nodes[c].next {
		key := d.p.nodes[c].key
		for k, want := range names {
			if key == want {
				idx[k] = c
				break
			}
		}
	}
	for k, want := range names {
		if idx[k] < 0 && optional&(1<<k) == 0 {
			d.fail(parent, name, i, "missing member "+strconv.Quote(want), nil)
			return idx
		}
	}
	return idx
}

func (d *decoder) isNull(i int) bool { return d.err == nil && d.p.nodes[i].kind == jsonNull }

// int64 reads an integer literal. Python keeps a float literal as a float,
// which no ghost integer field can hold, so 1.0 and 1e9 are refused.
func (d *decoder) int64(parent, name string, i int) int64 {
	if d.err != nil {
		return 0
	}
	n := &d.p.nodes[i]
	if n.kind != jsonNumber {
		d.fail(parent, name, i, "want an integer, got "+n.kind.String(), nil)
		return 0
	}
	if strings.ContainsAny(n.str, ".eE") {
		d.fail(parent, name, i, "want an integer literal, got a float", nil)
		return 0
	}
	v, err := strconv.ParseInt(n.str, 10, 64)
	if err != nil {
		d.fail(parent, name, i, "integer out of the int64 range", nil)
		return 0
	}
	return v
}

// optInt64 reads an integer or null (then none).
func (d *decoder) optInt64(parent, name string, i int, none int64) int64 {
	if d.isNull(i) {
		return none
	}
	return d.int64(parent, name, i)
}

// schemaVersion reads a schema_version that defaults to 1 when absent, as
// the reference's dataclasses declare.
func (d *decoder) schemaVersion(parent string, i int) uint8 {
	if i < 0 || d.err != nil {
		return decisions.SchemaVersion
	}
	v := d.int64(parent, "schema_version", i)
	if d.err == nil && (v < 0 || v > math.MaxUint8) {
		d.fail(parent, "schema_version", i, "out of range 0 to 255", nil)
	}
	return uint8(v)
}

// float reads a number. strict refuses integer literals: in a hashed
// contract the reference would write them back as integers.
func (d *decoder) float(parent, name string, i int, strict bool) float64 {
	if d.err != nil {
		return 0
	}
	n := &d.p.nodes[i]
	if n.kind != jsonNumber {
		d.fail(parent, name, i, "want a number, got "+n.kind.String(), nil)
		return 0
	}
	if strict && !strings.ContainsAny(n.str, ".eE") {
		d.fail(parent, name, i, "want a float literal (the reference writes 1.0, and would hash an integer differently)", nil)
		return 0
	}
	v, err := strconv.ParseFloat(n.str, 64)
	if err != nil {
		// Only overflow is possible here: the literal is valid JSON.
		d.fail(parent, name, i, "number out of the float64 range", nil)
		return 0
	}
	return v
}

// optFloat reads a number or null (NaN).
func (d *decoder) optFloat(parent, name string, i int, strict bool) float64 {
	if d.isNull(i) {
		return math.NaN()
	}
	return d.float(parent, name, i, strict)
}

func (d *decoder) bool(parent, name string, i int) bool {
	if d.err != nil {
		return false
	}
	n := &d.p.nodes[i]
	if n.kind != jsonBool {
		d.fail(parent, name, i, "want true or false, got "+n.kind.String(), nil)
		return false
	}
	return n.b
}

func (d *decoder) string(parent, name string, i int) string {
	if d.err != nil {
		return ""
	}
	n := &d.p.nodes[i]
	if n.kind != jsonString {
		d.fail(parent, name, i, "want a string, got "+n.kind.String(), nil)
		return ""
	}
	return n.str
}

// optString reads a string or null ("").
func (d *decoder) optString(parent, name string, i int) string {
	if d.isNull(i) {
		return ""
	}
	return d.string(parent, name, i)
}

func (d *decoder) level(parent, name string, i int) decisions.Level {
	s := d.string(parent, name, i)
	if d.err != nil {
		return 0
	}
	l, err := decisions.ParseLevel(s)
	if err != nil {
		d.fail(parent, name, i, `want "known", "uncertain" or "unknown"`, err)
	}
	return l
}

// enum returns the number of the string at node i in a closed catalog of
// count names numbered from 0.
func (d *decoder) enum(parent, name string, i int, count int, nameOf func(int) string) int {
	s := d.string(parent, name, i)
	if d.err != nil {
		return 0
	}
	for k := 0; k < count; k++ {
		if nameOf(k) == s {
			return k
		}
	}
	d.fail(parent, name, i, "not in the closed catalog", nil)
	return 0
}

// ndarray checks the reference's numpy encoding, {"__array": ..., "__dtype":
// "float64"}, and returns the node of the nested list.
func (d *decoder) ndarray(parent, name string, i int) int {
	idx := d.fields(parent, name, i, []string{"__array", "__dtype"}, 0)
	if d.err != nil {
		return 0
	}
	path := join(parent, name)
	if dt := d.string(path, "__dtype", idx[1]); d.err == nil && dt != "float64" {
		d.fail(path, "__dtype", idx[1], `want "float64"`, nil)
	}
	return idx[0]
}

// floats reads a list of exactly len(out) numbers into out.
func (d *decoder) floats(parent, name string, i int, out []float64) {
	if d.err != nil {
		return
	}
	n := &d.p.nodes[i]
	if n.kind != jsonArray {
		d.fail(parent, name, i, "want an array, got "+n.kind.String(), nil)
		return
	}
	if n.n != len(out) {
		d.fail(parent, name, i, "want "+strconv.Itoa(len(out))+" elements, got "+strconv.Itoa(n.n), nil)
		return
	}
	k := 0
	for c := n.first; c >= 0; c = d.p.nodes[c].next {
		if d.p.nodes[c].kind != jsonNumber {
			d.fail(join(parent, name), "["+strconv.Itoa(k)+"]", c, "want a number, got "+d.p.nodes[c].kind.String(), nil)
			return
		}
		// The element's path is built only when it fails.
		out[k] = d.float("", "", c, false)
		if d.err != nil {
			d.err.Field = join(join(parent, name), "["+strconv.Itoa(k)+"]")
			return
		}
		k++
	}
}

// Field names of a self-assessment, in the order the decoder looks them up.
var assessmentNames = func() []string {
	blocks := [3]string{"position", "velocity", "orientation"}
	units := [3]string{"m", "mps", "rad"}
	axes := [3]string{"x", "y", "z"}
	names := []string{"belief_stamp_sim_ns", "covariance_available"}
	for i := 0; i < 9; i++ {
		names = append(names, blocks[i/3]+"_axis_"+axes[i%3]+"_std_"+units[i/3])
	}
	for i := 0; i < 9; i++ {
		names = append(names, blocks[i/3]+"_axis_"+axes[i%3]+"_level")
	}
	for b := 0; b < 3; b++ {
		names = append(names, blocks[b]+"_overall_level")
	}
	return append(names, "overall_level", "thresholds_used", "thresholds_sha256", "schema_version")
}()

const (
	aStamp      = 0
	aCovAvail   = 1
	aStd        = 2
	aAxisLevel  = 11
	aBlockLevel = 20
	aOverall    = 23
	aThresholds = 24
	aThreshHash = 25
	aSchema     = 26
)

var thresholdNames = []string{
	"position_known_std_m", "position_unknown_std_m",
	"velocity_known_std_mps", "velocity_unknown_std_mps",
	"orientation_known_std_rad", "orientation_unknown_std_rad",
	"schema_version",
}

func (d *decoder) assessment(path string, i int) decisions.SelfAssessment {
	var a decisions.SelfAssessment
	idx := d.fields(path, "", i, assessmentNames, 1<<aSchema)
	if d.err != nil {
		return a
	}
	a.BeliefStampSimNs = d.int64(path, assessmentNames[aStamp], idx[aStamp])
	a.CovarianceAvailable = d.bool(path, assessmentNames[aCovAvail], idx[aCovAvail])
	for k := 0; k < 9; k++ {
		a.Std[k] = d.optFloat(path, assessmentNames[aStd+k], idx[aStd+k], true)
		a.AxisLevel[k] = d.level(path, assessmentNames[aAxisLevel+k], idx[aAxisLevel+k])
	}
	for b := 0; b < 3; b++ {
		a.BlockLevel[b] = d.level(path, assessmentNames[aBlockLevel+b], idx[aBlockLevel+b])
	}
	a.OverallLevel = d.level(path, assessmentNames[aOverall], idx[aOverall])
	a.ThresholdsUsed = d.thresholds(join(path, "thresholds_used"), idx[aThresholds])
	a.ThresholdsSHA256 = d.string(path, assessmentNames[aThreshHash], idx[aThreshHash])
	a.SchemaVersion = d.schemaVersion(path, idx[aSchema])
	return a
}

func (d *decoder) thresholds(path string, i int) decisions.Thresholds {
	var t decisions.Thresholds
	idx := d.fields(path, "", i, thresholdNames, 1<<6)
	if d.err != nil {
		return t
	}
	t.PositionKnownStdM = d.float(path, thresholdNames[0], idx[0], true)
	t.PositionUnknownStdM = d.float(path, thresholdNames[1], idx[1], true)
	t.VelocityKnownStdMps = d.float(path, thresholdNames[2], idx[2], true)
	t.VelocityUnknownStdMps = d.float(path, thresholdNames[3], idx[3], true)
	t.OrientationKnownStdRad = d.float(path, thresholdNames[4], idx[4], true)
	t.OrientationUnknownStdRad = d.float(path, thresholdNames[5], idx[5], true)
	t.SchemaVersion = d.schemaVersion(path, idx[6])
	return t
}

var calibratedNames = []string{
	"raw_assessment", "calibration_history", "adjusted_overall_level",
	"adjustment_policy_id", "adjustment_reason", "schema_version",
}

var historyNames = []string{
	"outcomes_considered", "count_within_1_std", "count_beyond_1_std",
	"count_beyond_3_std", "count_beyond_5_std", "worst_position_mahalanobis",
	"worst_orientation_mahalanobis", "most_recent_observed_stamp_sim_ns", "schema_version",
}

func (d *decoder) calibrated(i int) (decisions.SelfAssessment, decisions.Calibration) {
	var c decisions.Calibration
	idx := d.fields("", "", i, calibratedNames, 1<<5)
	if d.err != nil {
		return decisions.SelfAssessment{}, c
	}
	raw := d.assessment("raw_assessment", idx[0])
	h := d.fields("", "calibration_history", idx[1], historyNames, 1<<8)
	if d.err == nil {
		const p = "calibration_history"
		c.History = decisions.CalibrationHistory{
			OutcomesConsidered:           d.int64(p, historyNames[0], h[0]),
			CountWithin1Std:              d.int64(p, historyNames[1], h[1]),
			CountBeyond1Std:              d.int64(p, historyNames[2], h[2]),
			CountBeyond3Std:              d.int64(p, historyNames[3], h[3]),
			CountBeyond5Std:              d.int64(p, historyNames[4], h[4]),
			WorstPositionMahalanobis:     d.float(p, historyNames[5], h[5], false),
			WorstOrientationMahalanobis:  d.float(p, historyNames[6], h[6], false),
			MostRecentObservedStampSimNs: d.optInt64(p, historyNames[7], h[7], -1),
			SchemaVersion:                d.schemaVersion(p, h[8]),
		}
	}
	c.AdjustedOverallLevel = d.level("", calibratedNames[2], idx[2])
	c.AdjustmentPolicyID = d.string("", calibratedNames[3], idx[3])
	c.AdjustmentReason = d.string("", calibratedNames[4], idx[4])
	if idx[5] >= 0 {
		d.schemaVersion("", idx[5]) // type-checked; ghost has no field for it
	}
	return raw, c
}

var rationaleNames = []string{"decision", "belief_stamp_sim_ns", "self_assessment_sha256", "policy_id", "schema_version"}

var decisionNames = []string{"kind", "decision_stamp_sim_ns", "reason", "schema_version"}

func (d *decoder) rationale(i int) decisions.Rationale {
	var r decisions.Rationale
	idx := d.fields("", "", i, rationaleNames, 1<<4)
	if d.err != nil {
		return r
	}
	di := d.fields("", "decision", idx[0], decisionNames, 1<<3)
	if d.err == nil {
		const p = "decision"
		kind := d.string(p, "kind", di[0])
		if d.err == nil {
			k, err := decisions.ParseKind(kind)
			if err != nil {
				d.fail(p, "kind", di[0], "not one of the seven decision kinds", err)
			}
			r.Decision.Kind = k
		}
		r.Decision.DecisionStampSimNs = d.int64(p, decisionNames[1], di[1])
		r.Decision.Reason = d.string(p, decisionNames[2], di[2])
		r.Decision.SchemaVersion = d.schemaVersion(p, di[3])
	}
	r.BeliefStampSimNs = d.int64("", rationaleNames[1], idx[1])
	r.SelfAssessmentSHA256 = d.optString("", rationaleNames[2], idx[2])
	r.PolicyID = d.string("", rationaleNames[3], idx[3])
	r.SchemaVersion = d.schemaVersion("", idx[4])
	return r
}

var perceptionNames = []string{"stamp_sim_ns", "to_mode"}

func (d *decoder) perception(i int) decisions.PerceptionReport {
	var r decisions.PerceptionReport
	idx := d.fields("", "", i, perceptionNames, 0)
	if d.err != nil {
		return r
	}
	r.StampSimNs = d.int64("", perceptionNames[0], idx[0])
	r.Mode = decisions.PerceptionMode(d.enum("", perceptionNames[1], idx[1], catalogSize(func(k int) bool { return decisions.PerceptionMode(k).Valid() }),
		func(k int) string { return decisions.PerceptionMode(k).String() }))
	return r
}

// catalogSize counts the valid values of a closed catalog numbered from 0.
func catalogSize(valid func(int) bool) int {
	n := 0
	for n < 256 && valid(n) {
		n++
	}
	return n
}

var (
	vehicleNames    = []string{"stamp_sim_ns", "nav", "flight", "mission"}
	navNames        = []string{"pose", "covariance_15x15"}
	poseNames       = []string{"orientation_q"}
	flightNames     = []string{"armed", "flight_mode", "battery_v", "battery_pct", "error_flags"}
	missionNames    = []string{"mode", "current_goal", "progress", "started_sim_ns"}
	goalNames       = []string{"position_enu_m", "yaw_rad", "metadata"}
	flightModeCount = catalogSize(func(k int) bool { return decisions.FlightMode(k).Valid() })
	missionModes    = catalogSize(func(k int) bool { return decisions.MissionMode(k).Valid() })
)

func (d *decoder) belief(i int) decisions.Belief {
	var b decisions.Belief
	idx := d.fields("", "", i, vehicleNames, 0)
	if d.err != nil {
		return b
	}
	b.StampSimNs = d.int64("", vehicleNames[0], idx[0])

	nav := d.fields("", "nav", idx[1], navNames, 0)
	if d.err != nil {
		return b
	}
	pose := d.fields("nav", "pose", nav[0], poseNames, 0)
	if d.err != nil {
		return b
	}
	q := d.ndarray("nav.pose", "orientation_q", pose[0])
	d.floats("nav.pose.orientation_q", "__array", q, b.OrientationQ[:])
	if !d.isNull(nav[1]) {
		b.Covariance = d.covariance(nav[1])
	}

	fl := d.fields("", "flight", idx[2], flightNames, 0)
	if d.err == nil {
		const p = "flight"
		b.Flight.Armed = d.bool(p, flightNames[0], fl[0])
		b.Flight.Mode = decisions.FlightMode(d.enum(p, flightNames[1], fl[1], flightModeCount,
			func(k int) string { return decisions.FlightMode(k).String() }))
		b.Flight.BatteryV = d.optFloat(p, flightNames[2], fl[2], false)
		b.Flight.BatteryPct = d.optFloat(p, flightNames[3], fl[3], false)
		flags := d.int64(p, flightNames[4], fl[4])
		if d.err == nil && flags < 0 {
			d.fail(p, flightNames[4], fl[4], "must be >= 0", nil)
		}
		b.Flight.ErrorFlags = uint64(flags)
	}

	m := d.fields("", "mission", idx[3], missionNames, 0)
	if d.err == nil {
		const p = "mission"
		b.Mission.Mode = decisions.MissionMode(d.enum(p, missionNames[0], m[0], missionModes,
			func(k int) string { return decisions.MissionMode(k).String() }))
		if !d.isNull(m[1]) {
			b.Mission.Goal = d.goal(m[1])
		}
		b.Mission.Progress = d.float(p, missionNames[2], m[2], false)
		b.Mission.StartedSimNs = d.optInt64(p, missionNames[3], m[3], decisions.NotStarted)
	}
	return b
}

// covariance reads the 15x15 numpy array row-major into 225 values.
func (d *decoder) covariance(i int) []float64 {
	const path = "nav.covariance_15x15"
	rows := d.ndarray("nav", "covariance_15x15", i)
	if d.err != nil {
		return nil
	}
	n := &d.p.nodes[rows]
	if n.kind != jsonArray || n.n != decisions.CovarianceDim {
		d.fail(path, "__array", rows, "want a 15x15 nested list", nil)
		return nil
	}
	cov := make([]float64, decisions.CovarianceLen)
	r := 0
	for c := n.first; c >= 0 && d.err == nil; c = d.p.nodes[c].next {
		d.floats(path+".__array", "["+strconv.Itoa(r)+"]", c, cov[r*decisions.CovarianceDim:(r+1)*decisions.CovarianceDim])
		r++
	}
	return cov
}

func (d *decoder) goal(i int) *decisions.Goal {
	const p = "mission.current_goal"
	g := &decisions.Goal{}
	idx := d.fields("mission", "current_goal", i, goalNames, 0)
	if d.err != nil {
		return nil
	}
	if !d.isNull(idx[0]) {
		arr := d.ndarray(p, goalNames[0], idx[0])
		d.floats(p+".position_enu_m", "__array", arr, g.PositionENU[:])
		g.HasPosition = true
	}
	g.YawRad = d.optFloat(p, goalNames[1], idx[1], false)
	if d.err == nil {
		n := &d.p.nodes[idx[2]]
		if n.kind != jsonObject {
			d.fail(p, goalNames[2], idx[2], "want an object, got "+n.kind.String(), nil)
		}
		g.MetadataJSON = d.p.src[n.start:n.end]
	}
	return g
}
