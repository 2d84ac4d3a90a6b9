package audit

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/px4fixture"
	"github.com/ghost-robotics/ghost/internal/testpolicy"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/bridge"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/mapping"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// PX4 SITL in lockstep with a simulator slower than real time: PX4's
// stamps, and its answers, advance at the real-time factor's rate of the
// arrival clock. These tests feed such a stream through the path of the
// node with input.source px4 (the bridge maps each PX4 sample to a belief
// and its assessment, the session decides, the px4 executor commands a
// PX4 that answers in its own time), record it, and check what follows
// PX4's time and what verify and replay make of the recording.

// lockstep relates PX4's clock to the arrival clock: PX4 time advances
// num/den as fast (a real-time factor of num/den).
type lockstep struct {
	num, den   int64
	arr0, px40 int64 // an arrival time and the PX4 time (ns) at it
}

// px4 is PX4's time (ns) at arrival time arr.
func (b lockstep) px4(arr int64) int64 { return b.px40 + (arr-b.arr0)*b.num/b.den }

// arrival is the arrival time of PX4 time p (ns).
func (b lockstep) arrival(p int64) int64 { return b.arr0 + (p-b.px40)*b.den/b.num }

// lockstepPX4 answers commands in its own time: ACCEPTED ackAfter of PX4
// time after it received a command (never when 0) and the commanded mode
// (AUTO_LOITER) reachAfter after that (never when 0); each answer arrives
// at the arrival time of its PX4 time.
type lockstepPX4 struct {
	clock                lockstep
	ackAfter, reachAfter time.Duration
	pending              []executor.Arrival
}

func (p *lockstepPX4) SendCommand(c px4.Command, info executor.SendInfo) error {
	if p.ackAfter == 0 {
		return nil
	}
	at := p.clock.px4(info.TimeNs) + int64(p.ackAfter)
	p.pending = append(p.pending, executor.Arrival{ArrivalNs: p.clock.arrival(at), Ack: &px4.CommandAck{
		TimestampUs: uint64(at / 1000), Command: c.Command, Result: decisions.AckAccepted,
		TargetSystem: c.SourceSystem, TargetComponent: c.SourceComponent}})
	if p.reachAfter > 0 {
		at += int64(p.reachAfter)
		p.pending = append(p.pending, executor.Arrival{ArrivalNs: p.clock.arrival(at), Status: &px4.Status{
			TimestampUs: uint64(at / 1000), NavState: px4.NavStateAutoLoiter, Armed: true, SystemID: 1, ComponentID: 1}})
	}
	sort.SliceStable(p.pending, func(i, j int) bool { return p.pending[i].ArrivalNs < p.pending[j].ArrivalNs })
	return nil
}

func (p *lockstepPX4) Receive(upToNs int64) []executor.Arrival {
	n := sort.Search(len(p.pending), func(i int) bool { return p.pending[i].ArrivalNs > upToNs })
	out := slices.Clone(p.pending[:n])
	p.pending = p.pending[n:]
	return out
}

// lockstepFlight is a PX4 flight in lockstep: vehicle_odometry at 50 Hz and
// vehicle_status at 2 Hz of PX4 time, armed in offboard; the position is
// known until uncertainAt of PX4 time, uncertain after. PX4 stops at
// stopAt (0 never): after it, its last odometry sample is repeated every
// 20 ms of arrival time, and perception reports still arrive every 100 ms,
// until endArr of arrival time after the start.
type lockstepFlight struct {
	clock       lockstep
	uncertainAt time.Duration
	stopAt      time.Duration
	end         time.Duration // PX4 time without a stop
	endArr      time.Duration
}

// source returns the flight's messages in arrival order.
func (f lockstepFlight) source(t *testing.T, defs *px4.Definitions) *px4Recording {
	t.Helper()
	topic := func(m string) string {
		s, err := defs.TopicName(m, "")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	texts := px4fixture.Texts(t, string(px4.Release115))
	src := &px4Recording{}
	odom := src.channel(topic(px4.MsgVehicleOdometry), "px4_msgs/msg/"+px4.MsgVehicleOdometry, texts[px4.MsgVehicleOdometry])
	status := src.channel(topic(px4.MsgVehicleStatus), "px4_msgs/msg/"+px4.MsgVehicleStatus, texts[px4.MsgVehicleStatus])
	perception := src.channel("/perception/mode", "ghost/msg/PerceptionMode", "")
	end := f.end
	if f.stopAt > 0 {
		end = f.stopAt
	}
	var last []byte
	var lastArr int64
	for p := time.Duration(0); p <= end; p += 20 * time.Millisecond {
		ns := f.clock.px40 + int64(p)
		arr := f.clock.arrival(ns)
		us := uint64(ns / 1000)
		if p%(500*time.Millisecond) == 0 {
			src.add(status, arr, encodePX4(t, defs, px4.MsgVehicleStatus, nil,
				map[string]uint64{"timestamp": us, "arming_state": 2, "nav_state": uint64(px4.NavStateOffboard)}))
		}
		pv := 0.01
		if p >= f.uncertainAt {
			pv = 1 // 1 m: between the known (0.5 m) and unknown (2 m) bounds
		}
		last = encodePX4(t, defs, px4.MsgVehicleOdometry, map[string]float64{"q[0]": 1,
			"position_variance[0]": pv, "position_variance[1]": pv, "position_variance[2]": pv,
			"velocity_variance[0]": 0.01, "velocity_variance[1]": 0.01, "velocity_variance[2]": 0.01,
			"orientation_variance[0]": 1e-4, "orientation_variance[1]": 1e-4, "orientation_variance[2]": 1e-4},
			map[string]uint64{"timestamp": us, "timestamp_sample": us, "pose_frame": 1, "velocity_frame": 1})
		src.add(odom, arr, last)
		lastArr = arr
	}
	if f.stopAt > 0 {
		var buf []byte
		for a := lastArr + int64(20*time.Millisecond); a <= f.clock.arr0+int64(f.endArr); a += int64(20 * time.Millisecond) {
			src.add(odom, a, last)
			if (a-lastArr)%int64(100*time.Millisecond) == 0 {
				pm := ros2msg.PerceptionMode{StampSimNs: f.clock.px40 + int64(f.stopAt) + (a - lastArr), Mode: 4}
				var err error
				if buf, err = pm.AppendCDR(buf[:0]); err != nil {
					t.Fatal(err)
				}
				src.add(perception, a, slices.Clone(buf))
			}
		}
	}
	return src
}

// px4Recording is a recording of the vehicle's topics held in memory.
type px4Recording struct {
	chans []bag.Channel
	msgs  []bag.Message
	next  int
}

func (s *px4Recording) channel(topic, typ, text string) bag.ChannelID {
	id := bag.ChannelID(len(s.chans) + 1)
	s.chans = append(s.chans, bag.Channel{ID: uint16(id), Topic: topic, SchemaName: typ, SchemaText: text})
	return id
}

func (s *px4Recording) add(ch bag.ChannelID, at int64, data []byte) {
	c := s.chans[ch-1]
	s.msgs = append(s.msgs, bag.Message{Topic: c.Topic, SchemaName: c.SchemaName, ChannelID: uint16(ch),
		Sequence: uint32(len(s.msgs) + 1), LogTime: uint64(at), PublishTime: uint64(at), Data: data})
}

func (s *px4Recording) Channels() []bag.Channel { return s.chans }

func (s *px4Recording) Next() (bag.Message, error) {
	if s.next == len(s.msgs) {
		return bag.Message{}, io.EOF
	}
	s.next++
	return s.msgs[s.next-1], nil
}

func encodePX4(t *testing.T, defs *px4.Definitions, name string, floats map[string]float64, uints map[string]uint64) []byte {
	t.Helper()
	p, err := defs.Plan(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := p.NewWriter()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range floats {
		if err := w.SetFloat(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range uints {
		if err := w.SetUint(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return w.Bytes()
}

// lockstepRun is what one flight gave.
type lockstepRun struct {
	data  []byte // the recording
	res   *ReplayResult
	vopts VerifyOptions
	// rejected counts the PX4 messages the bridge refused, rejectedReasons
	// the mapping's refusals by reason.
	rejected        uint64
	rejectedReasons []uint64
}

// flyLockstep decides f on a PX4 executor answering as px, through the
// node's path, and records it; vopts re-check the recording as `decision_node
// verify --config` does with input.source px4.
func flyLockstep(t *testing.T, f lockstepFlight, px *lockstepPX4) lockstepRun {
	t.Helper()
	cfg := config.Default()
	cfg.Input.Source = config.SourcePX4
	cfg.Executors.Executor = config.ExecutorPX4
	sopts, err := cfg.SessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	policy, err := rules.Parse("hold_after_uncertain_2s.yaml", []byte(testpolicy.HoldAfterUncertain2s))
	if err != nil {
		t.Fatal(err)
	}
	sopts.Loop.Policy = policy
	defs, err := px4.NewDefinitions(px4.Release115, px4fixture.Texts(t, string(px4.Release115)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := bridge.New(bridge.Options{StateTopic: session.TopicOf(sopts.Inputs, session.KeyState),
		AssessmentTopic: session.TopicOf(sopts.Inputs, session.KeySelfAssessment), Thresholds: cfg.Thresholds})
	if err != nil {
		t.Fatal(err)
	}
	src, err := bridge.NewPX4(b, bridge.PX4Options{Definitions: defs})
	if err != nil {
		t.Fatal(err)
	}
	live := sopts
	live.Executors = []session.Executor{executor.NewPX4(executor.PX4Options{Transport: px})}
	tr := bridge.NewTranslation(f.source(t, defs), src)
	data, res, err := replayBytes(t, tr, ReplayOptions{Session: live})
	if err != nil {
		t.Fatal(err)
	}
	c := b.Tracker().Counters()
	return lockstepRun{data: data, res: res, rejected: tr.Rejected, rejectedReasons: c.Rejected[:],
		vopts: VerifyOptions{Session: sopts, Policies: []decisions.Policy{policy}}}
}

// receipts returns the recording's action receipts, evidence receipts left out.
func receiptsOf(t *testing.T, data []byte) []session.ActionReceipt {
	t.Helper()
	var out []session.ActionReceipt
	rewrite(t, data, func(_ int, rc *session.ActionReceipt) bool {
		if rc.Event != session.ReceiptEvidenceAccepted {
			out = append(out, *rc)
		}
		return true
	})
	return out
}

// checkNothingSpurious fails on a decision without its assessment, on a
// reason the flight does not call for, and on an input the Loop rejected.
func checkNothingSpurious(t *testing.T, data []byte, res *ReplayResult) {
	t.Helper()
	for _, r := range recordedDecisions(t, data) {
		if reason := r.Decision.Reason; reason != "nominal" && reason != "uncertain_for_2s" || r.SelfAssessmentSHA256 == "" {
			t.Fatalf("decision %d: %s/%s, assessment %q: not what the flight calls for", r.Decision.DecisionStampSimNs,
				r.Decision.Kind, r.Decision.Reason, r.SelfAssessmentSHA256)
		}
	}
	c := res.Counters
	var rejected uint64
	for _, n := range c.Rejected {
		rejected += n
	}
	if c.WithoutAssessment != 0 || rejected != 0 || c.Actions.Refused != 0 || c.Actions.EvidenceRejected != 0 {
		t.Fatalf("without assessment %d, rejected %v, refused %d, evidence rejected %d",
			c.WithoutAssessment, c.Rejected, c.Actions.Refused, c.Actions.EvidenceRejected)
	}
}

// checkRecording verifies the recording, and replays it twice: the replay
// is the recording, byte for byte.
func checkRecording(t *testing.T, run lockstepRun) {
	t.Helper()
	replayOpts := run.vopts.Session
	replayOpts.Loop.Policy = run.vopts.Policies[0]
	r, err := Verify(openBytes(t, run.data), run.vopts)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Passed() || r.Decisions == 0 {
		t.Fatalf("verify: %s after %d decisions: %v %v %v", r.Verdict, r.Decisions, r.Reasons, r.Findings, r.Notes)
	}
	again, _, err := replayBytes(t, openBytes(t, run.data), ReplayOptions{Session: replayOpts})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, run.data) {
		t.Fatal("a replay of the recording differs from it")
	}
}

// px4Since is the PX4 time (ms) of a receipt, after the PX4 time of another.
func px4Since(c lockstep, rc, from session.ActionReceipt) int64 {
	return (c.px4(rc.TimeNs) - c.px4(from.TimeNs)) / int64(time.Millisecond)
}

var lockstepRTFs = []struct {
	name     string
	num, den int64
}{{"rtf 1", 1, 1}, {"rtf 0.5", 1, 2}, {"rtf 0.25", 1, 4}}

func lockstepClock(num, den int64) lockstep {
	return lockstep{num: num, den: den, arr0: 1_767_225_600_000_000_000, px40: int64(10 * time.Second)}
}

// TestLockstepForCountsPX4Time: a rule's `for: 2s` holds after 2 s of PX4's
// time at every real-time factor (4 s of arrival time at 0.5, 8 s at
// 0.25); PX4 acknowledges the hold 0.8 s of its time after it received it
// and reaches the mode 3 s later, within the deadlines of 1 s and 5 s of
// its time however slow, so nothing is retried or given up on; no belief
// goes without its assessment; the recording verifies and replays to the
// same bytes. Checked with deadlines in arrival time instead, the same
// recording fails where the simulator is slow: verify re-derives the
// deadlines and finds they were counted in PX4's time.
func TestLockstepForCountsPX4Time(t *testing.T) {
	for _, r := range lockstepRTFs {
		t.Run(r.name, func(t *testing.T) {
			clock := lockstepClock(r.num, r.den)
			f := lockstepFlight{clock: clock, uncertainAt: 3 * time.Second, end: 9 * time.Second}
			run := flyLockstep(t, f, &lockstepPX4{clock: clock, ackAfter: 800 * time.Millisecond, reachAfter: 3 * time.Second})
			if run.rejected != 0 {
				t.Fatalf("the bridge refused %d PX4 messages", run.rejected)
			}
			ds := recordedDecisions(t, run.data)
			firstHold := int64(-1)
			for _, d := range ds {
				if d.Decision.Kind == decisions.KindHold && firstHold < 0 {
					firstHold = d.Decision.DecisionStampSimNs
				}
			}
			firstUncertain := clock.px40 + int64(f.uncertainAt)
			if got := time.Duration(firstHold - firstUncertain); got != 2*time.Second {
				t.Fatalf("first hold %v of PX4 time after the belief turned uncertain, want 2s", got)
			}
			if arr := time.Duration(clock.arrival(firstHold) - clock.arrival(firstUncertain)); arr != 2*time.Second*time.Duration(r.den)/time.Duration(r.num) {
				t.Fatalf("first hold %v of arrival time after the belief turned uncertain", arr)
			}
			checkNothingSpurious(t, run.data, run.res)

			var events []string
			for _, rc := range receiptsOf(t, run.data) {
				events = append(events, rc.Event.String())
			}
			if !slices.Equal(events, []string{"sent", "accepted", "reached"}) {
				t.Fatalf("receipts %q, want sent, accepted, reached", events)
			}
			checkRecording(t, run)

			arrival := run.vopts
			arrival.Session.Loop.Actions.Deadlines = engine.DeadlinesArrival
			v, err := Verify(openBytes(t, run.data), arrival)
			if err != nil {
				t.Fatal(err)
			}
			if slow := r.den > 1; v.Passed() == slow || slow && v.FindingCount(FindingActionDiverged) == 0 {
				t.Fatalf("checked with deadlines in arrival time: %s %v", v.Verdict, v.Findings)
			}
		})
	}
}

// TestLockstepDeadlinesCountPX4Time: a PX4 that never answers gets 1 s of
// its own time per send (2 s of arrival time at 0.5, 4 s at 0.25), then
// the action fails as transport, and the re-command comes 5 s of its time
// after the first send; the recording verifies and replays to the same
// bytes.
func TestLockstepDeadlinesCountPX4Time(t *testing.T) {
	for _, r := range lockstepRTFs {
		t.Run(r.name, func(t *testing.T) {
			clock := lockstepClock(r.num, r.den)
			f := lockstepFlight{clock: clock, uncertainAt: 1 * time.Second, end: 10 * time.Second}
			run := flyLockstep(t, f, &lockstepPX4{clock: clock})
			checkNothingSpurious(t, run.data, run.res)
			rcs := receiptsOf(t, run.data)
			var got []string
			for _, rc := range rcs {
				got = append(got, fmt.Sprintf("%d %s +%d", rc.ActionID, rc.Event, px4Since(clock, rc, rcs[0])/10*10))
			}
			// Deadlines fire at the first belief past them: within one
			// sample (20 ms) of PX4 time.
			want := []string{"1 sent +0", "1 retried +1000", "1 retried +2000", "1 failed +3000", "2 sent +5000", "2 retried +6000",
				"2 retried +7000"}
			if !slices.Equal(got, want) {
				t.Fatalf("receipts (action, event, PX4 ms after the first send):\n%q\nwant\n%q", got, want)
			}
			if !strings.Contains(rcs[1].Detail, "1s of vehicle time") {
				t.Fatalf("the retry does not say which time it counted: %q", rcs[1].Detail)
			}
			checkRecording(t, run)
		})
	}
}

// TestLockstepPX4Stalls: PX4 stops 0.3 s of its time after it received a
// hold it never answers (the simulator stopped: its last sample repeats,
// which the bridge refuses as not newer, and perception reports still
// arrive). The acknowledgement deadline still fires: VehicleStall of
// arrival time after the last new stamp, plus what was left of the second,
// at the first input after that. Nothing else fires, and the recording
// verifies and replays to the same bytes.
func TestLockstepPX4Stalls(t *testing.T) {
	for _, r := range lockstepRTFs[:2] {
		t.Run(r.name, func(t *testing.T) {
			clock := lockstepClock(r.num, r.den)
			// The hold is decided at PX4 time 3 s (uncertain from 1 s).
			f := lockstepFlight{clock: clock, uncertainAt: time.Second, stopAt: 3300 * time.Millisecond, endArr: 20 * time.Second}
			run := flyLockstep(t, f, &lockstepPX4{clock: clock})
			checkNothingSpurious(t, run.data, run.res)
			if run.rejected == 0 || run.rejectedReasons[mapping.ReasonStampNotIncreasing] != run.rejected {
				t.Fatalf("the repeated samples: %d refused, by reason %v", run.rejected, run.rejectedReasons)
			}
			rcs := receiptsOf(t, run.data)
			if len(rcs) < 2 || rcs[0].Event != session.ReceiptSent || rcs[1].Event != session.ReceiptRetried {
				t.Fatalf("receipts %v", rcs)
			}
			sentPX4 := clock.px4(rcs[0].TimeNs)
			lastArr := clock.arrival(clock.px40 + int64(f.stopAt))
			left := int64(time.Second) - (clock.px40 + int64(f.stopAt) - sentPX4)
			due := lastArr + int64(engine.VehicleStall) + left
			// Perception reports come every 100 ms of arrival time.
			if at := rcs[1].TimeNs; at < due || at >= due+int64(100*time.Millisecond) {
				t.Fatalf("retried %v of arrival time after the last sample, want %v to %v",
					time.Duration(at-lastArr), time.Duration(due-lastArr), time.Duration(due-lastArr+int64(100*time.Millisecond)))
			}
			var failed int
			for _, rc := range rcs {
				if rc.Event == session.ReceiptFailed {
					failed++
					if rc.Failure != engine.FailTransport {
						t.Fatalf("failed %s: %s", rc.Failure, rc.Detail)
					}
				}
			}
			if failed != 1 {
				t.Fatalf("%d failures, want the one transport failure after the last retry", failed)
			}
			checkRecording(t, run)
		})
	}
}
