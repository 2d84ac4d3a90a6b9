package executor

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// Log is the dry-run executor: it writes one line per request saying what
// it would have sent, and sends nothing. No vehicle answers it, so its
// actions end as transport failures after the Loop's retries, which is
// the truth: nothing acknowledged them.
type Log struct {
	id      string
	kinds   []decisions.Kind
	mapping Mapping
	w       io.Writer
}

// NewLog returns a log executor under id serving kinds with mapping (nil:
// PX4Command), writing to w (nil: nowhere).
func NewLog(id string, kinds []decisions.Kind, mapping Mapping, w io.Writer) *Log {
	if mapping == nil {
		mapping = PX4Command
	}
	if w == nil {
		w = io.Discard
	}
	return &Log{id: id, kinds: append([]decisions.Kind(nil), kinds...), mapping: mapping, w: w}
}

// ID returns the executor's id.
func (l *Log) ID() string { return l.id }

// Kinds returns the kinds it serves.
func (l *Log) Kinds() []decisions.Kind { return append([]decisions.Kind(nil), l.kinds...) }

// Command returns the mapping of k.
func (l *Log) Command(k decisions.Kind) (engine.VehicleCommand, engine.Expectation, error) {
	return l.mapping(k)
}

// Send writes the line; a write error is returned (and recorded on the
// receipt).
func (l *Log) Send(req session.ActionRequest) error {
	_, err := io.WriteString(l.w, FormatRequest(l.id, req)+"\n")
	return err
}

// Conclude does nothing: the log has no state per action.
func (l *Log) Conclude(uint64) {}

// FormatRequest describes a request in one line: "t=1.500000000s log:
// action 3 attempt 1 hold (decision 1500000000) -> vehicle 1 command 176
// params [1 4 3 0 0 0 0] (not sent)".
func FormatRequest(id string, req session.ActionRequest) string {
	var b strings.Builder
	b.WriteString("t=")
	b.WriteString(strconv.FormatFloat(float64(req.TimeNs)/1e9, 'f', 9, 64))
	fmt.Fprintf(&b, "s %s: action %d attempt %d %s (decision %d) -> vehicle %d command %d params [",
		id, req.ActionID, req.Attempt, req.Kind, req.Stamp, req.Vehicle, req.Command.ID)
	for i, p := range req.Command.Params {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(p, 'g', -1, 64))
	}
	b.WriteString("] (not sent)")
	return b.String()
}
