// Package param is the decision node's parameter server: the logic
// behind the standard rcl_interfaces services (list, get, get types, set,
// set atomically, describe) over serialized requests and responses, and
// the rcl_interfaces/msg/ParameterEvent each accepted change publishes.
//
// The parameters are package config's declared ones with their types and
// current values; a set is checked by config's own validators. Only the
// parameters in Writable may change while the node runs, and their change
// takes effect when the published event comes back as an input (the
// session's parameter events input): that is what makes it recorded and replayable.
// Every other parameter refuses a set with the reason.
//
// It must not talk to ROS itself (the node serves the handlers on its
// transport), read a clock (the caller stamps events) or decide anything.
package param
