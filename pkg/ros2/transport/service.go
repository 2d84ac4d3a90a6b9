package transport

import (
	"errors"
	"fmt"
	"strings"
)

// ServiceHandler answers one service request: req is the serialized
// request (CDR with its encapsulation header), the result the serialized
// response. It runs on the goroutine running Transport.Run, like message
// handlers. An error sends no response; the client then times out, so
// handlers answer malformed requests with an error only when the service
// type has no way to say so.
type ServiceHandler func(req []byte) ([]byte, error)

// ErrServiceName is wrapped by errors about a malformed service type name.
var ErrServiceName = errors.New("invalid ROS service type name")

// SplitServiceTypeName splits "pkg/srv/Name" into the package and service
// names that type support libraries are looked up by.
func SplitServiceTypeName(typeName string) (pkg, srv string, err error) {
	parts := strings.Split(typeName, "/")
	if len(parts) != 3 || parts[1] != "srv" || !validTypeToken(parts[0]) || !validTypeToken(parts[2]) {
		return "", "", fmt.Errorf("%w: %q: want package/srv/Name", ErrServiceName, typeName)
	}
	return parts[0], parts[2], nil
}
