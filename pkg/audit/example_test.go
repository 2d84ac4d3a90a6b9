package audit_test

import (
	"bytes"
	"fmt"
	"log"
	"time"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/sim"
)

// Decide a short simulated flight into an in-memory recording with Replay,
// then audit it with Verify: every decision's hash chain holds and the
// Loop, fed the recording, decides each one again identically.
func ExampleVerify() {
	v, err := sim.NewVehicle(sim.Options{Duration: 5 * time.Second, RateHz: 20, Thresholds: decisions.Thresholds{
		PositionKnownStdM: 0.5, PositionUnknownStdM: 2, VelocityKnownStdMps: 0.2, VelocityUnknownStdMps: 1,
		OrientationKnownStdRad: 0.05, OrientationUnknownStdRad: 0.2, SchemaVersion: decisions.SchemaVersion,
	}})
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	rec, err := bag.NewRecorder(&buf, bag.RecorderOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := audit.Replay(sim.NewPublisher(v, nil), rec, audit.ReplayOptions{}); err != nil {
		log.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := bag.NewReader(bytes.NewReader(buf.Bytes()), bag.ReaderOptions{})
	if err != nil {
		log.Fatal(err)
	}
	report, err := audit.Verify(r, audit.VerifyOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(report.Verdict, report.Decisions, "decisions,",
		report.ChainCount(audit.ChainVerified)+report.ChainCount(audit.ChainNoAssessmentClaimed), "chains hold,",
		report.RerunCount(audit.RerunMatched), "re-decided identically")
	// Output:
	// PASS 101 decisions, 101 chains hold, 101 re-decided identically
}
