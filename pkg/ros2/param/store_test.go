package param

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

type cdr interface {
	MarshalCDR() ([]byte, error)
	UnmarshalCDR([]byte) error
}

func call(t *testing.T, h func([]byte) ([]byte, error), req, resp cdr) {
	t.Helper()
	data, err := req.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	out, err := h(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := resp.UnmarshalCDR(out); err != nil {
		t.Fatal(err)
	}
}

func newStore(t *testing.T) (*Store, *[][]byte) {
	t.Helper()
	var events [][]byte
	s := New(config.Default(), func(b []byte) error { events = append(events, b); return nil },
		func() time.Time { return time.Unix(12, 5) })
	return s, &events
}

func TestListParameters(t *testing.T) {
	s, _ := newStore(t)
	all := config.Parameters()
	tests := []struct {
		name      string
		req       ros2msg.ListParametersRequest
		wantNames func(string) bool
		wantPre   []string
	}{
		{"everything", ros2msg.ListParametersRequest{}, func(string) bool { return true }, nil},
		{"top level only", ros2msg.ListParametersRequest{Depth: 1}, func(n string) bool { return !strings.Contains(n, ".") }, nil},
		{"prefix", ros2msg.ListParametersRequest{Prefixes: []string{"recording"}},
			func(n string) bool { return strings.HasPrefix(n, "recording.") }, []string{"recording"}},
		{"exact name", ros2msg.ListParametersRequest{Prefixes: []string{"policy"}}, func(n string) bool { return n == "policy" }, nil},
		{"prefix, depth 1 excludes deeper", ros2msg.ListParametersRequest{Prefixes: []string{"qos"}, Depth: 1},
			func(string) bool { return false }, nil},
		{"prefix, depth 2", ros2msg.ListParametersRequest{Prefixes: []string{"qos"}, Depth: 2},
			func(n string) bool { return strings.HasPrefix(n, "qos.") }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp ros2msg.ListParametersResponse
			call(t, s.ListParameters, &tt.req, &resp)
			var want []string
			for _, p := range all {
				if tt.wantNames(p.Name) {
					want = append(want, p.Name)
				}
			}
			if !slices.Equal(resp.Result.Names, want) {
				t.Errorf("names = %q, want %q", resp.Result.Names, want)
			}
			if tt.wantPre != nil && !slices.Equal(resp.Result.Prefixes, tt.wantPre) {
				t.Errorf("prefixes = %q, want %q", resp.Result.Prefixes, tt.wantPre)
			}
		})
	}
	// The whole list names every declared parameter once, with the
	// prefixes ros2 param dump nests them under.
	var resp ros2msg.ListParametersResponse
	call(t, s.ListParameters, &ros2msg.ListParametersRequest{}, &resp)
	if len(resp.Result.Names) != len(all) || !slices.Contains(resp.Result.Names, "use_sim_time") ||
		!slices.Contains(resp.Result.Prefixes, "qos.state") || slices.Contains(resp.Result.Prefixes, "use_sim_time") {
		t.Errorf("list = %q / %q", resp.Result.Names, resp.Result.Prefixes)
	}
}

func TestGetParametersAndTypes(t *testing.T) {
	s, _ := newStore(t)
	var got ros2msg.GetParametersResponse
	call(t, s.GetParameters, &ros2msg.GetParametersRequest{Names: []string{"assessment_timeout_s", "policy", "max_pending_beliefs", "use_sim_time"}}, &got)
	want := []ros2msg.ParameterValue{
		{Type: engine.ParameterDouble, DoubleValue: 0.1},
		{Type: engine.ParameterString, StringValue: "uncertainty_aware_reference_v1"},
		{Type: engine.ParameterInteger, IntegerValue: 1024},
		{Type: engine.ParameterBool, BoolValue: false},
	}
	if len(got.Values) != len(want) {
		t.Fatalf("values = %+v", got.Values)
	}
	for i := range want {
		if got.Values[i].Type != want[i].Type || got.Values[i].DoubleValue != want[i].DoubleValue ||
			got.Values[i].StringValue != want[i].StringValue || got.Values[i].IntegerValue != want[i].IntegerValue ||
			got.Values[i].BoolValue != want[i].BoolValue {
			t.Errorf("value %d = %+v, want %+v", i, got.Values[i], want[i])
		}
	}
	call(t, s.GetParameters, &ros2msg.GetParametersRequest{Names: []string{"policy", "no_such"}}, &got)
	if len(got.Values) != 0 {
		t.Errorf("with an undeclared name: %+v, want none (as rclcpp)", got.Values)
	}
	var types ros2msg.GetParameterTypesResponse
	call(t, s.GetParameterTypes, &ros2msg.GetParameterTypesRequest{Names: []string{"use_sim_time", "recording.chunk_size", "assessment_timeout_s", "policy", "no_such"}}, &types)
	if !slices.Equal(types.Types, []uint8{1, 2, 3, 4, 0}) {
		t.Errorf("types = %v, want [1 2 3 4 0] (rcl_interfaces/ParameterType)", types.Types)
	}
}

func TestDescribeParameters(t *testing.T) {
	s, _ := newStore(t)
	var got ros2msg.DescribeParametersResponse
	call(t, s.DescribeParameters, &ros2msg.DescribeParametersRequest{Names: []string{"assessment_timeout_s", "policy_file", "qos.state.depth"}}, &got)
	if len(got.Descriptors) != 3 {
		t.Fatalf("descriptors = %+v", got.Descriptors)
	}
	d := got.Descriptors
	if d[0].ReadOnly || d[0].Type != engine.ParameterDouble || !strings.Contains(d[0].Description, "seconds") {
		t.Errorf("assessment_timeout_s = %+v", d[0])
	}
	if !d[1].ReadOnly || !strings.Contains(d[1].AdditionalConstraints, "recording") {
		t.Errorf("policy_file = %+v, want read-only saying why", d[1])
	}
	if !d[2].ReadOnly || d[2].Type != engine.ParameterInteger || d[2].Name != "qos.state.depth" {
		t.Errorf("qos.state.depth = %+v", d[2])
	}
}

func param(name string, v ros2msg.ParameterValue) ros2msg.Parameter {
	return ros2msg.Parameter{Name: name, Value: v}
}

func double(d float64) ros2msg.ParameterValue {
	return ros2msg.ParameterValue{Type: engine.ParameterDouble, DoubleValue: d}
}

func str(s string) ros2msg.ParameterValue {
	return ros2msg.ParameterValue{Type: engine.ParameterString, StringValue: s}
}

func TestSetParameters(t *testing.T) {
	tests := []struct {
		name       string
		p          ros2msg.Parameter
		ok         bool
		reason     string
		wantTimout time.Duration
	}{
		{"timeout", param("assessment_timeout_s", double(0.2)), true, "", 200 * time.Millisecond},
		{"timeout as integer", param("assessment_timeout_s", ros2msg.ParameterValue{Type: engine.ParameterInteger, IntegerValue: 2}), true, "", 2 * time.Second},
		{"negative timeout", param("assessment_timeout_s", double(-1)), false, "want seconds > 0", 100 * time.Millisecond},
		{"timeout as string", param("assessment_timeout_s", str("0.2")), false, "wrong parameter type", 100 * time.Millisecond},
		{"read-only", param("max_pending_beliefs", ros2msg.ParameterValue{Type: engine.ParameterInteger, IntegerValue: 5}), false, "read-only", 100 * time.Millisecond},
		{"policy file", param("policy_file", str("x.yaml")), false, "recording", 100 * time.Millisecond},
		{"undeclared", param("no_such", double(1)), false, "not declared", 100 * time.Millisecond},
		{"unset", param("assessment_timeout_s", ros2msg.ParameterValue{}), false, "undeclare", 100 * time.Millisecond},
		{"array", param("assessment_timeout_s", ros2msg.ParameterValue{Type: 8, DoubleArrayValue: []float64{1}}), false, "scalar", 100 * time.Millisecond},
		{"log level", param("log_level", str("debug")), true, "", 100 * time.Millisecond},
		{"bad log level", param("log_level", str("loud")), false, "want debug", 100 * time.Millisecond},
		{"enables", param("executors.enable", str("hold,engage_rtl")), true, "", 100 * time.Millisecond},
		{"kill through enables", param("executors.enable", str("engage_kill")), false, "enable_kill", 100 * time.Millisecond},
		{"kill's own enable", param("executors.enable_kill", ros2msg.ParameterValue{Type: engine.ParameterBool, BoolValue: true}), true, "", 100 * time.Millisecond},
		{"executor", param("executors.executor", str("log")), false, "read-only", 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, events := newStore(t)
			var resp ros2msg.SetParametersResponse
			call(t, s.SetParameters, &ros2msg.SetParametersRequest{Parameters: []ros2msg.Parameter{tt.p}}, &resp)
			if len(resp.Results) != 1 {
				t.Fatalf("results = %+v", resp.Results)
			}
			r := resp.Results[0]
			if r.Successful != tt.ok || !strings.Contains(r.Reason, tt.reason) || (tt.ok != (r.Reason == "")) {
				t.Errorf("result = %+v, want ok %v with reason containing %q", r, tt.ok, tt.reason)
			}
			if got := s.Config().AssessmentTimeout; got != tt.wantTimout {
				t.Errorf("timeout = %s, want %s", got, tt.wantTimout)
			}
			if !tt.ok {
				if len(*events) != 0 {
					t.Errorf("a refused set published %d events", len(*events))
				}
				return
			}
			if len(*events) != 1 {
				t.Fatalf("events = %d, want 1", len(*events))
			}
			var ev ros2msg.ParameterEvent
			if err := ev.UnmarshalCDR((*events)[0]); err != nil {
				t.Fatal(err)
			}
			if ev.Node != "/decision_node" || ev.Stamp.Sec != 12 || ev.Stamp.Nanosec != 5 || len(ev.ChangedParameters) != 1 ||
				ev.ChangedParameters[0].Name != tt.p.Name || len(ev.NewParameters)+len(ev.DeletedParameters) != 0 {
				t.Errorf("event = %+v", ev)
			}
		})
	}
}

func TestSetParametersAtomically(t *testing.T) {
	s, events := newStore(t)
	var resp ros2msg.SetParametersAtomicallyResponse
	call(t, s.SetParametersAtomically, &ros2msg.SetParametersAtomicallyRequest{Parameters: []ros2msg.Parameter{
		param("assessment_timeout_s", double(0.3)), param("policy", str("x"))}}, &resp)
	if resp.Result.Successful || !strings.Contains(resp.Result.Reason, "read-only") ||
		s.Config().AssessmentTimeout != 100*time.Millisecond || len(*events) != 0 {
		t.Errorf("one refused: %+v, timeout %s, %d events; want nothing set", resp.Result, s.Config().AssessmentTimeout, len(*events))
	}
	call(t, s.SetParametersAtomically, &ros2msg.SetParametersAtomicallyRequest{Parameters: []ros2msg.Parameter{
		param("assessment_timeout_s", double(0.3)), param("log_level", str("warn"))}}, &resp)
	if !resp.Result.Successful || s.Config().AssessmentTimeout != 300*time.Millisecond || len(*events) != 1 {
		t.Errorf("all accepted: %+v, timeout %s, %d events", resp.Result, s.Config().AssessmentTimeout, len(*events))
	}
	// The event is the one the Loop follows.
	var ev ros2msg.ParameterEvent
	if err := ev.UnmarshalCDR((*events)[0]); err != nil {
		t.Fatal(err)
	}
	loop, err := engine.NewLoop(engine.LoopOptions{Node: "/decision_node"})
	if err != nil {
		t.Fatal(err)
	}
	var out engine.Output
	if err := loop.Step(session.ParameterEventFromWire(&ev, 1), &out); err != nil {
		t.Fatal(err)
	}
	if loop.AssessmentTimeout() != 300*time.Millisecond {
		t.Errorf("loop timeout = %s after the event", loop.AssessmentTimeout())
	}
}

func TestPublishFailureIsAnError(t *testing.T) {
	boom := errors.New("boom")
	s := New(config.Default(), func([]byte) error { return boom }, nil)
	req, _ := (&ros2msg.SetParametersRequest{Parameters: []ros2msg.Parameter{param("assessment_timeout_s", double(0.2))}}).MarshalCDR()
	if _, err := s.SetParameters(req); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the publish error", err)
	}
}

func TestMalformedRequests(t *testing.T) {
	s, _ := newStore(t)
	for _, sv := range s.Services() {
		for _, req := range [][]byte{nil, {0, 1, 0, 0}, {0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f}} {
			if _, err := sv.Handle(req); err == nil && sv.Type != TypeListParameters {
				t.Errorf("%s(%x): no error", sv.Name, req)
			}
		}
	}
}

func TestReadOnlyIsMatchable(t *testing.T) {
	s, _ := newStore(t)
	_, err := s.set(s.Config(), param("policy", str("x")))
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), `parameter "policy" is read-only: read at start-up only`) {
		t.Errorf("err = %v", err)
	}
}

func TestWritable(t *testing.T) {
	for _, p := range config.Parameters() {
		ok, why := Writable(p.Name)
		if ok == (why != "") {
			t.Errorf("%s: writable %v with reason %q", p.Name, ok, why)
		}
	}
	for _, name := range []string{"assessment_timeout_s", "log_level", "executors.enable", "executors.enable_kill"} {
		if ok, _ := Writable(name); !ok {
			t.Errorf("%s is read-only", name)
		}
	}
}

func FuzzServices(f *testing.F) {
	for _, m := range []cdr{
		&ros2msg.ListParametersRequest{Prefixes: []string{"qos"}, Depth: 2},
		&ros2msg.SetParametersRequest{Parameters: []ros2msg.Parameter{param("assessment_timeout_s", double(0.2))}},
		&ros2msg.GetParametersRequest{Names: []string{"policy"}},
	} {
		b, _ := m.MarshalCDR()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := New(config.Default(), func([]byte) error { return nil }, nil)
		for _, sv := range s.Services() {
			_, _ = sv.Handle(data)
		}
		if err := s.Config().Validate(); err != nil {
			t.Fatalf("a request left an invalid configuration: %v", err)
		}
	})
}
