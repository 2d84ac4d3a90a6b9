package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// kindsFrom decides, for a belief stamp in ms, the kind of the newest
// entry at or before it (proceed before the first), and keeps what each
// context saw of the actions.
type kindsFrom struct {
	from  []int64
	kinds []decisions.Kind
	seen  map[int64]decisions.ActionStates
}

func (kindsFrom) ID() string { return "kinds_from" }

func (p *kindsFrom) Decide(c decisions.Context) (decisions.Decision, error) {
	k := decisions.KindProceed
	for i, f := range p.from {
		if c.BeliefStampSimNs/ms >= f {
			k = p.kinds[i]
		}
	}
	if c.Actions != nil {
		p.seen[c.BeliefStampSimNs/ms] = *c.Actions
	}
	return decisions.Decision{Kind: k, DecisionStampSimNs: c.BeliefStampSimNs, Reason: "scripted", SchemaVersion: decisions.SchemaVersion}, nil
}

// answer is how the test's vehicle answers one send: ack, when acked,
// after ackAfter ms (default 50), and the observed mode (0 none) after
// 100 ms more.
type answer struct {
	ack      decisions.AckResult
	acked    bool
	ackAfter int64
	mode     uint8
}

// recommandRun flies beliefs every 250 ms from 250 ms to endMs; the
// vehicle answers each send with vehicle(kind), the beliefs carry
// flight(ms). It returns one line per action command:
// "<ms> <op> <id> <kind> <attempt> [<outcome> <failure>]: <detail>".
func recommandRun(t *testing.T, opts ActionOptions, p *kindsFrom, vehicle func(decisions.Kind) answer,
	flight func(ms int64) decisions.FlightStatus, endMs int64) []string {
	t.Helper()
	p.seen = map[int64]decisions.ActionStates{}
	for _, k := range []decisions.Kind{decisions.KindHold, decisions.KindEngageRTL, decisions.KindEngageLand, decisions.KindEngageKill} {
		opts.Routes[k] = ActionRoute{Executor: "px4", Enabled: true, Expect: Expectation{Mode: uint8(10 + k), HasMode: true}}
	}
	opts.AckTimeout, opts.ReachTimeout = 300*time.Millisecond, time.Second
	l := mustLoop(t, LoopOptions{Policy: p, Actions: opts})
	var lines []string
	var out Output
	type due struct {
		at int64
		ev Evidence
	}
	var queue []due
	step := func(ev Event) {
		t.Helper()
		if err := l.Step(ev, &out); err != nil {
			t.Fatal(err)
		}
		now, _ := ArrivalOf(ev)
		for _, a := range out.Actions {
			line := fmt.Sprintf("%d %s %d %s %d", now/ms, a.Op, a.ID, a.Kind, a.Attempt)
			if a.Op == ActionConclude {
				line += fmt.Sprintf(" %s %s", a.Outcome, a.Failure)
			}
			lines = append(lines, line+": "+a.Detail)
			if a.Op == ActionConclude {
				continue
			}
			ans := vehicle(a.Kind)
			if ans.ackAfter == 0 {
				ans.ackAfter = 50
			}
			if ans.acked {
				queue = append(queue, due{now + ans.ackAfter*ms, Evidence{Kind: EvidenceAck, ActionID: a.ID, Executor: "px4", Vehicle: 1, Command: 1, Result: ans.ack}})
			}
			if ans.mode != 0 {
				queue = append(queue, due{now + (ans.ackAfter+100)*ms, Evidence{Kind: EvidenceState, ActionID: a.ID, Executor: "px4", Vehicle: 1, Mode: ans.mode, Armed: true}})
			}
		}
	}
	for s := int64(250); s <= endMs; s += 250 {
		for len(queue) > 0 && queue[0].at <= s*ms {
			step(EvidenceEvent{ArrivalNs: queue[0].at, Items: []Evidence{queue[0].ev}})
			queue = queue[1:]
		}
		b := belief(s * ms)
		b.Flight = flight(s)
		step(aEv(t, s*ms, s*ms, decisions.LevelKnown))
		step(BeliefEvent{ArrivalNs: s * ms, Belief: b})
	}
	return lines
}

func armedIn(m decisions.FlightMode) decisions.FlightStatus {
	f := belief(0).Flight
	f.Mode = m
	return f
}

func offboard(int64) decisions.FlightStatus { return armedIn(decisions.FlightModeOffboard) }

// executes returns the times (ms) and kinds of the executes in lines.
func executes(lines []string) []string {
	var out []string
	for _, l := range lines {
		if f := strings.Fields(l); f[1] == "execute" {
			out = append(out, f[0]+" "+f[3])
		}
	}
	return out
}

func TestRecommand(t *testing.T) {
	rtl, land, kill := decisions.KindEngageRTL, decisions.KindEngageLand, decisions.KindEngageKill
	deny := func(decisions.Kind) answer { return answer{ack: decisions.AckDenied, acked: true} }
	tests := []struct {
		name    string
		opts    ActionOptions
		from    []int64
		kinds   []decisions.Kind
		vehicle func(decisions.Kind) answer
		flight  func(int64) decisions.FlightStatus
		end     int64
		want    []string // executes
		details []string // substrings some line must contain
	}{
		{name: "refused: re-commanded after the interval, until the bound, which it names",
			opts: ActionOptions{RecommandInterval: 2 * time.Second, MaxRecommands: 2}, from: []int64{1000}, kinds: []decisions.Kind{rtl},
			vehicle: deny, flight: offboard, end: 9000,
			want: []string{"1000 engage_rtl", "3000 engage_rtl", "5000 engage_rtl"},
			details: []string{
				"re-command 1 of 2 due 2s after this command's first send",
				"5000 execute 3 engage_rtl 1: re-command 2 of 2: decision 5000000000 still decides engage_rtl and its last command ended denied",
				"not re-commanded: the episode sent 3 commands, the first and 2 re-commands (the bound)"}},
		{name: "the default interval is 5 s",
			from: []int64{1000}, kinds: []decisions.Kind{rtl}, vehicle: deny, flight: offboard, end: 12000,
			want: []string{"1000 engage_rtl", "6000 engage_rtl", "11000 engage_rtl"}},
		{name: "temporarily rejected: re-commanded",
			opts: ActionOptions{RecommandInterval: 2 * time.Second}, from: []int64{1000}, kinds: []decisions.Kind{rtl},
			vehicle: func(decisions.Kind) answer { return answer{ack: decisions.AckTemporarilyRejected, acked: true} },
			flight:  offboard, end: 4000,
			want: []string{"1000 engage_rtl", "3000 engage_rtl"}},
		{name: "accepted, not reached: re-commanded once the interval passed",
			opts: ActionOptions{RecommandInterval: 2 * time.Second}, from: []int64{1000}, kinds: []decisions.Kind{rtl},
			vehicle: func(decisions.Kind) answer { return answer{ack: decisions.AckAccepted, acked: true} },
			flight:  offboard, end: 6000,
			// accepted at 1050, not reached at 2050, due at 3000; then at 5000.
			want:    []string{"1000 engage_rtl", "3000 engage_rtl", "5000 engage_rtl"},
			details: []string{"its last command ended not_reached"}},
		{name: "no acknowledgement: retried, transport, re-commanded",
			opts: ActionOptions{RecommandInterval: 2 * time.Second}, from: []int64{1000}, kinds: []decisions.Kind{rtl},
			vehicle: func(decisions.Kind) answer { return answer{} }, flight: offboard, end: 3500,
			want:    []string{"1000 engage_rtl", "3000 engage_rtl"},
			details: []string{"its last command ended transport"}},
		{name: "reached, then the vehicle left the mode: re-commanded",
			opts: ActionOptions{RecommandInterval: 2 * time.Second}, from: []int64{1000}, kinds: []decisions.Kind{rtl},
			vehicle: func(decisions.Kind) answer {
				return answer{ack: decisions.AckAccepted, acked: true, mode: 10 + uint8(decisions.KindEngageRTL)}
			},
			flight: func(s int64) decisions.FlightStatus {
				if s >= 1500 && s < 6000 {
					return armedIn(decisions.FlightModeRTL)
				}
				return armedIn(decisions.FlightModeOffboard)
			}, end: 7000,
			want:    []string{"1000 engage_rtl", "6000 engage_rtl"},
			details: []string{"the vehicle left the commanded mode (flight mode offboard)"}},
		{name: "reached, the mode never shown in the beliefs: nothing more",
			opts: ActionOptions{RecommandInterval: 2 * time.Second}, from: []int64{1000}, kinds: []decisions.Kind{rtl},
			vehicle: func(decisions.Kind) answer {
				return answer{ack: decisions.AckAccepted, acked: true, mode: 10 + uint8(decisions.KindEngageRTL)}
			},
			flight: offboard, end: 9000,
			want: []string{"1000 engage_rtl"}},
		{name: "refused, but the vehicle is in the mode anyway: nothing to send until it leaves",
			opts: ActionOptions{RecommandInterval: 2 * time.Second}, from: []int64{1000}, kinds: []decisions.Kind{rtl}, vehicle: deny,
			flight: func(s int64) decisions.FlightStatus {
				if s >= 1500 && s < 7000 {
					return armedIn(decisions.FlightModeRTL)
				}
				return armedIn(decisions.FlightModeOffboard)
			}, end: 7500,
			want: []string{"1000 engage_rtl", "7000 engage_rtl"}},
		{name: "disarmed: nothing to act on",
			opts: ActionOptions{RecommandInterval: 2 * time.Second}, from: []int64{1000}, kinds: []decisions.Kind{rtl}, vehicle: deny,
			flight: func(s int64) decisions.FlightStatus {
				f := armedIn(decisions.FlightModeOffboard)
				f.Armed = s < 1500
				return f
			}, end: 6000,
			want: []string{"1000 engage_rtl"}},
		{name: "interval off: never, and the failure says so",
			opts: ActionOptions{RecommandInterval: -1}, from: []int64{1000}, kinds: []decisions.Kind{rtl},
			vehicle: deny, flight: offboard, end: 12000,
			want: []string{"1000 engage_rtl"}, details: []string{"DENIED; not re-commanded: re-commanding is off"}},
		{name: "bound off: never",
			opts: ActionOptions{MaxRecommands: -1}, from: []int64{1000}, kinds: []decisions.Kind{rtl},
			vehicle: deny, flight: offboard, end: 12000,
			want: []string{"1000 engage_rtl"}, details: []string{"not re-commanded: re-commanding is off"}},
		{name: "kill: never, and the failure says so",
			opts: ActionOptions{RecommandInterval: time.Second}, from: []int64{1000}, kinds: []decisions.Kind{kill},
			vehicle: deny, flight: offboard, end: 6000,
			want: []string{"1000 engage_kill"}, details: []string{"not re-commanded: engage_kill is sent again only when the policy decides it anew"}},
		{name: "unsupported: never, and the failure says so",
			opts: ActionOptions{RecommandInterval: time.Second}, from: []int64{1000}, kinds: []decisions.Kind{rtl},
			vehicle: func(decisions.Kind) answer { return answer{ack: decisions.AckUnsupported, acked: true} },
			flight:  offboard, end: 6000,
			want: []string{"1000 engage_rtl"}, details: []string{"not re-commanded: the vehicle does not support the command"}},
		{name: "the kind changes: the edge sends, a new episode counts afresh",
			opts: ActionOptions{RecommandInterval: 2 * time.Second, MaxRecommands: 1}, from: []int64{1000, 2000, 2500},
			kinds:   []decisions.Kind{rtl, land, rtl},
			vehicle: deny, flight: offboard, end: 7000,
			want: []string{"1000 engage_rtl", "2000 engage_land", "2500 engage_rtl", "4500 engage_rtl"}},
		{name: "kill decided anew after another kind: sent again",
			opts: ActionOptions{RecommandInterval: time.Second}, from: []int64{1000, 2000, 3000},
			kinds:   []decisions.Kind{kill, land, kill},
			vehicle: deny, flight: offboard, end: 6000,
			want: []string{"1000 engage_kill", "2000 engage_land", "3000 engage_kill"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &kindsFrom{from: tc.from, kinds: tc.kinds}
			lines := recommandRun(t, tc.opts, p, tc.vehicle, tc.flight, tc.end)
			if got := executes(lines); !slices.Equal(got, tc.want) {
				t.Errorf("executes %q, want %q\n%s", got, tc.want, strings.Join(lines, "\n"))
			}
			for _, d := range tc.details {
				if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, d) }) {
					t.Errorf("no line says %q\n%s", d, strings.Join(lines, "\n"))
				}
			}
			again := recommandRun(t, tc.opts, &kindsFrom{from: tc.from, kinds: tc.kinds}, tc.vehicle, tc.flight, tc.end)
			if !slices.Equal(lines, again) {
				t.Errorf("a second run differs:\n%s\n---\n%s", strings.Join(lines, "\n"), strings.Join(again, "\n"))
			}
		})
	}
}

// TestRecommandPolicyView: while a re-command is under way the policy still
// sees the failure, since its first context, and the episode's count of
// commands from the moment each is sent.
func TestRecommandPolicyView(t *testing.T) {
	p := &kindsFrom{from: []int64{1000}, kinds: []decisions.Kind{decisions.KindEngageRTL}}
	deny := func(decisions.Kind) answer { return answer{ack: decisions.AckDenied, acked: true, ackAfter: 280} }
	recommandRun(t, ActionOptions{RecommandInterval: 2 * time.Second}, p, deny, offboard, 6000)
	for _, w := range []struct {
		at   int64
		want string
	}{
		{1000, "none 0 0 -1"},
		{1250, "sent 1 1 1250"}, // the first command: sent
		{1500, "denied 1 1 1500"},
		{3000, "denied 1 1 1500"}, // the re-command's own step sees the state before it
		{3250, "denied 1 2 1500"}, // sent, no acknowledgement yet: the failure stays, the count moves
		{3500, "denied 1 2 1500"}, // denied again: since stays
		{5250, "denied 1 3 1500"},
	} {
		s := p.seen[w.at][decisions.KindEngageRTL]
		since := s.SinceStampSimNs
		if since >= 0 {
			since /= ms
		}
		if got := fmt.Sprintf("%s %d %d %d", s.Outcome, s.Attempts, s.Commands, since); got != w.want {
			t.Errorf("at %d ms: saw %q, want %q", w.at, got, w.want)
		}
	}
}

func TestRecommandOptions(t *testing.T) {
	for _, o := range []ActionOptions{{MaxRecommands: 251}, {MaxRetries: 251}} {
		if _, err := NewLoop(LoopOptions{Actions: o}); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: error %v, want ErrOptions", o, err)
		}
	}
	for _, o := range []ActionOptions{{MaxRecommands: 250}, {MaxRetries: 250}, {MaxRecommands: -1}, {MaxRetries: -1}} {
		if _, err := NewLoop(LoopOptions{Actions: o}); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
}
