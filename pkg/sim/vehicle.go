package sim

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Options configure the simulated flight. The zero value of a field means its
// default.
type Options struct {
	// Duration is the simulated flight time (default 120 s).
	Duration time.Duration
	// RateHz is the belief publication rate (default 50 Hz, at most 10 kHz).
	RateHz float64
	// Thresholds classify the simulator's own beliefs into self-assessments
	// (required: the node's configured thresholds).
	Thresholds decisions.Thresholds
	// BeliefLatency is how long after its stamp a belief reaches the node
	// (default 4 ms).
	BeliefLatency time.Duration
	// AssessmentLatency is how long after its stamp a self-assessment reaches
	// the node (default 6 ms). Every fifth assessment instead arrives
	// AssessmentLatency/2 after its stamp, before its belief, as happens
	// across ROS 2 topics.
	AssessmentLatency time.Duration
	// Truth adds the simulator's ground truth (EventTruth, every
	// TruthPeriod, recorded 1 ms after its stamp); default false, so that
	// a flight without it is unchanged.
	Truth bool
	// Health adds the health a PX4 vehicle reports to every belief
	// (decisions.Health: the receiver's fix, the estimator's flags, PX4's
	// failsafe flags, scripted with the flight: the receiver loses its fix
	// in the GPS loss, the estimator stops fusing it, PX4 flags the global
	// position invalid); default false, so that a flight without it is
	// unchanged.
	Health bool
}

func (o Options) withDefaults() (Options, error) {
	if o.Duration == 0 {
		o.Duration = 120 * time.Second
	}
	if o.RateHz == 0 {
		o.RateHz = 50
	}
	if o.BeliefLatency == 0 {
		o.BeliefLatency = 4 * time.Millisecond
	}
	if o.AssessmentLatency == 0 {
		o.AssessmentLatency = 6 * time.Millisecond
	}
	switch {
	case o.Duration < 0:
		return o, fmt.Errorf("sim: duration %v: must be > 0", o.Duration)
	case !(o.RateHz > 0 && o.RateHz <= 10000):
		return o, fmt.Errorf("sim: rate %v Hz: must be in (0, 10000]", o.RateHz)
	case o.BeliefLatency < 0 || o.AssessmentLatency < 0:
		return o, errors.New("sim: latencies must be >= 0")
	}
	if err := o.Thresholds.Validate(); err != nil {
		return o, fmt.Errorf("sim: thresholds: %w", err)
	}
	return o, nil
}

// EventKind says what a simulated publication is.
type EventKind uint8

// The publications of the simulated vehicle, and its ground truth.
const (
	EventBelief EventKind = iota
	EventAssessment
	EventPerception
	EventTruth // only with Options.Truth; never a decision input
)

// Event is one publication of the simulated vehicle and the time it reaches
// the node. Exactly one of the payload fields is set, as Kind says.
type Event struct {
	Kind       EventKind
	ArrivalNs  int64
	Belief     *Belief
	Assessment *decisions.SelfAssessment
	Perception *decisions.PerceptionReport
	Truth      *Truth
}

// Belief is a full simulated estimator output: the decision-relevant
// decisions.Belief plus the navigation values a VehicleState carries.
type Belief struct {
	decisions.Belief
	PositionENU [3]float64
	VelocityENU [3]float64
}

// Vehicle generates the scenario's publications in arrival order.
type Vehicle struct {
	opts       Options
	periodNs   float64
	durationNs int64
	ticks      int64 // beliefs in the flight
	next       int64 // next tick to generate
	queue      []Event
	lastMode   decisions.PerceptionMode
	lastReport int64
	seq        []int64 // generation order, parallel to queue, for stable ties
	generated  int64
	nextTruth  int64 // index of the next truth sample (stamp nextTruth*TruthPeriod)
}

// heartbeat is how often the perception detector repeats an unchanged mode.
const heartbeat = int64(time.Second)

// NewVehicle validates the options and prepares the flight.
func NewVehicle(opts Options) (*Vehicle, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	period := 1e9 / o.RateHz
	v := &Vehicle{
		opts:       o,
		periodNs:   period,
		durationNs: int64(o.Duration),
		ticks:      int64(float64(o.Duration)/period) + 1,
		lastMode:   math.MaxUint8,
		lastReport: math.MinInt64,
	}
	return v, nil
}

// Messages is the number of publications of the whole flight: beliefs,
// assessments while the assessor is live, perception reports on change and
// as heartbeat (and, with Options.Truth, the truth samples). It runs the
// schedule without building any message.
func (v *Vehicle) Messages() uint64 {
	var n uint64
	if v.opts.Truth {
		n = uint64(v.TruthSamples())
	}
	mode, last := decisions.PerceptionMode(math.MaxUint8), int64(math.MinInt64)
	for tick := int64(0); tick < v.ticks; tick++ {
		stamp := v.stampOf(tick)
		f := float64(stamp) / float64(v.durationNs)
		n++
		if assessorLiveAt(f) {
			n++
		}
		if m := perceptionAt(f); m != mode || stamp-last >= heartbeat {
			mode, last = m, stamp
			n++
		}
	}
	return n
}

// Beliefs is the number of beliefs the flight publishes.
func (v *Vehicle) Beliefs() int64 { return v.ticks }

// TruthSamples is the number of truth samples the flight publishes with
// Options.Truth: one every TruthPeriod from 0 to the end.
func (v *Vehicle) TruthSamples() int64 { return v.durationNs/int64(TruthPeriod) + 1 }

func (v *Vehicle) stampOf(tick int64) int64 { return int64(math.Round(float64(tick) * v.periodNs)) }

// Next returns the next publication in arrival order; ok is false when the
// flight is over.
func (v *Vehicle) Next() (ev Event, ok bool, err error) {
	// Every publication of tick k arrives at or after stamp(k), so the
	// earliest queued event can go once the next tick's stamp is later.
	for v.next < v.ticks && (len(v.queue) == 0 || v.earliest().ArrivalNs >= v.stampOf(v.next)) {
		if err := v.generate(v.next); err != nil {
			return Event{}, false, err
		}
		v.next++
	}
	if len(v.queue) == 0 {
		return Event{}, false, nil
	}
	i := v.earliestIndex()
	ev = v.queue[i]
	v.queue = append(v.queue[:i], v.queue[i+1:]...)
	v.seq = append(v.seq[:i], v.seq[i+1:]...)
	return ev, true, nil
}

func (v *Vehicle) earliestIndex() int {
	best := 0
	for i := 1; i < len(v.queue); i++ {
		a, b := v.queue[i], v.queue[best]
		if a.ArrivalNs < b.ArrivalNs || (a.ArrivalNs == b.ArrivalNs && v.seq[i] < v.seq[best]) {
			best = i
		}
	}
	return best
}

func (v *Vehicle) earliest() Event { return v.queue[v.earliestIndex()] }

func (v *Vehicle) push(ev Event) {
	v.queue = append(v.queue, ev)
	v.seq = append(v.seq, v.generated)
	v.generated++
}

// generate queues the publications of one tick: the perception report when
// the mode changes (and as a heartbeat), the belief, and its assessment
// while the assessor is live; with Options.Truth, the truth samples from
// this tick's stamp to the next's.
func (v *Vehicle) generate(tick int64) error {
	stamp := v.stampOf(tick)
	if v.opts.Truth {
		v.generateTruth(tick)
	}
	s := vehicleAt(stamp, v.durationNs)
	if s.perception != v.lastMode || stamp-v.lastReport >= heartbeat {
		v.lastMode, v.lastReport = s.perception, stamp
		v.push(Event{Kind: EventPerception, ArrivalNs: stamp + int64(time.Millisecond),
			Perception: &decisions.PerceptionReport{StampSimNs: stamp, Mode: s.perception}})
	}
	if v.opts.Health {
		s.flight.ErrorFlags |= healthAt(float64(stamp) / float64(v.durationNs)).Flags()
	}
	b := &Belief{
		Belief: decisions.Belief{
			StampSimNs: stamp, OrientationQ: s.q, Covariance: s.covariance,
			Flight: s.flight, Mission: s.mission,
		},
		PositionENU: s.position,
		VelocityENU: s.velocity,
	}
	v.push(Event{Kind: EventBelief, ArrivalNs: stamp + int64(v.opts.BeliefLatency), Belief: b})
	if s.assessorLive {
		a, err := decisions.Assess(stamp, s.covariance, v.opts.Thresholds)
		if err != nil {
			return fmt.Errorf("sim: assess belief %d: %w", stamp, err)
		}
		latency := int64(v.opts.AssessmentLatency)
		if tick%5 == 0 {
			latency /= 2
		}
		v.push(Event{Kind: EventAssessment, ArrivalNs: stamp + latency, Assessment: &a})
	}
	return nil
}

// generateTruth queues the truth samples whose stamps fall from tick's
// stamp up to the next tick's (to the end of the flight for the last), so
// that every event of a tick still arrives at or after its stamp.
func (v *Vehicle) generateTruth(tick int64) {
	until := v.durationNs
	if tick+1 < v.ticks {
		until = v.stampOf(tick+1) - 1
	}
	for n := v.TruthSamples(); v.nextTruth < n; v.nextTruth++ {
		stamp := v.nextTruth * int64(TruthPeriod)
		if stamp > until {
			return
		}
		tr := truthAt(stamp, v.durationNs)
		v.push(Event{Kind: EventTruth, ArrivalNs: stamp + int64(truthLatency), Truth: &tr})
	}
}
