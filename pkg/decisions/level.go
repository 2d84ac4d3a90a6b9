package decisions

import "fmt"

// Level is what a self-assessment claims the belief knows about an axis, a
// block or the whole state (ADR-0020). Levels are ordered known < uncertain <
// unknown, so the worst of several is their maximum. The numbers are the
// LEVEL_* constants of BeliefSelfAssessment.msg.
type Level uint8

// The three levels, numbered as in BeliefSelfAssessment.msg.
const (
	LevelKnown     Level = 0
	LevelUncertain Level = 1
	LevelUnknown   Level = 2
)

var levelNames = [...]string{"known", "uncertain", "unknown"}

// Valid reports whether l is one of the three levels.
func (l Level) Valid() bool { return l <= LevelUnknown }

// String returns "known", "uncertain" or "unknown" (the canonical JSON
// spelling), or "level(N)" for a value outside the range.
func (l Level) String() string {
	if l.Valid() {
		return levelNames[l]
	}
	return fmt.Sprintf("level(%d)", uint8(l))
}

// ParseLevel accepts "known", "uncertain" or "unknown".
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if n == s {
			return Level(i), nil
		}
	}
	return 0, invalid("Level", "level", s, `want "known", "uncertain" or "unknown"`)
}

// Worst returns the worst of the given levels (known when none is given).
func Worst(levels ...Level) Level {
	w := LevelKnown
	for _, l := range levels {
		if l > w {
			w = l
		}
	}
	return w
}
