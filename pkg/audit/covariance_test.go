package audit

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Verify decodes beliefs' covariances into storage reused batch after
// batch; the Loop must compare a later repeat with its own copy. A belief
// decoded once the batches' storage is being reused, and repeated several
// batches later (its stamp still in the decided memory), is a duplicate
// when identical and a conflict when its covariance differs in one bit.
func TestVerifyRepeatedBeliefAfterStorageReuse(t *testing.T) {
	out, _, err := replayBytes(t, simSource(t, 80*time.Second, 50), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := drainSource(t, openBytes(t, out))
	state := session.DefaultTopics()[session.KeyState]
	// Every belief gets a covariance of its own (the simulator's repeat
	// over long stretches; decisions do not read them), so that storage
	// reused too early shows.
	for i := range msgs {
		if msgs[i].Topic != state {
			continue
		}
		var vs ros2msg.VehicleState
		if err := vs.UnmarshalCDR(msgs[i].Data); err != nil {
			t.Fatal(err)
		}
		if len(vs.Nav.Covariance15x15) == 0 {
			continue
		}
		vs.Nav.Covariance15x15[7] = float64(i)
		if msgs[i].Data, err = vs.MarshalCDR(); err != nil {
			t.Fatal(err)
		}
	}
	// With up to 2 decode workers, every batch there is has been reused
	// between first and later, and before first.
	const workers = 2
	inFlight := prefetchBatches + workers + 1
	first, later := -1, -1
	for i, m := range msgs {
		if m.Topic != state {
			continue
		}
		switch {
		case first < 0 && i > 2*inFlight*prefetchBatch:
			first = i
		case first >= 0 && i > first+(inFlight+1)*prefetchBatch:
			later = i
		}
		if later >= 0 {
			break
		}
	}
	if later < 0 {
		t.Fatal("recording too short")
	}
	var vs ros2msg.VehicleState
	if err := vs.UnmarshalCDR(msgs[first].Data); err != nil {
		t.Fatal(err)
	}
	if len(vs.Nav.Covariance15x15) == 0 {
		t.Fatal("the belief has no covariance")
	}
	vs.Nav.Covariance15x15[7] = math.Float64frombits(math.Float64bits(vs.Nav.Covariance15x15[7]) ^ 1)
	changed, err := vs.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	at := msgs[later].LogTime
	repeat := func(data []byte) bag.Message {
		m := msgs[first]
		m.Data, m.LogTime, m.PublishTime = data, at, at
		return m
	}
	for _, tc := range []struct {
		name      string
		add       []bag.Message
		conflicts uint64
	}{
		{"identical repeat", []bag.Message{repeat(msgs[first].Data)}, 0},
		{"one bit of the covariance changed", []bag.Message{repeat(changed)}, 1},
		{"changed, then identical", []bag.Message{repeat(changed), repeat(msgs[first].Data)}, 1},
	} {
		for _, w := range []int{-1, workers} {
			t.Run(fmt.Sprintf("%s, %d decode workers", tc.name, max(w, 0)), func(t *testing.T) {
				in := append(append(append([]bag.Message(nil), msgs[:later]...), tc.add...), msgs[later:]...)
				rep, err := Verify(&reusingSource{msgs: in}, VerifyOptions{DecodeWorkers: w,
					Session: session.SessionOptions{Loop: engine.LoopOptions{MaxDecidedMemory: 8192}}})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Verdict != VerdictPass {
					t.Fatalf("verdict %s: %v", rep.Verdict, rep.Reasons)
				}
				if got := rep.Rejected[engine.RejectConflictingBelief.String()]; got != tc.conflicts {
					t.Fatalf("%d conflicting beliefs, want %d (rejected %v)", got, tc.conflicts, rep.Rejected)
				}
			})
		}
	}
}

// A belief's donated covariance goes to one Loop only: while several
// candidates re-decide the recording, each Loop must keep a copy, or two
// of them would give one storage back to the pool twice.
func TestVerifyDonatesCovariancesToOneLoopOnly(t *testing.T) {
	v, err := newVerifier(VerifyOptions{Policies: []decisions.Policy{decisions.ReferencePolicy{}, perceptionPolicy{}}})
	if err != nil {
		t.Fatal(err)
	}
	state := session.DefaultTopics()[session.KeyState]
	var pool engine.CovariancePool
	stamp := int64(0)
	donated := func() bool {
		stamp += 10_000_000
		b := decisions.Belief{StampSimNs: stamp, OrientationQ: [4]float64{1, 0, 0, 0},
			Covariance: make([]float64, decisions.CovarianceLen),
			Mission:    decisions.MissionStatus{StartedSimNs: decisions.NotStarted}}
		w := ros2msg.BeliefToWire(&b)
		ev := decodeInput(t, v, state, stamp, &w, &pool)
		v.input(&bag.Message{Topic: state, LogTime: uint64(stamp)}, &ev, nil)
		return ev.Event().(engine.BeliefEvent).Donor != nil
	}
	if donated() {
		t.Errorf("with %d candidates, the covariance was donated", len(v.cands))
	}
	v.retireOthers(v.cands[0].id)
	if v.active != 1 {
		t.Fatalf("%d candidates active after retiring the others", v.active)
	}
	if !donated() {
		t.Error("with one candidate, the covariance was not donated")
	}
}

// decodeInput encodes m and decodes it with v's input table, as verify
// decodes a recorded message; with a pool, a belief's covariance is drawn
// from it and donated with the event.
func decodeInput(t testing.TB, v *verifier, topic string, arrivalNs int64, m ros2msg.CDRMessage, pool *engine.CovariancePool) session.Decoded {
	t.Helper()
	data, err := m.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	var sc session.Scratch
	if pool != nil {
		sc.DrawFrom(pool)
	}
	var ev session.Decoded
	if err := session.NewDecoder(v.inputs).DecodeInto(topic, arrivalNs, data, &sc, &ev); err != nil {
		t.Fatalf("decode %s: %v", topic, err)
	}
	return ev
}
