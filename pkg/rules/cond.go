package rules

import (
	"math"
	"strconv"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"go.yaml.in/yaml/v3"
)

// tri is the value of a condition in three-valued (Kleene) logic: a leaf
// over a field the context lacks is unknown, not false.
type tri uint8

const (
	triFalse tri = iota
	triTrue
	triUnknown
)

// op is what a condition node tests. Composite nodes come first.
type op uint8

const (
	opAll op = iota
	opAny
	opNot
	opLevel       // arg: block 0-2, or 3 for the overall level
	opAxis        // arg: axis index block*3+axis
	opStd         // arg: axis index; a "none" std compares as +Inf
	opEffective   // the calibrated level when present, else the overall level
	opCalibrated  // the calibration's adjusted level
	opArmed       // mask bit 0: disarmed matches, bit 1: armed matches
	opFlightMode  // mask over decisions.FlightMode
	opMissionMode // mask over decisions.MissionMode
	opPerception  // mask over decisions.PerceptionMode
	opBatteryPct  // interval
	opBatteryV    // interval
	opMissing     // arg: field; true when the field is missing
	opActOutcome  // arg: kind; mask over decisions.ActionOutcome
	opActEnabled  // arg: kind; mask bit 0: not enabled matches, bit 1: enabled matches
)

// Fields a context may lack; a rule over a missing field cannot be
// evaluated and makes the decision abstain_uncertain / missing_<field>.
const (
	fieldAssessment uint8 = iota
	fieldCalibration
	fieldPerception
	fieldBatteryPct
	fieldBatteryV
	numFields
)

var fieldNames = []string{"assessment", "calibration", "perception", "battery_pct", "battery_v"}

// missingReasons are the reasons of decisions that could not be evaluated,
// built once so Decide does not allocate them.
var missingReasons = func() (r [numFields]string) {
	for i, n := range fieldNames {
		r[i] = "missing_" + n
	}
	return r
}()

var blockNames = []string{"position", "velocity", "orientation", "overall"}

var axisNames = func() []string {
	var out []string
	for _, b := range blockNames[:3] {
		for _, a := range []string{"x", "y", "z"} {
			out = append(out, b+"_"+a)
		}
	}
	return out
}()

var levelNames = enumNames(func(i int) (string, bool) { l := decisions.Level(i); return l.String(), l.Valid() })
var flightModeNames = enumNames(func(i int) (string, bool) { m := decisions.FlightMode(i); return m.String(), m.Valid() })
var missionModeNames = enumNames(func(i int) (string, bool) { m := decisions.MissionMode(i); return m.String(), m.Valid() })
var perceptionModeNames = enumNames(func(i int) (string, bool) { m := decisions.PerceptionMode(i); return m.String(), m.Valid() })

// enumNames lists the names of a closed enumeration of the contracts
// package, so the policy language follows the catalog it reads.
func enumNames(name func(int) (string, bool)) []string {
	var out []string
	for i := 0; i < 32; i++ {
		s, ok := name(i)
		if !ok {
			break
		}
		out = append(out, s)
	}
	return out
}

// interval is a set of numbers bounded by lo and hi, each bound open or
// closed; the full interval includes both infinities.
type interval struct {
	lo, hi         float64
	loOpen, hiOpen bool
}

func fullInterval() interval { return interval{lo: math.Inf(-1), hi: math.Inf(1)} }

func (iv interval) has(v float64) bool {
	return (v > iv.lo || (v == iv.lo && !iv.loOpen)) && (v < iv.hi || (v == iv.hi && !iv.hiOpen))
}

func (iv interval) empty() bool {
	return iv.lo > iv.hi || (iv.lo == iv.hi && (iv.loOpen || iv.hiOpen))
}

// within reports iv ⊆ o for a non-empty iv.
func (iv interval) within(o interval) bool {
	loOK := iv.lo > o.lo || (iv.lo == o.lo && (!o.loOpen || iv.loOpen))
	hiOK := iv.hi < o.hi || (iv.hi == o.hi && (!o.hiOpen || iv.hiOpen))
	return loOK && hiOK
}

func (iv interval) intersect(o interval) interval {
	if o.lo > iv.lo || (o.lo == iv.lo && o.loOpen) {
		iv.lo, iv.loOpen = o.lo, o.loOpen
	}
	if o.hi < iv.hi || (o.hi == iv.hi && o.hiOpen) {
		iv.hi, iv.hiOpen = o.hi, o.hiOpen
	}
	return iv
}

// node is one element of a compiled condition. Conditions of a policy live
// in one slice and refer to their children by index, so evaluation walks
// memory it already has and allocates nothing.
type node struct {
	op   op
	arg  uint8
	mask uint32
	iv   interval
	kids []int32
}

// field returns the context field a leaf needs, or numFields for leaves
// over fields that are always present.
func (n *node) field() uint8 {
	switch n.op {
	case opLevel, opAxis, opStd, opEffective:
		return fieldAssessment
	case opCalibrated:
		return fieldCalibration
	case opPerception:
		return fieldPerception
	case opBatteryPct:
		return fieldBatteryPct
	case opBatteryV:
		return fieldBatteryV
	}
	return numFields
}

// facts are the values of one context that conditions read, extracted once
// per Decide.
type facts struct {
	present              [numFields]bool
	std                  [9]float64
	axis                 [9]uint8
	block                [4]uint8
	effective, cal       uint8
	armed                uint8
	flight, mission, per uint8
	batteryPct, batteryV float64
	// actOutcome and actEnabled are per kind (none and not enabled when
	// the context carries no action state).
	actOutcome [decisions.NumKinds]uint8
	actEnabled [decisions.NumKinds]uint8
}

func (f *facts) load(c *decisions.Context) {
	*f = facts{}
	if a := c.SelfAssessment; a != nil {
		f.present[fieldAssessment] = true
		for i, s := range a.Std {
			if math.IsNaN(s) {
				s = math.Inf(1) // "none": no bound on the error at all
			}
			f.std[i] = s
			f.axis[i] = uint8(a.AxisLevel[i])
		}
		for b, l := range a.BlockLevel {
			f.block[b] = uint8(l)
		}
		f.block[3] = uint8(a.OverallLevel)
		f.effective = uint8(a.OverallLevel)
	}
	if cal := c.Calibration; cal != nil {
		f.present[fieldCalibration] = true
		f.cal = uint8(cal.AdjustedOverallLevel)
		f.effective = f.cal
	}
	if p := c.Perception; p != nil {
		f.present[fieldPerception] = true
		f.per = uint8(p.Mode)
	}
	f.batteryPct, f.batteryV = c.Flight.BatteryPct, c.Flight.BatteryV
	f.present[fieldBatteryPct] = !math.IsNaN(f.batteryPct)
	f.present[fieldBatteryV] = !math.IsNaN(f.batteryV)
	if c.Flight.Armed {
		f.armed = 1
	}
	f.flight, f.mission = uint8(c.Flight.Mode), uint8(c.Mission.Mode)
	if a := c.Actions; a != nil {
		for k := range a {
			f.actOutcome[k] = uint8(a[k].Outcome)
			if a[k].Enabled {
				f.actEnabled[k] = 1
			}
		}
	}
}

func inMask(mask uint32, v uint8) bool { return (mask>>v)&1 == 1 }

func of(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

// eval returns the value of node i and, when it is unknown, the field whose
// absence made it so (the first one met in rule order).
func eval(nodes []node, i int32, f *facts) (tri, uint8) {
	n := &nodes[i]
	switch n.op {
	case opAll:
		res, missing := triTrue, uint8(0)
		for _, k := range n.kids {
			v, m := eval(nodes, k, f)
			if v == triFalse {
				return triFalse, 0
			}
			if v == triUnknown && res == triTrue {
				res, missing = triUnknown, m
			}
		}
		return res, missing
	case opAny:
		res, missing := triFalse, uint8(0)
		for _, k := range n.kids {
			v, m := eval(nodes, k, f)
			if v == triTrue {
				return triTrue, 0
			}
			if v == triUnknown && res == triFalse {
				res, missing = triUnknown, m
			}
		}
		return res, missing
	case opNot:
		v, m := eval(nodes, n.kids[0], f)
		switch v {
		case triTrue:
			return triFalse, 0
		case triFalse:
			return triTrue, 0
		}
		return triUnknown, m
	case opMissing:
		return of(!f.present[n.arg]), 0
	case opArmed:
		return of(inMask(n.mask, f.armed)), 0
	case opFlightMode:
		return of(inMask(n.mask, f.flight)), 0
	case opMissionMode:
		return of(inMask(n.mask, f.mission)), 0
	case opActOutcome:
		return of(inMask(n.mask, f.actOutcome[n.arg%decisions.NumKinds])), 0
	case opActEnabled:
		return of(inMask(n.mask, f.actEnabled[n.arg%decisions.NumKinds])), 0
	case opEffective:
		if !f.present[fieldAssessment] && !f.present[fieldCalibration] {
			return triUnknown, fieldAssessment
		}
		return of(inMask(n.mask, f.effective)), 0
	}
	field := n.field()
	if field < numFields && !f.present[field] {
		return triUnknown, field
	}
	switch n.op {
	case opLevel:
		return of(inMask(n.mask, f.block[n.arg&3])), 0
	case opAxis:
		return of(inMask(n.mask, f.axis[n.arg%9])), 0
	case opStd:
		return of(n.iv.has(f.std[n.arg%9])), 0
	case opCalibrated:
		return of(inMask(n.mask, f.cal)), 0
	case opPerception:
		return of(inMask(n.mask, f.per)), 0
	case opBatteryPct:
		return of(n.iv.has(f.batteryPct)), 0
	case opBatteryV:
		return of(n.iv.has(f.batteryV)), 0
	}
	return triUnknown, fieldAssessment // unreachable: every op is handled above
}

// Limits that keep a hostile file from building an unbounded condition.
const (
	maxDepth = 16
	maxNodes = 4096
)

// leafKeys are the condition keys, in the order the README lists them.
var condKeys = []string{"all", "any", "not", "level", "axis", "std", "effective_level", "calibrated_level",
	"armed", "flight_mode", "mission_mode", "perception_mode", "battery_pct", "battery_v", "missing", "action"}

var levelOps = []string{"is", "in", "at_least", "at_most"}
var numOps = []string{"lt", "le", "gt", "ge"}

// builder compiles conditions into nodes.
type builder struct {
	r     *reader
	nodes []node
}

func (b *builder) add(n node) int32 {
	b.nodes = append(b.nodes, n)
	return int32(len(b.nodes) - 1)
}

func (b *builder) cond(y *yaml.Node, what string, depth int) (int32, error) {
	if depth > maxDepth {
		return 0, b.r.errf(y, "%s: conditions nest deeper than %d", what, maxDepth)
	}
	if len(b.nodes) >= maxNodes {
		return 0, b.r.errf(y, "%s: more than %d condition nodes", what, maxNodes)
	}
	e, err := b.r.single(y, what)
	if err != nil {
		return 0, err
	}
	key, v := e.key.Value, e.val
	what = what + "." + key
	switch key {
	case "all", "any":
		items, err := b.r.seq(v, what)
		if err != nil {
			return 0, err
		}
		if len(items) == 0 {
			return 0, b.r.errf(v, "%s: want at least one condition", what)
		}
		n := node{op: opAll}
		if key == "any" {
			n.op = opAny
		}
		for i, it := range items {
			k, err := b.cond(it, what+"["+strconv.Itoa(i)+"]", depth+1)
			if err != nil {
				return 0, err
			}
			n.kids = append(n.kids, k)
		}
		return b.add(n), nil
	case "not":
		k, err := b.cond(v, what, depth+1)
		if err != nil {
			return 0, err
		}
		return b.add(node{op: opNot, kids: []int32{k}}), nil
	case "level":
		f, err := b.r.fields(v, what, append([]string{"block"}, levelOps...), []string{"block"})
		if err != nil {
			return 0, err
		}
		blk, err := b.r.name(f["block"].val, what+".block", blockNames)
		if err != nil {
			return 0, err
		}
		mask, err := b.levelMask(v, f, what)
		return b.add(node{op: opLevel, arg: uint8(blk), mask: mask}), err
	case "axis":
		f, err := b.r.fields(v, what, append([]string{"name"}, levelOps...), []string{"name"})
		if err != nil {
			return 0, err
		}
		ax, err := b.r.name(f["name"].val, what+".name", axisNames)
		if err != nil {
			return 0, err
		}
		mask, err := b.levelMask(v, f, what)
		return b.add(node{op: opAxis, arg: uint8(ax), mask: mask}), err
	case "effective_level", "calibrated_level":
		o := opEffective
		if key == "calibrated_level" {
			o = opCalibrated
		}
		mask, err := b.shorthandMask(v, what, levelNames, levelOps)
		return b.add(node{op: o, mask: mask}), err
	case "std":
		f, err := b.r.fields(v, what, append([]string{"axis"}, numOps...), []string{"axis"})
		if err != nil {
			return 0, err
		}
		ax, err := b.r.name(f["axis"].val, what+".axis", axisNames)
		if err != nil {
			return 0, err
		}
		iv, err := b.bounds(v, f, what)
		return b.add(node{op: opStd, arg: uint8(ax), iv: iv}), err
	case "battery_pct", "battery_v":
		f, err := b.r.fields(v, what, numOps, nil)
		if err != nil {
			return 0, err
		}
		iv, err := b.bounds(v, f, what)
		o := opBatteryPct
		if key == "battery_v" {
			o = opBatteryV
		}
		return b.add(node{op: o, iv: iv}), err
	case "armed":
		armed, err := b.r.boolean(v, what)
		mask := uint32(1)
		if armed {
			mask = 2
		}
		return b.add(node{op: opArmed, mask: mask}), err
	case "flight_mode":
		mask, err := b.shorthandMask(v, what, flightModeNames, []string{"in"})
		return b.add(node{op: opFlightMode, mask: mask}), err
	case "mission_mode":
		mask, err := b.shorthandMask(v, what, missionModeNames, []string{"in"})
		return b.add(node{op: opMissionMode, mask: mask}), err
	case "perception_mode":
		mask, err := b.shorthandMask(v, what, perceptionModeNames, []string{"in"})
		return b.add(node{op: opPerception, mask: mask}), err
	case "missing":
		f, err := b.r.name(v, what, fieldNames)
		return b.add(node{op: opMissing, arg: uint8(f)}), err
	case "action":
		return b.action(v, what)
	}
	return 0, b.r.errf(e.key, "%s: unknown condition %s (want one of %v)", what, quote(key), condKeys)
}

// levelMask combines the level operators of a mapping (is, in, at_least,
// at_most); several operators must all hold.
func (b *builder) levelMask(y *yaml.Node, f map[string]entry, what string) (uint32, error) {
	return b.opsMask(y, f, what, levelNames)
}

// shorthandMask reads either a bare name (equality) or a mapping of the
// allowed operators.
func (b *builder) shorthandMask(y *yaml.Node, what string, names, ops []string) (uint32, error) {
	if y.Kind == yaml.ScalarNode {
		i, err := b.r.name(y, what, names)
		return 1 << i, err
	}
	f, err := b.r.fields(y, what, ops, nil)
	if err != nil {
		return 0, err
	}
	return b.opsMask(y, f, what, names)
}

func (b *builder) opsMask(y *yaml.Node, f map[string]entry, what string, names []string) (uint32, error) {
	all := uint32(1)<<len(names) - 1
	mask, any := all, false
	for _, o := range levelOps { // fixed order: errors do not depend on map order
		e, ok := f[o]
		if !ok {
			continue
		}
		any = true
		w := what + "." + o
		switch o {
		case "in":
			items, err := b.r.seq(e.val, w)
			if err != nil {
				return 0, err
			}
			if len(items) == 0 {
				return 0, b.r.errf(e.val, "%s: want at least one name", w)
			}
			set := uint32(0)
			for _, it := range items {
				i, err := b.r.name(it, w, names)
				if err != nil {
					return 0, err
				}
				if set&(1<<i) != 0 {
					return 0, b.r.errf(it, "%s: %s listed twice", w, quote(it.Value))
				}
				set |= 1 << i
			}
			mask &= set
		default:
			i, err := b.r.name(e.val, w, names)
			if err != nil {
				return 0, err
			}
			switch o {
			case "is":
				mask &= 1 << i
			case "at_least":
				mask &= all &^ (1<<i - 1)
			case "at_most":
				mask &= 1<<(i+1) - 1
			}
		}
	}
	if !any {
		return 0, b.r.errf(y, "%s: want at least one of %v", what, levelOps)
	}
	return mask, nil
}

// bounds combines lt/le/gt/ge of a mapping into one interval.
func (b *builder) bounds(y *yaml.Node, f map[string]entry, what string) (interval, error) {
	iv, any := fullInterval(), false
	for _, o := range numOps {
		e, ok := f[o]
		if !ok {
			continue
		}
		any = true
		x, err := b.r.float(e.val, what+"."+o)
		if err != nil {
			return iv, err
		}
		bound := fullInterval()
		switch o {
		case "lt":
			bound.hi, bound.hiOpen = x, true
		case "le":
			bound.hi = x
		case "gt":
			bound.lo, bound.loOpen = x, true
		case "ge":
			bound.lo = x
		}
		iv = iv.intersect(bound)
	}
	if !any {
		return iv, b.r.errf(y, "%s: want at least one of %v", what, numOps)
	}
	return iv, nil
}

// appendCond writes the canonical JSON of node i: keys sorted, sets as
// sorted lists of names, numeric bounds as gt/ge/lt/le. Spellings that mean
// the same (is vs in of one name, at_least vs in) write the same bytes.
func appendCond(b []byte, nodes []node, i int32) []byte {
	n := &nodes[i]
	switch n.op {
	case opAll, opAny:
		if n.op == opAll {
			b = append(b, `{"all":[`...)
		} else {
			b = append(b, `{"any":[`...)
		}
		for j, k := range n.kids {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendCond(b, nodes, k)
		}
		return append(b, "]}"...)
	case opNot:
		b = append(b, `{"not":`...)
		b = appendCond(b, nodes, n.kids[0])
		return append(b, '}')
	case opLevel:
		b = append(b, `{"level":{"block":"`+blockNames[n.arg]+`","in":`...)
		return append(appendMask(b, n.mask, levelNames), "}}"...)
	case opAxis:
		b = append(b, `{"axis":{"in":`...)
		b = appendMask(b, n.mask, levelNames)
		return append(b, `,"name":"`+axisNames[n.arg]+`"}}`...)
	case opStd:
		b = append(b, `{"std":{"axis":"`+axisNames[n.arg]+`"`...)
		return append(appendInterval(b, n.iv, false), "}}"...)
	case opEffective, opCalibrated:
		if n.op == opEffective {
			b = append(b, `{"effective_level":{"in":`...)
		} else {
			b = append(b, `{"calibrated_level":{"in":`...)
		}
		return append(appendMask(b, n.mask, levelNames), "}}"...)
	case opArmed:
		if n.mask == 2 {
			return append(b, `{"armed":true}`...)
		}
		return append(b, `{"armed":false}`...)
	case opFlightMode:
		b = append(b, `{"flight_mode":{"in":`...)
		return append(appendMask(b, n.mask, flightModeNames), "}}"...)
	case opMissionMode:
		b = append(b, `{"mission_mode":{"in":`...)
		return append(appendMask(b, n.mask, missionModeNames), "}}"...)
	case opPerception:
		b = append(b, `{"perception_mode":{"in":`...)
		return append(appendMask(b, n.mask, perceptionModeNames), "}}"...)
	case opBatteryPct, opBatteryV:
		if n.op == opBatteryPct {
			b = append(b, `{"battery_pct":{`...)
		} else {
			b = append(b, `{"battery_v":{`...)
		}
		return append(appendInterval(b, n.iv, true), "}}"...)
	case opMissing:
		return append(b, `{"missing":"`+fieldNames[n.arg]+`"}`...)
	case opActOutcome:
		b = append(b, `{"action":{"kind":"`+kindNames[n.arg]+`","outcome":{"in":`...)
		return append(appendMask(b, n.mask, outcomeNames), "}}}"...)
	case opActEnabled:
		if n.mask == 2 {
			return append(b, `{"action":{"enabled":true,"kind":"`+kindNames[n.arg]+`"}}`...)
		}
		return append(b, `{"action":{"enabled":false,"kind":"`+kindNames[n.arg]+`"}}`...)
	}
	return b
}

func appendMask(b []byte, mask uint32, names []string) []byte {
	b = append(b, '[')
	first := true
	for i, n := range names {
		if inMask(mask, uint8(i)) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, '"')
			b = append(b, n...)
			b = append(b, '"')
		}
	}
	return append(b, ']')
}

// appendInterval writes the finite bounds as `"ge":x,"lt":y` in sorted key
// order (ge, gt, le, lt), preceded by a comma unless first.
func appendInterval(b []byte, iv interval, first bool) []byte {
	bound := func(b []byte, key string, v float64) []byte {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, key...)
		return strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	if !math.IsInf(iv.lo, -1) {
		if iv.loOpen {
			b = bound(b, `"gt":`, iv.lo)
		} else {
			b = bound(b, `"ge":`, iv.lo)
		}
	}
	if !math.IsInf(iv.hi, 1) {
		if iv.hiOpen {
			b = bound(b, `"lt":`, iv.hi)
		} else {
			b = bound(b, `"le":`, iv.hi)
		}
	}
	return b
}
