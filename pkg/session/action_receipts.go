package session

import (
	"fmt"
	"strconv"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// NumOutcomes is the number of Outcome values.
const NumOutcomes = 4

// ReceiptEvent says what an action receipt records.
type ReceiptEvent uint8

// Receipt events, numbered as ActionReceipt.msg EVENT_*.
const (
	ReceiptSent ReceiptEvent = iota
	ReceiptRetried
	ReceiptEvidenceAccepted
	ReceiptEvidenceRejected
	ReceiptAccepted
	ReceiptReached
	ReceiptFailed
	ReceiptSuperseded
	// ReceiptRefused: an execute or retry refused before any executor
	// work (stale, or not traceable to a verified decision).
	ReceiptRefused
)

// NumReceiptEvents is the number of ReceiptEvent values.
const NumReceiptEvents = 9

var receiptEventNames = [NumReceiptEvents]string{
	"sent", "retried", "evidence_accepted", "evidence_rejected", "accepted", "reached", "failed", "superseded", "refused",
}

// String returns the event's snake_case name.
func (e ReceiptEvent) String() string {
	if int(e) < len(receiptEventNames) {
		return receiptEventNames[e]
	}
	return "receipt_event(" + strconv.Itoa(int(e)) + ")"
}

// ActionReceipt is one step of an action's trail, as recorded on the
// actions topic (ghost/msg/ActionReceipt).
type ActionReceipt struct {
	ActionID uint64
	// Stamp and Kind are the decision the action executes.
	Stamp    int64
	Kind     decisions.Kind
	Executor string
	// Vehicle is the configured target vehicle.
	Vehicle uint32
	Event   ReceiptEvent
	Attempt uint8
	// Command is the executor's mapping of Kind (zero when no executor of
	// that id is registered).
	Command engine.VehicleCommand
	Failure engine.FailureClass
	// Evidence: the accepted items (evidence_accepted, and the evidence an
	// outcome rests on) or the rejected batch (evidence_rejected).
	Evidence []engine.Evidence
	Detail   string
	// TimeNs is the arrival time at which it happened.
	TimeNs int64
}

// String reads "action <id> <event> <kind> via <executor> [failure]: detail".
func (rc ActionReceipt) String() string {
	s := fmt.Sprintf("action %d %s %s via %s", rc.ActionID, rc.Event, rc.Kind, rc.Executor)
	if rc.Failure != engine.FailNone {
		s += " (" + rc.Failure.String() + ")"
	}
	return s + ": " + rc.Detail
}

// ActionSink receives every action receipt. Sinks wrap their errors in
// ErrEncoding, ErrTransport or ErrSinkClosed, as decision sinks do. The
// receipt's Evidence is valid only during the call.
type ActionSink interface {
	PublishReceipt(ActionReceipt) error
}

// RecordingActionSink writes every receipt to a recording channel as
// ghost/msg/ActionReceipt CDR, logged at the receipt's time.
type RecordingActionSink struct {
	write WriteFunc
	buf   []byte
}

// NewRecordingActionSink returns a sink that encodes each receipt and
// passes it to write.
func NewRecordingActionSink(write WriteFunc) *RecordingActionSink {
	return &RecordingActionSink{write: write}
}

// PublishReceipt encodes rc and writes it.
func (s *RecordingActionSink) PublishReceipt(rc ActionReceipt) error {
	m := ReceiptToWire(&rc)
	buf, err := m.AppendCDR(s.buf[:0])
	if err != nil {
		return fmt.Errorf("recording action sink: encode action %d: %w: %w", rc.ActionID, ErrEncoding, err)
	}
	s.buf = buf
	if err := s.write(uint64(rc.TimeNs), buf); err != nil {
		return fmt.Errorf("recording action sink: write action %d: %w: %w", rc.ActionID, ErrTransport, err)
	}
	return nil
}

// ReceiptToWire converts a receipt to its message.
func ReceiptToWire(rc *ActionReceipt) ros2msg.ActionReceipt {
	m := ros2msg.NewActionReceipt()
	m.ActionID, m.DecisionStampSimNs, m.Kind = rc.ActionID, rc.Stamp, uint8(rc.Kind)
	m.ExecutorID, m.VehicleID = rc.Executor, rc.Vehicle
	m.Event, m.Attempt, m.Failure = uint8(rc.Event), rc.Attempt, uint8(rc.Failure)
	m.Command, m.Params = rc.Command.ID, rc.Command.Params
	m.Evidence = EvidenceToWire(rc.Evidence)
	m.Detail, m.TimeNs = rc.Detail, rc.TimeNs
	return m
}

// ReceiptFromWire converts a receipt message; values outside their enums
// are carried for the auditor to find.
func ReceiptFromWire(m *ros2msg.ActionReceipt) ActionReceipt {
	return ActionReceipt{
		ActionID: m.ActionID, Stamp: m.DecisionStampSimNs, Kind: decisions.Kind(m.Kind),
		Executor: m.ExecutorID, Vehicle: m.VehicleID, Event: ReceiptEvent(m.Event), Attempt: m.Attempt,
		Command: engine.VehicleCommand{ID: m.Command, Params: m.Params}, Failure: engine.FailureClass(m.Failure),
		Evidence: EvidenceFromWire(m.Evidence), Detail: m.Detail, TimeNs: m.TimeNs,
	}
}

// EvidenceToWire converts evidence items to their messages.
func EvidenceToWire(items []engine.Evidence) []ros2msg.ActionEvidenceItem {
	if len(items) == 0 {
		return nil
	}
	out := make([]ros2msg.ActionEvidenceItem, len(items))
	for i, e := range items {
		out[i] = ros2msg.ActionEvidenceItem{
			Kind: uint8(e.Kind), ActionID: e.ActionID, ExecutorID: e.Executor, VehicleID: e.Vehicle,
			Command: e.Command, Result: uint8(e.Result), Mode: e.Mode, Armed: e.Armed, VehicleTimeUs: e.VehicleTimeUs,
		}
	}
	return out
}

// EvidenceFromWire converts evidence item messages.
func EvidenceFromWire(items []ros2msg.ActionEvidenceItem) []engine.Evidence {
	if len(items) == 0 {
		return nil
	}
	out := make([]engine.Evidence, len(items))
	for i, m := range items {
		out[i] = engine.Evidence{
			Kind: engine.EvidenceKind(m.Kind), ActionID: m.ActionID, Executor: m.ExecutorID, Vehicle: m.VehicleID,
			Command: m.Command, Result: decisions.AckResult(m.Result), Mode: m.Mode, Armed: m.Armed, VehicleTimeUs: m.VehicleTimeUs,
		}
	}
	return out
}
