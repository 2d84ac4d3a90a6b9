package config

import (
	"errors"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

func testFile(name string) string { return filepath.Join("testdata", "params", name) }

func TestFromArgs(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		want     func(c *Config) // edits applied to Default()
		wantRest []string
	}{
		{
			name: "no arguments",
			args: nil,
			want: func(*Config) {},
		},
		{
			name:     "non-ROS arguments pass through around the ROS section",
			args:     []string{"run", "--ros-args", "-p", "max_pending_beliefs:=4", "--", "--verbose", "x"},
			want:     func(c *Config) { c.MaxPendingBeliefs = 4 },
			wantRest: []string{"run", "--verbose", "x"},
		},
		{
			name: "-p values are YAML-typed",
			args: []string{"--ros-args",
				"-p", "use_sim_time:=true",
				"-p", "max_pending_assessments:=3",
				"-p", "assessment_timeout_s:=0.5",
				"-p", "recording.path:='3'",
				"-p", "recording.compression:=none"},
			want: func(c *Config) {
				c.UseSimTime = true
				c.MaxPendingAssessments = 3
				c.AssessmentTimeout = 500 * time.Millisecond
				c.Recording.Path = "3"
				c.Recording.Compression = "none"
			},
		},
		{
			name: "rcl boolean words and an integer for a double",
			args: []string{"--ros-args", "--param", "use_sim_time:=yes", "-p", "diagnostics_period_s:=2"},
			want: func(c *Config) { c.UseSimTime = true; c.DiagnosticsPeriod = 2 * time.Second },
		},
		{
			name: "empty -p value is the empty string",
			args: []string{"--ros-args", "-p", "recording.path:=/tmp/x.mcap", "-p", "recording.path:="},
			want: func(*Config) {},
		},
		{
			name: "launch_ros style: several --ros-args sections, no terminator",
			args: []string{"--ros-args", "--log-level", "debug", "--ros-args", "-r", "__node:=decision_node",
				"--params-file", testFile("global.yaml")},
			want: func(c *Config) {
				c.LogLevel = slog.LevelDebug
				c.AssessmentTimeout = 250 * time.Millisecond
				withQoS(c, "decisions", func(q *qos.Profile) { q.Depth = 50 })
			},
		},
		{
			name: "node section overrides /** within a file regardless of order",
			args: []string{"--ros-args", "--params-file", testFile("layered.yaml")},
			want: func(c *Config) { c.MaxPendingBeliefs = 7; c.MaxPendingAssessments = 5 },
		},
		{
			name: "later params file overrides earlier, -p overrides both",
			args: []string{"--ros-args", "--params-file", testFile("layered.yaml"), "--params-file", testFile("global.yaml"),
				"-p", "qos.decisions.depth:=60", "--params-file", testFile("relative_key.yaml")},
			want: func(c *Config) {
				c.MaxPendingBeliefs = 7
				c.MaxPendingAssessments = 5
				c.AssessmentTimeout = 250 * time.Millisecond
				withQoS(c, "decisions", func(q *qos.Profile) { q.Depth = 60 })
				c.DiagnosticsPeriod = 2 * time.Second
			},
		},
		{
			name: "node key without leading slash",
			args: []string{"--ros-args", "--params-file", testFile("relative_key.yaml")},
			want: func(c *Config) { c.DiagnosticsPeriod = 2 * time.Second },
		},
		{
			name: "dotted and nested names, hex integer, quoted string",
			args: []string{"--ros-args", "--params-file", testFile("dotted.yaml")},
			want: func(c *Config) {
				withQoS(c, "state", func(q *qos.Profile) { q.Reliability = qos.ReliabilityBestEffort })
				withQoS(c, "state", func(q *qos.Profile) { q.Depth = 1 })
				c.Thresholds.PositionKnownStdM = 0.25
				c.UseSimTime = true
				c.Recording.Path = "/data/flight.mcap"
				c.Recording.ChunkSize = 1 << 20
			},
		},
		{
			name: "other nodes' sections are ignored, /** / pattern matches",
			args: []string{"--ros-args", "--params-file", testFile("other_node.yaml")},
			want: func(*Config) {},
		},
		{
			name: "namespace /drone1 selects its path section and the /* pattern",
			args: []string{"--ros-args", "-r", "__ns:=/drone1", "--params-file", testFile("namespaced.yaml")},
			want: func(c *Config) {
				c.Namespace = "/drone1"
				c.Topics["state"] = "state/nav"
				c.Recording.Compression = "lz4"
			},
		},
		{
			name: "namespace /drone2 selects the nested section",
			args: []string{"--ros-args", "-r", "__ns:=/drone2/", "--params-file", testFile("namespaced.yaml")},
			want: func(c *Config) {
				c.Namespace = "/drone2"
				c.Topics["state"] = "nav2"
				c.Recording.Compression = "lz4"
			},
		},
		{
			name: "root namespace selects none of the namespaced sections",
			args: []string{"--ros-args", "--params-file", testFile("namespaced.yaml")},
			want: func(*Config) {},
		},
		{
			name: "renamed node: sections for the old name no longer apply",
			args: []string{"--ros-args", "-r", "__node:=brain", "--params-file", testFile("layered.yaml")},
			want: func(c *Config) { c.NodeName = "brain"; c.MaxPendingBeliefs = 3; c.MaxPendingAssessments = 5 },
		},
		{
			name: "first __node rule wins, __name is the old spelling, other nodes' rules are ignored",
			args: []string{"--ros-args", "-r", "camera:__node:=cam", "-r", "__name:=first", "-r", "__node:=second"},
			want: func(c *Config) { c.NodeName = "first" },
		},
		{
			name: "node-prefixed -p applies only to the matching node",
			args: []string{"--ros-args", "-p", "decision_node:max_pending_beliefs:=9", "-p", "camera:max_pending_beliefs:=1"},
			want: func(c *Config) { c.MaxPendingBeliefs = 9 },
		},
		{
			name: "topic remaps are kept in order, foreign ones dropped",
			args: []string{"--ros-args", "-r", "/state/nav:=/fmu/state", "--remap", "camera:/image:=/cam", "-r", "decision_node:decisions:=out"},
			want: func(c *Config) {
				c.Remaps = []Remap{{From: "/state/nav", To: "/fmu/state"}, {From: "decisions", To: "out"}}
			},
		},
		{
			name: "log level for the node's logger beats the default level",
			args: []string{"--ros-args", "--log-level", "decision_node:=WARN", "--log-level", "debug", "--log-level", "rcl:=error"},
			want: func(c *Config) { c.LogLevel = slog.LevelWarn },
		},
		{
			name: "namespaced logger name",
			args: []string{"--ros-args", "-r", "__ns:=/drone1", "--log-level", "drone1.decision_node:=fatal"},
			want: func(c *Config) { c.Namespace = "/drone1"; c.LogLevel = LevelFatal },
		},
		{
			name: "tolerated flags",
			args: []string{"--ros-args", "-e", "/enclave", "--enclave", "/x", "--disable-rosout-logs", "--enable-stdout-logs",
				"--log-config-file", "log.conf", "--disable-external-lib-logs"},
			want: func(*Config) {},
		},
		{
			name: "empty params file",
			args: []string{"--ros-args", "--params-file", testFile("empty.yaml")},
			want: func(*Config) {},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rest, err := FromArgs(tt.args)
			if err != nil {
				t.Fatalf("FromArgs: %v", err)
			}
			want := Default()
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("config\n got %+v\nwant %+v", got, want)
			}
			if !reflect.DeepEqual(rest, tt.wantRest) {
				t.Errorf("rest = %q, want %q", rest, tt.wantRest)
			}
		})
	}
}

func TestFromArgsErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		sentinel error
		contains []string // every string must appear in the message
	}{
		{"unknown parameter in a file", []string{"--ros-args", "--params-file", testFile("unknown_param.yaml")},
			ErrUnknownParameter, []string{`"assesment_timeout_s"`, "unknown_param.yaml", "line 3"}},
		{"unknown parameter in -p", []string{"--ros-args", "-p", "topics.stat:=/x"},
			ErrUnknownParameter, []string{`"topics.stat"`, "-p topics.stat:=/x"}},
		{"quoted number for an integer", []string{"--ros-args", "--params-file", testFile("wrong_type.yaml")},
			ErrWrongType, []string{`"max_pending_beliefs"`, `"10"`, "want integer, got string", "wrong_type.yaml"}},
		{"double for an integer", []string{"--ros-args", "-p", "qos.state.depth:=1.5"},
			ErrWrongType, []string{`"qos.state.depth"`, "1.5", "want integer, got double"}},
		{"number for a string", []string{"--ros-args", "-p", "policy:=3"},
			ErrWrongType, []string{`"policy"`, "want string, got integer"}},
		{"string for a bool", []string{"--ros-args", "-p", "use_sim_time:=maybe"},
			ErrWrongType, []string{`"use_sim_time"`, `"maybe"`, "want bool"}},
		{"array value", []string{"--ros-args", "-p", "topics.state:=[/a, /b]"},
			ErrWrongType, []string{`"topics.state"`, "arrays"}},
		{"array in a file", []string{"--ros-args", "--params-file", testFile("array.yaml")},
			ErrWrongType, []string{"array.yaml", `"topics.state"`, "arrays"}},
		{"bad QoS enum", []string{"--ros-args", "--params-file", testFile("bad_enum.yaml")},
			ErrInvalidValue, []string{`"qos.decisions.durability"`, `"transient"`, "bad_enum.yaml"}},
		{"bad compression", []string{"--ros-args", "-p", "recording.compression:=gzip"},
			ErrInvalidValue, []string{`"recording.compression"`, `"gzip"`}},
		{"unknown policy", []string{"--ros-args", "-p", "policy:=yolo_v1"},
			ErrInvalidValue, []string{`"policy"`, `"yolo_v1"`}},
		{"negative timeout", []string{"--ros-args", "-p", "assessment_timeout_s:=-0.1"},
			ErrInvalidValue, []string{`"assessment_timeout_s"`, "-0.1"}},
		{"nan timeout", []string{"--ros-args", "-p", "diagnostics_period_s:=.nan"},
			ErrInvalidValue, []string{`"diagnostics_period_s"`}},
		{"depth out of range", []string{"--ros-args", "-p", "qos.decisions.depth:=-1"},
			ErrInvalidValue, []string{`"qos.decisions.depth"`, "-1"}},
		{"keep_last with depth 0", []string{"--ros-args", "-p", "qos.decisions.depth:=0"},
			ErrInvalidValue, []string{`"qos.decisions.depth"`, "keep_last"}},
		{"pending bound", []string{"--ros-args", "-p", "max_pending_beliefs:=0"},
			ErrInvalidValue, []string{`"max_pending_beliefs"`, "0"}},
		{"thresholds out of order", []string{"--ros-args", "-p", "thresholds.velocity_known_std_mps:=1.5"},
			ErrInvalidValue, []string{`"thresholds.velocity_known_std_mps"`, "1.5"}},
		{"invalid topic", []string{"--ros-args", "-p", "topics.decisions:=/2bad"},
			ErrInvalidValue, []string{`"topics.decisions"`, "/2bad", "digit"}},
		{"missing file", []string{"--ros-args", "--params-file", testFile("does_not_exist.yaml")},
			ErrParamsFile, []string{"does_not_exist.yaml"}},
		{"malformed YAML", []string{"--ros-args", "--params-file", testFile("malformed.yaml")},
			ErrParamsFile, []string{"malformed.yaml", "malformed YAML"}},
		{"no ros__parameters", []string{"--ros-args", "--params-file", testFile("no_ros_parameters.yaml")},
			ErrParamsFile, []string{"no_ros_parameters.yaml", "ros__parameters"}},
		{"duplicate parameter", []string{"--ros-args", "--params-file", testFile("duplicate.yaml")},
			ErrParamsFile, []string{"duplicate.yaml", `"qos.decisions.depth"`, "already set"}},
		{"unknown flag", []string{"--ros-args", "--frobnicate"},
			ErrInvalidArgument, []string{"--frobnicate"}},
		{"flag without value", []string{"--ros-args", "-p"},
			ErrInvalidArgument, []string{"-p", "missing value"}},
		{"-p without :=", []string{"--ros-args", "-p", "policy=x"},
			ErrInvalidArgument, []string{"policy=x"}},
		{"remap without :=", []string{"--ros-args", "-r", "/a"},
			ErrInvalidArgument, []string{"/a"}},
		{"bad log level", []string{"--ros-args", "--log-level", "verbose"},
			ErrInvalidArgument, []string{"verbose"}},
		{"relative namespace", []string{"--ros-args", "-r", "__ns:=drone1"},
			ErrInvalidValue, []string{"__ns", `"drone1"`}},
		{"invalid node name", []string{"--ros-args", "-r", "__node:=my-node"},
			ErrInvalidValue, []string{"__node", `"my-node"`}},
		{"invalid remap target", []string{"--ros-args", "-r", "/a:=/b//c"},
			ErrInvalidArgument, []string{"/b//c", "ROS argument 2"}},
		{"validation error names the source", []string{"--ros-args", "-p", "thresholds.velocity_known_std_mps:=1.5"},
			ErrInvalidValue, []string{"argument -p thresholds.velocity_known_std_mps:=1.5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := FromArgs(tt.args)
			if err == nil {
				t.Fatal("FromArgs succeeded, want an error")
			}
			if !errors.Is(err, tt.sentinel) {
				t.Errorf("error %q does not match %v", err, tt.sentinel)
			}
			for _, s := range tt.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

func TestFromArgsParamErrorFields(t *testing.T) {
	_, _, err := FromArgs([]string{"--ros-args", "-p", "qos.state.history:=keep_some"})
	var pe *ParamError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *ParamError", err)
	}
	if pe.Param != "qos.state.history" || pe.Value != `"keep_some"` || pe.Source != "argument -p qos.state.history:=keep_some" {
		t.Errorf("ParamError = %+v", pe)
	}
	if !errors.Is(err, qos.ErrInvalid) {
		t.Errorf("error %v should wrap qos.ErrInvalid", err)
	}
}

func TestFromArgsOversizedFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "big.yaml")
	big := "/**:\n  ros__parameters:\n    policy: uncertainty_aware_reference_v1\n" + strings.Repeat("# padding\n", maxParamsFileSize/10+1)
	if err := os.WriteFile(file, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := FromArgs([]string{"--ros-args", "--params-file", file})
	if !errors.Is(err, ErrParamsFile) || !errors.Is(err, limitedfile.ErrTooLarge) || !strings.Contains(err.Error(), file) {
		t.Fatalf("err = %v, want a size limit error naming the file", err)
	}
	// A device that never ends is refused before it is read.
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := FromParamsFile("/dev/zero")
		if !errors.Is(err, ErrParamsFile) || !errors.Is(err, limitedfile.ErrNotRegular) || !strings.Contains(err.Error(), "/dev/zero") {
			t.Fatalf("/dev/zero: %v, want a refusal naming it", err)
		}
	}
}

// The command line `ros2 launch ghost decision.launch.py namespace:=uav1
// use_sim_time:=true state_topic:=/fmu/state` produces (launch_ros on
// Humble): its own arguments first, then a second --ros-args section with
// the node name, namespace, the config file, the dict parameters written to
// a temporary file keyed by the node's full name, and the remappings.
func TestFromArgsLaunchROSCommandLine(t *testing.T) {
	dict := filepath.Join(t.TempDir(), "launch_params_abc")
	if err := os.WriteFile(dict, []byte("/uav1/decision_node:\n  ros__parameters:\n    use_sim_time: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{
		"--ros-args", "--log-level", "info",
		"--ros-args", "-r", "__node:=decision_node", "-r", "__ns:=/uav1",
		"--params-file", decisionYAML, "--params-file", dict,
		"-r", "/state/nav:=/fmu/state", "-r", "/self_assessment:=/self_assessment",
		"-r", "/perception/mode:=/perception/mode", "-r", "/decisions:=/decisions",
		"-r", "/diagnostics:=/diagnostics",
	}
	c, rest, err := FromArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != 0 {
		t.Errorf("rest = %q", rest)
	}
	if c.FullyQualifiedName() != "/uav1/decision_node" || !c.UseSimTime || c.LogLevel != slog.LevelInfo {
		t.Errorf("config %+v", c)
	}
	topics, err := c.ResolvedTopics()
	if err != nil {
		t.Fatal(err)
	}
	if want := (Topics{"state": "/fmu/state", "self_assessment": "/self_assessment", "perception_mode": "/perception/mode", "self_assessment_calibrated": "", "action_evidence": "/decisions/evidence", "parameter_events": "/parameter_events", "transition_event": "/uav1/decision_node/transition_event", "decisions": "/decisions", "diagnostics": "/diagnostics", "actions": "/decisions/actions", "seal": "/decisions/seal"}); !maps.Equal(topics, want) {
		t.Errorf("resolved topics %+v, want %+v", topics, want)
	}
}
