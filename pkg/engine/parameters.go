package engine

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// ParameterAssessmentTimeout is the name of the one parameter the Loop
// itself follows at run time: assessment_timeout_s, a double in seconds.
const ParameterAssessmentTimeout = "assessment_timeout_s"

// The executor enables the Loop follows at run time: executors.enable, a
// comma-separated list of kinds (engage_kill never among them), and
// executors.enable_kill, a bool. A change applies from the next decided
// kind on; an action already outstanding runs its course.
const (
	ParameterEnable     = "executors.enable"
	ParameterEnableKill = "executors.enable_kill"
)

// Parameter value types, rcl_interfaces/msg/ParameterType.
const (
	ParameterNotSet  uint8 = 0
	ParameterBool    uint8 = 1
	ParameterInteger uint8 = 2
	ParameterDouble  uint8 = 3
	ParameterString  uint8 = 4
)

// ParameterChange is one new or changed parameter of a ParameterEvent; the
// value is the field its Type selects.
type ParameterChange struct {
	Name    string
	Type    uint8
	Bool    bool
	Integer int64
	Double  float64
	String  string
}

// ParameterEvent delivers a change of a node's parameters, as the node
// published it on /parameter_events. Run-time parameter changes reach the
// Loop only this way, so a recording holds them and replay applies them at
// the same point of the stream. The Loop follows the events of its own
// node (LoopOptions.Node) and ignores the rest, which still let time pass.
type ParameterEvent struct {
	ArrivalNs int64
	// Node is the fully qualified name of the node whose parameters
	// changed, e.g. "/decision_node".
	Node string
	// Changes are the new and the changed parameters, in message order.
	Changes []ParameterChange
}

// Arrival returns the arrival time in ns.
func (e ParameterEvent) Arrival() int64 { return e.ArrivalNs }

func (ParameterEvent) isEvent() {}

// maxTimeoutSeconds keeps a timeout in seconds inside time.Duration.
const maxTimeoutSeconds = float64(math.MaxInt64/int64(time.Second)) - 1

// timeoutChange returns the assessment timeout an event of this Loop's
// node sets, if it sets a valid one (the last one wins). A value the node
// would have refused (not a positive number of seconds) changes nothing:
// a recording cannot make the Loop run with a timeout the node rejects.
func (l *Loop) timeoutChange(e *ParameterEvent) (time.Duration, bool) {
	if e.Node != l.node || l.node == "" {
		return 0, false
	}
	var d time.Duration
	ok := false
	for _, c := range e.Changes {
		if c.Name != ParameterAssessmentTimeout {
			continue
		}
		s := c.Double
		switch c.Type {
		case ParameterDouble:
		case ParameterInteger:
			s = float64(c.Integer)
		default:
			continue
		}
		if math.IsNaN(s) || s <= 0 || s > maxTimeoutSeconds {
			continue
		}
		if n := time.Duration(math.Round(s * 1e9)); n > 0 {
			d, ok = n, true
		}
	}
	return d, ok
}

// AssessmentTimeout returns the assessment timeout in force: the
// LoopOptions' one until a ParameterEvent changed it.
func (l *Loop) AssessmentTimeout() time.Duration { return l.timeout }

// Text names the change, e.g. "assessment_timeout_s=0.2".
func (c ParameterChange) Text() string {
	switch c.Type {
	case ParameterBool:
		return fmt.Sprintf("%s=%t", c.Name, c.Bool)
	case ParameterInteger:
		return fmt.Sprintf("%s=%d", c.Name, c.Integer)
	case ParameterDouble:
		return fmt.Sprintf("%s=%g", c.Name, c.Double)
	case ParameterString:
		return fmt.Sprintf("%s=%q", c.Name, c.String)
	}
	return c.Name + "=(type " + fmt.Sprint(c.Type) + ")"
}

// enableChange returns the routes with the enables of e applied, and
// whether e names an enable. A change that would enable a kind no executor
// serves, or kill through executors.enable, is ignored whole: the node
// validated it before publishing, so such an event did not come from it.
func (l *Loop) enableChange(e *ParameterEvent) ([decisions.NumKinds]ActionRoute, bool) {
	routes := l.actions.routes
	if e.Node != l.node || l.node == "" {
		return routes, false
	}
	changed := false
	for _, c := range e.Changes {
		switch {
		case c.Name == ParameterEnable && c.Type == ParameterString:
			var want [decisions.NumKinds]bool
			valid := true
			for f := range strings.SplitSeq(c.String, ",") {
				if f = strings.TrimSpace(f); f == "" {
					continue
				}
				k, err := decisions.ParseKind(f)
				if err != nil || k == decisions.KindEngageKill || routes[k].Executor == "" {
					valid = false
					break
				}
				want[k] = true
			}
			if !valid {
				continue
			}
			for k := range routes {
				if decisions.Kind(k) != decisions.KindEngageKill && routes[k].Executor != "" {
					routes[k].Enabled = want[k]
				}
			}
			changed = true
		case c.Name == ParameterEnableKill && c.Type == ParameterBool:
			if routes[decisions.KindEngageKill].Executor != "" {
				routes[decisions.KindEngageKill].Enabled = c.Bool
				changed = true
			}
		}
	}
	return routes, changed
}

// Enabled reports whether the operator's enable for kind is in force: the
// LoopOptions' until a ParameterEvent changed it.
func (l *Loop) Enabled(kind decisions.Kind) bool {
	return kind < decisions.NumKinds && l.actions.routes[kind].Enabled
}
