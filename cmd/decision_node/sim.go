package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/sim"
)

const simDescription = `
Simulates a flight with the embedded vehicle and decides it: the vehicle
publishes beliefs with a 15x15 covariance (takeoff, nominal flight, GPS loss
and recovery, an estimator reset, battery drain, landing), their
self-assessments (computed with the configured thresholds; silent for a
stretch) and perception modes, each stamped with the time it would reach the
node. They go through the same decision path as the live node and replay,
and everything is written to one recording: the inputs and /decisions.
Every branch of the reference policy occurs. The same flags always give the
same bytes.

--truth also records the simulator's ground truth (position, velocity and
attitude every 10 ms on /ground_truth/*, in the simulator's own world
frame), which no decision reads: 'decision_node honesty' compares the
beliefs with it. The estimator's scripted error is honest except where the
barometer drifts as the GPS comes back (docs/honesty.md).

With --executor px4 the decisions act on a simulated PX4, and the
vehicle reports a PX4's health in its beliefs (the receiver's fix, the
estimator's flags and PX4's failsafe flags, which lose the fix, stop
fusing it and flag the global position invalid through the GPS loss), for
policies with gnss, estimator and px4_failsafe conditions. The PX4 answers
each action on a script (--px4-script; by default a cycle that shows every
outcome: a slow mode change, dropped sends, a denial, ...). --px4-deny,
--px4-reject and --px4-never-reach make every action of the kinds they
name be denied, temporarily rejected, or accepted and never reached,
whatever the script says, so each escalation path of a policy runs; verify
re-checks such a recording with the same --executor flags (the --px4-*
flags only shape the simulated vehicle and are not needed there).`

const simExample = `  decision_node sim --out flight.mcap --duration 120s --rate 50
  decision_node verify flight.mcap

  # Escalation: a simulated PX4 that accepts everything but never enters
  # loiter, and denies every land.
  decision_node sim --out esc.mcap --policy-file config/policies/px4_failsafe_escalating.yaml \
      --executor px4 --px4-script accept --px4-never-reach hold --px4-deny engage_land
  decision_node verify --policy-file config/policies/px4_failsafe_escalating.yaml --executor px4 esc.mcap`

// maxSimRate is the simulator's highest belief rate.
const maxSimRate = 10000

func runSim(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sim", simDescription, simExample, stdout)
	out := fs.String("out", "flight.mcap", "output recording (`file`, MCAP); replaced if it exists")
	duration := fs.Duration("duration", 120*time.Second, "simulated flight time")
	rate := fs.Float64("rate", 50, "belief rate in `Hz`")
	withTruth := fs.Bool("truth", false, "also record the simulator's ground truth on /ground_truth/* (for decision_node honesty)")
	var df decisionFlags
	df.register(fs.FlagSet)
	var ef executorFlags
	ef.register(fs.FlagSet)
	var pf simPX4Flags
	pf.register(fs.FlagSet)
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fail(exitUsage, "sim takes no arguments, got %s", quoteArgs(fs.Args()))
	}
	if *duration <= 0 {
		return fail(exitUsage, "--duration %v: must be > 0", *duration)
	}
	switch {
	case !(*rate > 0 && *rate <= maxSimRate): // NaN too
		return fail(exitUsage, "--rate %v: must be > 0 and at most %v Hz", *rate, maxSimRate)
	case 1e9 / *rate > float64(*duration):
		return fail(exitUsage, "--rate %v Hz: one belief every %.3g s, fewer than one in --duration %v", *rate, 1 / *rate, *duration)
	}
	cfg, sopts, err := df.session()
	if err != nil {
		return err
	}
	df.inputs = fs.inputsWith(cfg)
	if err := fs.checkOutputs(df.inputs); err != nil {
		return err
	}
	var logTo io.Writer = stderr
	if df.quiet {
		logTo = nil
	}
	if ef.simPX4, err = pf.options(); err != nil {
		return err
	}
	if err := ef.apply(&sopts, true, logTo); err != nil {
		return err
	}
	// Acting through PX4, the simulated vehicle is a PX4 and reports its
	// health as one.
	actsOnPX4 := slices.ContainsFunc(sopts.Executors, func(e session.Executor) bool { return e.ID() == "px4" })
	if pf.set() && !actsOnPX4 {
		return fail(exitUsage, "--px4-script, --px4-deny, --px4-reject and --px4-never-reach shape the simulated PX4: they need --executor px4")
	}
	vehicle, err := sim.NewVehicle(sim.Options{Duration: *duration, RateHz: *rate, Thresholds: cfg.Thresholds, Truth: *withTruth, Health: actsOnPX4})
	if err != nil {
		return fail(exitUsage, "%w", err)
	}
	src := sim.NewPublisher(vehicle, sopts.Inputs)
	// The simulation is reproducible from its flags, so its output is
	// replaced without asking.
	df.force = true
	if _, err := df.decideInto("sim", src, src.Total(), "", *out, cfg, sopts, stderr); err != nil {
		return err
	}
	if !df.quiet {
		rec := *out
		if strings.HasPrefix(rec, "-") {
			rec = "./" + rec // not a flag to verify
		}
		verify := append(append([]string{"decision_node", "verify", rec}, df.verifyArgs(cfg)...), ef.verifyArgs()...)
		fmt.Fprintf(stderr, "verify it with: %s\n", quoteArgs(verify))
		if *withTruth {
			fmt.Fprintf(stderr, "compare its beliefs with the truth: decision_node honesty %s\n", quoteArgs([]string{rec}))
		}
	}
	return nil
}
