package standin

import (
	"fmt"
	"sort"

	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
)

// encoder writes one px4_msgs message of the release by field name; a
// field the release lacks is an error (every field written exists in
// 1.14 to 1.16).
type encoder struct {
	msg string
	w   *dynamic.Writer
}

func newEncoder(d *px4.Definitions, msg string) (*encoder, error) {
	p, err := d.Plan(msg)
	if err != nil {
		return nil, fmt.Errorf("px4standin: %w", err)
	}
	w, err := p.NewWriter()
	if err != nil {
		return nil, fmt.Errorf("px4standin: %s: %w", msg, err)
	}
	return &encoder{msg: msg, w: w}, nil
}

// encode sets the fields (in name order, so an error is reproducible) on
// a zeroed message and returns its bytes.
func (e *encoder) encode(uints map[string]uint64, bools map[string]bool) ([]byte, error) {
	e.w.Reset()
	for _, k := range sortedKeys(uints) {
		if err := e.w.SetUint(k, uints[k]); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", e.msg, k, err)
		}
	}
	for _, k := range sortedKeys(bools) {
		if err := e.w.SetBool(k, bools[k]); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", e.msg, k, err)
		}
	}
	return e.w.Bytes(), nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
