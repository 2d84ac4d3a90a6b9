package engine

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// TestVehicleClockStep follows the deadline clock of DeadlinesVehicle step
// by step: it advances with the belief stamps whatever their rate, follows
// arrival time beyond VehicleStall while they stop, counts no gap twice
// when they resume, and counts a confirmed jump of the time base as the
// arrival time it took.
func TestVehicleClockStep(t *testing.T) {
	const lead = uint64(10 * time.Second)
	type st struct {
		at, stamp int64 // arrival (ms), belief stamp (ms; -1 none)
		want      int64 // clock reading after the step (ms)
	}
	tests := []struct {
		name  string
		steps []st
	}{
		{"half the real-time rate", []st{{1000, 500, 0}, {1020, 510, 10}, {1040, 520, 20}, {3040, 1520, 1020}}},
		{"a quarter", []st{{0, 0, 0}, {40, 10, 10}, {4000, 1000, 1000}}},
		{"twice", []st{{0, 0, 0}, {10, 20, 20}, {1010, 2020, 2020}}},
		{"no stamp yet: arrival time beyond the stall", []st{{0, -1, 0}, {900, -1, 0}, {1500, -1, 500}, {1600, 7000, 500}, {1700, 7100, 600}}},
		{"older or repeated stamps do not advance it", []st{{0, 100, 0}, {10, 100, 0}, {20, 90, 0}, {30, 110, 10}}},
		{"a stall, then the stamps resume behind the credit", []st{
			{0, 0, 0}, {500, -1, 0}, {1000, -1, 0}, {1500, -1, 500}, {2500, -1, 1500},
			{2600, 1200, 1500}, // 1.2 s of stamps, 1.5 s already counted
			{2620, 1210, 1510},
		}},
		{"a stall, then the stamps resume ahead of the credit", []st{
			{0, 0, 0}, {1500, -1, 500}, {1600, 1600, 1600}, {1610, 1610, 1610},
		}},
		{"a confirmed jump counts the arrival time", []st{{0, 0, 0}, {20, 3_600_000, 20}, {40, 3_600_020, 40}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v vehicleClock
			for i, s := range tc.steps {
				v = v.step(s.at*ms, s.stamp*ms, s.stamp >= 0, lead)
				if v.at != s.want*ms {
					t.Fatalf("step %d (arrival %d ms, stamp %d ms): clock %d ms, want %d ms", i, s.at, s.stamp, v.at/ms, s.want)
				}
			}
		})
	}
}

// TestVehicleClockSaturates: readings near the int64 limit saturate.
func TestVehicleClockSaturates(t *testing.T) {
	v := vehicleClock{started: true, stamped: true, at: math.MaxInt64 - 5, since: 0}
	v = v.step(math.MaxInt64, -1, false, 0)
	if v.at != math.MaxInt64 {
		t.Fatalf("clock %d, want saturated", v.at)
	}
	if got := addClock(math.MaxInt64-1, math.MaxUint64); got != math.MaxInt64 {
		t.Fatalf("addClock saturates to %d", got)
	}
}

func TestDeadlineClockOption(t *testing.T) {
	_, err := NewLoop(LoopOptions{Actions: ActionOptions{Deadlines: numDeadlineClocks}})
	if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "Actions.Deadlines") {
		t.Fatalf("unknown deadline clock: %v", err)
	}
	if DeadlinesArrival.String() != "arrival" || DeadlinesVehicle.String() != "vehicle" || numDeadlineClocks.String() != "deadline_clock(2)" {
		t.Fatal("deadline clock names")
	}
}

// slowVehicle flies beliefs (each with its assessment) every 20 ms of
// arrival time whose stamps advance rtfNum/rtfDen as fast; from stamp
// holdMs on the policy decides hold, served by executor px4. The vehicle
// acknowledges each send ackAfter of its own time later (never when
// ackAfter is 0) and shows the commanded mode reachAfter of its time after
// the acknowledgement (never when 0). Its stamps stop at stopMs (arrival,
// 0 never), after which a perception report still arrives every 100 ms.
// It returns one line per action command, "<arrival ms> <stamp ms> <op>
// <attempt> [<outcome> <failure>]: <detail>", where stamp is the newest
// belief stamp.
type slowVehicle struct {
	rtfNum, rtfDen         int64
	holdMs                 int64
	ackAfter, reachAfter   time.Duration
	stopMs, endMs          int64
	deadlines              DeadlineClock
	ackTimeout, reachLimit time.Duration
}

func (v slowVehicle) run(t *testing.T) []string {
	t.Helper()
	p := &kindsFrom{from: []int64{v.holdMs}, kinds: []decisions.Kind{decisions.KindHold}, seen: map[int64]decisions.ActionStates{}}
	var opts ActionOptions
	opts.Routes[decisions.KindHold] = ActionRoute{Executor: "px4", Enabled: true, Expect: Expectation{Mode: 4, HasMode: true}}
	opts.AckTimeout, opts.ReachTimeout, opts.Deadlines = v.ackTimeout, v.reachLimit, v.deadlines
	opts.RecommandInterval = -1
	l := mustLoop(t, LoopOptions{Policy: p, Actions: opts})
	stampAt := func(arrMs int64) int64 { return arrMs * ms * v.rtfNum / v.rtfDen }
	arrivalOf := func(stampNs int64) int64 { return stampNs * v.rtfDen / v.rtfNum }
	type due struct {
		at int64
		ev Evidence
	}
	var queue []due
	var lines []string
	var newest int64
	var out Output
	step := func(ev Event) {
		t.Helper()
		if err := l.Step(ev, &out); err != nil {
			t.Fatal(err)
		}
		now, _ := ArrivalOf(ev)
		for _, a := range out.Actions {
			line := fmt.Sprintf("%d %d %s %d", now/ms, newest/ms, a.Op, a.Attempt)
			if a.Op == ActionConclude {
				line += " " + a.Outcome.String() + " " + a.Failure.String()
			}
			lines = append(lines, line+": "+a.Detail)
			if a.Op == ActionConclude {
				continue
			}
			if v.ackAfter > 0 {
				ackAt := arrivalOf(newest + int64(v.ackAfter))
				queue = append(queue, due{ackAt, Evidence{Kind: EvidenceAck, ActionID: a.ID, Executor: "px4", Vehicle: 1, Command: 1, Result: decisions.AckAccepted}})
				if v.reachAfter > 0 {
					queue = append(queue, due{arrivalOf(newest + int64(v.ackAfter+v.reachAfter)),
						Evidence{Kind: EvidenceState, ActionID: a.ID, Executor: "px4", Vehicle: 1, Mode: 4, Armed: true}})
				}
			}
		}
	}
	deliver := func(upTo int64) {
		for len(queue) > 0 && queue[0].at <= upTo {
			step(EvidenceEvent{ArrivalNs: queue[0].at, Items: []Evidence{queue[0].ev}})
			queue = queue[1:]
		}
	}
	for a := int64(20); a <= v.endMs; a += 20 {
		deliver(a * ms)
		if v.stopMs > 0 && a >= v.stopMs {
			if a%100 == 0 {
				step(pEv(a*ms, 1, decisions.PerceptionMode(4)))
			}
			continue
		}
		s := stampAt(a)
		newest = s
		b := belief(s)
		b.Flight = armedIn(decisions.FlightModeOffboard)
		step(BeliefEvent{ArrivalNs: a * ms, Belief: b})
		step(aEv(t, a*ms, s, decisions.LevelKnown))
	}
	return lines
}

// first returns the first line whose op field is op, split into fields.
func first(lines []string, op string) []string {
	for _, l := range lines {
		if f := strings.Fields(l); f[2] == op {
			return f
		}
	}
	return nil
}

// TestDeadlinesFollowTheVehiclesTime: with DeadlinesVehicle the
// acknowledgement deadline is a second of the vehicle's time whatever the
// real-time factor (two seconds of arrival time at 0.5, four at 0.25); an
// acknowledgement that comes 0.8 s of the vehicle's time after the send is
// in time and a mode 3 s later is reached, where arrival-time deadlines
// retry the command and give up on the mode at 0.5 and 0.25.
func TestDeadlinesFollowTheVehiclesTime(t *testing.T) {
	rtfs := []struct {
		name     string
		num, den int64
	}{{"rtf 1", 1, 1}, {"rtf 0.5", 1, 2}, {"rtf 0.25", 1, 4}}
	for _, r := range rtfs {
		t.Run(r.name+" silent vehicle", func(t *testing.T) {
			for _, d := range []DeadlineClock{DeadlinesVehicle, DeadlinesArrival} {
				v := slowVehicle{rtfNum: r.num, rtfDen: r.den, holdMs: 100 * r.num / r.den, endMs: 20_000, deadlines: d,
					ackTimeout: time.Second, reachLimit: 5 * time.Second}
				lines := v.run(t)
				sent, retry := first(lines, "execute"), first(lines, "retry")
				if sent == nil || retry == nil {
					t.Fatalf("%s: no send or no retry: %q", d, lines)
				}
				arr, stamp := atoiMs(t, retry[0])-atoiMs(t, sent[0]), atoiMs(t, retry[1])-atoiMs(t, sent[1])
				waited := stamp // the vehicle's time
				if d == DeadlinesArrival {
					waited = arr
				}
				if waited < 1000 || waited >= 1000+20 {
					t.Errorf("%s: retried after %d ms of arrival time, %d ms of the vehicle's: want 1 s of %s time", d, arr, stamp, d)
				}
				if d == DeadlinesVehicle && !strings.Contains(strings.Join(lines, "\n"), "no acknowledgement 1s of vehicle time after send 1") {
					t.Errorf("the retry does not say which time it counted: %q", lines)
				}
			}
		})
		t.Run(r.name+" slow answers", func(t *testing.T) {
			v := slowVehicle{rtfNum: r.num, rtfDen: r.den, holdMs: 100 * r.num / r.den, endMs: 30_000, deadlines: DeadlinesVehicle,
				ackAfter: 800 * time.Millisecond, reachAfter: 3 * time.Second, ackTimeout: time.Second, reachLimit: 5 * time.Second}
			lines := v.run(t)
			if first(lines, "retry") != nil || !strings.Contains(strings.Join(lines, "\n"), "reached none") {
				t.Errorf("vehicle time: want acknowledged in time and reached, got %q", lines)
			}
			v.deadlines = DeadlinesArrival
			lines = v.run(t)
			slow := r.den > 1
			if got := first(lines, "retry") != nil; got != slow {
				t.Errorf("arrival time: retried %v, want %v: %q", got, slow, lines)
			}
		})
	}
}

func atoiMs(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDeadlinesWhenTheVehicleStops: the stamps stop right after the send
// while other inputs still arrive; the acknowledgement deadline fires
// VehicleStall plus what was left of it later in arrival time, at any
// real-time factor, and the retries follow every second of arrival time.
func TestDeadlinesWhenTheVehicleStops(t *testing.T) {
	for _, r := range []struct{ num, den int64 }{{1, 1}, {1, 2}} {
		v := slowVehicle{rtfNum: r.num, rtfDen: r.den, holdMs: 100 * r.num / r.den, stopMs: 300, endMs: 10_000,
			deadlines: DeadlinesVehicle, ackTimeout: time.Second, reachLimit: 5 * time.Second}
		lines := v.run(t)
		sent := first(lines, "execute")
		var retries, failed []string
		for _, l := range lines {
			switch f := strings.Fields(l); f[2] {
			case "retry":
				retries = append(retries, f[0])
			case "conclude":
				failed = append(failed, l)
			}
		}
		if sent == nil || len(retries) != 2 || len(failed) != 1 || !strings.Contains(failed[0], "failed transport") {
			t.Fatalf("rtf %d/%d: sent %q, retries %q, concluded %q", r.num, r.den, sent, retries, failed)
		}
		// Sent at arrival s, the stamps stopped at 280 ms: the clock had
		// counted (280-s) ms of arrival time at the rtf by then, and the
		// rest of the second comes after the stall.
		s := atoiMs(t, sent[0])
		left := 1000 - (280-s)*r.num/r.den
		want := 280 + int64(VehicleStall/time.Millisecond) + left
		if got := atoiMs(t, retries[0]); got < want || got >= want+100 {
			t.Errorf("rtf %d/%d: first retry at %d ms of arrival, want in [%d, %d)", r.num, r.den, got, want, want+100)
		}
	}
}

// FuzzVehicleClock: whatever the arrivals and stamps, the clock never runs
// backwards and counts no more than the stamps advanced plus the arrival
// time elapsed.
func FuzzVehicleClock(f *testing.F) {
	f.Add([]byte{20, 10, 1, 20, 10, 1, 200, 0, 0, 250, 250, 1})
	f.Add([]byte{255, 255, 1, 0, 0, 1, 1, 255, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		var v vehicleClock
		var now, stamp, first, newest int64
		seen := false
		for ; len(data) >= 3; data = data[3:] {
			now += int64(data[0]) * 37 * ms
			has := data[2]&1 != 0
			s := stamp + (int64(data[1])-64)*11*ms
			if data[2]&2 != 0 {
				s = math.MaxInt64 - int64(data[1])
			}
			if has && s >= 0 {
				stamp = s
				if !seen {
					first, newest, seen = s, s, true
				}
				newest = max(newest, s)
			}
			before := v.at
			v = v.step(now, s, has && s >= 0, uint64(DefaultMaxStampLead))
			if v.at < before || v.at < 0 {
				t.Fatalf("clock went from %d to %d", before, v.at)
			}
			if bound := addClock(addClock(0, uint64(newest-first)), uint64(now)); v.at > bound {
				t.Fatalf("clock %d beyond the stamps' advance %d plus the arrival time %d", v.at, newest-first, now)
			}
		}
	})
}
