package decisions

import "strconv"

// AckResult is a vehicle's answer to a command: MAVLink's MAV_RESULT,
// whose values PX4's VehicleCommandAck.result and the result of an
// acknowledgement in ActionEvidenceItem.msg carry. It is evidence the
// action outcomes (ActionOutcome) are judged from; this is the one table
// of its values and names.
type AckResult uint8

// Acknowledgement results, numbered as MAV_RESULT.
const (
	AckAccepted            AckResult = 0 // the command is carried out
	AckTemporarilyRejected AckResult = 1 // not now; it may be accepted later
	AckDenied              AckResult = 2 // not in this state
	AckUnsupported         AckResult = 3 // unknown or unsupported command
	AckFailed              AckResult = 4 // accepted, but carrying it out failed
	AckInProgress          AckResult = 5 // accepted and under way
	AckCancelled           AckResult = 6 // cancelled while under way
)

// NumAckResults is the number of named results; valid ones are 0 to
// NumAckResults-1.
const NumAckResults = 7

var ackResultNames = [NumAckResults]string{
	"ACCEPTED", "TEMPORARILY_REJECTED", "DENIED", "UNSUPPORTED", "FAILED", "IN_PROGRESS", "CANCELLED",
}

// String returns the result's MAV_RESULT name without its prefix
// ("DENIED"), or "RESULT(n)" for a value outside the table.
func (r AckResult) String() string {
	if r < NumAckResults {
		return ackResultNames[r]
	}
	return "RESULT(" + strconv.Itoa(int(r)) + ")"
}

// Accepted reports whether r accepts the command: ACCEPTED or IN_PROGRESS.
// Every other result, known or not, refuses it.
func (r AckResult) Accepted() bool { return r == AckAccepted || r == AckInProgress }
