package transport

import (
	"errors"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

func TestQoSProfileRMW(t *testing.T) {
	tests := []struct {
		name string
		in   qos.Profile
		want RMWProfile
	}{
		{"input default", qos.DefaultInput(), RMWProfile{History: 1, Depth: 10, Reliability: 1, Durability: 2}},
		{"decisions default", qos.DefaultDecisions(), RMWProfile{History: 1, Depth: 100, Reliability: 1, Durability: 1}},
		{"best effort keep all", qos.Profile{History: qos.HistoryKeepAll, Reliability: qos.ReliabilityBestEffort, Durability: qos.DurabilitySystemDefault},
			RMWProfile{History: 2, Reliability: 2, Durability: 0}},
		{"system defaults", qos.Profile{}, RMWProfile{}},
		{"liveliness and durations", qos.Profile{History: qos.HistoryKeepLast, Depth: 1, Liveliness: qos.LivelinessManualByTopic,
			Deadline: time.Second, Lifespan: 2 * time.Second, LivelinessLeaseDuration: 3 * time.Second, AvoidROSNamespaceConventions: true},
			RMWProfile{History: 1, Depth: 1, Liveliness: 3, Deadline: time.Second, Lifespan: 2 * time.Second,
				LivelinessLeaseDuration: 3 * time.Second, AvoidROSNamespaceConventions: true}},
		{"automatic liveliness", qos.Profile{Liveliness: qos.LivelinessAutomatic}, RMWProfile{Liveliness: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RMW(tt.in)
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
	for _, p := range []qos.Profile{
		{History: qos.HistoryKeepLast, Depth: 0},
		{Reliability: 7},
		{Durability: 3},
		{History: 9},
		{Liveliness: 2},
		{Deadline: -1},
	} {
		if got, err := RMW(p); !errors.Is(err, qos.ErrInvalid) {
			t.Errorf("RMW(%+v) = %+v, %v; want qos.ErrInvalid", p, got, err)
		}
	}
}
