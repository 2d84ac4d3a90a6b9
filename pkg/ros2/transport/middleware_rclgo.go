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
func (t *RCLTransport) Middleware() string {
	return C.GoString(C.rmw_get_implementation_identifier())
}
