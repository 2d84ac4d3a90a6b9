package px4sim

import (
	"fmt"
	"sort"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

// Behaviour is how the simulated PX4 answers one action's commands.
type Behaviour uint8

// Behaviours of the simulated PX4.
const (
	// Accept: ACCEPTED after AckLatency, the commanded mode after
	// ModeLatency.
	Accept Behaviour = iota
	// Deny: DENIED; the mode does not change.
	Deny
	// Drop: every send of the action is lost (the XRCE link is best
	// effort).
	Drop
	// DropFirst: the first send is lost, retries are accepted.
	DropFirst
	// Slow: ACCEPTED, but the mode changes only after SlowModeLatency.
	Slow
	// LateAck: the acknowledgement of the first send comes after
	// LateAckLatency (past the ack timeout), then the mode changes.
	LateAck
	// WrongCommand: first an acknowledgement of another command, then the
	// right one.
	WrongCommand
	// OtherVehicle: first a status from another system id, then as Accept.
	OtherVehicle
	// Duplicate: the acknowledgement arrives twice, identical.
	Duplicate
	// NeverReach: ACCEPTED, but the mode (or arming) never changes.
	NeverReach
	// Reject: TEMPORARILY_REJECTED, PX4's answer to a mode that cannot
	// run now (position control without the pilot's sticks); the mode
	// does not change.
	Reject
	// Unsupported, Fail, Cancel: UNSUPPORTED, FAILED or CANCELLED; the
	// mode does not change.
	Unsupported
	Fail
	Cancel
	// InProgress: IN_PROGRESS after AckLatency, the commanded mode after
	// ModeLatency.
	InProgress
)

var behaviourNames = [...]string{"accept", "deny", "drop", "drop_first", "slow", "late_ack", "wrong_command", "other_vehicle", "duplicate",
	"never_reach", "reject", "unsupported", "fail", "cancel", "in_progress"}

// refusals are the results the refusing behaviours answer with.
var refusals = map[Behaviour]decisions.AckResult{
	Deny: decisions.AckDenied, Reject: decisions.AckTemporarilyRejected, Unsupported: decisions.AckUnsupported,
	Fail: decisions.AckFailed, Cancel: decisions.AckCancelled,
}

// String returns the behaviour's snake_case name.
func (b Behaviour) String() string {
	if int(b) < len(behaviourNames) {
		return behaviourNames[b]
	}
	return fmt.Sprintf("behaviour(%d)", uint8(b))
}

// ParseBehaviour reads a behaviour's snake_case name.
func ParseBehaviour(s string) (Behaviour, error) {
	for i, n := range behaviourNames {
		if n == s {
			return Behaviour(i), nil
		}
	}
	return 0, fmt.Errorf("simulated PX4 behaviour %q: want one of %v", s, behaviourNames)
}

// KindBehaviour makes every action of one decision kind behave alike.
type KindBehaviour struct {
	Kind      decisions.Kind
	Behaviour Behaviour
}

// DefaultScript holds every behaviour, ordered so that the simulated
// flight's actions show every outcome: its first two commands come in
// long stretches of one decision (a slow mode change fails the reach
// deadline, a dropped command exhausts its retries), the later ones in
// shorter stretches.
func DefaultScript() []Behaviour {
	return []Behaviour{Slow, Drop, Deny, Duplicate, OtherVehicle, LateAck, WrongCommand, DropFirst, Accept}
}

// Latencies of the simulated PX4; odd values, so its answers do not fall
// on the belief clock.
const (
	AckLatency      = 37 * time.Millisecond
	ModeLatency     = 311 * time.Millisecond
	SlowModeLatency = 30 * time.Second
	LateAckLatency  = 1291 * time.Millisecond
	otherLatency    = 17 * time.Millisecond
)

// Options configure the simulated PX4.
type Options struct {
	// SystemID is the vehicle's MAV_SYS_ID; default 1.
	SystemID uint8
	// Script is the behaviour of the n-th action, cycled; default
	// DefaultScript().
	Script []Behaviour
	// ByKind overrides Script for the actions of the kinds it names (the
	// first entry of a kind wins). The simulated Commander tells a
	// command's kind by the mode it asks for (AUTO_LOITER hold, POSCTL
	// yield_to_pilot, AUTO_RTL engage_rtl, AUTO_LAND engage_land, a forced
	// disarm engage_kill), whatever command carries it. An overridden
	// action still takes its place in Script's cycle.
	ByKind []KindBehaviour
	// NavState is the initial nav_state; default OFFBOARD (14).
	NavState uint8
}

// PX4 is a simulated PX4 autopilot behind the px4 executor's transport: it
// answers VehicleCommands with VehicleCommandAck and VehicleStatus on a
// scripted schedule, deterministically. Its own model of what a command
// does (DO_SET_MODE AUTO/LOITER -> AUTO_LOITER, POSCTL -> POSCTL,
// NAV_RETURN_TO_LAUNCH -> AUTO_RTL, NAV_LAND -> AUTO_LAND, forced
// COMPONENT_ARM_DISARM -> disarmed, anything else UNSUPPORTED) follows
// PX4's Commander, independently of the executor's mapping. It does not
// feed back into the simulated flight's beliefs.
type PX4 struct {
	opts     Options
	navState uint8
	armed    bool
	actions  int
	current  uint64
	behave   Behaviour
	pending  []executor.Arrival // by arrival time, then insertion
	sent     []px4.Command
}

// New returns the simulated PX4, armed.
func New(opts Options) *PX4 {
	if opts.SystemID == 0 {
		opts.SystemID = 1
	}
	if opts.Script == nil {
		opts.Script = DefaultScript()
	}
	if opts.NavState == 0 {
		opts.NavState = px4.NavStateOffboard
	}
	return &PX4{opts: opts, navState: opts.NavState, armed: true}
}

// Sent returns the commands received, in order.
func (p *PX4) Sent() []px4.Command { return append([]px4.Command(nil), p.sent...) }

// SendCommand takes a command and schedules the answers its action's
// behaviour gives.
func (p *PX4) SendCommand(c px4.Command, info executor.SendInfo) error {
	p.sent = append(p.sent, c)
	if info.ActionID != p.current {
		p.current = info.ActionID
		p.behave = p.opts.Script[p.actions%len(p.opts.Script)]
		p.actions++
		if k, ok := kindOf(c); ok {
			for _, o := range p.opts.ByKind {
				if o.Kind == k {
					p.behave = o.Behaviour
					break
				}
			}
		}
	}
	if c.TargetSystem != p.opts.SystemID && c.TargetSystem != 0 || c.TargetComponent != 1 && c.TargetComponent != 0 {
		return nil // Commander ignores commands for another system or component
	}
	t := info.TimeNs
	first := info.Attempt <= 1
	result, mode, armed, ok := p.effect(c)
	ack := func(at time.Duration, cmd uint32, r decisions.AckResult) {
		p.schedule(executor.Arrival{ArrivalNs: t + int64(at), Ack: &px4.CommandAck{
			TimestampUs: uint64(t) / 1000, Command: cmd, Result: r,
			TargetSystem: c.SourceSystem, TargetComponent: c.SourceComponent,
		}})
	}
	change := func(at time.Duration) {
		if ok {
			p.schedule(executor.Arrival{ArrivalNs: t + int64(at), Status: p.status(t+int64(at), mode, armed, p.opts.SystemID)})
		}
	}
	refusal, refused := refusals[p.behave]
	switch b := p.behave; {
	case b == Drop, b == DropFirst && first:
		return nil
	case refused:
		ack(AckLatency, c.Command, refusal)
	case b == InProgress && result == decisions.AckAccepted:
		ack(AckLatency, c.Command, decisions.AckInProgress)
		change(ModeLatency)
	case b == NeverReach:
		ack(AckLatency, c.Command, result)
	case b == Slow:
		ack(AckLatency, c.Command, result)
		if first {
			change(SlowModeLatency)
		}
	case b == LateAck && first:
		ack(LateAckLatency, c.Command, result)
		change(LateAckLatency + ModeLatency)
	case b == LateAck:
		// The retry's acknowledgement is lost too; the first one's is late.
	case b == WrongCommand:
		other := px4.CmdDoSetMode
		if c.Command == other {
			other = px4.CmdNavReturnToLaunch
		}
		ack(AckLatency/2, other, decisions.AckAccepted)
		ack(AckLatency, c.Command, result)
		change(ModeLatency)
	case b == OtherVehicle:
		p.schedule(executor.Arrival{ArrivalNs: t + int64(otherLatency), Status: p.status(t+int64(otherLatency), px4.NavStateManual, true, p.opts.SystemID+1)})
		p.schedule(executor.Arrival{ArrivalNs: t + int64(otherLatency) + 1, Status: p.status(t+int64(otherLatency), p.navState, p.armed, p.opts.SystemID)})
		ack(AckLatency, c.Command, result)
		change(ModeLatency)
	case b == Duplicate:
		ack(AckLatency, c.Command, result)
		ack(AckLatency+4*time.Millisecond, c.Command, result)
		change(ModeLatency)
	default: // Accept, and DropFirst's retries
		ack(AckLatency, c.Command, result)
		change(ModeLatency)
	}
	return nil
}

// kindOf reads the decision kind a command asks for by the mode it
// commands, independently of the executor's mapping.
func kindOf(c px4.Command) (decisions.Kind, bool) {
	switch c.Command {
	case px4.CmdDoSetMode:
		switch main, sub := uint8(c.Param2), uint8(c.Param3); {
		case main == px4.MainModeAuto && sub == px4.AutoSubModeLoiter:
			return decisions.KindHold, true
		case main == px4.MainModeAuto && sub == px4.AutoSubModeRTL:
			return decisions.KindEngageRTL, true
		case main == px4.MainModeAuto && sub == px4.AutoSubModeLand:
			return decisions.KindEngageLand, true
		case main == px4.MainModePosctl:
			return decisions.KindYieldToPilot, true
		}
	case px4.CmdNavReturnToLaunch:
		return decisions.KindEngageRTL, true
	case px4.CmdNavLand:
		return decisions.KindEngageLand, true
	case px4.CmdComponentArmDisarm:
		if c.Param1 == px4.ArmingActionDisarm {
			return decisions.KindEngageKill, true
		}
	}
	return 0, false
}

// effect is what Commander makes of c: the ack result and, when accepted,
// the resulting nav_state and arming.
func (p *PX4) effect(c px4.Command) (result decisions.AckResult, mode uint8, armed, ok bool) {
	mode, armed = p.navState, p.armed
	switch c.Command {
	case px4.CmdDoSetMode:
		switch main, sub := uint8(c.Param2), uint8(c.Param3); {
		case main == px4.MainModeAuto && sub == px4.AutoSubModeLoiter:
			mode = px4.NavStateAutoLoiter
		case main == px4.MainModeAuto && sub == px4.AutoSubModeRTL:
			mode = px4.NavStateAutoRTL
		case main == px4.MainModeAuto && sub == px4.AutoSubModeLand:
			mode = px4.NavStateAutoLand
		case main == px4.MainModePosctl:
			mode = px4.NavStatePosctl
		default:
			return decisions.AckUnsupported, mode, armed, false
		}
	case px4.CmdNavReturnToLaunch:
		mode = px4.NavStateAutoRTL
	case px4.CmdNavLand:
		mode = px4.NavStateAutoLand
	case px4.CmdComponentArmDisarm:
		if c.Param1 != px4.ArmingActionDisarm || c.Param2 != px4.ForceArmDisarmMagic {
			return decisions.AckDenied, mode, armed, false // an unforced disarm in the air is refused
		}
		armed = false
	default:
		return decisions.AckUnsupported, mode, armed, false
	}
	if !p.armed {
		return decisions.AckDenied, p.navState, p.armed, false
	}
	return decisions.AckAccepted, mode, armed, true
}

func (p *PX4) status(t int64, mode uint8, armed bool, sys uint8) *px4.Status {
	arming := px4.ArmingStateDisarmed
	if armed {
		arming = px4.ArmingStateArmed
	}
	return &px4.Status{TimestampUs: uint64(t) / 1000, NavState: mode, NavStateUserIntention: mode, ArmingState: arming,
		Armed: armed, SystemID: sys, ComponentID: 1, PreFlightChecksPass: true}
}

// schedule queues an arrival, ordered by time then insertion.
func (p *PX4) schedule(a executor.Arrival) {
	i := sort.Search(len(p.pending), func(i int) bool { return p.pending[i].ArrivalNs > a.ArrivalNs })
	p.pending = append(p.pending, executor.Arrival{})
	copy(p.pending[i+1:], p.pending[i:])
	p.pending[i] = a
}

// Receive returns the answers due by upToNs, in arrival order; a status
// of its own system updates the simulated state as it is delivered.
func (p *PX4) Receive(upToNs int64) []executor.Arrival {
	n := sort.Search(len(p.pending), func(i int) bool { return p.pending[i].ArrivalNs > upToNs })
	out := append([]executor.Arrival(nil), p.pending[:n]...)
	p.pending = append(p.pending[:0], p.pending[n:]...)
	for _, a := range out {
		if s := a.Status; s != nil && s.SystemID == p.opts.SystemID {
			p.navState, p.armed = s.NavState, s.Armed
		}
	}
	return out
}
