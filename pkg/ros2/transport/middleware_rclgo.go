//go:build rclgo

package transport

/*
#cgo LDFLAGS: -lrmw_implementation

#include <rmw/rmw.h>
*/
import "C"

// Middleware returns the rmw implementation the process runs on
// ("rmw_fastrtps_cpp", "rmw_cyclonedds_cpp"): RMW_IMPLEMENTATION where it
// is set, else the one ROS 2 was built to default to.
func (t *RCLTransport) Middleware() string { return MiddlewareName() }

// MiddlewareName is Middleware without a node: rmw_implementation loads
// the implementation on first use. It is "" when none can be loaded (no
// ROS 2 environment, or RMW_IMPLEMENTATION names one not installed).
func MiddlewareName() string {
	id := C.rmw_get_implementation_identifier()
	if id == nil {
		return ""
	}
	return C.GoString(id)
}
