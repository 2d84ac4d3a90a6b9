package stdmsgs

import (
	"reflect"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	want := []string{
		"builtin_interfaces/msg/Time",
		"diagnostic_msgs/msg/DiagnosticArray",
		"diagnostic_msgs/msg/DiagnosticStatus",
		"diagnostic_msgs/msg/KeyValue",
		"geometry_msgs/msg/Point",
		"geometry_msgs/msg/PointStamped",
		"geometry_msgs/msg/Quaternion",
		"geometry_msgs/msg/QuaternionStamped",
		"geometry_msgs/msg/Vector3",
		"geometry_msgs/msg/Vector3Stamped",
		"lifecycle_msgs/msg/ChangeStateRequest",
		"lifecycle_msgs/msg/ChangeStateResponse",
		"lifecycle_msgs/msg/GetAvailableStatesResponse",
		"lifecycle_msgs/msg/GetAvailableTransitionsResponse",
		"lifecycle_msgs/msg/GetStateResponse",
		"lifecycle_msgs/msg/State",
		"lifecycle_msgs/msg/Transition",
		"lifecycle_msgs/msg/TransitionDescription",
		"lifecycle_msgs/msg/TransitionEvent",
		"rcl_interfaces/msg/DescribeParametersRequest",
		"rcl_interfaces/msg/DescribeParametersResponse",
		"rcl_interfaces/msg/FloatingPointRange",
		"rcl_interfaces/msg/GetParameterTypesRequest",
		"rcl_interfaces/msg/GetParameterTypesResponse",
		"rcl_interfaces/msg/GetParametersRequest",
		"rcl_interfaces/msg/GetParametersResponse",
		"rcl_interfaces/msg/IntegerRange",
		"rcl_interfaces/msg/ListParametersRequest",
		"rcl_interfaces/msg/ListParametersResponse",
		"rcl_interfaces/msg/ListParametersResult",
		"rcl_interfaces/msg/Log",
		"rcl_interfaces/msg/Parameter",
		"rcl_interfaces/msg/ParameterDescriptor",
		"rcl_interfaces/msg/ParameterEvent",
		"rcl_interfaces/msg/ParameterValue",
		"rcl_interfaces/msg/SetParametersAtomicallyRequest",
		"rcl_interfaces/msg/SetParametersAtomicallyResponse",
		"rcl_interfaces/msg/SetParametersRequest",
		"rcl_interfaces/msg/SetParametersResponse",
		"rcl_interfaces/msg/SetParametersResult",
		"rosgraph_msgs/msg/Clock",
		"std_msgs/msg/Header",
	}
	if got := Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
}

// TestFields pins the field lists the node's diagnostics encode.
func TestFields(t *testing.T) {
	tests := map[string][]string{
		"builtin_interfaces/Time":          {"int32 sec", "uint32 nanosec"},
		"std_msgs/Header":                  {"builtin_interfaces/Time stamp", "string frame_id"},
		"diagnostic_msgs/KeyValue":         {"string key", "string value"},
		"diagnostic_msgs/DiagnosticStatus": {"byte level", "string name", "string message", "string hardware_id", "diagnostic_msgs/KeyValue[] values"},
		"diagnostic_msgs/DiagnosticArray":  {"std_msgs/Header header", "diagnostic_msgs/DiagnosticStatus[] status"},
		"geometry_msgs/PointStamped":       {"std_msgs/Header header", "geometry_msgs/Point point"},
		"geometry_msgs/Vector3Stamped":     {"std_msgs/Header header", "geometry_msgs/Vector3 vector"},
		"geometry_msgs/QuaternionStamped":  {"std_msgs/Header header", "geometry_msgs/Quaternion quaternion"},
		"geometry_msgs/Quaternion":         {"float64 x", "float64 y", "float64 z", "float64 w"},
		"rosgraph_msgs/Clock":              {"builtin_interfaces/Time clock"},
		"rcl_interfaces/Log": {"builtin_interfaces/Time stamp", "uint8 level", "string name", "string msg",
			"string file", "string function", "uint32 line"},
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := Definition(name)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range s.Fields {
				decl := f.Type.String()
				if f.Array != 0 {
					decl += "[]"
				}
				got = append(got, decl+" "+f.Name)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("fields = %q, want %q", got, want)
			}
		})
	}
	s, err := Definition("diagnostic_msgs/msg/DiagnosticStatus")
	if err != nil {
		t.Fatal(err)
	}
	var consts []string
	for _, c := range s.Constants {
		consts = append(consts, c.Type.Name+" "+c.Name+"="+c.Value)
	}
	if want := []string{"byte OK=0", "byte WARN=1", "byte ERROR=2", "byte STALE=3"}; !reflect.DeepEqual(consts, want) {
		t.Errorf("DiagnosticStatus constants = %q, want %q", consts, want)
	}
}

func TestSchemaTextDiagnosticArray(t *testing.T) {
	text := func(n string) string {
		s, err := Text(n)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	sep := "\n" + strings.Repeat("=", 80) + "\nMSG: "
	want := text("diagnostic_msgs/DiagnosticArray") +
		sep + "diagnostic_msgs/DiagnosticStatus\n" + text("diagnostic_msgs/DiagnosticStatus") +
		sep + "diagnostic_msgs/KeyValue\n" + text("diagnostic_msgs/KeyValue") +
		sep + "std_msgs/Header\n" + text("std_msgs/Header") +
		sep + "builtin_interfaces/Time\n" + text("builtin_interfaces/Time")
	got, err := SchemaText("diagnostic_msgs/msg/DiagnosticArray")
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("SchemaText:\n got %q\nwant %q", got, want)
	}
	if !strings.HasPrefix(got, "std_msgs/Header header\nDiagnosticStatus[] status\n\n") {
		t.Errorf("schema does not start with DiagnosticArray's fields: %q", got[:60])
	}
}

// TestOnlyFieldLines keeps the definitions to facts: every line is a
// constant, a field or blank, with no comment, so no other project's prose
// is embedded, generated into code or written into a recording's schema.
func TestOnlyFieldLines(t *testing.T) {
	for _, name := range Names() {
		text, err := Text(name)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := Definition(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := 0
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			switch {
			case strings.Contains(l, "#"):
				t.Errorf("%s: a comment: %q", name, l)
			case strings.TrimSpace(l) != "":
				lines++
			}
		}
		if want := len(spec.Fields) + len(spec.Constants); lines != want {
			t.Errorf("%s: %d non-blank lines, want %d (one per field and constant)", name, lines, want)
		}
	}
}
