package session

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// Sink receives each published decision as the whole Command the Loop
// emitted: the decision with its rationale (there is no way to publish a
// decision alone), the context the policy saw, the deciding policy and why
// the context has no self-assessment, if it has none. The command passed
// provenance; Publish gets its own copy, and must not modify what the
// context points to nor keep it past its return (Command.Clone does). A
// sink that also implements io.Closer is closed by Runner.Close. Sinks wrap
// their errors in ErrEncoding, ErrTransport or ErrSinkClosed so failures are
// classified.
type Sink interface {
	Publish(cmd engine.Command) error
}

// EncodedSink is a sink that takes the rationale serialized: data is the
// command's rationale as ghost/msg/DecisionRationale CDR, encapsulation
// header included. The Runner encodes each published rationale once and
// hands every EncodedSink the same bytes, so a decision published on
// ROS 2 and recorded is encoded once. data is valid only until
// PublishEncoded returns (the Runner reuses it for the next decision); the
// rest is as for Sink.
type EncodedSink interface {
	PublishEncoded(cmd engine.Command, data []byte) error
}

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
	prov     engine.Provenance
	cdr      rationaleCDR

	executors    []Executor
	byKind       [decisions.NumKinds]int // index+1 into executors, 0 = none
	out          outstanding
	actionSinks  []registeredActionSink
	published    []published
	admitScratch []engine.Evidence

	counters counters
}

// registered is a sink under its id: sink or encoded, the other nil.
type registered struct {
	id      string
	sink    Sink
	encoded EncodedSink
}

// value returns the registered sink itself.
func (g registered) value() any {
	if g.encoded != nil {
		return g.encoded
	}
	return g.sink
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
	return &Runner{opts: opts, prov: engine.Provenance{ExpectedPolicyID: opts.ExpectedPolicyID}}
}

// expectPolicy makes id the only policy whose decisions r publishes
// (RunnerOptions.ExpectedPolicyID).
func (r *Runner) expectPolicy(id string) {
	r.opts.ExpectedPolicyID = id
	r.prov.ExpectedPolicyID = id
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

// Register adds s under id. Ids are unique and non-empty among sinks of
// both kinds; a closed Runner accepts no sinks.
func (r *Runner) Register(id string, s Sink) error {
	return r.register(registered{id: id, sink: s}, s == nil)
}

// RegisterEncoded adds s under id, as Register does, to be handed each
// rationale serialized.
func (r *Runner) RegisterEncoded(id string, s EncodedSink) error {
	return r.register(registered{id: id, encoded: s}, s == nil)
}

func (r *Runner) register(g registered, isNil bool) error {
	id := g.id
	if err := r.checkRegister("sink", id, isNil, slices.ContainsFunc(r.sinks, func(g registered) bool { return g.id == id })); err != nil {
		return err
	}
	r.sinks = append(r.sinks, g)
	r.counters.mu.Lock()
	r.counters.perSink = append(r.counters.perSink, SinkCount{SinkID: id})
	r.counters.mu.Unlock()
	return nil
}

// Execute checks cmd's provenance and, if it holds, hands it to every sink
// in registration order, the rationale encoded once for all the
// EncodedSinks (a rationale that does not encode fails each of them as an
// encoding failure). A failing sink does not stop the others. After Close
// every sink's receipt is a closed failure and no sink is called.
func (r *Runner) Execute(cmd engine.Command) Result {
	if err := r.prov.Check(&cmd); err != nil {
		r.counters.mu.Lock()
		r.counters.c.ContextsAssembled++
		r.counters.c.ProvenanceViolations++
		r.counters.mu.Unlock()
		return Result{Err: err}
	}
	stamp := cmd.Decision.DecisionStampSimNs
	rcs := r.receipts[:0]
	var data []byte
	var encErr error
	encoded := false
	for _, g := range r.sinks {
		var err error
		switch {
		case r.closed:
			err = &SinkError{SinkID: g.id, Kind: FailureClosed, Err: ErrSinkClosed}
		case g.encoded != nil:
			if !encoded {
				data, encErr = r.cdr.encode(&cmd)
				encoded = true
			}
			if encErr != nil {
				err = classify(g.id, encErr)
			} else if e := g.encoded.PublishEncoded(cmd, data); e != nil {
				err = classify(g.id, e)
			}
		default:
			if e := g.sink.Publish(cmd); e != nil {
				err = classify(g.id, e)
			}
		}
		rcs = append(rcs, Receipt{SinkID: g.id, Stamp: stamp, Err: err})
	}
	r.receipts = rcs

	k := &r.counters
	k.mu.Lock()
	k.c.ContextsAssembled++
	k.c.Decisions[cmd.Decision.Kind]++
	if cmd.WithoutAssessment != engine.WithoutNone {
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
func (r *Runner) Reject(rej engine.Rejection) {
	if int(rej.Reason) >= engine.NumRejectReasons {
		return
	}
	r.counters.mu.Lock()
	r.counters.c.Rejected[rej.Reason]++
	r.counters.mu.Unlock()
}

// Duplicate counts one identical repeat.
func (r *Runner) Duplicate(engine.Duplicate) {
	r.counters.mu.Lock()
	r.counters.c.Duplicates++
	r.counters.mu.Unlock()
}

// Handle counts out's rejections and duplicates, executes its commands in
// order, then its action commands in order (an execute must trace to a
// command of out that passed provenance). It returns every provenance
// violation and sink failure joined, or nil.
func (r *Runner) Handle(out *engine.Output) error {
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
		c, ok := g.value().(io.Closer)
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
	s := r.sinks[i].value()
	if !reflect.TypeOf(s).Comparable() {
		return false
	}
	for _, g := range r.sinks[:i] {
		if v := g.value(); reflect.TypeOf(v) == reflect.TypeOf(s) && v == s {
			return true
		}
	}
	return false
}
