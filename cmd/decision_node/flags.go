package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/nodeconfig"
	"github.com/ghost-robotics/ghost/pkg/runner"
)

// errHelp marks a -h request: usage was printed, exit 0.
var errHelp = flag.ErrHelp

// newFlags returns a flag set whose -h prints the command's description,
// its flags and an example.
func newFlags(name, synopsis, description, example string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: decision_node %s\n\n%s\n\nFlags:\n", synopsis, strings.TrimSpace(description))
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nExample:\n%s\n", example)
	}
	return fs
}

// parseFlags parses args, mapping -h to exit 0 and bad flags to exit 2.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &exitError{code: exitOK, err: errHelp}
		}
		return &exitError{code: exitUsage, err: err}
	}
	return nil
}

// decisionFlags are the flags of every command that decides: the node's
// configuration, optionally from a ROS 2 parameters file, with overrides.
type decisionFlags struct {
	config      string
	policy      string
	policyFiles []string
	timeout     time.Duration
	compression string
	chunkSize   int64
	quiet       bool
	force       bool
	// signingKeyFile seals the output (seals.go).
	signingKeyFile string
}

func (f *decisionFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "ROS 2 parameters `file` (as config/decision.yaml); default: the built-in defaults")
	fs.StringVar(&f.policy, "policy", "", "decision policy `id` (default from the configuration: "+decisions.ReferencePolicyID+")")
	fs.Func("policy-file", "YAML rule policy `file` (config/policies/*.yaml); it decides instead of --policy (repeatable for verify: the recorded id picks the one to run)",
		func(s string) error { f.policyFiles = append(f.policyFiles, s); return nil })
	fs.DurationVar(&f.timeout, "assessment-timeout", 0, "how long a belief waits for its self-assessment (default from the configuration: 100ms)")
	fs.StringVar(&f.compression, "compression", "", "output chunk compression: zstd, lz4 or none (default from the configuration: zstd)")
	fs.Int64Var(&f.chunkSize, "chunk-size", 0, "output chunk size in `bytes`; a crash loses at most the open chunk (default 1 MiB)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress and no summary on stderr")
	fs.BoolVar(&f.force, "force", false, "replace the output file if it exists (recordings are never overwritten otherwise)")
	fs.StringVar(&f.signingKeyFile, "signing-key", "", "Ed25519 private key `file` (PEM, openssl genpkey -algorithm ed25519) that seals the output: a new claim by that key's holder, never the vehicle's (docs/seals.md); without it nothing is sealed")
}

// createOutput starts the output recording in a temporary file beside out
// (see atomicFile): an existing file is an error unless --force, and
// never the input itself nor anything but a regular file.
func (f *decisionFlags) createOutput(path string, in string, cfg nodeconfig.Config) (*bag.Recorder, *atomicFile, error) {
	file, err := createAtomic("--out", path, in, f.force)
	if err != nil {
		return nil, nil, err
	}
	rec, err := bag.NewRecorder(file, recorderOptions(cfg))
	if err != nil {
		file.Abort()
		return nil, nil, fail(exitIO, "%s: %w", path, err)
	}
	return rec, file, nil
}

// settings resolves the configuration: built-in defaults, then --config,
// then the flags.
func (f *decisionFlags) settings() (nodeconfig.Config, error) {
	cfg := nodeconfig.Default()
	if f.config != "" {
		c, err := nodeconfig.FromParamsFile(f.config)
		if err != nil {
			return cfg, &exitError{code: exitIO, err: err}
		}
		cfg = c
	}
	if f.policy != "" {
		cfg.Policy = f.policy
		cfg.PolicyFile = ""
	}
	switch {
	case len(f.policyFiles) == 1:
		cfg.PolicyFile = f.policyFiles[0]
	case len(f.policyFiles) > 1 && f.policy == "":
		return cfg, fail(exitUsage, "%d --policy-file flags: a decision is taken by one policy (several are for verify)", len(f.policyFiles))
	}
	if f.timeout != 0 {
		cfg.AssessmentTimeout = f.timeout
	}
	if f.compression != "" {
		cfg.Recording.Compression = f.compression
	}
	if f.chunkSize != 0 {
		cfg.Recording.ChunkSize = f.chunkSize
	}
	if err := cfg.Validate(); err != nil {
		return cfg, &exitError{code: exitUsage, err: err}
	}
	return cfg, nil
}

// session resolves the configuration and the runner's options from it.
func (f *decisionFlags) session() (nodeconfig.Config, runner.SessionOptions, error) {
	cfg, err := f.settings()
	if err != nil {
		return cfg, runner.SessionOptions{}, err
	}
	sopts, err := cfg.SessionOptions()
	if err != nil {
		return cfg, sopts, &exitError{code: exitUsage, err: err}
	}
	// A recording with the node's transition events was made by a managed
	// node: follow them even when the configuration does not say so.
	sopts.LifecycleFromEvents = true
	return cfg, sopts, nil
}

// decideInto drives src through a fresh session into a new recording at
// out (in names the input, "" for none), showing progress and, unless
// quiet, the summary; a truncated source is a finding (exit 1) after the
// output is completed.
func (f *decisionFlags) decideInto(label string, src audit.Source, total uint64, in, out string,
	cfg nodeconfig.Config, sopts runner.SessionOptions, stderr io.Writer) error {
	key, err := f.signingKey()
	if err != nil {
		return err
	}
	signals := watchSignals()
	defer signals.release()
	rec, file, err := f.createOutput(out, in, cfg)
	if err != nil {
		return err
	}
	defer file.Abort() // after a successful Commit, a no-op
	dst, closeDst, err := sealedOutput(rec, key, cfg)
	if err != nil {
		return err
	}
	progress := newProgress(stderr, label, f.quiet)
	res, rerr := audit.Replay(src, dst, audit.ReplayOptions{
		Stop:           signals.Stop(),
		Session:        sopts,
		DecisionsTopic: decisionsTopic(cfg),
		Total:          total,
		OnProgress:     progress.update,
		OnCorrupt: func(err error) {
			fmt.Fprintf(stderr, "decision_node: %s: skipped: %v\n", label, err)
		},
		OnStepFailure: func(err error) {
			fmt.Fprintf(stderr, "decision_node: %s: %v\n", label, err)
		},
	})
	sig := signals.release()
	cerr := closeDst()
	if cerr == nil && (rerr == nil || res != nil && res.Truncated != nil) {
		// Complete (up to the damage of a truncated input): into place.
		cerr = file.Commit()
	}
	if res != nil && !f.quiet {
		printDecisionSummary(stderr, res.Counters, res.Stats, res.Messages, out)
	}
	switch {
	case cerr != nil:
		var ee *exitError
		if errors.As(cerr, &ee) {
			return cerr
		}
		return fail(exitIO, "write %s: %w", out, cerr)
	case rerr != nil && res != nil && res.Truncated != nil:
		return fail(exitFindings, "%s: %w (output %s is complete up to there)", in, rerr, out)
	case rerr != nil:
		return fail(exitIO, "%s: %w", label, rerr)
	case res.Stopped:
		return fail(exitCode(sig), "%s: stopped by %s after %d messages; %s is complete up to there", label, signalName(sig), res.Messages, out)
	}
	return nil
}

// decisionsTopic is the resolved decisions topic of a validated
// configuration.
func decisionsTopic(cfg nodeconfig.Config) string {
	t, err := cfg.ResolvedTopics()
	if err != nil {
		return runner.DefaultTopics().Decisions()
	}
	return t.Decisions()
}

// actionsTopic is the resolved action receipts topic of a validated
// configuration.
func actionsTopic(cfg nodeconfig.Config) string {
	t, err := cfg.ResolvedTopics()
	if err != nil || t.Actions() == "" {
		return runner.DefaultTopics().Actions()
	}
	return t.Actions()
}

// recorderOptions maps the configuration onto the recorder's options. The
// outputs of sim and replay are reproducible from their inputs, so they
// skip the per-chunk fsync that protects a live recording; Close still
// syncs.
func recorderOptions(cfg nodeconfig.Config) bag.RecorderOptions {
	return bag.RecorderOptions{
		Compression: bag.Compression(cfg.Recording.Compression),
		ChunkSize:   cfg.Recording.ChunkSize,
		NoSync:      true,
	}
}
