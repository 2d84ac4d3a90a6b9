package bridge

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/truth"
	"github.com/ghost-robotics/ghost/pkg/ulog"
)

// ulogBuilder writes ULog bytes for tests from the file format
// specification: a header, flag bits, formats, subscriptions and data.
type ulogBuilder struct {
	bytes.Buffer
	formats map[string]string // name -> fields
	ids     map[string]uint16
}

func newULog() *ulogBuilder {
	w := &ulogBuilder{formats: map[string]string{}, ids: map[string]uint16{}}
	w.Write([]byte{0x55, 0x4c, 0x6f, 0x67, 0x01, 0x12, 0x35, 1})
	w.Write(binary.LittleEndian.AppendUint64(nil, 0))
	w.msg('B', make([]byte, 40))
	return w
}

func (w *ulogBuilder) msg(typ byte, body []byte) {
	w.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(body))))
	w.WriteByte(typ)
	w.Write(body)
}

// topic defines a format and subscribes instance 0 of it.
func (w *ulogBuilder) topic(name, fields string) *ulogBuilder {
	w.formats[name] = fields
	w.msg('F', []byte(name+":"+fields))
	id := uint16(len(w.ids))
	w.ids[name] = id
	w.msg('A', append(append([]byte{0}, binary.LittleEndian.AppendUint16(nil, id)...), name...))
	return w
}

// sample writes one sample of name: each field from vals (0 when absent),
// arrays element by element ("q[0]").
func (w *ulogBuilder) sample(name string, vals map[string]float64) *ulogBuilder {
	body := binary.LittleEndian.AppendUint16(nil, w.ids[name])
	for _, f := range strings.Split(strings.TrimSuffix(w.formats[name], ";"), ";") {
		typ, field, _ := strings.Cut(f, " ")
		n := 1
		if base, count, ok := strings.Cut(typ, "["); ok {
			typ = base
			n = int(count[0] - '0')
		}
		for i := 0; i < n; i++ {
			key := field
			if n > 1 {
				key = field + "[" + string(rune('0'+i)) + "]"
			}
			v := vals[key]
			switch typ {
			case "uint64_t":
				body = binary.LittleEndian.AppendUint64(body, uint64(v))
			case "float":
				body = binary.LittleEndian.AppendUint32(body, math.Float32bits(float32(v)))
			case "bool", "uint8_t":
				body = append(body, byte(v))
			}
		}
	}
	w.msg('D', body)
	return w
}

const (
	fmtAttitude   = "uint64_t timestamp;uint64_t timestamp_sample;float[4] q;"
	fmtLocalPos   = "uint64_t timestamp;uint64_t timestamp_sample;bool xy_valid;bool z_valid;bool v_xy_valid;bool v_z_valid;float x;float y;float z;float[2] delta_xy;uint8_t xy_reset_counter;float delta_z;uint8_t z_reset_counter;float vx;float vy;float vz;float heading;float eph;float epv;float evh;float evv;"
	fmtAttTruth   = "uint64_t timestamp;float[4] q;"
	validFlags    = 1.0
	firstStampUs  = 1_000_000
	samplePeriods = 4
)

// truthLog is a short simulated flight: attitude, estimator and ground
// truth every 20 ms, an xy reset of the estimator at the third sample.
// With only false it holds just the ground-truth position.
func truthLog(both bool) []byte {
	w := newULog()
	w.topic("vehicle_attitude", fmtAttitude).topic("vehicle_local_position", fmtLocalPos).
		topic(ULogPositionTruth, fmtLocalPos)
	if both {
		w.topic(ULogAttitudeTruth, fmtAttTruth)
	}
	for i := 0; i < samplePeriods; i++ {
		ts := float64(firstStampUs + 20_000*i)
		w.sample("vehicle_attitude", map[string]float64{"timestamp": ts, "timestamp_sample": ts, "q[0]": 1})
		lp := map[string]float64{"timestamp": ts + 100, "timestamp_sample": ts, "xy_valid": 1, "z_valid": 1, "v_xy_valid": 1, "v_z_valid": 1,
			"x": 1 + float64(i), "y": 2, "z": -3, "eph": 0.5, "epv": 0.4, "evh": 0.1, "evv": 0.1, "xy_reset_counter": 7}
		if i >= 2 {
			lp["xy_reset_counter"], lp["delta_xy[0]"], lp["delta_xy[1]"] = 8, 0.75, -1.25
		}
		w.sample("vehicle_local_position", lp)
		w.sample(ULogPositionTruth, map[string]float64{"timestamp": ts + 5000, "xy_valid": 1, "z_valid": 1, "v_xy_valid": 1, "v_z_valid": 1,
			"x": 10 + float64(i), "y": 20, "z": -30, "vx": 1, "vy": -2, "vz": 0.5})
		if both {
			w.sample(ULogAttitudeTruth, map[string]float64{"timestamp": ts + 5000, "q[0]": 1})
		}
	}
	return w.Bytes()
}

// drainULog returns every message of a ULogSource over log, truth on or
// off.
func drainULog(t *testing.T, log []byte, withTruth bool) (*ULogSource, []bag.Message) {
	t.Helper()
	r, err := ulog.NewReader(bytes.NewReader(log), ulog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewULogSource(r, newBridge(t), PositionLocalPosition)
	if err != nil {
		t.Fatal(err)
	}
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
	// NED (11, 20, -30) is ENU (20, 11, 30); the stamp is timestamp (no
	// timestamp_sample in the ground truth of this log).
	if p := positions[1]; p.Value != [3]float64{20, 11, 30} || p.StampNs != (firstStampUs+20_000+5000)*1000 {
		t.Errorf("position %+v", p)
	}
	if v := velocities[0]; v.Value != [3]float64{-2, 1, -0.5} {
		t.Errorf("velocity %+v", v)
	}
	// The estimator's reset: NED (0.75, -1.25) is ENU (-1.25, 0.75), at
	// the sample time of the third estimate.
	if len(resets) != 1 || resets[0].Delta != [3]float64{-1.25, 0.75, 0} || resets[0].StampNs != (firstStampUs+40_000)*1000 {
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
