package engine

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLoopStampPlausibility(t *testing.T) {
	const sec = int64(time.Second)
	const far = math.MaxInt64 - 1 // a sentinel stamp, 2^63-2
	const flipped = 1<<40 + 20*ms // stamp 20 ms with bit 40 flipped
	tests := []struct {
		name  string
		opts  LoopOptions
		evs   []Event
		want  []string
		check func(t *testing.T, l *Loop, outs []Output)
	}{
		{name: "a belief far ahead is rejected and does not silence the stream",
			evs: []Event{bEv(0, 0), aEv(t, 0, 0, known), bEv(20*ms, far), aEv(t, 21*ms, far, known),
				bEv(40*ms, 40*ms), aEv(t, 41*ms, 40*ms, known), bEv(60*ms, 60*ms), aEv(t, 61*ms, 60*ms, known)},
			want: []string{"decide 0 proceed with", "reject implausible_belief_stamp 9223372036854775806",
				"reject implausible_assessment_stamp 9223372036854775806", "decide 40000000 proceed with", "decide 60000000 proceed with"},
			check: func(t *testing.T, l *Loop, outs []Output) {
				d := outs[2].Rejections[0].Detail
				if !strings.Contains(d, "VehicleState.stamp_sim_ns = 9223372036854775806") || !strings.Contains(d, "MaxStampLead") {
					t.Errorf("detail %q should name the field, the value and the window", d)
				}
			}},
		{name: "a flipped high bit in a belief stamp",
			evs: []Event{bEv(0, 0), aEv(t, 0, 0, known), bEv(20*ms, flipped), aEv(t, 21*ms, 20*ms, known),
				TickEvent{200 * ms}, bEv(220*ms, 40*ms), aEv(t, 221*ms, 40*ms, known)},
			want: []string{"decide 0 proceed with", "reject implausible_belief_stamp 1099531627776",
				"decide 40000000 proceed with", "reject unmatched_assessment 20000000"}},
		{name: "an assessment far ahead cannot make every belief go without its own",
			evs: []Event{bEv(0, 0), aEv(t, 0, 0, known), aEv(t, 10*ms, far, known),
				bEv(20*ms, 20*ms), aEv(t, 21*ms, 20*ms, known)},
			want: []string{"decide 0 proceed with", "reject implausible_assessment_stamp 9223372036854775806", "decide 20000000 proceed with"}},
		{name: "inside the window is accepted",
			evs:  []Event{bEv(0, 0), aEv(t, 0, 0, known), bEv(ms, 10*sec), aEv(t, ms, 10*sec, known)},
			want: []string{"decide 0 proceed with", "decide 10000000000 proceed with"}},
		{name: "the window grows with the arrival time elapsed",
			evs:  []Event{bEv(0, 0), aEv(t, 0, 0, known), bEv(300*sec, 305*sec), aEv(t, 300*sec, 305*sec, known)},
			want: []string{"decide 0 proceed with", "decide 305000000000 proceed with"}},
		{name: "a configured window",
			opts: LoopOptions{MaxStampLead: time.Second},
			evs:  []Event{bEv(0, 0), aEv(t, 0, 0, known), bEv(ms, 2*sec), bEv(2*ms, 3*ms), aEv(t, 2*ms, 3*ms, known)},
			want: []string{"decide 0 proceed with", "reject implausible_belief_stamp 2000000000", "decide 3000000 proceed with"}},
		{name: "a genuine jump is believed after three agreeing inputs",
			evs: []Event{bEv(0, 0), aEv(t, 0, 0, known),
				bEv(ms, 3600*sec), aEv(t, 2*ms, 3600*sec, known), bEv(20*ms, 3600*sec+20*ms), aEv(t, 21*ms, 3600*sec+20*ms, known),
				bEv(40*ms, 3600*sec+40*ms), aEv(t, 41*ms, 3600*sec+40*ms, known)},
			want: []string{"decide 0 proceed with",
				"reject implausible_belief_stamp 3600000000000", "reject implausible_assessment_stamp 3600000000000",
				"decide 3600020000000 proceed with", "decide 3600040000000 proceed with"}},
		{name: "scattered corrupt stamps never add up to a jump",
			evs: []Event{bEv(0, 0), aEv(t, 0, 0, known), bEv(ms, far), bEv(2*ms, flipped), aEv(t, 3*ms, far/2, known),
				bEv(20*ms, 20*ms), aEv(t, 21*ms, 20*ms, known)},
			want: []string{"decide 0 proceed with", "reject implausible_belief_stamp 9223372036854775806",
				"reject implausible_belief_stamp 1099531627776", "reject implausible_assessment_stamp 4611686018427387903",
				"decide 20000000 proceed with"}},
		{name: "a plausible input in between resets the count",
			evs: []Event{bEv(0, 0), aEv(t, 0, 0, known), bEv(ms, 3600*sec), aEv(t, 2*ms, 3600*sec, known),
				bEv(20*ms, 20*ms), bEv(30*ms, 3600*sec+20*ms), aEv(t, 31*ms, 20*ms, known)},
			want: []string{"decide 0 proceed with", "reject implausible_belief_stamp 3600000000000",
				"reject implausible_assessment_stamp 3600000000000", "reject implausible_belief_stamp 3600020000000", "decide 20000000 proceed with"}},
		{name: "a first belief far ahead is dropped when the stream starts",
			evs: []Event{bEv(0, far), TickEvent{sec}, bEv(sec+10*ms, 0), aEv(t, sec+11*ms, 0, known),
				bEv(sec+20*ms, 20*ms), aEv(t, sec+21*ms, 20*ms, known)},
			want: []string{"decide 0 proceed with", "reject implausible_belief_stamp 9223372036854775806", "decide 20000000 proceed with"},
			check: func(t *testing.T, l *Loop, outs []Output) {
				if len(outs[1].Commands) != 0 || len(outs[2].Commands) != 0 {
					t.Error("the first belief was decided before anything corroborated it")
				}
			}},
		{name: "a first assessment far ahead is dropped when the stream starts",
			evs: []Event{aEv(t, 0, far, known), bEv(10*ms, 0), TickEvent{200 * ms}, aEv(t, 201*ms, 0, known),
				bEv(220*ms, 20*ms), aEv(t, 221*ms, 20*ms, known)},
			want: []string{"decide 0 proceed with", "reject implausible_assessment_stamp 9223372036854775806", "decide 20000000 proceed with"}},
		{name: "the end of the stream decides an uncorroborated belief",
			evs:  []Event{bEv(0, 7), EndEvent{ms}},
			want: []string{"decide 7 abstain_uncertain without:end_of_stream"}},
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

func TestLoopOptionsMaxStampLead(t *testing.T) {
	if _, err := NewLoop(LoopOptions{MaxStampLead: -1}); err == nil || !strings.Contains(err.Error(), "MaxStampLead = -1ns") {
		t.Fatalf("negative MaxStampLead: %v", err)
	}
	if l := mustLoop(t, LoopOptions{}); l.maxLead != uint64(DefaultMaxStampLead) {
		t.Fatalf("default %d", l.maxLead)
	}
}
