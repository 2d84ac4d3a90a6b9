package bridge

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/ulogtest"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
	"github.com/ghost-robotics/ghost/pkg/vehicle/ulog"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

const samplePeriods = 4

func truthLog(both bool) []byte { return ulogtest.TruthFlight(samplePeriods, both) }

// openULog is a ULogSource over log, positions from vehicle_local_position.
func openULog(t *testing.T, log []byte) *ULogSource {
	t.Helper()
	r, err := ulog.NewReader(bytes.NewReader(log), ulog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewULogSource(r, newBridge(t), PositionLocalPosition)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// drainULog returns every message of a ULogSource over log, truth on or
// off.
func drainULog(t *testing.T, log []byte, withTruth bool) (*ULogSource, []bag.Message) {
	t.Helper()
	src := openULog(t, log)
	if withTruth {
		if err := src.WithTruth(); err != nil {
			t.Fatal(err)
		}
	}
	var out []bag.Message
	for {
		m, err := src.Next()
		if errors.Is(err, io.EOF) {
			return src, out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
}

func TestScanULogTruth(t *testing.T) {
	for _, both := range []bool{true, false} {
		c, err := ScanULogTruth(bytes.NewReader(truthLog(both)))
		if err != nil {
			t.Fatal(err)
		}
		wantAtt := uint64(0)
		if both {
			wantAtt = samplePeriods
		}
		if c.Position != samplePeriods || c.Attitude != wantAtt || c.Both() != both {
			t.Errorf("both %v: counts %+v", both, c)
		}
	}
	if _, err := ScanULogTruth(strings.NewReader("this is not a ULog at all")); !errors.Is(err, ulog.ErrNotULog) {
		t.Errorf("not a log: %v", err)
	}
}

func TestULogSourceTruth(t *testing.T) {
	log := truthLog(true)
	_, plain := drainULog(t, log, false)
	src, all := drainULog(t, log, true)
	chans := src.Channels()
	rec, err := truth.Find(chans, "")
	if err != nil || rec.Form != truth.FormGhost || rec.ResetTopic != truth.TopicEstimatorReset {
		t.Fatalf("Find(Channels()) = %+v, %v", rec, err)
	}
	dec, err := truth.NewDecoder(rec, chans)
	if err != nil {
		t.Fatal(err)
	}
	var others []bag.Message
	var positions, velocities, attitudes []truth.Sample
	var resets []truth.Reset
	for _, m := range all {
		var d truth.Decoded
		ok, err := dec.Decode(m.Topic, m.Data, &d)
		if !ok {
			others = append(others, m)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", m.Topic, err)
		}
		if d.HasReset {
			resets = append(resets, d.Reset)
		}
		for _, s := range d.Samples[:d.N] {
			if uint64(s.StampNs) != m.LogTime {
				t.Errorf("%s at %d logged at %d", s.Stream, s.StampNs, m.LogTime)
			}
			switch s.Stream {
			case truth.StreamPosition:
				positions = append(positions, s)
			case truth.StreamVelocity:
				velocities = append(velocities, s)
			default:
				attitudes = append(attitudes, s)
			}
		}
	}
	// The beliefs and assessments are what they are without the truth.
	if len(others) != len(plain) || len(plain) == 0 {
		t.Fatalf("%d other messages with the truth, %d without", len(others), len(plain))
	}
	for i := range plain {
		if others[i].Topic != plain[i].Topic || others[i].LogTime != plain[i].LogTime || !bytes.Equal(others[i].Data, plain[i].Data) {
			t.Fatalf("message %d on %s differs with the truth", i, plain[i].Topic)
		}
	}
	if len(positions) != samplePeriods || len(velocities) != samplePeriods || len(attitudes) != samplePeriods {
		t.Fatalf("%d positions, %d velocities, %d attitudes", len(positions), len(velocities), len(attitudes))
	}
	// NED (11.25, 20, -30) is ENU (20, 11.25, 30); the stamp is timestamp
	// (no timestamp_sample in the ground truth of this log).
	if p := positions[1]; p.Value != [3]float64{20, 11.25, 30} || p.StampNs != (ulogtest.FirstStampUs+ulogtest.PeriodUs+5000)*1000 {
		t.Errorf("position %+v", p)
	}
	if v := velocities[0]; v.Value != [3]float64{0, 50, 0} {
		t.Errorf("velocity %+v", v)
	}
	// The estimator's reset: NED (0.75, -1.25) is ENU (-1.25, 0.75), at
	// the sample time of the estimate that carries it.
	if len(resets) != 1 || resets[0].Delta != [3]float64{ulogtest.ResetNED[1], ulogtest.ResetNED[0], 0} ||
		resets[0].StampNs != (ulogtest.FirstStampUs+ulogtest.ResetSample*ulogtest.PeriodUs)*1000 {
		t.Errorf("resets %+v", resets)
	}
	if c := src.Truth; c.Position != samplePeriods || c.Velocity != samplePeriods || c.Attitude != samplePeriods || c.Resets != 1 || c.Rejected != 0 {
		t.Errorf("counts %+v", c)
	}
}

// TestPX4TopicsTruth: --emit px4 writes the ground truth as a SITL vehicle
// exports it, which package truth reads in PX4's form.
func TestPX4TopicsTruth(t *testing.T) {
	defs := px4Defs(t, "1.15")
	r, err := ulog.NewReader(bytes.NewReader(truthLog(true)), ulog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	topics, err := NewPX4Topics(r, defs, "/uav_1")
	if err != nil {
		t.Fatal(err)
	}
	if err := topics.WithTruth(); err != nil {
		t.Fatal(err)
	}
	cs, err := topics.Channels()
	if err != nil {
		t.Fatal(err)
	}
	var chans []bag.Channel
	for i, c := range cs {
		chans = append(chans, bag.Channel{ID: uint16(i + 1), Topic: c.Topic, SchemaName: c.SchemaName, SchemaText: c.SchemaText})
	}
	rec, err := truth.Find(chans, "")
	if err != nil || rec.Form != truth.FormPX4 || rec.Topics[truth.StreamAttitude] != "/uav_1"+truth.PX4TopicAttitudeTruth ||
		rec.ResetTopic != "/uav_1"+truth.PX4TopicLocalPosition {
		t.Fatalf("Find = %+v, %v", rec, err)
	}
	dec, err := truth.NewDecoder(rec, chans)
	if err != nil {
		t.Fatal(err)
	}
	var n [truth.NumStreams]int
	resets := 0
	for {
		m, err := topics.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var d truth.Decoded
		if ok, err := dec.Decode(m.Topic, m.Data, &d); ok && err != nil {
			t.Fatalf("%s: %v", m.Topic, err)
		}
		for _, s := range d.Samples[:d.N] {
			n[s.Stream]++
			if s.Stream == truth.StreamPosition && s.Value[2] != 30 {
				t.Errorf("position %+v", s)
			}
		}
		if d.HasReset {
			resets++
		}
	}
	if n != [truth.NumStreams]int{samplePeriods, samplePeriods, samplePeriods} || resets != 1 {
		t.Errorf("samples %v, resets %d", n, resets)
	}
}

// TestULogTruthValidityFlags: Gazebo's bridge logs its ground-truth
// position with xy_valid and z_valid (and the velocity flags) false; the
// values are the model's pose all the same, and are written.
func TestULogTruthValidityFlags(t *testing.T) {
	for _, flag := range []float64{0, 1} {
		w := ulogtest.New().Topic("vehicle_attitude", ulogtest.FormatAttitude).
			Topic("vehicle_local_position_groundtruth", ulogtest.FormatLocalPosition).
			Topic("vehicle_attitude_groundtruth", ulogtest.FormatAttitudeTruth)
		for i := range samplePeriods {
			ts := float64(ulogtest.FirstStampUs + ulogtest.PeriodUs*i)
			w.Sample("vehicle_attitude", map[string]float64{"timestamp": ts, "timestamp_sample": ts, "q[0]": 1})
			w.Sample("vehicle_local_position_groundtruth", map[string]float64{"timestamp": ts, "timestamp_sample": ts,
				"xy_valid": flag, "z_valid": flag, "v_xy_valid": flag, "v_z_valid": flag, "x": 1, "y": 2, "z": -3, "vx": 0.5})
			w.Sample("vehicle_attitude_groundtruth", map[string]float64{"timestamp": ts, "q[0]": 1})
		}
		src, _ := drainULog(t, w.Bytes(), true)
		if c := src.Truth; c.Position != samplePeriods || c.Velocity != samplePeriods || c.Rejected != 0 {
			t.Errorf("flags %v: counts %+v", flag, c)
		}
	}
}

// TestULogSourceGlobalTruth: a log with the simulator's global position
// also gives it, and the origin the estimator declares, in ghost's form;
// the truth projected into that origin is the estimate, once the
// estimator has reset its drift away.
func TestULogSourceGlobalTruth(t *testing.T) {
	const n = 12
	log := ulogtest.GlobalFlight(n)
	scan, err := ScanULogTruth(bytes.NewReader(log))
	if err != nil || scan.Global != n || !scan.Both() {
		t.Fatalf("scan %+v, %v", scan, err)
	}
	src := openULog(t, log)
	if err := src.WithGlobalTruth(); err == nil {
		t.Error("the global truth went without the truth")
	}
	if err := src.WithTruth(); err != nil {
		t.Fatal(err)
	}
	if err := src.WithGlobalTruth(); err != nil {
		t.Fatal(err)
	}
	chans := src.Channels()
	rec, err := truth.Find(chans, "")
	if err != nil || rec.Topics[truth.StreamGlobal] != truth.TopicGlobalPosition || rec.OriginTopic != truth.TopicEstimatorOrigin {
		t.Fatalf("Find(Channels()) = %+v, %v", rec, err)
	}
	dec, err := truth.NewDecoder(rec, chans)
	if err != nil {
		t.Fatal(err)
	}
	var origins []truth.Origin
	var global []truth.Sample
	estimates := map[int64][3]float64{} // ENU, by stamp
	for {
		m, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if m.Topic == "/state/nav" {
			var vs ros2msg.VehicleState
			if err := vs.UnmarshalCDR(m.Data); err != nil {
				t.Fatal(err)
			}
			estimates[vs.StampSimNs] = vs.Nav.PositionEnuM
			continue
		}
		var d truth.Decoded
		if ok, err := dec.Decode(m.Topic, m.Data, &d); ok && err != nil {
			t.Fatalf("%s: %v", m.Topic, err)
		}
		if d.HasOrigin {
			origins = append(origins, d.Origin)
		}
		for _, s := range d.Samples[:d.N] {
			if s.Stream == truth.StreamGlobal {
				global = append(global, s)
			}
		}
	}
	if c := src.Truth; c.Global != n || c.Origins != 1 || len(global) != n || len(origins) != 1 {
		t.Fatalf("counts %+v; decoded %d global, %d origins", c, len(global), len(origins))
	}
	if o := origins[0]; o.StampNs != (ulogtest.FirstStampUs+ulogtest.PeriodUs)*1000 || !o.HasXY() || !o.HasZ() {
		t.Errorf("origin %+v", o)
	}
	// The truth 5 ms after each estimate, moving 1 m per 20 ms north:
	// back 0.25 m to the estimate's stamp.
	for i, g := range global[ulogtest.GlobalResetSample:] {
		stamp := g.StampNs - 5_000_000
		est, ok := estimates[stamp]
		if !ok {
			t.Fatalf("no estimate at %d", stamp)
		}
		p := origins[0].ENU(g.Value[0], g.Value[1], g.Value[2])
		p[1] -= 0.25
		for k := range p {
			if math.Abs(p[k]-est[k]) > 1e-3 {
				t.Fatalf("sample %d: the truth in the estimator's origin %v, the estimate %v", i+ulogtest.GlobalResetSample, p, est)
			}
		}
	}
}
