package honesty

import (
	"encoding/json"
	"math"
)

// Number is a figure of the Result. Its JSON is the number, or, when it is
// not finite (a huge but finite input, 1e308 m/s, squares to +Inf), the
// string "+Inf", "-Inf" or "NaN": the JSON output never fails on what a
// recording holds, and says where a figure overflowed.
type Number float64

// MarshalJSON writes a finite number as encoding/json writes a float64.
func (n Number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (n *Number) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case `"NaN"`:
		*n = Number(math.NaN())
		return nil
	case `"+Inf"`:
		*n = Number(math.Inf(1))
		return nil
	case `"-Inf"`:
		*n = Number(math.Inf(-1))
		return nil
	}
	var f float64
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	*n = Number(f)
	return nil
}

// num returns a pointer to x as a Number.
func num(x float64) *Number { n := Number(x); return &n }
