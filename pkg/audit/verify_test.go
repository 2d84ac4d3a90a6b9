package audit

import (
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// simulatedRecording returns the messages of a short simulated flight with
// its decisions, in log-time order.
func simulatedRecording(t *testing.T) []bag.Message {
	t.Helper()
	out, _, err := replayBytes(t, simSource(t, 3*time.Second, 50), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return drainSource(t, openBytes(t, out))
}

// editDecision rewrites the n-th decision with edit.
func editDecision(t *testing.T, msgs []bag.Message, n int, edit func(*ros2msg.DecisionRationale)) decisions.Rationale {
	t.Helper()
	for i := range msgs {
		if msgs[i].Topic != "/decisions" {
			continue
		}
		if n > 0 {
			n--
			continue
		}
		var w ros2msg.DecisionRationale
		if err := w.UnmarshalCDR(msgs[i].Data); err != nil {
			t.Fatal(err)
		}
		edit(&w)
		data, err := w.MarshalCDR()
		if err != nil {
			t.Fatal(err)
		}
		msgs[i].Data = data
		return ros2msg.RationaleFromWire(&w)
	}
	t.Fatal("no such decision")
	return decisions.Rationale{}
}

// firstDecisionWith returns the index (among decisions) of the first one
// whose hash is (or is not) empty.
func firstDecisionWith(t *testing.T, msgs []bag.Message, withHash bool) int {
	t.Helper()
	n := 0
	for _, m := range msgs {
		if m.Topic != "/decisions" {
			continue
		}
		var w ros2msg.DecisionRationale
		if err := w.UnmarshalCDR(m.Data); err != nil {
			t.Fatal(err)
		}
		if (w.SelfAssessmentSHA256 != "") == withHash {
			return n
		}
		n++
	}
	t.Fatal("no such decision")
	return -1
}

func TestVerifyFindsEveryKindOfProblem(t *testing.T) {
	tests := []struct {
		name    string
		tamper  func(t *testing.T, msgs []bag.Message) []bag.Message
		chain   ChainStatus
		rerun   RerunStatus
		finding Finding // "" when the recording passes
		want    string
	}{
		{"untouched", func(t *testing.T, m []bag.Message) []bag.Message { return m },
			ChainVerified, RerunMatched, "", ""},
		{"broken chain", func(t *testing.T, m []bag.Message) []bag.Message {
			editDecision(t, m, firstDecisionWith(t, m, true), func(w *ros2msg.DecisionRationale) {
				w.SelfAssessmentSHA256 = strings.Repeat("0", 64)
			})
			return m
		}, ChainBroken, RerunNoContext, FindingChainBroken, "hashes to"},
		{"assessment missing", func(t *testing.T, m []bag.Message) []bag.Message {
			var out []bag.Message
			for _, x := range m {
				if x.Topic != "/self_assessment" {
					out = append(out, x)
				}
			}
			return out
		}, ChainAssessmentMissing, RerunNoContext, FindingAssessmentMissing, "no self-assessment"},
		{"divergent decision", func(t *testing.T, m []bag.Message) []bag.Message {
			editDecision(t, m, firstDecisionWith(t, m, true), func(w *ros2msg.DecisionRationale) {
				w.Decision.Kind = ros2msg.DecisionKindEngageKill
				w.Decision.Reason = "felt_like_it"
			})
			return m
		}, ChainVerified, RerunDiverged, FindingDiverged, "re-run gives"},
		{"decision claims no assessment it had", func(t *testing.T, m []bag.Message) []bag.Message {
			editDecision(t, m, firstDecisionWith(t, m, true), func(w *ros2msg.DecisionRationale) {
				w.SelfAssessmentSHA256 = ""
			})
			return m
		}, ChainNoAssessmentClaimed, RerunDiverged, FindingDiverged, "re-run gives"},
		{"unknown policy", func(t *testing.T, m []bag.Message) []bag.Message {
			for i := 0; ; i++ {
				if !editsDecision(t, m, i, func(w *ros2msg.DecisionRationale) { w.PolicyID = "someone_elses_v2" }) {
					return m
				}
			}
		}, ChainVerified, RerunUnknownPolicy, FindingUnknownPolicy, "was not supplied"},
		{"stamp mismatch", func(t *testing.T, m []bag.Message) []bag.Message {
			editDecision(t, m, 3, func(w *ros2msg.DecisionRationale) { w.BeliefStampSimNs++ })
			return m
		}, ChainVerified, RerunMatched, FindingUndecodableDecision, ""},
		{"a decision dropped", func(t *testing.T, m []bag.Message) []bag.Message {
			return dropDecision(t, m, 5)
		}, ChainVerified, RerunMatched, FindingMissingDecision, ""},
		{"beliefs gone", func(t *testing.T, m []bag.Message) []bag.Message {
			var out []bag.Message
			for _, x := range m {
				if x.Topic != "/state/nav" {
					out = append(out, x)
				}
			}
			return out
		}, ChainVerified, RerunNoContext, FindingNoContext, "did not decide belief"},
		{"no decisions", func(t *testing.T, m []bag.Message) []bag.Message {
			var out []bag.Message
			for _, x := range m {
				if x.Topic != "/decisions" {
					out = append(out, x)
				}
			}
			return out
		}, 0, 0, FindingNoDecisions, ""},
		{"truncated decision", func(t *testing.T, m []bag.Message) []bag.Message {
			for i := range m {
				if m[i].Topic == "/decisions" {
					m[i].Data = m[i].Data[:len(m[i].Data)/2]
					break
				}
			}
			return m
		}, ChainVerified, RerunMatched, FindingUndecodableDecision, ""},
		{"decisions on another schema", func(t *testing.T, m []bag.Message) []bag.Message {
			for i := range m {
				if m[i].Topic == "/decisions" && i%2 == 0 {
					m[i].SchemaName = "other/msg/Thing"
					m[i].ChannelID = 99
				}
			}
			return m
		}, ChainVerified, RerunMatched, FindingUnreadableDecisionsChannel, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := tt.tamper(t, simulatedRecording(t))
			report, err := Verify(&sliceSource{msgs: msgs}, VerifyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if pass := tt.finding == ""; report.Passed() != pass || (report.Verdict == VerdictPass) != pass {
				t.Fatalf("verdict %s, want pass=%v: %v %+v %v", report.Verdict, pass, report.Reasons, report.Problems, report.Notes)
			}
			if tt.finding != "" && report.FindingCount(tt.finding) == 0 {
				t.Fatalf("finding %s not made: %v", tt.finding, report.Findings)
			}
			if tt.finding == FindingNoDecisions {
				return
			}
			if report.ChainCount(tt.chain) == 0 || report.RerunCount(tt.rerun) == 0 {
				t.Fatalf("no decision with chain %v / rerun %v: %v %v", tt.chain, tt.rerun, report.ByChain, report.ByRerun)
			}
			if tt.finding == "" && len(report.Problems)+len(report.Notes) != 0 {
				t.Fatalf("unexpected problems %+v %v", report.Problems, report.Notes)
			}
			if tt.want == "" {
				return
			}
			found := false
			for _, p := range report.Problems {
				found = found || strings.Contains(p.Problem, tt.want)
			}
			if !found {
				t.Fatalf("no problem mentions %q: %+v", tt.want, report.Problems)
			}
		})
	}
}

func TestVerifyRelaxedFindingPasses(t *testing.T) {
	msgs := simulatedRecording(t)
	for i := 0; editsDecision(t, msgs, i, func(w *ros2msg.DecisionRationale) { w.PolicyID = "someone_elses_v2" }); i++ {
	}
	report, err := Verify(&sliceSource{msgs: msgs}, VerifyOptions{Relax: []Finding{FindingUnknownPolicy}})
	if err != nil {
		t.Fatal(err)
	}
	if !report.Passed() || report.FindingCount(FindingUnknownPolicy) != report.Decisions || len(report.Relaxed) != 1 {
		t.Fatalf("verdict %s %v relaxed %v findings %v", report.Verdict, report.Reasons, report.Relaxed, report.Findings)
	}
}

// editsDecision is editDecision that reports whether decision n exists.
func editsDecision(t *testing.T, msgs []bag.Message, n int, edit func(*ros2msg.DecisionRationale)) bool {
	t.Helper()
	count := 0
	for _, m := range msgs {
		if m.Topic == "/decisions" {
			count++
		}
	}
	if n >= count {
		return false
	}
	editDecision(t, msgs, n, edit)
	return true
}

func dropDecision(t *testing.T, msgs []bag.Message, n int) []bag.Message {
	t.Helper()
	for i := range msgs {
		if msgs[i].Topic != "/decisions" {
			continue
		}
		if n > 0 {
			n--
			continue
		}
		return append(msgs[:i:i], msgs[i+1:]...)
	}
	t.Fatal("no such decision")
	return nil
}

func TestVerifyWaitsForInputsRecordedAfterTheDecision(t *testing.T) {
	msgs := simulatedRecording(t)
	// Move every decision before the inputs it depends on, as a recorder
	// that receives /decisions first would log them. Log times stay as
	// they were: only the order changes.
	var reordered []bag.Message
	var held []bag.Message
	for _, m := range msgs {
		if m.Topic == "/decisions" {
			reordered = append(reordered, m)
			continue
		}
		held = append(held, m)
	}
	reordered = append(reordered, held...)
	report, err := Verify(&sliceSource{msgs: reordered}, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !report.Passed() || report.RerunCount(RerunMatched) != report.Decisions {
		t.Fatalf("verdict %s %v %v %v", report.Verdict, report.Reasons, report.ByRerun, report.Problems)
	}
}

func TestVerifyMemoryIsBounded(t *testing.T) {
	// Decisions whose beliefs never come, and assessments without
	// decisions: every buffer stays within MaxHeld.
	th := decisions.Thresholds{PositionKnownStdM: 1, PositionUnknownStdM: 2, VelocityKnownStdMps: 1, VelocityUnknownStdMps: 2,
		OrientationKnownStdRad: 1, OrientationUnknownStdRad: 2, SchemaVersion: 1}
	v, err := newVerifier(VerifyOptions{MaxHeld: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 20_000; i++ {
		logTime := i * int64(time.Millisecond)
		s, err := decisions.Assess(i, nil, th)
		if err != nil {
			t.Fatal(err)
		}
		m := bag.Message{Topic: "/self_assessment", LogTime: uint64(logTime)}
		w := ros2msg.SelfAssessmentToWire(&s)
		ev := decodeInput(t, v, "/self_assessment", logTime, &w, nil)
		v.input(&m, &ev, nil)
		if i%3 == 0 {
			r := decisions.Rationale{BeliefStampSimNs: 1<<40 + i, PolicyID: decisions.ReferencePolicyID,
				Decision: decisions.Decision{DecisionStampSimNs: 1<<40 + i, Reason: "x", SchemaVersion: 1}, SchemaVersion: 1}
			d := bag.Message{Topic: "/decisions", SchemaName: "ghost/msg/DecisionRationale", LogTime: uint64(logTime)}
			v.decision(&d, r, nil)
		}
		if n := v.chain.n; n > 100 || len(v.chain.ring) > 200 || v.pending.len() > 100 {
			t.Fatalf("after %d inputs: chain %d (storage %d) pending %d", i, n, len(v.chain.ring), v.pending.len())
		}
	}
	r, _ := v.finish(nil)
	if r.Decisions < 6000 || r.ProblemsOmitted == 0 || len(r.Problems) != 100 {
		t.Fatalf("decisions %d problems %d omitted %d", r.Decisions, len(r.Problems), r.ProblemsOmitted)
	}
}

// How many goroutines decode ahead of the Loop changes nothing verify
// reports, nor the order of its verdicts: a recording with every kind of
// damage, over many batches, gives one report whatever the workers, also
// with none (one goroutine decoding and auditing each message before it
// reads the next) from a source that overwrites each message's Data at
// its next call, as a recording's reader does.
func TestVerifyReportIsTheSameWithAnyDecodeWorkers(t *testing.T) {
	out, _, err := replayBytes(t, simSource(t, 60*time.Second, 50), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := drainSource(t, openBytes(t, out))
	n := 0
	for i := range msgs {
		switch msgs[i].Topic {
		case "/decisions":
			n++
		case "/self_assessment":
			if i%97 == 0 {
				msgs[i].Data = msgs[i].Data[:len(msgs[i].Data)/2] // corrupt
			}
		}
	}
	for k := 100; k < n; k += 500 {
		editDecision(t, msgs, k, func(w *ros2msg.DecisionRationale) { w.SelfAssessmentSHA256 = strings.Repeat("0", 64) })
		editDecision(t, msgs, k+7, func(w *ros2msg.DecisionRationale) { w.Decision.Reason = "felt_like_it" })
	}
	type result struct {
		report *AuditReport
		audits []DecisionAudit
	}
	var want *result
	for _, w := range []int{-1, 1, 3} {
		got := &result{}
		got.report, err = Verify(&reusingSource{msgs: msgs}, VerifyOptions{DecodeWorkers: w,
			OnAudit: func(a DecisionAudit) { got.audits = append(got.audits, a) }})
		if err != nil {
			t.Fatal(err)
		}
		if got.report.Passed() || len(got.audits) < n/2 {
			t.Fatalf("%d workers: verdict %s after %d audits: the damage was not seen", w, got.report.Verdict, len(got.audits))
		}
		if want == nil {
			want = got
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d workers: the report differs from one decoding goroutine's:\n%+v\nwant\n%+v", w, got.report, want.report)
		}
	}
}

// Options verify cannot run with are refused before anything is read.
func TestVerifyRefusesUnusableOptions(t *testing.T) {
	reference, err := decisions.LookupPolicy(decisions.ReferencePolicyID)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts VerifyOptions
		want string
	}{
		{"chain topic without its decoder", VerifyOptions{Format: Format{ChainTopic: "/raw",
			DecisionSchemas: CDRFormat().DecisionSchemas, NewDecodeDecision: CDRFormat().NewDecodeDecision}},
			`Format.ChainTopic "/raw" without NewDecodeChain`},
		{"two policies with one id", VerifyOptions{Policies: []decisions.Policy{reference, reference}},
			"two supplied policies have the id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &sliceSource{}
			if _, err := Verify(src, tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one naming %q", err, tt.want)
			}
		})
	}
}

// A fifo hands items back in order, and a queue held at a bound settles at
// a few times that bound of storage, however long it runs.
func TestFifoOrderAndStorage(t *testing.T) {
	for _, bound := range []int{1, 3, 100, 5000} {
		var q fifo[int]
		var model []int
		next := 0
		for step := range 20 * bound {
			switch {
			case len(model) < bound && step%7 != 3:
				q.push(next)
				model = append(model, next)
				next++
			case len(model) > 0:
				if got := q.pop(); got != model[0] {
					t.Fatalf("bound %d, step %d: popped %d, want %d", bound, step, got, model[0])
				}
				model = model[1:]
			}
			if q.len() != len(model) || len(model) > 0 && *q.front() != model[0] {
				t.Fatalf("bound %d, step %d: length %d, want %d", bound, step, q.len(), len(model))
			}
			if cap(q.items) > 4*bound+8 {
				t.Fatalf("bound %d, step %d: storage of %d items", bound, step, cap(q.items))
			}
		}
	}
}

func TestDecodeWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	tests := []struct {
		option, procs int
		total         uint64 // messages; 0 unknown
		want          int
	}{
		{0, 1, 0, 0}, {0, 2, 0, 1}, {0, 4, 0, 3}, {0, 16, 0, MaxDecodeWorkers},
		{-1, 8, 0, 0}, {5, 2, 0, 5},
		// A recording known to be small is verified on one goroutine.
		{0, 2, MinDecodeWorkerMessages - 1, 0}, {0, 2, MinDecodeWorkerMessages, 1},
		{2, 4, 100, 0}, {2, 4, MinDecodeWorkerMessages, 2},
	}
	for _, tt := range tests {
		runtime.GOMAXPROCS(tt.procs)
		o := VerifyOptions{DecodeWorkers: tt.option, Total: tt.total}
		if got := o.decodeWorkers(); got != tt.want {
			t.Errorf("DecodeWorkers %d on %d cores, %d messages: %d workers, want %d", tt.option, tt.procs, tt.total, got, tt.want)
		}
	}
}

// problemSource is a sliceSource that reports channel problems, as the
// chain of a split recording's files does.
type problemSource struct {
	sliceSource
	problems []bag.ChannelProblem
}

func (s *problemSource) Problems() []bag.ChannelProblem { return s.problems }

// TestVerifyCountsEveryFilesUnreadableChannel: two files of a split
// recording number their channels on their own, so two unreadable
// decisions channels may share a number; each is a finding, and every
// decision either skipped is counted.
func TestVerifyCountsEveryFilesUnreadableChannel(t *testing.T) {
	ch := bag.Channel{ID: 4, Topic: "/decisions", SchemaName: "other/msg/Thing"}
	src := &problemSource{sliceSource{msgs: simulatedRecording(t)}, []bag.ChannelProblem{
		{Channel: ch, Err: errors.New("a.mcap: unexpected schema"), Skipped: 3},
		{Channel: ch, Err: errors.New("b.mcap: unexpected schema"), Skipped: 5},
	}}
	r, err := Verify(src, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed() || r.FindingCount(FindingUnreadableDecisionsChannel) != 2 || r.FindingCount(FindingUndecodableDecision) != 8 {
		t.Fatalf("verdict %s, unreadable channels %d, undecodable decisions %d: want FAIL, 2 and 8", r.Verdict,
			r.FindingCount(FindingUnreadableDecisionsChannel), r.FindingCount(FindingUndecodableDecision))
	}
}
