// Package latency measures, from a live node's own recording, how long the
// node took from the last input of a belief stamp (the belief or its
// self-assessment, whichever came later) to its decision, and to the
// command that decision started.
//
// It reads the recording's publish times: the node sets an input's to the
// wall-clock time it was received and an output's to the wall-clock time it
// was recorded, while log times stay on the node's clock so that replay and
// verify re-derive the same joins. A recording without such publish times
// (a replay, a simulation, a recorder of another process) has nothing to
// measure, and Report says so. The figures are the node's own processing
// time on the host's wall clock, whatever clock its log times follow (the
// arrival clock, or /clock on sim time): a simulator slower than real time
// slows neither them nor what they measure, and none of them compares with
// an event of the vehicle, whose time may run slow. The package does not
// judge decisions: that is verify's job.
package latency

import (
	"fmt"
	"slices"
	"time"

	"github.com/ghost-robotics/ghost/internal/timediff"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Topics name the recorded topics the measurement reads.
type Topics struct {
	State, Assessment, Decisions, Actions string
}

// Stats summarise one latency.
type Stats struct {
	// N is the number of measured pairs.
	N int `json:"n"`
	// P50, P99 and Max are in nanoseconds in JSON; P99 is nearest-rank.
	P50 time.Duration `json:"p50_ns"`
	P99 time.Duration `json:"p99_ns"`
	Max time.Duration `json:"max_ns"`
}

// Report is what a recording shows.
type Report struct {
	// WallClock is false when no output's publish time differs from its
	// log time: the recording was not made by a live node, so nothing was
	// measured.
	WallClock bool `json:"wall_clock"`
	// Decisions: the last input of a stamp to the decision on it.
	Decisions Stats `json:"decisions"`
	// Commands: the last input of a stamp to the first send of the command
	// its decision started (the ActionReceipt "sent", recorded right after
	// the executor published the command).
	Commands Stats `json:"commands"`
	// Unmatched counts decisions and sends with no recorded input of their
	// stamp (a recording that started late); Undecodable counts messages of
	// the read topics that did not decode.
	Unmatched   uint64 `json:"unmatched"`
	Undecodable uint64 `json:"undecodable"`
}

// Measurer pairs inputs with outputs. Feed it a recording's messages in
// log-time order with Add, then call Report.
type Measurer struct {
	topics    Topics
	lastInput map[int64]uint64 // stamp -> newest input publish time
	decided   map[int64]uint64 // stamp -> that time, once decided
	dec, cmd  []time.Duration
	wall      bool
	unmatched uint64
	bad       uint64

	vs ros2msg.VehicleState
	sa ros2msg.BeliefSelfAssessment
	dr ros2msg.DecisionRationale
	ar ros2msg.ActionReceipt
}

// New returns a Measurer over t.
func New(t Topics) *Measurer {
	return &Measurer{topics: t, lastInput: map[int64]uint64{}, decided: map[int64]uint64{}}
}

// maxDecided bounds the decisions remembered for the commands they start.
const maxDecided = 4096

// eventSent is ActionReceipt.EVENT_SENT.
const eventSent = 0

// Add takes one recorded message; messages of other topics are ignored.
// A message that does not decode is counted and returned as an error; the
// measurement goes on without it.
func (m *Measurer) Add(msg bag.Message) error {
	switch msg.Topic {
	case m.topics.State:
		if err := m.vs.UnmarshalCDR(msg.Data); err != nil {
			return m.fail(msg, err)
		}
		m.input(m.vs.StampSimNs, msg.PublishTime)
	case m.topics.Assessment:
		if err := m.sa.UnmarshalCDR(msg.Data); err != nil {
			return m.fail(msg, err)
		}
		m.input(m.sa.BeliefStampSimNs, msg.PublishTime)
	case m.topics.Decisions:
		if err := m.dr.UnmarshalCDR(msg.Data); err != nil {
			return m.fail(msg, err)
		}
		m.wall = m.wall || msg.PublishTime != msg.LogTime
		s := m.dr.Decision.DecisionStampSimNs
		in, ok := m.lastInput[s]
		if !ok {
			m.unmatched++
			return nil
		}
		delete(m.lastInput, s)
		if len(m.decided) >= maxDecided {
			// A command is sent in the step of its decision, so only the
			// newest decisions can still be named by a first send.
			clear(m.decided)
		}
		m.decided[s] = in
		m.dec = append(m.dec, since(in, msg.PublishTime))
	case m.topics.Actions:
		if err := m.ar.UnmarshalCDR(msg.Data); err != nil {
			return m.fail(msg, err)
		}
		if m.ar.Event != eventSent || m.ar.Attempt != 1 {
			return nil
		}
		in, ok := m.decided[m.ar.DecisionStampSimNs]
		if !ok {
			m.unmatched++
			return nil
		}
		m.cmd = append(m.cmd, since(in, msg.PublishTime))
	}
	return nil
}

func (m *Measurer) input(stamp int64, pub uint64) {
	if pub > m.lastInput[stamp] {
		m.lastInput[stamp] = pub
	}
}

func (m *Measurer) fail(msg bag.Message, err error) error {
	m.bad++
	return fmt.Errorf("latency: %s at log time %d: %w", msg.Topic, msg.LogTime, err)
}

// since is to-from, clamped at 0: a wall clock stepped back is no latency.
// Publish times are unsigned: their difference saturates rather than wraps
// (beyond 292 years it would turn negative as a Duration).
func since(from, to uint64) time.Duration {
	return time.Duration(max(timediff.SubUnsigned(to, from), 0))
}

// Report summarises what was added.
func (m *Measurer) Report() Report {
	r := Report{WallClock: m.wall, Unmatched: m.unmatched, Undecodable: m.bad}
	if m.wall {
		r.Decisions, r.Commands = summarise(m.dec), summarise(m.cmd)
	}
	return r
}

// summarise sorts d in place and reads its nearest-rank percentiles.
func summarise(d []time.Duration) Stats {
	if len(d) == 0 {
		return Stats{}
	}
	slices.Sort(d)
	rank := func(p int) time.Duration { return d[(len(d)*p+99)/100-1] }
	return Stats{N: len(d), P50: rank(50), P99: rank(99), Max: d[len(d)-1]}
}
