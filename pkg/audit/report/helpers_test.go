package report

import (
	"path/filepath"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// thresholds are valid ADR-0020 thresholds for tests.
var thresholds = decisions.Thresholds{
	PositionKnownStdM: 0.5, PositionUnknownStdM: 2,
	VelocityKnownStdMps: 0.2, VelocityUnknownStdMps: 1,
	OrientationKnownStdRad: 0.05, OrientationUnknownStdRad: 0.2,
	SchemaVersion: 1,
}

const ms = int64(1_000_000)

// belief returns a valid belief at stamp with a diagonal covariance of
// variance v on the nine assessed axes.
func belief(stamp int64, v float64, armed bool, mode decisions.FlightMode, pct float64) decisions.Belief {
	cov := make([]float64, decisions.CovarianceLen)
	for i := range 15 {
		cov[i*15+i] = v
	}
	return decisions.Belief{
		StampSimNs:   stamp,
		OrientationQ: [4]float64{1, 0, 0, 0},
		Covariance:   cov,
		Flight:       decisions.FlightStatus{Armed: armed, Mode: mode, BatteryV: 12 + 4*pct, BatteryPct: pct},
		Mission:      decisions.MissionStatus{Mode: decisions.MissionModeNavigate, Progress: 0.5, StartedSimNs: 0},
	}
}

func assess(t testing.TB, b decisions.Belief) decisions.SelfAssessment {
	t.Helper()
	a, err := decisions.Assess(b.StampSimNs, b.Covariance, thresholds)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func rationale(stamp int64, k decisions.Kind, reason, hash string) decisions.Rationale {
	return decisions.Rationale{
		Decision:             decisions.Decision{Kind: k, DecisionStampSimNs: stamp, Reason: reason, SchemaVersion: 1},
		BeliefStampSimNs:     stamp,
		SelfAssessmentSHA256: hash,
		PolicyID:             "test_policy_v1",
		SchemaVersion:        1,
	}
}

// recMsg is one message of a test recording, in write order.
type recMsg struct {
	topic string
	log   int64
	data  []byte
}

func cdr(t testing.TB, v interface{ MarshalCDR() ([]byte, error) }) []byte {
	t.Helper()
	data, err := v.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func beliefMsg(t testing.TB, b decisions.Belief, log int64) recMsg {
	m := ros2msg.BeliefToWire(&b)
	return recMsg{"/state/nav", log, cdr(t, &m)}
}

func assessmentMsg(t testing.TB, a decisions.SelfAssessment, log int64) recMsg {
	m := ros2msg.SelfAssessmentToWire(&a)
	return recMsg{"/self_assessment", log, cdr(t, &m)}
}

func decisionMsg(t testing.TB, r decisions.Rationale, log int64) recMsg {
	m := ros2msg.RationaleToWire(&r)
	return recMsg{"/decisions", log, cdr(t, &m)}
}

func perceptionMsg(t testing.TB, p decisions.PerceptionReport, log int64) recMsg {
	m := ros2msg.PerceptionToWire(p)
	return recMsg{"/perception/mode", log, cdr(t, &m)}
}

var topicTypes = map[string]string{
	"/state/nav":          "VehicleState",
	"/self_assessment":    "BeliefSelfAssessment",
	"/perception/mode":    "PerceptionMode",
	"/decisions":          "DecisionRationale",
	"/decisions/actions":  "ActionReceipt",
	"/decisions/evidence": "ActionEvidence",
}

// writeRecording writes msgs to a new MCAP file in a temporary directory.
func writeRecording(t testing.TB, msgs []recMsg) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "flight.mcap")
	rec, err := bag.CreateRecording(path, bag.RecorderOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	chans := map[string]bag.ChannelID{}
	for _, topic := range []string{"/state/nav", "/self_assessment", "/perception/mode", "/decisions"} {
		ch, err := rec.AddMessageChannel(topic, topicTypes[topic], qos.DefaultInput())
		if err != nil {
			t.Fatal(err)
		}
		chans[topic] = ch
	}
	for _, m := range msgs {
		ch, ok := chans[m.topic]
		if !ok {
			ch, err = rec.AddChannel(m.topic, "ghost/msg/"+topicTypes[m.topic], "uint8 status\n", qos.DefaultInput())
			if err != nil {
				t.Fatal(err)
			}
			chans[m.topic] = ch
		}
		if err := rec.Write(ch, uint64(m.log), uint64(m.log), m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
