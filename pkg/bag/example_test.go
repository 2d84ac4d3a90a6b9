package bag_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Record decisions into a bare .mcap file that `ros2 bag info` reads, then
// read them back.
func ExampleCreateRecording() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "flight.mcap")

	rec, err := bag.CreateRecording(path, bag.RecorderOptions{})
	if err != nil {
		log.Fatal(err)
	}
	ch, err := rec.AddMessageChannel("/decisions", "DecisionRationale", qos.DefaultDecisions())
	if err != nil {
		log.Fatal(err)
	}
	for i := range 3 {
		m := ros2msg.NewDecisionRationale()
		m.BeliefStampSimNs = int64(i) * 100_000_000
		m.Decision.DecisionStampSimNs = m.BeliefStampSimNs
		m.Decision.Reason, m.PolicyID = "no_assessment", "uncertainty_aware_reference_v1"
		data, err := m.MarshalCDR()
		if err != nil {
			log.Fatal(err)
		}
		t := uint64(m.BeliefStampSimNs)
		if err := rec.Write(ch, t, t, data); err != nil {
			log.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := bag.OpenRecording(path, bag.ReaderOptions{
		Schemas: map[string]string{"/decisions": "ghost/msg/DecisionRationale"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for m, err := range r.Messages() {
		if err != nil {
			log.Fatal(err)
		}
		var d ros2msg.DecisionRationale
		if err := d.UnmarshalCDR(m.Data); err != nil {
			log.Fatal(err)
		}
		fmt.Println(m.Topic, m.Sequence, d.BeliefStampSimNs, d.Decision.Reason)
	}
	// Output:
	// /decisions 1 0 no_assessment
	// /decisions 2 100000000 no_assessment
	// /decisions 3 200000000 no_assessment
}
