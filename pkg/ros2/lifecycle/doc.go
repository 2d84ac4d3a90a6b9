// Package lifecycle is the decision node's managed lifecycle: the standard
// state machine (unconfigured, inactive, active, finalized and the
// transition states between them, as rcl_lifecycle defines it) and the
// lifecycle_msgs services (change_state, get_state, get_available_states,
// get_available_transitions, get_transition_graph) over serialized
// requests and responses, publishing a TransitionEvent for every step.
//
// The node's transitions cannot fail, so each requested transition goes
// through its transition state to the goal in one call. Whether the node
// decides follows the published events, which come back as an input (see
// the session's transition events input), so recordings hold when the node was
// active.
//
// It must not talk to ROS itself, read a clock (the caller stamps events)
// or decide anything.
package lifecycle
