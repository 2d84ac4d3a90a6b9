// Package layout holds the test that keeps the architecture of
// docs/architecture.md true: the floors (cmd over the ROS 2 edge, over the
// audit and the simulator, over the vehicle side and the seals, over the
// session, the engine, the rule policies, the wire formats and recordings,
// and the contracts) and the import rules of each package group. It reads
// the import graph with `go list`, with and without the build tag rclgo,
// and fails on every import that runs up a floor or that a rule does not
// allow, and on a rule that would allow one running up. It has no code of
// its own and must not grow any.
package layout
