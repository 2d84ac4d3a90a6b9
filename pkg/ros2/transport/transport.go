package transport

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// Handler receives one serialized message (CDR with its encapsulation
// header) and the time it was taken from the middleware. The handler owns
// data. Handlers are called one at a time from the goroutine running
// Transport.Run; a slow handler delays every subscription, which is the
// intended back-pressure (the middleware's history depth then decides what
// is dropped).
type Handler func(data []byte, recv time.Time)

// Publisher publishes serialized messages on one topic. Publish is safe for
// concurrent use and may be called from any goroutine while the transport
// runs; it copies data before returning.
type Publisher interface {
	Publish(data []byte) error
}

// Transport is the node's connection to a ROS 2 graph, exchanging
// already-serialized messages: the project's CDR codec is the single source
// of truth for the wire format, so a transport never decodes.
//
// Subscribe, Advertise and Serve are called before Run. Topic names are passed as
// configured (possibly relative); the transport resolves them against the
// node's namespace and remaps exactly as ROS 2 does. typeName is the full
// ROS 2 type name, e.g. "ghost/msg/VehicleState".
type Transport interface {
	// Subscribe registers h for every message on topic.
	Subscribe(topic, typeName string, qos qos.Profile, h Handler) error
	// Advertise creates a publisher on topic.
	Advertise(topic, typeName string, qos qos.Profile) (Publisher, error)
	// Serve answers the service name (relative, absolute or "~/..." for
	// the node's own, e.g. "~/get_parameters") of type typeName
	// ("pkg/srv/Name") with h, over serialized requests and responses.
	Serve(name, typeName string, qos qos.Profile, h ServiceHandler) error
	// Run delivers messages to the handlers until ctx is done, then returns
	// nil; it returns an error only when delivery itself fails.
	Run(ctx context.Context) error
	// Close stops Run if it is running and releases every entity; later
	// Publish calls fail with ErrTransportClosed. Close is idempotent.
	Close() error
}

// Transport errors callers branch on.
var (
	// ErrTransportClosed is returned by operations on a closed transport.
	ErrTransportClosed = errors.New("transport closed")
	// ErrTransportRunning is returned by Subscribe, Advertise and Run while
	// Run is already running.
	ErrTransportRunning = errors.New("transport already running")
	// ErrTypeName is wrapped by errors about a malformed ROS type name.
	ErrTypeName = errors.New("invalid ROS type name")
)

// lifetime is where a transport is in its life, guarded by its mutex:
// entities are added only before Run starts and Close ends it.
type lifetime struct {
	running bool
	closed  bool
}

// ready reports why entities cannot be added now.
func (l *lifetime) ready() error {
	switch {
	case l.closed:
		return ErrTransportClosed
	case l.running:
		return ErrTransportRunning
	}
	return nil
}

// SplitTypeName splits a full message type name "pkg/msg/Name" into the
// package and message names that type support libraries are looked up by.
func SplitTypeName(typeName string) (pkg, msg string, err error) {
	parts := strings.Split(typeName, "/")
	if len(parts) != 3 || parts[1] != "msg" || !validTypeToken(parts[0]) || !validTypeToken(parts[2]) {
		return "", "", fmt.Errorf("%w: %q: want package/msg/Name", ErrTypeName, typeName)
	}
	return parts[0], parts[2], nil
}

// validTypeToken accepts the characters rosidl allows in package and type
// names; anything else would end up in a dlsym symbol name.
func validTypeToken(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
