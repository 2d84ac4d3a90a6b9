package session

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// Executor acts on the vehicle for the decision kinds it declares. It
// returns evidence (through an EvidencePoller, or the recording's evidence
// input in replay), never verdicts: the Loop judges what the evidence
// means.
type Executor interface {
	// ID is the executor's unique id (^[a-z][a-z0-9_]*$).
	ID() string
	// Kinds are the decision kinds it can act on.
	Kinds() []decisions.Kind
	// Command returns the executor's documented mapping of kind k: the
	// command it sends and the vehicle state that shows the command took
	// effect. It is pure: the same kind always gives the same command.
	Command(k decisions.Kind) (engine.VehicleCommand, engine.Expectation, error)
	// Send transmits req. An error is recorded on the receipt; the Loop
	// retries on its deadline, not on the error.
	Send(req ActionRequest) error
	// Conclude says the action ended: no further evidence belongs to it.
	Conclude(actionID uint64)
}

// EvidencePoller is an Executor that delivers evidence by polling: the
// simulated vehicle, or a live executor draining its subscriptions.
type EvidencePoller interface {
	// Poll returns the evidence batches that arrived up to upToNs, in
	// arrival order; each batch's ArrivalNs is <= upToNs.
	Poll(upToNs int64) []engine.EvidenceEvent
}

// ActionRequest is exactly what the Runner asks an executor to send.
type ActionRequest struct {
	ActionID uint64
	Attempt  uint8
	// Stamp and Kind are the decision the action executes.
	Stamp int64
	Kind  decisions.Kind
	// Vehicle is the configured target vehicle.
	Vehicle uint32
	// Command is the executor's mapping of Kind.
	Command engine.VehicleCommand
	// TimeNs is the arrival time of the step that sends it.
	TimeNs int64
}

// ErrExecutors is matched by the errors of executor registration.
var ErrExecutors = errors.New("invalid executors")

// RegisterExecutor adds e to the registry. Ids are unique and valid, each
// kind has at most one executor, and every kind e declares has a mapping.
func (r *Runner) RegisterExecutor(e Executor) error {
	if e == nil {
		return fmt.Errorf("%w: nil executor", ErrExecutors)
	}
	id := e.ID()
	if !engine.ValidExecutorID(id) {
		return fmt.Errorf("%w: executor id %q: must match ^[a-z][a-z0-9_]*$, 1 to 64 characters", ErrExecutors, capText(id, 64))
	}
	for _, x := range r.executors {
		if x.ID() == id {
			return fmt.Errorf("%w: executor id %q registered twice", ErrExecutors, id)
		}
	}
	kinds := e.Kinds()
	if len(kinds) == 0 {
		return fmt.Errorf("%w: executor %s declares no kinds", ErrExecutors, id)
	}
	for _, k := range kinds {
		if !k.Valid() {
			return fmt.Errorf("%w: executor %s declares %s: not a decision kind", ErrExecutors, id, k)
		}
		if i := r.byKind[k]; i > 0 {
			return fmt.Errorf("%w: executors %s and %s both claim %s: a kind has one executor", ErrExecutors, r.executors[i-1].ID(), id, k)
		}
		if _, _, err := e.Command(k); err != nil {
			return fmt.Errorf("%w: executor %s declares %s but maps it to no command: %w", ErrExecutors, id, k, err)
		}
	}
	r.executors = append(r.executors, e)
	for _, k := range kinds {
		r.byKind[k] = len(r.executors)
	}
	return nil
}

// Routes returns the Loop's routes for the registered executors with the
// kinds in enable enabled. Enabling a kind no executor serves is an error:
// the operator would believe it acts. Every kind not enabled stays
// blocked_by_policy when it has an executor, advisory otherwise.
func (r *Runner) Routes(enable []decisions.Kind) ([decisions.NumKinds]engine.ActionRoute, error) {
	var routes [decisions.NumKinds]engine.ActionRoute
	for k := range routes {
		if i := r.byKind[k]; i > 0 {
			e := r.executors[i-1]
			_, exp, _ := e.Command(decisions.Kind(k))
			routes[k] = engine.ActionRoute{Executor: e.ID(), Expect: exp}
		}
	}
	for _, k := range enable {
		if !k.Valid() {
			return routes, fmt.Errorf("%w: enabled kind %s: not a decision kind", ErrExecutors, k)
		}
		if routes[k].Executor == "" {
			return routes, fmt.Errorf("%w: %s is enabled but no executor serves it", ErrExecutors, k)
		}
		routes[k].Enabled = true
	}
	return routes, nil
}

// Executors returns the registered executors' ids, in registration order.
func (r *Runner) Executors() []string {
	ids := make([]string, len(r.executors))
	for i, e := range r.executors {
		ids[i] = e.ID()
	}
	return ids
}

// executor returns the executor registered under id, or nil.
func (r *Runner) executor(id string) Executor {
	for _, e := range r.executors {
		if e.ID() == id {
			return e
		}
	}
	return nil
}

// outstanding is the action the Runner sent and has not seen concluded: the
// one evidence may answer.
type outstanding struct {
	valid    bool
	id       uint64
	stamp    int64
	kind     decisions.Kind
	executor string
	command  engine.VehicleCommand
	// accepted are the evidence items admitted for it, to tell identical
	// repeats.
	accepted []engine.Evidence
}

// maxAcceptedMemory bounds the evidence remembered per action for repeats.
const maxAcceptedMemory = 64

// published remembers a decision that passed provenance in this Handle.
type published struct {
	stamp int64
	kind  decisions.Kind
}

// handleActions executes out's action commands in order, after its
// decisions: pub are the decisions of out that passed provenance.
func (r *Runner) handleActions(out *engine.Output, pub []published) error {
	var errs []error
	for i := range out.Actions {
		if err := r.action(&out.Actions[i], out.ActiveAction, pub); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (r *Runner) action(a *engine.ActionCommand, active uint64, pub []published) error {
	ex := r.executor(a.Executor)
	rc := ActionReceipt{
		ActionID: a.ID, Stamp: a.Stamp, Kind: a.Kind, Executor: a.Executor, Vehicle: r.opts.TargetVehicle,
		Attempt: a.Attempt, Evidence: a.Evidence, Detail: a.Detail, TimeNs: r.now(),
	}
	if ex != nil {
		rc.Command, _, _ = ex.Command(a.Kind)
	}
	k := &r.counters
	switch a.Op {
	case engine.ActionExecute, engine.ActionRetry:
		if why := r.untraceable(a, ex, active, pub); why != "" {
			rc.Event, rc.Detail = ReceiptRefused, why
			k.add(func(c *Counters) { c.Actions.Refused++ })
			break
		}
		rc.Event = ReceiptSent
		if a.Op == engine.ActionRetry {
			rc.Event = ReceiptRetried
		} else {
			r.out = outstanding{valid: true, id: a.ID, stamp: a.Stamp, kind: a.Kind, executor: a.Executor, command: rc.Command}
		}
		req := ActionRequest{ActionID: a.ID, Attempt: a.Attempt, Stamp: a.Stamp, Kind: a.Kind,
			Vehicle: r.opts.TargetVehicle, Command: rc.Command, TimeNs: rc.TimeNs}
		if err := ex.Send(req); err != nil {
			rc.Detail += "; send failed: " + capText(err.Error(), 200)
			k.add(func(c *Counters) { c.Actions.SendErrors++ })
		}
		k.add(func(c *Counters) {
			if a.Op == engine.ActionRetry {
				c.Actions.Retried++
			} else {
				c.Actions.Sent++
			}
		})
	case engine.ActionConclude:
		switch a.Outcome {
		case engine.OutcomeAccepted:
			rc.Event = ReceiptAccepted
		case engine.OutcomeReached:
			rc.Event = ReceiptReached
		case engine.OutcomeSuperseded:
			rc.Event = ReceiptSuperseded
		default:
			rc.Event = ReceiptFailed
		}
		rc.Failure = a.Failure
		if a.Outcome.Final() && r.out.valid && r.out.id == a.ID {
			r.out = outstanding{}
			if ex != nil {
				ex.Conclude(a.ID)
			}
		}
		k.add(func(c *Counters) {
			c.Actions.Outcomes[min(int(a.Outcome), NumOutcomes-1)]++
			if a.Outcome == engine.OutcomeFailed && int(a.Failure) < engine.NumFailureClasses {
				c.Actions.Failures[a.Failure]++
			}
		})
	default:
		rc.Event, rc.Detail = ReceiptRefused, "unknown action op "+a.Op.String()
		k.add(func(c *Counters) { c.Actions.Refused++ })
	}
	return r.publishReceipt(&rc)
}

// untraceable says why an execute or retry must not reach the executor,
// or "": it must come from a decision that passed provenance (execute: in
// this very step) with the kind the executor serves, and be the Loop's
// outstanding action (otherwise it is stale).
func (r *Runner) untraceable(a *engine.ActionCommand, ex Executor, active uint64, pub []published) string {
	switch {
	case ex == nil:
		return fmt.Sprintf("refused: no executor %q is registered", capText(a.Executor, 64))
	case !a.Kind.Valid() || r.byKind[a.Kind] == 0 || r.executors[r.byKind[a.Kind]-1] != ex:
		return fmt.Sprintf("refused: executor %s does not serve %s", a.Executor, a.Kind)
	case a.ID != active:
		return fmt.Sprintf("refused as stale: action %d is no longer the outstanding action (now %d)", a.ID, active)
	}
	if a.Op == engine.ActionRetry {
		o := &r.out
		if !o.valid || o.id != a.ID || o.stamp != a.Stamp || o.kind != a.Kind || o.executor != a.Executor {
			return fmt.Sprintf("refused: retry of action %d, which this runner did not send", a.ID)
		}
		return ""
	}
	for _, p := range pub {
		if p.stamp == a.Stamp && p.kind == a.Kind {
			return ""
		}
	}
	return fmt.Sprintf("refused: no decision %s at stamp %d passed provenance in this step", a.Kind, a.Stamp)
}

// AdmitEvidence checks the provenance of an evidence batch before anything
// of it is recorded as accepted: every item must come from the configured
// target vehicle, from the executor of the outstanding action, with that
// action's correlation id, and an acknowledgement must name the command
// sent. A batch with any violation is rejected whole (a *ProvenanceError);
// items identical to ones already admitted are dropped as repeats. It
// returns the new items, and records a receipt either way (none for a
// batch of repeats only).
func (r *Runner) AdmitEvidence(ev engine.EvidenceEvent) ([]engine.Evidence, error) {
	if err := r.checkEvidence(ev.Items); err != nil {
		rc := ActionReceipt{ActionID: r.out.id, Stamp: r.out.stamp, Kind: r.out.kind, Executor: r.out.executor,
			Vehicle: r.opts.TargetVehicle, Event: ReceiptEvidenceRejected, Command: r.out.command,
			Evidence: ev.Items[:min(len(ev.Items), engine.MaxEvidenceItems)], Detail: err.Detail, TimeNs: r.now()}
		r.counters.add(func(c *Counters) { c.Actions.EvidenceRejected++ })
		return nil, errors.Join(err, r.publishReceipt(&rc))
	}
	fresh := r.admitScratch[:0]
	o := &r.out
	for _, e := range ev.Items {
		if containsEvidence(o.accepted, e) || containsEvidence(fresh, e) {
			continue
		}
		fresh = append(fresh, e)
	}
	r.admitScratch = fresh
	if len(fresh) == 0 {
		r.counters.add(func(c *Counters) { c.Actions.EvidenceRepeats++ })
		return nil, nil
	}
	if len(o.accepted)+len(fresh) <= maxAcceptedMemory {
		o.accepted = append(o.accepted, fresh...)
	}
	rc := ActionReceipt{ActionID: o.id, Stamp: o.stamp, Kind: o.kind, Executor: o.executor,
		Vehicle: r.opts.TargetVehicle, Event: ReceiptEvidenceAccepted, Command: o.command,
		Evidence: fresh, Detail: fmt.Sprintf("%d of %d items new", len(fresh), len(ev.Items)), TimeNs: r.now()}
	r.counters.add(func(c *Counters) { c.Actions.EvidenceAccepted++ })
	return fresh, r.publishReceipt(&rc)
}

func containsEvidence(list []engine.Evidence, e engine.Evidence) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

// checkEvidence applies the evidence provenance rules to a batch.
func (r *Runner) checkEvidence(items []engine.Evidence) *engine.ProvenanceError {
	o := &r.out
	fail := func(rule engine.ProvenanceRule, i int, format string, args ...any) *engine.ProvenanceError {
		return &engine.ProvenanceError{Rule: rule, Stamp: o.stamp,
			Detail: "evidence item " + strconv.Itoa(i) + ": " + fmt.Sprintf(format, args...) + "; batch rejected whole"}
	}
	switch {
	case len(items) == 0:
		return &engine.ProvenanceError{Rule: engine.RuleEvidenceBatch, Stamp: o.stamp, Detail: "empty evidence batch"}
	case len(items) > engine.MaxEvidenceItems:
		return &engine.ProvenanceError{Rule: engine.RuleEvidenceBatch, Stamp: o.stamp, Detail: fmt.Sprintf(
			"evidence batch of %d items: at most %d", len(items), engine.MaxEvidenceItems)}
	}
	for i, e := range items {
		switch {
		case e.Kind != engine.EvidenceAck && e.Kind != engine.EvidenceState:
			return fail(engine.RuleEvidenceBatch, i, "kind = %d: not ack (0) or state (1)", uint8(e.Kind))
		case !o.valid:
			return fail(engine.RuleEvidenceCorrelation, i, "action_id = %d, but no action is outstanding", e.ActionID)
		case e.ActionID != o.id:
			return fail(engine.RuleEvidenceCorrelation, i, "action_id = %d, but the outstanding action is %d", e.ActionID, o.id)
		case e.Executor != o.executor:
			return fail(engine.RuleEvidenceSource, i, "executor_id = %q, but action %d was sent by %s", capText(e.Executor, 64), o.id, o.executor)
		case e.Vehicle != r.opts.TargetVehicle:
			return fail(engine.RuleEvidenceVehicle, i, "vehicle_id = %d, but the target vehicle is %d", e.Vehicle, r.opts.TargetVehicle)
		case e.Kind == engine.EvidenceAck && e.Command != o.command.ID:
			return fail(engine.RuleEvidenceCommand, i, "acknowledges command %d, but action %d sent command %d", e.Command, o.id, o.command.ID)
		}
	}
	return nil
}

// RegisterActionSink adds s, which receives every action receipt, under id.
func (r *Runner) RegisterActionSink(id string, s ActionSink) error {
	if err := r.checkRegister("action sink", id, s == nil, slices.ContainsFunc(r.actionSinks, func(g registeredActionSink) bool { return g.id == id })); err != nil {
		return err
	}
	r.actionSinks = append(r.actionSinks, registeredActionSink{id, s})
	return nil
}

type registeredActionSink struct {
	id   string
	sink ActionSink
}

// publishReceipt gives rc to every action sink; failures are classified
// and counted like decision sink failures.
func (r *Runner) publishReceipt(rc *ActionReceipt) error {
	var errs []error
	for _, g := range r.actionSinks {
		var err error
		if r.closed {
			err = &SinkError{SinkID: g.id, Kind: FailureClosed, Err: ErrSinkClosed}
		} else if e := g.sink.PublishReceipt(*rc); e != nil {
			err = classify(g.id, e)
		}
		if err != nil {
			errs = append(errs, err)
			kind := err.(*SinkError).Kind
			r.counters.add(func(c *Counters) { c.Actions.ReceiptFailures++; c.SinkFailuresByKind[kind]++ })
		}
	}
	return errors.Join(errs...)
}

// now is the Runner's notion of the current arrival time.
func (r *Runner) now() int64 {
	if r.opts.Clock == nil {
		return 0
	}
	return r.opts.Clock()
}

// mergeEvidence merges per-executor batches by arrival time, stable in
// executor order.
func mergeEvidence(batches []engine.EvidenceEvent) {
	sort.SliceStable(batches, func(i, j int) bool { return batches[i].ArrivalNs < batches[j].ArrivalNs })
}

// capText shortens s to at most n bytes, marking the cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
