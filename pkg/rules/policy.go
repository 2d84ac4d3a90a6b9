package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"go.yaml.in/yaml/v3"
)

// severity ranks the catalog from the least to the most severe: proceed <
// abstain_uncertain < hold < yield_to_pilot < engage_rtl < engage_land <
// engage_kill. It is not the numeric order of Decision.msg.
var severity = [decisions.NumKinds]uint8{
	decisions.KindProceed:          0,
	decisions.KindAbstainUncertain: 1,
	decisions.KindHold:             2,
	decisions.KindYieldToPilot:     3,
	decisions.KindEngageRTL:        4,
	decisions.KindEngageLand:       5,
	decisions.KindEngageKill:       6,
}

// Severity returns k's rank in the severity order, 0 (proceed) to 6
// (engage_kill); a kind outside the catalog ranks above every kind.
func Severity(k decisions.Kind) int {
	if !k.Valid() {
		return decisions.NumKinds
	}
	return int(severity[k])
}

// SeverityOrder lists the catalog from the least to the most severe.
func SeverityOrder() []decisions.Kind {
	out := make([]decisions.Kind, decisions.NumKinds)
	for k, s := range severity {
		out[s] = decisions.Kind(k)
	}
	return out
}

// clearKind says when a fired rule releases.
type clearKind uint8

const (
	clearAfter        clearKind = iota // once its condition has not held for afterNs
	clearOnDisarm                      // on the first disarmed context
	clearNever                         // not before the session ends
	clearOnModeChange                  // when arming changes, or the mode changes to one not its action's
)

// rule is one compiled rule.
type rule struct {
	name, reason string
	kind         decisions.Kind
	sev          uint8
	root         int32
	forNs        int64
	clear        clearKind
	afterNs      int64
	// unless is the root of the condition that silences the rule, -1
	// when it has none.
	unless    int32
	line, col int
	// notes are the remarks on words of its conditions.
	notes []note
}

// definition is the immutable part of a policy, shared by its instances.
type definition struct {
	file, name    string
	version       int64
	id            string
	text          []byte
	canonical     []byte
	defaultKind   decisions.Kind
	defaultReason string
	rules         []rule
	nodes         []node
}

// ruleState is what a policy remembers about one rule between contexts.
// A stamp of -1 means "not currently".
type ruleState struct {
	heldSince    int64 // stamp from which the condition has held
	notTrueSince int64 // stamp from which it has been false or unevaluable
	latched      bool  // fired and not yet released
}

// Policy is a parsed rule policy and one evaluation state: it implements
// decisions.StatefulPolicy. Its definition is immutable and shared by the
// instances NewInstance returns; the state is not safe for concurrent use.
type Policy struct {
	d         *definition
	st, saved []ruleState
	last      int64 // stamp of the last decided context, -1 before the first
	savedLast int64
	// prev and savedPrev are the flight status of the last decided
	// context, for clear: on_mode_change.
	prev, savedPrev flightSeen
	scratchFct      facts
}

// flightSeen is what on_mode_change compares between contexts.
type flightSeen struct {
	mode  decisions.FlightMode
	armed bool
}

var _ decisions.StatefulPolicy = (*Policy)(nil)

// Limits on a policy's size.
const (
	maxRules = 256
	// maxNameLen leaves room for "_" and 12 hex digits in a 64-character id.
	maxNameLen = 64 - 13
)

var (
	policyKeys = []string{"name", "version", "description", "default", "rules"}
	ruleKeys   = []string{"name", "description", "when", "unless", "action", "reason", "for", "clear"}
)

// ParseFile reads and parses a policy file; errors name the path.
func ParseFile(path string) (*Policy, error) {
	data, err := limitedfile.ReadFile(path, maxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("rule policy: %w", err)
	}
	return Parse(path, data)
}

// Parse parses a policy from data; filename is used in error messages
// only. Every rejection is a *ParseError (file:line:column) matching
// ErrInvalid.
func Parse(filename string, data []byte) (*Policy, error) {
	r := &reader{file: filename}
	root, err := r.document(data)
	if err != nil {
		return nil, err
	}
	f, err := r.fields(root, "policy", policyKeys, []string{"name", "version", "default", "rules"})
	if err != nil {
		return nil, err
	}
	d := &definition{file: filename, text: append([]byte(nil), data...)}
	if d.name, err = r.ident(f["name"].val, "name", maxNameLen); err != nil {
		return nil, err
	}
	if d.version, err = r.integer(f["version"].val, "version"); err != nil {
		return nil, err
	}
	if d.version < 1 {
		return nil, r.errf(f["version"].val, "version = %d: must be >= 1", d.version)
	}
	if e, ok := f["description"]; ok {
		if _, err := r.str(e.val, "description"); err != nil {
			return nil, err
		}
	}
	df, err := r.fields(f["default"].val, "default", []string{"action", "reason"}, []string{"action", "reason"})
	if err != nil {
		return nil, err
	}
	if d.defaultKind, err = parseKind(r, df["action"].val, "default.action"); err != nil {
		return nil, err
	}
	if d.defaultReason, err = parseReason(r, df["reason"].val, "default.reason"); err != nil {
		return nil, err
	}
	items, err := r.seq(f["rules"].val, "rules")
	if err != nil {
		return nil, err
	}
	if len(items) == 0 || len(items) > maxRules {
		return nil, r.errf(f["rules"].val, "rules: want 1 to %d rules, got %d", maxRules, len(items))
	}
	b := &builder{r: r}
	names := map[string]int{}
	for i, it := range items {
		ru, err := parseRule(b, it, "rules["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		if prev, dup := names[ru.name]; dup {
			return nil, r.errf(it, "rules[%d].name = %s: already the name of rules[%d]", i, quote(ru.name), prev)
		}
		names[ru.name] = i
		d.rules = append(d.rules, ru)
	}
	d.nodes = b.nodes
	d.canonical = d.appendCanonical(nil)
	sum := sha256.Sum256(d.canonical)
	d.id = d.name + "_" + hex.EncodeToString(sum[:])[:12]
	return newInstance(d), nil
}

func parseKind(r *reader, n *yaml.Node, what string) (decisions.Kind, error) {
	s, err := r.str(n, what)
	if err != nil {
		return 0, err
	}
	k, err := decisions.ParseKind(s)
	if err != nil {
		return 0, r.errf(n, "%s = %s: want a decision kind, one of %v", what, quote(s), SeverityOrder())
	}
	return k, nil
}

// parseReason reads a reason. missing_* is reserved for decisions that
// could not be evaluated, so an audit can tell the two apart.
func parseReason(r *reader, n *yaml.Node, what string) (string, error) {
	s, err := r.ident(n, what, 64)
	if err != nil {
		return "", err
	}
	if len(s) >= 8 && s[:8] == "missing_" {
		return "", r.errf(n, "%s = %s: reasons starting with missing_ are reserved for contexts that lack a field", what, quote(s))
	}
	return s, nil
}

func parseRule(b *builder, n *yaml.Node, what string) (rule, error) {
	r := b.r
	f, err := r.fields(n, what, ruleKeys, []string{"name", "when", "action", "reason"})
	if err != nil {
		return rule{}, err
	}
	ru := rule{line: n.Line, col: n.Column, clear: clearAfter, unless: -1}
	if ru.name, err = r.ident(f["name"].val, what+".name", 64); err != nil {
		return rule{}, err
	}
	if e, ok := f["description"]; ok {
		if _, err := r.str(e.val, what+".description"); err != nil {
			return rule{}, err
		}
	}
	if ru.kind, err = parseKind(r, f["action"].val, what+".action"); err != nil {
		return rule{}, err
	}
	ru.sev = severity[ru.kind]
	if ru.reason, err = parseReason(r, f["reason"].val, what+".reason"); err != nil {
		return rule{}, err
	}
	if e, ok := f["for"]; ok {
		if ru.forNs, err = r.duration(e.val, what+".for"); err != nil {
			return rule{}, err
		}
	}
	if e, ok := f["clear"]; ok {
		if e.val.Kind == yaml.ScalarNode {
			c, err := r.name(e.val, what+".clear", []string{"on_disarm", "never", "on_mode_change"})
			if err != nil {
				return rule{}, err
			}
			ru.clear = clearOnDisarm + clearKind(c)
		} else {
			cf, err := r.fields(e.val, what+".clear", []string{"after"}, []string{"after"})
			if err != nil {
				return rule{}, err
			}
			if ru.afterNs, err = r.duration(cf["after"].val, what+".clear.after"); err != nil {
				return rule{}, err
			}
		}
	}
	first := len(b.notes)
	if ru.root, err = b.cond(f["when"].val, what+".when", 0); err != nil {
		return rule{}, err
	}
	if e, ok := f["unless"]; ok {
		if ru.unless, err = b.cond(e.val, what+".unless", 0); err != nil {
			return rule{}, err
		}
	}
	ru.notes = b.notes[first:len(b.notes):len(b.notes)]
	return ru, nil
}

// appendCanonical writes the policy's canonical JSON: keys sorted, no
// whitespace, durations in nanoseconds, conditions normalised (appendCond).
// Comments, descriptions, key order and YAML spelling do not reach it, so
// the id changes exactly when what the policy decides may change.
func (d *definition) appendCanonical(b []byte) []byte {
	b = append(b, `{"default":{"action":"`...)
	b = append(b, d.defaultKind.String()...)
	b = append(b, `","reason":"`...)
	b = append(b, d.defaultReason...)
	b = append(b, `"},"name":"`...)
	b = append(b, d.name...)
	b = append(b, `","rules":[`...)
	for i, ru := range d.rules {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"action":"`...)
		b = append(b, ru.kind.String()...)
		b = append(b, `","clear":`...)
		switch ru.clear {
		case clearAfter:
			b = append(b, `{"after_ns":`...)
			b = strconv.AppendInt(b, ru.afterNs, 10)
			b = append(b, '}')
		case clearOnDisarm:
			b = append(b, `"on_disarm"`...)
		case clearOnModeChange:
			b = append(b, `"on_mode_change"`...)
		default:
			b = append(b, `"never"`...)
		}
		b = append(b, `,"for_ns":`...)
		b = strconv.AppendInt(b, ru.forNs, 10)
		b = append(b, `,"name":"`...)
		b = append(b, ru.name...)
		b = append(b, `","reason":"`...)
		b = append(b, ru.reason...)
		if ru.unless >= 0 {
			// Only rules that have one write it, so the ids of policies
			// written before it existed do not change.
			b = append(b, `","unless":`...)
			b = appendCond(b, d.nodes, ru.unless)
			b = append(b, `,"when":`...)
		} else {
			b = append(b, `","when":`...)
		}
		b = appendCond(b, d.nodes, ru.root)
		b = append(b, '}')
	}
	b = append(b, `],"version":`...)
	b = strconv.AppendInt(b, d.version, 10)
	return append(b, '}')
}

func newInstance(d *definition) *Policy {
	p := &Policy{d: d, st: make([]ruleState, len(d.rules)), saved: make([]ruleState, len(d.rules))}
	for i := range p.st {
		p.st[i] = ruleState{heldSince: -1, notTrueSince: -1}
	}
	copy(p.saved, p.st)
	p.last, p.savedLast = -1, -1
	return p
}

// ID returns "<name>_<first 12 hex digits of the SHA-256 of Canonical()>".
func (p *Policy) ID() string { return p.d.id }

// Name returns the policy's name as written in the file.
func (p *Policy) Name() string { return p.d.name }

// Version returns the policy's version as written in the file.
func (p *Policy) Version() int64 { return p.d.version }

// Canonical returns a copy of the canonical JSON the id is derived from.
func (p *Policy) Canonical() []byte { return append([]byte(nil), p.d.canonical...) }

// Text returns a copy of the file's bytes as parsed, for recording next to
// the decisions.
func (p *Policy) Text() []byte { return append([]byte(nil), p.d.text...) }

// NumRules returns the number of rules.
func (p *Policy) NumRules() int { return len(p.d.rules) }

// NewInstance returns a Policy in the initial state sharing p's definition.
func (p *Policy) NewInstance() decisions.StatefulPolicy { return newInstance(p.d) }

// Checkpoint saves the state for Rollback.
func (p *Policy) Checkpoint() {
	copy(p.saved, p.st)
	p.savedLast, p.savedPrev = p.last, p.prev
}

// Rollback restores the state saved by the last Checkpoint (the initial
// state when there was none).
func (p *Policy) Rollback() {
	copy(p.st, p.saved)
	p.last, p.prev = p.savedLast, p.savedPrev
}

// Decide evaluates every rule on c and returns the most severe fired rule's
// decision (ties to the earlier rule), abstain_uncertain/missing_<field>
// when a rule needs a field c lacks and nothing more severe fired, or the
// default; a rule whose unless holds on c asks for nothing. c's stamp must be >= 0 and greater than the previous context's;
// otherwise the error wraps ErrStampOrder and the state is unchanged.
func (p *Policy) Decide(c decisions.Context) (decisions.Decision, error) {
	t := c.BeliefStampSimNs
	if t < 0 || t <= p.last {
		return decisions.Decision{}, &StampError{Stamp: t, Previous: p.last}
	}
	// on_mode_change compares with the previous context; the first
	// context changes nothing.
	armChanged := p.last >= 0 && c.Flight.Armed != p.prev.armed
	modeChanged := p.last >= 0 && c.Flight.Mode != p.prev.mode
	p.last, p.prev = t, flightSeen{mode: c.Flight.Mode, armed: c.Flight.Armed}
	d := p.d
	f := &p.scratchFct
	f.load(&c)
	best, bestSev := -1, uint8(0)
	var bestKind decisions.Kind
	var bestReason string
	for i := range d.rules {
		ru, s := &d.rules[i], &p.st[i]
		v, missing := eval(d.nodes, ru.root, f)
		if v == triTrue {
			if s.heldSince < 0 {
				s.heldSince = t
			}
			s.notTrueSince = -1
		} else {
			// False or unevaluable: either way the condition does not hold.
			s.heldSince = -1
			if s.notTrueSince < 0 {
				s.notTrueSince = t
			}
		}
		if s.latched {
			switch ru.clear {
			case clearAfter:
				s.latched = !(v != triTrue && t-s.notTrueSince >= ru.afterNs)
			case clearOnDisarm:
				s.latched = c.Flight.Armed
			case clearOnModeChange:
				s.latched = !(armChanged || modeChanged && !inMask(ownModes[ru.kind], uint8(c.Flight.Mode)))
			}
		}
		if v == triTrue && t-s.heldSince >= ru.forNs {
			s.latched = true
		}
		var kind decisions.Kind
		var reason string
		switch {
		case s.latched:
			kind, reason = ru.kind, ru.reason
		case v == triUnknown:
			kind, reason = decisions.KindAbstainUncertain, missingReasons[missing]
		default:
			continue
		}
		if ru.unless >= 0 {
			if u, _ := eval(d.nodes, ru.unless, f); u == triTrue {
				continue // silenced: it asks for nothing
			}
		}
		if sev := severity[kind]; best < 0 || sev > bestSev {
			best, bestSev, bestKind, bestReason = i, sev, kind, reason
		}
	}
	if best < 0 {
		bestKind, bestReason = d.defaultKind, d.defaultReason
	}
	return decisions.Decision{Kind: bestKind, DecisionStampSimNs: t, Reason: bestReason, SchemaVersion: decisions.SchemaVersion}, nil
}
