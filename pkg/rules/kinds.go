package rules

import (
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// condKind is one kind of condition of the policy language, said once: the
// key a policy writes it under, how its value is parsed, the context field
// it needs, what it reads of the context, and its canonical form. Parsing
// (builder.cond), evaluation (eval), the canonical form (appendCond) and
// the analysis (Check) all read this table, so a new condition is one
// entry of condKinds (and, when it reads a part of the context no condition
// read before, a field of facts).
type condKind struct {
	// key is the YAML key; empty for a leaf that only another kind's parse
	// makes (the enabled test of an action).
	key string
	// parse compiles the value v written under key into nodes and returns
	// the root's index; what names v in messages.
	parse func(b *builder, o op, v *yaml.Node, what string, depth int) (int32, error)
	// argKey names the key that picks the leaf's arg among args
	// ("block", "name", "axis"); args alone, without argKey, name the arg
	// of a leaf written as a bare name (missing) or by another kind.
	argKey string
	args   []string
	// ops are the operators the leaf's mapping may hold.
	ops []string
	// names are the values of an enumeration leaf, by bit of its mask;
	// numbers, when set, says how a source's numbers for them read, for
	// the error on a number written instead of a name.
	names   []string
	numbers string
	// groups are names that stand for several values.
	groups []nameGroup
	// field is the context field the leaf needs; numFields when it needs
	// none (or, with eval, says itself when it is unknown).
	field uint8
	// A plain leaf reads one value of the context: value, a small
	// enumeration tested against the node's mask, or number, tested
	// against the node's interval. domain holds every number a valid
	// context can give.
	value  func(f *facts, arg uint8) uint8
	number func(f *facts, arg uint8) float64
	domain interval
	// about says what a number is, its unit and its domain (a sentence
	// naming it), for the error on a bound outside the domain; hint,
	// optional, what the author likely meant by such a bound x ("; for
	// 15 % write 0.15").
	about func(arg uint8) string
	hint  func(x float64) string
	// known, optional, says whether the leaf's arg is known when its field
	// is present (a flag an older release does not report).
	known func(f *facts, arg uint8) bool
	// eval evaluates the composites and the leaves that are more than a
	// test of value or number.
	eval func(nodes []node, n *node, f *facts) (tri, uint8)
	// canon appends the canonical JSON of a node of this kind.
	canon func(b []byte, nodes []node, n *node) []byte
}

// nameGroup is a name that stands for a set of an enumeration's values.
type nameGroup struct {
	name string
	mask uint32
}

// words are the names a leaf's value may be written with: its names, then
// its groups.
func (k *condKind) words() []string {
	if len(k.groups) == 0 {
		return k.names
	}
	w := append([]string(nil), k.names...)
	for _, g := range k.groups {
		w = append(w, g.name)
	}
	return w
}

// condKinds is the table of condition kinds, indexed by op. It is filled
// in init because its composites recurse through it.
var condKinds [opCount]condKind

// condKeys are the condition keys, in table order (the README's).
var condKeys []string

func init() {
	condKinds = [opCount]condKind{
		opAll: {key: "all", parse: parseComposite, eval: evalAll, canon: canonComposite},
		opAny: {key: "any", parse: parseComposite, eval: evalAny, canon: canonComposite},
		opNot: {key: "not", parse: parseNot, eval: evalNot, canon: canonNot},
		opLevel: {key: "level", parse: parseLeaf, argKey: "block", args: blockNames, ops: levelOps, names: levelNames,
			field: fieldAssessment, value: func(f *facts, arg uint8) uint8 { return f.block[arg&3] }, canon: canonLevel},
		opAxis: {key: "axis", parse: parseLeaf, argKey: "name", args: axisNames, ops: levelOps, names: levelNames,
			field: fieldAssessment, value: func(f *facts, arg uint8) uint8 { return f.axis[arg%9] }, canon: canonAxis},
		// A "none" std compares as +Inf.
		opStd: {key: "std", parse: parseLeaf, argKey: "axis", args: axisNames, ops: numOps, field: fieldAssessment,
			number: func(f *facts, arg uint8) float64 { return f.std[arg%9] }, domain: interval{lo: 0, hi: math.Inf(1)},
			about: aboutStd, canon: canonStd},
		// The calibrated level when present, else the overall level.
		opEffective: {key: "effective_level", parse: parseLeaf, ops: levelOps, names: levelNames, field: numFields,
			eval: evalEffective, canon: canonIn},
		opCalibrated: {key: "calibrated_level", parse: parseLeaf, ops: levelOps, names: levelNames, field: fieldCalibration,
			value: func(f *facts, _ uint8) uint8 { return f.cal }, canon: canonIn},
		// mask bit 0: disarmed matches, bit 1: armed matches.
		opArmed: {key: "armed", parse: parseArmed, field: numFields,
			value: func(f *facts, _ uint8) uint8 { return f.armed }, canon: canonArmed},
		opFlightMode: {key: "flight_mode", parse: parseLeaf, ops: inOp, names: flightModeNames, field: numFields,
			numbers: "a PX4 nav_state number reads as one of these names (docs/inputs.md, flight status); PX4's modes without a name here read init",
			value:   func(f *facts, _ uint8) uint8 { return f.flight }, canon: canonIn},
		opMissionMode: {key: "mission_mode", parse: parseLeaf, ops: inOp, names: missionModeNames, field: numFields,
			value: func(f *facts, _ uint8) uint8 { return f.mission }, canon: canonIn},
		opPerception: {key: "perception_mode", parse: parseLeaf, ops: inOp, names: perceptionModeNames, field: fieldPerception,
			value: func(f *facts, _ uint8) uint8 { return f.per }, canon: canonIn},
		// FlightStatus.Validate: a fraction in [0, 1], a voltage >= 0.
		opBatteryPct: {key: "battery_pct", parse: parseLeaf, ops: numOps, field: fieldBatteryPct,
			number: func(f *facts, _ uint8) float64 { return f.batteryPct }, domain: interval{lo: 0, hi: 1},
			about: about("battery_pct is the remaining charge as a fraction of the full charge, from 0 to 1"), hint: percentHint, canon: canonBounds},
		opBatteryV: {key: "battery_v", parse: parseLeaf, ops: numOps, field: fieldBatteryV,
			number: func(f *facts, _ uint8) float64 { return f.batteryV }, domain: interval{lo: 0, hi: math.Inf(1)},
			about: about("battery_v is the battery voltage in V, never negative"), canon: canonBounds},
		// arg: the field; true when the field is missing.
		opMissing: {key: "missing", parse: parseMissing, args: fieldNames, field: numFields, eval: evalMissing, canon: canonMissing},
		opActOutcome: {key: "action", parse: parseAction, args: kindNames, names: outcomeNames, field: numFields,
			value: func(f *facts, arg uint8) uint8 { return f.actOutcome[arg%uint8(len(f.actOutcome))] }, canon: canonOutcome},
		// mask bit 0: not enabled matches, bit 1: enabled matches.
		opActEnabled: {args: kindNames, field: numFields,
			value: func(f *facts, arg uint8) uint8 { return f.actEnabled[arg%uint8(len(f.actEnabled))] }, canon: canonEnabled},
		opActCommands: {args: kindNames, ops: numOps, field: numFields,
			number: func(f *facts, arg uint8) float64 { return f.actCommands[arg%uint8(len(f.actCommands))] }, domain: interval{lo: 0, hi: 255},
			about: about("action.commands is how many commands of the kind the current streak of its decisions sent, a count from 0 to 255"), canon: canonCommands},
		opGNSSFix: {key: "gnss", parse: parseGNSS, ops: levelOps, names: gnssFixNames, groups: gnssFixGroups, field: fieldGNSS,
			numbers: "PX4's fix_type reads as these names: 0 and 1 no_fix, 2 2d, 3 3d, 4 dgps, 5 rtk_float, 6 rtk_fixed, 8 extrapolated (PX4 never uses 7)",
			value:   func(f *facts, _ uint8) uint8 { return f.gnss }, canon: canonGNSSFix},
		opGNSSSats: {ops: numOps, field: fieldGNSS, number: func(f *facts, _ uint8) float64 { return f.sats },
			domain: interval{lo: 0, hi: 255}, about: about("gnss.satellites is the number of satellites the receiver uses, a count from 0 to 255"), canon: canonGNSSSats},
		opEstimator: {key: "estimator", parse: parseEstimator, args: estimatorFlagNames, field: fieldEstimator,
			value: estimatorFlag, known: estimatorKnown, canon: canonEstimator},
		opFailsafe: {key: "px4_failsafe", parse: parseFailsafe, args: failsafeFlagNames, field: fieldFailsafe,
			value: failsafeFlag, known: failsafeKnown, canon: canonFailsafe},
	}
	condKeys = nil
	for _, k := range condKinds {
		if k.parse != nil {
			condKeys = append(condKeys, k.key)
		}
	}
}

var (
	levelOps = []string{"is", "in", "at_least", "at_most"}
	numOps   = []string{"lt", "le", "gt", "ge"}
	inOp     = []string{"in"}
)

func parseComposite(b *builder, o op, v *yaml.Node, what string, depth int) (int32, error) {
	items, err := b.r.seq(v, what)
	if err != nil {
		return 0, err
	}
	if len(items) == 0 {
		return 0, b.r.errf(v, "%s: want at least one condition", what)
	}
	n := node{op: o}
	for i, it := range items {
		k, err := b.cond(it, what+"["+strconv.Itoa(i)+"]", depth+1)
		if err != nil {
			return 0, err
		}
		n.kids = append(n.kids, k)
	}
	return b.add(n), nil
}

func parseNot(b *builder, _ op, v *yaml.Node, what string, depth int) (int32, error) {
	k, err := b.cond(v, what, depth+1)
	if err != nil {
		return 0, err
	}
	return b.add(node{op: opNot, kids: []int32{k}}), nil
}

// parseLeaf compiles the plain leaves: {argKey: name, OPS...} when the
// kind has an argKey, a mapping of bounds for a number, and otherwise a
// bare name or a mapping of the kind's operators.
func parseLeaf(b *builder, o op, v *yaml.Node, what string, _ int) (int32, error) {
	k := &condKinds[o]
	n := node{op: o}
	var f map[string]entry
	var err error
	switch {
	case k.argKey != "":
		if f, err = b.r.fields(v, what, append([]string{k.argKey}, k.ops...), []string{k.argKey}); err != nil {
			return 0, err
		}
		a, err := b.r.name(f[k.argKey].val, what+"."+k.argKey, k.args)
		if err != nil {
			return 0, err
		}
		n.arg = uint8(a)
	case k.number != nil:
		if f, err = b.r.fields(v, what, k.ops, nil); err != nil {
			return 0, err
		}
	}
	switch {
	case k.number != nil:
		n.iv, err = b.bounds(v, f, what, k, n.arg)
	case f != nil:
		n.mask, err = b.opsMask(v, f, what, k)
	default:
		n.mask, err = b.shorthandMask(v, what, k)
	}
	return b.add(n), err
}

// about is the description of a number that has no arg.
func about(s string) func(uint8) string { return func(uint8) string { return s } }

// aboutStd describes the standard deviation of an axis, in its unit.
func aboutStd(arg uint8) string {
	unit := [3]string{"m", "m/s", "rad"}[arg/3%3]
	return "the standard deviation of " + axisNames[arg%9] + " is in " + unit + " and never negative (none reads as +infinity)"
}

// percentHint reads a fraction's bound above 1 and up to 100 as a
// percentage.
func percentHint(x float64) string {
	if x > 1 && x <= 100 {
		return "; for " + strconv.FormatFloat(x, 'g', -1, 64) + " % write " + strconv.FormatFloat(x/100, 'g', -1, 64)
	}
	return ""
}

func parseArmed(b *builder, o op, v *yaml.Node, what string, _ int) (int32, error) {
	armed, err := b.r.boolean(v, what)
	mask := uint32(1)
	if armed {
		mask = 2
	}
	return b.add(node{op: o, mask: mask}), err
}

func parseMissing(b *builder, o op, v *yaml.Node, what string, _ int) (int32, error) {
	f, err := b.r.name(v, what, condKinds[o].args)
	return b.add(node{op: o, arg: uint8(f)}), err
}

func parseAction(b *builder, _ op, v *yaml.Node, what string, _ int) (int32, error) {
	return b.action(v, what)
}

func evalAll(nodes []node, n *node, f *facts) (tri, uint8) {
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
}

func evalAny(nodes []node, n *node, f *facts) (tri, uint8) {
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
}

func evalNot(nodes []node, n *node, f *facts) (tri, uint8) {
	v, m := eval(nodes, n.kids[0], f)
	switch v {
	case triTrue:
		return triFalse, 0
	case triFalse:
		return triTrue, 0
	}
	return triUnknown, m
}

func evalEffective(_ []node, n *node, f *facts) (tri, uint8) {
	if !f.present[fieldAssessment] && !f.present[fieldCalibration] {
		return triUnknown, fieldAssessment
	}
	return of(inMask(n.mask, f.effective)), 0
}

func evalMissing(_ []node, n *node, f *facts) (tri, uint8) { return of(!f.present[n.arg]), 0 }

func canonComposite(b []byte, nodes []node, n *node) []byte {
	b = append(b, `{"`...)
	b = append(b, condKinds[n.op].key...)
	b = append(b, `":[`...)
	for j, k := range n.kids {
		if j > 0 {
			b = append(b, ',')
		}
		b = appendCond(b, nodes, k)
	}
	return append(b, "]}"...)
}

func canonNot(b []byte, nodes []node, n *node) []byte {
	b = append(b, `{"not":`...)
	b = appendCond(b, nodes, n.kids[0])
	return append(b, '}')
}

func canonLevel(b []byte, _ []node, n *node) []byte {
	b = append(b, `{"level":{"block":"`+blockNames[n.arg]+`","in":`...)
	return append(appendMask(b, n.mask, levelNames), "}}"...)
}

func canonAxis(b []byte, _ []node, n *node) []byte {
	b = append(b, `{"axis":{"in":`...)
	b = appendMask(b, n.mask, levelNames)
	return append(b, `,"name":"`+axisNames[n.arg]+`"}}`...)
}

func canonStd(b []byte, _ []node, n *node) []byte {
	b = append(b, `{"std":{"axis":"`+axisNames[n.arg]+`"`...)
	return append(appendInterval(b, n.iv, false), "}}"...)
}

// canonIn writes an enumeration leaf as {"key":{"in":[names...]}}.
func canonIn(b []byte, _ []node, n *node) []byte {
	k := &condKinds[n.op]
	b = append(b, `{"`...)
	b = append(b, k.key...)
	b = append(b, `":{"in":`...)
	return append(appendMask(b, n.mask, k.names), "}}"...)
}

func canonArmed(b []byte, _ []node, n *node) []byte {
	if n.mask == 2 {
		return append(b, `{"armed":true}`...)
	}
	return append(b, `{"armed":false}`...)
}

// canonBounds writes a number leaf without arg as {"key":{bounds}}.
func canonBounds(b []byte, _ []node, n *node) []byte {
	b = append(b, `{"`...)
	b = append(b, condKinds[n.op].key...)
	b = append(b, `":{`...)
	return append(appendInterval(b, n.iv, true), "}}"...)
}

func canonMissing(b []byte, _ []node, n *node) []byte {
	return append(b, `{"missing":"`+fieldNames[n.arg]+`"}`...)
}

func canonOutcome(b []byte, _ []node, n *node) []byte {
	b = append(b, `{"action":{"kind":"`+kindNames[n.arg]+`","outcome":{"in":`...)
	return append(appendOutcomes(b, n.mask), "}}}"...)
}

func canonCommands(b []byte, _ []node, n *node) []byte {
	b = append(b, `{"action":{"commands":{`...)
	b = appendInterval(b, n.iv, true)
	return append(b, `},"kind":"`+kindNames[n.arg]+`"}}`...)
}

func canonEnabled(b []byte, _ []node, n *node) []byte {
	if n.mask == 2 {
		return append(b, `{"action":{"enabled":true,"kind":"`+kindNames[n.arg]+`"}}`...)
	}
	return append(b, `{"action":{"enabled":false,"kind":"`+kindNames[n.arg]+`"}}`...)
}
