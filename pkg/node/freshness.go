package node

import (
	"fmt"
	"time"

	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// freshness watches the arrival of belief inputs on the host's clock.
// Without a belief nothing is decided (a decision rests on a belief
// stamp), so a silent input is something the node cannot show by deciding:
// it reports it instead. Arrivals are taken on the node's wall clock
// (n.now), not /clock: a stopped link stops a simulator's clock bridge as
// well.
type freshness struct {
	last     time.Time // arrival of the newest belief; zero before the first
	topic    string    // its input
	stale    bool
	episodes uint64        // times the inputs went stale
	longest  time.Duration // the longest gap between two beliefs that ended
}

// beliefArrived notes a belief input received at now. After a stale spell
// it logs the gap and reports at once that the inputs are back.
func (n *node) beliefArrived(now time.Time, topic string) {
	f := &n.fresh
	gap := time.Duration(0)
	if !f.last.IsZero() {
		gap = now.Sub(f.last)
	}
	f.longest = max(f.longest, gap)
	f.last, f.topic = now, topic
	if f.stale {
		f.stale = false
		n.log.Warn("inputs resumed: beliefs arrive again; deciding goes on from this one",
			"input", topic, "gap_s", gap.Seconds())
		n.publishDiagnostics(now)
	}
}

// checkFreshness marks the inputs stale once no belief arrived for the
// input timeout: an error on the log and /rosout and a /diagnostics
// report at once, at most a tick after the timeout passed.
func (n *node) checkFreshness(now time.Time) {
	f := &n.fresh
	if f.stale || f.last.IsZero() || now.Sub(f.last) < n.cfg.InputTimeout {
		return
	}
	f.stale = true
	f.episodes++
	n.log.Error("inputs stale: no belief input within input_timeout_s; nothing is decided until one arrives",
		"input", f.topic, "silent_s", now.Sub(f.last).Seconds(), "input_timeout_s", n.cfg.InputTimeout.Seconds())
	n.publishDiagnostics(now)
}

// freshnessDiagnostics adds the inputs.* values and, while the inputs are
// stale, raises the report to ERROR and says so first in its message.
func (n *node) freshnessDiagnostics(now time.Time, kv func(string, uint64), status *ros2msg.DiagnosticStatus) {
	f := &n.fresh
	stale := uint64(0)
	age := uint64(0)
	if !f.last.IsZero() {
		age = uint64(max(now.Sub(f.last), 0).Milliseconds())
	}
	if f.stale {
		stale = 1
		status.Level = ros2msg.DiagnosticStatusError
		status.Message = fmt.Sprintf("inputs stale: no belief from %s for %.1f s (input_timeout_s %g), nothing decided; %s",
			f.topic, float64(age)/1e3, n.cfg.InputTimeout.Seconds(), status.Message)
	}
	kv("inputs.stale", stale)
	kv("inputs.stale_episodes", f.episodes)
	kv("inputs.belief_age_ms", age)
	kv("inputs.longest_gap_ms", uint64(f.longest.Milliseconds()))
}
