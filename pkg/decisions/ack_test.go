package decisions

import "testing"

func TestAckResult(t *testing.T) {
	tests := []struct {
		r        AckResult
		name     string
		accepted bool
	}{
		{AckAccepted, "ACCEPTED", true},
		{AckTemporarilyRejected, "TEMPORARILY_REJECTED", false},
		{AckDenied, "DENIED", false},
		{AckUnsupported, "UNSUPPORTED", false},
		{AckFailed, "FAILED", false},
		{AckInProgress, "IN_PROGRESS", true},
		{AckCancelled, "CANCELLED", false},
		{NumAckResults, "RESULT(7)", false},
		{255, "RESULT(255)", false},
	}
	for i, tc := range tests {
		if i < NumAckResults && tc.r != AckResult(i) {
			t.Errorf("%s is %d, want MAV_RESULT %d", tc.name, tc.r, i)
		}
		if got := tc.r.String(); got != tc.name {
			t.Errorf("AckResult(%d).String() = %q, want %q", tc.r, got, tc.name)
		}
		if got := tc.r.Accepted(); got != tc.accepted {
			t.Errorf("%s.Accepted() = %v, want %v", tc.name, got, tc.accepted)
		}
	}
}
