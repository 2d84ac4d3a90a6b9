package qos

import (
	"errors"
	"testing"
	"time"
)

func TestQoSProfileRMW(t *testing.T) {
	tests := []struct {
		name string
		in   Profile
		want RMWProfile
	}{
		{"input default", DefaultInput(), RMWProfile{History: 1, Depth: 10, Reliability: 1, Durability: 2}},
		{"decisions default", DefaultDecisions(), RMWProfile{History: 1, Depth: 100, Reliability: 1, Durability: 1}},
		{"best effort keep all", Profile{History: HistoryKeepAll, Reliability: ReliabilityBestEffort, Durability: DurabilitySystemDefault},
			RMWProfile{History: 2, Reliability: 2, Durability: 0}},
		{"system defaults", Profile{}, RMWProfile{}},
		{"liveliness and durations", Profile{History: HistoryKeepLast, Depth: 1, Liveliness: LivelinessManualByTopic,
			Deadline: time.Second, Lifespan: 2 * time.Second, LivelinessLeaseDuration: 3 * time.Second, AvoidROSNamespaceConventions: true},
			RMWProfile{History: 1, Depth: 1, Liveliness: 3, Deadline: time.Second, Lifespan: 2 * time.Second,
				LivelinessLeaseDuration: 3 * time.Second, AvoidROSNamespaceConventions: true}},
		{"automatic liveliness", Profile{Liveliness: LivelinessAutomatic}, RMWProfile{Liveliness: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.RMW()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("RMW() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestQoSProfileRMWRejects(t *testing.T) {
	for _, p := range []Profile{
		{History: HistoryKeepLast, Depth: 0},
		{Reliability: 7},
		{Durability: 3},
		{History: 9},
		{Liveliness: 2},
		{Deadline: -1},
	} {
		if got, err := p.RMW(); !errors.Is(err, ErrInvalid) {
			t.Errorf("RMW(%+v) = %+v, %v; want ErrInvalid", p, got, err)
		}
	}
}
