package engine

// lifecycleActive is lifecycle_msgs/msg/State PRIMARY_STATE_ACTIVE.
const lifecycleActive = 3

// LifecycleEvent delivers one step of the node's managed lifecycle, as the
// node published it. A session.Session with SessionOptions.Lifecycle decides only
// while the newest event's goal state is active; the Loop itself only lets
// time pass with it.
type LifecycleEvent struct {
	ArrivalNs int64
	// Goal is the state id the step went to (lifecycle_msgs/msg/State).
	Goal uint8
}

// Arrival returns the arrival time in ns.
func (e LifecycleEvent) Arrival() int64 { return e.ArrivalNs }

func (LifecycleEvent) isEvent() {}

// Active reports whether the step went to the active state.
func (e LifecycleEvent) Active() bool { return e.Goal == lifecycleActive }
