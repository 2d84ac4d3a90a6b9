package px4sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

var (
	cmdHold  = px4.Command{Command: px4.CmdDoSetMode, Param1: 1, Param2: px4.MainModeAuto, Param3: px4.AutoSubModeLoiter, TargetSystem: 1, TargetComponent: 1}
	cmdPosct = px4.Command{Command: px4.CmdDoSetMode, Param1: 1, Param2: px4.MainModePosctl, TargetSystem: 1, TargetComponent: 1}
	cmdLand  = px4.Command{Command: px4.CmdNavLand, TargetSystem: 1, TargetComponent: 1}
	cmdSetLd = px4.Command{Command: px4.CmdDoSetMode, Param1: 1, Param2: px4.MainModeAuto, Param3: px4.AutoSubModeLand, TargetSystem: 1, TargetComponent: 1}
	cmdRTL   = px4.Command{Command: px4.CmdNavReturnToLaunch, TargetSystem: 1, TargetComponent: 1}
	cmdKill  = px4.Command{Command: px4.CmdComponentArmDisarm, Param1: px4.ArmingActionDisarm, Param2: px4.ForceArmDisarmMagic, TargetSystem: 1, TargetComponent: 1}
)

// answers is what the simulated PX4 answered to one send, in a few words:
// "ack <result>" and "mode <nav_state> armed <bool>" in arrival order.
func answers(arr []executor.Arrival) string {
	var out []string
	for _, a := range arr {
		switch {
		case a.Ack != nil:
			out = append(out, fmt.Sprintf("ack %d", a.Ack.Result))
		case a.Status != nil:
			out = append(out, fmt.Sprintf("mode %d armed %t", a.Status.NavState, a.Status.Armed))
		}
	}
	return strings.Join(out, ", ")
}

// TestPX4ByKind: a kind's behaviour overrides the script for every command
// that asks for that kind's mode, whichever command carries it.
func TestPX4ByKind(t *testing.T) {
	byKind := []KindBehaviour{
		{decisions.KindEngageLand, Deny}, {decisions.KindHold, NeverReach},
		{decisions.KindYieldToPilot, Reject}, {decisions.KindEngageLand, Accept}, // the first entry of a kind wins
	}
	tests := []struct {
		name string
		cmd  px4.Command
		want string
	}{
		{"land denied", cmdLand, "ack 2"},
		{"land by mode denied", cmdSetLd, "ack 2"},
		{"hold accepted, never reached", cmdHold, "ack 0"},
		{"position control rejected", cmdPosct, "ack 1"},
		{"rtl follows the script", cmdRTL, "ack 0, mode 5 armed true"},
		{"kill follows the script", cmdKill, "ack 0, mode 14 armed false"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{Script: []Behaviour{Accept}, ByKind: byKind})
			if err := p.SendCommand(tc.cmd, executor.SendInfo{ActionID: 1, Attempt: 1, TimeNs: 1e9}); err != nil {
				t.Fatal(err)
			}
			if got := answers(p.Receive(1e12)); got != tc.want {
				t.Fatalf("answers %q, want %q", got, tc.want)
			}
		})
	}
}

// An overridden action still takes its place in the script's cycle.
func TestPX4ByKindKeepsTheScriptCycle(t *testing.T) {
	p := New(Options{Script: []Behaviour{Accept, Deny}, ByKind: []KindBehaviour{{decisions.KindHold, NeverReach}}})
	var got []string
	for i, c := range []px4.Command{cmdHold, cmdRTL, cmdHold, cmdRTL} {
		if err := p.SendCommand(c, executor.SendInfo{ActionID: uint64(i + 1), Attempt: 1, TimeNs: int64(i+1) * 1e9}); err != nil {
			t.Fatal(err)
		}
		got = append(got, answers(p.Receive(int64(i+1)*1e9+5e8)))
	}
	want := []string{"ack 0", "ack 2", "ack 0", "ack 2"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("answers %q, want %q", got, want)
	}
}

func TestParseBehaviour(t *testing.T) {
	for i, n := range behaviourNames {
		if b, err := ParseBehaviour(n); err != nil || b != Behaviour(i) || b.String() != n {
			t.Errorf("%s: %v %v", n, b, err)
		}
	}
	if _, err := ParseBehaviour("crash"); err == nil || !strings.Contains(err.Error(), "never_reach") {
		t.Fatalf("err %v", err)
	}
}
