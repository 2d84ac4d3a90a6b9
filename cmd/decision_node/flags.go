package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// errHelp marks a -h request: the help was printed, exit 0.
var errHelp = flag.ErrHelp

// cmdFlags is a command's flag set. Its help (-h, --help, anywhere before
// "--" or --ros-args) goes to stdout; a parse error is returned as a usage
// error, which run prints as one line with the command's synopsis.
type cmdFlags struct {
	*flag.FlagSet
	name, description, example string
	stdout                     io.Writer
	args                       []string // the arguments that are not flags
	named                      inputs   // the input flags' values (inputs.go)
}

// newFlags returns the flag set of the command called name.
func newFlags(name, description, example string, stdout io.Writer) *cmdFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &cmdFlags{FlagSet: fs, name: name, description: description, example: example, stdout: stdout}
}

// parse parses args: a help request prints the help and returns errHelp
// (exit 0); a bad flag is a usage error (exit 2) saying what is wrong in
// the user's spelling (--flag).
func (c *cmdFlags) parse(args []string) error {
	if helpRequested(args) {
		c.printHelp()
		return &exitError{code: exitOK, err: errHelp}
	}
	c.recordInputs()
	// Flags may follow arguments (verify flight.mcap --json r.json), as
	// in most command-line tools; after "--" everything is an argument.
	for {
		if err := c.Parse(args); err != nil {
			return &exitError{code: exitUsage, err: c.explain(err)}
		}
		rest := c.FlagSet.Args()
		if len(rest) == 0 {
			return nil
		}
		if len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			c.args = append(c.args, rest...)
			return nil
		}
		c.args, args = append(c.args, rest[0]), rest[1:]
	}
}

// Args are the arguments that are not flags, wherever they stood.
func (c *cmdFlags) Args() []string { return c.args }

// NArg is len(Args()).
func (c *cmdFlags) NArg() int { return len(c.args) }

// Arg is the i-th argument, "" if there is none.
func (c *cmdFlags) Arg(i int) string {
	if i < 0 || i >= len(c.args) {
		return ""
	}
	return c.args[i]
}

// need is the usage error of a command given arguments it does not take or
// missing one of its required flags, nil when all is well.
func (c *cmdFlags) need(required ...string) error {
	if c.NArg() > 0 {
		hint := ""
		if in := c.Lookup("in"); in != nil && in.Value.String() == "" {
			hint = ": name the input with --in"
		}
		return fail(exitUsage, "%s takes no arguments, got %s%s", c.name, quoteArgs(c.Args()), hint)
	}
	var missing []string
	for _, name := range required {
		if f := c.Lookup(name); f != nil && f.Value.String() == "" {
			missing = append(missing, "--"+name)
		}
	}
	if len(missing) > 0 {
		return fail(exitUsage, "%s needs %s", c.name, strings.Join(missing, " and "))
	}
	return nil
}

// oneRecording is the single recording a command takes as its argument, or
// the usage error of none or several.
func (c *cmdFlags) oneRecording() (string, error) {
	switch {
	case c.NArg() == 0:
		return "", fail(exitUsage, "%s needs a recording", c.name)
	case c.NArg() > 1:
		return "", fail(exitUsage, "%s takes one recording, got also %s", c.name, quoteArgs(c.Args()[1:]))
	}
	return c.Arg(0), nil
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "--h", "-help", "--help":
		return true
	}
	return false
}

// helpRequested reports whether args ask for help before "--" or
// --ros-args (what follows those belongs to something else).
func helpRequested(args []string) bool {
	for _, a := range args {
		if a == "--" || a == "--ros-args" {
			return false
		}
		if isHelp(a) {
			return true
		}
	}
	return false
}

// printHelp writes the command's synopsis, description, flags and example.
func (c *cmdFlags) printHelp() {
	w := c.stdout
	synopsis := ""
	if cmd := lookupCommand(c.name); cmd != nil && cmd.synopsis != "" {
		synopsis = " " + cmd.synopsis
	}
	fmt.Fprintf(w, "Usage: decision_node %s%s\n\n%s\n", c.name, synopsis, strings.TrimSpace(c.description))
	n := 0
	c.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprint(w, "\nFlags:\n")
		c.VisitAll(func(f *flag.Flag) { printFlag(w, f) })
	}
	fmt.Fprintf(w, "\nExample:\n%s\n", c.example)
}

// printFlag writes one flag as flag.PrintDefaults does, but spelt --flag
// as users type it.
func printFlag(w io.Writer, f *flag.Flag) {
	name, usage := flag.UnquoteUsage(f)
	line := "  --" + f.Name
	if name != "" {
		line += " " + name
	}
	fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
	default:
		if _, ok := flagValue(f).(string); ok {
			fmt.Fprintf(w, " (default %q)", f.DefValue)
		} else {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
	}
	fmt.Fprintln(w)
}

// flagValue is the flag's current value, nil for a flag.Value that does
// not say.
func flagValue(f *flag.Flag) any {
	if g, ok := f.Value.(flag.Getter); ok {
		return g.Get()
	}
	return nil
}

// explain rewrites the flag package's error in the user's spelling
// (--flag), with what a value should look like and, for an unknown flag,
// the closest one.
func (c *cmdFlags) explain(err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		var names []string
		c.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if s := suggest(name, names); s != "" {
			return fmt.Errorf("unknown flag --%s (did you mean --%s?)", capText(name, 40), s)
		}
		return fmt.Errorf("unknown flag --%s", capText(name, 40))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return fmt.Errorf("--%s needs a value", strings.TrimLeft(name, "-"))
	}
	var value, name string
	if n, _ := fmt.Sscanf(msg, "invalid value %q for flag -%s", &value, &name); n == 2 {
		name = strings.TrimSuffix(name, ":")
		if f := c.Lookup(name); f != nil {
			why := msg[strings.Index(msg, ": ")+2:]
			return fmt.Errorf("--%s %s: %s", name, shellQuote(capText(value, 40)), valueHint(f, why))
		}
	}
	if n, _ := fmt.Sscanf(msg, "invalid boolean value %q for -%s", &value, &name); n == 2 {
		return fmt.Errorf("--%s=%s: want true or false", strings.TrimSuffix(name, ":"), shellQuote(capText(value, 40)))
	}
	return errors.New(strings.ReplaceAll(msg, " -", " --"))
}

// valueHint says what a flag's value should look like, after the parse
// error why.
func valueHint(f *flag.Flag, why string) string {
	switch flagValue(f).(type) {
	case time.Duration:
		return "not a duration: write it with a unit, such as 2s, 500ms or 1m30s"
	case int, int64:
		return "not a whole number"
	case uint, uint64:
		return "not a whole number of at least 0"
	case float64:
		return "not a number"
	}
	return why
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
	// inputs are every file the command reads, which no output may
	// replace (inputs.go); the command sets them once it has read its
	// configuration.
	inputs inputs
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

// verifyArgs are the flags verify needs to audit what these flags decided
// with cfg: the parameters file (topics, executors, a policy file it
// names) and the rule policy file given on the command line. Built-in
// policies need none: verify always has them.
func (f *decisionFlags) verifyArgs(cfg config.Config) []string {
	var args []string
	if f.config != "" {
		args = append(args, "--config", f.config)
	}
	if cfg.PolicyFile != "" && len(f.policyFiles) == 1 && cfg.PolicyFile == f.policyFiles[0] {
		args = append(args, "--policy-file", cfg.PolicyFile)
	}
	return args
}

// createOutput starts the output recording in a temporary file beside out
// (see atomicFile): an existing file is an error unless --force, and
// never an input nor anything but a regular file.
func (f *decisionFlags) createOutput(path string, cfg config.Config) (*bag.Recorder, *atomicFile, error) {
	file, err := createAtomic("--out", path, f.inputs, f.force)
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
func (f *decisionFlags) settings() (config.Config, error) {
	cfg := config.Default()
	if f.config != "" {
		c, err := config.FromParamsFile(f.config)
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
		// An unusable file is an unusable input (exit 3), told as such
		// before the configuration names it as a parameter.
		if _, err := rules.ParseFile(f.policyFiles[0]); err != nil {
			return cfg, fail(exitIO, "--policy-file: %w", err)
		}
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
		return cfg, &exitError{code: inputOrUsage(err), err: err}
	}
	return cfg, nil
}

// inputOrUsage is the exit status of a configuration error: 3 when a file
// it names cannot be read or parsed (an unusable input), else 2 (a flag's
// value).
func inputOrUsage(err error) int {
	var pathErr *fs.PathError
	var parseErr *rules.ParseError
	if errors.As(err, &pathErr) || errors.As(err, &parseErr) || errors.Is(err, limitedfile.ErrTooLarge) || errors.Is(err, limitedfile.ErrNotRegular) ||
		errors.Is(err, config.ErrParamsFile) {
		return exitIO
	}
	return exitUsage
}

// session resolves the configuration and the session's options from it.
func (f *decisionFlags) session() (config.Config, session.SessionOptions, error) {
	cfg, err := f.settings()
	if err != nil {
		return cfg, session.SessionOptions{}, err
	}
	sopts, err := cfg.SessionOptions()
	if err != nil {
		return cfg, sopts, &exitError{code: inputOrUsage(err), err: err}
	}
	// A recording with the node's transition events was made by a managed
	// node: follow them even when the configuration does not say so.
	sopts.LifecycleFromEvents = true
	return cfg, sopts, nil
}

// decideInto drives src through a fresh session into a new recording at
// out (in names the input, "" for none), showing progress and, unless
// quiet, the summary; a truncated source is a finding (exit 1) after the
// output is completed. It returns the number of decisions made.
func (f *decisionFlags) decideInto(label string, src audit.Source, total uint64, in, out string,
	cfg config.Config, sopts session.SessionOptions, stderr io.Writer) (uint64, error) {
	key, err := f.signingKey()
	if err != nil {
		return 0, err
	}
	signals := watchSignals()
	defer signals.release()
	rec, file, err := f.createOutput(out, cfg)
	if err != nil {
		return 0, err
	}
	defer file.Abort() // after a successful Commit, a no-op
	dst, closeDst, err := sealedOutput(rec, key, cfg)
	if err != nil {
		return 0, err
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
	var decided uint64
	if res != nil {
		decided = res.Counters.DecisionsTotal()
		if !f.quiet {
			printDecisionSummary(stderr, res.Counters, res.Stats, res.Messages, out)
		}
	}
	switch {
	case cerr != nil:
		var ee *exitError
		if errors.As(cerr, &ee) {
			return decided, cerr
		}
		return decided, fail(exitIO, "write %s: %w", out, cerr)
	case rerr != nil && res != nil && res.Truncated != nil:
		return decided, fail(exitFindings, "%s: %w (output %s is complete up to there)", in, rerr, out)
	case rerr != nil:
		return decided, fail(exitIO, "%s: %w", label, rerr)
	case res.Stopped:
		return decided, fail(exitCode(sig), "%s: stopped by %s after %d messages; %s is complete up to there", label, signalName(sig), res.Messages, out)
	}
	return decided, nil
}

// decisionsTopic is the resolved decisions topic of a validated
// configuration.
func decisionsTopic(cfg config.Config) string {
	t, err := cfg.ResolvedTopics()
	if err != nil {
		return session.DefaultTopics().Decisions()
	}
	return t.Decisions()
}

// actionsTopic is the resolved action receipts topic of a validated
// configuration.
func actionsTopic(cfg config.Config) string {
	t, err := cfg.ResolvedTopics()
	if err != nil || t.Actions() == "" {
		return session.DefaultTopics().Actions()
	}
	return t.Actions()
}

// recorderOptions maps the configuration onto the recorder's options. The
// outputs of sim and replay are reproducible from their inputs, so they
// skip the per-chunk fsync that protects a live recording; Close still
// syncs.
func recorderOptions(cfg config.Config) bag.RecorderOptions {
	return bag.RecorderOptions{
		Compression: bag.Compression(cfg.Recording.Compression),
		ChunkSize:   cfg.Recording.ChunkSize,
		NoSync:      true,
	}
}
