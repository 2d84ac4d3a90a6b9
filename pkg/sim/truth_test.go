package sim

import (
	"io"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
)

// TestTruthChangesNothingElse: with the truth on, the vehicle publishes
// exactly the bytes it publishes without, at the same times and in the
// same order, plus its truth.
func TestTruthChangesNothingElse(t *testing.T) {
	type msg struct {
		topic    string
		log, pub uint64
		data     string
	}
	publish := func(opts Options) (others []msg, truthStamps []uint64) {
		v, err := NewVehicle(opts)
		if err != nil {
			t.Fatal(err)
		}
		p := NewPublisher(v, nil)
		for {
			m, err := p.Next()
			if err == io.EOF {
				return others, truthStamps
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.ChannelID != 0 {
				truthStamps = append(truthStamps, m.LogTime)
				continue
			}
			others = append(others, msg{m.Topic, m.LogTime, m.PublishTime, string(m.Data)})
		}
	}
	for _, opts := range []Options{
		{Thresholds: testThresholds(), Duration: 12 * time.Second},
		{Thresholds: testThresholds(), Duration: 5 * time.Second, RateHz: 7},
		{Thresholds: testThresholds(), Duration: 2 * time.Second, RateHz: 1000},
	} {
		plain, none := publish(opts)
		if len(none) != 0 {
			t.Fatalf("%d truth messages without truth", len(none))
		}
		opts.Truth = true
		others, stamps := publish(opts)
		if !reflect.DeepEqual(others, plain) {
			t.Fatalf("%v at %v Hz: the flight differs with its truth", opts.Duration, opts.RateHz)
		}
		v, _ := NewVehicle(opts)
		if int64(len(stamps)) != 3*v.TruthSamples() {
			t.Fatalf("%d truth messages, want 3 per sample of %d", len(stamps), v.TruthSamples())
		}
		for i, s := range stamps {
			if want := uint64(int64(i/3)*int64(TruthPeriod) + int64(truthLatency)); s != want {
				t.Fatalf("truth message %d logged at %d, want %d", i, s, want)
			}
		}
	}
}

// TestTruthModel pins the story the truth tells against the declared
// deviations: the estimator's origin at the start, honest errors in
// nominal flight, an overconfident altitude as the GPS comes back.
func TestTruthModel(t *testing.T) {
	const d = int64(120 * time.Second)
	tr := truthAt(0, d)
	est := vehicleAt(0, d)
	for i := range 3 {
		if got := tr.PositionENU[i] - est.position[i]; math.Abs(got-estimatorOrigin[i]) > 1e-12 {
			t.Errorf("at 0 the truth is the estimate moved by %v on axis %d, want the origin %v", got, i, estimatorOrigin[i])
		}
	}
	// Over nominal flight, the error is about noiseGain of the deviation
	// (RMS) and never beyond the known threshold.
	var sum2 [3]float64
	n := 0
	for stamp := int64(0.12 * float64(d)); stamp < int64(0.34*float64(d)); stamp += int64(10 * time.Millisecond) {
		tr, est := truthAt(stamp, d), vehicleAt(stamp, d)
		for i := range 3 {
			e := est.position[i] - (tr.PositionENU[i] - estimatorOrigin[i])
			std := nominalPositionStd
			if i == 2 {
				std *= 0.8
			}
			sum2[i] += (e / std) * (e / std)
			if math.Abs(e) > testThresholds().PositionKnownStdM {
				t.Fatalf("nominal flight at %v: axis %d error %v beyond the known threshold", time.Duration(stamp), i, e)
			}
		}
		n++
	}
	for i, s := range sum2 {
		if rms := math.Sqrt(s / float64(n)); rms < 0.4 || rms > 0.8 {
			t.Errorf("nominal flight: axis %d e/sigma RMS %.3f, want about %v", i, rms, noiseGain)
		}
	}
	// As the GPS comes back the altitude is off by about baroDrift while
	// the claimed vertical deviation is known.
	stamp := int64(0.63 * float64(d))
	tr, est = truthAt(stamp, d), vehicleAt(stamp, d)
	ez := est.position[2] - (tr.PositionENU[2] - estimatorOrigin[2])
	stdZ := 0.8 * positionStd(0.63)
	if stdZ > testThresholds().PositionKnownStdM || math.Abs(ez) < 2*testThresholds().PositionKnownStdM {
		t.Errorf("at f 0.63: altitude error %.3f m with a claimed %.3f m: want an overconfident known", ez, stdZ)
	}
	// The attitude error is small: within a few declared deviations.
	for _, f := range []float64{0.2, 0.5, 0.9} {
		stamp := int64(f * float64(d))
		tr, est := truthAt(stamp, d), vehicleAt(stamp, d)
		dot := math.Abs(tr.Q[0]*est.q[0] + tr.Q[1]*est.q[1] + tr.Q[2]*est.q[2] + tr.Q[3]*est.q[3])
		angle := 2 * math.Acos(math.Min(dot, 1))
		if angle > 3*math.Sqrt(3)*orientationStd || (f > 0.1 && angle == 0) {
			t.Errorf("at f %v the attitude error is %v rad", f, angle)
		}
	}
}

// TestPublisherTruth: the truth goes out in package truth's form, each
// sample as three messages on the channels Channels declares.
func TestPublisherTruth(t *testing.T) {
	v, err := NewVehicle(Options{Thresholds: testThresholds(), Duration: time.Second, Truth: true})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPublisher(v, nil)
	chans := p.Channels()
	rec, err := truth.Find(chans, "")
	if err != nil || rec.Form != truth.FormGhost || rec.ResetTopic != "" {
		t.Fatalf("Find(Channels()) = %+v, %v", rec, err)
	}
	dec, err := truth.NewDecoder(rec, chans)
	if err != nil {
		t.Fatal(err)
	}
	var counts [truthStreams]int64
	var total uint64
	byID := map[uint16]string{}
	for _, c := range chans {
		byID[c.ID] = c.Topic
	}
	for {
		m, err := p.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		total++
		var out truth.Decoded
		ok, err := dec.Decode(m.Topic, m.Data, &out)
		if !ok {
			if m.ChannelID != 0 {
				t.Fatalf("%s has channel %d", m.Topic, m.ChannelID)
			}
			continue
		}
		if err != nil || out.N != 1 || byID[m.ChannelID] != m.Topic || m.LogTime != uint64(out.Samples[0].StampNs+int64(truthLatency)) {
			t.Fatalf("%s: %v %+v channel %d log time %d", m.Topic, err, out, m.ChannelID, m.LogTime)
		}
		counts[out.Samples[0].Stream]++
	}
	for s, n := range counts {
		if n != v.TruthSamples() {
			t.Errorf("%s: %d samples, want %d", truth.Stream(s), n, v.TruthSamples())
		}
	}
	if dec.Frame() != truth.FrameSim {
		t.Errorf("frame %q", dec.Frame())
	}
	if total != p.Total() {
		t.Errorf("%d messages, Total says %d", total, p.Total())
	}
}
