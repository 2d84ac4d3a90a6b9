// Package ulogtest writes PX4 ULog files for tests, from the file format
// specification (a header, flag bits, formats, subscriptions and data),
// not from the project's reader; and a short simulated flight with ground
// truth that several packages' tests read. It is for tests only.
package ulogtest

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
	"strings"
)

// Builder accumulates a log.
type Builder struct {
	bytes.Buffer
	formats map[string]string // name -> fields
	ids     map[string]uint16
}

// New starts a log: its header and flag bits.
func New() *Builder {
	w := &Builder{formats: map[string]string{}, ids: map[string]uint16{}}
	w.Write([]byte{0x55, 0x4c, 0x6f, 0x67, 0x01, 0x12, 0x35, 1})
	w.Write(binary.LittleEndian.AppendUint64(nil, 0))
	w.msg('B', make([]byte, 40))
	return w
}

func (w *Builder) msg(typ byte, body []byte) {
	w.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(body))))
	w.WriteByte(typ)
	w.Write(body)
}

// Topic defines format name with fields ("uint64_t timestamp;float[4] q;")
// and subscribes instance 0 of it.
func (w *Builder) Topic(name, fields string) *Builder {
	w.formats[name] = fields
	w.msg('F', []byte(name+":"+fields))
	id := uint16(len(w.ids))
	w.ids[name] = id
	w.msg('A', append(append([]byte{0}, binary.LittleEndian.AppendUint16(nil, id)...), name...))
	return w
}

// Sample writes one sample of topic name: each field from vals (0 when
// absent), array elements by their names ("q[0]"). Field types are
// uint64_t, float, double, bool and uint8_t.
func (w *Builder) Sample(name string, vals map[string]float64) *Builder {
	body := binary.LittleEndian.AppendUint16(nil, w.ids[name])
	for _, f := range strings.Split(strings.TrimSuffix(w.formats[name], ";"), ";") {
		typ, field, _ := strings.Cut(f, " ")
		n := 1
		if base, count, ok := strings.Cut(typ, "["); ok {
			typ = base
			n, _ = strconv.Atoi(strings.TrimSuffix(count, "]"))
		}
		for i := 0; i < n; i++ {
			key := field
			if n > 1 {
				key = field + "[" + strconv.Itoa(i) + "]"
			}
			v := vals[key]
			switch typ {
			case "uint64_t":
				body = binary.LittleEndian.AppendUint64(body, uint64(v))
			case "float":
				body = binary.LittleEndian.AppendUint32(body, math.Float32bits(float32(v)))
			case "double":
				body = binary.LittleEndian.AppendUint64(body, math.Float64bits(v))
			case "bool", "uint8_t":
				body = append(body, byte(v))
			}
		}
	}
	w.msg('D', body)
	return w
}

// Formats of PX4's topics, with the fields the project reads.
const (
	FormatAttitude      = "uint64_t timestamp;uint64_t timestamp_sample;float[4] q;"
	FormatLocalPosition = "uint64_t timestamp;uint64_t timestamp_sample;bool xy_valid;bool z_valid;bool v_xy_valid;bool v_z_valid;" +
		"float x;float y;float z;float[2] delta_xy;uint8_t xy_reset_counter;float delta_z;uint8_t z_reset_counter;" +
		"float vx;float vy;float vz;float heading;float eph;float epv;float evh;float evv;"
	FormatAttitudeTruth = "uint64_t timestamp;float[4] q;"
)

// Flight parameters of TruthFlight.
const (
	// FirstStampUs is the first sample's time, µs.
	FirstStampUs = 1_000_000
	// PeriodUs is the time between samples, µs.
	PeriodUs = 20_000
	// ResetSample is the first estimator sample after its xy reset.
	ResetSample = 2
)

// ResetNED is the estimator's xy reset step (north, east), m.
var ResetNED = [2]float64{0.75, -1.25}

// TruthFlight is a short simulated flight of n samples every PeriodUs:
// attitude, the estimator's local position (xy reset at ResetSample),
// and the simulator's ground-truth position (timestamp 5 ms after the
// estimator's sample time, no timestamp_sample) and, with both, its
// attitude. The estimate is the truth shifted by (-9, -18, 27) m NED,
// plus the reset's step from ResetSample on: an audit that follows the
// resets sees no error.
func TruthFlight(n int, both bool) []byte {
	w := New()
	w.Topic("vehicle_attitude", FormatAttitude).Topic("vehicle_local_position", FormatLocalPosition).
		Topic("vehicle_local_position_groundtruth", FormatLocalPosition)
	if both {
		w.Topic("vehicle_attitude_groundtruth", FormatAttitudeTruth)
	}
	for i := 0; i < n; i++ {
		ts := float64(FirstStampUs + PeriodUs*i)
		w.Sample("vehicle_attitude", map[string]float64{"timestamp": ts, "timestamp_sample": ts, "q[0]": 1})
		// The truth moves 1 m north per sample; the estimate follows it
		// from its own origin.
		north := func(t float64) float64 { return 10 + (t-FirstStampUs)/PeriodUs }
		lp := map[string]float64{"timestamp": ts + 100, "timestamp_sample": ts, "xy_valid": 1, "z_valid": 1, "v_xy_valid": 1, "v_z_valid": 1,
			"x": north(ts) - 9, "y": 20 - 18, "z": -30 + 27, "vx": 50, "eph": 0.5, "epv": 0.4, "evh": 0.1, "evv": 0.1, "xy_reset_counter": 7}
		if i >= ResetSample {
			lp["xy_reset_counter"], lp["delta_xy[0]"], lp["delta_xy[1]"] = 8, ResetNED[0], ResetNED[1]
			lp["x"] += ResetNED[0]
			lp["y"] += ResetNED[1]
		}
		w.Sample("vehicle_local_position", lp)
		tt := ts + 5000
		w.Sample("vehicle_local_position_groundtruth", map[string]float64{"timestamp": tt, "xy_valid": 1, "z_valid": 1, "v_xy_valid": 1, "v_z_valid": 1,
			"x": north(tt), "y": 20, "z": -30, "vx": 50})
		if both {
			w.Sample("vehicle_attitude_groundtruth", map[string]float64{"timestamp": tt, "q[0]": 1})
		}
	}
	return w.Bytes()
}

// Formats of GlobalFlight: the estimator's local position with its
// declared origin, and the simulator's global position.
const (
	FormatLocalPositionOrigin = FormatLocalPosition + "double ref_lat;double ref_lon;float ref_alt;bool xy_global;bool z_global;"
	FormatGlobalTruth         = "uint64_t timestamp;uint64_t timestamp_sample;double lat;double lon;float alt;"
)

// Parameters of GlobalFlight.
var (
	// GlobalRef is the simulator's reference point: latitude, longitude
	// (degrees) and altitude (m above mean sea level), PX4 SIH's defaults.
	GlobalRef = [3]float64{45.467116, -73.757837, 32.34}
	// OriginNED is where the estimator declares its origin, from the
	// simulator's reference, m NED: 3 m north, 2 m west, 1.5 m up.
	OriginNED = [3]float64{3, -2, -1.5}
	// DriftNED is the estimate's horizontal error before its reset, m NED.
	DriftNED = [2]float64{2.5, -4}
)

// GlobalResetSample is GlobalFlight's first estimator sample after the
// reset that corrects its drift.
const GlobalResetSample = 5

// earthRadiusM is the sphere of PX4's SIH and map projection.
const earthRadiusM = 6371000.0

// GlobalFlight is a flight of n samples every PeriodUs as PX4's SIH logs
// one: the ground truth moves 1 m north per sample in the simulator's
// local frame, and its global position is that frame's point by SIH's
// rule (latitude and longitude grow by x/R and y/(R cos lat0) radians,
// altitude by -z). The estimator declares its origin at OriginNED from
// the simulator's reference from its second sample on (none at the
// first), and estimates the truth seen from there, except that until
// GlobalResetSample it has drifted by DriftNED and knows it (eph 50 m);
// the reset at GlobalResetSample takes the drift off (a correction: the
// truth did not move) and it claims eph 0.3 m from then on. In the
// estimator's frame its error is DriftNED before the reset and zero
// after, to well below a millimetre. The ground truth's validity flags
// are clear, as Gazebo's bridge leaves them.
func GlobalFlight(n int) []byte {
	w := New()
	w.Topic("vehicle_attitude", FormatAttitude).Topic("vehicle_local_position", FormatLocalPositionOrigin).
		Topic("vehicle_local_position_groundtruth", FormatLocalPosition).Topic("vehicle_attitude_groundtruth", FormatAttitudeTruth).
		Topic("vehicle_global_position_groundtruth", FormatGlobalTruth)
	lat0 := GlobalRef[0] * math.Pi / 180
	global := func(x, y, z float64) (float64, float64, float64) {
		return GlobalRef[0] + x/earthRadiusM*180/math.Pi, GlobalRef[1] + y/(earthRadiusM*math.Cos(lat0))*180/math.Pi, GlobalRef[2] - z
	}
	oLat, oLon, oAlt := global(OriginNED[0], OriginNED[1], OriginNED[2])
	north := func(t float64) float64 { return 10 + (t-FirstStampUs)/PeriodUs }
	for i := 0; i < n; i++ {
		ts := float64(FirstStampUs + PeriodUs*i)
		w.Sample("vehicle_attitude", map[string]float64{"timestamp": ts, "timestamp_sample": ts, "q[0]": 1})
		lp := map[string]float64{"timestamp": ts + 100, "timestamp_sample": ts, "xy_valid": 1, "z_valid": 1, "v_xy_valid": 1, "v_z_valid": 1,
			"x": north(ts) - OriginNED[0], "y": 20 - OriginNED[1], "z": -30 - OriginNED[2], "vx": 50,
			"eph": 0.3, "epv": 0.3, "evh": 0.1, "evv": 0.1, "xy_reset_counter": 1,
			"ref_lat": math.NaN(), "ref_lon": math.NaN(), "ref_alt": math.NaN()}
		if i > 0 {
			lp["ref_lat"], lp["ref_lon"], lp["ref_alt"], lp["xy_global"], lp["z_global"] = oLat, oLon, oAlt, 1, 1
		}
		if i < GlobalResetSample {
			lp["x"] += DriftNED[0]
			lp["y"] += DriftNED[1]
			lp["eph"], lp["xy_reset_counter"] = 50, 0
		} else {
			lp["delta_xy[0]"], lp["delta_xy[1]"] = -DriftNED[0], -DriftNED[1]
		}
		w.Sample("vehicle_local_position", lp)
		tt := ts + 5000
		w.Sample("vehicle_local_position_groundtruth", map[string]float64{"timestamp": tt, "x": north(tt), "y": 20, "z": -30, "vx": 50})
		w.Sample("vehicle_attitude_groundtruth", map[string]float64{"timestamp": tt, "q[0]": 1})
		lat, lon, alt := global(north(tt), 20, -30)
		w.Sample("vehicle_global_position_groundtruth", map[string]float64{"timestamp": tt, "timestamp_sample": tt, "lat": lat, "lon": lon, "alt": alt})
	}
	return w.Bytes()
}
