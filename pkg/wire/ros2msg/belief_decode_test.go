package ros2msg

import (
	"errors"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// referenceBelief is the path DecodeBelief must match: the wire struct,
// then the conversion.
func referenceBelief(data []byte) (decisions.Belief, error) {
	var vs VehicleState
	if err := vs.UnmarshalCDR(data); err != nil {
		return decisions.Belief{}, err
	}
	return BeliefFromWire(&vs)
}

// checkSameBelief fails unless DecodeBelief, with and without reused
// covariance storage, gives what the reference gives: the same error text,
// or beliefs equal bit for bit (and both nil or both non-nil covariances).
// beliefStrings is shared by every checkSameBelief call, so that the
// cached decoder is checked with strings left by earlier inputs.
var beliefStrings StringCache

func checkSameBelief(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := referenceBelief(data)
	store := make([]float64, 0, 4)
	reused := func(n int) []float64 {
		if n > cap(store) {
			store = make([]float64, n)
		}
		return store[:n]
	}
	for i, cov := range []func(int) []float64{nil, reused, reused} {
		var got decisions.Belief
		var err error
		if i < 2 {
			got, err = DecodeBelief(data, cov)
		} else {
			got, err = DecodeBeliefCached(data, cov, &beliefStrings)
		}
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("DecodeBelief(%d bytes): error %v, reference %v", len(data), err, wantErr)
		}
		if err != nil {
			var de, wde *DecodeError
			if errors.As(wantErr, &wde) && (!errors.As(err, &de) || de.Type != wde.Type || de.Field != wde.Field ||
				de.Offset != wde.Offset || errors.Unwrap(de.Err) != errors.Unwrap(wde.Err)) {
				t.Fatalf("DecodeBelief(%d bytes): error %#v, reference %#v", len(data), err, wantErr)
			}
			continue
		}
		// Equal compares the goal too (Mission.Equal), floats bit for bit.
		if !got.Equal(&want) || (got.Covariance == nil) != (want.Covariance == nil) ||
			(got.Mission.Goal == nil) != (want.Mission.Goal == nil) {
			t.Fatalf("DecodeBelief(%d bytes) = stamp %d, %d covariance values; reference stamp %d, %d values",
				len(data), got.StampSimNs, len(got.Covariance), want.StampSimNs, len(want.Covariance))
		}
	}
}

func TestDecodeBeliefMatchesReference(t *testing.T) {
	cov := make([]float64, decisions.CovarianceLen)
	for i := range cov {
		cov[i] = float64(i) * 0.25
	}
	full := VehicleState{StampSimNs: 42, StampWallNs: 7,
		Sensors: []SensorHealth{{SensorID: "gps", Health: 1}, {SensorID: "imu0", Health: 2}},
		Flight:  FlightStatus{Armed: true, FlightMode: 2, BatteryV: 15.2, BatteryPct: 0.8, ErrorFlags: 5},
		Mission: MissionStatus{Mode: 1, CurrentGoal: []Goal{{HasPosition: true, YawRad: 1, MetadataJSON: "{}"}}, Progress: 0.5, StartedSimNs: 3}}
	full.Nav.OrientationQ = [4]float64{1, 0, 0, 0}
	full.Nav.PositionEnuM = [3]float64{1, 2, 3}
	full.Nav.Covariance15x15 = cov
	good, err := full.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	bare := full
	bare.Sensors, bare.Nav.Covariance15x15, bare.Mission.CurrentGoal = nil, nil, nil
	bareCDR, err := bare.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	odd := full
	odd.Nav.Covariance15x15 = cov[:7]
	oddCDR, err := odd.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	badID := append([]byte(nil), good...)
	// The first sensor id's terminator (the sensors follow the 24-byte
	// stamps and the nav state's 34 + 225 values + count).
	sensors := 4 + 16 + 8*(3+4+3*7) + 4 + 8*decisions.CovarianceLen
	badID[sensors+4+4+3] = 'x'
	for _, tc := range []struct {
		name    string
		data    []byte
		wantErr bool
	}{
		{"full", good, false},
		{"no covariance, sensors or goal", bareCDR, false},
		{"covariance of 7 values (decodes; Validate refuses it)", oddCDR, false},
		{"padded", append(append([]byte(nil), good...), 0, 0), false},
		{"sensor id without its terminator", badID, true},
		{"truncated in the covariance", good[:200], true},
		{"truncated in the sensors", good[:sensors+6], true},
		{"truncated in the mission", good[:len(good)-9], true},
		{"trailing garbage", append(append([]byte(nil), good...), 1), true},
		{"empty", nil, true},
		{"bad header", []byte{1, 1, 0, 0}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkSameBelief(t, tc.data)
			if _, err := DecodeBelief(tc.data, nil); (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

func TestDecodeBeliefReusesStorage(t *testing.T) {
	vs := VehicleState{StampSimNs: 1}
	vs.Nav.OrientationQ = [4]float64{1, 0, 0, 0}
	vs.Nav.Covariance15x15 = make([]float64, decisions.CovarianceLen)
	vs.Nav.Covariance15x15[3] = 9
	data, err := vs.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	store := make([]float64, decisions.CovarianceLen)
	b, err := DecodeBelief(data, func(n int) []float64 { return store[:n] })
	if err != nil {
		t.Fatal(err)
	}
	if &b.Covariance[0] != &store[0] || b.Covariance[3] != 9 {
		t.Fatal("the covariance was not read into the storage given")
	}
	if n := testing.AllocsPerRun(100, func() {
		_, _ = DecodeBelief(data, func(n int) []float64 { return store[:n] })
	}); n != 0 {
		t.Fatalf("%v allocations per belief without sensors or goal, want 0", n)
	}
}

// FuzzDecodeBelief holds DecodeBelief to the reference path on any input.
func FuzzDecodeBelief(f *testing.F) {
	fuzzSeeds(f, "ghost/msg/VehicleState")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSameBelief(t, data)
	})
}

func BenchmarkDecodeBeliefReused(b *testing.B) {
	data, err := benchVehicleState().MarshalCDR()
	if err != nil {
		b.Fatal(err)
	}
	store := make([]float64, decisions.CovarianceLen)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := DecodeBelief(data, func(n int) []float64 { return store[:n] }); err != nil {
			b.Fatal(err)
		}
	}
}
