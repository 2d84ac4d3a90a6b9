package decisions

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFormatFloatMatchesPythonRepr(t *testing.T) {
	// Expected strings are Python's repr(float(x)) for each value.
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{-1, "-1.0"},
		{0.1, "0.1"},
		{0.0025, "0.0025"},
		{1e-4, "0.0001"},
		{9.999999999999999e-05, "9.999999999999999e-05"},
		{1e-5, "1e-05"},
		{1.5e-7, "1.5e-07"},
		{123456789, "123456789.0"},
		{100000, "100000.0"},
		{9999999999999998, "9999999999999998.0"},
		{1e16, "1e+16"},
		{1.5e16, "1.5e+16"},
		{1e22, "1e+22"},
		{2.5e-300, "2.5e-300"},
		{5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{0.30000000000000004, "0.30000000000000004"},
		{1.0 / 3, "0.3333333333333333"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{math.NaN(), "NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := FormatFloat(tt.in); got != tt.want {
				t.Errorf("FormatFloat(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// pyReprByExponent is an independent statement of Python's rule: take the
// shortest round-trip digits, read their decimal exponent, and choose the
// notation from it.
func pyReprByExponent(f float64) string {
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, err := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if err != nil {
		panic(err)
	}
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func FuzzFormatFloat(f *testing.F) {
	for _, v := range []float64{0, 1, 1e-4, 9.999999999999999e-05, 1e16, 9999999999999998, 5e-324, -2.5e-300, 123.456} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		s := FormatFloat(x)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(back) != bits {
			t.Fatalf("FormatFloat(%b) = %q does not parse back to the same float (%v, %v)", bits, s, back, err)
		}
		if x != 0 {
			if want := pyReprByExponent(x); s != want {
				t.Fatalf("FormatFloat(%v) = %q, want %q by the decimal-exponent rule", x, s, want)
			}
		}
		exp := strings.ContainsAny(s, "e")
		if a := math.Abs(x); exp != (a != 0 && (a < 1e-4 || a >= 1e16)) {
			t.Fatalf("FormatFloat(%v) = %q: wrong notation", x, s)
		}
		if !exp && !strings.Contains(s, ".") {
			t.Fatalf("FormatFloat(%v) = %q: fixed notation without a fraction", x, s)
		}
	})
}

func TestAppendJSONStringEscapesLikePython(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc", `"abc"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"\x00\x1f", `"\u0000\u001f"`},
		{"\x7f", "\"\x7f\""},
		{"größe ✓", `"größe ✓"`},
		{"bad\xffutf8", "\"bad\ufffdutf8\""},
	}
	for _, tt := range tests {
		if got := string(appendJSONString(nil, tt.in)); got != tt.want {
			t.Errorf("appendJSONString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestIdentifierAndHexForms(t *testing.T) {
	ids := []struct {
		in   string
		want bool
	}{
		{"a", true}, {"overall_known", true}, {"x9_", true}, {strings.Repeat("a", 64), true},
		{"", false}, {strings.Repeat("a", 65), false}, {"9a", false}, {"_a", false}, {"Abc", false},
		{"a-b", false}, {"a b", false}, {"é", false},
	}
	for _, tt := range ids {
		if got := isIdentifier(tt.in); got != tt.want {
			t.Errorf("isIdentifier(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	hexes := []struct {
		in   string
		want bool
	}{
		{strings.Repeat("0a", 32), true}, {strings.Repeat("0A", 32), false}, {strings.Repeat("a", 63), false},
		{strings.Repeat("g", 64), false}, {"", false},
	}
	for _, tt := range hexes {
		if got := isSHA256Hex(tt.in); got != tt.want {
			t.Errorf("isSHA256Hex(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	// Every byte value at every position of a valid hash, against the
	// definition one byte at a time.
	valid := []byte(strings.Repeat("0123456789abcdef", 4))
	for pos := range valid {
		for c := range 256 {
			s := slices.Clone(valid)
			s[pos] = byte(c)
			want := '0' <= c && c <= '9' || 'a' <= c && c <= 'f'
			if got := isSHA256Hex(string(s)); got != want {
				t.Fatalf("isSHA256Hex with byte %#x at %d = %v, want %v", c, pos, got, want)
			}
		}
	}
}

// plainPrefix never passes a byte that JSON escapes or that begins a
// multi-byte rune, wherever it stands and whatever surrounds it.
func TestPlainPrefix(t *testing.T) {
	needsEscape := func(c byte) bool { return c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf }
	for _, fill := range []byte{'a', ' ', '~', '0', '!', '#', '[', ']'} {
		for n := 0; n <= 24; n++ {
			for pos := 0; pos < n; pos++ {
				for c := range 256 {
					s := []byte(strings.Repeat(string(fill), n))
					s[pos] = byte(c)
					got := plainPrefix(string(s))
					if got%8 != 0 || got > n || needsEscape(byte(c)) && got > pos {
						t.Fatalf("plainPrefix(%q) = %d", s, got)
					}
					if !needsEscape(byte(c)) && got != n/8*8 {
						t.Fatalf("plainPrefix(%q) = %d, want %d: nothing to escape", s, got, n/8*8)
					}
				}
			}
		}
	}
}

// The thresholds text cache must never hand one value the text of another,
// including values equal under == but written differently.
func TestThresholdsCanonicalJSONCacheKeysOnBits(t *testing.T) {
	a := validThresholds()
	b := a
	b.PositionKnownStdM = math.Copysign(0, -1)
	c := a
	c.PositionKnownStdM = 0
	for _, th := range []Thresholds{a, b, c, a, c, b} {
		if got, want := string(th.AppendCanonicalJSON(nil)), string(th.appendCanonicalJSON(nil)); got != want {
			t.Fatalf("cached %s, want %s", got, want)
		}
	}
}

// TestCanonicalJSONLevelOutOfRange: a level outside the three is written
// by its String, in place, whichever fragment holds it.
func TestCanonicalJSONLevelOutOfRange(t *testing.T) {
	a := validAssessment(t, 3, LevelKnown)
	a.AxisLevel[0], a.AxisLevel[8] = 200, LevelUnknown
	a.BlockLevel[1] = 7
	got := string(a.AppendCanonicalJSON(nil))
	for _, want := range []string{
		`"orientation_axis_y_level":"known","orientation_axis_y_std_rad":0.001,"orientation_axis_z_level":"unknown","orientation_axis_z_std_rad":0.001,"orientation_overall_level":"known"`,
		`,"position_axis_x_level":"level(200)","position_axis_x_std_m":0.01,"position_axis_y_level":"known"`,
		`,"velocity_overall_level":"level(7)"}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("canonical JSON\n%s\nlacks\n%s", got, want)
		}
	}
}
