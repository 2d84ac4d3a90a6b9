package node

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// capturedRecord is one payload a middleware handed the node on a real ROS
// 2 graph: a service request, or a message on one of its subscriptions.
// TestRMWBytesOverROS2 writes them.
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
