package node

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

func TestRecordingTarget(t *testing.T) {
	tests := []struct {
		name           string
		existing       []string
		path           string
		target, before string // "" before: a first start
		err            string
	}{
		{"first start", nil, "node.mcap", "node.mcap", "", ""},
		{"restart", []string{"node.mcap"}, "node.mcap", "node_restart001.mcap", "node.mcap", ""},
		{"second restart", []string{"node.mcap", "node_restart001.mcap"}, "node.mcap", "node_restart002.mcap", "node_restart001.mcap", ""},
		{"after the newest, not in a gap", []string{"node.mcap", "node_restart003.mcap"}, "node.mcap", "node_restart004.mcap", "node_restart003.mcap", ""},
		{"others ignored", []string{"node.mcap", "node_restart01.mcap", "node_restartxyz.mcap", "node_restart007.bag", "other_restart009.mcap"},
			"node.mcap", "node_restart001.mcap", "node.mcap", ""},
		{"after the first run's parts", []string{"node.mcap", "node_001.mcap", "node_002.mcap"}, "node.mcap", "node_restart001.mcap", "node_002.mcap", ""},
		{"after a restart's parts", []string{"node.mcap", "node_001.mcap", "node_restart001.mcap", "node_restart001_001.mcap"},
			"node.mcap", "node_restart002.mcap", "node_restart001_001.mcap", ""},
		{"parts misnamed ignored", []string{"node.mcap", "node_01.mcap", "node_000.mcap", "node_restart001_1.mcap", "node_0010.mcap"},
			"node.mcap", "node_restart001.mcap", "node.mcap", ""},
		{"no extension", []string{"flight"}, "flight", "flight_restart001", "flight", ""},
		{"all numbers used", []string{"node.mcap", "node_restart999.mcap"}, "node.mcap", "", "", "999 restart recordings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, name := range tt.existing {
				if err := writeFile(filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			target, before, err := recordingTarget(filepath.Join(dir, tt.path))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantBefore := ""
			if tt.before != "" {
				wantBefore = filepath.Join(dir, tt.before)
			}
			if target != filepath.Join(dir, tt.target) || before != wantBefore {
				t.Errorf("target %s after %q, want %s after %q", target, before, tt.target, tt.before)
			}
			if tt.before != "" && !(filepath.Base(before) < filepath.Base(target)) {
				t.Errorf("%s does not sort after %s", target, before)
			}
		})
	}
}

// A node restarted over its killed predecessor's recording keeps that file
// as it is and records to the next one, which says it restarted.
func TestRunRestartKeepsTheKilledRecording(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Recording.Path = filepath.Join(dir, "node.mcap")

	// The killed node: its recording cut where the kill left it.
	first := startNode(t, cfg)
	b := testBelief(10_000_000)
	first.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b), base)
	first.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, testAssessment(t, b.StampSimNs, 0.1)), base.Add(ms(1)))
	first.sync(base.Add(ms(2)))
	if err := first.shutdown(); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(cfg.Recording.Path)
	if err != nil {
		t.Fatal(err)
	}
	killed := whole[:len(whole)-40]
	if err := os.WriteFile(cfg.Recording.Path, killed, 0o644); err != nil {
		t.Fatal(err)
	}

	h := startNode(t, cfg)
	b2 := testBelief(20_000_000)
	h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b2), base.Add(ms(10)))
	h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, testAssessment(t, b2.StampSimNs, 0.1)), base.Add(ms(11)))
	d := h.sync(base.Add(ms(12)))
	if count(t, d, "recording.restarted") != 1 {
		t.Errorf("diagnostics %+v, want recording.restarted 1", d.Status[0].Values)
	}
	if err := h.shutdown(); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if got, err := os.ReadFile(cfg.Recording.Path); err != nil || !bytes.Equal(got, killed) {
		t.Fatalf("the killed node's recording changed (%v)", err)
	}
	next := filepath.Join(dir, "node_restart001.mcap")
	r, err := bag.OpenRecording(next, bag.ReaderOptions{})
	if err != nil {
		t.Fatalf("the restarted node's recording: %v", err)
	}
	var decided int
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		if m.Topic == "/decisions" {
			decided++
		}
	}
	r.Close()
	if decided != 1 {
		t.Errorf("%d decisions in the restarted recording, want 1", decided)
	}
	data, err := os.ReadFile(next)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{MetadataRestart, cfg.Recording.Path} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the restarted recording does not say %q", want)
		}
	}
	for _, want := range []string{"decision node restarted", "previous=" + cfg.Recording.Path, "recording=" + next} {
		if !strings.Contains(h.logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, h.logs)
		}
	}
}

// fullDisk is a file on a disk that fills after limit bytes.
type fullDisk struct {
	mu      sync.Mutex
	f       *os.File
	limit   int
	written int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := min(len(p), max(d.limit-d.written, 0))
	n, err := d.f.Write(p[:n])
	d.written += n
	if err == nil && n < len(p) {
		err = &os.PathError{Op: "write", Path: d.f.Name(), Err: syscall.ENOSPC}
	}
	return n, err
}

// The disk fills while the node records: it keeps deciding and publishing,
// says at once that the recording failed (an error line, /diagnostics
// ERROR), returns the failure at shutdown, and the file verifies up to it.
func TestRunRecordingDiskFull(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Recording.Path = filepath.Join(dir, "node.mcap")
	cfg.Recording.Compression = config.CompressionNone
	cfg.Recording.ChunkSize = 2048
	var disk *fullDisk
	create := func(path string, opts bag.RecorderOptions) (*bag.Recorder, error) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { f.Close() })
		disk = &fullDisk{f: f, limit: 20000}
		return bag.NewRecorder(disk, opts)
	}
	h := startNodeWith(t, cfg, func(o *runOptions) { o.create = create })
	const n = 60
	var errorReport bool
	for i := range n {
		b := testBelief(int64(i+1) * 10_000_000)
		at := base.Add(ms(10 * i))
		h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, b), at)
		h.deliver(cfg.Topics[session.KeySelfAssessment], assessmentCDR(t, testAssessment(t, b.StampSimNs, 0.1)), at.Add(ms(1)))
		d := h.sync(at.Add(ms(2)))
		errorReport = errorReport || d.Status[0].Level == ros2msg.DiagnosticStatusError
	}
	if got := len(h.decisionsOut()); got != n {
		t.Errorf("%d decisions published, want %d: the full disk stopped deciding", got, n)
	}
	if !errorReport {
		t.Error("no /diagnostics ERROR after the disk filled")
	}
	d := h.sync(base.Add(ms(10 * n)))
	if count(t, d, "recording.failures") == 0 || !strings.Contains(d.Status[0].Message, "recording failed") {
		t.Errorf("diagnostics %q %+v", d.Status[0].Message, d.Status[0].Values)
	}
	err := h.shutdown()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Run = %v, want the recording's failure", err)
	}
	if !strings.Contains(h.logs.String(), "level=ERROR msg=\"recording failed") {
		t.Errorf("no error line for the failure:\n%s", h.logs)
	}
	// The file is the evidence up to the failure: read, named as unclosed.
	r, err := bag.OpenRecording(cfg.Recording.Path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var decided int
	var te *bag.TruncatedError
	for m, err := range r.Messages() {
		if err != nil {
			if !errors.As(err, &te) || !te.Unclosed {
				t.Fatalf("read = %v, want an unclosed file", err)
			}
			break
		}
		if m.Topic == "/decisions" {
			decided++
		}
	}
	if te == nil || decided == 0 || decided >= n {
		t.Errorf("read %d of %d decisions before %v, want a prefix then the cause", decided, n, te)
	}
}

// landAlways decides engage_land on every belief, armed or not: the first
// decision of a restarted node is then a kind the px4 executor acts on.
const landAlways = `name: land_always
version: 1
description: lands on every belief, whatever the vehicle's state
default:
  action: proceed
  reason: nominal
rules:
  - name: land_always
    when:
      level: {block: position, is: known}
    action: engage_land
    reason: always_land
`

// A restarted node knows nothing of the vehicle until PX4's first
// vehicle_status: before it, a decision the executor would act on sends
// no command (its context shows the vehicle's state unknown: disarmed, the
// action not_applicable). After it, the node acts on what the status says:
// a vehicle flying in another mode is commanded, one already landing or
// disarmed is left alone.
func TestRestartedNodeCommandsNothingBeforeVehicleStatus(t *testing.T) {
	prefix := px4Prefix(t)
	defs, err := px4.LoadFromAmentIndex(prefix)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		armingState uint64 // of the first vehicle_status
		navState    uint64
		commands    int // sent after it
	}{
		{"flying in position mode", 2, uint64(px4.NavStatePosctl), 1},
		{"already landing", 2, uint64(px4.NavStateAutoLand), 0},
		{"disarmed", 1, uint64(px4.NavStatePosctl), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			policy := filepath.Join(dir, "land_always.yaml")
			if err := os.WriteFile(policy, []byte(landAlways), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := testConfig()
			cfg.PolicyFile = policy
			cfg.Input.Source = config.SourcePX4
			cfg.Input.PX4Release = "1.15"
			cfg.Executors.Executor = config.ExecutorPX4
			cfg.Recording.Path = filepath.Join(dir, "node.mcap")
			// The killed predecessor's recording.
			if err := writeFile(cfg.Recording.Path); err != nil {
				t.Fatal(err)
			}
			h := startWith(t, cfg, prefix)
			waitSubscribed(t, h, "/fmu/out/vehicle_odometry")
			odometry := func(i int) {
				us := uint64(1000 + 20_000*i)
				h.deliver("/fmu/out/vehicle_odometry", px4Message(t, defs, px4.MsgVehicleOdometry,
					map[string]float64{"q[0]": 1, "position_variance[0]": 0.01, "position_variance[1]": 0.01, "position_variance[2]": 0.01,
						"velocity_variance[0]": 0.01, "velocity_variance[1]": 0.01, "velocity_variance[2]": 0.01,
						"orientation_variance[0]": 1e-4, "orientation_variance[1]": 1e-4, "orientation_variance[2]": 1e-4},
					map[string]uint64{"timestamp": us, "timestamp_sample": us, "pose_frame": 1, "velocity_frame": 1}),
					base.Add(ms(20*i)))
			}
			const before = 5
			for i := range before {
				odometry(i)
			}
			d := h.sync(base.Add(ms(20 * before)))
			if count(t, d, "recording.restarted") != 1 {
				t.Fatalf("not a restart: %+v", d.Status[0].Values)
			}
			decided := h.decisionsOut()
			if len(decided) != before {
				t.Fatalf("%d decisions before the first vehicle_status, want %d", len(decided), before)
			}
			for _, r := range decided {
				if r.Decision.Kind != decisions.KindEngageLand {
					t.Fatalf("decided %s, want engage_land", r.Decision.Kind)
				}
			}
			if cmds := h.ft.Published("/fmu/in/vehicle_command"); len(cmds) != 0 {
				t.Fatalf("%d commands sent before the node learned the vehicle's state", len(cmds))
			}
			receipts := h.ft.Published("/decisions/actions")
			if len(receipts) == 0 {
				t.Fatal("no receipt says why nothing was sent")
			}
			var rc ros2msg.ActionReceipt
			if err := rc.UnmarshalCDR(receipts[0]); err != nil {
				t.Fatal(err)
			}
			if got := session.ReceiptFromWire(&rc); got.Failure != engine.FailNotApplicable || !strings.Contains(got.Detail, "disarmed") {
				t.Fatalf("first receipt %+v, want not_applicable: disarmed", got)
			}

			h.deliver("/fmu/out/vehicle_status", px4Message(t, defs, px4.MsgVehicleStatus, nil,
				map[string]uint64{"timestamp": uint64(1000 + 20_000*before), "arming_state": tt.armingState, "nav_state": tt.navState,
					"system_id": 1}), base.Add(ms(20*before)))
			for i := before; i < 2*before; i++ {
				odometry(i + 1)
			}
			h.sync(base.Add(ms(20 * (2*before + 2))))
			if err := h.shutdown(); err != nil {
				t.Fatalf("Run = %v\n%s", err, h.logs)
			}
			if cmds := h.ft.Published("/fmu/in/vehicle_command"); len(cmds) != tt.commands {
				t.Fatalf("%d commands after the vehicle_status, want %d", len(cmds), tt.commands)
			}
		})
	}
}

// waitSubscribed returns once the node subscribed to topic; it fails with
// the node's log if Run returned first.
func waitSubscribed(t *testing.T, h *harness, topic string) {
	t.Helper()
	for {
		if _, _, ok := h.ft.Subscription(topic); ok {
			return
		}
		select {
		case err := <-h.done:
			t.Fatalf("Run returned %v before subscribing to %s\n%s", err, topic, h.logs)
		case <-h.ctx.Done():
			t.Fatalf("no subscription to %s", topic)
		case <-time.After(time.Millisecond):
		}
	}
}
