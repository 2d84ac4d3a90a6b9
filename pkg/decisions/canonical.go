package decisions

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strconv"
	"unicode/utf8"
)

// Canonical JSON is the identity of a contract value: the exact bytes the
// Python reference hashes, json.dumps(asdict(x), sort_keys=True,
// ensure_ascii=False, separators=(",", ":")). The writers below emit keys in
// their sorted order directly (no maps), so output never depends on
// iteration order, and format floats as Python's repr does.

// appendPyFloat appends f as Python's repr(float) writes it: shortest
// round-trip digits; fixed notation with a ".0" for integral values when the
// decimal exponent is in [-4, 16); otherwise exponent notation with a sign and
// at least two exponent digits. NaN and the infinities are written as
// json.dumps writes them (NaN, Infinity, -Infinity), which strict JSON
// parsers reject; callers that carry "none" as NaN write null instead.
func appendPyFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	// Comparing the double against the doubles 1e-4 and 1e16 picks the same
	// notation as Python's decimal-exponent rule: shortest digits never round
	// a value across a power of ten that is itself a double.
	if a := math.Abs(f); a < 1e-4 || a >= 1e16 {
		return strconv.AppendFloat(b, f, 'e', -1, 64)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'f', -1, 64)
	for _, c := range b[start:] {
		if c == '.' {
			return b
		}
	}
	return append(b, ".0"...)
}

// FormatFloat returns f as Python's repr(float) writes it (see the canonical
// JSON rules in the package documentation).
func FormatFloat(f float64) string { return string(appendPyFloat(nil, f)) }

// appendOptFloat writes a value that may be absent: NaN stands for Python's
// None and becomes null.
func appendOptFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) {
		return append(b, "null"...)
	}
	return appendPyFloat(b, f)
}

// AppendJSONString appends s as a JSON string exactly as Python's
// json.dumps(..., ensure_ascii=False) writes it, for other canonical
// documents that must match the reference byte for byte.
func AppendJSONString(b []byte, s string) []byte { return appendJSONString(b, s) }

// appendJSONString writes s as json.dumps(..., ensure_ascii=False) does: only
// the quote, the backslash and control characters below 0x20 are escaped.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	// Fast path: hashes and identifiers need no escaping at all.
	plain := plainPrefix(s)
	for plain < len(s) {
		c := s[plain]
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			break
		}
		plain++
	}
	b = append(b, s[:plain]...)
	for i := plain; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				// Not UTF-8: a Python str cannot hold it; write U+FFFD so
				// the output stays valid UTF-8 and stable.
				b = append(b, "\ufffd"...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			} else {
				b = append(b, c)
			}
		}
		i++
	}
	return append(b, '"')
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// hashHex returns the lowercase hex SHA-256 of data.
func hashHex(data []byte) string {
	sum := sha256.Sum256(data)
	var out [64]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// plainPrefix returns the length of s's longest prefix of whole 8-byte
// words in which no byte needs escaping in JSON (a control character, '"',
// '\\' or a byte of a multi-byte rune): per word, a byte below 0x20 or
// equal to '"' or '\\' sets its top bit in one of three subtractions
// (other bytes may too, which only ends the prefix early).
func plainPrefix(s string) int {
	const ones, top = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := le64(s[i:])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		if (x|(x-ones*0x20)|(q-ones)|(bs-ones))&top != 0 {
			break
		}
	}
	return i
}

// le64 reads s's first eight bytes as a little-endian word (one load: the
// compiler combines the shifts).
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// isSHA256Hex reports whether s is 64 lowercase hexadecimal characters.
// Every assessment and rationale is checked more than once on its way, so
// the test takes eight bytes at a time: in each byte (all below 0x80), the
// top bit of b+k is set exactly when b >= 0x80-k, and no sum carries into
// the next byte, so four additions test the ranges '0'..'9' and 'a'..'f'.
func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	const top = 0x8080808080808080
	for i := 0; i < 64; i += 8 {
		x := le64(s[i:])
		if x&top != 0 {
			return false
		}
		digit := (x + 0x5050505050505050) &^ (x + 0x4646464646464646)  // '0' <= b < ':'
		letter := (x + 0x1f1f1f1f1f1f1f1f) &^ (x + 0x1919191919191919) // 'a' <= b < 'g'
		if (digit|letter)&top != top {
			return false
		}
	}
	return true
}

// isIdentifier reports whether s matches ^[a-z][a-z0-9_]*$ with 1 to 64
// characters: the form of reasons and policy ids.
func isIdentifier(s string) bool {
	if len(s) < 1 || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

func appendUint(b []byte, v uint64) []byte { return strconv.AppendUint(b, v, 10) }

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// AppendFloat appends f as FormatFloat writes it: the form of every float in
// canonical JSON (a none std is written null instead).
func AppendFloat(b []byte, f float64) []byte { return appendPyFloat(b, f) }
