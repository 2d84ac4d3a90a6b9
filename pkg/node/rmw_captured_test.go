package node

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/clock"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/standin"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// capturedRecord is one payload a middleware handed the node on a real ROS
// 2 graph: a service request, or a message on one of its subscriptions.
// TestRMWBytesOverROS2, TestPX4BytesOverROS2 and TestCaptureFromBag write
// them.
type capturedRecord struct {
	RMW  string `json:"rmw,omitempty"`
	Kind string `json:"kind"` // "service" or "topic"
	Name string `json:"name"` // the service as served ("~/set_parameters"), or the default topic
	Type string `json:"type"`
	CDR  string `json:"cdr"` // hex, encapsulation header included
}

// capturedMiddlewares are the middlewares whose bytes testdata/rmw holds:
// the two that ship with ROS 2 Humble, Fast DDS its default.
var capturedMiddlewares = []string{"rmw_fastrtps_cpp", "rmw_cyclonedds_cpp"}

// TestCapturedRMWBytes replays, without ROS 2, what each middleware
// delivered to the node when the ros2 command-line tools drove it: every
// service request is answered, and answered as it was live (a parameter
// set succeeds unless it is read-only, a lifecycle transition succeeds),
// and every message on an input topic is taken, none rejected.
func TestCapturedRMWBytes(t *testing.T) {
	for _, rmw := range capturedMiddlewares {
		t.Run(rmw, func(t *testing.T) {
			recs := readCaptured(t, filepath.Join("testdata", "rmw", rmw+".jsonl"))
			cfg := testConfig()
			cfg.Lifecycle = true
			h := startNode(t, cfg)
			h.sync(base)
			services, topics := 0, 0
			for i, r := range recs {
				data, err := hex.DecodeString(r.CDR)
				if err != nil {
					t.Fatalf("record %d: %v", i+1, err)
				}
				switch r.Kind {
				case "service":
					services++
					resp, err := h.ft.Call(h.ctx, r.Name, data)
					if err != nil {
						t.Errorf("record %d: %s (%s) from %s: %v", i+1, r.Name, r.Type, rmw, err)
						continue
					}
					checkCapturedAnswer(t, i+1, r, data, resp)
				case "topic":
					topics++
					h.deliver(capturedTopic(t, cfg, r.Name), data, base.Add(ms(i)))
				default:
					t.Fatalf("record %d: kind %q", i+1, r.Kind)
				}
			}
			d := h.sync(base.Add(ms(len(recs) + 1)))
			if n := count(t, d, "rejected"); n != 0 {
				t.Errorf("%d captured inputs rejected:\n%s", n, h.logs)
			}
			if services == 0 || topics == 0 {
				t.Errorf("%d service requests and %d messages captured: the capture is incomplete", services, topics)
			}
		})
	}
}

// capturedTopic maps a default topic name to cfg's.
func capturedTopic(t *testing.T, cfg config.Config, name string) string {
	t.Helper()
	for key, topic := range config.Default().Topics {
		if topic == name {
			return cfg.Topics[key]
		}
	}
	t.Fatalf("captured topic %s is none of the node's", name)
	return ""
}

// checkCapturedAnswer decodes the node's answer to a captured request and
// checks it is the one the live node gave.
func checkCapturedAnswer(t *testing.T, n int, r capturedRecord, req, resp []byte) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("record %d (%s %s): "+format, append([]any{n, r.Name, r.Type}, args...)...)
	}
	switch r.Type {
	case "rcl_interfaces/srv/SetParameters":
		var in ros2msg.SetParametersRequest
		var out ros2msg.SetParametersResponse
		if err := in.UnmarshalCDR(req); err != nil {
			fail("request: %v", err)
			return
		}
		if err := out.UnmarshalCDR(resp); err != nil || len(out.Results) != len(in.Parameters) {
			fail("answer %x: %v", resp, err)
			return
		}
		for i, res := range out.Results {
			readOnly := strings.Contains(res.Reason, "read-only")
			if res.Successful == readOnly {
				fail("%s: successful %v, reason %q", in.Parameters[i].Name, res.Successful, res.Reason)
			}
		}
	case "rcl_interfaces/srv/SetParametersAtomically":
		var out ros2msg.SetParametersAtomicallyResponse
		if err := out.UnmarshalCDR(resp); err != nil || !out.Result.Successful {
			fail("answer %+v: %v", out, err)
		}
	case "lifecycle_msgs/srv/ChangeState":
		var out ros2msg.LifecycleChangeStateResponse
		if err := out.UnmarshalCDR(resp); err != nil || !out.Success {
			fail("answer %+v: %v", out, err)
		}
	default:
		if len(resp) < 4 {
			fail("answer of %d bytes", len(resp))
		}
	}
}

func readCaptured(t *testing.T, path string) []capturedRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the captured middleware bytes: %v (TestRMWBytesOverROS2 with GHOST_CAPTURE_DIR makes them)", err)
	}
	defer f.Close()
	var recs []capturedRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r capturedRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s:%d: %v", path, len(recs)+1, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestCapturedPX4Bytes replays, without ROS 2, what each middleware
// delivered of PX4's topics through the XRCE-DDS agent (PX4 v1.15.4 SITL,
// SIH) to a node with input.source px4: every sample decodes with the
// px4_msgs definitions of release 1.15, none is rejected, and the
// odometry samples become published beliefs.
func TestCapturedPX4Bytes(t *testing.T) {
	prefix := px4Prefix(t)
	for _, rmw := range capturedMiddlewares {
		t.Run(rmw, func(t *testing.T) {
			recs := readCaptured(t, filepath.Join("testdata", "rmw", rmw+".px4.jsonl"))
			cfg := testConfig()
			cfg.Input.Source = config.SourcePX4
			cfg.Input.PX4Release = "1.15"
			h := startNodeWith(t, cfg, func(o *runOptions) { o.ament = prefix })
			h.sync(base)
			odometry := 0
			for i, r := range recs {
				data, err := hex.DecodeString(r.CDR)
				if err != nil {
					t.Fatalf("record %d: %v", i+1, err)
				}
				if r.Kind != "topic" || !strings.HasPrefix(r.Name, "/fmu/out/") {
					t.Fatalf("record %d: %s %s is not a PX4 topic", i+1, r.Kind, r.Name)
				}
				if r.Name == "/fmu/out/vehicle_odometry" {
					odometry++
				}
				h.deliver(r.Name, data, base.Add(ms(i)))
			}
			d := h.sync(base.Add(ms(len(recs) + 1)))
			if n := count(t, d, "vehicle.rejected"); n != 0 {
				t.Errorf("%d captured PX4 samples rejected:\n%s", n, h.logs)
			}
			if n := count(t, d, "vehicle.beliefs"); n == 0 || odometry == 0 {
				t.Errorf("%d beliefs from %d odometry samples", n, odometry)
			}
		})
	}
}

// TestCapturedBagBytes replays, without ROS 2, the samples
// TestCaptureFromBag kept of what each middleware delivered to a rosbag2
// recorder: of a PX4 v1.15.4 SITL flight the node acted in, and of the
// ros2 command-line tools publishing the node's other inputs. Each group
// of topics goes to a node configured to read it, and every sample must
// be taken as live: decoded, none rejected, and its belief, evidence or
// clock where it makes one.
func TestCapturedBagBytes(t *testing.T) {
	groups := []struct {
		name   string
		topics []string
		replay func(t *testing.T, rmw string, in map[string][][]byte)
	}{
		{"px4 local_position", []string{"/fmu/out/vehicle_attitude", "/fmu/out/vehicle_local_position"}, replayLocalPosition},
		{"px4 executor", []string{"/fmu/in/vehicle_command", "/fmu/out/vehicle_command_ack"}, replayCommandAcks},
		{"evidence", []string{"/decisions/evidence"}, replayEvidence},
		{"odometry", []string{"/odom", "/battery"}, replayOdometry},
		{"clock", []string{"/clock"}, replayClock},
		{"calibrated", []string{"/self_assessment/calibrated"}, replayCalibrated},
	}
	for _, rmw := range capturedMiddlewares {
		t.Run(rmw, func(t *testing.T) {
			in := map[string][][]byte{}
			for i, r := range readCaptured(t, filepath.Join("testdata", "rmw", rmw+".bag.jsonl")) {
				data, err := hex.DecodeString(r.CDR)
				if err != nil {
					t.Fatalf("record %d: %v", i+1, err)
				}
				if r.Kind != "topic" || r.RMW != rmw {
					t.Fatalf("record %d: %s from %s, want a topic from %s", i+1, r.Kind, r.RMW, rmw)
				}
				in[r.Name] = append(in[r.Name], data)
			}
			for _, g := range groups {
				sel := map[string][][]byte{}
				for _, topic := range g.topics {
					if len(in[topic]) == 0 {
						t.Errorf("nothing captured on %s: the capture is incomplete", topic)
					}
					sel[topic] = in[topic]
					delete(in, topic)
				}
				t.Run(strings.ReplaceAll(g.name, " ", "_"), func(t *testing.T) { g.replay(t, rmw, sel) })
			}
			for topic := range in {
				t.Errorf("captured %s is replayed by no test", topic)
			}
		})
	}
}

// replayLocalPosition: with px4.position local_position every captured
// vehicle_local_position sample becomes a published belief. The attitudes
// go first, as a position is refused until an attitude came.
func replayLocalPosition(t *testing.T, _ string, in map[string][][]byte) {
	cfg := testConfig()
	cfg.Input.Source = config.SourcePX4
	cfg.Input.PX4Release = "1.15"
	cfg.Input.PX4Position = "local_position"
	prefix := px4Prefix(t)
	h := startNodeWith(t, cfg, func(o *runOptions) { o.ament = prefix })
	h.sync(base)
	k := 0
	for _, topic := range []string{"/fmu/out/vehicle_attitude", "/fmu/out/vehicle_local_position"} {
		for _, data := range in[topic] {
			h.deliver(topic, data, base.Add(ms(k)))
			k++
		}
	}
	d := h.sync(base.Add(ms(k)))
	positions := len(in["/fmu/out/vehicle_local_position"])
	if n := count(t, d, "vehicle.rejected"); n != 0 {
		t.Errorf("%d captured samples rejected:\n%s", n, h.logs)
	}
	if n, published := count(t, d, "vehicle.beliefs"), len(h.ft.Published(cfg.Topics[session.KeyState])); n != uint64(positions) || published != positions {
		t.Errorf("%d beliefs made, %d published, of %d local positions", n, published, positions)
	}
}

// replayCommandAcks: with executors.executor px4 the node sends, for a
// hold, the command it sent in the flight, field for field (the captured
// commands decode, as the PX4 stand-in reads them); and every captured
// acknowledgement decodes, those addressed to the node become evidence,
// and an accepted one is the hold's acceptance.
func replayCommandAcks(t *testing.T, _ string, in map[string][][]byte) {
	prefix := px4Prefix(t)
	defs, err := px4.LoadFromAmentIndex(prefix)
	if err != nil {
		t.Fatal(err)
	}
	cfg := actingConfig(t, config.ExecutorPX4)
	h := startWith(t, cfg, prefix)
	// The policy holds on an uncertain belief once it has lasted 1 s: the
	// first belief proceeds, the one a second later holds.
	for i, stamp := range []int64{1_000_000, 1_001_000_000} {
		b := testBelief(stamp)
		h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b), base.Add(ms(2*i)))
		h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, testAssessment(t, b.StampSimNs, 1)), base.Add(ms(2*i+1)))
		h.sync(base.Add(ms(2*i + 2)))
		if n, want := len(h.ft.Published("/fmu/in/vehicle_command")), i; n != want {
			t.Fatalf("%d commands sent after %d uncertain beliefs over %d ms, want %d", n, i+1, (stamp-1_000_000)/1_000_000, want)
		}
	}
	cmds := h.ft.Published("/fmu/in/vehicle_command")
	sent, err := defs.Command(cmds[0])
	if err != nil {
		t.Fatal(err)
	}
	st, err := standin.New(transport.NewFakeTransport(), standin.Options{Definitions: defs})
	if err != nil {
		t.Fatal(err)
	}
	for i, data := range in["/fmu/in/vehicle_command"] {
		c, err := defs.Command(data)
		if err != nil {
			t.Fatalf("command %d: %v", i+1, err)
		}
		if c.Command != sent.Command || c.Param1 != sent.Param1 || c.Param2 != sent.Param2 || c.Param3 != sent.Param3 ||
			c.TargetSystem != sent.TargetSystem || c.TargetComponent != sent.TargetComponent ||
			c.SourceSystem != sent.SourceSystem || c.SourceComponent != sent.SourceComponent {
			t.Errorf("command %d of the flight %+v, the node's hold %+v", i+1, c, sent)
		}
		if err := st.Handle(data, base); err != nil {
			t.Errorf("the stand-in reading command %d: %v", i+1, err)
		}
	}
	if s := st.Stats(); s.Undecodable != 0 || s.Commands != uint64(len(in["/fmu/in/vehicle_command"])) {
		t.Errorf("the stand-in read %+v", s)
	}
	const ackTopic = "/fmu/out/vehicle_command_ack"
	ours, accepted := 0, 0
	for i, data := range in[ackTopic] {
		ack, err := defs.CommandAck(data)
		if err != nil {
			t.Fatalf("acknowledgement %d: %v", i+1, err)
		}
		if uint16(ack.TargetSystem) == uint16(sent.SourceSystem) && ack.TargetComponent == sent.SourceComponent {
			ours++
			if ack.Command == sent.Command && ack.Result == decisions.AckAccepted {
				accepted++
			}
		}
		h.deliver(ackTopic, data, base.Add(ms(10+i)))
	}
	h.sync(base.Add(ms(10 + len(in[ackTopic]))))
	if ours == 0 || accepted == 0 {
		t.Fatalf("of %d acknowledgements %d are the node's, %d accept its command: the capture is not of the node's flight",
			len(in[ackTopic]), ours, accepted)
	}
	if strings.Contains(h.logs.String(), "vehicle answer dropped") {
		t.Errorf("captured acknowledgements dropped:\n%s", h.logs)
	}
	acks := 0
	for _, data := range h.ft.Published("/decisions/evidence") {
		var m ros2msg.ActionEvidence
		if err := m.UnmarshalCDR(data); err != nil {
			t.Fatal(err)
		}
		for _, e := range session.EvidenceFromWire(m.Items) {
			if e.Kind == engine.EvidenceAck {
				acks++
			}
		}
	}
	if acks != ours {
		t.Errorf("%d acknowledgements as evidence, want the node's %d", acks, ours)
	}
	events := map[session.ReceiptEvent]int{}
	for _, data := range h.ft.Published("/decisions/actions") {
		var m ros2msg.ActionReceipt
		if err := m.UnmarshalCDR(data); err != nil {
			t.Fatal(err)
		}
		events[session.ReceiptFromWire(&m).Event]++
	}
	if events[session.ReceiptAccepted] != 1 {
		t.Errorf("receipts %v: want the hold accepted once", events)
	}
}

// replayEvidence: a node that does not act itself takes the evidence
// another executor published, every captured batch decoded.
func replayEvidence(t *testing.T, _ string, in map[string][][]byte) {
	cfg := testConfig()
	h := startNode(t, cfg)
	h.sync(base)
	topic := cfg.Topics[session.KeyActionEvidence]
	for i, data := range in["/decisions/evidence"] {
		h.deliver(topic, data, base.Add(ms(i)))
	}
	d := h.sync(base.Add(ms(len(in["/decisions/evidence"]))))
	if n := count(t, d, "received."+session.KeyActionEvidence); n != uint64(len(in["/decisions/evidence"])) {
		t.Errorf("%d of %d evidence batches received", n, len(in["/decisions/evidence"]))
	}
	for _, key := range []string{"malformed." + session.KeyActionEvidence, "rejected", "step_errors"} {
		if n := count(t, d, key); n != 0 {
			t.Errorf("%s %d:\n%s", key, n, h.logs)
		}
	}
}

// replayOdometry: with input.source odometry and a battery topic every
// captured nav_msgs/Odometry (a full covariance) becomes a published
// belief carrying the captured battery's voltage.
func replayOdometry(t *testing.T, _ string, in map[string][][]byte) {
	cfg := testConfig()
	cfg.Input.Source = config.SourceOdometry
	cfg.Input.BatteryTopic = "/battery"
	prefix := odometryPrefix(t)
	h := startNodeWith(t, cfg, func(o *runOptions) { o.ament = prefix })
	h.sync(base)
	k := 0
	for _, topic := range []string{"/battery", "/odom"} {
		for _, data := range in[topic] {
			h.deliver(topic, data, base.Add(ms(k)))
			k++
		}
	}
	d := h.sync(base.Add(ms(k)))
	if n := count(t, d, "vehicle.rejected"); n != 0 {
		t.Errorf("%d captured messages rejected:\n%s", n, h.logs)
	}
	states := h.ft.Published(cfg.Topics[session.KeyState])
	if n := count(t, d, "vehicle.beliefs"); n != uint64(len(in["/odom"])) || len(states) != len(in["/odom"]) {
		t.Fatalf("%d beliefs made, %d published, of %d odometry messages", n, len(states), len(in["/odom"]))
	}
	var m ros2msg.VehicleState
	if err := m.UnmarshalCDR(states[len(states)-1]); err != nil {
		t.Fatal(err)
	}
	if v := m.Flight.BatteryV; !(v > 0) || len(m.Nav.Covariance15x15) != decisions.CovarianceLen {
		t.Errorf("last belief: battery %v V, %d covariance values", v, len(m.Nav.Covariance15x15))
	}
}

// replayClock: with use_sim_time the node's time is the last captured
// /clock, every message taken.
func replayClock(t *testing.T, _ string, in map[string][][]byte) {
	cfg := simConfig()
	h := startNode(t, cfg)
	msgs := in[clock.Topic]
	for i, data := range msgs {
		h.deliver(clock.Topic, data, wall(i))
	}
	d := h.sync(wall(len(msgs)))
	if mode := value(t, d, "clock"); mode != "sim" || count(t, d, "clock.messages") != uint64(len(msgs)) || count(t, d, "clock.rejected") != 0 {
		t.Fatalf("%d /clock messages: %+v", len(msgs), d.Status[0].Values)
	}
	last := msgs[len(msgs)-1]
	if len(last) < 12 || last[1] != 1 {
		t.Fatalf("last /clock %x, taken, is not little-endian CDR of a time", last)
	}
	want := int64(binary.LittleEndian.Uint32(last[4:]))*1e9 + int64(binary.LittleEndian.Uint32(last[8:]))
	if got := count(t, d, "clock.ros_time_ns"); got != uint64(want) {
		t.Errorf("ROS time %d ns after /clock messages up to %d ns", got, want)
	}
}

// replayCalibrated: with the calibrated input each captured record is
// decided with its calibration, the rationale hashing the raw assessment
// it carries (sent on the raw topic first, as the calibration stage does).
func replayCalibrated(t *testing.T, _ string, in map[string][][]byte) {
	cfg := testConfig()
	cfg.Topics[session.KeySelfAssessmentCalibrated] = session.CalibratedTopic
	h := startNode(t, cfg)
	recs := in[session.CalibratedTopic]
	var want []decisions.Rationale
	for i, data := range recs {
		var m ros2msg.CalibratedSelfAssessment
		if err := m.UnmarshalCDR(data); err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		raw, cal := ros2msg.CalibratedFromWire(&m)
		b := testBelief(raw.BeliefStampSimNs)
		c := decisions.Context{BeliefStampSimNs: b.StampSimNs, SelfAssessment: &raw, Calibration: &cal, Flight: b.Flight, Mission: b.Mission}
		_, r, err := decisions.DecideWithRationale(decisions.ReferencePolicy{}, c, raw.SHA256())
		if err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		want = append(want, r)
		at := base.Add(ms(3 * i))
		h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, raw), at)
		h.deliver(session.CalibratedTopic, data, at.Add(ms(1)))
		h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b), at.Add(ms(2)))
	}
	d := h.sync(base.Add(ms(3 * len(recs))))
	if n := count(t, d, "rejected") + count(t, d, "malformed."+session.KeySelfAssessmentCalibrated); n != 0 {
		t.Errorf("%d captured records rejected or malformed:\n%s", n, h.logs)
	}
	got := h.decisionsOut()
	if len(got) != len(want) {
		t.Fatalf("%d decisions of %d calibrated records", len(got), len(want))
	}
	for i := range got {
		if got[i].Decision != want[i].Decision || got[i].SelfAssessmentSHA256 != want[i].SelfAssessmentSHA256 {
			t.Errorf("decision %d: %+v, want %+v", i+1, got[i].Decision, want[i].Decision)
		}
	}
}
