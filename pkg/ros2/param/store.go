package param

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Service type names of the parameter services.
const (
	TypeListParameters          = "rcl_interfaces/srv/ListParameters"
	TypeGetParameters           = "rcl_interfaces/srv/GetParameters"
	TypeGetParameterTypes       = "rcl_interfaces/srv/GetParameterTypes"
	TypeSetParameters           = "rcl_interfaces/srv/SetParameters"
	TypeSetParametersAtomically = "rcl_interfaces/srv/SetParametersAtomically"
	TypeDescribeParameters      = "rcl_interfaces/srv/DescribeParameters"
)

// writable are the parameters that may change while the node runs.
// assessment_timeout_s and the executor enables are followed by the Loop
// through the recorded event; log_level changes only what is logged.
var writable = map[string]bool{
	engine.ParameterAssessmentTimeout: true,
	engine.ParameterEnable:            true,
	engine.ParameterEnableKill:        true,
	"log_level":                       true,
}

// Reasons a parameter is read-only.
const (
	reasonStartup = "read at start-up only: restart the node with the new value"
	reasonPolicy  = "read at start-up only: a policy file read while running would not be in the recording, so replay and verify could not decide as the node did; restart the node with the new value"
)

// Writable reports whether the parameter name may change while the node
// runs and, when it may not, why.
func Writable(name string) (bool, string) {
	switch {
	case writable[name]:
		return true, ""
	case name == "policy" || name == "policy_file":
		return false, reasonPolicy
	}
	return false, reasonStartup
}

// Store holds the node's parameters. It is safe for concurrent use.
type Store struct {
	node    string // fully qualified node name, the events' node
	decl    []config.Parameter
	index   map[string]int
	publish func(ev []byte) error
	now     func() time.Time

	mu  sync.Mutex
	cfg config.Config
}

// New returns the store of cfg's parameters. publish receives each
// serialized ParameterEvent of an accepted change (nil: none), now stamps
// it.
func New(cfg config.Config, publish func([]byte) error, now func() time.Time) *Store {
	s := &Store{node: cfg.FullyQualifiedName(), decl: config.Parameters(), index: map[string]int{},
		publish: publish, now: now, cfg: cfg.Clone()}
	for i, p := range s.decl {
		s.index[p.Name] = i
	}
	if s.now == nil {
		s.now = func() time.Time { return time.Unix(0, 0) }
	}
	return s
}

// Config returns the configuration with every accepted change.
func (s *Store) Config() config.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Clone()
}

// Service is one parameter service: its name relative to the node, its
// type and its handler.
type Service struct {
	Name, Type string
	Handle     transport.ServiceHandler
}

// Services returns the six parameter services under the node's name
// ("~/list_parameters", ...), as rclcpp serves them.
func (s *Store) Services() []Service {
	return []Service{
		{"~/describe_parameters", TypeDescribeParameters, s.DescribeParameters},
		{"~/get_parameters", TypeGetParameters, s.GetParameters},
		{"~/get_parameter_types", TypeGetParameterTypes, s.GetParameterTypes},
		{"~/list_parameters", TypeListParameters, s.ListParameters},
		{"~/set_parameters", TypeSetParameters, s.SetParameters},
		{"~/set_parameters_atomically", TypeSetParametersAtomically, s.SetParametersAtomically},
	}
}

// rclType maps package config's types to rcl_interfaces/msg/ParameterType.
func rclType(t config.Type) uint8 {
	switch t {
	case config.TypeBool:
		return engine.ParameterBool
	case config.TypeInteger:
		return engine.ParameterInteger
	case config.TypeDouble:
		return engine.ParameterDouble
	case config.TypeString:
		return engine.ParameterString
	}
	return engine.ParameterNotSet
}

func toWire(v config.Value) ros2msg.ParameterValue {
	return ros2msg.ParameterValue{Type: rclType(v.Type), BoolValue: v.Bool, IntegerValue: v.Integer,
		DoubleValue: v.Double, StringValue: v.String}
}

// fromWire converts a scalar value; arrays and NOT_SET have no
// config type.
func fromWire(v ros2msg.ParameterValue) (config.Value, error) {
	out := config.Value{Bool: v.BoolValue, Integer: v.IntegerValue, Double: v.DoubleValue, String: v.StringValue}
	switch v.Type {
	case engine.ParameterBool:
		out.Type = config.TypeBool
	case engine.ParameterInteger:
		out.Type = config.TypeInteger
	case engine.ParameterDouble:
		out.Type = config.TypeDouble
	case engine.ParameterString:
		out.Type = config.TypeString
	case engine.ParameterNotSet:
		return out, errors.New("cannot undeclare a parameter: every parameter of this node is declared")
	default:
		return out, fmt.Errorf("parameter type %d: every parameter of this node is a scalar", v.Type)
	}
	return out, nil
}

// ListParameters answers rcl_interfaces/srv/ListParameters with rclcpp's
// rules: every name under a requested prefix (all names without prefixes)
// within depth (0 is unlimited), and the prefixes of the names listed.
func (s *Store) ListParameters(req []byte) ([]byte, error) {
	var in ros2msg.ListParametersRequest
	if err := in.UnmarshalCDR(req); err != nil {
		return nil, fmt.Errorf("list_parameters: %w", err)
	}
	var out ros2msg.ListParametersResponse
	within := func(rest string) bool {
		return in.Depth == 0 || uint64(strings.Count(rest, ".")) < in.Depth
	}
	seen := map[string]bool{}
	for _, p := range s.decl {
		match := len(in.Prefixes) == 0 && within(p.Name)
		for _, pre := range in.Prefixes {
			if p.Name == pre || strings.HasPrefix(p.Name, pre+".") && within(p.Name[len(pre)+1:]) {
				match = true
				break
			}
		}
		if !match {
			continue
		}
		out.Result.Names = append(out.Result.Names, p.Name)
		if i := strings.LastIndexByte(p.Name, '.'); i > 0 && !seen[p.Name[:i]] {
			seen[p.Name[:i]] = true
			out.Result.Prefixes = append(out.Result.Prefixes, p.Name[:i])
		}
	}
	sort.Strings(out.Result.Prefixes)
	return out.MarshalCDR()
}

// GetParameters answers rcl_interfaces/srv/GetParameters. A name the node
// does not declare makes the answer empty, as rclcpp's does.
func (s *Store) GetParameters(req []byte) ([]byte, error) {
	var in ros2msg.GetParametersRequest
	if err := in.UnmarshalCDR(req); err != nil {
		return nil, fmt.Errorf("get_parameters: %w", err)
	}
	cfg := s.Config()
	var out ros2msg.GetParametersResponse
	for _, n := range in.Names {
		v, err := cfg.Get(n)
		if err != nil {
			out.Values = nil
			break
		}
		out.Values = append(out.Values, toWire(v))
	}
	return out.MarshalCDR()
}

// GetParameterTypes answers rcl_interfaces/srv/GetParameterTypes; an
// undeclared name has type NOT_SET.
func (s *Store) GetParameterTypes(req []byte) ([]byte, error) {
	var in ros2msg.GetParameterTypesRequest
	if err := in.UnmarshalCDR(req); err != nil {
		return nil, fmt.Errorf("get_parameter_types: %w", err)
	}
	var out ros2msg.GetParameterTypesResponse
	for _, n := range in.Names {
		t := engine.ParameterNotSet
		if i, ok := s.index[n]; ok {
			t = rclType(s.decl[i].Type)
		}
		out.Types = append(out.Types, t)
	}
	return out.MarshalCDR()
}

// DescribeParameters answers rcl_interfaces/srv/DescribeParameters: the
// type, the description and, for a read-only parameter, why. A name the
// node does not declare makes the answer empty, as rclcpp's does.
func (s *Store) DescribeParameters(req []byte) ([]byte, error) {
	var in ros2msg.DescribeParametersRequest
	if err := in.UnmarshalCDR(req); err != nil {
		return nil, fmt.Errorf("describe_parameters: %w", err)
	}
	var out ros2msg.DescribeParametersResponse
	for _, n := range in.Names {
		i, ok := s.index[n]
		if !ok {
			out.Descriptors = nil
			break
		}
		p := s.decl[i]
		d := ros2msg.ParameterDescriptor{Name: p.Name, Type: rclType(p.Type), Description: p.Description}
		if ok, why := Writable(p.Name); !ok {
			d.ReadOnly, d.AdditionalConstraints = true, why
		} else {
			d.AdditionalConstraints = "takes effect through the node's own /parameter_events message, recorded with the inputs"
		}
		out.Descriptors = append(out.Descriptors, d)
	}
	return out.MarshalCDR()
}

// SetParameters answers rcl_interfaces/srv/SetParameters: each parameter is
// set on its own, and one ParameterEvent carries the accepted ones.
func (s *Store) SetParameters(req []byte) ([]byte, error) {
	var in ros2msg.SetParametersRequest
	if err := in.UnmarshalCDR(req); err != nil {
		return nil, fmt.Errorf("set_parameters: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out ros2msg.SetParametersResponse
	var changed []ros2msg.Parameter
	for _, p := range in.Parameters {
		next, err := s.set(s.cfg, p)
		if err != nil {
			out.Results = append(out.Results, ros2msg.SetParametersResult{Reason: err.Error()})
			continue
		}
		s.cfg = next
		changed = append(changed, p)
		out.Results = append(out.Results, ros2msg.SetParametersResult{Successful: true})
	}
	if err := s.announce(changed); err != nil {
		return nil, err
	}
	return out.MarshalCDR()
}

// SetParametersAtomically answers rcl_interfaces/srv/SetParametersAtomically:
// every parameter is set, or none.
func (s *Store) SetParametersAtomically(req []byte) ([]byte, error) {
	var in ros2msg.SetParametersAtomicallyRequest
	if err := in.UnmarshalCDR(req); err != nil {
		return nil, fmt.Errorf("set_parameters_atomically: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.cfg
	var out ros2msg.SetParametersAtomicallyResponse
	for _, p := range in.Parameters {
		var err error
		if next, err = s.set(next, p); err != nil {
			out.Result.Reason = err.Error()
			return out.MarshalCDR()
		}
	}
	s.cfg = next
	out.Result.Successful = true
	if err := s.announce(in.Parameters); err != nil {
		return nil, err
	}
	return out.MarshalCDR()
}

// ErrReadOnly is wrapped by the refusal of a set on a read-only parameter.
var ErrReadOnly = errors.New("read-only")

// set checks one change against cfg and returns the changed copy.
func (s *Store) set(cfg config.Config, p ros2msg.Parameter) (config.Config, error) {
	if _, ok := s.index[p.Name]; !ok {
		return cfg, fmt.Errorf("parameter %q is not declared by this node", clip(p.Name))
	}
	if ok, why := Writable(p.Name); !ok {
		return cfg, fmt.Errorf("parameter %q is %w: %s", p.Name, ErrReadOnly, why)
	}
	v, err := fromWire(p.Value)
	if err != nil {
		return cfg, fmt.Errorf("parameter %q: %w", p.Name, err)
	}
	return cfg.Set(p.Name, v, "service set_parameters")
}

// announce publishes the event of the accepted changes; nothing when none.
func (s *Store) announce(changed []ros2msg.Parameter) error {
	if len(changed) == 0 || s.publish == nil {
		return nil
	}
	data, err := Event(s.node, s.now(), changed)
	if err != nil {
		return err
	}
	if err := s.publish(data); err != nil {
		return fmt.Errorf("publish parameter event: %w", err)
	}
	return nil
}

// Event serializes the ParameterEvent of node announcing changed.
func Event(node string, at time.Time, changed []ros2msg.Parameter) ([]byte, error) {
	ns := at.UnixNano()
	ev := ros2msg.ParameterEvent{
		Stamp:             ros2msg.RosTime{Sec: int32(ns / 1e9), Nanosec: uint32(ns % 1e9)},
		Node:              node,
		ChangedParameters: changed,
	}
	return ev.MarshalCDR()
}

// clip bounds a name echoed in an error.
func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}
