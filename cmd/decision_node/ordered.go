package main

import (
	"fmt"
	"io"

	"github.com/ghost-robotics/ghost/pkg/audit"
)

// inLogTimeOrder returns src in log-time order: indexed files are read so
// (several through a bag.Chain, which merges them where they meet); a
// source with an unindexed file is sorted within audit.DefaultReorderWindow. The returned func reports,
// after the run, the messages that were further out of order and were
// processed as read.
func inLogTimeOrder(src audit.Source, indexed bool, name string, stderr io.Writer) (audit.Source, func()) {
	if indexed {
		return src, func() {}
	}
	r := audit.Reorder(src, audit.DefaultReorderWindow)
	return r, func() {
		if n := r.OutOfWindow(); n > 0 {
			fmt.Fprintf(stderr, "decision_node: %s: %d messages were more than %s out of log-time order and were processed as read\n",
				name, n, audit.DefaultReorderWindow)
		}
	}
}
