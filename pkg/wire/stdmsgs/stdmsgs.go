package stdmsgs

import (
	"embed"
	"sync"

	"github.com/ghost-robotics/ghost/msg"
)

//go:embed */*.msg
var files embed.FS

// set parses the embedded definitions once.
var set = sync.OnceValues(func() (*msg.Set, error) {
	s := msg.NewSet()
	if err := s.AddFS(files); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
})

// Set returns the parsed standard definitions. Names are "pkg/Name" or
// "pkg/msg/Name", e.g. "diagnostic_msgs/msg/DiagnosticArray".
func Set() (*msg.Set, error) { return set() }

// Names returns the full names ("pkg/msg/Name") of the embedded types, sorted.
func Names() []string {
	s, err := set()
	if err != nil {
		return nil
	}
	return s.Names()
}

// Definition returns a copy of the parsed definition of name.
func Definition(name string) (*msg.Spec, error) {
	s, err := set()
	if err != nil {
		return nil, err
	}
	return s.Definition(name)
}

// Text returns the .msg text of name as embedded.
func Text(name string) (string, error) {
	s, err := set()
	if err != nil {
		return "", err
	}
	return s.Text(name)
}

// SchemaText returns the complete "ros2msg" schema text of name as rosbag2
// stores it in MCAP (see msg.Set.SchemaText).
func SchemaText(name string) (string, error) {
	s, err := set()
	if err != nil {
		return "", err
	}
	return s.SchemaText(name)
}
