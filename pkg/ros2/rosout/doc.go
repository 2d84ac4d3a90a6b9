// Package rosout publishes the node's log records on /rosout as
// rcl_interfaces/msg/Log, so rqt_console, `ros2 topic echo /rosout` and
// recordings see them as they see every ROS 2 node's.
//
// Handler is a slog.Handler (combine it with the stderr handler through
// slog.NewMultiHandler). It filters by the level given (the node's
// --log-level), stamps each record with the clock it is attached with (sim
// time when the node follows /clock), encodes with the project's CDR codec
// and hands the bytes to a transport.Publisher on its own goroutine.
//
// Logging must never stall or loop the node: Handle never blocks (a record
// that finds the queue full is dropped and counted), never calls the
// publisher itself, and never logs; publishing errors are counted, and the
// counts are in Stats for diagnostics. Records before Attach and after
// Detach are dropped and counted too.
//
// The package only turns records into messages; it must not decide which
// records the node writes, nor import the ROS client library.
package rosout
