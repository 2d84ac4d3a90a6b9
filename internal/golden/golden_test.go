package golden

import (
	"os"
	"testing"
)

func TestSampleFlight(t *testing.T) {
	rec, want := SampleFlight(t)
	if _, err := os.Stat(rec); err != nil {
		t.Fatal(err)
	}
	last := int64(-1)
	for _, d := range want {
		if d.Stamp <= last || d.Kind > 6 || d.Reason == "" || d.PolicyID == "" {
			t.Fatalf("implausible expected decision %+v after stamp %d", d, last)
		}
		last = d.Stamp
	}
	d := want[0]
	if !d.Matches(d.Stamp, d.Stamp, d.Kind, d.Reason, d.PolicyID, d.SelfAssessmentSHA256) ||
		d.Matches(d.Stamp, d.Stamp+1, d.Kind, d.Reason, d.PolicyID, d.SelfAssessmentSHA256) ||
		d.Matches(d.Stamp, d.Stamp, d.Kind, d.Reason, d.PolicyID, "x") {
		t.Fatal("Matches does not compare every field")
	}
}

func TestFindOutsideARepository(t *testing.T) {
	t.Chdir(t.TempDir())
	if g, ok := Find(); ok || g == "" {
		t.Fatalf("Find outside a module = %q, %v", g, ok)
	}
}
