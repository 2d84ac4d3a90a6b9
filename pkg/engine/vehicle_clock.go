package engine

import (
	"fmt"
	"math"
	"time"
)

// Action deadlines in the vehicle's time, in one place.
//
// A vehicle simulated slower than real time (PX4 SITL in lockstep with a
// simulator at a real-time factor of 0.5, or a simulator starved of CPU)
// lives on a clock that runs slow too: its stamps advance, and its answers
// come, at half the rate of arrival time. A deadline counted in arrival
// time gives such a vehicle less of its own time to answer: at 0.5, a 1 s
// acknowledgement timeout leaves PX4 0.5 s of its time. With
// DeadlinesVehicle the action deadlines (AckTimeout, ReachTimeout,
// RecommandInterval) count in the vehicle's time instead, as the belief
// stamps tell it:
//
//   - the deadline clock advances by as much as the newest admitted belief
//     stamp advances, so while the vehicle's stamps advance a deadline d
//     fires at the first step whose belief stamp is d past the newest one
//     when it started, whatever the real-time factor;
//   - while no belief stamp advances for longer than VehicleStall of
//     arrival time (the vehicle, its link or its simulator stopped), the
//     clock follows arrival time beyond that, so a deadline still fires,
//     VehicleStall plus what was left of it after the last stamp: a
//     vehicle gone silent is not waited for forever. When stamps advance
//     again, only
//     their advance beyond the arrival time already credited counts, so no
//     gap is counted twice;
//   - a stamp advance beyond the stamp plausibility window (MaxStampLead
//     plus the arrival time since the last advance: a jump of the vehicle's
//     clock that the plausibility rules confirmed) moves its time base, not
//     its time, and counts as the arrival time elapsed.
//
// Like every deadline of the Loop, one fires only at a step: when nothing
// arrives, nothing fires. The clock is a function of the admitted belief
// stamps and the arrival times, both in every recording, so replay and
// verify derive every deadline again. The assessment timeout and the stamp
// plausibility window stay in arrival time: they measure the host's
// transport (a belief and its assessment travel on two topics), not the
// vehicle.

// DeadlineClock says which time the action deadlines count in.
type DeadlineClock uint8

const (
	// DeadlinesArrival counts in arrival time: the receive time live, the
	// log time in replay (the default).
	DeadlinesArrival DeadlineClock = iota
	// DeadlinesVehicle counts in the vehicle's own time, as its belief
	// stamps tell it, with arrival time as the backstop while they stop.
	DeadlinesVehicle
	numDeadlineClocks
)

// VehicleStall is how long, in arrival time, the belief stamps may stop
// before the deadline clock of DeadlinesVehicle follows arrival time. PX4
// publishes its estimate at 50 to 100 Hz of its own time: even at a
// real-time factor of 0.05 two samples come less than a second apart.
const VehicleStall = time.Second

var deadlineClockNames = [numDeadlineClocks]string{"arrival", "vehicle"}

// String returns the clock's name, "arrival" or "vehicle".
func (c DeadlineClock) String() string {
	if c < numDeadlineClocks {
		return deadlineClockNames[c]
	}
	return fmt.Sprintf("deadline_clock(%d)", uint8(c))
}

// vehicleClock is the deadline clock of DeadlinesVehicle.
type vehicleClock struct {
	started bool  // a step was taken
	stamped bool  // a belief stamp was admitted
	stamp   int64 // the newest admitted belief stamp
	// since is the arrival time of the step the stamp last advanced at (or
	// of the first step); credited is the arrival time beyond VehicleStall
	// counted since then.
	since    int64
	credited uint64
	// at is the clock's reading: 0 at the first step, then the vehicle
	// time and stall time counted.
	at int64
}

// step returns the clock after a step at arrival time now (never before
// the previous step's) that admitted a belief stamped s (has) or none; lead
// is the Loop's MaxStampLead in ns.
func (v vehicleClock) step(now, s int64, has bool, lead uint64) vehicleClock {
	if !v.started {
		v.started, v.since = true, now
	}
	elapsed := waited(now, v.since)
	if has && (!v.stamped || s > v.stamp) {
		var adv uint64
		if v.stamped {
			if adv = uint64(s) - uint64(v.stamp); adv > addSat(lead, elapsed) {
				adv = elapsed // a jump of the time base, not of time
			}
		}
		if adv > v.credited {
			v.at = addClock(v.at, adv-v.credited)
		}
		v.stamped, v.stamp, v.since, v.credited = true, s, now, 0
		return v
	}
	if elapsed > uint64(VehicleStall) {
		if over := elapsed - uint64(VehicleStall); over > v.credited {
			v.at = addClock(v.at, over-v.credited)
			v.credited = over
		}
	}
	return v
}

// addClock adds d to a clock reading t >= 0, saturated at math.MaxInt64.
func addClock(t int64, d uint64) int64 {
	if d > uint64(math.MaxInt64-t) {
		return math.MaxInt64
	}
	return t + int64(d)
}
