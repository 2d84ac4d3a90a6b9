package audit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/testscale"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// "No verdict lies": every single-message forgery of a simulated recording
// (drop, duplicate, flip a bit, re-encode, move to another channel) either
// makes verify fail naming the message, or changed nothing a decision rests
// on. The expected outcome of each forgery is worked out here from the
// messages themselves (what decodes to what, which stamps have decisions,
// which assessment hashes the rationales name, what the policy decides on
// the forged context), not from verify's code.

// expectation is what verify must say about one forgery.
type expectation uint8

const (
	mustFail  expectation = iota // and name the stamp or log time
	mustPass                     // nothing a decision rests on changed
	mayEither                    // a join-timing side effect, no content a decision names
)

func (e expectation) String() string { return [...]string{"must fail", "must pass", "either"}[e] }

const unreadTopic = "/camera/info"

// forgeryWorld indexes the untouched recording.
type forgeryWorld struct {
	msgs        []bag.Message
	decidedAt   map[int64]decisions.Rationale // recorded decisions by stamp
	usedHashes  map[string]bool               // assessment hashes rationales name
	assessByKey map[string]decisions.SelfAssessment
	firstStamp  int64
	lastStamp   int64
	perception  []decisions.PerceptionReport // in log order
}

func newForgeryWorld(t *testing.T, msgs []bag.Message) *forgeryWorld {
	t.Helper()
	w := &forgeryWorld{msgs: msgs, decidedAt: map[int64]decisions.Rationale{}, usedHashes: map[string]bool{},
		assessByKey: map[string]decisions.SelfAssessment{}, firstStamp: -1}
	for _, m := range msgs {
		switch m.Topic {
		case "/decisions":
			r, ok := decodeRationale(m.Data)
			if !ok {
				t.Fatal("the untouched recording has an undecodable decision")
			}
			w.decidedAt[r.BeliefStampSimNs] = r
			if r.SelfAssessmentSHA256 != "" {
				w.usedHashes[r.SelfAssessmentSHA256] = true
			}
			if w.firstStamp < 0 {
				w.firstStamp = r.BeliefStampSimNs
			}
			w.lastStamp = r.BeliefStampSimNs
		case "/self_assessment":
			if a, ok := decodeAssessment(m.Data); ok {
				w.assessByKey[a.SHA256()] = a
			}
		case "/perception/mode":
			if p, ok := decodePerception(m.Data); ok {
				w.perception = append(w.perception, p)
			}
		}
	}
	return w
}

func decodeRationale(data []byte) (decisions.Rationale, bool) {
	var w ros2msg.DecisionRationale
	if w.UnmarshalCDR(data) != nil {
		return decisions.Rationale{}, false
	}
	r := ros2msg.RationaleFromWire(&w)
	return r, r.Validate() == nil
}

func decodeBelief(data []byte) (decisions.Belief, bool) {
	var w ros2msg.VehicleState
	if w.UnmarshalCDR(data) != nil {
		return decisions.Belief{}, false
	}
	b, err := ros2msg.BeliefFromWire(&w)
	return b, err == nil && b.Validate() == nil
}

func decodeAssessment(data []byte) (decisions.SelfAssessment, bool) {
	var w ros2msg.BeliefSelfAssessment
	if w.UnmarshalCDR(data) != nil {
		return decisions.SelfAssessment{}, false
	}
	a := ros2msg.SelfAssessmentFromWire(&w)
	return a, a.Validate() == nil
}

func decodePerception(data []byte) (decisions.PerceptionReport, bool) {
	var w ros2msg.PerceptionMode
	if w.UnmarshalCDR(data) != nil {
		return decisions.PerceptionReport{}, false
	}
	p := ros2msg.PerceptionFromWire(&w)
	return p, p.Validate() == nil
}

// stampOf returns the stamp a message carries and whether it decodes.
func stampOf(m bag.Message) (int64, bool) {
	switch m.Topic {
	case "/decisions":
		r, ok := decodeRationale(m.Data)
		return r.BeliefStampSimNs, ok
	case "/state/nav":
		b, ok := decodeBelief(m.Data)
		return b.StampSimNs, ok
	case "/self_assessment":
		a, ok := decodeAssessment(m.Data)
		return a.BeliefStampSimNs, ok
	case "/perception/mode":
		p, ok := decodePerception(m.Data)
		return p.StampSimNs, ok
	}
	return 0, false
}

// decide is what the recording's policy decides on belief b with the
// assessment the recorded decision of its stamp names and the latest
// perception report at or before it.
func (w *forgeryWorld) decide(t *testing.T, b decisions.Belief) decisions.Rationale {
	t.Helper()
	ctx := decisions.Context{BeliefStampSimNs: b.StampSimNs, Flight: b.Flight, Mission: b.Mission}
	if h := w.decidedAt[b.StampSimNs].SelfAssessmentSHA256; h != "" {
		a := w.assessByKey[h]
		ctx.SelfAssessment = &a
	}
	for i := range w.perception {
		if p := &w.perception[i]; p.StampSimNs <= b.StampSimNs && (ctx.Perception == nil || p.StampSimNs > ctx.Perception.StampSimNs) {
			ctx.Perception = p
		}
	}
	_, r, err := decisions.DecideWithRationale(decisions.ReferencePolicy{}, ctx, ctx.SelfAssessmentSHA256())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// lossOf is the expectation when message m is gone from its topic.
func (w *forgeryWorld) lossOf(m bag.Message) (expectation, int64, string) {
	s, _ := stampOf(m)
	switch m.Topic {
	case "/decisions":
		if s == w.firstStamp || s == w.lastStamp {
			return mayEither, s, "first or last decision: the recording looks like one started later or stopped earlier"
		}
		return mustFail, s, "a recorded decision is missing"
	case "/state/nav":
		if _, ok := w.decidedAt[s]; ok {
			return mustFail, s, "the belief of a recorded decision is missing"
		}
		return mayEither, s, "a belief no decision names"
	case "/self_assessment":
		a, _ := decodeAssessment(m.Data)
		if w.usedHashes[a.SHA256()] {
			return mustFail, s, "the assessment a rationale hashes is missing"
		}
		return mayEither, s, "an assessment no rationale names"
	case "/perception/mode":
		return mayEither, s, "a perception report (no rationale names one)"
	}
	return mustPass, 0, "a topic no decision reads"
}

// changeOf is the expectation when message m is replaced by data on the
// same topic.
func (w *forgeryWorld) changeOf(t *testing.T, m bag.Message, data []byte) (expectation, int64, string) {
	s, _ := stampOf(m)
	switch m.Topic {
	case "/decisions":
		orig, _ := decodeRationale(m.Data)
		if r, ok := decodeRationale(data); ok && r == orig {
			return mustPass, s, "the decision decodes to the same rationale"
		}
		return mustFail, s, "the recorded decision changed or does not decode"
	case "/state/nav":
		orig, _ := decodeBelief(m.Data)
		b, ok := decodeBelief(data)
		switch {
		case ok && b.Equal(&orig):
			return mustPass, s, "the belief decodes to the same belief"
		case !ok || b.StampSimNs != orig.StampSimNs:
			return w.lossOf(m)
		}
		if _, decided := w.decidedAt[s]; decided && w.decide(t, b) != w.decide(t, orig) {
			return mustFail, s, "the policy decides differently on the changed belief"
		}
		return mayEither, s, "the belief changed where the policy does not look"
	case "/self_assessment":
		orig, _ := decodeAssessment(m.Data)
		if a, ok := decodeAssessment(data); ok && bytes.Equal(a.AppendCanonicalJSON(nil), orig.AppendCanonicalJSON(nil)) {
			return mustPass, s, "the assessment decodes to the same canonical JSON"
		}
		return w.lossOf(m)
	case "/perception/mode":
		orig, _ := decodePerception(m.Data)
		if p, ok := decodePerception(data); ok && p == orig {
			return mustPass, s, "the report decodes to the same report"
		}
		return w.lossOf(m)
	}
	return mustPass, 0, "a topic no decision reads"
}

// reencode decodes a message and encodes it again with the trailing zero
// padding some middleware adds (an equivalent encoding), or returns false.
func reencode(m bag.Message) ([]byte, bool) {
	type codec interface {
		UnmarshalCDR([]byte) error
		MarshalCDR() ([]byte, error)
	}
	var c codec
	switch m.Topic {
	case "/decisions":
		c = &ros2msg.DecisionRationale{}
	case "/state/nav":
		c = &ros2msg.VehicleState{}
	case "/self_assessment":
		c = &ros2msg.BeliefSelfAssessment{}
	case "/perception/mode":
		c = &ros2msg.PerceptionMode{}
	default:
		return nil, false
	}
	if c.UnmarshalCDR(m.Data) != nil {
		return nil, false
	}
	data, err := c.MarshalCDR()
	if err != nil {
		return nil, false
	}
	for len(data)%4 != 0 {
		data = append(data, 0)
	}
	return data, true
}

type forgery struct {
	kind   string
	at     int
	msgs   []bag.Message
	expect expectation
	stamp  int64
	why    string
}

// forge builds one forgery of kind at message i.
func (w *forgeryWorld) forge(t *testing.T, kind string, i int, rng *rand.Rand) (forgery, bool) {
	m := w.msgs[i]
	f := forgery{kind: kind, at: i}
	with := func(repl ...bag.Message) []bag.Message {
		out := slices.Clone(w.msgs[:i])
		out = append(out, repl...)
		return append(out, w.msgs[i+1:]...)
	}
	switch kind {
	case "drop":
		f.msgs = with()
		f.expect, f.stamp, f.why = w.lossOf(m)
	case "duplicate":
		f.msgs = with(m, m)
		s, _ := stampOf(m)
		// An identical duplicate, of an input or of a decision, changes
		// nothing a decision rests on.
		f.expect, f.stamp, f.why = mustPass, s, "an identical duplicate"
	case "flip":
		data := slices.Clone(m.Data)
		data[rng.IntN(len(data))] ^= 1 << rng.IntN(8)
		f.msgs = with(bag.Message{Topic: m.Topic, SchemaName: m.SchemaName, ChannelID: m.ChannelID,
			LogTime: m.LogTime, PublishTime: m.PublishTime, Sequence: m.Sequence, Data: data})
		f.expect, f.stamp, f.why = w.changeOf(t, m, data)
	case "reencode":
		data, ok := reencode(m)
		if !ok {
			return f, false
		}
		r := m
		r.Data = data
		f.msgs = with(r)
		f.expect, f.stamp, f.why = w.changeOf(t, m, data)
	case "move":
		topics := []string{"/state/nav", "/self_assessment", "/perception/mode", "/decisions", unreadTopic}
		k := slices.Index(topics, m.Topic)
		dest := topics[(k+1)%len(topics)]
		moved := m
		moved.Topic = dest
		moved.ChannelID = m.ChannelID + 100
		f.msgs = with(moved)
		f.expect, f.stamp, f.why = w.lossOf(m)
		if dest == "/decisions" {
			s, _ := stampOf(m)
			// It keeps its own schema, which is not DecisionRationale:
			// an unreadable channel on the decisions topic.
			f.expect, f.stamp, f.why = mustFail, s, "a message of another type on the decisions topic"
		}
	}
	return f, true
}

// names reports whether the report points at the forged message: its stamp
// or its log time in a problem or a note.
func names(r *AuditReport, stamp int64, logTime uint64) bool {
	st, lt := strconv.FormatInt(stamp, 10), strconv.FormatUint(logTime, 10)
	for _, p := range r.Problems {
		if p.Stamp == stamp || p.LogTimeNs == int64(logTime) || strings.Contains(p.Problem, st) {
			return true
		}
	}
	for _, n := range r.Notes {
		if strings.Contains(n, st) || strings.Contains(n, lt) {
			return true
		}
	}
	return false
}

// judge verifies forgery f of message m and returns verify's verdict and,
// when the verdict breaks what f expects, a description of the lie.
func judge(f *forgery, m bag.Message) (passed bool, lie string) {
	report, _ := Verify(&sliceSource{msgs: f.msgs}, VerifyOptions{})
	where := fmt.Sprintf("%s of message %d (%s, log time %d, stamp %d): %s", f.kind, f.at, m.Topic, m.LogTime, f.stamp, f.why)
	passed = report.Passed()
	switch {
	case f.expect == mustFail && passed:
		lie = fmt.Sprintf("%s: verify passed (a verdict lie)", where)
	case f.expect == mustFail && !names(report, f.stamp, m.LogTime):
		lie = fmt.Sprintf("%s: verify failed without naming the message: %v %v %v", where, report.Reasons, report.Problems, report.Notes)
	case f.expect == mustPass && !passed:
		lie = fmt.Sprintf("%s: verify failed on a forgery that changed nothing: %v %v %v", where, report.Reasons, report.Problems, report.Notes)
	case f.expect == mayEither && !passed && !names(report, f.stamp, m.LogTime) && len(report.Problems) == 0:
		lie = fmt.Sprintf("%s: verify failed naming nothing: %v %v", where, report.Reasons, report.Notes)
	}
	return passed, lie
}

// forgeryKinds are the forgeries made of every message.
var forgeryKinds = []string{"drop", "duplicate", "flip", "reencode", "move"}

// forgeryCase is one forgery: of kind forgeryKinds[kind] at message at.
type forgeryCase struct{ at, kind int }

// verdict is what verify said of one forgery.
type verdict struct {
	f    forgery // its messages dropped once verified
	pass bool
	lie  string // what verify got wrong, or ""
}

// judgeAll makes the forgeries of plan here, in order (making one may fail
// t), and verifies them on every core: verify is safe to call
// concurrently, which the race detector checks on the way. A forgery that
// cannot be made has an empty kind.
func judgeAll(t *testing.T, w *forgeryWorld, plan []forgeryCase) []verdict {
	verdicts := make([]verdict, len(plan))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range jobs {
				v := &verdicts[j]
				v.pass, v.lie = judge(&v.f, w.msgs[v.f.at])
				v.f.msgs = nil
			}
		})
	}
	func() {
		defer close(jobs)
		for j, c := range plan {
			// Each case draws from its own seed, so a sampled forgery is
			// the very one the full run makes.
			rng := rand.New(rand.NewPCG(2026, uint64(c.at*len(forgeryKinds)+c.kind)))
			if f, ok := w.forge(t, forgeryKinds[c.kind], c.at, rng); ok {
				verdicts[j].f = f
				jobs <- j
			}
		}
	}()
	wg.Wait()
	return verdicts
}

func TestNoVerdictLies(t *testing.T) {
	base := simulatedRecording(t)
	// Messages on a topic no decision reads.
	var msgs []bag.Message
	for i, m := range base {
		msgs = append(msgs, m)
		if i%50 == 0 {
			msgs = append(msgs, bag.Message{Topic: unreadTopic, SchemaName: "sensor_msgs/msg/CameraInfo", ChannelID: 77,
				LogTime: m.LogTime, PublishTime: m.LogTime, Data: []byte{0, 1, 0, 0, byte(i), byte(i >> 8), 0, 0}})
		}
	}
	w := newForgeryWorld(t, msgs)
	if r, err := Verify(&sliceSource{msgs: msgs}, VerifyOptions{}); err != nil || !r.Passed() {
		t.Fatalf("the untouched recording does not pass: %v %v", err, r.Reasons)
	}

	// Every message, every forgery in the full run; otherwise a sample that
	// keeps each topic's first, last and evenly spread messages for every
	// kind of forgery.
	var plan []forgeryCase
	for i := range msgs {
		for k := range forgeryKinds {
			plan = append(plan, forgeryCase{i, k})
		}
	}
	plan = testscale.Sample(t, plan, 300, func(c forgeryCase) [2]string { return [2]string{msgs[c.at].Topic, forgeryKinds[c.kind]} })

	start := time.Now()
	verdicts := judgeAll(t, w, plan)
	tally := map[string]int{}
	for _, v := range verdicts {
		if v.f.kind == "" {
			continue // a forgery that cannot be made (reencode of a topic without a codec)
		}
		if v.lie != "" {
			t.Error(v.lie)
		}
		verdict := "pass"
		if !v.pass {
			verdict = "fail"
		}
		tally[v.f.kind+" / "+v.f.expect.String()+" / "+v.f.why+" -> "+verdict]++
	}
	keys := make([]string, 0, len(tally))
	for k := range tally {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.Logf("%5d  %s", tally[k], k)
	}
	t.Logf("%d forgeries of %d messages in %s", len(plan), len(msgs), time.Since(start).Round(time.Millisecond))
}
