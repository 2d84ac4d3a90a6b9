package ros2msg

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
)

// fuzzSeeds adds the hand-made cases and the golden vectors of one type.
func fuzzSeeds(f *testing.F, schemaName string) {
	for _, c := range cdrCases() {
		if c.msg.SchemaName() == schemaName {
			b, err := hex.DecodeString(stripSpaces(c.hex))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(append([]byte{0, 1, 0, 0}, b...))
		}
	}
	if _, ok := golden.Find(); ok {
		for _, v := range loadGolden(f) {
			if v.Type == schemaName {
				f.Add(v.cdr)
				f.Add(append(append([]byte(nil), v.cdr...), 0, 0))
			}
		}
	}
	f.Add([]byte{0, 1, 0, 0})
	f.Add([]byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
}

func stripSpaces(s string) string {
	return string(bytes.Join(bytes.Fields([]byte(s)), nil))
}

// fuzzDecode checks that decoding never panics and that whatever decodes
// encodes, and decodes again to an equal value with the same bytes.
func fuzzDecode(f *testing.F, schemaName string) {
	fuzzSeeds(f, schemaName)
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := NewCDRMessage(schemaName)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.UnmarshalCDR(data); err != nil {
			return
		}
		enc, err := m.MarshalCDR()
		if err != nil {
			t.Fatalf("decoded %x but cannot encode it: %v", data, err)
		}
		if len(enc) != m.CDRSize() {
			t.Fatalf("CDRSize %d, encoded %d bytes", m.CDRSize(), len(enc))
		}
		m2, _ := NewCDRMessage(schemaName)
		if err := m2.UnmarshalCDR(enc); err != nil {
			t.Fatalf("re-decode of %x: %v", enc, err)
		}
		if d := diffMessages(m, m2); d != "" {
			t.Fatalf("round trip differs: %s", d)
		}
		enc2, err := m2.MarshalCDR()
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("re-encode differs: %x vs %x (%v)", enc, enc2, err)
		}
	})
}

func FuzzDecodeAssessmentThresholds(f *testing.F) { fuzzDecode(f, "ghost/msg/AssessmentThresholds") }
func FuzzDecodeBeliefSelfAssessment(f *testing.F) { fuzzDecode(f, "ghost/msg/BeliefSelfAssessment") }
func FuzzDecodeCalibratedSelfAssessment(f *testing.F) {
	fuzzDecode(f, "ghost/msg/CalibratedSelfAssessment")
}
func FuzzDecodeCalibrationHistory(f *testing.F) { fuzzDecode(f, "ghost/msg/CalibrationHistory") }
func FuzzDecodeDecision(f *testing.F)           { fuzzDecode(f, "ghost/msg/Decision") }
func FuzzDecodeDecisionRationale(f *testing.F)  { fuzzDecode(f, "ghost/msg/DecisionRationale") }
func FuzzDecodeFlightStatus(f *testing.F)       { fuzzDecode(f, "ghost/msg/FlightStatus") }
func FuzzDecodeGoal(f *testing.F)               { fuzzDecode(f, "ghost/msg/Goal") }
func FuzzDecodeMissionStatus(f *testing.F)      { fuzzDecode(f, "ghost/msg/MissionStatus") }
func FuzzDecodeNavigationState(f *testing.F)    { fuzzDecode(f, "ghost/msg/NavigationState") }
func FuzzDecodePerceptionMode(f *testing.F)     { fuzzDecode(f, "ghost/msg/PerceptionMode") }
func FuzzDecodeSensorHealth(f *testing.F)       { fuzzDecode(f, "ghost/msg/SensorHealth") }
func FuzzDecodeVehicleState(f *testing.F)       { fuzzDecode(f, "ghost/msg/VehicleState") }
func FuzzDecodeDiagnosticArray(f *testing.F)    { fuzzDecode(f, "diagnostic_msgs/msg/DiagnosticArray") }
func FuzzDecodeClock(f *testing.F)              { fuzzDecode(f, "rosgraph_msgs/msg/Clock") }
func FuzzDecodeLog(f *testing.F)                { fuzzDecode(f, "rcl_interfaces/msg/Log") }
