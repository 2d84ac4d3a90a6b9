package ros2msg

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"

	"github.com/ghost-robotics/ghost/msg"
	"github.com/ghost-robotics/ghost/pkg/wire/stdmsgs"
)

func TestGoldenDecode(t *testing.T) {
	for _, v := range loadGolden(t) {
		t.Run(v.name, func(t *testing.T) {
			got, err := NewCDRMessage(v.Type)
			if err != nil {
				t.Fatal(err)
			}
			if err := got.UnmarshalCDR(v.cdr); err != nil {
				t.Fatalf("UnmarshalCDR: %v", err)
			}
			if d := diffMessages(got, v.msg); d != "" {
				t.Errorf("decoded value differs: %s", d)
			}
		})
	}
}

func TestGoldenEncode(t *testing.T) {
	for _, v := range loadGolden(t) {
		t.Run(v.name, func(t *testing.T) {
			got, err := v.msg.MarshalCDR()
			if err != nil {
				t.Fatalf("MarshalCDR: %v", err)
			}
			if !bytes.Equal(got, v.cdr) {
				t.Errorf("MarshalCDR:\n got %x\nwant %x", got, v.cdr)
			}
			if n := v.msg.CDRSize(); n != len(v.cdr) {
				t.Errorf("CDRSize = %d, want %d", n, len(v.cdr))
			}
			// Alignment counts from the header, wherever it sits in buf.
			prefix := []byte("odd")
			app, err := v.msg.AppendCDR(slices.Clone(prefix))
			if err != nil {
				t.Fatalf("AppendCDR: %v", err)
			}
			if !bytes.Equal(app, append(slices.Clone(prefix), v.cdr...)) {
				t.Errorf("AppendCDR after a 3-byte prefix:\n got %x\nwant %x%x", app, prefix, v.cdr)
			}
		})
	}
}

// cdrCase is a hand-made pair of a value and its serialization, shared by
// the encode and decode tests.
type cdrCase struct {
	name string
	msg  CDRMessage
	hex  string // after the 00 01 00 00 header; spaces for readability
}

func zeros(n int) string { return strings.Repeat("00", n) }

// f64 is the little-endian hex of a float64, written from its bit pattern.
func f64(bits uint64) string {
	var b [8]byte
	for i := range b {
		b[i] = byte(bits >> (8 * i))
	}
	return hex.EncodeToString(b[:])
}

func cdrCases() []cdrCase {
	goal := Goal{HasPosition: true, PositionEnuM: [3]float64{1, -2, 0.5}, YawRad: math.Copysign(0, -1), MetadataJSON: "{}"}
	goalHex := "01" + zeros(7) + // has_position, pad to 8
		f64(0x3ff0000000000000) + f64(0xc000000000000000) + f64(0x3fe0000000000000) + // position
		f64(0x8000000000000000) + // yaw -0.0
		"03000000 7b7d00" // "{}"
	return []cdrCase{
		{"PerceptionMode", &PerceptionMode{StampSimNs: 5, Mode: PerceptionModeModeVIOLost},
			"0500000000000000 04"},
		{"Decision", &Decision{Kind: DecisionKindYieldToPilot, DecisionStampSimNs: -1, Reason: "ab", SchemaVersion: 1},
			"02" + zeros(7) + "ffffffffffffffff 03000000 616200 01"},
		{"Decision empty reason", &Decision{},
			zeros(8) + zeros(8) + "01000000 00 00"},
		{"SensorHealth", &SensorHealth{SensorID: "imu0", Health: SensorHealthHealthFaulty},
			"05000000 696d753000 02"},
		{"FlightStatus", &FlightStatus{Armed: true, FlightMode: FlightStatusModeRTL, BatteryV: 12.5,
			BatteryPct: math.Float64frombits(goldenNaN), ErrorFlags: 1 << 63},
			"01 04" + zeros(6) + f64(0x4029000000000000) + f64(goldenNaN) + "0000000000000080"},
		{"Goal", &goal, goalHex},
		{"MissionStatus with goal", &MissionStatus{Mode: MissionStatusModeNavigate,
			CurrentGoal: []Goal{{MetadataJSON: ""}}, Progress: 0.25, StartedSimNs: -1},
			"02 000000 01000000" + // mode, pad, count at 4
				"00" + zeros(7) + zeros(24) + zeros(8) + "01000000 00" + // goal at 8, ends at 53
				"000000" + f64(0x3fd0000000000000) + "ffffffffffffffff"},
		{"MissionStatus without goal", &MissionStatus{},
			"00 000000 00000000" + zeros(8) + zeros(8)},
		{"AssessmentThresholds", &AssessmentThresholds{PositionKnownStdM: 1, PositionUnknownStdM: 2,
			VelocityKnownStdMps: 0.5, VelocityUnknownStdMps: 4, OrientationKnownStdRad: 0.25,
			OrientationUnknownStdRad: math.Inf(1), SchemaVersion: 1},
			f64(0x3ff0000000000000) + f64(0x4000000000000000) + f64(0x3fe0000000000000) +
				f64(0x4010000000000000) + f64(0x3fd0000000000000) + f64(0x7ff0000000000000) + "01"},
		{"DecisionRationale", &DecisionRationale{
			Decision:         Decision{Kind: DecisionKindHold, DecisionStampSimNs: 7, Reason: "x", SchemaVersion: 1},
			BeliefStampSimNs: 7, SelfAssessmentSHA256: "", PolicyID: "p", SchemaVersion: 1},
			"01" + zeros(7) + "0700000000000000 02000000 7800 01" + // decision, ends at 23
				"00 0700000000000000" + // pad to 24, belief stamp
				"01000000 00" + // empty sha, ends at 37
				"000000 02000000 7000" + // pad to 40, "p"
				"01"},
		{"BeliefSelfAssessment", &BeliefSelfAssessment{
			BeliefStampSimNs:       2,
			PositionAxisXStdM:      math.Float64frombits(goldenNaN),
			OrientationAxisZStdRad: 1,
			PositionAxisXLevel:     BeliefSelfAssessmentLevelUnknown,
			OverallLevel:           BeliefSelfAssessmentLevelUncertain,
			ThresholdsUsed:         AssessmentThresholds{PositionKnownStdM: 0.5, SchemaVersion: 1},
			ThresholdsSHA256:       "ab",
			CovarianceAvailable:    true,
			SchemaVersion:          1,
		},
			"0200000000000000" + f64(goldenNaN) + zeros(7*8) + f64(0x3ff0000000000000) + // stamp, 9 stds: 0..80
				"02" + zeros(8) + // 9 levels: 80..89
				"000000 01" + // 4 overall levels: 89..93
				"000000" + f64(0x3fe0000000000000) + zeros(5*8) + "01" + // thresholds: pad to 96, 96..145
				"000000 03000000 616200" + // pad to 148, "ab": 148..155
				"01 01"},
		{"CalibrationHistory", &CalibrationHistory{OutcomesConsidered: 5, CountWithin1Std: 1, CountBeyond1Std: 2,
			CountBeyond3Std: 3, CountBeyond5Std: 4, WorstPositionMahalanobis: 0.5, WorstOrientationMahalanobis: math.Inf(1),
			MostRecentObservedStampSimNs: -1, SchemaVersion: 1},
			"0500000000000000 0100000000000000 0200000000000000 0300000000000000 0400000000000000" + // counts: 0..40
				f64(0x3fe0000000000000) + f64(0x7ff0000000000000) + // worst distances: 40..56
				"ffffffffffffffff 01"}, // newest stamp: 56..64, schema_version
		{"CalibratedSelfAssessment", &CalibratedSelfAssessment{
			RawAssessment: BeliefSelfAssessment{
				BeliefStampSimNs:       2,
				PositionAxisXStdM:      math.Float64frombits(goldenNaN),
				OrientationAxisZStdRad: 1,
				PositionAxisXLevel:     BeliefSelfAssessmentLevelUnknown,
				OverallLevel:           BeliefSelfAssessmentLevelUncertain,
				ThresholdsUsed:         AssessmentThresholds{PositionKnownStdM: 0.5, SchemaVersion: 1},
				ThresholdsSHA256:       "ab",
				CovarianceAvailable:    true,
				SchemaVersion:          1,
			},
			AdjustedOverallLevel: CalibratedSelfAssessmentLevelUnknown, AdjustmentPolicyID: "p", AdjustmentReason: "r",
			CalibrationHistory: CalibrationHistory{OutcomesConsidered: 9, MostRecentObservedStampSimNs: 3, SchemaVersion: 1},
			SchemaVersion:      1,
		},
			"0200000000000000" + f64(goldenNaN) + zeros(7*8) + f64(0x3ff0000000000000) + // raw: as BeliefSelfAssessment, 0..157
				"02" + zeros(8) + "000000 01" + "000000" + f64(0x3fe0000000000000) + zeros(5*8) + "01" +
				"000000 03000000 616200" + "01 01" +
				"02 0000 02000000 7000" + // adjusted level at 157, pad to 160, "p": 160..166
				"0000 02000000 7200" + // pad to 168, "r": 168..174
				"0000 0900000000000000" + zeros(4*8) + zeros(2*8) + // pad to 176, history counts and distances: 176..232
				"0300000000000000 01" + // newest stamp: 232..240, history schema_version at 240
				"01"}, // schema_version at 241
		{"NavigationState", &NavigationState{OrientationQ: [4]float64{1, 0, 0, 0}, Covariance15x15: []float64{0.5}},
			zeros(24) + f64(0x3ff0000000000000) + zeros(24*8) + // 28 fixed values: 0..224
				"01000000" + zeros(4) + f64(0x3fe0000000000000)}, // count at 224, pad to 232
		{"VehicleState", &VehicleState{StampSimNs: 1, StampWallNs: -2,
			Sensors: []SensorHealth{{SensorID: "a", Health: 1}, {SensorID: "b", Health: 3}},
			Flight:  FlightStatus{FlightMode: 1}},
			"0100000000000000 feffffffffffffff" + zeros(224) + "00000000" + // stamps, nav: 16..244
				"02000000 02000000 6100 01" + // sensors: count at 244, sensor 0 at 248..255
				"00 02000000 6200 03" + // pad to 256, sensor 1: 256..263
				"00 01" + zeros(7) + zeros(24) + // flight at 263: armed, mode, pad to 272, 272..296
				"00 000000 00000000" + zeros(16)}, // mission at 296
		{"DiagnosticArray", &DiagnosticArray{
			Header: RosHeader{Stamp: RosTime{Sec: -1, Nanosec: 5}},
			Status: []DiagnosticStatus{{Level: DiagnosticStatusError, Name: "n",
				Values: []DiagnosticKeyValue{{Key: "k", Value: "v"}}}}},
			"ffffffff 05000000 01000000 00" + // stamp, frame_id "": 0..13
				"000000 01000000" + // pad to 16, status count
				"02 000000 02000000 6e00" + // level at 20, name at 24..30
				"0000 01000000 00" + // pad to 32, message ""
				"000000 01000000 00" + // pad to 40, hardware_id ""
				"000000 01000000" + // pad to 48, values count
				"02000000 6b00 0000 02000000 7600"}, // key at 52..58, pad, value at 60..66
		// The next two equal what rclpy's serialize_message gives for the
		// same values on Humble (rmw_cyclonedds).
		{"Clock", &RosClock{Clock: RosTime{Sec: 1700000000, Nanosec: 5}},
			"00f15365 05000000"},
		{"Log", &RosLog{Stamp: RosTime{Sec: 1, Nanosec: 2}, Level: RosLogWarn, Name: "n", Msg: "hi",
			File: "f.go", Function: "F", Line: 7},
			"01000000 02000000 1e 000000" + // stamp, level at 8, pad to 12
				"02000000 6e00 0000" + // name at 12..22, pad to 24
				"03000000 686900 00" + // msg at 24..31, pad to 32
				"05000000 662e676f00 000000" + // file at 32..41, pad to 44
				"02000000 4600 0000" + // function at 44..50, pad to 52
				"07000000"}, // line at 52
	}
}

func caseBytes(t *testing.T, c cdrCase) []byte {
	return append([]byte{0, 1, 0, 0}, mustHex(t, c.hex)...)
}

func TestCasesEncode(t *testing.T) {
	for _, c := range cdrCases() {
		t.Run(c.name, func(t *testing.T) {
			want := caseBytes(t, c)
			got, err := c.msg.MarshalCDR()
			if err != nil {
				t.Fatalf("MarshalCDR: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("MarshalCDR:\n got %x\nwant %x", got, want)
			}
			if n := c.msg.CDRSize(); n != len(want) {
				t.Errorf("CDRSize = %d, want %d", n, len(want))
			}
		})
	}
}

func TestCasesDecode(t *testing.T) {
	for _, c := range cdrCases() {
		t.Run(c.name, func(t *testing.T) {
			got, err := NewCDRMessage(c.msg.SchemaName())
			if err != nil {
				t.Fatal(err)
			}
			if err := got.UnmarshalCDR(caseBytes(t, c)); err != nil {
				t.Fatalf("UnmarshalCDR: %v", err)
			}
			if d := diffMessages(got, c.msg); d != "" {
				t.Errorf("decoded value differs: %s", d)
			}
		})
	}
}

// allVectors returns the hand-made cases and, when present, the golden
// vectors, as (name, message, bytes).
func allVectors(t *testing.T) []goldenVector {
	var out []goldenVector
	for _, c := range cdrCases() {
		out = append(out, goldenVector{name: "case/" + c.name, Type: c.msg.SchemaName(), msg: c.msg, cdr: caseBytes(t, c)})
	}
	if _, ok := golden.Find(); ok {
		out = append(out, loadGolden(t)...)
	}
	return out
}

func TestTruncatedAtEveryOffset(t *testing.T) {
	for _, v := range allVectors(t) {
		t.Run(v.name, func(t *testing.T) {
			m, err := NewCDRMessage(v.Type)
			if err != nil {
				t.Fatal(err)
			}
			for n := 0; n < len(v.cdr); n++ {
				err := m.UnmarshalCDR(v.cdr[:n])
				if !errors.Is(err, ErrCDRTruncated) {
					t.Fatalf("UnmarshalCDR of the first %d of %d bytes: error %v, want ErrCDRTruncated", n, len(v.cdr), err)
				}
				var de *DecodeError
				if !errors.As(err, &de) || de.Type != v.Type || de.Offset > n {
					t.Fatalf("first %d bytes: error %#v, want a *DecodeError of %s at offset <= %d", n, err, v.Type, n)
				}
			}
		})
	}
}

func TestTrailingBytes(t *testing.T) {
	for _, v := range allVectors(t) {
		t.Run(v.name, func(t *testing.T) {
			// rmw_fastrtps' rmw_serialize returns its size estimate's
			// length: exactly slack zero bytes more, and nothing else.
			slack := fastrtpsSlack(v.msg)
			tests := []struct {
				name  string
				extra []byte
				ok    bool
			}{
				{"one zero", []byte{0}, true},
				{"two zeros", []byte{0, 0}, true},
				{"three zeros", []byte{0, 0, 0}, true},
				{"four zeros", []byte{0, 0, 0, 0}, slack == 4},
				{"nonzero byte", []byte{1}, false},
				{"zero then nonzero", []byte{0, 0, 7}, false},
				{"fast dds estimate", make([]byte, slack), true},
				{"fast dds estimate and four more", make([]byte, slack+4), false},
				{"fast dds estimate, last byte not zero", append(make([]byte, max(slack-1, 0)), 9), false},
			}
			for _, tt := range tests {
				m, err := NewCDRMessage(v.Type)
				if err != nil {
					t.Fatal(err)
				}
				err = m.UnmarshalCDR(append(slices.Clone(v.cdr), tt.extra...))
				if tt.ok {
					if err != nil {
						t.Errorf("%s: %v", tt.name, err)
					} else if d := diffMessages(m, v.msg); d != "" {
						t.Errorf("%s: decoded value differs: %s", tt.name, d)
					}
					continue
				}
				var de *DecodeError
				if !errors.Is(err, ErrCDRTrailingBytes) || !errors.As(err, &de) || de.Field != "" || de.Offset < len(v.cdr) {
					t.Errorf("%s: error %v, want ErrCDRTrailingBytes after offset %d", tt.name, err, len(v.cdr))
				}
			}
		})
	}
}

func TestEncapsulation(t *testing.T) {
	body := mustHex(t, "0500000000000000 04")
	tests := []struct {
		header string
		want   string // "" for success
	}{
		{"00010000", ""},
		{"00010003", ""}, // options are ignored
		{"00020000", "0x0002 (PL_CDR_BE)"},
		{"00030000", "0x0003 (PL_CDR_LE)"},
		{"00060000", "0x0006 (CDR2_BE)"},
		{"00070000", "0x0007 (CDR2_LE)"},
		{"00080000", "0x0008 (D_CDR2_BE)"},
		{"00090000", "0x0009 (D_CDR2_LE)"},
		{"000a0000", "0x000a (PL_CDR2_BE)"},
		{"000b0000", "0x000b (PL_CDR2_LE)"},
		{"01010000", "0x0101 (unknown)"},
		{"ffff0000", "0xffff (unknown)"},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			var m PerceptionMode
			err := m.UnmarshalCDR(append(mustHex(t, tt.header), body...))
			if tt.want == "" {
				if err != nil || m.StampSimNs != 5 || m.Mode != 4 {
					t.Fatalf("got %+v, %v", m, err)
				}
				return
			}
			if !errors.Is(err, ErrCDREncapsulation) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want ErrCDREncapsulation naming %s", err, tt.want)
			}
		})
	}
}

func TestBigEndianDecode(t *testing.T) {
	tests := []struct {
		name string
		hex  string // header included
		want CDRMessage
	}{
		{"PerceptionMode", "00000000 0000000000000005 03", &PerceptionMode{StampSimNs: 5, Mode: 3}},
		{"Decision", "00000000 02" + zeros(7) + "fffffffffffffffe 00000003 616200 01",
			&Decision{Kind: 2, DecisionStampSimNs: -2, Reason: "ab", SchemaVersion: 1}},
		{"FlightStatus", "00000000 01 04" + zeros(6) + "4029000000000000 7ff8000000000000 8000000000000001",
			&FlightStatus{Armed: true, FlightMode: 4, BatteryV: 12.5, BatteryPct: math.Float64frombits(goldenNaN), ErrorFlags: 1<<63 + 1}},
		{"NavigationState", "00000000" + zeros(24) + "3ff0000000000000" + zeros(24*8) + "00000002" + zeros(4) + "3fe0000000000000 bff0000000000000",
			&NavigationState{OrientationQ: [4]float64{1}, Covariance15x15: []float64{0.5, -1}}},
		{"RosTime", "00000000 fffffffe 00000007", &RosTime{Sec: -2, Nanosec: 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewCDRMessage(tt.want.SchemaName())
			if err != nil {
				t.Fatal(err)
			}
			if err := got.UnmarshalCDR(mustHex(t, tt.hex)); err != nil {
				t.Fatal(err)
			}
			if d := diffMessages(got, tt.want); d != "" {
				t.Errorf("decoded value differs: %s", d)
			}
		})
	}
}

// TestDecodeErrors checks the sentinel, field path and offset of malformed
// input.
func TestDecodeErrors(t *testing.T) {
	vsWithGoal := func(metadata string) string {
		// A VehicleState with one goal whose metadata string is given raw.
		return "0001 0000" + zeros(16) + zeros(224) + "00000000" + // stamps, nav: 16..244
			"00000000" + // no sensors: 244..248
			"00 00" + zeros(6) + zeros(24) + // flight at 248..280
			"00 000000 01000000" + // mission at 280: mode, pad, count at 284..288
			"00" + zeros(7) + zeros(32) + metadata // goal at 288: bool, pad to 296, 296..328, string at 328
	}
	tests := []struct {
		name   string
		schema string
		hex    string
		want   error
		field  string
		offset int
	}{
		{"bool 2", "ghost/msg/Goal", "00010000 02", ErrCDRInvalidBool, "has_position", 4},
		{"nested bool", "ghost/msg/VehicleState", "00010000" + zeros(16) + zeros(224) + "00000000 00000000 ff", ErrCDRInvalidBool, "flight.armed", 4 + 248},
		{"string length 0", "ghost/msg/SensorHealth", "00010000 00000000", ErrCDRBadString, "sensor_id", 4},
		{"string without NUL", "ghost/msg/SensorHealth", "00010000 02000000 6162 00", ErrCDRBadString, "sensor_id", 9},
		{"string with inner NUL", "ghost/msg/SensorHealth", "00010000 04000000 61006200 00", ErrCDRBadString, "sensor_id", 9},
		{"string longer than data", "ghost/msg/SensorHealth", "00010000 ffffffff 6100", ErrCDRTruncated, "sensor_id", 4},
		{"bounded sequence over bound", "ghost/msg/MissionStatus", "00010000 00 000000 02000000" + zeros(128), ErrCDRBound, "current_goal", 8},
		{"sequence count over data", "ghost/msg/NavigationState", "00010000" + zeros(224) + "ffffffff", ErrCDRTruncated, "covariance_15x15", 228},
		{"sequence of messages over data", "ghost/msg/VehicleState", "00010000" + zeros(16) + zeros(224) + "00000000 ffffffff", ErrCDRTruncated, "sensors", 4 + 244},
		{"element string in sequence", "ghost/msg/VehicleState", "00010000" + zeros(16) + zeros(224) + "00000000 02000000 02000000 6100 00 00 00000000", ErrCDRBadString, "sensors[1].sensor_id", 4 + 256},
		{"nested metadata missing NUL", "ghost/msg/VehicleState", vsWithGoal("03000000 7b7d7d") + zeros(16), ErrCDRBadString, "mission.current_goal[0].metadata_json", 4 + 334},
		{"nested metadata truncated", "ghost/msg/VehicleState", vsWithGoal("03000000 7b7d"), ErrCDRTruncated, "mission.current_goal[0].metadata_json", 4 + 328},
		{"diagnostic key value", "diagnostic_msgs/msg/DiagnosticArray", "00010000" + zeros(8) + "01000000 00 000000 01000000 00 000000" +
			"01000000 00 000000 01000000 00 000000 01000000 00 000000 01000000 00000000" + zeros(8), ErrCDRBadString, "status[0].values[0].key", 4 + 52},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewCDRMessage(tt.schema)
			if err != nil {
				t.Fatal(err)
			}
			before, _ := m.MarshalCDR()
			err = m.UnmarshalCDR(mustHex(t, tt.hex))
			var de *DecodeError
			if !errors.Is(err, tt.want) || !errors.As(err, &de) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if de.Type != tt.schema || de.Field != tt.field || de.Offset != tt.offset {
				t.Errorf("error at %s %q offset %d, want %s %q offset %d (%v)", de.Type, de.Field, de.Offset, tt.schema, tt.field, tt.offset, err)
			}
			if !strings.Contains(err.Error(), tt.field) {
				t.Errorf("message %q does not name the field", err)
			}
			if after, _ := m.MarshalCDR(); !bytes.Equal(before, after) {
				t.Error("a failed decode changed the message")
			}
		})
	}
}

// TestHostileCountsDoNotAllocate checks that announced sizes larger than the
// data fail before anything of that size is allocated.
func TestHostileCountsDoNotAllocate(t *testing.T) {
	tests := []struct {
		name, schema, hex string
	}{
		{"covariance count", "ghost/msg/NavigationState", "00010000" + zeros(224) + "ffffffff"},
		{"sensor count", "ghost/msg/VehicleState", "00010000" + zeros(16) + zeros(224) + "00000000 ffffffff" + zeros(64)},
		{"status count", "diagnostic_msgs/msg/DiagnosticArray", "00010000" + zeros(8) + "01000000 00 000000 ffffff7f"},
		{"string length", "ghost/msg/Decision", "00010000" + zeros(16) + "ffffffff 00"},
		{"count just above the data", "ghost/msg/NavigationState", "00010000" + zeros(224) + "03000000" + zeros(20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := mustHex(t, tt.hex)
			m, err := NewCDRMessage(tt.schema)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.UnmarshalCDR(data); !errors.Is(err, ErrCDRTruncated) {
				t.Fatalf("error %v, want ErrCDRTruncated", err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			allocs := testing.AllocsPerRun(20, func() { _ = m.UnmarshalCDR(data) })
			runtime.ReadMemStats(&after)
			if allocs > 8 {
				t.Errorf("%v allocations per failed decode, want only the error's", allocs)
			}
			if perRun := (after.TotalAlloc - before.TotalAlloc) / 21; perRun > 4096 {
				t.Errorf("%d bytes allocated per failed decode", perRun)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name  string
		msg   CDRMessage
		want  error
		field string
	}{
		{"NUL in string", &Decision{Reason: "a\x00b"}, ErrCDRBadString, "reason"},
		{"nested string", &DecisionRationale{Decision: Decision{Reason: "\x00"}}, ErrCDRBadString, "decision.reason"},
		{"sequence element", &VehicleState{Sensors: []SensorHealth{{SensorID: "ok"}, {SensorID: "x\x00"}}}, ErrCDRBadString, "sensors[1].sensor_id"},
		{"bounded sequence", &MissionStatus{CurrentGoal: make([]Goal, 2)}, ErrCDRBound, "current_goal"},
		{"deep", &VehicleState{Mission: MissionStatus{CurrentGoal: []Goal{{MetadataJSON: "\x00"}}}}, ErrCDRBadString, "mission.current_goal[0].metadata_json"},
		{"diagnostics", &DiagnosticArray{Status: []DiagnosticStatus{{Values: []DiagnosticKeyValue{{}, {Value: "\x00"}}}}}, ErrCDRBadString, "status[0].values[1].value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []byte{9, 9}
			out, err := tt.msg.AppendCDR(prefix)
			var ee *EncodeError
			if !errors.Is(err, tt.want) || !errors.As(err, &ee) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if ee.Type != tt.msg.SchemaName() || ee.Field != tt.field {
				t.Errorf("error names %s %q, want %s %q", ee.Type, ee.Field, tt.msg.SchemaName(), tt.field)
			}
			if !bytes.Equal(out, prefix) {
				t.Errorf("AppendCDR returned %x on error, want the original %x", out, prefix)
			}
			if _, err := tt.msg.MarshalCDR(); !errors.Is(err, tt.want) {
				t.Errorf("MarshalCDR error %v, want %v", err, tt.want)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	if m := NewDecision(); m.SchemaVersion != 1 || m.Kind != DecisionKindProceed || m.Reason != "" {
		t.Errorf("NewDecision() = %+v", m)
	}
	r := NewDecisionRationale()
	if r.SchemaVersion != 1 || r.Decision.SchemaVersion != 1 {
		t.Errorf("NewDecisionRationale() = %+v", r)
	}
	a := NewBeliefSelfAssessment()
	if a.SchemaVersion != 1 || a.ThresholdsUsed.SchemaVersion != 1 {
		t.Errorf("NewBeliefSelfAssessment() = %+v", a)
	}
	if th := NewAssessmentThresholds(); th.SchemaVersion != 1 {
		t.Errorf("NewAssessmentThresholds() = %+v", th)
	}
	d := Decision{Kind: 3, Reason: "x"}
	d.Reset()
	if d != NewDecision() {
		t.Errorf("Reset gave %+v", d)
	}
	// A type is zero by default exactly when nothing in it has a default.
	for _, name := range CDRSchemaNames() {
		m, err := NewCDRMessage(name)
		if err != nil {
			t.Fatal(err)
		}
		if zero, want := reflect.ValueOf(m).Elem().IsZero(), !hasDefaults(t, name); zero != want {
			t.Errorf("%s: default is zero: %v, want %v", name, zero, want)
		}
	}
}

func hasDefaults(t *testing.T, schemaName string) bool {
	spec, err := specOf(schemaName)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range spec.Fields {
		if (f.HasDefault && !zeroDefault(f.Default)) || (!f.Type.IsPrimitive() && f.Array == msg.NotArray && hasDefaults(t, f.Type.FullName())) {
			return true
		}
	}
	return false
}

// zeroDefault reports whether a scalar default is its type's zero value
// (rcl_interfaces/ParameterDescriptor spells out "bool read_only false"),
// which leaves the Go value zero.
func zeroDefault(def []string) bool {
	if len(def) != 1 {
		return false
	}
	switch def[0] {
	case "false", "0", "0.0", "":
		return true
	}
	return false
}

func TestConstants(t *testing.T) {
	// The generated constants carry the values of the definitions.
	got := map[string]uint8{
		"ghost/msg/Decision.KIND_PROCEED":               DecisionKindProceed,
		"ghost/msg/Decision.KIND_HOLD":                  DecisionKindHold,
		"ghost/msg/Decision.KIND_YIELD_TO_PILOT":        DecisionKindYieldToPilot,
		"ghost/msg/Decision.KIND_ENGAGE_RTL":            DecisionKindEngageRTL,
		"ghost/msg/Decision.KIND_ENGAGE_LAND":           DecisionKindEngageLand,
		"ghost/msg/Decision.KIND_ENGAGE_KILL":           DecisionKindEngageKill,
		"ghost/msg/Decision.KIND_ABSTAIN_UNCERTAIN":     DecisionKindAbstainUncertain,
		"ghost/msg/BeliefSelfAssessment.LEVEL_UNKNOWN":  BeliefSelfAssessmentLevelUnknown,
		"ghost/msg/FlightStatus.MODE_KILL":              FlightStatusModeKill,
		"ghost/msg/MissionStatus.MODE_ABORT":            MissionStatusModeAbort,
		"ghost/msg/PerceptionMode.MODE_PERCEPTION_DEAD": PerceptionModeModePerceptionDead,
		"ghost/msg/SensorHealth.HEALTH_OFFLINE":         SensorHealthHealthOffline,
		"diagnostic_msgs/msg/DiagnosticStatus.STALE":    DiagnosticStatusStale,
		"diagnostic_msgs/msg/DiagnosticStatus.OK":       DiagnosticStatusOK,
		"rcl_interfaces/msg/Log.DEBUG":                  RosLogDebug,
		"rcl_interfaces/msg/Log.INFO":                   RosLogInfo,
		"rcl_interfaces/msg/Log.WARN":                   RosLogWarn,
		"rcl_interfaces/msg/Log.ERROR":                  RosLogError,
		"rcl_interfaces/msg/Log.FATAL":                  RosLogFatal,
	}
	for key, v := range got {
		typ, name, _ := strings.Cut(key, ".")
		spec, err := specOf(typ)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, c := range spec.Constants {
			if c.Name == name {
				found = true
				if c.Value != strconv.Itoa(int(v)) {
					t.Errorf("%s = %d, definition says %s", key, v, c.Value)
				}
			}
		}
		if !found {
			t.Errorf("%s not in the definition", key)
		}
	}
}

func TestRegistry(t *testing.T) {
	var want []string
	for _, n := range msg.Names() {
		want = append(want, msg.SchemaName(n))
	}
	want = append(want, stdmsgs.Names()...)
	slices.Sort(want)
	if got := CDRSchemaNames(); !slices.Equal(got, want) {
		t.Fatalf("CDRSchemaNames() = %q, want %q", got, want)
	}
	for _, name := range want {
		m, err := NewCDRMessage(name)
		if err != nil {
			t.Fatal(err)
		}
		if m.SchemaName() != name {
			t.Errorf("NewCDRMessage(%q).SchemaName() = %q", name, m.SchemaName())
		}
	}
	if _, err := NewCDRMessage("ghost/Decision"); err == nil {
		t.Error("NewCDRMessage accepted a name without /msg/")
	}
	names := CDRSchemaNames()
	names[0] = "changed"
	if CDRSchemaNames()[0] == "changed" {
		t.Error("CDRSchemaNames returned the package's own slice")
	}
}

// TestEmptySequencesDecodeToNil pins that empty sequences cost no allocation.
func TestEmptySequencesDecodeToNil(t *testing.T) {
	var m VehicleState
	m.Sensors = []SensorHealth{{SensorID: "old"}}
	data, err := (&VehicleState{}).MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.UnmarshalCDR(data); err != nil {
		t.Fatal(err)
	}
	if m.Sensors != nil || m.Nav.Covariance15x15 != nil || m.Mission.CurrentGoal != nil {
		t.Errorf("empty sequences decoded as %#v %#v %#v", m.Sensors, m.Nav.Covariance15x15, m.Mission.CurrentGoal)
	}
}

func TestDecodeErrorText(t *testing.T) {
	e := &DecodeError{Type: "ghost/msg/Goal", Field: "has_position", Offset: 4, Err: ErrCDRInvalidBool}
	if got, want := e.Error(), "cdr: decode ghost/msg/Goal field has_position at offset 4: invalid bool"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e = &DecodeError{Type: "ghost/msg/Goal", Offset: 2, Err: ErrCDRTruncated}
	if got, want := e.Error(), "cdr: decode ghost/msg/Goal at offset 2: truncated data"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	ee := &EncodeError{Type: "ghost/msg/Goal", Field: "metadata_json", Err: ErrCDRBadString}
	if got, want := ee.Error(), "cdr: encode ghost/msg/Goal field metadata_json: malformed string"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
