// Command faultsum summarises one flight of the fault script
// (test/sitl/faults.sh) around its fault: the decisions before, during and
// after it, the longest gap between two decisions, the commands, the
// /diagnostics levels and the counters that changed, and what each
// recording holds.
//
//	faultsum --from-ns T0 --to-ns T1 --node node.mcap --bag bag/bag_0.mcap
//
// Times are log times: receive times on the host's clock, as the node and
// rosbag2 record them, and as the script takes the fault's start and end.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "faultsum:", err)
		os.Exit(1)
	}
}

// window is before, during or after the fault.
type window int

const (
	before window = iota
	during
	after
)

var windowNames = [...]string{"before", "during", "after"}

// Summary accumulates one flight.
type Summary struct {
	from, to uint64

	decisions [3]map[decisions.Kind]int
	lastDec   uint64
	gap       [2]uint64 // the longest gap between two decisions: its ends
	sent      [3]map[string]int
	outcomes  []string

	levels    [3][4]int
	firstBad  string // the first report above OK at or after the fault
	lastDiag  string
	atFault   map[string]string // counters of the last report before the fault
	atEnd     map[string]string
	navGap    [2]uint64
	lastNav   uint64
	dr        ros2msg.DecisionRationale
	ar        ros2msg.ActionReceipt
	da        ros2msg.DiagnosticArray
	first     uint64
	last      uint64
	count     int
	readError error
}

func newSummary(from, to uint64) *Summary {
	s := &Summary{from: from, to: to}
	for i := range s.decisions {
		s.decisions[i] = map[decisions.Kind]int{}
		s.sent[i] = map[string]int{}
	}
	return s
}

func (s *Summary) window(t uint64) window {
	switch {
	case t < s.from:
		return before
	case t < s.to:
		return during
	}
	return after
}

// rel is t in seconds after the fault's start.
func (s *Summary) rel(t uint64) string {
	return fmt.Sprintf("%+.2f s", float64(int64(t)-int64(s.from))/1e9)
}

var receiptEvents = map[uint8]string{0: "sent", 1: "retried", 4: "accepted", 5: "reached", 6: "failed", 7: "superseded", 8: "refused"}

var levelNames = [...]string{"OK", "WARN", "ERROR", "STALE"}

// Add takes one message of the node's recording or the bag.
func (s *Summary) Add(m bag.Message, diagnostics bool) error {
	if s.count == 0 {
		s.first = m.LogTime
	}
	s.count++
	s.last = max(s.last, m.LogTime)
	w := s.window(m.LogTime)
	switch m.Topic {
	case "/decisions":
		if err := s.dr.UnmarshalCDR(m.Data); err != nil {
			return fmt.Errorf("/decisions at %d: %w", m.LogTime, err)
		}
		s.decisions[w][decisions.Kind(s.dr.Decision.Kind)]++
		if diagnostics {
			return nil
		}
		if s.lastDec != 0 && m.LogTime-s.lastDec > s.gap[1]-s.gap[0] {
			s.gap = [2]uint64{s.lastDec, m.LogTime}
		}
		s.lastDec = m.LogTime
	case "/state/nav":
		if diagnostics {
			return nil
		}
		if s.lastNav != 0 && m.LogTime-s.lastNav > s.navGap[1]-s.navGap[0] {
			s.navGap = [2]uint64{s.lastNav, m.LogTime}
		}
		s.lastNav = m.LogTime
	case "/decisions/actions":
		if diagnostics {
			return nil
		}
		if err := s.ar.UnmarshalCDR(m.Data); err != nil {
			return fmt.Errorf("/decisions/actions at %d: %w", m.LogTime, err)
		}
		ev := receiptEvents[s.ar.Event]
		if ev == "" {
			return nil
		}
		s.sent[w][ev+" "+decisions.Kind(s.ar.Kind).String()]++
		if w != before && ev != "sent" && len(s.outcomes) < 6 {
			o := fmt.Sprintf("%s %s %s", s.rel(m.LogTime), decisions.Kind(s.ar.Kind), ev)
			if s.ar.Detail != "" {
				o += " (" + s.ar.Detail + ")"
			}
			s.outcomes = append(s.outcomes, o)
		}
	case "/diagnostics":
		if !diagnostics {
			return nil
		}
		if err := s.da.UnmarshalCDR(m.Data); err != nil {
			return fmt.Errorf("/diagnostics at %d: %w", m.LogTime, err)
		}
		for _, st := range s.da.Status {
			lv := min(int(st.Level), 3)
			s.levels[w][lv]++
			line := fmt.Sprintf("%s %s %q", s.rel(m.LogTime), levelNames[lv], st.Message)
			if w != before && lv > 0 && s.firstBad == "" {
				s.firstBad = line
			}
			s.lastDiag = line
			kv := map[string]string{}
			for _, v := range st.Values {
				kv[v.Key] = v.Value
			}
			if w == before {
				s.atFault = kv
			}
			s.atEnd = kv
		}
	}
	return nil
}

func kinds(m map[decisions.Kind]int) string {
	var parts []string
	total := 0
	for k := decisions.Kind(0); k < 16; k++ {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
			total += m[k]
		}
	}
	if total == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Print writes the summary of the node's recording (with its decisions)
// and of the bag (with /diagnostics).
func (s *Summary) Print(w io.Writer, node, diag *Summary) {
	for i := range 3 {
		fmt.Fprintf(w, "decisions %s: %s\n", windowNames[i], kinds(node.decisions[i]))
	}
	// The bag holds what the node published, also after its own
	// recording stopped (a full disk).
	for i := range 3 {
		fmt.Fprintf(w, "decisions published %s (rosbag2): %s\n", windowNames[i], kinds(diag.decisions[i]))
	}
	if g := node.gap; g[1] > g[0] {
		fmt.Fprintf(w, "longest gap between decisions: %.2f s, from %s to %s\n", float64(g[1]-g[0])/1e9, s.rel(g[0]), s.rel(g[1]))
	}
	if g := node.navGap; g[1] > g[0] {
		fmt.Fprintf(w, "longest gap between beliefs (/state/nav): %.2f s, from %s to %s\n", float64(g[1]-g[0])/1e9, s.rel(g[0]), s.rel(g[1]))
	}
	for i := range 3 {
		fmt.Fprintf(w, "commands %s: %s\n", windowNames[i], counts(node.sent[i]))
	}
	if len(node.outcomes) > 0 {
		fmt.Fprintf(w, "command outcomes from the fault on: %s\n", strings.Join(node.outcomes, "; "))
	}
	for i := range 3 {
		l := diag.levels[i]
		fmt.Fprintf(w, "/diagnostics %s: OK %d, WARN %d, ERROR %d\n", windowNames[i], l[0], l[1], l[2])
	}
	if diag.firstBad != "" {
		fmt.Fprintf(w, "first /diagnostics above OK from the fault on: %s\n", diag.firstBad)
	}
	if diag.lastDiag != "" {
		fmt.Fprintf(w, "last /diagnostics: %s\n", diag.lastDiag)
	}
	var changed []string
	for _, k := range sortedKeys(diag.atEnd) {
		if strings.HasPrefix(k, "decisions") || strings.HasPrefix(k, "received.") || k == "contexts_assembled" ||
			strings.HasPrefix(k, "recording.bytes") || strings.HasPrefix(k, "recording.messages") || k == "vehicle.beliefs" || k == "receipts_ok" {
			continue
		}
		if v := diag.atEnd[k]; v != diag.atFault[k] {
			changed = append(changed, fmt.Sprintf("%s %s->%s", k, orZero(diag.atFault[k]), v))
		}
	}
	if len(changed) > 0 {
		fmt.Fprintf(w, "counters changed since the fault: %s\n", strings.Join(changed, ", "))
	}
	var end []string
	for _, k := range []string{"input_queue.high_water", "input_queue.dropped", "inputs.stale_episodes", "inputs.longest_gap_ms", "without_assessment", "recording.failures"} {
		if v, ok := diag.atEnd[k]; ok {
			end = append(end, k+" "+v)
		}
	}
	if len(end) > 0 {
		fmt.Fprintf(w, "at the end: %s\n", strings.Join(end, ", "))
	}
	fmt.Fprintf(w, "recorded: node.mcap %d messages (decisions, actions, inputs) up to %s", node.count, s.rel(node.last))
	if node.readError != nil {
		fmt.Fprintf(w, ", then: %v", node.readError)
	}
	fmt.Fprintf(w, "; bag %d messages up to %s", diag.count, s.rel(diag.last))
	if diag.readError != nil {
		fmt.Fprintf(w, ", then: %v", diag.readError)
	}
	fmt.Fprintln(w)
}

func orZero(v string) string {
	if v == "" {
		return "0"
	}
	return v
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// read adds every message of path; a read error after some messages is
// kept (an unfinished file is read up to where its writer stopped).
func read(path string, s *Summary, diagnostics bool) error {
	r, err := bag.OpenRecording(path, bag.ReaderOptions{Topics: []string{"/decisions", "/decisions/actions", "/state/nav", "/diagnostics"}})
	if err != nil {
		return err
	}
	defer r.Close()
	for m, err := range r.Messages() {
		if err != nil {
			s.readError = err
			return nil
		}
		if err := s.Add(m, diagnostics); err != nil {
			return err
		}
	}
	return nil
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("faultsum", flag.ContinueOnError)
	from := fs.Uint64("from-ns", 0, "the fault's start, ns on the log-time clock")
	to := fs.Uint64("to-ns", 0, "the fault's end, ns on the log-time clock")
	nodePath := fs.String("node", "", "the node's own recording")
	bagPath := fs.String("bag", "", "the rosbag2 recording's MCAP file (with /diagnostics)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *nodePath == "" || *bagPath == "" || *from == 0 || *to < *from {
		return errors.New("usage: faultsum --from-ns T0 --to-ns T1 --node node.mcap --bag bag_0.mcap")
	}
	node, diag := newSummary(*from, *to), newSummary(*from, *to)
	if err := read(*nodePath, node, false); err != nil {
		return fmt.Errorf("%s: %w", *nodePath, err)
	}
	if err := read(*bagPath, diag, true); err != nil {
		return fmt.Errorf("%s: %w", *bagPath, err)
	}
	node.Print(stdout, node, diag)
	return nil
}
