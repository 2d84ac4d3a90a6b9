package audit

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/px4fixture"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/bridge"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Regression tests on excerpts of live PX4 v1.15 SITL (SIH) flights beside
// ghost. The excerpts' px4_msgs channels name their types only: the
// definitions come from the released px4_msgs in the shared golden data,
// which the repository does not copy.

const (
	px4SITLConfig = "../../config/px4_sitl.yaml"
	px4SITLPolicy = "../../config/policies/px4_failsafe_like.yaml"
	// px4SITLFlownPolicy is px4_failsafe_like as the recorded flights ran
	// it, before belief_uncertain waited 1 s: the policy their decisions
	// name, which verify and the live comparisons need.
	px4SITLFlownPolicy = "testdata/px4_failsafe_like_df83de7f0c71.yaml"
)

// decided is one decision: the log time of the input it was decided on,
// its belief stamp, kind and reason.
type decided struct {
	logNs  uint64
	stamp  int64
	kind   decisions.Kind
	reason string
}

func (d decided) String() string { return fmt.Sprintf("%d %s/%s", d.stamp, d.kind, d.reason) }

// recordedDecisionsAt reads every /decisions message of a recording.
func recordedDecisionsAt(t *testing.T, r Source) []decided {
	t.Helper()
	var out []decided
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if m.Topic != "/decisions" {
			continue
		}
		var w ros2msg.DecisionRationale
		if err := w.UnmarshalCDR(m.Data); err != nil {
			t.Fatal(err)
		}
		out = append(out, decided{m.LogTime, w.BeliefStampSimNs, decisions.Kind(w.Decision.Kind), w.Decision.Reason})
	}
}

// loadPX4SITLConfig loads config/px4_sitl.yaml as the node does without
// ROS (the parameters file over the defaults), with the shipped policy the
// SITL scenario launches it with.
func loadPX4SITLConfig(t *testing.T) config.Config {
	t.Helper()
	cfg, err := config.FromParamsFile(px4SITLConfig)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Input.Source != config.SourcePX4 {
		t.Fatalf("%s: input.source %q, want px4", px4SITLConfig, cfg.Input.Source)
	}
	cfg.PolicyFile = px4SITLPolicy
	return cfg
}

// decidePX4Recording replays a recording of PX4's own topics as the node
// with input.source px4 and cfg decides them (the path of `decision_node
// replay --input-source px4`: the bridge maps each estimator sample to a
// belief and its assessment under cfg's thresholds, the policy decides),
// and returns the decisions. Decisions the recording holds are not inputs.
func decidePX4Recording(t *testing.T, path string, cfg config.Config) []decided {
	t.Helper()
	sopts, err := cfg.SessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	b, err := bridge.New(bridge.Options{StateTopic: session.TopicOf(sopts.Inputs, session.KeyState),
		AssessmentTopic: session.TopicOf(sopts.Inputs, session.KeySelfAssessment), Thresholds: cfg.Thresholds})
	if err != nil {
		t.Fatal(err)
	}
	defs, err := px4.NewDefinitions(px4.Release115, px4fixture.Texts(t, string(px4.Release115)))
	if err != nil {
		t.Fatal(err)
	}
	src, err := bridge.NewPX4(b, bridge.PX4Options{Definitions: defs, Namespace: cfg.Input.PX4Namespace, Position: cfg.Input.PX4Position})
	if err != nil {
		t.Fatal(err)
	}
	in, err := bag.OpenRecording(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	tr := bridge.NewTranslation(in, src)
	out, _, err := replayBytes(t, tr, ReplayOptions{Session: sopts})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Rejected != 0 {
		t.Errorf("%s: the bridge refused %d PX4 messages (last: %v)", path, tr.Rejected, tr.LastErr)
	}
	return recordedDecisionsAt(t, openBytes(t, out))
}

// runs collapses decisions into the kind/reason of each run of equal ones.
func runs(ds []decided) []string {
	var out []string
	for _, d := range ds {
		k := d.kind.String() + "/" + d.reason
		if len(out) == 0 || out[len(out)-1] != k {
			out = append(out, k)
		}
	}
	return out
}

// testdata/px4_sitl_gps_loss.mcap is 15 s of a live GPS-loss flight of PX4
// v1.15 SITL (SIH) beside ghost, recorded by rosbag2: PX4's own
// vehicle_local_position, vehicle_attitude, battery_status and
// vehicle_status, and the decisions the live node published on /decisions
// (launched with config/px4_sitl.yaml and the px4_failsafe_like policy);
// log times are the recorder's receive times. For 5 s the vehicle hovers at
// 2 m with GPS: eph 0.29 m, heading 1-sigma 0.11 to 0.18 rad. Then the
// simulated GPS is stopped (PX4's shell: sensor_gps_sim stop): eph grows
// (1 m after 3.6 s, 4.3 m at the end), PX4 marks the horizontal position
// invalid after 5 s and its own failsafe lands blind.
//
// With the default thresholds (made for the embedded simulator) and the
// policy as flown ghost never proceeded on PX4's estimate: the heading's
// 1-sigma alone is over the 0.05 rad known bound. Under config/px4_sitl.yaml the hover proceeds, and
// after the loss the belief turns uncertain (hold), then the position
// UNKNOWN (land, 2 s later by the policy): with the policy as flown, exactly
// what the live node decided. The shipped policy holds 1 s of belief stamps
// after the flown one (belief_uncertain waits 1 s) and lands as it did.
func TestPX4SITLThresholdsProceedOnAGoodEstimate(t *testing.T) {
	const (
		path   = "testdata/px4_sitl_gps_loss.mcap"
		lossNs = 1796174236791178804 // sensor_gps_sim stop, on the log times' clock
	)
	in, err := bag.OpenRecording(path, bag.ReaderOptions{Topics: []string{"/decisions"}})
	if err != nil {
		t.Fatal(err)
	}
	live := recordedDecisionsAt(t, in)
	in.Close()
	cfg := loadPX4SITLConfig(t)
	flown := cfg
	flown.PolicyFile = px4SITLFlownPolicy
	def := flown
	def.Thresholds = config.Default().Thresholds
	split := func(ds []decided) (hover, after []decided) {
		i, _ := slices.BinarySearchFunc(ds, uint64(lossNs), func(d decided, at uint64) int { return cmp.Compare(d.logNs, at) })
		return ds[:i], ds[i:]
	}
	tests := []struct {
		name        string
		cfg         config.Config
		hover, loss []string // runs of kind/reason before and after the GPS loss
		live        bool     // the live node ran with this configuration
	}{
		{"px4_sitl.yaml, the policy as flown", flown, []string{"proceed/nominal"},
			[]string{"proceed/nominal", "hold/belief_uncertain", "engage_land/position_unknown"}, true},
		{"px4_sitl.yaml", cfg, []string{"proceed/nominal"},
			[]string{"proceed/nominal", "hold/belief_uncertain", "engage_land/position_unknown"}, false},
		{"default thresholds", def, []string{"hold/belief_uncertain"},
			[]string{"hold/belief_uncertain", "engage_land/position_unknown"}, false},
	}
	firstHold, firstLand := map[string]decided{}, map[string]decided{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := decidePX4Recording(t, path, tc.cfg)
			if i := slices.IndexFunc(got, func(d decided) bool { return d.kind == decisions.KindHold }); i >= 0 {
				firstHold[tc.name] = got[i]
			}
			if i := slices.IndexFunc(got, func(d decided) bool { return d.kind == decisions.KindEngageLand }); i >= 0 {
				firstLand[tc.name] = got[i]
			}
			hover, after := split(got)
			if len(hover) < 100 || !slices.Equal(runs(hover), tc.hover) {
				t.Errorf("%d decisions in the hover with GPS: %q, want only %q", len(hover), runs(hover), tc.hover)
			}
			if !slices.Equal(runs(after), tc.loss) {
				t.Errorf("after the GPS loss: %q, want %q", runs(after), tc.loss)
			}
			// The path is the live node's: it decides every recorded
			// belief as the node did.
			if tc.live && (len(live) < 1000 || !slices.EqualFunc(got, live, sameDecision)) {
				t.Errorf("replayed %d decisions, the live node made %d; first difference %s",
					len(got), len(live), firstDifference(got, live))
			}
		})
	}
	// The uncertainty that held the flown policy at once holds the shipped
	// one 1 s later: at the first belief stamped 1 s after, or within a
	// belief period (PX4 publishes its local position at 100 Hz here). The
	// land, on the position unknown for 2 s, does not move.
	// Without the px4_msgs definitions (a clone without the shared data)
	// the subtests skip, and there is nothing to compare.
	if len(firstHold) == 0 && len(firstLand) == 0 {
		return
	}
	was, now := firstHold[tests[0].name], firstHold[tests[1].name]
	if d := now.stamp - was.stamp; was.stamp == 0 || now.stamp == 0 || d < 1e9 || d > 1e9+20e6 {
		t.Errorf("first hold %s as flown, %s with the shipped policy: want it 1 s later", was, now)
	}
	if was, now := firstLand[tests[0].name], firstLand[tests[1].name]; was.stamp == 0 || now != was {
		t.Errorf("first land %s as flown, %s with the shipped policy: want the same", was, now)
	}
	t.Logf("after the GPS stopped: first hold %.3f s as flown, %.3f s with the shipped policy; land %.3f s",
		float64(int64(was.logNs)-lossNs)/1e9, float64(int64(now.logNs)-lossNs)/1e9,
		float64(int64(firstLand[tests[1].name].logNs)-lossNs)/1e9)
}

func sameDecision(a, b decided) bool {
	return a.stamp == b.stamp && a.kind == b.kind && a.reason == b.reason
}

// firstDifference names the first decision where two lists differ.
func firstDifference(a, b []decided) string {
	for i := range min(len(a), len(b)) {
		if !sameDecision(a[i], b[i]) {
			return fmt.Sprintf("at %d: %s against %s", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("after %d equal", min(len(a), len(b)))
}

// testdata/px4_sitl_arming.mcap is the first 17 s of ghost's own recording
// on a live PX4 v1.15 SITL (SIH) flight, from its first decision to 1 s
// after arming: /state/nav, /self_assessment, /decisions, /decisions/actions
// and /decisions/evidence, as the node wrote them. ghost ran with
// input.source px4, the px4 executor, the px4_failsafe_like policy (as
// flown, before belief_uncertain waited 1 s) and the default thresholds, as on the first live run: PX4's heading 1-sigma keeps
// every belief UNCERTAIN, so the policy holds from the first decision, on
// the ground and disarmed, where hold fails not_applicable. 16 s later PX4
// is armed from its own shell (commander arm); hold is still decided, so
// it is started again and sent, PX4's Commander acknowledges it ACCEPTED
// and reports the commanded mode (reached). On the first live run, before
// the restart rule, that hold was never sent: commands go out only when
// the decided kind changes. Verify re-derives the trail from the recorded
// inputs and evidence, so without the rule it fails (action_diverged).
func TestPX4SITLHoldDecidedOnTheGroundIsSentOnArming(t *testing.T) {
	const path = "testdata/px4_sitl_arming.mcap"
	cfg := config.Default()
	cfg.Input.Source, cfg.Input.PX4Position = config.SourcePX4, "local_position"
	cfg.PolicyFile = px4SITLFlownPolicy
	cfg.Executors.Executor = config.ExecutorPX4
	sopts, err := cfg.SessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	policy := sopts.Loop.Policy
	// As `decision_node verify --executor px4` audits a node's recording.
	sopts.Loop.Policy = nil
	sopts.LifecycleFromEvents = true
	in, err := bag.OpenRecording(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, err := Verify(in, VerifyOptions{Session: sopts, Policies: []decisions.Policy{policy}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Passed() || r.Decisions == 0 {
		t.Errorf("verify: %s after %d decisions: %v %v", r.Verdict, r.Decisions, r.Reasons, r.Problems)
	}

	armedAt, trail, ack := px4SITLArmingTrail(t, path)
	want := []string{"1 failed/not_applicable", "2 sent", "2 accepted", "2 reached"}
	if !slices.Equal(trail.events, want) {
		t.Fatalf("action trail %q, want %q", trail.events, want)
	}
	if armedAt == 0 || trail.sentAt < armedAt || trail.failedAt >= armedAt {
		t.Errorf("armed at %d, hold failed at %d and sent at %d: want it failed before arming and sent after",
			armedAt, trail.failedAt, trail.sentAt)
	}
	if !strings.Contains(trail.sentDetail, "was not applicable before") || trail.command != 176 {
		t.Errorf("sent command %d: %q; want hold (176) started again", trail.command, trail.sentDetail)
	}
	if ack.Kind != engine.EvidenceAck || ack.Command != 176 || ack.Result != decisions.AckAccepted || ack.Vehicle != 1 {
		t.Errorf("accepted on %v, want PX4's ACCEPTED ack of command 176", ack)
	}
}

// armingTrail is what the recording's action receipts say.
type armingTrail struct {
	events           []string // "<action> <event>[/<failure>]"
	failedAt, sentAt int64
	sentDetail       string
	command          uint32
}

// px4SITLArmingTrail reads when the vehicle first reports armed, the action
// trail, and the evidence the accepted receipt rests on.
func px4SITLArmingTrail(t *testing.T, path string) (armedAt int64, trail armingTrail, ack engine.Evidence) {
	t.Helper()
	r, err := bag.OpenRecording(path, bag.ReaderOptions{Topics: []string{"/state/nav", "/decisions/actions"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var vs ros2msg.VehicleState
	var w ros2msg.ActionReceipt
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		if m.Topic == "/state/nav" {
			if err := vs.UnmarshalCDR(m.Data); err != nil {
				t.Fatal(err)
			}
			if vs.Flight.Armed && armedAt == 0 {
				armedAt = int64(m.LogTime)
			}
			continue
		}
		if err := w.UnmarshalCDR(m.Data); err != nil {
			t.Fatal(err)
		}
		rc := session.ReceiptFromWire(&w)
		if rc.Event == session.ReceiptEvidenceAccepted {
			continue // the evidence is checked on the receipt it moved
		}
		e := fmt.Sprintf("%d %s", rc.ActionID, rc.Event)
		if rc.Failure != engine.FailNone {
			e += "/" + rc.Failure.String()
		}
		trail.events = append(trail.events, e)
		switch rc.Event {
		case session.ReceiptFailed:
			trail.failedAt = rc.TimeNs
		case session.ReceiptSent:
			trail.sentAt, trail.sentDetail, trail.command = rc.TimeNs, rc.Detail, rc.Command.ID
		case session.ReceiptAccepted:
			if len(rc.Evidence) == 1 {
				ack = rc.Evidence[0]
			}
		}
	}
	return armedAt, trail, ack
}

// testdata/px4_sitl_late_recorder.mcap is the first 3 s of a rosbag2
// recording of a live PX4 v1.15 SITL flight with ghost (input_source px4,
// the px4 executor): ghost's topics only (/decisions and its actions and
// evidence, /state/nav, /self_assessment, /parameter_events), as the
// recorder received them. The recorder subscribed to /decisions 4 ms
// before ghost's first decision but to /self_assessment 100 ms and to
// /state/nav 130 ms later, so the bag starts with 12 decisions whose
// inputs it never saw (the node's own recording of the flight verified).
// verify cannot check them and fails, and names the cause: the recording
// started after the node.
func TestPX4SITLRecorderThatStartedLate(t *testing.T) {
	const path = "testdata/px4_sitl_late_recorder.mcap"
	cfg := config.Default()
	cfg.Input.Source, cfg.Input.PX4Position = config.SourcePX4, "local_position"
	cfg.PolicyFile = px4SITLFlownPolicy
	cfg.Executors.Executor = config.ExecutorPX4
	sopts, err := cfg.SessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	policy := sopts.Loop.Policy
	sopts.Loop.Policy = nil
	sopts.LifecycleFromEvents = true
	in, err := bag.OpenRecording(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	// The decisions older than the first recorded belief or assessment.
	var oldestBelief, oldestAssessment int64 = math.MaxInt64, math.MaxInt64
	var stamps []int64
	for _, m := range drainSource(t, in) {
		switch m.Topic {
		case "/state/nav":
			b, _ := decodeBelief(m.Data)
			oldestBelief = min(oldestBelief, b.StampSimNs)
		case "/self_assessment":
			a, _ := decodeAssessment(m.Data)
			oldestAssessment = min(oldestAssessment, a.BeliefStampSimNs)
		case "/decisions":
			r, _ := decodeRationale(m.Data)
			stamps = append(stamps, r.BeliefStampSimNs)
		}
	}
	var early uint64
	for _, s := range stamps {
		if s < max(oldestBelief, oldestAssessment) {
			early++
		}
	}
	if early == 0 || early == uint64(len(stamps)) {
		t.Fatalf("%d of %d decisions before the first inputs: not the excerpt described", early, len(stamps))
	}

	in2, err := bag.OpenRecording(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in2.Close()
	r, err := Verify(in2, VerifyOptions{Session: sopts, Policies: []decisions.Policy{policy}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed() {
		t.Fatal("verify passed a recording that starts after the node")
	}
	causes := r.ProblemCauses()
	if len(causes) != 1 || causes[0].Cause != CauseRecordingStartedLate || causes[0].Count != early {
		t.Fatalf("causes %+v, want only %s for the %d early decisions", causes, CauseRecordingStartedLate, early)
	}
	if got := r.Decisions - early; got == 0 {
		t.Fatal("no decision after the early ones")
	}
}
