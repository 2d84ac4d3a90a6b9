package node

import (
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// A belief input that falls silent for input_timeout_s is reported stale at
// the next tick (ERROR at once, an error in the log), and reported back
// when a belief arrives again; silence before the first belief and gaps
// shorter than the timeout are not.
func TestInputFreshness(t *testing.T) {
	type step struct {
		belief   bool // deliver a belief, else tick
		at       time.Duration
		stale    uint64 // inputs.stale in the report that follows
		episodes uint64
		longest  uint64 // inputs.longest_gap_ms
		level    uint8
	}
	tests := []struct {
		name  string
		steps []step
		logs  []string
	}{
		{"silent before the first belief", []step{
			{at: ms(5000), level: ros2msg.DiagnosticStatusOK},
		}, nil},
		{"gap shorter than the timeout", []step{
			{belief: true, at: 0},
			{at: ms(900)},
			{belief: true, at: ms(950), longest: 950},
			{at: ms(1900), longest: 950},
		}, nil},
		{"stale, then resumed", []step{
			{belief: true, at: 0},
			{at: ms(1000), stale: 1, episodes: 1, level: ros2msg.DiagnosticStatusError},
			{at: ms(2500), stale: 1, episodes: 1, level: ros2msg.DiagnosticStatusError},
			{belief: true, at: ms(3000), episodes: 1, longest: 3000},
			{at: ms(3500), episodes: 1, longest: 3000},
			{at: ms(4100), stale: 1, episodes: 2, longest: 3000, level: ros2msg.DiagnosticStatusError},
		}, []string{"inputs stale", "inputs resumed", "gap_s=3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.InputTimeout = time.Second
			h := startNode(t, cfg)
			diagTopic := cfg.Topics[session.KeyDiagnostics]
			stamp := int64(1_000_000)
			for i, s := range tt.steps {
				at := base.Add(s.at)
				if s.belief {
					h.clock.set(at)
					stamp += 1_000_000
					h.deliver(cfg.Topics[session.KeyState], beliefCDR(t, testBelief(stamp)), at)
				} else {
					h.tickAt(at)
				}
				d := h.sync(at)
				if got := count(t, d, "inputs.stale"); got != s.stale {
					t.Errorf("step %d: inputs.stale = %d, want %d", i, got, s.stale)
				}
				if got := count(t, d, "inputs.stale_episodes"); got != s.episodes {
					t.Errorf("step %d: inputs.stale_episodes = %d, want %d", i, got, s.episodes)
				}
				if got := count(t, d, "inputs.longest_gap_ms"); got != s.longest {
					t.Errorf("step %d: inputs.longest_gap_ms = %d, want %d", i, got, s.longest)
				}
				if d.Status[0].Level == ros2msg.DiagnosticStatusError != (s.level == ros2msg.DiagnosticStatusError) {
					t.Errorf("step %d: level %d, want %d (%s)", i, d.Status[0].Level, s.level, d.Status[0].Message)
				}
				if s.stale == 1 && !strings.HasPrefix(d.Status[0].Message, "inputs stale: no belief from "+cfg.Topics[session.KeyState]) {
					t.Errorf("step %d: message %q", i, d.Status[0].Message)
				}
			}
			if err := h.shutdown(); err != nil {
				t.Fatal(err)
			}
			logs := h.logs.String()
			for _, want := range tt.logs {
				if !strings.Contains(logs, want) {
					t.Errorf("log lacks %q:\n%s", want, logs)
				}
			}
			if len(tt.logs) == 0 && strings.Contains(logs, "inputs stale") {
				t.Errorf("stale reported:\n%s", logs)
			}
			// Going stale and coming back each publish a report at once,
			// besides the periodic ones the steps asked for.
			want := len(tt.steps) + 1 // and the one at shutdown
			for _, s := range tt.logs {
				if s == "inputs stale" || s == "inputs resumed" {
					want += strings.Count(logs, s)
				}
			}
			if got := len(h.ft.Published(diagTopic)); got != want {
				t.Errorf("%d diagnostics reports, want %d", got, want)
			}
		})
	}
}
