package ulog

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Message is one message the reader yields. The set is closed:
// *Format ('F'), *Info ('I'), *MultiInfo ('M'), *Param ('P'),
// *DefaultParam ('Q'), *Subscription ('A'), *Unsubscription ('R'),
// *Data ('D'), *LogString ('L' and 'C'), *Sync ('S') and *Dropout ('O').
// The flag bits ('B') are in Header.
type Message interface{ ulogMessage() }

// Info is an 'I' message: one key/value pair about the system.
type Info struct {
	Name  string // the key's name, e.g. "sys_name"
	Type  string // the key's type, e.g. "char[3]", "uint32_t"
	Raw   []byte
	Value any // see DecodeValue; nil when Raw does not fit Type
}

// MultiInfo is an 'M' message: a piece of a long or repeated value.
// IsContinued marks a piece that continues the previous one with the same
// Name (Summary joins them).
type MultiInfo struct {
	Info
	IsContinued bool
}

// Param is a 'P' message: a parameter value, int32 or float.
type Param struct {
	Name    string
	IsFloat bool
	Int     int32   // when !IsFloat
	Float   float32 // when IsFloat
}

// Value returns the parameter as a float64 whatever its type.
func (p Param) Value() float64 {
	if p.IsFloat {
		return float64(p.Float)
	}
	return float64(p.Int)
}

// DefaultParam is a 'Q' message: a parameter default. Types is the
// default_types bit field (bit 0 system wide, bit 1 current configuration).
type DefaultParam struct {
	Param
	Types uint8
}

// Subscription is an 'A' message: msg_id MsgID carries instance MultiID of
// format Name. The reader keeps one per msg_id; Count and Skipped grow as
// its 'D' messages are read.
type Subscription struct {
	MsgID   uint16
	MultiID uint8
	Name    string
	// Format is the resolved format, nil while it cannot be resolved (see
	// Err). It is set when the subscription is read if its format is known.
	Format  *Format
	Count   int   // 'D' messages delivered
	Skipped int   // 'D' messages skipped (unresolved format, conflict, bad size)
	Err     error // why this subscription's data is skipped, nil when it is not
}

// Unsubscription is an 'R' message: MsgID is no longer logged.
type Unsubscription struct{ MsgID uint16 }

// LogString is an 'L' message, or a 'C' (Tagged) message with a Tag.
// Level is the syslog level as logged ('0'..'7' in PX4 logs, i.e. ASCII).
type LogString struct {
	Level     uint8
	Tagged    bool
	Tag       uint16
	Timestamp uint64 // µs
	Text      string
}

// Sync is an 'S' message with the correct sync magic.
type Sync struct{}

// Dropout is an 'O' message: DurationMS milliseconds of messages were lost.
type Dropout struct{ DurationMS uint16 }

func (*Info) ulogMessage()           {}
func (*MultiInfo) ulogMessage()      {}
func (*Param) ulogMessage()          {}
func (*DefaultParam) ulogMessage()   {}
func (*Subscription) ulogMessage()   {}
func (*Unsubscription) ulogMessage() {}
func (*Data) ulogMessage()           {}
func (*LogString) ulogMessage()      {}
func (*Sync) ulogMessage()           {}
func (*Dropout) ulogMessage()        {}

var syncMagic = [8]byte{0x2F, 0x73, 0x13, 0x20, 0x25, 0x0C, 0xBB, 0x12}

// parseKey splits an info key "type name".
func parseKey(key string) (typ, name string, ok bool) {
	typ, name, ok = strings.Cut(key, " ")
	return typ, name, ok && typ != "" && name != ""
}

// DecodeValue decodes an info or parameter value of type typ ("char[N]",
// "int32_t", "float[3]"...). char arrays give a string (of whatever length
// raw has); scalars give int64, uint64, float64 or bool; other arrays give
// []int64, []uint64, []float64 or []bool of exactly N elements.
func DecodeValue(typ string, raw []byte) (any, error) {
	name, n, ok := parseType(typ, 0)
	k := baseKind(name)
	if !ok || k == KindInvalid {
		return nil, fmt.Errorf("ulog: value type %s is not a basic type", clip(typ))
	}
	if k == KindChar {
		return string(raw), nil
	}
	isArray := strings.Contains(typ, "[")
	want := k.Size()
	if isArray {
		want *= n
	}
	if len(raw) != want {
		return nil, fmt.Errorf("ulog: value of type %s has %d bytes, want %d", clip(typ), len(raw), want)
	}
	if !isArray {
		return scalarValue(k, raw), nil
	}
	return arrayValue(k, raw, n), nil
}

func scalarValue(k Kind, b []byte) any {
	u := load(b, k)
	switch {
	case k.signed():
		return signExtend(u, k)
	case k.unsigned():
		return u
	case k == KindBool:
		return u != 0
	}
	return toFloat(u, k)
}

func arrayValue(k Kind, b []byte, n int) any {
	s := k.Size()
	switch {
	case k.signed():
		out := make([]int64, n)
		for i := range out {
			out[i] = signExtend(load(b[i*s:], k), k)
		}
		return out
	case k.unsigned():
		out := make([]uint64, n)
		for i := range out {
			out[i] = load(b[i*s:], k)
		}
		return out
	case k == KindBool:
		out := make([]bool, n)
		for i := range out {
			out[i] = b[i] != 0
		}
		return out
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = toFloat(load(b[i*s:], k), k)
	}
	return out
}

// load reads one little-endian value of kind k; b must hold k.Size() bytes.
func load(b []byte, k Kind) uint64 {
	switch k.Size() {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func signExtend(u uint64, k Kind) int64 {
	shift := 64 - 8*k.Size()
	return int64(u<<shift) >> shift
}

func toFloat(u uint64, k Kind) float64 {
	if k == KindFloat32 {
		return float64(math.Float32frombits(uint32(u)))
	}
	return math.Float64frombits(u)
}
