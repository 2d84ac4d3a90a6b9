package audit

import (
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/executor"
	"github.com/ghost-robotics/ghost/pkg/runner"
)

// TestVerifyRederivesANotApplicableRestart: the simulated flight decides
// hold on the ground, where it is not applicable, and keeps deciding it
// after arming: the Loop starts it again, and verify derives that restart
// from the recording; a trail without it fails.
func TestVerifyRederivesANotApplicableRestart(t *testing.T) {
	data := actionFlight(t)
	restart := -1
	rewrite(t, data, func(i int, rc *runner.ActionReceipt) bool {
		if restart < 0 && rc.Event == runner.ReceiptSent && strings.Contains(rc.Detail, "was not applicable before") {
			restart = i
		}
		return true
	})
	if restart < 0 {
		t.Fatal("the simulated flight has no action started again after not_applicable")
	}
	execs := []runner.Executor{executor.NewPX4(executor.PX4Options{})}
	if r := verifyActions(t, data, execs); !r.Passed() {
		t.Fatalf("the recorded trail does not verify: %v %v", r.Reasons, r.Problems)
	}
	dropped := rewrite(t, data, func(i int, _ *runner.ActionReceipt) bool { return i != restart })
	if r := verifyActions(t, dropped, execs); r.Passed() || r.FindingCount(FindingActionDiverged) == 0 {
		t.Fatalf("a trail without the restart verifies: %v", r.Reasons)
	}
}
