package ulog

import (
	"bytes"
	"encoding/binary"
	"math"
)

// logWriter builds ULog bytes for tests, following the specification's
// message layouts directly (not this package's reader).
type logWriter struct{ bytes.Buffer }

func newLog(version byte, start uint64) *logWriter {
	w := &logWriter{}
	w.Write([]byte{0x55, 0x4c, 0x6f, 0x67, 0x01, 0x12, 0x35, version})
	w.Write(le64(start))
	return w
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
func le16(v uint16) []byte       { return binary.LittleEndian.AppendUint16(nil, v) }
func le32(v uint32) []byte       { return binary.LittleEndian.AppendUint32(nil, v) }
func le64(v uint64) []byte       { return binary.LittleEndian.AppendUint64(nil, v) }
func f32(v float32) []byte       { return le32(math.Float32bits(v)) }
func f64(v float64) []byte       { return le64(math.Float64bits(v)) }

func (w *logWriter) msg(typ byte, parts ...[]byte) *logWriter {
	body := cat(parts...)
	w.Write(le16(uint16(len(body))))
	w.WriteByte(typ)
	w.Write(body)
	return w
}

func (w *logWriter) flags(compat, incompat [8]byte, offsets [3]uint64) *logWriter {
	return w.msg('B', compat[:], incompat[:], le64(offsets[0]), le64(offsets[1]), le64(offsets[2]))
}

func (w *logWriter) format(text string) *logWriter { return w.msg('F', []byte(text)) }

func (w *logWriter) info(key string, value []byte) *logWriter {
	return w.msg('I', []byte{byte(len(key))}, []byte(key), value)
}

func (w *logWriter) multi(continued bool, key string, value []byte) *logWriter {
	c := byte(0)
	if continued {
		c = 1
	}
	return w.msg('M', []byte{c, byte(len(key))}, []byte(key), value)
}

func (w *logWriter) param(key string, value []byte) *logWriter {
	return w.msg('P', []byte{byte(len(key))}, []byte(key), value)
}

func (w *logWriter) defaultParam(types byte, key string, value []byte) *logWriter {
	return w.msg('Q', []byte{types, byte(len(key))}, []byte(key), value)
}

func (w *logWriter) sub(multi uint8, id uint16, name string) *logWriter {
	return w.msg('A', []byte{multi}, le16(id), []byte(name))
}

func (w *logWriter) data(id uint16, payload ...[]byte) *logWriter {
	return w.msg('D', le16(id), cat(payload...))
}

func (w *logWriter) logString(level byte, ts uint64, text string) *logWriter {
	return w.msg('L', []byte{level}, le64(ts), []byte(text))
}

func (w *logWriter) tagged(level byte, tag uint16, ts uint64, text string) *logWriter {
	return w.msg('C', []byte{level}, le16(tag), le64(ts), []byte(text))
}

func (w *logWriter) sync() *logWriter {
	return w.msg('S', []byte{0x2F, 0x73, 0x13, 0x20, 0x25, 0x0C, 0xBB, 0x12})
}

func (w *logWriter) dropout(ms uint16) *logWriter { return w.msg('O', le16(ms)) }
func (w *logWriter) remove(id uint16) *logWriter  { return w.msg('R', le16(id)) }

// The synthetic formats. Layout of "outer", by hand from the packed
// sizes: timestamp 0, q 8, n 24 (inner is 4 bytes), arr 28, name 36, d 44,
// ok 52, s 53, u 54, big 58, ubig 66, w 74, _padding0 76..79. Size 79; a
// sample may omit the trailing 3 padding bytes.
const (
	innerFormat = "inner:uint8_t a;int16_t b;uint8_t[1] _padding0;"
	outerFormat = "outer:uint64_t timestamp;float[4] q;inner n;inner[2] arr;char[8] name;double d;" +
		"bool ok;int8_t s;uint32_t u;int64_t big;uint64_t ubig;uint16_t w;uint8_t[3] _padding0;"
	// early nests "late", defined after it: resolution is lazy.
	earlyFormat = "early:uint64_t timestamp;late l;"
	lateFormat  = "late:int32_t v;float[2] f;"
)

// outerSample is one "outer" sample; full adds the trailing padding.
func outerSample(ts uint64, z float32, s int8, full bool) []byte {
	b := cat(le64(ts), f32(1), f32(0), f32(0), f32(z), // q
		[]byte{7}, le16(0xfffe), []byte{0}, // n: a=7, b=-2, padding
		[]byte{1}, le16(100), []byte{0}, []byte{2}, le16(200), []byte{0}, // arr
		[]byte("px4\x00\x00\x00\x00\x00"), f64(-2.5), []byte{1, byte(s)}, le32(4000000000),
		le64(uint64(math.MaxUint64-4)), le64(math.MaxUint64), le16(65535))
	if full {
		b = append(b, 0, 0, 0)
	}
	return b
}

// synthLog covers every message type, nested formats (one defined after
// its user), arrays, padding, a missing trailing padding, multi-info
// continuation, default parameters, an unknown message type, a parameter
// change, an unsubscription and data for a removed msg_id.
func synthLog() []byte {
	w := newLog(1, 1000)
	w.flags([8]byte{1}, [8]byte{}, [3]uint64{})
	w.format(innerFormat).format(outerFormat).format(earlyFormat)
	w.info("char[3] sys_name", []byte("PX4"))
	w.info("uint32_t ver_sw_release", le32(0x010b0200))
	w.info("int32_t time_ref_utc", le32(uint32(0xfffff1f0))) // -3600
	w.info("float[2] pair", cat(f32(0.5), f32(-1)))
	w.multi(false, "char[5] story", []byte("hello"))
	w.multi(true, "char[6] story", []byte(" world"))
	w.multi(false, "char[3] story", []byte("two"))
	w.param("int32_t SYS_A", le32(7))
	w.param("float MPC_X", f32(1.5))
	w.defaultParam(1, "float MPC_X", f32(2.5))
	w.format(lateFormat)
	w.sub(0, 0, "outer").sub(1, 1, "outer").sub(0, 2, "early")
	w.data(0, outerSample(2000, float32(0.25), -3, false))
	w.data(1, outerSample(2001, float32(0.5), 5, true))
	w.data(2, le64(2002), le32(uint32(0xffffffff)), f32(3), f32(4))
	w.logString('6', 2003, "takeoff")
	w.tagged('4', 3, 2004, "tagged text")
	w.sync()
	w.dropout(30)
	w.msg('X', []byte("skip!"))
	w.param("int32_t SYS_A", le32(8))
	w.data(0, outerSample(2010, float32(0.75), 127, true))
	w.remove(1)
	w.data(1, outerSample(2011, float32(1), 0, true)) // removed msg_id: skipped
	return w.Bytes()
}
