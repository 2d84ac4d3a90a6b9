package ulog

import (
	"bytes"
	"errors"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func readAll(t testing.TB, b []byte, opts Options) *Summary {
	t.Helper()
	s, err := ReadAll(bytes.NewReader(b), opts)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	return s
}

// samples returns clones of every Data message of a log.
func samples(t testing.TB, b []byte) []*Data {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b), Options{})
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var out []*Data
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatalf("Messages: %v", err)
		}
		if d, ok := m.(*Data); ok {
			out = append(out, d.Clone())
		}
	}
	return out
}

func TestSyntheticSummary(t *testing.T) {
	s := readAll(t, synthLog(), Options{})
	if s.Header.Version != 1 || s.Header.StartTime != 1000 || !s.Header.HasFlags || s.Header.CompatFlags[0] != 1 {
		t.Errorf("header = %+v", s.Header)
	}
	wantInfo := map[string]any{
		"sys_name": "PX4", "ver_sw_release": uint64(0x010b0200), "time_ref_utc": int64(-3600),
		"pair": []float64{0.5, -1},
	}
	if !reflect.DeepEqual(s.Info, wantInfo) {
		t.Errorf("Info = %#v, want %#v", s.Info, wantInfo)
	}
	if want := []any{"hello world", "two"}; !reflect.DeepEqual(s.MultiInfo["story"], want) {
		t.Errorf("MultiInfo[story] = %#v, want %#v", s.MultiInfo["story"], want)
	}
	wantParams := map[string]Param{"SYS_A": {Name: "SYS_A", Int: 7}, "MPC_X": {Name: "MPC_X", IsFloat: true, Float: 1.5}}
	if !reflect.DeepEqual(s.Params, wantParams) {
		t.Errorf("Params = %+v", s.Params)
	}
	if len(s.ParamChanges) != 1 || s.ParamChanges[0].Value() != 8 {
		t.Errorf("ParamChanges = %+v, want SYS_A=8", s.ParamChanges)
	}
	if len(s.DefaultParams) != 1 || s.DefaultParams[0].Types != 1 || s.DefaultParams[0].Value() != 2.5 {
		t.Errorf("DefaultParams = %+v", s.DefaultParams)
	}
	wantLogged := []LogString{
		{Level: '6', Timestamp: 2003, Text: "takeoff"},
		{Level: '4', Tagged: true, Tag: 3, Timestamp: 2004, Text: "tagged text"},
	}
	if !reflect.DeepEqual(s.Logged, wantLogged) {
		t.Errorf("Logged = %+v", s.Logged)
	}
	if !reflect.DeepEqual(s.Dropouts, []Dropout{{30}}) || s.Syncs != 1 || s.Formats != 4 {
		t.Errorf("Dropouts %v, Syncs %d, Formats %d", s.Dropouts, s.Syncs, s.Formats)
	}
	wantSubs := []SubscriptionStats{
		{MsgID: 0, MultiID: 0, Name: "outer", Count: 2, First: 2000, Last: 2010, Monotonic: true},
		{MsgID: 1, MultiID: 1, Name: "outer", Count: 1, First: 2001, Last: 2001, Monotonic: true},
		{MsgID: 2, MultiID: 0, Name: "early", Count: 1, First: 2002, Last: 2002, Monotonic: true},
	}
	if !reflect.DeepEqual(s.Subscriptions, wantSubs) {
		t.Errorf("Subscriptions = %+v", s.Subscriptions)
	}
	wantProblems := map[ProblemKind]int{ProblemUnknownType: 1, ProblemUnknownMsgID: 1}
	if !reflect.DeepEqual(s.ProblemCounts, wantProblems) || len(s.Problems) != 2 {
		t.Errorf("problems = %v %v", s.ProblemCounts, s.Problems)
	}
	if s.Truncated != nil {
		t.Errorf("Truncated = %v", s.Truncated)
	}
	// 4 F, 4 I, 3 M, 3 P, 1 Q, 3 A, 4 D, 2 L/C, 1 S, 1 O, 1 R.
	if s.Messages != 27 {
		t.Errorf("Messages = %d, want 27", s.Messages)
	}
}

func TestSyntheticValues(t *testing.T) {
	ds := samples(t, synthLog())
	if len(ds) != 4 {
		t.Fatalf("%d samples, want 4", len(ds))
	}
	type get func(*Data, string) (any, bool)
	float := func(d *Data, n string) (any, bool) { return d.Float(n) }
	intg := func(d *Data, n string) (any, bool) { return d.Int(n) }
	uintg := func(d *Data, n string) (any, bool) { return d.Uint(n) }
	boolg := func(d *Data, n string) (any, bool) { return d.Bool(n) }
	str := func(d *Data, n string) (any, bool) { return d.String(n) }
	// Samples in read order: outer/0 at 2000, outer/1 at 2001 (with its
	// trailing padding), early at 2002, outer/0 at 2010.
	tests := []struct {
		sample int
		name   string
		get    get
		want   any
		ok     bool
	}{
		{0, "timestamp", uintg, uint64(2000), true},
		{0, "q[0]", float, 1.0, true},
		{0, "q[3]", float, 0.25, true},
		{3, "q[3]", float, 0.75, true},
		{0, "q[4]", float, 0.0, false},
		{0, "q", float, 0.0, false},
		{0, "n.a", uintg, uint64(7), true},
		{0, "n.b", intg, int64(-2), true},
		{0, "n.b", uintg, uint64(0), false}, // negative
		{0, "n.b", float, -2.0, true},
		{0, "arr[0].b", intg, int64(100), true},
		{0, "arr[1].a", intg, int64(2), true},
		{0, "arr[1].b", intg, int64(200), true},
		{0, "arr[2].b", intg, int64(0), false},
		{0, "arr.b", intg, int64(0), false},
		{0, "n", intg, int64(0), false},
		{0, "n._padding0", intg, int64(0), false},
		{0, "_padding0", intg, int64(0), false},
		{0, "name", str, "px4", true},
		{0, "name[1]", str, "x", true},
		{0, "name", float, 0.0, false},
		{0, "d", float, -2.5, true},
		{0, "d", intg, int64(0), false}, // no silent truncation
		{0, "ok", boolg, true, true},
		{0, "ok", float, 1.0, true},
		{0, "s", intg, int64(-3), true},
		{1, "s", intg, int64(5), true},
		{3, "s", intg, int64(127), true},
		{0, "u", uintg, uint64(4000000000), true},
		{0, "big", intg, int64(-5), true},
		{0, "ubig", uintg, uint64(math.MaxUint64), true},
		{0, "ubig", intg, int64(0), false}, // above MaxInt64
		{0, "w", uintg, uint64(65535), true},
		{0, "w", boolg, true, true},
		{0, "missing", float, 0.0, false},
		{0, "", float, 0.0, false},
		{0, "q[-1]", float, 0.0, false},
		{0, "q[+1]", float, 0.0, false},
		{0, "q[]", float, 0.0, false},
		{0, "timestamp.x", float, 0.0, false},
		{2, "l.v", intg, int64(-1), true},
		{2, "l.f[1]", float, 4.0, true},
		{2, "timestamp", uintg, uint64(2002), true},
	}
	for _, tt := range tests {
		got, ok := tt.get(ds[tt.sample], tt.name)
		if ok != tt.ok || (ok && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("sample %d %q = %v, %v; want %v, %v", tt.sample, tt.name, got, ok, tt.want, tt.ok)
		}
	}
	if ts, ok := ds[3].Timestamp(); !ok || ts != 2010 {
		t.Errorf("Timestamp = %d, %v; want 2010", ts, ok)
	}
}

func TestLayout(t *testing.T) {
	r, err := NewReader(bytes.NewReader(synthLog()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := r.Next(); err == nil; _, err = r.Next() {
	}
	outer, ok := r.Format("outer")
	if !ok {
		t.Fatal("outer not resolved")
	}
	// Offsets worked out by hand from the packed sizes (see outerFormat).
	want := map[string]int{"timestamp": 0, "q": 8, "n": 24, "arr": 28, "name": 36, "d": 44, "ok": 52,
		"s": 53, "u": 54, "big": 58, "ubig": 66, "w": 74, "_padding0": 76}
	for _, f := range outer.Fields {
		if f.Offset != want[f.Name] {
			t.Errorf("%s at %d, want %d", f.Name, f.Offset, want[f.Name])
		}
	}
	if outer.Size() != 79 || outer.minSize != 76 {
		t.Errorf("size %d min %d, want 79 76", outer.Size(), outer.minSize)
	}
	wantNames := []string{"timestamp", "q[0]", "q[1]", "q[2]", "q[3]", "n.a", "n.b", "arr[0].a", "arr[0].b",
		"arr[1].a", "arr[1].b", "name", "d", "ok", "s", "u", "big", "ubig", "w"}
	if got := outer.FieldNames(); !slices.Equal(got, wantNames) {
		t.Errorf("FieldNames = %v", got)
	}
	ref, ok := outer.Field("arr[1].b")
	if !ok || ref.off != 28+4+1 || ref.Kind() != KindInt16 {
		t.Errorf("arr[1].b = %+v", ref)
	}
	inner, _ := r.Format("inner")
	d := &Data{Sub: &Subscription{Format: outer}, Bytes: outerSample(1, 0, 0, true)}
	if iref, _ := inner.Field("a"); func() bool { _, ok := d.IntAt(iref); return ok }() {
		t.Error("a reference of another format was accepted")
	}
}

// TestFieldOrder: PX4 releases order fields differently; values are read
// by name, so two layouts of the same topic read the same.
func TestFieldOrder(t *testing.T) {
	older := newLog(1, 0)
	older.format("pos:uint64_t timestamp;float x;float eph;bool valid;uint8_t[3] _padding0;")
	older.sub(0, 0, "pos").data(0, le64(10), f32(1.5), f32(0.3), []byte{1})
	newer := newLog(1, 0)
	newer.format("pos:uint64_t timestamp;bool valid;uint8_t[3] _padding0;float eph;float x;")
	newer.sub(0, 0, "pos").data(0, le64(10), []byte{1, 0, 0, 0}, f32(0.3), f32(1.5))
	for _, log := range [][]byte{older.Bytes(), newer.Bytes()} {
		ds := samples(t, log)
		if len(ds) != 1 {
			t.Fatalf("%d samples", len(ds))
		}
		x, _ := ds[0].Float("x")
		eph, _ := ds[0].Float("eph")
		valid, _ := ds[0].Bool("valid")
		if x != 1.5 || eph != float64(float32(0.3)) || !valid {
			t.Errorf("x %v eph %v valid %v", x, eph, valid)
		}
	}
}

func TestHeaderErrors(t *testing.T) {
	good := synthLog()
	badMagic := slices.Clone(good)
	badMagic[0] = 'X'
	shortFlags := newLog(1, 0).msg('B', make([]byte, 39)).Bytes()
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"short header", good[:15], ErrTruncated},
		{"bad magic", badMagic, ErrNotULog},
		{"short flag bits", shortFlags, ErrBadFlagBits},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewReader(bytes.NewReader(tt.in), Options{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if _, err := ReadAll(bytes.NewReader(tt.in), Options{}); !errors.Is(err, tt.want) {
				t.Errorf("ReadAll err = %v", err)
			}
		})
	}
}

func TestIncompatFlags(t *testing.T) {
	tests := []struct {
		name      string
		incompat  [8]byte
		byt, bit  int
		wantError bool
	}{
		{"none", [8]byte{}, 0, 0, false},
		{"data appended only", [8]byte{1}, 0, 0, false},
		{"bit 1", [8]byte{2}, 0, 1, true},
		{"byte 3 bit 7", [8]byte{1, 0, 0, 0x80}, 3, 7, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := newLog(1, 0).flags([8]byte{0xff, 0xff}, tt.incompat, [3]uint64{}).Bytes()
			_, err := NewReader(bytes.NewReader(log), Options{})
			var ie *IncompatError
			if !tt.wantError {
				if err != nil {
					t.Fatalf("err = %v (unknown compat bits must be ignored)", err)
				}
				return
			}
			if !errors.As(err, &ie) || !errors.Is(err, ErrIncompatible) || ie.Byte != tt.byt || ie.Bit != tt.bit {
				t.Fatalf("err = %v, want byte %d bit %d", err, tt.byt, tt.bit)
			}
			if !strings.Contains(err.Error(), "incompat_flags[") {
				t.Errorf("message %q does not name the bit", err)
			}
		})
	}
}

// appendedLog is a log whose main part is cut cutAt bytes into its last
// message, followed by appended data starting at the offset in the flags
// (shifted by offsetDelta from the true start).
func appendedLog(cutAt int, offsetDelta int64) []byte {
	w := newLog(1, 0).flags([8]byte{}, [8]byte{1}, [3]uint64{})
	w.format("t:uint64_t timestamp;")
	w.sub(0, 0, "t").data(0, le64(1))
	main := w.Bytes()
	last := newLog(1, 0).data(0, le64(2)).Bytes()[16:]
	main = append(main, last[:cutAt]...)
	off := uint64(int64(len(main)) + offsetDelta)
	copy(main[16+3+16:], le64(off)) // appended_offsets[0]
	tail := newLog(1, 0).data(0, le64(3)).logString('3', 4, "crash").Bytes()[16:]
	return append(main, tail...)
}

func TestAppendedData(t *testing.T) {
	tests := []struct {
		name     string
		log      []byte
		wantTS   []uint64
		problems int
	}{
		{"at a boundary", appendedLog(0, 0), []uint64{1, 3}, 0},
		{"after a whole message", appendedLog(13, 0), []uint64{1, 2, 3}, 0},
		{"cut message", appendedLog(7, 0), []uint64{1, 3}, 1},
		{"cut header", appendedLog(2, 0), []uint64{1, 3}, 1},
		{"offset beyond the end", appendedLog(0, 1000), []uint64{1, 3}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readAll(t, tt.log, Options{})
			var ts []uint64
			for _, d := range samples(t, tt.log) {
				v, _ := d.Timestamp()
				ts = append(ts, v)
			}
			if !slices.Equal(ts, tt.wantTS) {
				t.Errorf("timestamps %v, want %v", ts, tt.wantTS)
			}
			if s.ProblemCounts[ProblemAppended] != tt.problems || len(s.Logged) != 1 || s.Truncated != nil {
				t.Errorf("problems %v, logged %v, truncated %v", s.Problems, s.Logged, s.Truncated)
			}
		})
	}
	// An offset pointing into the definitions is ignored and reported.
	log := appendedLog(0, 0)
	copy(log[16+3+16:], le64(20))
	if s := readAll(t, log, Options{}); s.ProblemCounts[ProblemAppended] != 1 {
		t.Errorf("backward offset: problems %v", s.Problems)
	}
}

func TestCorruptDefinitions(t *testing.T) {
	// Every log starts with a healthy topic "good" and ends with its one
	// sample, which must be read whatever happened in between.
	base := func() *logWriter {
		return newLog(1, 0).flags([8]byte{}, [8]byte{}, [3]uint64{}).format("good:uint64_t timestamp;").sub(0, 9, "good")
	}
	tests := []struct {
		name    string
		log     *logWriter
		opts    Options
		want    map[ProblemKind]int
		subErr  string // substring of the subscription's Err, "" for none
		skipped int    // samples of msg_id 0 skipped
	}{
		{"F without colon", base().format("broken").sub(0, 0, "broken").data(0, le64(1)),
			Options{}, map[ProblemKind]int{ProblemBadFormat: 1, ProblemUnresolved: 1}, "not defined", 1},
		{"F bad field", base().format("x:uint64_t;").sub(0, 0, "x").data(0, le64(1)),
			Options{}, map[ProblemKind]int{ProblemBadFormat: 1, ProblemUnresolved: 1}, "not defined", 1},
		{"F bad array", base().format("x:uint64_t timestamp;float[0] a;"),
			Options{}, map[ProblemKind]int{ProblemBadFormat: 1}, "", 0},
		{"F duplicate field", base().format("x:uint64_t timestamp;float a;float a;"),
			Options{}, map[ProblemKind]int{ProblemBadFormat: 1}, "", 0},
		{"F basic type name", base().format("float:uint64_t timestamp;"),
			Options{}, map[ProblemKind]int{ProblemBadFormat: 1}, "", 0},
		{"unknown field type", base().format("x:uint64_t timestamp;nothing n;").sub(0, 0, "x").data(0, le64(1)).data(0, le64(2)),
			Options{}, map[ProblemKind]int{ProblemUnresolved: 1}, "unknown type", 2},
		{"recursive nesting", base().format("a:uint64_t timestamp;b x;").format("b:a y;").sub(0, 0, "a").data(0, le64(1)),
			Options{}, map[ProblemKind]int{ProblemUnresolved: 1}, "recursive", 1},
		{"self nesting", base().format("a:uint64_t timestamp;a x;").sub(0, 0, "a").data(0, le64(1)),
			Options{}, map[ProblemKind]int{ProblemUnresolved: 1}, "recursive", 1},
		{"too large", base().format("big:uint64_t timestamp;uint8_t[60000] a;uint8_t[6000] b;").sub(0, 0, "big").data(0, le64(1)),
			Options{}, map[ProblemKind]int{ProblemUnresolved: 1}, "65535", 1},
		{"too deep", deepNesting(base(), 40).sub(0, 0, "n0").data(0, le64(1)),
			Options{}, map[ProblemKind]int{ProblemUnresolved: 1}, "deeper", 1},
		{"D for unknown msg_id", base().data(0, le64(1)),
			Options{}, map[ProblemKind]int{ProblemUnknownMsgID: 1}, "", 0},
		{"D shorter than format", base().format("x:uint64_t timestamp;float a;").sub(0, 0, "x").data(0, le64(1), []byte{1}).data(0, le64(2), f32(1)),
			Options{}, map[ProblemKind]int{ProblemDataSize: 1}, "", 1},
		{"D longer than format", base().format("x:uint64_t timestamp;").sub(0, 0, "x").data(0, le64(1), []byte{1}),
			Options{}, map[ProblemKind]int{ProblemDataSize: 1}, "", 1},
		{"different duplicate F", base().format("x:uint64_t timestamp;").format("x:uint64_t timestamp;float a;").sub(0, 0, "x").data(0, le64(1)),
			Options{}, map[ProblemKind]int{ProblemDuplicateFormat: 1}, "", 0},
		{"identical duplicate F", base().format("x:uint64_t timestamp;").format("x:uint64_t timestamp;"),
			Options{}, map[ProblemKind]int{}, "", 0},
		{"conflicting A", base().format("x:uint64_t timestamp;").sub(0, 0, "x").sub(1, 0, "x").data(0, le64(1)),
			Options{}, map[ProblemKind]int{ProblemDuplicateSubscription: 1}, "subscribed as", 1},
		{"repeated A", base().format("x:uint64_t timestamp;").sub(0, 0, "x").sub(0, 0, "x").data(0, le64(1)),
			Options{}, map[ProblemKind]int{}, "", 0},
		{"short L", base().msg('L', []byte{1, 2, 3}), Options{}, map[ProblemKind]int{ProblemMalformed: 1}, "", 0},
		{"short A", base().msg('A', []byte{1, 2}), Options{}, map[ProblemKind]int{ProblemMalformed: 1}, "", 0},
		{"I key longer than message", base().msg('I', []byte{200, 'a'}), Options{}, map[ProblemKind]int{ProblemMalformed: 1}, "", 0},
		{"I key without type", base().info("name", []byte("x")), Options{}, map[ProblemKind]int{ProblemMalformed: 1}, "", 0},
		{"I value size", base().info("uint32_t x", []byte{1}), Options{}, map[ProblemKind]int{ProblemMalformed: 1}, "", 0},
		{"P double", base().param("double X", f64(1)), Options{}, map[ProblemKind]int{ProblemMalformed: 1}, "", 0},
		{"bad sync", base().msg('S', make([]byte, 8)), Options{}, map[ProblemKind]int{ProblemMalformed: 1}, "", 0},
		{"second B", base().flags([8]byte{}, [8]byte{4}, [3]uint64{}), Options{}, map[ProblemKind]int{ProblemMalformed: 1}, "", 0},
		{"MaxFormats", base().format("x:uint64_t timestamp;").format("y:uint64_t timestamp;"),
			Options{MaxFormats: 2}, map[ProblemKind]int{ProblemLimit: 1}, "", 0},
		{"MaxSubscriptions", base().format("x:uint64_t timestamp;").sub(0, 0, "x").sub(1, 1, "x").data(1, le64(1)),
			Options{MaxSubscriptions: 2}, map[ProblemKind]int{ProblemLimit: 1, ProblemUnknownMsgID: 1}, "", 0},
		{"MaxMessageSize", base().msg('L', make([]byte, 300)),
			Options{MaxMessageSize: 100}, map[ProblemKind]int{ProblemLimit: 1}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := tt.log.data(9, le64(5)).Bytes()
			s := readAll(t, log, tt.opts)
			if !reflect.DeepEqual(s.ProblemCounts, tt.want) {
				t.Errorf("problems %v, want %v (%v)", s.ProblemCounts, tt.want, s.Problems)
			}
			good, found := s.Subscription("good", 0)
			if !found || good.Count != 1 {
				t.Errorf("the rest of the log was not read: %+v", s.Subscriptions)
			}
			for _, p := range s.Problems {
				if len(p.Detail) > 300 || strings.Contains(p.Detail, "\n") {
					t.Errorf("problem detail not one short line: %q", p.Detail)
				}
			}
			for _, st := range s.Subscriptions {
				if st.MsgID != 0 {
					continue
				}
				if st.Skipped != tt.skipped {
					t.Errorf("skipped %d, want %d", st.Skipped, tt.skipped)
				}
				if tt.subErr == "" && st.Err != nil || tt.subErr != "" && (st.Err == nil || !strings.Contains(st.Err.Error(), tt.subErr)) {
					t.Errorf("subscription Err = %v, want %q", st.Err, tt.subErr)
				}
			}
		})
	}
}

// deepNesting defines n0 nesting n1 ... nesting n(depth).
func deepNesting(w *logWriter, depth int) *logWriter {
	for i := range depth {
		w.format("n" + strconv.Itoa(i) + ":uint64_t timestamp;n" + strconv.Itoa(i+1) + " x;")
	}
	return w.format("n" + strconv.Itoa(depth) + ":uint8_t v;")
}

func TestLateNestedDefinition(t *testing.T) {
	// The subscription is read before its nested type is defined: the
	// format resolves at the first sample.
	w := newLog(1, 0).format("a:uint64_t timestamp;b x;").sub(0, 0, "a").format("b:int16_t v;").data(0, le64(1), le16(0xfffb))
	ds := samples(t, w.Bytes())
	if len(ds) != 1 {
		t.Fatalf("%d samples", len(ds))
	}
	if v, ok := ds[0].Int("x.v"); !ok || v != -5 {
		t.Errorf("x.v = %d %v, want -5", v, ok)
	}
}

func TestIteratorStops(t *testing.T) {
	r, err := NewReader(bytes.NewReader(synthLog()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for range r.Messages() {
		n++
		if n == 3 {
			break
		}
	}
	m, err := r.Next()
	if _, ok := m.(*Info); !ok || err != nil {
		t.Errorf("after break: %T %v, want the 4th message (an Info)", m, err)
	}
}

// failingReader fails after some bytes.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	log := synthLog()
	_, err := ReadAll(&failingReader{data: log[:200], err: boom}, Options{})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the read error", err)
	}
	_, err = ReadAll(&failingReader{data: log[:10], err: boom}, Options{})
	if !errors.Is(err, boom) {
		t.Errorf("header err = %v, want the read error", err)
	}
}

// boundaries walks a log's message framing (3-byte headers, no appended
// data) and returns the offsets where messages start, plus the end.
func boundaries(b []byte) map[int]bool {
	out := map[int]bool{16: true}
	for pos := 16; pos+3 <= len(b); {
		pos += 3 + (int(b[pos]) | int(b[pos+1])<<8)
		if pos > len(b) {
			break
		}
		out[pos] = true
	}
	return out
}

// checkEveryPrefix reads log cut at every offset up to limit and checks
// that reading ends without panic, reports truncation exactly where the
// cut falls inside a message, and never loses a message it had read.
//
// Reading a long log once per offset costs quadratic time, so when cheap
// is set only some cuts are read with every message before them: each
// message boundary, and the cuts that take different paths through the
// framing (inside the 3-byte header, an empty body, a body one byte short),
// for every stride-th message. The specification has a cut message
// discarded before it is decoded, so for the other offsets what precedes
// the cut message does not matter: they are read as the header and flag
// bits followed directly by the cut message.
func checkEveryPrefix(t *testing.T, log []byte, limit int, cheap bool, stride int) {
	t.Helper()
	bounds := boundaries(log)
	first := 16 // end of the flag bits message, if the log has one
	if len(log) > 18 && log[18] == 'B' {
		first = 16 + 3 + (int(log[16]) | int(log[17])<<8)
	}
	prevMessages, lastBound, msgIndex := 0, 16, 0
	for n := 0; n <= min(limit, len(log)); n++ {
		if bounds[n] && n > lastBound {
			lastBound = n
			msgIndex++
		}
		in, wantOffset, full := log[:n], int64(lastBound), true
		if cheap && n > first+3 && !bounds[n] {
			edge := n-lastBound < 4 || bounds[n+1]
			if !edge || msgIndex%stride != 0 {
				in = append(slices.Clone(log[:first]), log[lastBound:n]...)
				wantOffset, full = int64(first), false
			}
		}
		s, err := ReadAll(bytes.NewReader(in), Options{})
		if n < 16 {
			if !errors.Is(err, ErrTruncated) {
				t.Fatalf("cut at %d: err = %v, want ErrTruncated", n, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		switch {
		case bounds[n] && s.Truncated != nil:
			t.Fatalf("cut at %d, a message boundary, reports %v", n, s.Truncated)
		case !bounds[n] && (s.Truncated == nil || s.Truncated.Offset != wantOffset || s.Truncated.Have != n-lastBound):
			t.Fatalf("cut at %d (full %v): truncation %+v, want at offset %d with %d bytes", n, full, s.Truncated, wantOffset, n-lastBound)
		case !bounds[n] && !errors.Is(s.Truncated, ErrTruncated):
			t.Fatalf("cut at %d: truncation does not match ErrTruncated", n)
		case full && s.Messages < prevMessages:
			t.Fatalf("cut at %d: %d messages, fewer than a shorter cut's %d", n, s.Messages, prevMessages)
		}
		if full {
			prevMessages = s.Messages
		}
	}
}

func TestTruncatedEverywhereSynthetic(t *testing.T) {
	checkEveryPrefix(t, synthLog(), math.MaxInt, false, 1)
}

func TestNextAfterEnd(t *testing.T) {
	log := synthLog()
	r, err := NewReader(bytes.NewReader(log[:len(log)-2]), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, err = r.Next(); err == nil; _, err = r.Next() {
	}
	if err != io.EOF {
		t.Fatalf("err = %v, want io.EOF", err)
	}
	if m, err := r.Next(); m != nil || err != io.EOF {
		t.Errorf("Next after the end = %v, %v", m, err)
	}
	tr, ok := r.Truncated()
	if !ok || tr.Want != 3+2+79 || tr.Have != 3+2+77 {
		t.Errorf("truncation %+v", tr)
	}
}
