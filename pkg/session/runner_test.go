package session

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// commandFor runs a belief (and an assessment of lvl unless withAssessment
// is false) through a fresh Loop and returns the single command, cloned.
func commandFor(t testing.TB, stamp int64, lvl decisions.Level, withAssessment bool) engine.Command {
	t.Helper()
	l := mustLoop(t, engine.LoopOptions{})
	evs := []engine.Event{pEv(0, 0, decisions.PerceptionLowLight), bEv(1, stamp)}
	if withAssessment {
		evs = append(evs, aEv(t, 2, stamp, lvl))
	} else {
		evs = append(evs, engine.EndEvent{ArrivalNs: 2})
	}
	_, outs := run(t, l, evs)
	last := outs[len(outs)-1]
	if len(last.Commands) != 1 {
		t.Fatalf("want one command, got %v", describe(&last))
	}
	return last.Commands[0].Clone()
}

// TestRunnerProvenance breaks each provenance rule in a Command built by
// hand from a valid one: the Runner refuses it with that rule and writes
// nothing to any sink.
func TestRunnerProvenance(t *testing.T) {
	other := assessment(t, 7, uncertain)
	tests := []struct {
		name     string
		without  bool // start from a decision without assessment
		expected string
		mutate   func(c *engine.Command)
		rule     engine.ProvenanceRule
		detail   string
	}{
		{name: "valid with assessment", mutate: func(*engine.Command) {}},
		{name: "valid without assessment", without: true, mutate: func(*engine.Command) {}},
		{name: "kind outside the catalog", rule: engine.RuleDecision, detail: "Decision.kind = 7",
			mutate: func(c *engine.Command) { c.Decision.Kind, c.Rationale.Decision.Kind = 7, 7 }},
		{name: "reason not an identifier", rule: engine.RuleDecision, detail: `Decision.reason = "Overall Known"`,
			mutate: func(c *engine.Command) {
				c.Decision.Reason, c.Rationale.Decision.Reason = "Overall Known", "Overall Known"
			}},
		{name: "policy id not an identifier", rule: engine.RuleRationale, detail: "policy_id",
			mutate: func(c *engine.Command) { c.Rationale.PolicyID, c.PolicyID = "9lives", "9lives" }},
		{name: "hash not hex", rule: engine.RuleRationale, detail: "self_assessment_sha256",
			mutate: func(c *engine.Command) {
				c.Rationale.SelfAssessmentSHA256 = strings.ToUpper(c.Rationale.SelfAssessmentSHA256)
			}},
		{name: "rationale names another decision", rule: engine.RuleRationaleDecision, detail: "hold@7",
			mutate: func(c *engine.Command) {
				c.Rationale.Decision.Kind, c.Rationale.Decision.Reason = decisions.KindHold, decisions.ReasonOverallUncertain
			}},
		{name: "rationale names another stamp", rule: engine.RuleRationaleDecision,
			mutate: func(c *engine.Command) { c.Rationale.BeliefStampSimNs, c.Rationale.Decision.DecisionStampSimNs = 8, 8 }},
		{name: "decision and rationale of another stamp than the context", rule: engine.RuleStamp, detail: "DecisionContext.belief_stamp_sim_ns = 7",
			mutate: func(c *engine.Command) {
				c.Decision.DecisionStampSimNs, c.Rationale.Decision.DecisionStampSimNs, c.Rationale.BeliefStampSimNs = 9, 9, 9
			}},
		{name: "context of another stamp", rule: engine.RuleStamp,
			mutate: func(c *engine.Command) { c.Context.BeliefStampSimNs = 6 }},
		{name: "context carries the assessment of another stamp", rule: engine.RuleStamp, detail: "self_assessment.belief_stamp_sim_ns = 3",
			mutate: func(c *engine.Command) {
				a := assessment(t, 3, known)
				c.Context.SelfAssessment = &a
			}},
		{name: "hash of another assessment", rule: engine.RuleAssessmentHash, detail: other.SHA256(),
			mutate: func(c *engine.Command) { c.Context.SelfAssessment = &other }},
		{name: "assessment changed after the decision", rule: engine.RuleAssessmentHash,
			mutate: func(c *engine.Command) { c.Context.SelfAssessment.Std[4] = 0.01 }},
		{name: "empty hash with an assessment", rule: engine.RuleAssessmentHash,
			mutate: func(c *engine.Command) { c.Rationale.SelfAssessmentSHA256 = "" }},
		{name: "hash without an assessment", without: true, rule: engine.RuleAssessmentHash, detail: "must be empty",
			mutate: func(c *engine.Command) { c.Rationale.SelfAssessmentSHA256 = other.SHA256() }},
		{name: "without-assessment reason with an assessment", rule: engine.RuleWithoutAssessment,
			mutate: func(c *engine.Command) { c.WithoutAssessment = engine.WithoutTimeout }},
		{name: "without-assessment reason out of range", without: true, rule: engine.RuleWithoutAssessment, detail: "WithoutAssessment = 9",
			mutate: func(c *engine.Command) { c.WithoutAssessment = 9 }},
		{name: "no without-assessment reason and no assessment", without: true, rule: engine.RuleWithoutAssessment,
			mutate: func(c *engine.Command) { c.WithoutAssessment = engine.WithoutNone }},
		{name: "rationale claims another policy", rule: engine.RulePolicyID, detail: `"other_policy"`,
			mutate: func(c *engine.Command) { c.Rationale.PolicyID = "other_policy" }},
		{name: "command claims another policy", rule: engine.RulePolicyID,
			mutate: func(c *engine.Command) { c.PolicyID = "other_policy" }},
		{name: "policy other than the expected one", rule: engine.RulePolicyID, expected: "calibrated_v2", detail: "only \"calibrated_v2\"",
			mutate: func(*engine.Command) {}},
		{name: "the expected policy", expected: decisions.ReferencePolicyID, mutate: func(*engine.Command) {}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := commandFor(t, 7, known, !tc.without)
			tc.mutate(&cmd)
			r := NewRunner(RunnerOptions{ExpectedPolicyID: tc.expected})
			a, b := &memorySink{}, &memorySink{}
			mustRegister(t, r, "a", a)
			mustRegister(t, r, "b", b)
			res := r.Execute(cmd)
			c := r.Counters()
			if tc.rule == "" {
				if res.Err != nil || len(res.Receipts) != 2 || len(a.Records()) != 1 || len(b.Records()) != 1 {
					t.Fatalf("valid command: err %v, receipts %v", res.Err, res.Receipts)
				}
				if c.ProvenanceViolations != 0 || c.ReceiptsOK != 2 || c.DecisionsTotal() != 1 {
					t.Errorf("counters %+v", c)
				}
				return
			}
			var pe *engine.ProvenanceError
			if !errors.Is(res.Err, engine.ErrProvenance) || !errors.As(res.Err, &pe) {
				t.Fatalf("err %v, want a *ProvenanceError", res.Err)
			}
			if pe.Rule != tc.rule || !strings.Contains(pe.Detail, tc.detail) {
				t.Errorf("rule %s detail %q, want rule %s naming %q", pe.Rule, pe.Detail, tc.rule, tc.detail)
			}
			if len(res.Receipts) != 0 || len(a.Records())+len(b.Records()) != 0 {
				t.Errorf("violation wrote to sinks: receipts %v", res.Receipts)
			}
			if c.ProvenanceViolations != 1 || c.ContextsAssembled != 1 || c.DecisionsTotal() != 0 || c.ReceiptsOK != 0 {
				t.Errorf("counters %+v", c)
			}
		})
	}
}

func mustRegister(t testing.TB, r *Runner, id string, s Sink) {
	t.Helper()
	if err := r.Register(id, s); err != nil {
		t.Fatal(err)
	}
}

// closerSink records the order in which sinks are closed.
type closerSink struct {
	id     string
	log    *[]string
	err    error
	closed int
}

func (s *closerSink) Publish(engine.Command) error { return nil }

func (s *closerSink) Close() error {
	s.closed++
	*s.log = append(*s.log, s.id)
	return s.err
}

// TestRunnerFailingSinks checks that every sink is called whatever the
// others do, that failures are classified, and that counters add up.
func TestRunnerFailingSinks(t *testing.T) {
	r := NewRunner(RunnerOptions{})
	first, last, closed := &memorySink{}, &memorySink{}, &memorySink{}
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	diskFull := errors.New("no space left on device")
	mustRegister(t, r, "ros", first)
	mustRegister(t, r, "encoder", FuncSink(func(cmd engine.Command) error {
		return fmt.Errorf("encode %s: %w", cmd.Decision, ErrEncoding)
	}))
	mustRegister(t, r, "disk", FuncSink(func(engine.Command) error { return diskFull }))
	mustRegister(t, r, "closed", closed)
	mustRegister(t, r, "typed", FuncSink(func(engine.Command) error {
		return &SinkError{SinkID: "inner", Kind: FailureEncoding, Err: errors.New("bad schema")}
	}))
	mustRegister(t, r, "json", newJSONLinesSink(io.Discard))
	mustRegister(t, r, "memory", last)

	wantIDs := []string{"ros", "encoder", "disk", "closed", "typed", "json", "memory"}
	wantKinds := map[string]error{"encoder": ErrEncoding, "disk": ErrTransport, "closed": ErrSinkClosed, "typed": ErrEncoding}
	cmds := []engine.Command{commandFor(t, 1, known, true), commandFor(t, 2, uncertain, true), commandFor(t, 3, known, false)}
	for _, cmd := range cmds {
		res := r.Execute(cmd)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		var ids []string
		for _, rc := range res.Receipts {
			ids = append(ids, rc.SinkID)
			if rc.Stamp != cmd.Decision.DecisionStampSimNs {
				t.Errorf("receipt %s stamp %d, want %d", rc.SinkID, rc.Stamp, cmd.Decision.DecisionStampSimNs)
			}
			want := wantKinds[rc.SinkID]
			var se *SinkError
			switch {
			case want == nil && rc.Err != nil:
				t.Errorf("sink %s failed: %v", rc.SinkID, rc.Err)
			case want != nil && (!errors.Is(rc.Err, want) || !errors.As(rc.Err, &se) || se.SinkID != rc.SinkID):
				t.Errorf("sink %s: %v, want a *SinkError of this sink matching %v", rc.SinkID, rc.Err, want)
			}
		}
		if !slices.Equal(ids, wantIDs) {
			t.Errorf("receipts for %v, want %v", ids, wantIDs)
		}
		if err := res.Errors(); !errors.Is(err, diskFull) || !errors.Is(err, ErrSinkClosed) {
			t.Errorf("joined errors %v miss a failure", err)
		}
	}
	if n := len(last.Records()); n != len(cmds) {
		t.Errorf("the last sink got %d decisions, want %d", n, len(cmds))
	}
	c := r.Counters()
	wantFailures := []SinkCount{{"closed", 3}, {"disk", 3}, {"encoder", 3}, {"json", 0}, {"memory", 0}, {"ros", 0}, {"typed", 3}}
	if !slices.Equal(c.SinkFailures, wantFailures) {
		t.Errorf("per-sink failures %v, want %v", c.SinkFailures, wantFailures)
	}
	if c.SinkFailuresByKind != [NumFailureKinds]uint64{6, 3, 3} {
		t.Errorf("failures by kind %v, want encoding 6 transport 3 closed 3", c.SinkFailuresByKind)
	}
	if c.ReceiptsOK != 9 || c.ContextsAssembled != 3 || c.Decisions[decisions.KindProceed] != 1 ||
		c.Decisions[decisions.KindHold] != 1 || c.Decisions[decisions.KindAbstainUncertain] != 1 ||
		c.WithoutAssessment != 1 || c.WithoutAssessmentBy[engine.WithoutEndOfStream] != 1 {
		t.Errorf("counters %+v", c)
	}
}

func TestRunnerRegister(t *testing.T) {
	r := NewRunner(RunnerOptions{})
	mustRegister(t, r, "a", &memorySink{})
	for _, tc := range []struct {
		id   string
		sink Sink
		want string
	}{
		{"", &memorySink{}, "empty sink id"},
		{"a", &memorySink{}, `"a": id already registered`},
		{"b", nil, "nil sink"},
	} {
		if err := r.Register(tc.id, tc.sink); !errors.Is(err, ErrRunner) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Register(%q): %v, want %q", tc.id, err, tc.want)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("c", &memorySink{}); !errors.Is(err, ErrSinkClosed) {
		t.Errorf("Register after Close: %v", err)
	}
}

// TestRunnerClose checks reverse order, one close per sink even when
// registered twice, joined errors, idempotence, and closed receipts after.
func TestRunnerClose(t *testing.T) {
	var log []string
	s1 := &closerSink{id: "s1", log: &log}
	s2 := &closerSink{id: "s2", log: &log, err: errors.New("flush failed")}
	s3 := &closerSink{id: "s3", log: &log, err: errors.New("fsync failed")}
	called := 0
	r := NewRunner(RunnerOptions{})
	mustRegister(t, r, "s1", s1)
	mustRegister(t, r, "func", FuncSink(func(engine.Command) error { called++; return nil }))
	mustRegister(t, r, "s2", s2)
	mustRegister(t, r, "s1-again", s1)
	mustRegister(t, r, "s3", s3)

	err := r.Close()
	if !slices.Equal(log, []string{"s3", "s2", "s1"}) {
		t.Errorf("close order %v, want s3 s2 s1", log)
	}
	if s1.closed != 1 || s2.closed != 1 || s3.closed != 1 {
		t.Errorf("closed %d %d %d times, want once each", s1.closed, s2.closed, s3.closed)
	}
	if err == nil || !strings.Contains(err.Error(), "close sink s2: flush failed") || !strings.Contains(err.Error(), "close sink s3: fsync failed") {
		t.Errorf("Close: %v, want both failures named", err)
	}
	if err := r.Close(); err != nil || len(log) != 3 {
		t.Errorf("second Close: %v, closes %v", err, log)
	}

	res := r.Execute(commandFor(t, 1, known, true))
	if res.Err != nil || len(res.Receipts) != 5 || called != 0 {
		t.Fatalf("Execute after Close: %v, %d receipts, %d calls", res.Err, len(res.Receipts), called)
	}
	for _, rc := range res.Receipts {
		if !errors.Is(rc.Err, ErrSinkClosed) {
			t.Errorf("receipt %s after Close: %v", rc.SinkID, rc.Err)
		}
	}
	if c := r.Counters(); c.SinkFailuresByKind[FailureClosed] != 5 {
		t.Errorf("closed failures %d, want 5", c.SinkFailuresByKind[FailureClosed])
	}
}

// TestRunnerHandle drives Loop output through Handle and checks every
// counter against the events.
func TestRunnerHandle(t *testing.T) {
	l := mustLoop(t, engine.LoopOptions{})
	r := NewRunner(RunnerOptions{})
	sink := &memorySink{}
	mustRegister(t, r, "m", sink)
	evs := []engine.Event{
		bEv(0, 1), aEv(t, 1, 1, known), // proceed with
		bEv(2, 2), bEv(3, 2), // duplicate
		bEv(4, 3), aEv(t, 5, 3, unknown), // 2 without (newer), 3 abstain with
		bEv(6, 0),                                // late
		bEv(7, -5),                               // invalid
		bEv(8, 4), engine.EndEvent{ArrivalNs: 9}, // 4 without (end)
		aEv(t, 10, 4, uncertain), // late assessment
	}
	var out engine.Output
	for _, ev := range evs {
		if err := l.Step(ev, &out); err != nil {
			t.Fatal(err)
		}
		if err := r.Handle(&out); err != nil {
			t.Fatal(err)
		}
	}
	c := r.Counters()
	var want Counters
	want.ContextsAssembled = 4
	want.Decisions[decisions.KindProceed] = 1
	want.Decisions[decisions.KindAbstainUncertain] = 3
	want.WithoutAssessment = 2
	want.WithoutAssessmentBy[engine.WithoutNewerAssessment] = 1
	want.WithoutAssessmentBy[engine.WithoutEndOfStream] = 1
	want.Rejected[engine.RejectLateBelief] = 1
	want.Rejected[engine.RejectInvalidBelief] = 1
	want.Rejected[engine.RejectLateAssessment] = 1
	want.Duplicates = 1
	want.ReceiptsOK = 4
	want.SinkFailures = []SinkCount{{"m", 0}}
	if fmt.Sprint(c) != fmt.Sprint(want) {
		t.Errorf("counters\n%+v\nwant\n%+v", c, want)
	}
	if c.RejectedTotal() != 3 || len(sink.Records()) != 4 {
		t.Errorf("rejected %d, published %d", c.RejectedTotal(), len(sink.Records()))
	}

	bad := out
	bad.Commands = []engine.Command{commandFor(t, 9, known, true)}
	bad.Commands[0].PolicyID = "x"
	if err := r.Handle(&bad); !errors.Is(err, engine.ErrProvenance) {
		t.Errorf("Handle of a bad command: %v", err)
	}
}

// TestRunnerCountersConcurrent snapshots counters from another goroutine
// while the main one executes; run with -race.
func TestRunnerCountersConcurrent(t *testing.T) {
	r := NewRunner(RunnerOptions{})
	mustRegister(t, r, "a", nullSink{})
	cmd := commandFor(t, 1, known, true)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	var seen uint64
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			c := r.Counters()
			if c.ContextsAssembled < seen {
				t.Errorf("counter went backwards: %d < %d", c.ContextsAssembled, seen)
			}
			seen = c.ContextsAssembled
		}
	}()
	const n = 2000
	for i := 0; i < n; i++ {
		r.Execute(cmd)
		r.Reject(engine.Rejection{Reason: engine.RejectLateBelief})
		if i == n/2 {
			mustRegister(t, r, "b", &memorySink{})
		}
	}
	close(stop)
	wg.Wait()
	if c := r.Counters(); c.ContextsAssembled != n || c.Rejected[engine.RejectLateBelief] != n || len(c.SinkFailures) != 2 {
		t.Errorf("counters %+v", c)
	}
}

func TestLoopStampPlausibilityCounted(t *testing.T) {
	r := NewRunner(RunnerOptions{ExpectedPolicyID: "uncertainty_aware_reference_v1"})
	l := mustLoop(t, engine.LoopOptions{})
	var out engine.Output
	for _, ev := range []engine.Event{bEv(0, 0), aEv(t, 0, 0, known), bEv(ms, math.MaxInt64-1)} {
		if err := l.Step(ev, &out); err != nil {
			t.Fatal(err)
		}
		if err := r.Handle(&out); err != nil {
			t.Fatal(err)
		}
	}
	c := r.Counters()
	if c.Rejected[engine.RejectImplausibleBelief] != 1 || engine.RejectImplausibleBelief.String() != "implausible_belief_stamp" ||
		engine.RejectImplausibleBelief.Input() != engine.InputBelief || engine.RejectImplausibleAssessment.Input() != engine.InputAssessment {
		t.Fatalf("counters %v", c.Rejected)
	}
}

// TestSinksGetWholeCommands: a sink receives the command that passed
// provenance, so it knows why a decision has no assessment and which
// policy decided without asking the session.
func TestSinksGetWholeCommands(t *testing.T) {
	l := mustLoop(t, engine.LoopOptions{})
	r := NewRunner(RunnerOptions{})
	var got []string
	mustRegister(t, r, "f", FuncSink(func(cmd engine.Command) error {
		got = append(got, fmt.Sprintf("%d %s %s assessment:%v", cmd.Decision.DecisionStampSimNs, cmd.PolicyID,
			cmd.WithoutAssessment, cmd.Context.SelfAssessment != nil))
		return nil
	}))
	evs := []engine.Event{
		bEv(0, 1), aEv(t, 1, 1, known), bEv(2, 2), bEv(4, 3), aEv(t, 5, 3, unknown),
		bEv(8, 4), engine.EndEvent{ArrivalNs: 9},
	}
	var out engine.Output
	for _, ev := range evs {
		if err := l.Step(ev, &out); err != nil {
			t.Fatal(err)
		}
		if err := r.Handle(&out); err != nil {
			t.Fatal(err)
		}
	}
	p := decisions.ReferencePolicyID
	want := []string{
		"1 " + p + " none assessment:true",
		"2 " + p + " newer_assessment assessment:false",
		"3 " + p + " none assessment:true",
		"4 " + p + " end_of_stream assessment:false",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sink saw\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
