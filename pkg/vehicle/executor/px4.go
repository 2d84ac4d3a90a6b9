package executor

import (
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

// Transport carries PX4 messages: VehicleCommand out (on
// /fmu/in/vehicle_command with PX4's reader QoS: best effort, volatile),
// VehicleCommandAck and VehicleStatus in. The live transport encodes with
// the release's px4.Definitions; the simulated PX4 answers in process.
type Transport interface {
	// SendCommand transmits c; info says which action and attempt it is
	// (the vehicle never sees it; the simulated PX4 scripts by it).
	SendCommand(c px4.Command, info SendInfo) error
	// Receive returns what arrived from the vehicle up to upToNs, in
	// arrival order.
	Receive(upToNs int64) []Arrival
}

// SendInfo identifies a send for the transport.
type SendInfo struct {
	ActionID uint64
	Attempt  uint8
	TimeNs   int64
}

// Arrival is one message from the vehicle: an acknowledgement or a status,
// at its arrival time.
type Arrival struct {
	ArrivalNs int64
	Ack       *px4.CommandAck
	Status    *px4.Status
}

// PX4Options configure a PX4 executor.
type PX4Options struct {
	// ID is the executor's id; default "px4".
	ID string
	// Kinds it serves; default PX4Kinds().
	Kinds []decisions.Kind
	// SourceSystem and SourceComponent identify ghost to PX4; PX4 addresses
	// its acknowledgements to them, which is how an ack is told to be
	// ours. Default 255 and 190 (a ground station's ids): choose a pair
	// no other commander on the vehicle uses.
	SourceSystem    uint8
	SourceComponent uint16
	// Transport carries the messages; nil makes a replay executor: it
	// sends nothing and receives nothing (replay and verify read the
	// evidence the recording holds).
	Transport Transport
}

// PX4 is the px4 executor. It is not safe for concurrent use: the Session
// calls it from one goroutine.
type PX4 struct {
	opts PX4Options
	// last is the newest action sent; cur is it while not concluded.
	last, cur uint64
	vehicle   uint32 // target of the last request
	sawStatus bool
	statusSys uint32 // system id of the newest status
	// The state (and its system) last reported for cur.
	repSys   uint32
	reported bool
	mode     uint8
	armed    bool
	notOurs  uint64
	scratch  []engine.EvidenceEvent
	mapping  Mapping
}

// NewPX4 returns a PX4 executor.
func NewPX4(opts PX4Options) *PX4 {
	if opts.ID == "" {
		opts.ID = "px4"
	}
	if opts.Kinds == nil {
		opts.Kinds = PX4Kinds()
	}
	if opts.SourceSystem == 0 {
		opts.SourceSystem = 255
	}
	if opts.SourceComponent == 0 {
		opts.SourceComponent = 190
	}
	return &PX4{opts: opts, mapping: PX4Command}
}

// ID returns the executor's id.
func (p *PX4) ID() string { return p.opts.ID }

// Kinds returns the kinds it serves.
func (p *PX4) Kinds() []decisions.Kind { return append([]decisions.Kind(nil), p.opts.Kinds...) }

// Command returns PX4Command(k).
func (p *PX4) Command(k decisions.Kind) (engine.VehicleCommand, engine.Expectation, error) {
	return p.mapping(k)
}

// Send transmits the request as a VehicleCommand. A replay executor (no
// transport) does nothing and keeps no state, so one may serve several
// sessions at once.
func (p *PX4) Send(req session.ActionRequest) error {
	if p.opts.Transport == nil {
		return nil
	}
	if req.ActionID != p.cur {
		p.reported = false
	}
	p.last, p.cur, p.vehicle = req.ActionID, req.ActionID, req.Vehicle
	c, err := ToPX4(req, p.opts.SourceSystem, p.opts.SourceComponent)
	if err != nil {
		return err
	}
	if err := p.opts.Transport.SendCommand(c, SendInfo{ActionID: req.ActionID, Attempt: req.Attempt, TimeNs: req.TimeNs}); err != nil {
		return fmt.Errorf("px4: send command %d: %w", c.Command, err)
	}
	return nil
}

// Conclude stops attributing vehicle state to the action; later
// acknowledgements are still attributed to it, so the Runner sees (and
// rejects) them.
func (p *PX4) Conclude(id uint64) {
	if p.opts.Transport != nil && id == p.cur {
		p.cur = 0
		p.reported = false
	}
}

// NotOurs counts acknowledgements addressed to another commander.
func (p *PX4) NotOurs() uint64 { return p.notOurs }

// Poll turns what arrived up to upToNs into evidence batches, one per
// arrival time: an acknowledgement addressed to ghost's source ids is
// attributed to the newest action sent; a status is attributed to the
// outstanding action when it shows a new mode, arming or system id (the
// first after a send always). An acknowledgement's vehicle is the system id of the
// newest status (the one topic namespace carries one vehicle), the
// target's before any status.
func (p *PX4) Poll(upToNs int64) []engine.EvidenceEvent {
	if p.opts.Transport == nil {
		return nil
	}
	out := p.scratch[:0]
	for _, a := range p.opts.Transport.Receive(upToNs) {
		var e engine.Evidence
		switch {
		case a.Status != nil:
			s := a.Status
			p.sawStatus, p.statusSys = true, uint32(s.SystemID)
			if p.cur == 0 || p.reported && s.NavState == p.mode && s.Armed == p.armed && uint32(s.SystemID) == p.repSys {
				continue
			}
			p.reported, p.mode, p.armed, p.repSys = true, s.NavState, s.Armed, uint32(s.SystemID)
			e = engine.Evidence{Kind: engine.EvidenceState, ActionID: p.cur, Executor: p.opts.ID, Vehicle: uint32(s.SystemID),
				Mode: s.NavState, Armed: s.Armed, VehicleTimeUs: s.TimestampUs}
		case a.Ack != nil:
			k := a.Ack
			if k.TargetSystem != p.opts.SourceSystem || k.TargetComponent != p.opts.SourceComponent || p.last == 0 {
				p.notOurs++
				continue
			}
			v := p.vehicle
			if p.sawStatus {
				v = p.statusSys
			}
			e = engine.Evidence{Kind: engine.EvidenceAck, ActionID: p.last, Executor: p.opts.ID, Vehicle: v,
				Command: k.Command, Result: k.Result, VehicleTimeUs: k.TimestampUs}
		default:
			continue
		}
		if n := len(out); n > 0 && out[n-1].ArrivalNs == a.ArrivalNs && len(out[n-1].Items) < engine.MaxEvidenceItems {
			out[n-1].Items = append(out[n-1].Items, e)
		} else {
			out = append(out, engine.EvidenceEvent{ArrivalNs: a.ArrivalNs, Items: []engine.Evidence{e}})
		}
	}
	p.scratch = out
	return out
}
