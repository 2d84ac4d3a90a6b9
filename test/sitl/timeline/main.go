// Command timeline prints what followed an event in a ghost recording: the
// first decision, the first that was not proceed and the first of each
// other kind, the first command sent and its outcome, and every change of
// the vehicle's flight mode and arming as the beliefs carry them, each with
// its delay after the event. The SITL scenario (test/sitl/gps_loss.sh)
// gives it the moment it took the GPS away.
//
//	timeline --event-ns 1764633600000000000 node.mcap
//
// Two clocks: log times (on a live node's own recording and on a rosbag2
// recording of the same graph, receive times on the host's clock) and the
// vehicle's time, the belief stamps (PX4's clock with input.source px4). A
// row's vehicle time is the newest belief stamp recorded up to it, and the
// event's the newest at or before the event. They differ when the simulator runs
// slower than real time: PX4 follows the simulator in lockstep, and its
// deadlines and failsafe delays count in its own time, as ghost's do.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "timeline:", err)
		os.Exit(1)
	}
}

// row is one line of the timeline.
type row struct {
	at      uint64
	vehicle int64 // the newest belief stamp up to the row, ns
	what    string
}

// Timeline follows one recording from an event on.
type Timeline struct {
	event     uint64
	rows      []row
	any       bool                    // a decision was seen since the event
	decided   bool                    // the first non-proceed decision was seen
	kinds     map[decisions.Kind]bool // kinds other than proceed decided since the event
	sent      map[uint64]bool
	mode      decisions.FlightMode
	armed     bool
	haveState bool
	// stamp is the newest belief stamp; eventStamp the newest at or before
	// the event (so within one belief period of it), once a message after
	// it was read.
	stamp, eventStamp int64
	eventSeen         bool

	vs ros2msg.VehicleState
	dr ros2msg.DecisionRationale
	ar ros2msg.ActionReceipt
}

var receiptEvents = map[uint8]string{0: "sent", 1: "retried", 4: "accepted", 5: "reached", 6: "failed", 7: "superseded", 8: "refused"}

var failures = map[uint8]string{1: "not_applicable", 2: "blocked_by_policy", 3: "transport", 4: "executor"}

// Add takes one message; times before the event update the vehicle's
// state only.
func (t *Timeline) Add(m bag.Message) error {
	after := m.LogTime >= t.event
	if m.LogTime > t.event && !t.eventSeen {
		t.eventSeen, t.eventStamp = true, t.stamp
	}
	switch m.Topic {
	case "/state/nav":
		if err := t.vs.UnmarshalCDR(m.Data); err != nil {
			return fmt.Errorf("/state/nav at %d: %w", m.LogTime, err)
		}
		mode, armed := decisions.FlightMode(t.vs.Flight.FlightMode), t.vs.Flight.Armed
		t.stamp = max(t.stamp, t.vs.StampSimNs)
		if after && t.haveState && (mode != t.mode || armed != t.armed) {
			t.rows = append(t.rows, row{m.LogTime, t.stamp, fmt.Sprintf("vehicle: %s, armed %v (was %s, armed %v)", mode, armed, t.mode, t.armed)})
		}
		t.mode, t.armed, t.haveState = mode, armed, true
	case "/decisions":
		if err := t.dr.UnmarshalCDR(m.Data); err != nil {
			return fmt.Errorf("/decisions at %d: %w", m.LogTime, err)
		}
		k := decisions.Kind(t.dr.Decision.Kind)
		if !after {
			return nil
		}
		// How soon ghost decides at all after the event (a restarted node
		// after its ready line, say), whatever it decides.
		if !t.any {
			t.any = true
			t.rows = append(t.rows, row{m.LogTime, t.stamp, fmt.Sprintf("first decision: %s (%s)", k, t.dr.Decision.Reason)})
		}
		if k == decisions.KindProceed || t.kinds[k] {
			return nil
		}
		if t.kinds == nil {
			t.kinds = map[decisions.Kind]bool{}
		}
		t.kinds[k] = true
		// Advisory runs send nothing: the first decision of each kind is
		// what tells when ghost would have landed.
		if !t.decided {
			t.decided = true
			t.rows = append(t.rows, row{m.LogTime, t.stamp, fmt.Sprintf("first decision other than proceed: %s (%s)", k, t.dr.Decision.Reason)})
		} else {
			t.rows = append(t.rows, row{m.LogTime, t.stamp, fmt.Sprintf("first %s decision (%s)", k, t.dr.Decision.Reason)})
		}
	case "/decisions/actions":
		if err := t.ar.UnmarshalCDR(m.Data); err != nil {
			return fmt.Errorf("/decisions/actions at %d: %w", m.LogTime, err)
		}
		if !after {
			return nil
		}
		ev := receiptEvents[t.ar.Event]
		if ev == "" || ev == "sent" && t.sent[t.ar.ActionID] {
			return nil
		}
		if ev == "sent" {
			t.sent[t.ar.ActionID] = true
		}
		what := fmt.Sprintf("action %d %s: %s, command %d", t.ar.ActionID, ev, decisions.Kind(t.ar.Kind), t.ar.Command)
		if f := failures[t.ar.Failure]; f != "" {
			what += ", " + f
		}
		if t.ar.Detail != "" {
			what += ": " + t.ar.Detail
		}
		t.rows = append(t.rows, row{m.LogTime, t.stamp, what})
	}
	return nil
}

// Print writes the rows with their delay after the event.
func (t *Timeline) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "after event\tvehicle time\twhat\n")
	for _, r := range t.rows {
		fmt.Fprintf(tw, "%.3f s\t%.3f s\t%s\n", time.Duration(r.at-t.event).Seconds(),
			time.Duration(r.vehicle-t.eventStamp).Seconds(), r.what)
	}
	return tw.Flush()
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("timeline", flag.ContinueOnError)
	event := fs.Uint64("event-ns", 0, "the event's time, ns on the recording's log-time clock")
	limit := fs.Int("rows", 40, "at most this many rows")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: timeline --event-ns T recording.mcap")
	}
	r, err := bag.OpenRecording(fs.Arg(0), bag.ReaderOptions{Topics: []string{"/state/nav", "/decisions", "/decisions/actions"}})
	if err != nil {
		return err
	}
	defer r.Close()
	t := &Timeline{event: *event, sent: map[uint64]bool{}}
	for m, err := range r.Messages() {
		if err != nil {
			return err
		}
		if err := t.Add(m); err != nil {
			return err
		}
		if len(t.rows) >= *limit {
			break
		}
	}
	return t.Print(stdout)
}
