package node

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
)

// bagTopics are the topics TestCaptureFromBag keeps samples of, with the
// type each must have in the bag: what the node decodes that its own live
// captures (TestRMWBytesOverROS2, TestPX4BytesOverROS2) do not reach.
var bagTopics = map[string]string{
	"/fmu/out/vehicle_local_position": "px4_msgs/msg/VehicleLocalPosition",
	"/fmu/out/vehicle_attitude":       "px4_msgs/msg/VehicleAttitude",
	"/fmu/out/vehicle_command_ack":    "px4_msgs/msg/VehicleCommandAck",
	"/fmu/in/vehicle_command":         "px4_msgs/msg/VehicleCommand",
	"/decisions/evidence":             "ghost/msg/ActionEvidence",
	"/odom":                           "nav_msgs/msg/Odometry",
	"/battery":                        "sensor_msgs/msg/BatteryState",
	"/clock":                          "rosgraph_msgs/msg/Clock",
	"/self_assessment/calibrated":     "ghost/msg/CalibratedSelfAssessment",
}

const (
	// bagSamples is how many samples of a topic are kept from its start.
	bagSamples = 5
	// bagOddSamples bounds the later samples kept for a length not kept
	// yet (an acknowledgement with another result, a longer evidence).
	bagOddSamples = 5
)

// TestCaptureFromBag keeps what a middleware delivered to a recorder: the
// serialized messages of rosbag2 bags that `ros2 bag record` wrote on one
// middleware hold each message exactly as that middleware handed it to
// the recorder's subscription. It reads the bags named in
// GHOST_CAPTURE_BAG (directories, separated as in PATH) and writes
// <GHOST_CAPTURE_DIR>/<RMW_IMPLEMENTATION>.bag.jsonl: of each topic of
// bagTopics, the first samples in log-time order and any later sample of
// a length not kept yet. TestCapturedBagBytes replays them.
//
// The bags of testdata/rmw are a PX4 v1.15.4 SITL flight the node acted
// in (px4.position local_position, executors.executor px4), and a bag of
// /odom, /battery, /clock and /self_assessment/calibrated recorded while
// `ros2 topic pub` published them, each on both middlewares:
//
//	GHOST_CAPTURE_BAG=flight/bag:pub/bag GHOST_CAPTURE_DIR=testdata/rmw \
//	RMW_IMPLEMENTATION=rmw_fastrtps_cpp go test -run TestCaptureFromBag ./pkg/node
func TestCaptureFromBag(t *testing.T) {
	dirs, out := os.Getenv("GHOST_CAPTURE_BAG"), os.Getenv("GHOST_CAPTURE_DIR")
	if dirs == "" || out == "" {
		t.Skip("GHOST_CAPTURE_BAG (rosbag2 bag directories) and GHOST_CAPTURE_DIR are not set")
	}
	rmw := os.Getenv("RMW_IMPLEMENTATION")
	if rmw == "" {
		t.Fatal("RMW_IMPLEMENTATION is not set: the kept bytes must name the middleware that recorded the bags")
	}
	var recs []capturedRecord
	for dir := range strings.SplitSeq(dirs, string(os.PathListSeparator)) {
		got := samplesFromBag(t, dir, rmw)
		t.Logf("%s: %d samples", dir, len(got))
		recs = append(recs, got...)
	}
	if len(recs) == 0 {
		t.Fatalf("no samples of %d topics in %s", len(bagTopics), dirs)
	}
	var b strings.Builder
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(out, rmw+".bag.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d records to %s", len(recs), path)
}

// samplesFromBag reads the bag in dir and returns its samples of
// bagTopics, in log-time order.
func samplesFromBag(t *testing.T, dir, rmw string) []capturedRecord {
	t.Helper()
	files, err := bag.BagFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	readers := make([]*bag.Reader, 0, len(files))
	for _, f := range files {
		r, err := bag.OpenRecording(f, bag.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		readers = append(readers, r)
	}
	c := bag.NewChain(readers, files)
	if p := c.Problems(); len(p) != 0 {
		t.Fatalf("%s: %v", dir, p)
	}
	type kept struct {
		n, odd  int
		lengths map[int]bool
	}
	seen := map[string]*kept{}
	var recs []capturedRecord
	for m, err := range c.Messages() {
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		typ, ok := bagTopics[m.Topic]
		if !ok {
			continue
		}
		if !bag.SameMessageType(m.SchemaName, typ) {
			t.Fatalf("%s: %s has type %s, want %s", dir, m.Topic, m.SchemaName, typ)
		}
		k := seen[m.Topic]
		if k == nil {
			k = &kept{lengths: map[int]bool{}}
			seen[m.Topic] = k
		}
		switch {
		case k.n < bagSamples:
			k.n++
		case !k.lengths[len(m.Data)] && k.odd < bagOddSamples:
			k.odd++
		default:
			continue
		}
		k.lengths[len(m.Data)] = true
		recs = append(recs, capturedRecord{RMW: rmw, Kind: "topic", Name: m.Topic, Type: typ, CDR: hex.EncodeToString(m.Data)})
	}
	return recs
}
