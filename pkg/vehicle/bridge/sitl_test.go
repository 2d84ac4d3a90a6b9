package bridge

import (
	"errors"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/vehicle/mapping"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

// testdata/px4_sitl_lone_sample.mcap is 2.5 s of PX4 v1.15 SITL's own
// topics, recorded by rosbag2 on a live flight when the simulated GPS came
// back: vehicle_local_position, vehicle_attitude, battery_status and
// vehicle_status, their log times the recorder's receive times. (Its
// channels name their px4_msgs types only: the definitions come from the
// released px4_msgs, which the repository does not copy.) Amid samples in
// Unix time, PX4 sent one vehicle_local_position in boot time. Before the
// time-base rule took three agreeing samples, that one sample moved the
// offset, and every later attitude and battery sample was refused as older
// than the one held. Now the lone sample alone is refused.
func TestPX4SITLLoneSampleOnAnotherTimeBase(t *testing.T) {
	r, err := bag.OpenRecording("testdata/px4_sitl_lone_sample.mcap", bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b := newBridge(t)
	src, err := NewPX4(b, PX4Options{Definitions: px4Defs(t, px4.Release115), Position: PositionLocalPosition})
	if err != nil {
		t.Fatal(err)
	}
	var beliefs, positions int
	refused := map[mapping.Reason]int{}
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		if m.Topic == "/fmu/out/vehicle_local_position" {
			positions++
		}
		out, err := src.Handle(m.Topic, m.Data, int64(m.LogTime))
		var re *mapping.RejectError
		switch {
		case errors.As(err, &re):
			refused[re.Reason]++
		case err != nil:
			t.Fatalf("%s at %d: %v", m.Topic, m.LogTime, err)
		case len(out) > 0:
			beliefs++
		}
	}
	// The excerpt may open with a position before any attitude.
	early := refused[mapping.ReasonNoAttitude]
	delete(refused, mapping.ReasonNoAttitude)
	c := b.Tracker().Counters()
	if positions < 100 || early > 1 || refused[mapping.ReasonTimeBase] != 1 || len(refused) != 1 || c.TimeBaseChanges != 0 {
		t.Errorf("%d local positions: refused %v (and %d before any attitude), %d time-base changes; want only the lone sample refused (off_time_base) and no change",
			positions, refused, early, c.TimeBaseChanges)
	}
	if beliefs != positions-1-early {
		t.Errorf("%d beliefs from %d local positions, want all but the lone sample", beliefs, positions)
	}
}
