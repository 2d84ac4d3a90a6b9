package lifecycle

import (
	"fmt"
	"sync"
	"time"

	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// State ids, lifecycle_msgs/msg/State.
const (
	StateUnknown         uint8 = 0
	StateUnconfigured    uint8 = 1
	StateInactive        uint8 = 2
	StateActive          uint8 = 3
	StateFinalized       uint8 = 4
	StateConfiguring     uint8 = 10
	StateCleaningUp      uint8 = 11
	StateShuttingDown    uint8 = 12
	StateActivating      uint8 = 13
	StateDeactivating    uint8 = 14
	StateErrorProcessing uint8 = 15
)

// Transition ids of the requests, lifecycle_msgs/msg/Transition.
const (
	TransitionConfigure            uint8 = 1
	TransitionCleanup              uint8 = 2
	TransitionActivate             uint8 = 3
	TransitionDeactivate           uint8 = 4
	TransitionUnconfiguredShutdown uint8 = 5
	TransitionInactiveShutdown     uint8 = 6
	TransitionActiveShutdown       uint8 = 7
)

// Service type names of the lifecycle services.
const (
	TypeChangeState             = "lifecycle_msgs/srv/ChangeState"
	TypeGetState                = "lifecycle_msgs/srv/GetState"
	TypeGetAvailableStates      = "lifecycle_msgs/srv/GetAvailableStates"
	TypeGetAvailableTransitions = "lifecycle_msgs/srv/GetAvailableTransitions"
	// TypeTransitionEvent is the message of "~/transition_event".
	TypeTransitionEvent = "lifecycle_msgs/msg/TransitionEvent"
)

// labels are rcl_lifecycle's state labels.
var labels = map[uint8]string{
	StateUnknown: "unknown", StateUnconfigured: "unconfigured", StateInactive: "inactive", StateActive: "active",
	StateFinalized: "finalized", StateConfiguring: "configuring", StateCleaningUp: "cleaningup",
	StateShuttingDown: "shuttingdown", StateActivating: "activating", StateDeactivating: "deactivating",
	StateErrorProcessing: "errorprocessing",
}

// stateOrder is the order get_available_states lists them in.
var stateOrder = []uint8{StateUnknown, StateUnconfigured, StateInactive, StateActive, StateFinalized,
	StateConfiguring, StateCleaningUp, StateShuttingDown, StateActivating, StateDeactivating, StateErrorProcessing}

// edge is one transition of the graph.
type edge struct {
	id         uint8
	label      string
	start, end uint8
}

// graph is rcl_lifecycle's default state machine: the requested
// transitions from the primary states, then the callbacks' outcomes from
// the transition states.
var graph = []edge{
	{TransitionConfigure, "configure", StateUnconfigured, StateConfiguring},
	{10, "transition_success", StateConfiguring, StateInactive},
	{11, "transition_failure", StateConfiguring, StateUnconfigured},
	{12, "transition_error", StateConfiguring, StateErrorProcessing},
	{TransitionCleanup, "cleanup", StateInactive, StateCleaningUp},
	{20, "transition_success", StateCleaningUp, StateUnconfigured},
	{21, "transition_failure", StateCleaningUp, StateInactive},
	{22, "transition_error", StateCleaningUp, StateErrorProcessing},
	{TransitionActivate, "activate", StateInactive, StateActivating},
	{30, "transition_success", StateActivating, StateActive},
	{31, "transition_failure", StateActivating, StateInactive},
	{32, "transition_error", StateActivating, StateErrorProcessing},
	{TransitionDeactivate, "deactivate", StateActive, StateDeactivating},
	{40, "transition_success", StateDeactivating, StateInactive},
	{41, "transition_failure", StateDeactivating, StateActive},
	{42, "transition_error", StateDeactivating, StateErrorProcessing},
	{TransitionUnconfiguredShutdown, "shutdown", StateUnconfigured, StateShuttingDown},
	{TransitionInactiveShutdown, "shutdown", StateInactive, StateShuttingDown},
	{TransitionActiveShutdown, "shutdown", StateActive, StateShuttingDown},
	{50, "transition_success", StateShuttingDown, StateFinalized},
	{51, "transition_failure", StateShuttingDown, StateFinalized},
	{52, "transition_error", StateShuttingDown, StateErrorProcessing},
	{60, "transition_success", StateErrorProcessing, StateUnconfigured},
	{61, "transition_failure", StateErrorProcessing, StateFinalized},
	{62, "transition_error", StateErrorProcessing, StateFinalized},
}

// Label returns rcl_lifecycle's label of a state id, "" for none.
func Label(state uint8) string { return labels[state] }

// Machine is the node's lifecycle state machine. It is safe for concurrent
// use.
type Machine struct {
	publish func([]byte) error
	now     func() time.Time

	mu    sync.Mutex
	state uint8
}

// New returns a machine in the unconfigured state. publish receives each
// serialized TransitionEvent (nil: none); now stamps them.
func New(publish func([]byte) error, now func() time.Time) *Machine {
	if now == nil {
		now = func() time.Time { return time.Unix(0, 0) }
	}
	return &Machine{publish: publish, now: now, state: StateUnconfigured}
}

// State returns the current state id.
func (m *Machine) State() uint8 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state
}

// Service is one lifecycle service: its name relative to the node, its
// type and its handler.
type Service struct {
	Name, Type string
	Handle     transport.ServiceHandler
}

// Services returns the lifecycle services under the node's name, as
// rcl_lifecycle serves them.
func (m *Machine) Services() []Service {
	return []Service{
		{"~/change_state", TypeChangeState, m.ChangeState},
		{"~/get_state", TypeGetState, m.GetState},
		{"~/get_available_states", TypeGetAvailableStates, m.GetAvailableStates},
		{"~/get_available_transitions", TypeGetAvailableTransitions, m.GetAvailableTransitions},
		{"~/get_transition_graph", TypeGetAvailableTransitions, m.GetTransitionGraph},
	}
}

func state(id uint8) ros2msg.LifecycleState { return ros2msg.LifecycleState{ID: id, Label: labels[id]} }

func describe(e edge) ros2msg.LifecycleTransitionDescription {
	return ros2msg.LifecycleTransitionDescription{
		Transition: ros2msg.LifecycleTransition{ID: e.id, Label: e.label},
		StartState: state(e.start), GoalState: state(e.end),
	}
}

// Transition requests a transition by id, or by label when id is 0, from
// the current state; it returns false when the current state has no such
// transition. The machine passes through the transition state to the goal,
// publishing an event for each step.
func (m *Machine) Transition(id uint8, label string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var req *edge
	for i := range graph {
		e := &graph[i]
		if e.start == m.state && e.id < 10 && (e.id == id || id == 0 && label != "" && e.label == label) {
			req = e
			break
		}
	}
	if req == nil {
		return false, nil
	}
	var done *edge
	for i := range graph {
		if graph[i].start == req.end && graph[i].label == "transition_success" {
			done = &graph[i]
		}
	}
	for _, e := range []*edge{req, done} {
		m.state = e.end
		if err := m.announce(*e); err != nil {
			return true, err
		}
	}
	return true, nil
}

func (m *Machine) announce(e edge) error {
	if m.publish == nil {
		return nil
	}
	ns := m.now().UnixNano()
	ev := ros2msg.LifecycleTransitionEvent{
		Timestamp:  uint64(max(ns, 0)),
		Transition: ros2msg.LifecycleTransition{ID: e.id, Label: e.label},
		StartState: state(e.start), GoalState: state(e.end),
	}
	data, err := ev.MarshalCDR()
	if err != nil {
		return err
	}
	if err := m.publish(data); err != nil {
		return fmt.Errorf("publish transition event: %w", err)
	}
	return nil
}

// ChangeState answers lifecycle_msgs/srv/ChangeState.
func (m *Machine) ChangeState(req []byte) ([]byte, error) {
	var in ros2msg.LifecycleChangeStateRequest
	if err := in.UnmarshalCDR(req); err != nil {
		return nil, fmt.Errorf("change_state: %w", err)
	}
	ok, err := m.Transition(in.Transition.ID, in.Transition.Label)
	if err != nil {
		return nil, err
	}
	out := ros2msg.LifecycleChangeStateResponse{Success: ok}
	return out.MarshalCDR()
}

// GetState answers lifecycle_msgs/srv/GetState; its request is empty.
func (m *Machine) GetState([]byte) ([]byte, error) {
	out := ros2msg.LifecycleGetStateResponse{CurrentState: state(m.State())}
	return out.MarshalCDR()
}

// GetAvailableStates answers lifecycle_msgs/srv/GetAvailableStates.
func (m *Machine) GetAvailableStates([]byte) ([]byte, error) {
	var out ros2msg.LifecycleGetAvailableStatesResponse
	for _, id := range stateOrder {
		out.AvailableStates = append(out.AvailableStates, state(id))
	}
	return out.MarshalCDR()
}

// GetAvailableTransitions answers lifecycle_msgs/srv/GetAvailableTransitions
// with the transitions from the current state.
func (m *Machine) GetAvailableTransitions([]byte) ([]byte, error) {
	cur := m.State()
	var out ros2msg.LifecycleGetAvailableTransitionsResponse
	for _, e := range graph {
		if e.start == cur {
			out.AvailableTransitions = append(out.AvailableTransitions, describe(e))
		}
	}
	return out.MarshalCDR()
}

// GetTransitionGraph answers get_transition_graph (type
// GetAvailableTransitions) with every transition.
func (m *Machine) GetTransitionGraph([]byte) ([]byte, error) {
	var out ros2msg.LifecycleGetAvailableTransitionsResponse
	for _, e := range graph {
		out.AvailableTransitions = append(out.AvailableTransitions, describe(e))
	}
	return out.MarshalCDR()
}
