package rules

import (
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"go.yaml.in/yaml/v3"
)

// Conditions over the health a belief carries (decisions.Health): the GNSS
// receiver's fix and satellites, the estimator's flags, and PX4's own
// failsafe flags.
//
//	{gnss: {fix: lost}}                        no 3D fix (no_fix or 2d)
//	{gnss: {fix: {at_least: 3d}, satellites: {ge: 6}}}
//	{estimator: {gps_fused: false}}            the estimator does not fuse GNSS
//	{px4_failsafe: {flag: global_position_invalid}}
//	{px4_failsafe: {flag: {in: [local_position_invalid, local_velocity_invalid]}}}
//
// They are unknown when the belief does not report what they read (a
// source without a receiver, an estimator or failsafe flags that were never
// published, a flag the autopilot's release does not have): the rule then
// asks for abstain_uncertain / missing_gnss, missing_estimator or
// missing_px4_failsafe, as for any missing field.

var (
	gnssFixNames = func() []string {
		var out []string
		for g := decisions.GNSSNoFix; g < decisions.NumGNSSFixes; g++ {
			out = append(out, g.String())
		}
		return out
	}()
	// gnssFixGroups: lost is no position fix in three dimensions, what
	// PX4's estimator needs to fuse a receiver.
	gnssFixGroups      = []nameGroup{{"lost", 1<<(decisions.GNSSNoFix-1) | 1<<(decisions.GNSSFix2D-1)}}
	estimatorFlagNames = enumNames(func(i int) (string, bool) {
		e := decisions.EstimatorFlag(i)
		return e.String(), e < decisions.NumEstimatorFlags
	})
	failsafeFlagNames = enumNames(func(i int) (string, bool) {
		g := decisions.FailsafeFlag(i)
		return g.String(), g < decisions.NumFailsafeFlags
	})
)

func estimatorFlag(f *facts, arg uint8) uint8 {
	set, _ := f.health.EstimatorFlag(decisions.EstimatorFlag(arg))
	return bit(set)
}

func estimatorKnown(f *facts, arg uint8) bool {
	_, known := f.health.EstimatorFlag(decisions.EstimatorFlag(arg))
	return known
}

func failsafeFlag(f *facts, arg uint8) uint8 {
	raised, _ := f.health.FailsafeFlag(decisions.FailsafeFlag(arg))
	return bit(raised)
}

func failsafeKnown(f *facts, arg uint8) bool {
	_, known := f.health.FailsafeFlag(decisions.FailsafeFlag(arg))
	return known
}

func bit(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// parseGNSS compiles {gnss: {fix: F or OPS, satellites: BOUNDS}}: one leaf,
// or the conjunction of both.
func parseGNSS(b *builder, o op, v *yaml.Node, what string, _ int) (int32, error) {
	f, err := b.r.fields(v, what, []string{"fix", "satellites"}, nil)
	if err != nil {
		return 0, err
	}
	var leaves []int32
	if e, ok := f["fix"]; ok {
		mask, err := b.shorthandMask(e.val, what+".fix", &condKinds[o])
		if err != nil {
			return 0, err
		}
		leaves = append(leaves, b.add(node{op: o, mask: mask}))
	}
	if e, ok := f["satellites"]; ok {
		k, w := &condKinds[opGNSSSats], what+".satellites"
		bf, err := b.r.fields(e.val, w, k.ops, nil)
		if err != nil {
			return 0, err
		}
		iv, err := b.bounds(e.val, bf, w, k, 0)
		if err != nil {
			return 0, err
		}
		leaves = append(leaves, b.add(node{op: opGNSSSats, iv: iv}))
	}
	if len(leaves) == 0 {
		return 0, b.r.errf(v, "%s: want fix, satellites or both", what)
	}
	return b.join(opAll, leaves), nil
}

// parseEstimator compiles {estimator: {FLAG: true or false, ...}}: a leaf
// per flag, all of which must hold.
func parseEstimator(b *builder, o op, v *yaml.Node, what string, _ int) (int32, error) {
	names := condKinds[o].args
	f, err := b.r.fields(v, what, names, nil)
	if err != nil {
		return 0, err
	}
	var leaves []int32
	for i, name := range names { // table order: errors do not depend on map order
		e, ok := f[name]
		if !ok {
			continue
		}
		set, err := b.r.boolean(e.val, what+"."+name)
		if err != nil {
			return 0, err
		}
		leaves = append(leaves, b.add(node{op: o, arg: uint8(i), mask: uint32(1) << bit(set)}))
	}
	if len(leaves) == 0 {
		return 0, b.r.errf(v, "%s: want at least one of %v", what, names)
	}
	return b.join(opAll, leaves), nil
}

// parseFailsafe compiles {px4_failsafe: {flag: F or {in: [F, ...]}}}: true
// when any flag named is raised.
func parseFailsafe(b *builder, o op, v *yaml.Node, what string, _ int) (int32, error) {
	names := condKinds[o].args
	f, err := b.r.fields(v, what, []string{"flag"}, []string{"flag"})
	if err != nil {
		return 0, err
	}
	y, w := f["flag"].val, what+".flag"
	if y.Kind == yaml.ScalarNode {
		i, err := b.r.name(y, w, names)
		return b.add(node{op: o, arg: uint8(i), mask: 2}), err
	}
	ff, err := b.r.fields(y, w, inOp, inOp)
	if err != nil {
		return 0, err
	}
	w += ".in"
	items, err := b.r.seq(ff["in"].val, w)
	if err != nil {
		return 0, err
	}
	if len(items) == 0 {
		return 0, b.r.errf(ff["in"].val, "%s: want at least one flag", w)
	}
	var leaves []int32
	seen := make([]bool, len(names))
	for _, it := range items {
		i, err := b.r.name(it, w, names)
		if err != nil {
			return 0, err
		}
		if seen[i] {
			return 0, b.r.errf(it, "%s: %s listed twice", w, quote(it.Value))
		}
		seen[i] = true
		leaves = append(leaves, b.add(node{op: o, arg: uint8(i), mask: 2}))
	}
	return b.join(opAny, leaves), nil
}

// join returns the only leaf, or a node of op o over them.
func (b *builder) join(o op, leaves []int32) int32 {
	if len(leaves) == 1 {
		return leaves[0]
	}
	return b.add(node{op: o, kids: leaves})
}

func canonGNSSFix(b []byte, _ []node, n *node) []byte {
	b = append(b, `{"gnss":{"fix":{"in":`...)
	return append(appendMask(b, n.mask, gnssFixNames), "}}}"...)
}

func canonGNSSSats(b []byte, _ []node, n *node) []byte {
	b = append(b, `{"gnss":{"satellites":{`...)
	return append(appendInterval(b, n.iv, true), "}}}"...)
}

func canonEstimator(b []byte, _ []node, n *node) []byte {
	b = append(b, `{"estimator":{"`+estimatorFlagNames[n.arg]+`":`...)
	if n.mask == 2 {
		return append(b, "true}}"...)
	}
	return append(b, "false}}"...)
}

// canonFailsafe writes a raised flag, the only test of a flag the language
// has (not writes the others), as {"px4_failsafe":{"flag":F}}.
func canonFailsafe(b []byte, _ []node, n *node) []byte {
	return append(b, `{"px4_failsafe":{"flag":"`+failsafeFlagNames[n.arg]+`"}}`...)
}
