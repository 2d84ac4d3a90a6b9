package node

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/testpolicy"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

// TestNodeFollowsPX4TimeInLockstep: PX4 in lockstep with a simulator at
// half real time, its stamps advancing 10 ms per 20 ms of receive time. The
// node decides every sample with its assessment, a rule's `for: 2s` holds
// after 2 s of PX4's time (4 s of receive time), nothing else fires, and
// the node's own recording verifies.
func TestNodeFollowsPX4TimeInLockstep(t *testing.T) {
	prefix := px4Prefix(t)
	defs, err := px4.LoadFromAmentIndex(prefix)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.Input.Source = config.SourcePX4
	cfg.Input.PX4Release = "1.15"
	cfg.PolicyFile = filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(cfg.PolicyFile, []byte(testpolicy.HoldAfterUncertain2s), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.Recording.Path = filepath.Join(t.TempDir(), "node.mcap")
	h := startWith(t, cfg, prefix)

	const (
		period      = 10 * time.Millisecond // PX4 time between samples
		uncertainAt = 3 * time.Second       // PX4 time
		end         = 6 * time.Second
	)
	boot := uint64(20_000_000) // µs: PX4's time at the first sample
	recv := func(p time.Duration) time.Time { return base.Add(2 * p) }
	for p := time.Duration(0); p <= end; p += period {
		us := boot + uint64(p/time.Microsecond)
		if p%(500*time.Millisecond) == 0 {
			h.deliver("/fmu/out/vehicle_status", px4Message(t, defs, px4.MsgVehicleStatus, nil,
				map[string]uint64{"timestamp": us, "arming_state": 2, "nav_state": uint64(px4.NavStateOffboard)}), recv(p))
		}
		pv := 0.01
		if p >= uncertainAt {
			pv = 1
		}
		h.deliver("/fmu/out/vehicle_odometry", px4Message(t, defs, px4.MsgVehicleOdometry,
			map[string]float64{"q[0]": 1, "position_variance[0]": pv, "position_variance[1]": pv, "position_variance[2]": pv,
				"velocity_variance[0]": 0.01, "velocity_variance[1]": 0.01, "velocity_variance[2]": 0.01,
				"orientation_variance[0]": 1e-4, "orientation_variance[1]": 1e-4, "orientation_variance[2]": 1e-4},
			map[string]uint64{"timestamp": us, "timestamp_sample": us, "pose_frame": 1, "velocity_frame": 1}), recv(p))
	}
	h.sync(recv(end))
	if err := h.shutdown(); err != nil {
		t.Fatalf("Run: %v\n%s", err, h.logs)
	}

	ds := h.decisionsOut()
	if want := int(end/period) + 1; len(ds) != want {
		t.Fatalf("%d decisions, want one per sample (%d)", len(ds), want)
	}
	hold := int64(-1)
	for _, d := range ds {
		switch {
		case d.SelfAssessmentSHA256 == "" || d.Decision.Reason != "nominal" && d.Decision.Reason != "uncertain_for_2s":
			t.Fatalf("decision %d: %s/%s, assessment %q", d.Decision.DecisionStampSimNs, d.Decision.Kind, d.Decision.Reason, d.SelfAssessmentSHA256)
		case d.Decision.Kind == decisions.KindHold && hold < 0:
			hold = d.Decision.DecisionStampSimNs
		}
	}
	uncertain := int64(boot)*1000 + int64(uncertainAt)
	if got := time.Duration(hold - uncertain); got != 2*time.Second {
		t.Fatalf("held %v of PX4 time after the belief turned uncertain (%v of receive time), want 2s of PX4 time", got, 2*got)
	}
	if rep := verify(t, cfg.Recording.Path, cfg); !rep.Passed() || rep.Decisions != uint64(len(ds)) {
		t.Fatalf("verify: %s, %d decisions: %v %v", rep.Verdict, rep.Decisions, rep.Findings, rep.Notes)
	}
}
