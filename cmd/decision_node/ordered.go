package main

import (
	"fmt"
	"io"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
)

// inLogTimeOrder returns the recording as a source in log-time order: an
// indexed recording is read so; an unindexed one is sorted within
// audit.DefaultReorderWindow. The returned func reports, after the run,
// the messages that were further out of order and were processed as read.
func inLogTimeOrder(reader *bag.Reader, path string, stderr io.Writer) (audit.Source, func()) {
	if reader.Indexed() {
		return reader, func() {}
	}
	r := audit.Reorder(reader, audit.DefaultReorderWindow)
	return r, func() {
		if n := r.OutOfWindow(); n > 0 {
			fmt.Fprintf(stderr, "decision_node: %s: unindexed recording: %d messages were more than %s out of log-time order and were processed as read\n",
				path, n, audit.DefaultReorderWindow)
		}
	}
}
