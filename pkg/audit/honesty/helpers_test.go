package honesty

import (
	"cmp"
	"io"
	"math"
	"slices"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

var thresholds = decisions.Thresholds{
	PositionKnownStdM: 0.5, PositionUnknownStdM: 2,
	VelocityKnownStdMps: 0.2, VelocityUnknownStdMps: 1,
	OrientationKnownStdRad: 0.05, OrientationUnknownStdRad: 0.2,
	SchemaVersion: 1,
}

// recording builds a recording in memory: messages in log-time order and
// their channels.
type recording struct {
	t     testing.TB
	msgs  []bag.Message
	chans []bag.Channel
	enc   *truth.Encoder
}

func newRecording(t testing.TB, truthChannels bool, frame string) *recording {
	return newRecordingWith(t, truthChannels, false, frame)
}

// newRecordingWith also has the channels of the global position and the
// estimator's origin when global is set.
func newRecordingWith(t testing.TB, truthChannels, global bool, frame string) *recording {
	r := &recording{t: t}
	for _, c := range []struct{ topic, typ string }{
		{"/state/nav", "ghost/msg/VehicleState"}, {"/self_assessment", "ghost/msg/BeliefSelfAssessment"}, {"/decisions", "ghost/msg/DecisionRationale"},
	} {
		r.chans = append(r.chans, bag.Channel{ID: uint16(len(r.chans) + 1), Topic: c.topic, SchemaName: c.typ})
	}
	if truthChannels {
		cs, err := truth.GhostChannels(true)
		if err != nil {
			t.Fatal(err)
		}
		if global {
			g, err := truth.GhostGlobalChannels()
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, g...)
		}
		for _, c := range cs {
			r.chans = append(r.chans, bag.Channel{ID: uint16(len(r.chans) + 1), Topic: c.Topic, SchemaName: c.SchemaName, SchemaText: c.SchemaText})
		}
		if r.enc, err = truth.NewEncoder(frame); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func (r *recording) add(topic string, logNs int64, data []byte) {
	r.msgs = append(r.msgs, bag.Message{Topic: topic, LogTime: uint64(logNs), PublishTime: uint64(logNs), Data: append([]byte(nil), data...)})
}

// covOf is a diagonal covariance of the given deviations (bias blocks
// tiny); NaN deviations make it absent.
func covOf(std [9]float64) []float64 {
	cov := make([]float64, decisions.CovarianceLen)
	for i := range 15 {
		v := 1e-6
		if i < 9 {
			v = std[i] * std[i]
		}
		cov[i*15+i] = v
	}
	return cov
}

// belief records a belief, its assessment (from std) and a decision of
// kind, all logged at the stamp.
func (r *recording) belief(stamp int64, pos, vel [3]float64, q [4]float64, std [9]float64, kind decisions.Kind) {
	cov := covOf(std)
	vs := ros2msg.NewVehicleState()
	vs.StampSimNs = stamp
	vs.Nav.PositionEnuM, vs.Nav.LinearVelocityWorldMps, vs.Nav.OrientationQ, vs.Nav.Covariance15x15 = pos, vel, q, cov
	data, err := vs.MarshalCDR()
	if err != nil {
		r.t.Fatal(err)
	}
	r.add("/state/nav", stamp, data)
	a, err := decisions.Assess(stamp, cov, thresholds)
	if err != nil {
		r.t.Fatal(err)
	}
	sa := ros2msg.SelfAssessmentToWire(&a)
	if data, err = sa.MarshalCDR(); err != nil {
		r.t.Fatal(err)
	}
	r.add("/self_assessment", stamp, data)
	d := ros2msg.NewDecisionRationale()
	d.Decision.Kind, d.Decision.DecisionStampSimNs, d.Decision.Reason = uint8(kind), stamp, "test"
	d.BeliefStampSimNs, d.PolicyID = stamp, "test"
	if data, err = d.MarshalCDR(); err != nil {
		r.t.Fatal(err)
	}
	r.add("/decisions", stamp+1, data)
}

func (r *recording) truth(s truth.Sample) {
	topic, data, err := r.enc.Encode(s)
	if err != nil {
		r.t.Fatal(err)
	}
	r.add(topic, s.StampNs, data)
}

func (r *recording) reset(x truth.Reset) {
	topic, data, err := r.enc.EncodeReset(x)
	if err != nil {
		r.t.Fatal(err)
	}
	r.add(topic, x.StampNs, data)
}

func (r *recording) origin(o truth.Origin) {
	topic, data, err := r.enc.EncodeOrigin(o)
	if err != nil {
		r.t.Fatal(err)
	}
	r.add(topic, o.StampNs, data)
}

// source returns the messages in log-time order (stable).
func (r *recording) source() *sliceSource {
	msgs := slices.Clone(r.msgs)
	slices.SortStableFunc(msgs, func(a, b bag.Message) int { return cmp.Compare(a.LogTime, b.LogTime) })
	return &sliceSource{msgs: msgs}
}

func (r *recording) audit(opts Options) *Result {
	r.t.Helper()
	res, err := Audit(r.source(), r.chans, opts)
	if err != nil {
		r.t.Fatal(err)
	}
	return res
}

type sliceSource struct {
	msgs []bag.Message
	i    int
}

func (s *sliceSource) Next() (bag.Message, error) {
	if s.i >= len(s.msgs) {
		return bag.Message{}, io.EOF
	}
	s.i++
	return s.msgs[s.i-1], nil
}

// level returns a quaternion of yaw angle (rad) about up.
func yaw(a float64) [4]float64 { return [4]float64{math.Cos(a / 2), 0, 0, math.Sin(a / 2)} }

func uniform(p, v, o float64) [9]float64 {
	return [9]float64{p, p, p, v, v, v, o, o, o}
}

func near[F ~float64](a F, b, tol float64) bool { return math.Abs(float64(a)-b) <= tol }

// deleteTopic returns chans without topic's channel.
func deleteTopic(chans []bag.Channel, topic string) []bag.Channel {
	return slices.DeleteFunc(slices.Clone(chans), func(c bag.Channel) bool { return c.Topic == topic })
}
