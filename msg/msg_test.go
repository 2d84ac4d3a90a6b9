package msg

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"testing/fstest"

	"github.com/ghost-robotics/ghost/internal/golden"

	"github.com/foxglove/mcap/go/mcap"
)

var wantNames = []string{
	"ActionEvidence", "ActionEvidenceItem", "ActionReceipt",
	"AssessmentThresholds", "BeliefSelfAssessment", "CalibratedSelfAssessment", "CalibrationHistory",
	"Decision", "DecisionRationale",
	"FlightStatus", "Goal", "MissionStatus", "NavigationState", "PerceptionMode", "RecordingSeal", "RecordingSealTopic",
	"SensorHealth", "VehicleState",
}

func TestNames(t *testing.T) {
	if got := Names(); !reflect.DeepEqual(got, wantNames) {
		t.Errorf("Names() = %q, want %q", got, wantNames)
	}
	s, err := Ghost()
	if err != nil {
		t.Fatal(err)
	}
	full := s.Names()
	for i, n := range wantNames {
		if full[i] != "ghost/msg/"+n {
			t.Errorf("Set.Names()[%d] = %q, want %q", i, full[i], "ghost/msg/"+n)
		}
	}
}

func TestTextIsFileContent(t *testing.T) {
	for _, n := range wantNames {
		t.Run(n, func(t *testing.T) {
			want, err := os.ReadFile(n + ".msg")
			if err != nil {
				t.Fatal(err)
			}
			got, err := Text(n)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("Text(%q) differs from %s.msg", n, n)
			}
		})
	}
}

func TestDefinitionDecision(t *testing.T) {
	for _, name := range []string{"Decision", "ghost/Decision", "ghost/msg/Decision"} {
		t.Run(name, func(t *testing.T) {
			s, err := Definition(name)
			if err != nil {
				t.Fatal(err)
			}
			if s.FullName() != "ghost/msg/Decision" {
				t.Errorf("FullName = %q", s.FullName())
			}
			var consts []string
			for _, c := range s.Constants {
				consts = append(consts, c.Name+"="+c.Value)
			}
			wantConsts := []string{"KIND_PROCEED=0", "KIND_HOLD=1", "KIND_YIELD_TO_PILOT=2", "KIND_ENGAGE_RTL=3",
				"KIND_ENGAGE_LAND=4", "KIND_ENGAGE_KILL=5", "KIND_ABSTAIN_UNCERTAIN=6"}
			if !reflect.DeepEqual(consts, wantConsts) {
				t.Errorf("constants = %q, want %q", consts, wantConsts)
			}
			want := []Field{
				{Name: "kind", Type: Type{Name: "uint8"}, Line: 11},
				{Name: "decision_stamp_sim_ns", Type: Type{Name: "int64"}, Line: 13},
				{Name: "reason", Type: Type{Name: "string"}, Line: 15},
				{Name: "schema_version", Type: Type{Name: "uint8"}, HasDefault: true, Default: []string{"1"}, Line: 16},
			}
			if !reflect.DeepEqual(s.Fields, want) {
				t.Errorf("fields:\n got %+v\nwant %+v", s.Fields, want)
			}
		})
	}
}

func TestDefinitionReturnsCopy(t *testing.T) {
	a, err := Definition("Goal")
	if err != nil {
		t.Fatal(err)
	}
	a.Fields[0].Name = "mutated"
	b, err := Definition("Goal")
	if err != nil {
		t.Fatal(err)
	}
	if b.Fields[0].Name != "has_position" {
		t.Errorf("a caller's change leaked into the package: %q", b.Fields[0].Name)
	}
}

func TestUnknownNames(t *testing.T) {
	for _, name := range []string{"Nope", "ghost/Nope", "std_msgs/msg/Header", "ghost/srv/Decision", ""} {
		t.Run(name, func(t *testing.T) {
			if _, err := Definition(name); !errors.Is(err, ErrUnknownType) {
				t.Errorf("Definition error = %v, want ErrUnknownType", err)
			}
			if _, err := Text(name); !errors.Is(err, ErrUnknownType) {
				t.Errorf("Text error = %v, want ErrUnknownType", err)
			}
			if _, err := SchemaText(name); !errors.Is(err, ErrUnknownType) {
				t.Errorf("SchemaText error = %v, want ErrUnknownType", err)
			}
		})
	}
}

func TestSchemaName(t *testing.T) {
	for in, want := range map[string]string{
		"Decision": "ghost/msg/Decision", "ghost/Decision": "ghost/msg/Decision", "ghost/msg/Decision": "ghost/msg/Decision",
	} {
		if got := SchemaName(in); got != want {
			t.Errorf("SchemaName(%q) = %q, want %q", in, got, want)
		}
	}
}

func mustText(t *testing.T, name string) string {
	t.Helper()
	s, err := Text(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSchemaTextRule spells the rosbag2 rule out for two types by hand.
func TestSchemaTextRule(t *testing.T) {
	sep := "\n" + strings.Repeat("=", 80) + "\nMSG: ghost/"
	tests := map[string]string{
		"PerceptionMode":    mustText(t, "PerceptionMode"),
		"DecisionRationale": mustText(t, "DecisionRationale") + sep + "Decision\n" + mustText(t, "Decision"),
		// Sorted direct dependencies, each followed by its own (Goal after MissionStatus).
		"VehicleState": mustText(t, "VehicleState") +
			sep + "FlightStatus\n" + mustText(t, "FlightStatus") +
			sep + "MissionStatus\n" + mustText(t, "MissionStatus") +
			sep + "Goal\n" + mustText(t, "Goal") +
			sep + "NavigationState\n" + mustText(t, "NavigationState") +
			sep + "SensorHealth\n" + mustText(t, "SensorHealth"),
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := SchemaText(name)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("SchemaText(%s):\n got %q\nwant %q", name, got, want)
			}
		})
	}
}

// TestSchemaTextMatchesRecording compares with the schemas of a recording
// made by the reference stack.
func TestSchemaTextMatchesRecording(t *testing.T) {
	f, err := os.Open(filepath.Join(golden.Dir(t), "bags", "sample_flight.mcap"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := mcap.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	info, err := r.Info()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range info.Schemas {
		if !strings.HasPrefix(s.Name, "ghost/msg/") {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			if s.Encoding != "ros2msg" {
				t.Errorf("encoding %q", s.Encoding)
			}
			got, err := SchemaText(s.Name)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(s.Data) {
				t.Errorf("SchemaText(%s) differs from the recording:\n got %q\nwant %q", s.Name, got, s.Data)
			}
			if err := CheckSchema(s.Name, string(s.Data)); err != nil {
				t.Errorf("CheckSchema: %v", err)
			}
		})
		checked++
	}
	if checked == 0 {
		t.Fatal("the recording holds no ghost schema")
	}
}

func TestParseSchemaTextRoundTrip(t *testing.T) {
	for _, name := range wantNames {
		t.Run(name, func(t *testing.T) {
			text, err := SchemaText(name)
			if err != nil {
				t.Fatal(err)
			}
			specs, err := ParseSchemaText(SchemaName(name), text)
			if err != nil {
				t.Fatal(err)
			}
			// Every type reachable from name, and nothing else.
			want := reachable(t, name)
			var got []string
			for k := range specs {
				got = append(got, k)
			}
			slices.Sort(got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("types = %q, want %q", got, want)
			}
			for k, spec := range specs {
				def, err := Definition(k)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(spec.Fields, def.Fields) && !sameIgnoringLines(spec.Fields, def.Fields) {
					t.Errorf("%s: fields differ:\n got %+v\nwant %+v", k, spec.Fields, def.Fields)
				}
			}
		})
	}
}

func reachable(t *testing.T, name string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		def, err := Definition(n)
		if err != nil {
			t.Fatal(err)
		}
		if seen[def.FullName()] {
			return
		}
		seen[def.FullName()] = true
		for _, f := range def.Fields {
			if !f.Type.IsPrimitive() {
				walk(f.Type.FullName())
			}
		}
	}
	walk(name)
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sameIgnoringLines(a, b []Field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Line, y.Line = 0, 0
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

func TestParseSchemaTextForms(t *testing.T) {
	sep := strings.Repeat("=", 80)
	goal := mustText(t, "Goal")
	ms := mustText(t, "MissionStatus")
	tests := []struct {
		name, schemaName, text string
		wantErr                string // empty: must parse
	}{
		{"msg form header", "ghost/msg/MissionStatus", ms + "\n" + sep + "\nMSG: ghost/msg/Goal\n" + goal, ""},
		{"short schema name", "ghost/MissionStatus", ms + "\n" + sep + "\nMSG: ghost/Goal\n" + goal, ""},
		{"no blank line before separator", "ghost/msg/MissionStatus", ms + sep + "\nMSG: ghost/Goal\n" + goal, ""},
		{"CRLF", "ghost/msg/MissionStatus", strings.ReplaceAll(ms+"\n"+sep+"\nMSG: ghost/Goal\n"+goal, "\n", "\r\n"), ""},
		{"dependency missing", "ghost/msg/MissionStatus", ms, "lacks the definition of ghost/msg/Goal"},
		{"defined twice", "ghost/msg/MissionStatus", ms + "\n" + sep + "\nMSG: ghost/Goal\n" + goal + "\n" + sep + "\nMSG: ghost/msg/Goal\n" + goal, "defines ghost/msg/Goal twice"},
		{"no MSG line", "ghost/msg/MissionStatus", ms + "\n" + sep + "\nghost/Goal\n" + goal, "want \"MSG: pkg/Name\""},
		{"separator at end", "ghost/msg/MissionStatus", ms + "\n" + sep, "separator without a MSG: line"},
		{"IDL section", "ghost/msg/MissionStatus", ms + "\n" + sep + "\nIDL: ghost/msg/Goal\n", "want \"MSG: pkg/Name\""},
		{"bad dependency name", "ghost/msg/MissionStatus", ms + "\n" + sep + "\nMSG: Goal\n" + goal, "invalid type name"},
		{"bad schema name", "MissionStatus", ms, "invalid type name"},
		{"cycle", "ghost/msg/MissionStatus", ms + "\n" + sep + "\nMSG: ghost/Goal\nMissionStatus m\n", "contains itself"},
		{"syntax error in dependency", "ghost/msg/MissionStatus", ms + "\n" + sep + "\nMSG: ghost/Goal\nbool has_position\nfloat64[3 p\n", "line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := ParseSchemaText(tt.schemaName, tt.text)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if specs["ghost/msg/Goal"] == nil || specs["ghost/msg/MissionStatus"] == nil {
					t.Fatalf("missing types: %v", specs)
				}
				if got := len(specs["ghost/msg/Goal"].Fields); got != 4 {
					t.Errorf("Goal has %d fields, want 4", got)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestParseSchemaTextReportsSchemaLine(t *testing.T) {
	sep := strings.Repeat("=", 80)
	text := "uint8 a\n" + sep + "\nMSG: ghost/Goal\nbool ok\nfloat64[3 p\n"
	_, err := ParseSchemaText("ghost/msg/X", text)
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *ParseError", err)
	}
	if pe.Line != 5 || pe.Type != "ghost/msg/Goal" {
		t.Errorf("error at %s line %d, want ghost/msg/Goal line 5", pe.Type, pe.Line)
	}
}

func TestParseSchemaTextAnyOrder(t *testing.T) {
	sep := "\n" + strings.Repeat("=", 80) + "\nMSG: ghost/"
	text := mustText(t, "VehicleState") +
		sep + "SensorHealth\n" + mustText(t, "SensorHealth") +
		sep + "Goal\n" + mustText(t, "Goal") +
		sep + "NavigationState\n" + mustText(t, "NavigationState") +
		sep + "MissionStatus\n" + mustText(t, "MissionStatus") +
		sep + "FlightStatus\n" + mustText(t, "FlightStatus")
	if err := CheckSchema("ghost/msg/VehicleState", text); err != nil {
		t.Fatalf("CheckSchema: %v", err)
	}
}

func TestCheckSchemaDetectsDifferences(t *testing.T) {
	sep := "\n" + strings.Repeat("=", 80) + "\nMSG: ghost/"
	dec := mustText(t, "Decision")
	rat := mustText(t, "DecisionRationale")
	tests := []struct {
		name, text, want string
	}{
		{"changed nested type", rat + sep + "Decision\n" + strings.Replace(dec, "int64 decision_stamp_sim_ns", "int32 decision_stamp_sim_ns", 1), "field 1"},
		{"renamed field", strings.Replace(rat, "string policy_id", "string policy", 1) + sep + "Decision\n" + dec, "field 3"},
		{"extra field", rat + "uint8 extra\n" + sep + "Decision\n" + dec, "has 6 fields, want 5"},
		{"array kind", rat + sep + "Decision\n" + strings.Replace(dec, "string reason", "string[] reason", 1), "field 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSchema("DecisionRationale", tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	// Comments, constants and defaults do not change the layout.
	plain := strings.Replace(dec, "uint8 KIND_PROCEED=0", "uint8 KIND_GO=0 # renamed", 1)
	plain = strings.Replace(plain, "uint8 schema_version 1", "uint8 schema_version 7", 1)
	if err := CheckSchema("DecisionRationale", "# new comment\n"+rat+sep+"Decision\n"+plain); err != nil {
		t.Errorf("CheckSchema with cosmetic changes: %v", err)
	}
}

func TestSetCrossPackage(t *testing.T) {
	fsys := fstest.MapFS{
		"builtin_interfaces/Time.msg":          {Data: []byte("int32 sec\nuint32 nanosec\n")},
		"std_msgs/Header.msg":                  {Data: []byte("builtin_interfaces/Time stamp\nstring frame_id\n")},
		"diagnostic_msgs/KeyValue.msg":         {Data: []byte("string key\nstring value\n")},
		"diagnostic_msgs/DiagnosticStatus.msg": {Data: []byte("byte OK=0\nbyte level\nKeyValue[] values\n")},
		"diagnostic_msgs/DiagnosticArray.msg":  {Data: []byte("std_msgs/Header header\nDiagnosticStatus[] status\n")},
	}
	s := NewSet()
	if err := s.AddFS(fsys); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	got, err := s.SchemaText("diagnostic_msgs/msg/DiagnosticArray")
	if err != nil {
		t.Fatal(err)
	}
	sep := "\n" + strings.Repeat("=", 80) + "\nMSG: "
	want := "std_msgs/Header header\nDiagnosticStatus[] status\n" +
		sep + "diagnostic_msgs/DiagnosticStatus\nbyte OK=0\nbyte level\nKeyValue[] values\n" +
		sep + "diagnostic_msgs/KeyValue\nstring key\nstring value\n" +
		sep + "std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n" +
		sep + "builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"
	if got != want {
		t.Errorf("SchemaText:\n got %q\nwant %q", got, want)
	}
	if err := s.Add("std_msgs", "Header", "uint8 x"); err == nil {
		t.Error("adding a type twice succeeded")
	}
}

func TestSetValidate(t *testing.T) {
	tests := []struct {
		name  string
		defs  map[string]string
		want  string
		isErr error
	}{
		{"missing type", map[string]string{"A": "B b\n"}, "field b", ErrUnknownType},
		{"self reference", map[string]string{"A": "A a\n"}, "contains itself", nil},
		{"cycle", map[string]string{"A": "B b\n", "B": "C[] c\n", "C": "A a\n"}, "contains itself", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSet()
			for n, text := range tt.defs {
				if err := s.Add("p", n, text); err != nil {
					t.Fatal(err)
				}
			}
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v, want an error containing %q", err, tt.want)
			}
			if tt.isErr != nil && !errors.Is(err, tt.isErr) {
				t.Errorf("error %v does not wrap %v", err, tt.isErr)
			}
			if _, err := s.SchemaText("p/A"); err == nil {
				t.Error("SchemaText of an invalid set succeeded")
			}
		})
	}
}

// TestValidateSharedDependencies walks a chain of diamonds (each type uses
// the next one twice, through two types); without remembering sound types
// the walk would take 2^40 steps.
func TestValidateSharedDependencies(t *testing.T) {
	var b strings.Builder
	b.WriteString("T0L l\nT0R r\n")
	for i := 0; i < 40; i++ {
		for _, side := range []string{"L", "R"} {
			fmt.Fprintf(&b, "\n%s\nMSG: p/T%d%s\nT%dL l\nT%dR r\n", strings.Repeat("=", 80), i, side, i+1, i+1)
		}
	}
	fmt.Fprintf(&b, "\n%s\nMSG: p/T40L\nuint8 x\n%s\nMSG: p/T40R\nuint8 x\n", strings.Repeat("=", 80), strings.Repeat("=", 80))
	specs, err := ParseSchemaText("p/Root", b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 83 {
		t.Errorf("got %d types, want 83", len(specs))
	}
}
