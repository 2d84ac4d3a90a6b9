package audit

import (
	"fmt"
	"runtime"
	"time"

	"github.com/ghost-robotics/ghost/msg"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/seal"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Defaults of VerifyOptions.
const (
	DefaultMaxHeld     = 65536
	DefaultMaxProblems = 100
)

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Session is the recording host's session configuration, supplied by
	// this host (never taken from the recording), that every candidate
	// policy's Session re-decides the recording with: its inputs with
	// their topics (default session.DefaultInputs()), its Loop (the timeout
	// and bounds must be the recording host's; the Loop's Policy is
	// ignored: see Policies), its executors, enables and target vehicle
	// (the action trail is re-derived with them; executors must send
	// nothing, and they may be shared by the Sessions) and its lifecycle.
	Session session.SessionOptions
	// DecisionsTopic is the topic of the recorded decisions (default
	// "/decisions").
	DecisionsTopic string
	// Policies are the policies the host supplies; a recorded decision is
	// re-run with the one whose ID it names. Default: the built-in policies.
	Policies []decisions.Policy
	// Relax lists findings that are reported but do not fail the verdict.
	Relax []Finding
	// MaxHeld bounds the assessments kept for the chain check, the recorded
	// decisions waiting for their re-decision and the re-decisions waiting
	// for their recorded decision; the oldest go first. Default 65536.
	MaxHeld int
	// MaxProblems bounds the report's problem and note lists; counts stay
	// exact. Default 100.
	MaxProblems int
	// Total, ProgressEvery and OnProgress report progress as in Replay.
	Total         uint64
	ProgressEvery uint64
	OnProgress    func(Progress)
	// OnCorrupt, if set, is called for every input message that does not
	// decode; it is skipped and counted in the report's inputs.
	OnCorrupt func(error)
	// Format decodes the recording's decisions and, when its assessments
	// reach the Loop through another topic, the recorded assessments of the
	// chain check. Default: ghost's CDR messages (CDRFormat).
	Format Format
	// OnAudit, if set, receives every recorded decision's verdict in the
	// order audited (log-time order of the decisions).
	OnAudit func(DecisionAudit)
	// ActionsTopic is the topic of the recorded action receipts (default
	// "/decisions/actions").
	ActionsTopic string
	// TargetFrom says where Session.TargetVehicle came from (ChooseTarget);
	// the report names both (AuditReport.Target).
	TargetFrom TargetSource
	// ReceiptTimeSkew is the largest difference accepted between a
	// recorded receipt's time and the time re-derived from the log times.
	// Zero (exact) suits a recording the node wrote itself, whose log
	// times are its arrival times; a recorder such as rosbag2 logs at its
	// own receive time, later by its latency (RecorderTimeSkew).
	ReceiptTimeSkew time.Duration
	// DecodeWorkers is how many goroutines decode the recording (and hash
	// its assessments) ahead of the Loop, besides the one reading it. Zero
	// means one per core beyond the first, at most MaxDecodeWorkers (none
	// on one core); negative means none. Whatever its value, a recording
	// whose Total is known and below MinDecodeWorkerMessages gets none
	// (leave Total 0 to have workers decode it anyway). With none, one
	// goroutine reads, decodes and audits: the least CPU (about a fifth
	// less than with workers, which buy wall time with hand-overs between
	// cores), as suits several verifications running side by side.
	DecodeWorkers int
	// Observer, if set, sees every message read with what was decoded of
	// it, before the audit takes it.
	Observer Observer
	// Seals, when set, checks the recording against its seals (see
	// seal.Checker; its Reads is set here to the topics this audit reads)
	// and reports them: with trusted keys a break is FindingSealBroken,
	// without them the seals are only counted. Nil ignores seals.
	Seals *seal.CheckOptions
}

// MaxDecodeWorkers bounds the default decode workers: decoding is about
// two thirds of verify's work and the Loop's goroutine the rest, so more
// workers would wait for the Loop while their batches held memory.
const MaxDecodeWorkers = 3

// MinDecodeWorkerMessages is the size of a recording, in messages, below
// which it is verified with no decode workers: starting and feeding them costs
// more than they save. On 2 cores a typical flight verifies as fast on one
// goroutine and far cheaper in CPU; the wall times meet a little below
// this size (BENCHMARKS.md, "Ratios to the floor", the sim flights).
const MinDecodeWorkerMessages = 50_000

func (o *VerifyOptions) decodeWorkers() int {
	switch {
	case o.DecodeWorkers < 0, o.Total > 0 && o.Total < MinDecodeWorkerMessages:
		return 0
	case o.DecodeWorkers == 0:
		return min(runtime.GOMAXPROCS(0)-1, MaxDecodeWorkers)
	}
	return o.DecodeWorkers
}

// RecorderTimeSkew is the receipt time skew accepted for recordings
// another recorder wrote: a recorder more than a second behind the node
// has stalled, and the trail it logged is no longer the node's.
const RecorderTimeSkew = time.Second

// Format is how a recording encodes what verify reads besides the Loop's
// inputs.
type Format struct {
	// DecisionSchemas are the schema names a decisions channel may have.
	DecisionSchemas []string
	// NewDecodeDecision returns a decoder of one recorded decision (one per
	// goroutine).
	NewDecodeDecision func() func(data []byte) (decisions.Rationale, error)
	// ChainTopic, when set, is the topic of the recorded self-assessments
	// the chain check hashes, decoded by a decoder from NewDecodeChain (one
	// per goroutine); when empty it is the ChainOnly assessment input's (a
	// calibrated input replaces it), and without one the chain check hashes
	// the assessments the Loop's inputs deliver.
	ChainTopic     string
	NewDecodeChain func() func(data []byte) (decisions.SelfAssessment, error)
}

// CDRFormat is ghost's own: ghost/msg/DecisionRationale in CDR, the chain
// checked against the assessment input.
func CDRFormat() Format {
	return Format{
		DecisionSchemas: []string{msg.SchemaName("DecisionRationale"), "ghost/DecisionRationale"},
		NewDecodeDecision: func() func([]byte) (decisions.Rationale, error) {
			var dr ros2msg.DecisionRationale
			var strs ros2msg.StringCache // reasons and the policy id repeat
			return func(data []byte) (decisions.Rationale, error) {
				if err := dr.UnmarshalCDRCached(data, &strs); err != nil {
					return decisions.Rationale{}, err
				}
				return ros2msg.RationaleFromWire(&dr), nil
			}
		},
	}
}

// chainOnlyInput returns the topic and decoders of the ChainOnly assessment
// input, when a calibrated input replaces it: the raw assessments the
// chain check hashes are then on their own topic, as in a reference
// recording. It returns "", nil when there is none.
func chainOnlyInput(inputs []session.InputSpec) (string, func() func([]byte) (decisions.SelfAssessment, error)) {
	for _, in := range inputs {
		if !in.ChainOnly || in.Kind != engine.InputAssessment {
			continue
		}
		return in.Topic, func() func([]byte) (decisions.SelfAssessment, error) {
			decode := in.NewDecode()
			var d session.Decoded
			return func(data []byte) (decisions.SelfAssessment, error) {
				if err := decode(data, 0, nil, &d); err != nil {
					return decisions.SelfAssessment{}, err
				}
				a, ok := d.Assessment()
				if !ok {
					return decisions.SelfAssessment{}, fmt.Errorf("input %s decodes to %T, not an assessment", in.Key, d.Event())
				}
				return a.Assessment, nil
			}
		}
	}
	return "", nil
}

// resolved fills in the defaults and checks the topics and the format.
func (opts VerifyOptions) resolved() (VerifyOptions, error) {
	if opts.Session.Inputs == nil {
		opts.Session.Inputs = session.DefaultInputs()
	}
	if opts.DecisionsTopic == "" {
		opts.DecisionsTopic = session.DefaultTopics().Decisions()
	}
	if opts.MaxHeld <= 0 {
		opts.MaxHeld = DefaultMaxHeld
	}
	if opts.Format.NewDecodeDecision == nil {
		opts.Format = CDRFormat()
	}
	if opts.MaxProblems <= 0 {
		opts.MaxProblems = DefaultMaxProblems
	}
	if opts.ActionsTopic == "" {
		opts.ActionsTopic = session.DefaultTopics().Actions()
	}
	if err := session.CheckTopics(opts.Session.Inputs, session.Topics{session.KeyDecisions: opts.DecisionsTopic, session.KeyActions: opts.ActionsTopic}); err != nil {
		return opts, fmt.Errorf("verify: %w", err)
	}
	opts.Session.Inputs = session.Enabled(opts.Session.Inputs)
	if opts.Format.ChainTopic == "" {
		opts.Format.ChainTopic, opts.Format.NewDecodeChain = chainOnlyInput(opts.Session.Inputs)
	} else if opts.Format.NewDecodeChain == nil {
		return opts, fmt.Errorf("verify: Format.ChainTopic %q without NewDecodeChain", opts.Format.ChainTopic)
	}
	if opts.Policies == nil {
		for _, id := range decisions.PolicyIDs() {
			p, _ := decisions.LookupPolicy(id)
			opts.Policies = append(opts.Policies, p)
		}
	}
	return opts, nil
}
