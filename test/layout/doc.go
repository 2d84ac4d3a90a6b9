// Package layout holds the test that keeps the import rules of the
// package groups (pkg/ros2, pkg/vehicle, pkg/wire, pkg/audit and the
// packages beside them; docs/architecture.md lists them) true: it reads the
// import graph with `go list`, with and without the build tag rclgo, and
// fails on every import a rule does not allow. It has no code of its own
// and must not grow any.
package layout
