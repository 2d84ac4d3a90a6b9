package ulog

import (
	"bytes"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/internal/testscale"
)

// The expected values in this file were read from the logs' bytes with a
// throwaway script using Python's struct module (framing, 'A' msg_ids,
// 'D' counts per msg_id, and fields at offsets worked out by hand from the
// logs' 'F' definitions), not with this package.

func realLog(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(golden.Path(t, "ulog", "px4_v1.11_cubeorange.ulg"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func excerpt(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/px4_v1.11_excerpt.ulg")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type subWant struct {
	name        string
	multi       uint8
	count       int
	first, last uint64
}

func checkSubs(t *testing.T, s *Summary, want []subWant) {
	t.Helper()
	for _, w := range want {
		got, ok := s.Subscription(w.name, w.multi)
		if !ok {
			t.Errorf("no subscription %s/%d", w.name, w.multi)
			continue
		}
		if got.Count != w.count || got.First != w.first || got.Last != w.last || !got.Monotonic || got.Skipped != 0 || got.Err != nil {
			t.Errorf("%s/%d = %+v, want count %d first %d last %d", w.name, w.multi, got, w.count, w.first, w.last)
		}
	}
}

func TestRealLog(t *testing.T) {
	s := readAll(t, realLog(t), Options{})
	if s.Header.Version != 1 || s.Header.StartTime != 20309082 || !s.Header.HasFlags {
		t.Errorf("header %+v", s.Header)
	}
	wantInfo := map[string]any{
		"sys_name": "PX4", "ver_hw": "CUBEPILOT_CUBEORANGE", "ver_sw": "8583f1da30b63154d6ba0bc187d86135dfe33cf9",
		"ver_sw_release": uint64(0x010b0200), "ver_sw_branch": "v1.11.2_w_rc_sysid", "time_ref_utc": int64(0),
		"sys_toolchain_ver": "9.3.1 20200408 (release)", "ver_data_format": int64(1),
	}
	for k, v := range wantInfo {
		if s.Info[k] != v {
			t.Errorf("info %s = %#v, want %#v", k, s.Info[k], v)
		}
	}
	if len(s.Info) != 14 || len(s.Params) != 980 || len(s.ParamChanges) != 0 || s.Formats != 82 || s.Syncs != 12 {
		t.Errorf("info %d params %d changes %d formats %d syncs %d", len(s.Info), len(s.Params), len(s.ParamChanges), s.Formats, s.Syncs)
	}
	if p := s.Params["MPC_XY_VEL_MAX"]; !p.IsFloat || p.Float != 3.5 {
		t.Errorf("MPC_XY_VEL_MAX = %+v", p)
	}
	if p := s.Params["BAT1_N_CELLS"]; p.IsFloat || p.Int != 6 {
		t.Errorf("BAT1_N_CELLS = %+v", p)
	}
	// The 131 'M' messages are three values split into pieces.
	for name, n := range map[string]int{"boot_console_output": 2191, "perf_top_preflight": 2185, "perf_counter_preflight": 5876} {
		v := s.MultiInfo[name]
		if str, ok := v[0].(string); len(v) != 1 || !ok || len(str) != n {
			t.Errorf("multi info %s: %d values, first of %d bytes; want one of %d", name, len(v), len(str), n)
		}
	}
	if !strings.HasPrefix(s.MultiInfo["boot_console_output"][0].(string), "sercon: Registering CDC/ACM") {
		t.Errorf("boot_console_output does not start as logged")
	}
	if len(s.Logged) != 3 || s.Logged[0].Text != "[commander] Takeoff detected" || s.Logged[0].Timestamp != 22683736 ||
		s.Logged[2].Text != "[commander] Disarmed by landing" || s.Logged[0].Level != '6' {
		t.Errorf("logged %+v", s.Logged)
	}
	if len(s.Dropouts) != 1 || s.Dropouts[0].DurationMS != 30 {
		t.Errorf("dropouts %+v", s.Dropouts)
	}
	// 72 'A', 14604 'D', 82 'F', 14 'I', 3 'L', 131 'M', 1 'O', 980 'P',
	// 12 'S' (the 'B' is in the header).
	if s.Messages != 72+14604+82+14+3+131+1+980+12 || len(s.Subscriptions) != 72 {
		t.Errorf("messages %d, subscriptions %d", s.Messages, len(s.Subscriptions))
	}
	total := 0
	for _, st := range s.Subscriptions {
		total += st.Count
	}
	if total != 14604 || len(s.ProblemCounts) != 0 || s.Truncated != nil {
		t.Errorf("samples %d, problems %v, truncated %v", total, s.Problems, s.Truncated)
	}
	checkSubs(t, s, []subWant{
		{"vehicle_local_position", 0, 636, 20321827, 26817979},
		{"vehicle_attitude", 0, 1298, 20326716, 26822868},
		{"vehicle_status", 0, 14, 20220673, 26337650},
		{"battery_status", 0, 21, 20630667, 26630305},
		{"battery_status", 1, 21, 20630671, 26630309},
		{"vehicle_command", 0, 1, 8400835, 8400835},
		{"estimator_status", 0, 636, 20321827, 26817979},
		{"telemetry_status", 1, 8, 19472131, 25479662},
		{"vehicle_local_position_setpoint", 0, 0, 0, 0},
	})
}

// TestRealLogValues reads eph/epv from every vehicle_local_position sample
// through precomputed references; the logged sample is 156 bytes, its
// format 160 (the trailing _padding0 is not logged).
func TestRealLogValues(t *testing.T) {
	r, err := NewReader(bytes.NewReader(realLog(t)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var eph, epv FieldRef
	n := 0
	minEph, maxEph, minEpv, maxEpv := 1e9, -1e9, 1e9, -1e9
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		d, ok := m.(*Data)
		if !ok || d.Name() != "vehicle_local_position" {
			continue
		}
		if n == 0 {
			eph, _ = d.Format().Field("eph")
			epv, _ = d.Format().Field("epv")
			if d.Format().Size() != 160 || len(d.Bytes) != 156 {
				t.Errorf("format %d bytes, sample %d", d.Format().Size(), len(d.Bytes))
			}
		}
		n++
		e, ok1 := d.FloatAt(eph)
		v, ok2 := d.FloatAt(epv)
		if !ok1 || !ok2 {
			t.Fatalf("sample %d: eph/epv unreadable", n)
		}
		minEph, maxEph, minEpv, maxEpv = min(minEph, e), max(maxEph, e), min(minEpv, v), max(maxEpv, v)
	}
	// float32 values: 0.3055391013622284 .. 0.7135873436927795 m and
	// 0.5527134537696838 .. 0.5954904556274414 m.
	if n != 636 || minEph != 0.3055391013622284 || maxEph != 0.7135873436927795 ||
		minEpv != 0.5527134537696838 || maxEpv != 0.5954904556274414 {
		t.Errorf("%d samples, eph %v..%v, epv %v..%v", n, minEph, maxEph, minEpv, maxEpv)
	}
}

func TestExcerpt(t *testing.T) {
	b := excerpt(t)
	s := readAll(t, b, Options{})
	checkSubs(t, s, []subWant{
		{"vehicle_local_position", 0, 60, 20321827, 21059916},
		{"vehicle_attitude", 0, 60, 20326716, 20771524},
		{"vehicle_status", 0, 14, 20220673, 26337650},
		{"battery_status", 0, 21, 20630667, 26630305},
		{"battery_status", 1, 21, 20630671, 26630309},
		{"telemetry_status", 0, 8, 19459057, 26486684},
		{"telemetry_status", 1, 8, 19472131, 25479662},
		{"position_setpoint_triplet", 0, 1, 1425101, 1425101},
	})
	if len(s.Subscriptions) != 8 || len(s.Params) != 20 || len(s.ProblemCounts) != 0 || s.Truncated != nil {
		t.Errorf("subscriptions %d params %d problems %v", len(s.Subscriptions), len(s.Params), s.Problems)
	}
	type want struct {
		topic string
		multi uint8
		index int // sample index within the topic; -1 for the last
		field string
		value any
	}
	wants := []want{
		{"vehicle_local_position", 0, 0, "z", float64(float32(-1.1676559448242188))},
		{"vehicle_local_position", 0, 0, "eph", 0.34517043828964233},
		{"vehicle_local_position", 0, 0, "epv", 0.5909757614135742},
		{"vehicle_local_position", 0, -1, "eph", 0.36822864413261414},
		{"vehicle_local_position", 0, 0, "xy_valid", false},
		{"vehicle_local_position", 0, 0, "ref_lat", 0.0},
		{"vehicle_attitude", 0, 0, "q[0]", 0.9926282167434692},
		{"vehicle_attitude", 0, 0, "q[3]", 0.12082850188016891},
		{"battery_status", 0, 0, "voltage_v", 23.348752975463867},
		{"battery_status", 0, 0, "cell_count", int64(6)},
		{"battery_status", 1, 0, "voltage_v", 49.74492645263672},
		{"battery_status", 1, 0, "cell_count", int64(12)},
		{"battery_status", 1, 0, "voltage_cell_v[0]", 4.157569885253906},
		{"vehicle_status", 0, 0, "arming_state", uint64(2)},
		{"vehicle_status", 0, -1, "arming_state", uint64(1)},
		{"vehicle_status", 0, -1, "nav_state", uint64(0)},
		{"telemetry_status", 1, 0, "data_rate", 1200.0},
		{"telemetry_status", 1, 0, "streams", uint64(37)},
		{"telemetry_status", 1, 0, "mavlink_v2", true},
		{"telemetry_status", 1, 0, "heartbeats[0].timestamp", uint64(19465393)},
		{"telemetry_status", 1, 0, "heartbeats[0].system_id", uint64(255)},
		{"telemetry_status", 1, 0, "heartbeats[0].component_id", uint64(190)},
		{"telemetry_status", 1, 0, "heartbeats[0].state", uint64(4)},
		{"telemetry_status", 1, 0, "heartbeats[1].system_id", uint64(0)},
		{"position_setpoint_triplet", 0, 0, "current.timestamp", uint64(1425100)},
		{"position_setpoint_triplet", 0, 0, "current.type", uint64(5)},
		{"position_setpoint_triplet", 0, 0, "current.valid", false},
	}
	byTopic := map[string][]*Data{}
	for _, d := range samples(t, b) {
		k := d.Name() + "/" + string(rune('0'+d.MultiID()))
		byTopic[k] = append(byTopic[k], d)
	}
	for _, w := range wants {
		ds := byTopic[w.topic+"/"+string(rune('0'+w.multi))]
		if len(ds) == 0 {
			t.Errorf("no samples of %s/%d", w.topic, w.multi)
			continue
		}
		d := ds[(w.index+len(ds))%len(ds)]
		var got any
		var ok bool
		switch w.value.(type) {
		case float64:
			got, ok = d.Float(w.field)
		case int64:
			got, ok = d.Int(w.field)
		case uint64:
			got, ok = d.Uint(w.field)
		case bool:
			got, ok = d.Bool(w.field)
		}
		if !ok || got != w.value {
			t.Errorf("%s/%d[%d] %s = %v (%v), want %v", w.topic, w.multi, w.index, w.field, got, ok, w.value)
		}
	}
	lat, ok := byTopic["position_setpoint_triplet/0"][0].Float("current.lat")
	if !ok || !math.IsNaN(lat) {
		t.Errorf("current.lat = %v, want NaN as logged", lat)
	}
}

func TestTruncatedEverywhereExcerpt(t *testing.T) {
	checkEveryPrefix(t, excerpt(t), math.MaxInt, true, 1)
}

// TestTruncatedEverywhereRealLog cuts the first 64 KiB of a real log at
// every offset. The full run (GHOST_TEST_FULL=1) reads the framing edges
// of every message after the whole prefix; otherwise those of every 16th
// message, and the edges of the others after the header alone, as the
// other cuts are read.
func TestTruncatedEverywhereRealLog(t *testing.T) {
	stride := 1
	if !testscale.Full(t) {
		stride = 16
		testscale.Scaled(t, "the edges of every 16th message read after the whole prefix")
	}
	checkEveryPrefix(t, realLog(t), 64<<10, true, stride)
}

// FuzzReader: no input makes the reader panic or fail other than as
// documented, and every field of every sample reads without panic.
func FuzzReader(f *testing.F) {
	f.Add(synthLog())
	f.Add(appendedLog(7, 0))
	f.Add(appendedLog(0, -30))
	f.Add(newLog(1, 0).format("a:uint64_t timestamp;b x;").format("b:a y;").sub(0, 0, "a").data(0, le64(1)).Bytes())
	f.Add(deepNesting(newLog(1, 0), 40).sub(0, 0, "n0").data(0, le64(1)).Bytes())
	if b, err := os.ReadFile("testdata/px4_v1.11_excerpt.ulg"); err == nil {
		f.Add(b[:2048])
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := NewReader(bytes.NewReader(in), Options{MaxProblems: 4})
		if err != nil {
			return
		}
		for m, err := range r.Messages() {
			if err != nil {
				t.Fatalf("error from an in-memory log: %v", err)
			}
			d, ok := m.(*Data)
			if !ok {
				continue
			}
			if d.Format() == nil || len(d.Bytes) < d.Format().minSize {
				t.Fatalf("sample delivered without a fitting format")
			}
			for _, name := range d.Format().FieldNames() {
				d.Float(name)
				d.Int(name)
				d.Uint(name)
				d.Bool(name)
				d.String(name)
			}
			d.Timestamp()
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("Next after the end = %v", err)
		}
		if _, err := ReadAll(bytes.NewReader(in), Options{}); err != nil {
			t.Fatalf("ReadAll after NewReader succeeded: %v", err)
		}
	})
}

func BenchmarkReadRealLog(b *testing.B) {
	log := realLog(b)
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(log), Options{})
		if err != nil {
			b.Fatal(err)
		}
		var ref FieldRef
		sum := 0.0
		for m, err := range r.Messages() {
			if err != nil {
				b.Fatal(err)
			}
			if d, ok := m.(*Data); ok && d.Name() == "vehicle_local_position" {
				if ref == (FieldRef{}) {
					ref, _ = d.Format().Field("eph")
				}
				v, _ := d.FloatAt(ref)
				sum += v
			}
		}
		if sum == 0 {
			b.Fatal("no eph read")
		}
	}
}
