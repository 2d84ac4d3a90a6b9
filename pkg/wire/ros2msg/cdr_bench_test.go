package ros2msg

import (
	"testing"
)

// benchVehicleState is a full belief: a 225-value covariance, two sensors
// and a goal.
func benchVehicleState() *VehicleState {
	m := NewVehicleState()
	m.StampSimNs = 1_000_000_000
	m.StampWallNs = 1_700_000_001_000_000_000
	m.Nav.OrientationQ = [4]float64{1, 0, 0, 0}
	m.Nav.Covariance15x15 = make([]float64, 225)
	for i := 0; i < 15; i++ {
		m.Nav.Covariance15x15[i*15+i] = 0.01 * float64(i+1)
	}
	m.Sensors = []SensorHealth{{SensorID: "imu0"}, {SensorID: "camera_front", Health: SensorHealthHealthDegraded}}
	m.Flight = FlightStatus{Armed: true, FlightMode: FlightStatusModeOffboard, BatteryV: 12.1, BatteryPct: 0.8}
	m.Mission = MissionStatus{Mode: MissionStatusModeNavigate, Progress: 0.5, StartedSimNs: 0,
		CurrentGoal: []Goal{{HasPosition: true, PositionEnuM: [3]float64{10, -5, 2.5}, YawRad: 1.5, MetadataJSON: "{}"}}}
	return &m
}

func benchDecisionRationale() *DecisionRationale {
	m := NewDecisionRationale()
	m.Decision.Kind = DecisionKindHold
	m.Decision.DecisionStampSimNs = 1_000_000_000
	m.Decision.Reason = "position_uncertain"
	m.BeliefStampSimNs = 1_000_000_000
	m.SelfAssessmentSHA256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	m.PolicyID = "uncertainty_gate_v1"
	return &m
}

func BenchmarkEncodeVehicleState(b *testing.B) {
	m := benchVehicleState()
	buf := make([]byte, 0, m.CDRSize())
	b.ReportAllocs()
	b.SetBytes(int64(m.CDRSize()))
	for b.Loop() {
		var err error
		if buf, err = m.AppendCDR(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeVehicleState(b *testing.B) {
	data, err := benchVehicleState().MarshalCDR()
	if err != nil {
		b.Fatal(err)
	}
	var m VehicleState
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := m.UnmarshalCDR(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeDecisionRationale(b *testing.B) {
	m := benchDecisionRationale()
	buf := make([]byte, 0, m.CDRSize())
	b.ReportAllocs()
	b.SetBytes(int64(m.CDRSize()))
	for b.Loop() {
		var err error
		if buf, err = m.AppendCDR(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeDecisionRationale(b *testing.B) {
	data, err := benchDecisionRationale().MarshalCDR()
	if err != nil {
		b.Fatal(err)
	}
	var m DecisionRationale
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := m.UnmarshalCDR(data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAllocations pins the allocation budget of the hot paths (counts, not
// timings): encoding into a reused buffer allocates nothing, decoding only
// the slices and the string contents.
func TestAllocations(t *testing.T) {
	vs, dr := benchVehicleState(), benchDecisionRationale()
	vsData, err := vs.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	drData, err := dr.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 4096)
	var vsOut VehicleState
	var drOut DecisionRationale
	tests := []struct {
		name string
		want float64
		f    func()
	}{
		{"AppendCDR VehicleState", 0, func() { buf, _ = vs.AppendCDR(buf[:0]) }},
		{"AppendCDR DecisionRationale", 0, func() { buf, _ = dr.AppendCDR(buf[:0]) }},
		{"MarshalCDR DecisionRationale", 1, func() { _, _ = dr.MarshalCDR() }},
		// covariance, sensors slice, 2 sensor ids, goal slice, metadata
		{"UnmarshalCDR VehicleState", 6, func() { _ = vsOut.UnmarshalCDR(vsData) }},
		// reason, self_assessment_sha256, policy_id
		{"UnmarshalCDR DecisionRationale", 3, func() { _ = drOut.UnmarshalCDR(drData) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := testing.AllocsPerRun(100, tt.f); got != tt.want {
				t.Errorf("%v allocations per run, want %v", got, tt.want)
			}
		})
	}
	if d := diffMessages(&vsOut, vs); d != "" {
		t.Errorf("VehicleState round trip: %s", d)
	}
	if d := diffMessages(&drOut, dr); d != "" {
		t.Errorf("DecisionRationale round trip: %s", d)
	}
}
