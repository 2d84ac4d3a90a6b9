//go:build rclgo

package node_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/testkeys"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/node"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/seal"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/sim"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// liveNodeEnv hands a liveNodeSpec to the node process that
// TestLiveSealingNode runs.
const liveNodeEnv = "GHOST_LIVE_SEALING_NODE"

// cpuMarker starts the line on which that process reports its CPU time.
const cpuMarker = "live-node-cpu-ns "

// The node process measures its CPU over liveWindow after liveWarmup
// (discovery, the first messages).
const liveWarmup, liveWindow = 3 * time.Second, 10 * time.Second

var discard = slog.New(slog.DiscardHandler)

// liveNodeSpec is what the node process runs and for how long it measures.
type liveNodeSpec struct {
	Prefix  string // of every topic, as liveGraph names them
	KeyFile string // seal.key_file; "" runs unsealed
	Record  string // recording.path; "" records nothing
	Warmup  time.Duration
	Window  time.Duration
}

// BenchmarkLiveSealingCost measures what sealing costs a live node on a
// real ROS 2 graph. Each iteration runs two node processes side by side
// (this test binary re-run as TestLiveSealingNode: rclgo, the middleware
// and the node, nothing else), one plain and one with seal.key_file, so
// that the load of a shared machine weighs on both alike. A publisher in
// this process feeds both the same simulated flight (beliefs with their
// covariance, self-assessments, perception modes) at a fixed rate, and each
// node reports its own process's user + system CPU over a window after a
// warm-up. Reported: the median ratio of the pairs (sealed/plain) and the
// plain node's CPU per second. It needs a sourced ROS 2 and this package's
// interfaces, and skips without them. Run it where no other DDS traffic
// reaches it (its own network namespace):
//
//	go test -tags rclgo -run '^$' -bench LiveSealingCost -benchtime 7x ./pkg/node
func BenchmarkLiveSealingCost(b *testing.B) {
	for _, c := range []struct {
		rate   float64
		record bool
	}{{50, false}, {200, false}, {50, true}, {200, true}} {
		name := fmt.Sprintf("%gHz", c.rate)
		if c.record {
			name += "-recorded"
		}
		b.Run(name, func(b *testing.B) { benchLiveSealing(b, c.rate, c.record) })
	}
}

func benchLiveSealing(b *testing.B, rate float64, record bool) {
	if os.Getenv("AMENT_PREFIX_PATH") == "" {
		b.Skip("ROS 2 is not sourced (AMENT_PREFIX_PATH is empty)")
	}
	key := testkeys.Private(b, filepath.Join("..", "seal", "testdata", "node.key"))
	var ratios, plainCPU []float64
	for i := 0; b.Loop(); i++ {
		var specs [2]liveNodeSpec // plain, sealed
		for k := range specs {
			specs[k] = liveNodeSpec{Prefix: fmt.Sprintf("/ghost_sealcost_%d_%d_%d", os.Getpid(), i, k),
				Warmup: liveWarmup, Window: liveWindow}
			if record {
				specs[k].Record = filepath.Join(b.TempDir(), "node.mcap")
			}
		}
		specs[1].KeyFile = key
		cpu := runLiveNodes(b, specs[:], rate, i%2 == 1)
		b.Logf("pair %d: plain %v, sealed %v of CPU in %v", i, cpu[0].Round(time.Millisecond), cpu[1].Round(time.Millisecond), liveWindow)
		ratios = append(ratios, float64(cpu[1])/float64(cpu[0]))
		plainCPU = append(plainCPU, cpu[0].Seconds()/liveWindow.Seconds()*1e3)
	}
	slices.Sort(ratios)
	slices.Sort(plainCPU)
	b.ReportMetric(ratios[len(ratios)/2], "sealed/plain-cpu")
	b.ReportMetric(plainCPU[len(plainCPU)/2], "plain-cpu-ms/s")
}

// liveNode is one node process of runLiveNodes and what it was heard say.
type liveNode struct {
	spec            liveNodeSpec
	pubs            map[string]transport.Publisher // by input kind's key
	decided, sealed atomic.Uint64
	cmd             *exec.Cmd
	out             chan []string
}

// runLiveNodes starts a node process for each spec, side by side so that
// the load of a shared machine weighs on them alike, feeds them the same
// messages at rate (in reverse order of specs when reverse) until they
// exit, checks that each decided and sealed as configured, and returns the
// CPU time each reports for its window.
func runLiveNodes(b *testing.B, specs []liveNodeSpec, rate float64, reverse bool) []time.Duration {
	b.Helper()
	cfg := config.Default()
	peer, err := transport.NewRCLTransport(nil, "ghost_sealcost_peer", "", discard)
	if err != nil {
		b.Skipf("no ROS 2 context: %v", err)
	}
	defer peer.Close()
	nodes := make([]*liveNode, len(specs))
	for i, spec := range specs {
		nodes[i] = startLiveNode(b, peer, spec)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	peerDone := make(chan error, 1)
	go func() { peerDone <- peer.Run(ctx) }()
	order := slices.Clone(nodes)
	if reverse {
		slices.Reverse(order)
	}
	fed := make(chan int, 1)
	go func() { fed <- feed(ctx, b, cfg, order, rate, liveWarmup+liveWindow+5*time.Second) }()
	cpu := make([]time.Duration, len(nodes))
	var failed []string
	for i, n := range nodes {
		report := <-n.out
		if err := n.cmd.Wait(); err != nil {
			failed = append(failed, fmt.Sprintf("node process %d: %v\n%s", i, err, strings.Join(report, "\n")))
		}
		for _, l := range report {
			if v, ok := strings.CutPrefix(l, cpuMarker); ok {
				ns, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					b.Fatal(err)
				}
				cpu[i] = time.Duration(ns)
			}
		}
	}
	cancel()
	beliefs := <-fed
	<-peerDone
	if failed != nil {
		b.Fatal(strings.Join(failed, "\n"))
	}
	// Each node must have decided at about the rate fed, and sealed about
	// once a second exactly when given a key.
	for i, n := range nodes {
		if d := n.decided.Load(); cpu[i] == 0 || float64(d) < 0.8*rate*(liveWarmup+liveWindow).Seconds() {
			b.Fatalf("node process %d: cpu %v, %d decisions for %d beliefs fed at %g Hz", i, cpu[i], d, beliefs, rate)
		}
		if s := n.sealed.Load(); n.spec.KeyFile != "" && s < uint64(liveWindow.Seconds()) || n.spec.KeyFile == "" && s > 0 {
			b.Fatalf("node process %d with key %q published %d seals", i, n.spec.KeyFile, s)
		}
	}
	return cpu
}

// startLiveNode advertises the inputs of the node of spec on peer,
// subscribes to its decisions and seals, and starts its process, whose
// output lines arrive on out when it closes its output.
func startLiveNode(b *testing.B, peer *transport.RCLTransport, spec liveNodeSpec) *liveNode {
	b.Helper()
	n := &liveNode{spec: spec, pubs: map[string]transport.Publisher{}, out: make(chan []string, 1)}
	cfg := liveConfig(spec.Prefix)
	for _, in := range cfg.Inputs() {
		if in.Kind != engine.InputBelief && in.Kind != engine.InputAssessment && in.Kind != engine.InputPerception {
			continue
		}
		p, err := peer.Advertise(in.Topic, in.Type, qos.DefaultInput())
		if err != nil {
			b.Fatal(err)
		}
		n.pubs[in.Key] = p
	}
	count := func(c *atomic.Uint64) func([]byte, time.Time) { return func([]byte, time.Time) { c.Add(1) } }
	if err := peer.Subscribe(cfg.Topics[session.KeyDecisions], "ghost/msg/DecisionRationale", qos.DefaultDecisions(), count(&n.decided)); err != nil {
		b.Fatal(err)
	}
	if err := peer.Subscribe(cfg.Topics[session.KeySeal], seal.SchemaName, qos.DefaultDecisions(), count(&n.sealed)); err != nil {
		b.Fatal(err)
	}
	js, err := json.Marshal(spec)
	if err != nil {
		b.Fatal(err)
	}
	n.cmd = exec.Command(os.Args[0], "-test.run=^TestLiveSealingNode$", "-test.v")
	n.cmd.Env = append(os.Environ(), liveNodeEnv+"="+string(js))
	n.cmd.Stderr = os.Stderr
	out, err := n.cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := n.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	go func() {
		var lines []string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		n.out <- lines
	}()
	return n
}

// liveConfig is the default configuration with every topic under prefix.
func liveConfig(prefix string) config.Config {
	cfg := config.Default()
	for k, v := range cfg.Topics {
		if strings.HasPrefix(v, "/") {
			cfg.Topics[k] = prefix + v
		}
	}
	return cfg
}

// feed publishes a simulated flight of duration to every node, each
// message when its log time comes, until ctx ends, and returns the beliefs
// published to each.
func feed(ctx context.Context, b *testing.B, cfg config.Config, nodes []*liveNode, rate float64, duration time.Duration) int {
	v, err := sim.NewVehicle(sim.Options{Duration: duration, RateHz: rate, Thresholds: cfg.Thresholds})
	if err != nil {
		b.Error(err)
		return 0
	}
	keys := map[string]string{} // input key by topic
	for _, in := range cfg.Inputs() {
		keys[in.Topic] = in.Key
	}
	src := sim.NewPublisher(v, cfg.Inputs())
	start := time.Now()
	var first uint64
	beliefs := 0
	for i := 0; ctx.Err() == nil; i++ {
		m, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Error(err)
			break
		}
		if i == 0 {
			first = m.LogTime
		}
		if d := time.Until(start.Add(time.Duration(m.LogTime - first))); d > 0 {
			time.Sleep(d)
		}
		for _, n := range nodes {
			if p, ok := n.pubs[keys[m.Topic]]; ok {
				if err := p.Publish(m.Data); err != nil {
					b.Error(err)
					return beliefs
				}
			}
		}
		if m.Topic == cfg.Topics[session.KeyState] {
			beliefs++
		}
	}
	return beliefs
}

// TestLiveSealingNode is the node process of BenchmarkLiveSealingCost; it
// skips unless that benchmark started it. It runs the node on its own rcl
// transport, measures its process's user + system CPU over the window
// that follows the warm-up, prints it and stops the node.
func TestLiveSealingNode(t *testing.T) {
	js := os.Getenv(liveNodeEnv)
	if js == "" {
		t.Skip("the node process of BenchmarkLiveSealingCost")
	}
	var spec liveNodeSpec
	if err := json.Unmarshal([]byte(js), &spec); err != nil {
		t.Fatal(err)
	}
	cfg := liveConfig(spec.Prefix)
	cfg.Seal.KeyFile = spec.KeyFile
	cfg.Recording.Path = spec.Record
	nodeT, err := transport.NewRCLTransport(nil, config.DefaultNodeName, "", discard)
	if err != nil {
		t.Fatal(err)
	}
	defer nodeT.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- node.Run(ctx, cfg, nodeT, discard) }()
	time.Sleep(spec.Warmup)
	c0 := processCPU(t)
	time.Sleep(spec.Window)
	fmt.Printf("\n%s%d\n", cpuMarker, processCPU(t)-c0)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// processCPU returns the process's user and system CPU time, all threads.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
