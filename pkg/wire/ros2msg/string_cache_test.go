package ros2msg

import (
	"errors"
	"testing"
	"unsafe"
)

func TestStringCacheReusesRepeatedStrings(t *testing.T) {
	var c StringCache
	a := c.get([]byte("proceed"))
	for i := range 20 {
		_ = c.get([]byte{byte('a' + i), 'x'}) // never repeated: churns the last entry
		if got := c.get([]byte("proceed")); got != "proceed" || unsafe.StringData(got) != unsafe.StringData(a) {
			t.Fatalf("round %d: the repeated string was allocated again", i)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = c.get([]byte("proceed")) }); n != 0 {
		t.Fatalf("%v allocations for a cached string", n)
	}
}

// checkCached holds UnmarshalCDRCached (with a cache shared across calls)
// to UnmarshalCDR: the same value or the same error.
func checkCached(t *testing.T, c *StringCache, data []byte) {
	t.Helper()
	var a, b BeliefSelfAssessment
	errA, errB := a.UnmarshalCDR(data), b.UnmarshalCDRCached(data, c)
	// Equal compares every field, floats bit for bit (NaN stds included).
	sa, sb := SelfAssessmentFromWire(&a), SelfAssessmentFromWire(&b)
	if (errA == nil) != (errB == nil) || (errA != nil && errA.Error() != errB.Error()) || !sa.Equal(&sb) {
		t.Fatalf("BeliefSelfAssessment: %v / %v", errA, errB)
	}
	var r, s DecisionRationale
	errR, errS := r.UnmarshalCDR(data), s.UnmarshalCDRCached(data, c)
	if (errR == nil) != (errS == nil) || (errR != nil && errR.Error() != errS.Error()) || r != s {
		t.Fatalf("DecisionRationale: %v / %v, %+v / %+v", errR, errS, r, s)
	}
	var de *DecodeError
	if errS != nil && !errors.As(errS, &de) {
		t.Fatalf("error %T, want *DecodeError", errS)
	}
}

func TestUnmarshalCDRCachedMatches(t *testing.T) {
	var c StringCache
	m := benchDecisionRationale()
	for i := range 30 {
		m.Decision.Reason = []string{"position_uncertain", "overall_known", "no_assessment"}[i%3]
		m.SelfAssessmentSHA256 = string(rune('a'+i%26)) + m.SelfAssessmentSHA256[1:]
		data, err := m.MarshalCDR()
		if err != nil {
			t.Fatal(err)
		}
		checkCached(t, &c, data)
		checkCached(t, &c, data[:len(data)-5])
	}
}

// FuzzUnmarshalCDRCached: any input, through one cache shared by every
// call, decodes as without it.
func FuzzUnmarshalCDRCached(f *testing.F) {
	fuzzSeeds(f, "ghost/msg/DecisionRationale")
	fuzzSeeds(f, "ghost/msg/BeliefSelfAssessment")
	var c StringCache
	f.Fuzz(func(t *testing.T, data []byte) { checkCached(t, &c, data) })
}
