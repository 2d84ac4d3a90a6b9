package config

import (
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

const decisionYAML = "../../../config/decision.yaml"

// The documented defaults are the defaults: the shipped file parses to
// exactly Default(), and it names every declared parameter once.
func TestDecisionYAMLIsDefault(t *testing.T) {
	got, err := FromParamsFile(decisionYAML)
	if err != nil {
		t.Fatalf("FromParamsFile: %v", err)
	}
	if want := Default(); !reflect.DeepEqual(got, want) {
		t.Fatalf("config/decision.yaml parses to\n%+v\nwant Default()\n%+v", got, want)
	}

	data, err := os.ReadFile(decisionYAML)
	if err != nil {
		t.Fatal(err)
	}
	sections, err := parseParamsYAML(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(sections) != 1 || sections[0].node != "/**" {
		t.Fatalf("config/decision.yaml sections = %d, want exactly one /** section", len(sections))
	}
	var inFile, declared []string
	for _, p := range sections[0].params {
		inFile = append(inFile, p.name)
	}
	for _, p := range Parameters() {
		declared = append(declared, p.Name)
	}
	sort.Strings(inFile)
	sort.Strings(declared)
	if !reflect.DeepEqual(inFile, declared) {
		t.Fatalf("config/decision.yaml names\n%q\nwant every declared parameter\n%q", inFile, declared)
	}

	for _, line := range undocumented(string(data)) {
		t.Errorf("config/decision.yaml line %d has no comment", line)
	}
}

// undocumented returns the 1-based numbers of the parameter lines that have
// no comment right above them or above their enclosing block.
func undocumented(doc string) []int {
	var out []int
	lines := strings.Split(doc, "\n")
	isComment := func(k int) bool { return strings.HasPrefix(strings.TrimSpace(lines[k]), "#") }
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if trimmed == "" || isComment(i) || strings.HasSuffix(trimmed, ":") {
			continue
		}
		// Skip the block openers right above the line ("qos:", "state:").
		j := i - 1
		for j >= 0 && !isComment(j) && strings.HasSuffix(strings.TrimSpace(lines[j]), ":") {
			j--
		}
		ok := j >= 0 && isComment(j)
		// Siblings in a block share the comment above the block.
		for k := i - 1; !ok && k >= 0 && strings.TrimSpace(lines[k]) != "" && indent(lines[k]) >= indent(l)-2; k-- {
			ok = isComment(k)
		}
		if !ok {
			out = append(out, i+1)
		}
	}
	return out
}

func TestUndocumented(t *testing.T) {
	doc := "/**:\n  ros__parameters:\n    # ok\n    a: 1\n\n    b: 2\n    c:\n      # ok\n      d: 1\n      e: 2\n"
	if got := undocumented(doc); !reflect.DeepEqual(got, []int{6}) {
		t.Fatalf("undocumented = %v, want [6]", got)
	}
}

func indent(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

func TestDefaultIsValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultValues(t *testing.T) {
	c := Default()
	// Spelled out independently of Default() so a drift is caught.
	checks := []struct {
		name string
		ok   bool
	}{
		{"node", c.NodeName == "decision_node" && c.Namespace == "/"},
		{"topics", maps.Equal(c.Topics, Topics{"state": "/state/nav", "self_assessment": "/self_assessment", "perception_mode": "/perception/mode", "self_assessment_calibrated": "", "action_evidence": "/decisions/evidence", "parameter_events": "/parameter_events", "transition_event": "~/transition_event", "decisions": "/decisions", "diagnostics": "/diagnostics", "actions": "/decisions/actions", "seal": "/decisions/seal"})},
		{"input qos", c.QoS["state"] == qos.Profile{History: qos.HistoryKeepLast, Depth: 10,
			Reliability: qos.ReliabilityReliable, Durability: qos.DurabilityVolatile}},
		{"decisions qos", c.QoS["decisions"] == qos.Profile{History: qos.HistoryKeepLast, Depth: 100,
			Reliability: qos.ReliabilityReliable, Durability: qos.DurabilityTransientLocal}},
		{"diagnostics qos", c.QoS["diagnostics"] == c.QoS["state"] && c.QoS["self_assessment"] == c.QoS["state"] && c.QoS["perception_mode"] == c.QoS["state"]},
		{"policy", c.Policy == "uncertainty_aware_reference_v1"},
		{"timeouts", c.AssessmentTimeout == 100*time.Millisecond && c.DiagnosticsPeriod == time.Second},
		{"pending", c.MaxPendingBeliefs == 1024 && c.MaxPendingAssessments == 1024},
		{"recording", c.Recording == Recording{Path: "", Compression: "zstd", ChunkSize: 786432}},
		{"thresholds", c.Thresholds.PositionKnownStdM == 0.5 && c.Thresholds.PositionUnknownStdM == 2 &&
			c.Thresholds.VelocityKnownStdMps == 0.2 && c.Thresholds.VelocityUnknownStdMps == 1 &&
			c.Thresholds.OrientationKnownStdRad == 0.05 && c.Thresholds.OrientationUnknownStdRad == 0.2},
		{"use_sim_time", !c.UseSimTime},
	}
	for _, ch := range checks {
		if !ch.ok {
			t.Errorf("default %s is not as documented: %+v", ch.name, c)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Config)
		param string
	}{
		{"node name", func(c *Config) { c.NodeName = "" }, "__node"},
		{"namespace", func(c *Config) { c.Namespace = "ns" }, "__ns"},
		{"namespace trailing slash", func(c *Config) { c.Namespace = "/ns/" }, "__ns"},
		{"remap", func(c *Config) { c.Remaps = []Remap{{From: "/a", To: "b c"}} }, "remap"},
		{"topic", func(c *Config) { c.Topics["diagnostics"] = "" }, "topics.diagnostics"},
		{"reliability", func(c *Config) { withQoS(c, "state", func(q *qos.Profile) { q.Reliability = 9 }) }, "qos.state.reliability"},
		{"durability", func(c *Config) { withQoS(c, "self_assessment", func(q *qos.Profile) { q.Durability = 9 }) }, "qos.self_assessment.durability"},
		{"history", func(c *Config) { withQoS(c, "perception_mode", func(q *qos.Profile) { q.History = 9 }) }, "qos.perception_mode.history"},
		{"depth", func(c *Config) { withQoS(c, "diagnostics", func(q *qos.Profile) { q.Depth = 0 }) }, "qos.diagnostics.depth"},
		{"liveliness", func(c *Config) { withQoS(c, "decisions", func(q *qos.Profile) { q.Liveliness = 2 }) }, "qos.decisions"},
		{"negative deadline", func(c *Config) { withQoS(c, "state", func(q *qos.Profile) { q.Deadline = -time.Second }) }, "qos.state"},
		{"policy", func(c *Config) { c.Policy = "" }, "policy"},
		{"assessment timeout", func(c *Config) { c.AssessmentTimeout = 0 }, "assessment_timeout_s"},
		{"diagnostics period", func(c *Config) { c.DiagnosticsPeriod = -time.Second }, "diagnostics_period_s"},
		{"pending beliefs", func(c *Config) { c.MaxPendingBeliefs = maxPending + 1 }, "max_pending_beliefs"},
		{"pending assessments", func(c *Config) { c.MaxPendingAssessments = -1 }, "max_pending_assessments"},
		{"compression", func(c *Config) { c.Recording.Compression = "" }, "recording.compression"},
		{"chunk size", func(c *Config) { c.Recording.ChunkSize = 0 }, "recording.chunk_size"},
		{"recording path", func(c *Config) { c.Recording.Path = "a\x00b" }, "recording.path"},
		{"threshold nan", func(c *Config) { c.Thresholds.OrientationKnownStdRad = math.NaN() }, "thresholds.orientation_known_std_rad"},
		{"threshold order", func(c *Config) { c.Thresholds.PositionUnknownStdM = 0.5 }, "thresholds.position_known_std_m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.edit(&c)
			err := c.Validate()
			var pe *ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("Validate = %v, want a *ParamError", err)
			}
			if pe.Param != tt.param || !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("Validate = %v (param %q), want an invalid value of %q", err, pe.Param, tt.param)
			}
		})
	}
}

func TestParameters(t *testing.T) {
	ps := Parameters()
	if len(ps) != len(params) {
		t.Fatalf("Parameters() has %d entries, want %d", len(ps), len(params))
	}
	// Setting every parameter to its advertised default through -p gives
	// Default(): the advertised defaults and types are the real ones.
	args := []string{"--ros-args"}
	for _, p := range ps {
		if p.Description == "" {
			t.Errorf("parameter %s has no description", p.Name)
		}
		v := p.Default
		if p.Type == TypeString {
			v = "'" + v + "'"
		}
		args = append(args, "-p", p.Name+":="+v)
	}
	got, _, err := FromArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, Default()) {
		t.Fatalf("defaults via -p give %+v, want Default()", got)
	}
	for _, want := range []Parameter{
		{Name: "assessment_timeout_s", Type: TypeDouble, Default: "0.1"},
		{Name: "qos.decisions.durability", Type: TypeString, Default: "transient_local"},
		{Name: "recording.path", Type: TypeString, Default: ""},
		{Name: "use_sim_time", Type: TypeBool, Default: "false"},
		{Name: "diagnostics_period_s", Type: TypeDouble, Default: "1.0"},
		{Name: "max_pending_beliefs", Type: TypeInteger, Default: "1024"},
	} {
		found := false
		for _, p := range ps {
			if p.Name == want.Name {
				found = true
				if p.Type != want.Type || p.Default != want.Default {
					t.Errorf("%s: type %v default %q, want %v %q", p.Name, p.Type, p.Default, want.Type, want.Default)
				}
			}
		}
		if !found {
			t.Errorf("parameter %s not declared", want.Name)
		}
	}
}

func TestFromParamsFile(t *testing.T) {
	c, err := FromParamsFile(testFile("layered.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxPendingBeliefs != 7 || c.MaxPendingAssessments != 5 {
		t.Errorf("FromParamsFile(layered.yaml) pending = %d/%d, want 7/5", c.MaxPendingBeliefs, c.MaxPendingAssessments)
	}
	// Validation failures name the file and the line that set the value.
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(file, []byte("/**:\n  ros__parameters:\n    thresholds.position_known_std_m: 3.0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = FromParamsFile(file)
	if !errors.Is(err, ErrInvalidValue) || !strings.Contains(err.Error(), "c.yaml, node /**, line 3") {
		t.Fatalf("err = %v, want an invalid value naming c.yaml line 3", err)
	}
	if _, err := FromParamsFile(filepath.Join(dir, "missing.yaml")); !errors.Is(err, ErrParamsFile) {
		t.Fatalf("missing file: err = %v, want ErrParamsFile", err)
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		ns, fqn, logger string
	}{
		{"/", "/decision_node", "decision_node"},
		{"/drone1", "/drone1/decision_node", "drone1.decision_node"},
		{"/a/b", "/a/b/decision_node", "a.b.decision_node"},
	}
	for _, tt := range tests {
		c := Default()
		c.Namespace = tt.ns
		if got := c.FullyQualifiedName(); got != tt.fqn {
			t.Errorf("FullyQualifiedName in %s = %q, want %q", tt.ns, got, tt.fqn)
		}
		if got := c.LoggerName(); got != tt.logger {
			t.Errorf("LoggerName in %s = %q, want %q", tt.ns, got, tt.logger)
		}
	}
}

// withQoS edits the QoS profile of one topic key in place.
func withQoS(c *Config, key string, f func(*qos.Profile)) {
	q := c.QoS[key]
	f(&q)
	c.QoS[key] = q
}

// TestCalibratedInputConfig: the calibrated input is off by default;
// setting its topic enables it (resolved like the others) and makes the raw
// assessment input chain only; a vehicle source refuses it.
func TestCalibratedInputConfig(t *testing.T) {
	c := Default()
	for _, in := range c.Inputs() {
		if in.Key == session.KeySelfAssessmentCalibrated || in.ChainOnly {
			t.Fatalf("default inputs %+v", c.Inputs())
		}
	}
	c.Namespace = "/uav"
	c.Topics[session.KeySelfAssessmentCalibrated] = "self_assessment/calibrated"
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	so, err := c.SessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, in := range so.Inputs {
		got[in.Key] = in.Topic
		if in.ChainOnly != (in.Key == session.KeySelfAssessment) {
			t.Errorf("%s ChainOnly %v", in.Key, in.ChainOnly)
		}
	}
	if got[session.KeySelfAssessmentCalibrated] != "/uav/self_assessment/calibrated" || len(got) != len(session.DefaultInputs()) {
		t.Fatalf("inputs %v", got)
	}
	c.Input.Source = SourcePX4
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "topics.self_assessment_calibrated") {
		t.Fatalf("px4 with the calibrated input: %v", err)
	}
}
