package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Sink receives published decisions; it is decisions.Sink. A sink that also
// implements io.Closer is closed by Runner.Close. Sinks wrap their errors in
// ErrEncoding, ErrTransport or ErrSinkClosed so failures are classified.
type Sink = decisions.Sink

// ErrRunner is matched by the errors Register returns.
var ErrRunner = errors.New("runner")

// RunnerOptions configure a Runner. The zero value is the default.
type RunnerOptions struct {
	// ExpectedPolicyID, when set, is the only policy id whose decisions are
	// published; any other is a provenance violation. Default "": the id
	// each Command names is checked against its rationale only.
	ExpectedPolicyID string
	// TargetVehicle is the vehicle executors command; evidence from any
	// other is a provenance violation.
	TargetVehicle uint32
	// Clock returns the current arrival time, for receipts and requests
	// (the Session's Now). Default: always 0.
	Clock func() int64
}

// Runner is the side-effect boundary: it executes Commands from a Loop,
// checking provenance before any write and publishing to every registered
// sink. Execute, Reject, Handle, Register and Close belong to one goroutine;
// Counters may be called from any goroutine at any time.
type Runner struct {
	opts   RunnerOptions
	sinks  []registered
	closed bool

	receipts []Receipt
	hashBuf  []byte

	executors    []Executor
	byKind       [decisions.NumKinds]int // index+1 into executors, 0 = none
	out          outstanding
	actionSinks  []registeredActionSink
	published    []published
	admitScratch []Evidence

	counters counters
}

type registered struct {
	id   string
	sink Sink
}

// Result is the outcome of executing one Command. Err is a
// *ProvenanceError when the Command was refused (then Receipts is empty);
// otherwise Receipts holds one receipt per sink, in registration order.
// Receipts is reused by the next Execute.
type Result struct {
	Receipts []Receipt
	Err      error
}

// Errors returns Err and every failed receipt's error joined, or nil when the
// decision reached every sink.
func (r Result) Errors() error {
	if r.Err != nil {
		return r.Err
	}
	var errs []error
	for _, rc := range r.Receipts {
		if rc.Err != nil {
			errs = append(errs, rc.Err)
		}
	}
	return errors.Join(errs...)
}

// NewRunner returns a Runner without sinks.
func NewRunner(opts RunnerOptions) *Runner {
	return &Runner{opts: opts, hashBuf: make([]byte, 0, 1536)}
}

// checkRegister says why a sink of the kind ("sink", "action sink") cannot
// be registered under id: an empty id, a nil sink, a closed Runner or an id
// taken.
func (r *Runner) checkRegister(kind, id string, isNil, taken bool) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: register: empty %s id", ErrRunner, kind)
	case isNil:
		return fmt.Errorf("%w: register %s %q: nil sink", ErrRunner, kind, id)
	case r.closed:
		return fmt.Errorf("%w: register %s %q: %w", ErrRunner, kind, id, ErrSinkClosed)
	case taken:
		return fmt.Errorf("%w: register %s %q: id already registered", ErrRunner, kind, id)
	}
	return nil
}

// Register adds s under id. Ids are unique and non-empty; a closed Runner
// accepts no sinks.
func (r *Runner) Register(id string, s Sink) error {
	if err := r.checkRegister("sink", id, s == nil, slices.ContainsFunc(r.sinks, func(g registered) bool { return g.id == id })); err != nil {
		return err
	}
	r.sinks = append(r.sinks, registered{id, s})
	r.counters.mu.Lock()
	r.counters.perSink = append(r.counters.perSink, SinkCount{SinkID: id})
	r.counters.mu.Unlock()
	return nil
}

// Execute checks cmd's provenance and, if it holds, publishes the decision
// and its rationale to every sink in registration order. A failing sink
// does not stop the others. After Close every sink's receipt is a closed
// failure and no sink is called.
func (r *Runner) Execute(cmd Command) Result {
	if err := r.check(&cmd); err != nil {
		r.counters.mu.Lock()
		r.counters.c.ContextsAssembled++
		r.counters.c.ProvenanceViolations++
		r.counters.mu.Unlock()
		return Result{Err: err}
	}
	stamp := cmd.Decision.DecisionStampSimNs
	rcs := r.receipts[:0]
	for _, g := range r.sinks {
		var err error
		if r.closed {
			err = &SinkError{SinkID: g.id, Kind: FailureClosed, Err: ErrSinkClosed}
		} else if e := g.sink.Publish(cmd.Decision, cmd.Rationale); e != nil {
			err = classify(g.id, e)
		}
		rcs = append(rcs, Receipt{SinkID: g.id, Stamp: stamp, Err: err})
	}
	r.receipts = rcs

	k := &r.counters
	k.mu.Lock()
	k.c.ContextsAssembled++
	k.c.Decisions[cmd.Decision.Kind]++
	if cmd.WithoutAssessment != WithoutNone {
		k.c.WithoutAssessment++
		k.c.WithoutAssessmentBy[cmd.WithoutAssessment]++
	}
	for i, rc := range rcs {
		if rc.Err == nil {
			k.c.ReceiptsOK++
			continue
		}
		k.perSink[i].Count++
		k.c.SinkFailuresByKind[rc.Err.(*SinkError).Kind]++
	}
	k.mu.Unlock()
	return Result{Receipts: rcs}
}

// Reject counts one rejected input; a reason outside the RejectReason
// values is not counted.
func (r *Runner) Reject(rej Rejection) {
	if int(rej.Reason) >= NumRejectReasons {
		return
	}
	r.counters.mu.Lock()
	r.counters.c.Rejected[rej.Reason]++
	r.counters.mu.Unlock()
}

// Duplicate counts one identical repeat.
func (r *Runner) Duplicate(Duplicate) {
	r.counters.mu.Lock()
	r.counters.c.Duplicates++
	r.counters.mu.Unlock()
}

// Handle counts out's rejections and duplicates, executes its commands in
// order, then its action commands in order (an execute must trace to a
// command of out that passed provenance). It returns every provenance
// violation and sink failure joined, or nil.
func (r *Runner) Handle(out *Output) error {
	for _, rej := range out.Rejections {
		r.Reject(rej)
	}
	for _, d := range out.Duplicates {
		r.Duplicate(d)
	}
	var errs []error
	pub := r.published[:0]
	for i := range out.Commands {
		res := r.Execute(out.Commands[i])
		if res.Err == nil {
			pub = append(pub, published{out.Commands[i].Decision.DecisionStampSimNs, out.Commands[i].Decision.Kind})
		}
		if err := res.Errors(); err != nil {
			errs = append(errs, err)
		}
	}
	r.published = pub
	if len(out.Actions) > 0 {
		if err := r.handleActions(out, pub); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Counters returns a snapshot of the counters; safe from any goroutine.
func (r *Runner) Counters() Counters { return r.counters.snapshot() }

// Close closes every registered sink that implements io.Closer, once, in
// reverse registration order, and returns their errors joined. Later calls
// return nil; later Executes yield closed receipts.
func (r *Runner) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	var errs []error
	for i := len(r.sinks) - 1; i >= 0; i-- {
		g := r.sinks[i]
		c, ok := g.sink.(io.Closer)
		if !ok || r.registeredEarlier(i) {
			continue
		}
		if err := c.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close sink %s: %w", g.id, err))
		}
	}
	return errors.Join(errs...)
}

// registeredEarlier reports whether the sink at i is also registered under
// an earlier id, whose turn closes it; comparing only comparable dynamic
// types keeps the comparison from panicking.
func (r *Runner) registeredEarlier(i int) bool {
	s := r.sinks[i].sink
	if !reflect.TypeOf(s).Comparable() {
		return false
	}
	for _, g := range r.sinks[:i] {
		if reflect.TypeOf(g.sink) == reflect.TypeOf(s) && g.sink == s {
			return true
		}
	}
	return false
}

// check applies the provenance invariants, cheapest first.
func (r *Runner) check(cmd *Command) error {
	d, rat, ctx := &cmd.Decision, &cmd.Rationale, &cmd.Context
	stamp := d.DecisionStampSimNs
	if err := d.Validate(); err != nil {
		return &ProvenanceError{RuleDecision, stamp, err.Error()}
	}
	if err := rat.Validate(); err != nil {
		return &ProvenanceError{RuleRationale, stamp, err.Error()}
	}
	if rat.Decision != *d {
		return &ProvenanceError{RuleRationaleDecision, stamp,
			fmt.Sprintf("DecisionRationale.decision = %s but the decision is %s", rat.Decision, *d)}
	}
	if rat.BeliefStampSimNs != stamp || ctx.BeliefStampSimNs != stamp {
		return &ProvenanceError{RuleStamp, stamp, fmt.Sprintf(
			"DecisionRationale.belief_stamp_sim_ns = %d, Decision.decision_stamp_sim_ns = %d, DecisionContext.belief_stamp_sim_ns = %d: must be equal",
			rat.BeliefStampSimNs, stamp, ctx.BeliefStampSimNs)}
	}
	if a := ctx.SelfAssessment; a != nil && a.BeliefStampSimNs != stamp {
		return &ProvenanceError{RuleStamp, stamp, fmt.Sprintf(
			"DecisionContext.self_assessment.belief_stamp_sim_ns = %d: must equal the decision stamp %d", a.BeliefStampSimNs, stamp)}
	}
	if err := r.checkHash(cmd); err != nil {
		return err
	}
	if int(cmd.WithoutAssessment) >= NumWithoutReasons {
		return &ProvenanceError{RuleWithoutAssessment, stamp, fmt.Sprintf(
			"Command.WithoutAssessment = %d: not a WithoutReason (0 to %d)", uint8(cmd.WithoutAssessment), NumWithoutReasons-1)}
	}
	if (cmd.WithoutAssessment == WithoutNone) != (ctx.SelfAssessment != nil) {
		has := "has"
		if ctx.SelfAssessment == nil {
			has = "has no"
		}
		return &ProvenanceError{RuleWithoutAssessment, stamp, fmt.Sprintf(
			"Command.WithoutAssessment = %s but the context %s self-assessment", cmd.WithoutAssessment, has)}
	}
	if rat.PolicyID != cmd.PolicyID {
		return &ProvenanceError{RulePolicyID, stamp, fmt.Sprintf(
			"DecisionRationale.policy_id = %q but the deciding policy is %q", rat.PolicyID, cmd.PolicyID)}
	}
	if want := r.opts.ExpectedPolicyID; want != "" && rat.PolicyID != want {
		return &ProvenanceError{RulePolicyID, stamp, fmt.Sprintf(
			"DecisionRationale.policy_id = %q but this runner publishes only %q", rat.PolicyID, want)}
	}
	return nil
}

// checkHash checks the rationale's hash against the context's assessment.
//
// The expected hash is derived from the context's assessment alone, never
// from the rationale or anything the policy binding produced: its seal when
// the seal matches the assessment's current content bit for bit (the one hash
// the decision path computes, when the assessment was decoded or admitted),
// else a fresh canonical JSON and SHA-256, without allocating. A binding that
// put another assessment's hash, a stale one or none into the rationale, or a
// context whose assessment changed after the decision, is therefore caught
// as before; a seal cannot vouch for content it was not computed from.
func (r *Runner) checkHash(cmd *Command) error {
	got := cmd.Rationale.SelfAssessmentSHA256
	a := cmd.Context.SelfAssessment
	if a == nil {
		if got != "" {
			return &ProvenanceError{RuleAssessmentHash, cmd.Decision.DecisionStampSimNs, fmt.Sprintf(
				"DecisionRationale.self_assessment_sha256 = %q but the context has no self-assessment: must be empty", got)}
		}
		return nil
	}
	if want, ok := a.SealedSHA256(); ok {
		if got != want {
			return &ProvenanceError{RuleAssessmentHash, cmd.Decision.DecisionStampSimNs, fmt.Sprintf(
				"DecisionRationale.self_assessment_sha256 = %q but the context's self-assessment hashes to %s", got, want)}
		}
		return nil
	}
	r.hashBuf = a.AppendCanonicalJSON(r.hashBuf[:0])
	sum := sha256.Sum256(r.hashBuf)
	var want [64]byte
	hex.Encode(want[:], sum[:])
	if got != string(want[:]) {
		return &ProvenanceError{RuleAssessmentHash, cmd.Decision.DecisionStampSimNs, fmt.Sprintf(
			"DecisionRationale.self_assessment_sha256 = %q but the context's self-assessment hashes to %s", got, string(want[:]))}
	}
	return nil
}
