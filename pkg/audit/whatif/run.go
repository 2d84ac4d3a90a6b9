package whatif

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// Flight is one recording to compare, opened only when a worker takes it.
type Flight struct {
	// Name identifies the flight in the output; flights are written in the
	// order of their names.
	Name string
	// Open opens the flight for reading.
	Open func() (*Input, error)
}

// Input is an opened flight: its messages and how to read them.
type Input struct {
	// Source yields the flight's messages in log-time order.
	Source audit.Source
	// Total is the number of messages, 0 when unknown.
	Total uint64
	// Format says what the recording is, for the output.
	Format string
	// Session configures the inputs, timeouts and executors both sides
	// decide with (the Loop's policy is ignored).
	Session session.SessionOptions
	// DecisionsTopic is the topic of the recorded decisions, "" when the
	// flight holds none; DecisionFormat decodes them (default ghost's CDR).
	DecisionsTopic string
	DecisionFormat audit.Format
	// Baseline, when set, stands for the recorded decisions of a flight
	// that holds none (a PX4 log decided as the configuration decides it);
	// Options.Baseline overrides it.
	Baseline decisions.Policy
	// Damage, if set, is called after the flight was read to its end: the
	// damage a source that ends without an error read up to (a PX4 log
	// cut short), nil when none.
	Damage func() error
	// Close, if set, releases the flight after its comparison.
	Close func()
}

// Options configure Run.
type Options struct {
	// Candidate is the policy under test.
	Candidate decisions.Policy
	// Baseline, if set, is the policy the candidate is compared with, on the
	// same inputs; nil compares with the decisions each flight holds.
	Baseline decisions.Policy
	// Workers is the number of flights compared at once; default
	// GOMAXPROCS.
	Workers int
	// Compare configures each flight's comparison.
	Compare CompareOptions
	// OnCorrupt, if set, receives every input message that does not
	// decode, with its flight's name; it may be called from several
	// goroutines at once.
	OnCorrupt func(flight string, err error)
	// Progress, if set, is called after each flight is written, with the
	// flights written and the total.
	Progress func(done, total int)
}

// A Writer takes each flight's result, in order, then the summary.
type Writer interface {
	Flight(r *FlightResult) error
	Summary(s *Summary) error
}

// baselineRecorded names the recorded decisions as the baseline.
const baselineRecorded = "recorded"

// Run compares every flight under opts and hands each result to w, in the
// order of the flights' names, whatever order the workers finish them in;
// it returns the summary of them all (without writing it, so that the
// caller may set its exit status first). At most a few results per worker
// wait to be written, so memory does not grow with the number of flights.
// Only a write error stops it.
func Run(flights []Flight, opts Options, w Writer) (*Summary, error) {
	if opts.Candidate == nil {
		return nil, errors.New("whatif: no candidate policy")
	}
	flights = slices.Clone(flights)
	slices.SortStableFunc(flights, func(a, b Flight) int { return cmp.Compare(a.Name, b.Name) })
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(flights)))
	// Flights side by side each read on one goroutine (the least CPU); a
	// lone flight decodes on the cores left.
	decodeWorkers := -1
	if workers == 1 && len(flights) == 1 {
		decodeWorkers = 0
	}
	sum := newSummary(opts)
	err := inOrder(len(flights), workers, func(i int) *FlightResult {
		return compareFlight(flights[i], &opts, decodeWorkers)
	}, func(next int, r *FlightResult) error {
		sum.add(r)
		if err := w.Flight(r); err != nil {
			return err
		}
		if opts.Progress != nil {
			opts.Progress(next, len(flights))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sum.finish()
	return sum, nil
}

// inOrder runs work(i) for i in [0, n) on workers goroutines and hands
// each result to emit in the order of i, with the number emitted so far.
// At most two results per worker wait for an earlier one, so memory does
// not grow with n. An error from emit stops the work: no i is started
// after it, and inOrder returns it once the workers are done.
func inOrder(n, workers int, work func(i int) *FlightResult, emit func(done int, r *FlightResult) error) error {
	type done struct {
		i int
		r *FlightResult
	}
	slots := make(chan struct{}, 2*workers) // taken but not yet emitted, at most
	jobs := make(chan int)
	results := make(chan done)
	quit := make(chan struct{})
	go func() {
		defer close(jobs)
		for i := range n {
			select {
			case slots <- struct{}{}:
			case <-quit:
				return
			}
			select {
			case jobs <- i:
			case <-quit:
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results <- done{i, work(i)}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()
	pending := map[int]*FlightResult{}
	next := 0
	var err error
	for d := range results {
		if err != nil {
			continue // draining the workers after an error
		}
		pending[d.i] = d.r
		for r, ok := pending[next]; ok; r, ok = pending[next] {
			delete(pending, next)
			next++
			if err = emit(next, r); err != nil {
				close(quit)
				break
			}
			<-slots
		}
	}
	return err
}

// compareFlight opens, re-decides and compares one flight.
func compareFlight(f Flight, opts *Options, decodeWorkers int) *FlightResult {
	res := &FlightResult{Path: f.Name, Candidate: opts.Candidate.ID(), Baseline: baselineName(opts.Baseline)}
	in, err := f.Open()
	if err != nil {
		res.Status, res.Error = StatusUnreadable, capText(err.Error(), 300)
		return finishResult(res)
	}
	if in.Close != nil {
		defer in.Close()
	}
	res.Format = in.Format
	baseline := opts.Baseline
	if baseline == nil {
		baseline = in.Baseline
	}
	res.Baseline = baselineName(baseline)
	if baseline == nil && in.DecisionsTopic == "" {
		res.Status, res.Error = StatusNotCompared, "the flight holds no decisions: give a baseline policy to compare with"
		return finishResult(res)
	}
	c := NewComparison(opts.Compare)
	ro := audit.RedecideOptions{
		Session:       in.Session,
		Policies:      []decisions.Policy{opts.Candidate},
		Format:        in.DecisionFormat,
		Total:         in.Total,
		DecodeWorkers: decodeWorkers,
		OnDecided: func(i int, r decisions.Rationale) {
			d := Decision{StampNs: r.BeliefStampSimNs, Kind: r.Decision.Kind, Reason: r.Decision.Reason}
			if i == 0 {
				c.Candidate(d)
			} else {
				c.Baseline(d)
			}
		},
	}
	if baseline != nil {
		ro.Policies = append(ro.Policies, baseline)
	} else {
		ro.DecisionsTopic = in.DecisionsTopic
		ro.OnRecorded = func(_ int64, r *decisions.Rationale, err error) {
			if err != nil {
				c.SkipRecorded()
				return
			}
			c.RecordedPolicy(r.PolicyID)
			c.Baseline(Decision{StampNs: r.BeliefStampSimNs, Kind: r.Decision.Kind, Reason: r.Decision.Reason})
		}
	}
	if opts.OnCorrupt != nil {
		ro.OnCorrupt = func(err error) { opts.OnCorrupt(f.Name, err) }
	}
	_, rerr := audit.Redecide(in.Source, ro)
	if rerr == nil && in.Damage != nil {
		if d := in.Damage(); d != nil {
			rerr = &audit.IncompleteReadError{Err: d}
		}
	}
	named := res
	res = c.Finish()
	res.Path, res.Format, res.Baseline, res.Candidate = named.Path, named.Format, named.Baseline, named.Candidate
	var incomplete *audit.IncompleteReadError
	switch {
	case errors.As(rerr, &incomplete):
		res.Status, res.Error = StatusTruncated, capText(incomplete.Err.Error(), 300)
	case rerr != nil:
		res.Status, res.Error = StatusUnreadable, capText(rerr.Error(), 300)
	case res.Compared == 0:
		res.Status, res.Error = StatusNotCompared, notCompared(res, baseline == nil)
	default:
		res.Status = StatusCompared
	}
	return finishResult(res)
}

// notCompared says why a flight read to its end had no stamp both sides
// decided.
func notCompared(r *FlightResult, recorded bool) string {
	switch {
	case recorded && r.OnlyBaseline == 0 && r.OnlyCandidate > 0:
		return fmt.Sprintf("the recording holds no decisions (the candidate decided %d beliefs): give a baseline policy to compare with", r.OnlyCandidate)
	case r.OnlyBaseline == 0 && r.OnlyCandidate == 0:
		return "no belief was decided"
	}
	return fmt.Sprintf("no stamp was decided by both sides (%d by the baseline only, %d by the candidate only)", r.OnlyBaseline, r.OnlyCandidate)
}

// finishResult fills the JSON type and empty lists (written as [] rather
// than null, for readers of the JSON lines).
func finishResult(r *FlightResult) *FlightResult {
	r.Type = "flight"
	if r.BaselineKinds == nil {
		r.BaselineKinds = []KindCount{}
	}
	if r.CandidateKinds == nil {
		r.CandidateKinds = []KindCount{}
	}
	if r.KindPairs == nil {
		r.KindPairs = []KindPair{}
	}
	if r.Onsets == nil {
		r.Onsets = []Onset{}
	}
	if r.Reasons == nil {
		r.Reasons = []ReasonChange{}
	}
	if r.NewKinds == nil {
		r.NewKinds = []string{}
	}
	if r.Rows == nil {
		r.Rows = []Row{}
	}
	return r
}

// baselineName is what the output calls the baseline of a flight.
func baselineName(p decisions.Policy) string {
	if p != nil {
		return p.ID()
	}
	return baselineRecorded
}

// capText shortens s to at most n bytes, marking the cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
