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

// op is what a condition node tests, an index of condKinds (where each is
// described). Composite nodes come first.
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
	opGNSSFix     // mask over the GNSS fixes (decisions.GNSSFix - 1)
	opGNSSSats    // interval
	opEstimator   // arg: decisions.EstimatorFlag; mask bit 0: clear matches, bit 1: set matches
	opFailsafe    // arg: decisions.FailsafeFlag; mask bit 1: raised matches
	opActCommands // arg: kind; interval over the episode's commands
	opCount
)

// Fields a context may lack; a rule over a missing field cannot be
// evaluated and makes the decision abstain_uncertain / missing_<field>.
const (
	fieldAssessment uint8 = iota
	fieldCalibration
	fieldPerception
	fieldBatteryPct
	fieldBatteryV
	fieldGNSS
	fieldEstimator
	fieldFailsafe
	numFields
)

var fieldNames = []string{"assessment", "calibration", "perception", "battery_pct", "battery_v", "gnss", "estimator", "px4_failsafe"}

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
	// actCommands is per kind the commands of its current episode.
	actCommands [decisions.NumKinds]float64
	// health is the belief's GNSS, estimator and failsafe health; gnss its
	// fix as an index of gnssFixNames, sats its satellites.
	health decisions.Health
	gnss   uint8
	sats   float64
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
	f.health = c.Flight.Health()
	if h := &f.health; h.Fix != decisions.GNSSFixUnknown {
		f.present[fieldGNSS] = true
		f.gnss, f.sats = uint8(h.Fix-1), float64(h.Satellites)
	}
	f.present[fieldEstimator] = f.health.EstimatorReported
	f.present[fieldFailsafe] = f.health.FailsafeReported
	if c.Flight.Armed {
		f.armed = 1
	}
	f.flight, f.mission = uint8(c.Flight.Mode), uint8(c.Mission.Mode)
	if a := c.Actions; a != nil {
		for k := range a {
			f.actOutcome[k] = uint8(a[k].Outcome)
			f.actCommands[k] = float64(a[k].Commands)
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
	k := &condKinds[n.op]
	switch {
	case k.eval != nil:
		return k.eval(nodes, n, f)
	case k.field < numFields && !f.present[k.field]:
		return triUnknown, k.field
	case k.known != nil && !k.known(f, n.arg):
		return triUnknown, k.field
	case k.number != nil:
		return of(n.iv.has(k.number(f, n.arg))), 0
	}
	return of(inMask(n.mask, k.value(f, n.arg))), 0
}

// Limits that keep a hostile file from building an unbounded condition.
const (
	maxDepth = 16
	maxNodes = 4096
)

// builder compiles conditions into nodes.
type builder struct {
	r     *reader
	nodes []node
	// notes are what Check reports of the words written (a misleading
	// outcome name), in the order met.
	notes []note
}

// note is a remark on a word of a policy, at its line and column.
type note struct {
	line, col int
	msg       string
}

func (b *builder) add(n node) int32 {
	b.nodes = append(b.nodes, n)
	return int32(len(b.nodes) - 1)
}

// cond compiles the condition y (one key: a kind of condKinds) and returns
// its root.
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
	key := e.key.Value
	what = what + "." + key
	for o := range condKinds {
		if k := &condKinds[o]; k.parse != nil && k.key == key {
			return k.parse(b, op(o), e.val, what, depth)
		}
	}
	return 0, b.r.errf(e.key, "%s: unknown condition %s (want one of %v)", what, quote(key), condKeys)
}

// shorthandMask reads either a bare name (equality) or a mapping of the
// allowed operators.
func (b *builder) shorthandMask(y *yaml.Node, what string, k *condKind) (uint32, error) {
	if y.Kind == yaml.ScalarNode {
		_, m, err := b.valueName(y, what, k)
		return m, err
	}
	f, err := b.r.fields(y, what, k.ops, nil)
	if err != nil {
		return 0, err
	}
	return b.opsMask(y, f, what, k)
}

// valueName reads one of the names of an enumeration leaf, or of its
// groups, and returns its index (-1 for a group) and the values it stands
// for; a number there is an error that says how the source's numbers read.
func (b *builder) valueName(y *yaml.Node, what string, k *condKind) (int, uint32, error) {
	if k.numbers != "" && y.Kind == yaml.ScalarNode && (y.Tag == "!!int" || y.Tag == "!!float") {
		return 0, 0, b.r.errf(y, "%s = %s: want one of %v, not a number: %s", what, quote(y.Value), k.words(), k.numbers)
	}
	if len(k.groups) == 0 {
		i, err := b.r.name(y, what, k.names)
		return i, 1 << i, err
	}
	i, err := b.r.name(y, what, k.words())
	switch {
	case err != nil:
		return 0, 0, err
	case i < len(k.names):
		return i, 1 << i, nil
	}
	return -1, k.groups[i-len(k.names)].mask, nil
}

func (b *builder) opsMask(y *yaml.Node, f map[string]entry, what string, k *condKind) (uint32, error) {
	names := k.names
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
				_, m, err := b.valueName(it, w, k)
				if err != nil {
					return 0, err
				}
				if set&m != 0 {
					return 0, b.r.errf(it, "%s: %s listed twice", w, quote(it.Value))
				}
				set |= m
			}
			mask &= set
		default:
			i, m, err := b.valueName(e.val, w, k)
			if err != nil {
				return 0, err
			}
			if i < 0 && o != "is" {
				return 0, b.r.errf(e.val, "%s = %s: want a name of %v: %s is a group", w, quote(e.val.Value), k.names, quote(e.val.Value))
			}
			switch o {
			case "is":
				mask &= m
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
// A bound outside the values the leaf's number can take (its kind's
// domain) is an error that says what the number is, in which unit, and
// what the author likely meant.
func (b *builder) bounds(y *yaml.Node, f map[string]entry, what string, k *condKind, arg uint8) (interval, error) {
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
		if d := k.domain; x < d.lo || x > d.hi {
			hint := ""
			if k.hint != nil {
				hint = k.hint(x)
			}
			return iv, b.r.errf(e.val, "%s.%s = %s: out of range: %s%s", what, o, quote(e.val.Value), k.about(arg), hint)
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
	return condKinds[n.op].canon(b, nodes, n)
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
