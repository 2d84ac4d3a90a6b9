package ros2msg

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// The generator's type table (internal/cdrgen) names a writer and a reader
// for every .msg primitive type, scalar and array. The ghost and standard
// messages use only some of them today; these are the others, pinned here
// so that a .msg field of their type generates code that is already right.
func TestCDRPrimitiveHelpers(t *testing.T) {
	nanF32 := math.Float32frombits(0x7fc00001)
	tests := []struct {
		name   string
		encode func(buf []byte, origin int) []byte
		le, be string // the body after a one-byte field, hex
		decode func(d *cdrDecoder) any
		want   any
	}{
		{"uint16", func(b []byte, o int) []byte { return cdrPutU16(b, o, 0xbeef) },
			"07 00 efbe", "07 00 beef",
			func(d *cdrDecoder) any { return d.u16("f") }, uint16(0xbeef)},
		{"float32 keeps its NaN payload", func(b []byte, o int) []byte { return cdrPutF32(b, o, nanF32) },
			"07 000000 0100c07f", "07 000000 7fc00001",
			func(d *cdrDecoder) any { return math.Float32bits(d.f32("f")) }, uint32(0x7fc00001)},
		{"int16[2]", func(b []byte, o int) []byte { return cdrPut16s(b, o, []int16{-2, 3}) },
			"07 00 feff 0300", "07 00 fffe 0003",
			func(d *cdrDecoder) any { v := make([]int16, 2); cdrRead16(d, v, "f"); return v }, []int16{-2, 3}},
		{"uint32[2]", func(b []byte, o int) []byte { return cdrPut32s(b, o, []uint32{1, 0xdeadbeef}) },
			"07 000000 01000000 efbeadde", "07 000000 00000001 deadbeef",
			func(d *cdrDecoder) any { v := make([]uint32, 2); cdrRead32(d, v, "f"); return v }, []uint32{1, 0xdeadbeef}},
		{"float32[2]", func(b []byte, o int) []byte { return cdrPutF32s(b, o, []float32{1.5, float32(math.Copysign(0, -1))}) },
			"07 000000 0000c03f 00000080", "07 000000 3fc00000 80000000",
			func(d *cdrDecoder) any {
				v := make([]float32, 2)
				cdrReadF32s(d, v, "f")
				return []uint32{math.Float32bits(v[0]), math.Float32bits(v[1])}
			}, []uint32{0x3fc00000, 0x80000000}},
		{"empty int16[] writes no padding", func(b []byte, o int) []byte { return cdrPut16s[int16](b, o, nil) },
			"07", "07",
			func(d *cdrDecoder) any { v := []int16{}; cdrRead16(d, v, "f"); return v }, []int16{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := append(cdrHeaderLE[:], 0x07)
			buf = tt.encode(buf, cdrHeaderLen)
			le := unhex(t, tt.le)
			if !bytes.Equal(buf[cdrHeaderLen:], le) {
				t.Fatalf("encoded % x, want % x", buf[cdrHeaderLen:], le)
			}
			for _, c := range []struct {
				order  string
				header []byte
				body   []byte
			}{{"little-endian", cdrHeaderLE[:], le}, {"big-endian", []byte{0, 0, 0, 0}, unhex(t, tt.be)}} {
				data := append(append([]byte(nil), c.header...), c.body...)
				var d cdrDecoder
				if !d.start(data, "test") || d.u8("a") != 7 {
					t.Fatalf("%s: header or first field: %v", c.order, d.err)
				}
				if got := tt.decode(&d); !reflect.DeepEqual(got, tt.want) {
					t.Errorf("%s: decoded %v, want %v", c.order, got, tt.want)
				}
				if err := d.finish(); err != nil {
					t.Errorf("%s: %v", c.order, err)
				}
				if len(c.body) == 1 {
					continue
				}
				d = cdrDecoder{}
				d.start(data[:len(data)-1], "test")
				d.u8("a")
				tt.decode(&d)
				if err := d.finish(); !errors.Is(err, ErrCDRTruncated) {
					t.Errorf("%s, one byte short: %v, want %v", c.order, err, ErrCDRTruncated)
				}
			}
		})
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
