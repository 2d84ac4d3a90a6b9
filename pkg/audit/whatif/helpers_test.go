package whatif

import (
	"bytes"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/sim"
)

// shippedDir is the repository's config/policies, relative to this package.
var shippedDir = filepath.Join("..", "..", "..", "config", "policies")

func shippedPolicy(t testing.TB, name string) *rules.Policy {
	t.Helper()
	p, err := rules.ParseFile(filepath.Join(shippedDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// simFlight decides the simulated flight of duration d at rate Hz with
// policy p into an MCAP recording, as `decision_node sim` does, and returns
// its bytes.
func simFlight(t testing.TB, d time.Duration, rate float64, p decisions.Policy) []byte {
	t.Helper()
	v, err := sim.NewVehicle(sim.Options{Duration: d, RateHz: rate, Thresholds: decisions.Thresholds{
		PositionKnownStdM: 0.5, PositionUnknownStdM: 2, VelocityKnownStdMps: 0.2, VelocityUnknownStdMps: 1,
		OrientationKnownStdRad: 0.05, OrientationUnknownStdRad: 0.2, SchemaVersion: decisions.SchemaVersion,
	}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rec, err := bag.NewRecorder(&buf, bag.RecorderOptions{Compression: bag.CompressionNone})
	if err != nil {
		t.Fatal(err)
	}
	opts := audit.ReplayOptions{Session: session.SessionOptions{Loop: engine.LoopOptions{Policy: p}}}
	if _, err := audit.Replay(sim.NewPublisher(v, nil), rec, opts); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// memFlight is a flight read from data, a ghost recording held in memory.
func memFlight(name string, data []byte) Flight {
	return Flight{Name: name, Open: func() (*Input, error) {
		r, err := bag.NewReader(bytes.NewReader(data), bag.ReaderOptions{})
		if err != nil {
			return nil, err
		}
		return &Input{Source: r, Total: r.MessageCount(), Format: "ghost recording", DecisionsTopic: "/decisions",
			Close: func() { r.Close() }}, nil
	}}
}

// fleetData are the recordings of the fixed fleet, made once per test run.
var fleetData struct {
	once                       sync.Once
	like30, like45, ref, tight []byte
}

// fleet is a small fixed set of flights: px4_failsafe_like flights of two
// lengths, a flight of the reference policy, one of the candidate itself,
// a recording cut short, a file that is no recording and one that cannot
// be opened. Names are given out of order.
func fleet(t testing.TB) []Flight {
	t.Helper()
	fd := &fleetData
	fd.once.Do(func() {
		like := shippedPolicy(t, "px4_failsafe_like.yaml")
		ref, _ := decisions.LookupPolicy(decisions.ReferencePolicyID)
		fd.like30 = simFlight(t, 30*time.Second, 20, like)
		fd.like45 = simFlight(t, 45*time.Second, 10, like)
		fd.ref = simFlight(t, 20*time.Second, 10, ref)
		fd.tight = simFlight(t, 20*time.Second, 10, shippedPolicy(t, "px4_failsafe_tight_position.yaml"))
	})
	if fd.like30 == nil {
		t.Fatal("the fleet's recordings were not made")
	}
	return []Flight{
		memFlight("flights/f_tight_20s.mcap", fd.tight),
		memFlight("flights/b_like_45s.mcap", fd.like45),
		memFlight("flights/e_cut.mcap", fd.like30[:len(fd.like30)*6/10]),
		memFlight("flights/a_like_30s.mcap", fd.like30),
		memFlight("flights/d_not_mcap.mcap", []byte("this is not a recording\n")),
		memFlight("flights/c_reference_20s.mcap", fd.ref),
		{Name: "flights/g_missing.mcap", Open: func() (*Input, error) { return nil, errors.New("open flights/g_missing.mcap: no such file") }},
	}
}

// teeWriter hands everything to several writers.
type teeWriter []Writer

func (w teeWriter) Flight(r *FlightResult) error {
	for _, x := range w {
		if err := x.Flight(r); err != nil {
			return err
		}
	}
	return nil
}

func (w teeWriter) Summary(s *Summary) error {
	for _, x := range w {
		if err := x.Summary(s); err != nil {
			return err
		}
	}
	return nil
}

// runFleet compares flights and returns the text, the JSON lines and the
// HTML page.
func runFleet(t testing.TB, flights []Flight, opts Options) (text, jsonl, page string, sum *Summary) {
	t.Helper()
	var tb, jb, hb bytes.Buffer
	w := teeWriter{NewTextWriter(&tb), NewJSONWriter(&jb), NewHTMLWriter(&hb)}
	sum, err := Run(flights, opts, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Summary(sum); err != nil {
		t.Fatal(err)
	}
	return tb.String(), jb.String(), hb.String(), sum
}
