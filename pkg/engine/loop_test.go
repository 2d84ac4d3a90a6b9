package engine

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

const (
	known     = decisions.LevelKnown
	uncertain = decisions.LevelUncertain
	unknown   = decisions.LevelUnknown
)

// TestLoopJoinRules walks every join rule of the architecture with the
// outcome it documents. Expected lines follow describe's format.
func TestLoopJoinRules(t *testing.T) {
	const maxStamp = math.MaxInt64
	mod := func(stamp int64, f func(b *decisions.Belief)) Event {
		b := belief(stamp)
		f(&b)
		return BeliefEvent{ArrivalNs: 0, Belief: b}
	}
	modA := func(stamp int64, lvl decisions.Level, f func(a *decisions.SelfAssessment)) Event {
		a := assessment(t, stamp, lvl)
		f(&a)
		return AssessmentEvent{Assessment: a}
	}
	nanCov := mod(1, func(b *decisions.Belief) {
		b.Covariance = make([]float64, decisions.CovarianceLen)
		b.Covariance[17] = nan
	})
	noCov, err := decisions.Assess(1, nil, testThresholds)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		opts  LoopOptions
		evs   []Event
		want  []string
		check func(t *testing.T, l *Loop, outs []Output)
	}{
		{name: "assessment after belief",
			evs:  []Event{bEv(0, 1), aEv(t, 10*ms, 1, known)},
			want: []string{"decide 1 proceed with"}},
		{name: "assessment before belief",
			evs:  []Event{aEv(t, 0, 1, uncertain), bEv(1, 1)},
			want: []string{"decide 1 hold with"}},
		{name: "belief S+1 before assessment S: S still decided with its assessment",
			evs:  []Event{bEv(0, 1), bEv(1, 2), aEv(t, 2, 1, known), aEv(t, 3, 2, uncertain)},
			want: []string{"decide 1 proceed with", "decide 2 hold with"}},
		{name: "newer beliefs alone release nothing",
			evs:  []Event{bEv(0, 1), bEv(1*ms, 2), bEv(2*ms, 3), TickEvent{99 * ms}},
			want: nil},
		{name: "newer assessment releases every older belief, oldest first",
			evs: []Event{bEv(0, 1), bEv(1, 2), bEv(2, 3), aEv(t, 3, 3, known)},
			want: []string{"decide 1 abstain_uncertain without:newer_assessment",
				"decide 2 abstain_uncertain without:newer_assessment", "decide 3 proceed with"}},
		{name: "timeout by tick, not a nanosecond early",
			evs:  []Event{bEv(0, 0), aEv(t, 0, 0, known), bEv(0, 1), TickEvent{100*ms - 1}, TickEvent{100 * ms}},
			want: []string{"decide 0 proceed with", "decide 1 abstain_uncertain without:timeout"},
			check: func(t *testing.T, l *Loop, outs []Output) {
				if len(outs[3].Commands) != 0 || len(outs[4].Commands) != 1 {
					t.Errorf("decided at the wrong tick: %d then %d commands", len(outs[3].Commands), len(outs[4].Commands))
				}
			}},
		{name: "the first belief waits for a second input before its timeout runs",
			evs:  []Event{bEv(0, 1), TickEvent{10000 * ms}, bEv(10000*ms+1, 2)},
			want: []string{"decide 1 abstain_uncertain without:timeout"},
			check: func(t *testing.T, l *Loop, outs []Output) {
				if len(outs[1].Commands) != 0 || len(outs[2].Commands) != 1 {
					t.Errorf("an uncorroborated first belief was decided by its timeout: %d then %d commands", len(outs[1].Commands), len(outs[2].Commands))
				}
			}},
		{name: "timeout by any arrival",
			evs:  []Event{bEv(0, 1), bEv(100*ms, 2)},
			want: []string{"decide 1 abstain_uncertain without:timeout"}},
		{name: "a timed-out belief does not overtake an older pending one",
			evs:  []Event{bEv(0, 2), bEv(1, 1), TickEvent{100 * ms}, TickEvent{100*ms + 1}},
			want: []string{"decide 1 abstain_uncertain without:timeout", "decide 2 abstain_uncertain without:timeout"},
			check: func(t *testing.T, l *Loop, outs []Output) {
				if len(outs[2].Commands) != 0 {
					t.Errorf("stamp 2 overtook stamp 1: %v", describe(&outs[2]))
				}
			}},
		{name: "older belief arriving later is decided first",
			evs:  []Event{bEv(0, 2), bEv(1, 1), aEv(t, 2, 1, known), TickEvent{100 * ms}},
			want: []string{"decide 1 proceed with", "decide 2 abstain_uncertain without:timeout"}},
		{name: "end of stream decides everything pending",
			evs:  []Event{bEv(0, 1), bEv(1, 2), EndEvent{2}},
			want: []string{"decide 1 abstain_uncertain without:end_of_stream", "decide 2 abstain_uncertain without:end_of_stream"}},
		{name: "the loop keeps working after end of stream",
			evs:  []Event{bEv(0, 1), EndEvent{1}, bEv(2, 2), aEv(t, 3, 2, known)},
			want: []string{"decide 1 abstain_uncertain without:end_of_stream", "decide 2 proceed with"}},
		{name: "tick and end with nothing pending do nothing",
			evs:  []Event{TickEvent{0}, EndEvent{10 * ms}, TickEvent{time100()}},
			want: nil},
		{name: "pending buffer full decides the oldest",
			opts: LoopOptions{MaxPendingBeliefs: 2},
			evs:  []Event{bEv(0, 1), bEv(1, 2), bEv(2, 3)},
			want: []string{"decide 1 abstain_uncertain without:buffer_full"},
			check: func(t *testing.T, l *Loop, _ []Output) {
				if s := l.Sizes(); s.PendingBeliefs != 2 {
					t.Errorf("pending %d, want 2", s.PendingBeliefs)
				}
			}},
		{name: "pending buffer full: a new oldest belief goes first",
			opts: LoopOptions{MaxPendingBeliefs: 2},
			evs:  []Event{bEv(0, 2), bEv(1, 3), bEv(2, 1)},
			want: []string{"decide 1 abstain_uncertain without:buffer_full"}},
		{name: "late belief",
			evs:  []Event{bEv(0, 2), aEv(t, 1, 2, known), bEv(2, 1)},
			want: []string{"decide 2 proceed with", "reject late_belief 1"}},
		{name: "late assessment after timeout",
			evs:  []Event{bEv(0, 0), aEv(t, 0, 0, known), bEv(0, 1), TickEvent{100 * ms}, aEv(t, 101*ms, 1, known)},
			want: []string{"decide 0 proceed with", "decide 1 abstain_uncertain without:timeout", "reject late_assessment 1"},
			check: func(t *testing.T, l *Loop, outs []Output) {
				d := outs[4].Rejections[0].Detail
				if !strings.Contains(d, "too short") || !strings.Contains(d, "100ms") || !strings.Contains(d, "belief_stamp_sim_ns = 1") {
					t.Errorf("detail %q should name the stamp and say the 100ms timeout is too short", d)
				}
			}},
		{name: "late assessment that can never be matched",
			evs:  []Event{bEv(0, 5), aEv(t, 1, 5, known), aEv(t, 2, 3, known)},
			want: []string{"decide 5 proceed with", "reject late_assessment 3"}},
		{name: "identical belief repeat while pending",
			evs:  []Event{bEv(0, 1), bEv(1, 1)},
			want: []string{"dup belief 1"}},
		{name: "conflicting belief while pending: the first stands",
			evs:  []Event{bEv(0, 1), mod(1, func(b *decisions.Belief) { b.Flight.BatteryV = 9 }), aEv(t, 2, 1, known)},
			want: []string{"reject conflicting_belief 1", "decide 1 proceed with"},
			check: func(t *testing.T, l *Loop, outs []Output) {
				if v := outs[2].Commands[0].Context.Flight.BatteryV; v != 15.2 {
					t.Errorf("context battery %v, want the first belief's 15.2", v)
				}
			}},
		{name: "identical belief repeat after the decision",
			evs:  []Event{bEv(0, 1), aEv(t, 1, 1, known), bEv(2, 1)},
			want: []string{"decide 1 proceed with", "dup belief 1"}},
		{name: "conflicting belief after the decision",
			evs:  []Event{bEv(0, 1), aEv(t, 1, 1, known), mod(1, func(b *decisions.Belief) { b.Mission.Progress = 0.5 })},
			want: []string{"decide 1 proceed with", "reject conflicting_belief 1"}},
		{name: "identical assessment repeat while held",
			evs:  []Event{aEv(t, 0, 1, known), aEv(t, 1, 1, known)},
			want: []string{"dup assessment 1"}},
		{name: "conflicting assessment while held: the first stands",
			evs:  []Event{aEv(t, 0, 1, known), aEv(t, 1, 1, unknown), bEv(2, 1)},
			want: []string{"reject conflicting_assessment 1", "decide 1 proceed with"}},
		{name: "identical assessment repeat after the decision",
			evs:  []Event{bEv(0, 1), aEv(t, 1, 1, known), aEv(t, 2, 1, known)},
			want: []string{"decide 1 proceed with", "dup assessment 1"}},
		{name: "conflicting assessment after the decision",
			evs:  []Event{bEv(0, 1), aEv(t, 1, 1, known), aEv(t, 2, 1, uncertain)},
			want: []string{"decide 1 proceed with", "reject conflicting_assessment 1"}},
		{name: "NaN orientation is invalid",
			evs:   []Event{mod(1, func(b *decisions.Belief) { b.OrientationQ[0] = nan })},
			want:  []string{"reject invalid_belief 1"},
			check: wantDetail(0, "orientation_q"),
		},
		{name: "covariance of the wrong length is invalid",
			evs: []Event{mod(1, func(b *decisions.Belief) {
				b.Covariance = make([]float64, decisions.CovarianceLen-1)
			})},
			want:  []string{"reject invalid_belief 1"},
			check: wantDetail(0, "covariance_15x15 = \"224 values\"")},
		{name: "NaN covariance entry is judged by Belief.Validate",
			evs: []Event{nanCov, aEv(t, 1, 1, unknown)},
			want: func() []string {
				b := nanCov.(BeliefEvent).Belief
				if b.Validate() != nil {
					return []string{"reject invalid_belief 1"}
				}
				return []string{"decide 1 abstain_uncertain with"}
			}()},
		{name: "NaN progress is invalid",
			evs:   []Event{mod(1, func(b *decisions.Belief) { b.Mission.Progress = nan })},
			want:  []string{"reject invalid_belief 1"},
			check: wantDetail(0, "MissionStatus.progress = NaN")},
		{name: "NaN battery means unknown and is accepted",
			evs: []Event{mod(1, func(b *decisions.Belief) { b.Flight.BatteryV, b.Flight.BatteryPct = nan, nan }),
				aEv(t, 1, 1, uncertain)},
			want: []string{"decide 1 hold with"}},
		{name: "NaN standard deviations (none) are accepted",
			evs:  []Event{bEv(0, 1), AssessmentEvent{ArrivalNs: 1, Assessment: noCov}},
			want: []string{"decide 1 abstain_uncertain with"}},
		{name: "NaN threshold is invalid",
			evs:   []Event{modA(1, known, func(a *decisions.SelfAssessment) { a.ThresholdsUsed.PositionKnownStdM = nan })},
			want:  []string{"reject invalid_assessment 1"},
			check: wantDetail(0, "position_known_std_m = NaN")},
		{name: "out-of-range enums are invalid",
			evs: []Event{
				mod(1, func(b *decisions.Belief) { b.Flight.Mode = 7 }),
				mod(2, func(b *decisions.Belief) { b.Mission.Mode = 9 }),
				modA(3, known, func(a *decisions.SelfAssessment) { a.AxisLevel[4] = 3 }),
				modA(4, known, func(a *decisions.SelfAssessment) { a.OverallLevel = 200 }),
				pEv(0, 5, 8),
			},
			want: []string{"reject invalid_belief 1", "reject invalid_belief 2", "reject invalid_assessment 3",
				"reject invalid_assessment 4", "reject invalid_perception 5"},
			check: func(t *testing.T, l *Loop, outs []Output) {
				for i, field := range []string{"flight_mode = 7", "mode = 9", "velocity_axis_y_level = 3", "overall_level = 200", "PerceptionMode.mode = 8"} {
					if d := outs[i].Rejections[0].Detail; !strings.Contains(d, field) {
						t.Errorf("event %d: detail %q does not name %q", i, d, field)
					}
				}
				if s := l.Sizes(); s != (LoopSizes{}) {
					t.Errorf("invalid inputs were kept: %+v", s)
				}
			}},
		{name: "negative stamps are invalid",
			evs:  []Event{bEv(0, -1), aEvRaw(t, -1), pEv(0, -1, 0)},
			want: []string{"reject invalid_belief -1", "reject invalid_assessment -1", "reject invalid_perception -1"}},
		{name: "stamp 0",
			evs:  []Event{bEv(0, 0), aEv(t, 1, 0, known), bEv(2, 0), aEv(t, 3, 0, known)},
			want: []string{"decide 0 proceed with", "dup belief 0", "dup assessment 0"}},
		{name: "stamp 2^63-1",
			evs:  []Event{bEv(0, maxStamp), aEv(t, 1, maxStamp, known), bEv(2, maxStamp), bEv(3, maxStamp-1), aEv(t, 4, maxStamp-1, known)},
			want: []string{"decide 9223372036854775807 proceed with", "dup belief 9223372036854775807", "reject late_belief 9223372036854775806", "reject late_assessment 9223372036854775806"}},
		{name: "extreme arrival times do not overflow",
			evs: []Event{bEv(math.MinInt64, 0), aEv(t, math.MinInt64, 0, known), bEv(math.MinInt64, 1),
				TickEvent{math.MinInt64 + 100*ms - 1}, TickEvent{math.MaxInt64}},
			want: []string{"decide 0 proceed with", "decide 1 abstain_uncertain without:timeout"},
			check: func(t *testing.T, l *Loop, outs []Output) {
				if len(outs[3].Commands) != 0 {
					t.Error("decided before the timeout")
				}
			}},
		{name: "arrival going backwards is clamped to the newest seen",
			evs:  []Event{TickEvent{1000 * ms}, bEv(0, 0), aEv(t, 0, 0, known), bEv(0, 1), TickEvent{1099 * ms}, TickEvent{1100 * ms}},
			want: []string{"decide 0 proceed with", "decide 1 abstain_uncertain without:timeout"},
			check: func(t *testing.T, l *Loop, outs []Output) {
				if len(outs[4].Commands) != 0 {
					t.Error("the belief's unclamped arrival 0 was used for its timeout")
				}
			}},
		{name: "perception as-of join",
			evs: []Event{pEv(0, 10, decisions.PerceptionLowLight), pEv(1, 20, decisions.PerceptionNominal),
				bEv(2, 5), aEv(t, 3, 5, known), bEv(4, 10), aEv(t, 5, 10, known),
				bEv(6, 15), aEv(t, 7, 15, known), bEv(8, 25), aEv(t, 9, 25, known)},
			want: []string{"decide 5 proceed with", "decide 10 proceed with perception low_light@10",
				"decide 15 proceed with perception low_light@10", "decide 25 proceed with perception nominal@20"},
			check: func(t *testing.T, l *Loop, _ []Output) {
				if s := l.Sizes(); s.PerceptionHistory != 1 || s.PerceptionMemory != 1 {
					t.Errorf("history %d memory %d, want the as-of report kept and the older one remembered", s.PerceptionHistory, s.PerceptionMemory)
				}
			}},
		{name: "perception arriving while its belief waits is used",
			evs:  []Event{bEv(0, 10), pEv(1, 5, decisions.PerceptionVIOLost), aEv(t, 2, 10, known)},
			want: []string{"decide 10 proceed with perception vio_lost@5"}},
		{name: "perception newer than the belief is not used",
			evs:  []Event{bEv(0, 10), pEv(1, 11, decisions.PerceptionVIOLost), aEv(t, 2, 10, known)},
			want: []string{"decide 10 proceed with"}},
		{name: "late perception: it would have changed a decision",
			evs: []Event{pEv(0, 3, decisions.PerceptionNominal), bEv(1, 10), aEv(t, 2, 10, known),
				pEv(3, 5, decisions.PerceptionDead), pEv(4, 10, decisions.PerceptionDead)},
			want: []string{"decide 10 proceed with perception nominal@3", "reject late_perception 5", "reject late_perception 10"}},
		{name: "late perception before any report",
			evs:  []Event{bEv(0, 10), aEv(t, 1, 10, known), pEv(2, 5, decisions.PerceptionDead)},
			want: []string{"decide 10 proceed with", "reject late_perception 5"}},
		{name: "stale perception changes nothing",
			evs:  []Event{pEv(0, 10, decisions.PerceptionNominal), bEv(1, 20), aEv(t, 2, 20, known), pEv(3, 5, decisions.PerceptionDead)},
			want: []string{"decide 20 proceed with perception nominal@10", "reject stale_perception 5"}},
		{name: "perception repeats after the decision",
			evs: []Event{pEv(0, 10, decisions.PerceptionNominal), pEv(1, 20, decisions.PerceptionLowLight),
				bEv(2, 25), aEv(t, 3, 25, known),
				pEv(4, 10, decisions.PerceptionNominal), pEv(5, 10, decisions.PerceptionDead), pEv(6, 20, decisions.PerceptionLowLight)},
			want: []string{"decide 25 proceed with perception low_light@20", "dup perception 10",
				"reject conflicting_perception 10", "dup perception 20"}},
		{name: "perception older than the decided memory may have applied: late, not stale",
			opts: LoopOptions{MaxDecidedMemory: 1},
			evs: []Event{pEv(0, 10, decisions.PerceptionNominal), bEv(1, 20), aEv(t, 2, 20, known),
				pEv(3, 25, decisions.PerceptionLowLight), bEv(4, 30), aEv(t, 5, 30, known),
				pEv(6, 15, decisions.PerceptionDead), pEv(7, 22, decisions.PerceptionDead)},
			want: []string{"decide 20 proceed with perception nominal@10", "decide 30 proceed with perception low_light@25",
				"reject late_perception 15", "reject stale_perception 22"}},
		{name: "a repeat of a forgotten decision is late",
			opts: LoopOptions{MaxDecidedMemory: 1},
			evs:  []Event{bEv(0, 1), aEv(t, 1, 1, known), bEv(2, 2), aEv(t, 3, 2, known), bEv(4, 1), bEv(5, 2), aEv(t, 6, 1, known)},
			want: []string{"decide 1 proceed with", "decide 2 proceed with", "reject late_belief 1", "dup belief 2", "reject late_assessment 1"}},
		{name: "perception conflict while in the history",
			evs:  []Event{pEv(0, 10, decisions.PerceptionNominal), pEv(1, 10, decisions.PerceptionLowLight), pEv(2, 10, decisions.PerceptionNominal)},
			want: []string{"reject conflicting_perception 10", "dup perception 10"}},
		{name: "assessment buffer full drops the oldest stamp",
			opts: LoopOptions{MaxPendingAssessments: 2},
			evs:  []Event{aEv(t, 0, 1, known), aEv(t, 1, 2, known), aEv(t, 2, 3, known), bEv(3, 1), bEv(4, 2)},
			want: []string{"reject assessment_buffer_full 1", "decide 1 abstain_uncertain without:newer_assessment", "decide 2 proceed with"}},
		{name: "assessment buffer full: a new oldest stamp is the one dropped",
			opts: LoopOptions{MaxPendingAssessments: 2},
			evs:  []Event{aEv(t, 0, 2, known), aEv(t, 1, 3, known), aEv(t, 2, 1, known)},
			want: []string{"reject assessment_buffer_full 1"}},
		{name: "unmatched assessment is dropped once decisions pass it",
			evs:  []Event{aEv(t, 0, 5, known), bEv(1, 10), TickEvent{100*ms + 1}},
			want: []string{"decide 10 abstain_uncertain without:timeout", "reject unmatched_assessment 5"},
			check: func(t *testing.T, l *Loop, _ []Output) {
				if s := l.Sizes(); s.HeldAssessments != 0 {
					t.Errorf("held %d assessments, want 0", s.HeldAssessments)
				}
			}},
		{name: "perception buffer full drops the oldest",
			opts: LoopOptions{MaxPerceptionReports: 2},
			evs:  []Event{pEv(0, 1, 0), pEv(1, 2, 0), pEv(2, 3, 0)},
			want: []string{"reject perception_buffer_full 1"}},
		{name: "inconsistent assessment accepted as the reference accepts it",
			evs:  []Event{modA(1, unknown, func(a *decisions.SelfAssessment) { a.OverallLevel = known }), bEv(1, 1)},
			want: []string{"decide 1 proceed with"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustLoop(t, tc.opts)
			got, outs := run(t, l, tc.evs)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
			checkSizes(t, l)
			for _, out := range outs {
				checkCommands(t, &out)
			}
			if tc.check != nil && !t.Failed() {
				tc.check(t, l, outs)
			}
		})
	}
}

func time100() int64 { return 100 * ms }

// aEvRaw returns an assessment event with an arbitrary (possibly invalid)
// stamp, bypassing the classifier's own stamp check.
func aEvRaw(t testing.TB, stamp int64) Event {
	a := assessment(t, 0, known)
	a.BeliefStampSimNs = stamp
	return AssessmentEvent{Assessment: a}
}

// wantDetail checks that the first rejection of event i names text.
func wantDetail(i int, text string) func(*testing.T, *Loop, []Output) {
	return func(t *testing.T, _ *Loop, outs []Output) {
		if d := outs[i].Rejections[0].Detail; !strings.Contains(d, text) {
			t.Errorf("detail %q does not contain %q", d, text)
		}
	}
}

// checkCommands verifies what every command must satisfy whatever the
// rule: the reference decision for its context, the policy id, and the
// hash of exactly the assessment it carries.
func checkCommands(t testing.TB, out *Output) {
	t.Helper()
	for _, c := range out.Commands {
		want, err := decisions.ReferencePolicy{}.Decide(c.Context)
		if err != nil || want != c.Decision || c.Rationale.Decision != c.Decision {
			t.Errorf("command %s: reference decides %s (%v)", c.Decision, want, err)
		}
		if c.PolicyID != decisions.ReferencePolicyID || c.Rationale.PolicyID != c.PolicyID {
			t.Errorf("command %s: policy %q/%q", c.Decision, c.PolicyID, c.Rationale.PolicyID)
		}
		wantHash := ""
		if a := c.Context.SelfAssessment; a != nil {
			wantHash = a.SHA256()
			if a.BeliefStampSimNs != c.Decision.DecisionStampSimNs {
				t.Errorf("command %s carries the assessment of %d", c.Decision, a.BeliefStampSimNs)
			}
		}
		if c.Rationale.SelfAssessmentSHA256 != wantHash {
			t.Errorf("command %s: hash %q, want %q", c.Decision, c.Rationale.SelfAssessmentSHA256, wantHash)
		}
	}
}

func TestNewLoopOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    LoopOptions
		wantErr string
	}{
		{"zero value is the default", LoopOptions{}, ""},
		{"negative timeout", LoopOptions{AssessmentTimeout: -1}, "AssessmentTimeout = -1ns"},
		{"negative pending", LoopOptions{MaxPendingBeliefs: -2}, "MaxPendingBeliefs = -2"},
		{"negative held", LoopOptions{MaxPendingAssessments: -3}, "MaxPendingAssessments = -3"},
		{"negative perception", LoopOptions{MaxPerceptionReports: -4}, "MaxPerceptionReports = -4"},
		{"negative memory", LoopOptions{MaxDecidedMemory: -5}, "MaxDecidedMemory = -5"},
		{"bad policy id", LoopOptions{Policy: badIDPolicy{}}, `Policy.ID() = "Bad-ID"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := NewLoop(tc.opts)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if l.timeout != DefaultAssessmentTimeout || l.maxPending != DefaultMaxPendingBeliefs || l.maxHeld != DefaultMaxPendingAssessments ||
					l.maxPerception != DefaultMaxPerceptionReports || l.maxDecided != DefaultMaxDecidedMemory || l.PolicyID() != decisions.ReferencePolicyID {
					t.Errorf("defaults not applied: %+v", l)
				}
				return
			}
			if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want ErrOptions naming %q", err, tc.wantErr)
			}
		})
	}
}

type badIDPolicy struct{ decisions.ReferencePolicy }

func (badIDPolicy) ID() string { return "Bad-ID" }

func TestStepUnsupportedEvent(t *testing.T) {
	l := mustLoop(t, LoopOptions{})
	var out Output
	if err := l.Step(bEv(0, 1), &out); err != nil {
		t.Fatal(err)
	}
	before := stateDump(l)
	for _, ev := range []Event{nil, &TickEvent{ArrivalNs: 200 * ms}} {
		out.Duplicates = append(out.Duplicates, Duplicate{})
		err := l.Step(ev, &out)
		if !errors.Is(err, ErrUnsupportedEvent) {
			t.Errorf("Step(%T): %v, want ErrUnsupportedEvent", ev, err)
		}
		if len(out.Duplicates) != 0 {
			t.Error("out not reset")
		}
		if after := stateDump(l); after != before {
			t.Errorf("Step(%T) changed the session:\n%s\nwant\n%s", ev, after, before)
		}
	}
}

// TestLoopFailedStepLeavesStateUnchanged fails the policy on chosen stamps,
// including the second decision of a multi-decision step, and checks that
// the failed step changed nothing: the session dump is identical, and once
// the failure is lifted the same event gives exactly what a loop that never
// failed gives.
func TestLoopFailedStepLeavesStateUnchanged(t *testing.T) {
	evs := []Event{
		pEv(0, 1, decisions.PerceptionNominal),
		bEv(1, 2), bEv(2, 3), bEv(3, 4),
		aEv(t, 4, 9, known),    // held, releases 2, 3, 4 (fails on 3)
		aEv(t, 5, 10, unknown), // held
		pEv(6, 10, decisions.PerceptionLowLight),
		bEv(7, 10), // decided with its held assessment (fails)
		bEv(8, 12), bEv(9, 11), bEv(10, 13),
		EndEvent{11}, // decides 11, 12, 13 (fails on 12)
		bEv(12, 14),
		TickEvent{200 * ms}, // timeout of 14 (fails)
	}
	fail := map[int64]bool{3: true, 10: true, 12: true, 14: true}
	pol := &failingPolicy{fail: fail}
	l := mustLoop(t, LoopOptions{Policy: pol})
	ref := mustLoop(t, LoopOptions{Policy: &failingPolicy{}})
	failures := 0
	for i, ev := range evs {
		var want, out Output
		if err := ref.Step(ev, &want); err != nil {
			t.Fatal(err)
		}
		before := stateDump(l)
		pol.armed = true
		err := l.Step(ev, &out)
		pol.armed = false
		if err != nil {
			failures++
			if !errors.Is(err, ErrDecide) {
				t.Errorf("event %d: %v, want ErrDecide", i, err)
			}
			if len(out.Commands)+len(out.Rejections)+len(out.Duplicates) != 0 {
				t.Errorf("event %d: failed step left output %v", i, describe(&out))
			}
			if after := stateDump(l); after != before {
				t.Fatalf("event %d: failed step changed the session:\n%s\nwant\n%s", i, after, before)
			}
			if err := l.Step(ev, &out); err != nil {
				t.Fatalf("event %d retried: %v", i, err)
			}
		}
		if g, w := describe(&out), describe(&want); !slices.Equal(g, w) {
			t.Errorf("event %d: got %v, want %v", i, g, w)
		}
	}
	if failures != len(fail) {
		t.Errorf("%d steps failed, want %d", failures, len(fail))
	}
	if stateDump(l) != stateDump(ref) {
		t.Errorf("sessions diverged:\n%s\nvs\n%s", stateDump(l), stateDump(ref))
	}
}

// TestOutputReuse checks that a reused Output is reset by Step and that a
// cloned Command survives later steps.
func TestOutputReuse(t *testing.T) {
	l := mustLoop(t, LoopOptions{})
	var out Output
	for _, ev := range []Event{pEv(0, 0, decisions.PerceptionLowTexture), bEv(0, 1), aEv(t, 1, 1, known)} {
		if err := l.Step(ev, &out); err != nil {
			t.Fatal(err)
		}
	}
	if len(out.Commands) != 1 {
		t.Fatalf("commands %v", describe(&out))
	}
	kept := out.Commands[0].Clone()
	raw := out.Commands[0]
	for _, ev := range []Event{bEv(2, 2), aEv(t, 3, 2, unknown), pEv(4, 2, decisions.PerceptionDead), bEv(5, 3), aEv(t, 6, 3, uncertain)} {
		if err := l.Step(ev, &out); err != nil {
			t.Fatal(err)
		}
	}
	if kept.Context.SelfAssessment.BeliefStampSimNs != 1 || kept.Context.SelfAssessment.OverallLevel != known ||
		kept.Context.Perception.Mode != decisions.PerceptionLowTexture {
		t.Errorf("clone changed: %+v %+v", kept.Context.SelfAssessment, kept.Context.Perception)
	}
	if raw.Context.SelfAssessment == kept.Context.SelfAssessment {
		t.Error("clone shares the assessment")
	}
	if len(out.Commands) != 1 || out.Commands[0].Decision.DecisionStampSimNs != 3 {
		t.Errorf("reused output holds %v", describe(&out))
	}
}
