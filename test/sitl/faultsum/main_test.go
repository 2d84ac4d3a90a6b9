package main

import (
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

const sec = uint64(1e9)

func decision(t *testing.T, at uint64, k decisions.Kind) bag.Message {
	t.Helper()
	m := ros2msg.NewDecisionRationale()
	m.Decision.Kind = uint8(k)
	data, err := m.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	return bag.Message{Topic: "/decisions", LogTime: at, Data: data}
}

func diagnostic(t *testing.T, at uint64, level uint8, msg string, kv ...string) bag.Message {
	t.Helper()
	st := ros2msg.DiagnosticStatus{Level: level, Message: msg}
	for i := 0; i+1 < len(kv); i += 2 {
		st.Values = append(st.Values, ros2msg.DiagnosticKeyValue{Key: kv[i], Value: kv[i+1]})
	}
	m := ros2msg.DiagnosticArray{Status: []ros2msg.DiagnosticStatus{st}}
	data, err := m.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	return bag.Message{Topic: "/diagnostics", LogTime: at, Data: data}
}

// The summary puts each decision and report in its window, finds the
// longest gap and the first report above OK from the fault on, and lists
// the counters that changed.
func TestSummary(t *testing.T) {
	from, to := 10*sec, 20*sec
	node, diag := newSummary(from, to), newSummary(from, to)
	for _, m := range []bag.Message{
		decision(t, 9*sec, decisions.KindProceed),
		decision(t, 10*sec-1, decisions.KindHold),
		decision(t, 21*sec, decisions.KindProceed),
		decision(t, 22*sec, decisions.KindProceed),
	} {
		if err := node.Add(m, false); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []bag.Message{
		decision(t, 12*sec, decisions.KindEngageLand),
		diagnostic(t, 9*sec, 0, "fine", "inputs.stale_episodes", "0"),
		diagnostic(t, 11*sec, 2, "inputs stale", "inputs.stale_episodes", "1"),
		diagnostic(t, 21*sec, 0, "fine again", "inputs.stale_episodes", "1"),
	} {
		if err := diag.Add(m, true); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	node.Print(&b, node, diag)
	got := b.String()
	for _, want := range []string{
		"decisions before: 2 (proceed 1, hold 1)",
		"decisions during: 0\n",
		"decisions after: 2 (proceed 2)",
		"longest gap between decisions: 11.00 s, from -0.00 s to +11.00 s",
		"/diagnostics during: OK 0, WARN 0, ERROR 1",
		`first /diagnostics above OK from the fault on: +1.00 s ERROR "inputs stale"`,
		"counters changed since the fault: inputs.stale_episodes 0->1",
		"decisions published during (rosbag2): 1 (engage_land 1)",
		"at the end: inputs.stale_episodes 1\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}

func TestRunRefusesMissingArguments(t *testing.T) {
	for _, args := range [][]string{nil, {"--from-ns", "5", "--to-ns", "4", "--node", "a", "--bag", "b"}, {"--from-ns", "5", "--to-ns", "6", "--node", "a"}} {
		if err := run(args, &strings.Builder{}); err == nil {
			t.Errorf("run(%v) accepted", args)
		}
	}
}
