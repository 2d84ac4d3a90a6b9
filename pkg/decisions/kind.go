package decisions

import "fmt"

// Kind is the closed catalog of things the agent can decide to do (ADR-0021).
// The numbers are the KIND_* constants of Decision.msg; the names are the ADR's
// snake_case spellings used in canonical JSON and reports.
type Kind uint8

// The seven decision kinds, numbered as in Decision.msg.
const (
	KindProceed          Kind = 0 // continue the mission as planned
	KindHold             Kind = 1 // stop and hold position
	KindYieldToPilot     Kind = 2 // hand control to the human pilot
	KindEngageRTL        Kind = 3 // return to launch
	KindEngageLand       Kind = 4 // land where the vehicle is
	KindEngageKill       Kind = 5 // cut thrust
	KindAbstainUncertain Kind = 6 // decline to act on a belief that does not justify acting
)

// NumKinds is the size of the catalog; valid kinds are 0 to NumKinds-1.
const NumKinds = 7

var kindNames = [NumKinds]string{
	"proceed", "hold", "yield_to_pilot", "engage_rtl", "engage_land", "engage_kill", "abstain_uncertain",
}

// Kinds lists the catalog in numeric order.
func Kinds() []Kind {
	ks := make([]Kind, NumKinds)
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

// Valid reports whether k is in the closed catalog.
func (k Kind) Valid() bool { return k < NumKinds }

// String returns the ADR's snake_case name, or "kind(N)" outside the catalog.
func (k Kind) String() string {
	if k.Valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind accepts the snake_case name of a kind.
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), nil
		}
	}
	return 0, invalid("Decision", "kind", s, "not one of the seven decision kinds")
}
