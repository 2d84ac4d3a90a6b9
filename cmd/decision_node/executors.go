package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4sim"
)

// executorFlags choose the executors of sim, replay and verify: none by
// default, so every decision is advisory.
type executorFlags struct {
	executor   string
	enable     string
	enableKill bool
	vehicle    vehicleFlag
	// recommand and maxRecommands: the re-command interval and bound
	// (0 turns re-commanding off).
	recommand     time.Duration
	maxRecommands int
	// simPX4 shapes the simulated PX4 (sim only: simPX4Flags).
	simPX4 px4sim.Options
}

func (f *executorFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.executor, "executor", "", "executor the decisions act through: px4 or log (default none: every decision is advisory); "+
		"sim answers px4 with a simulated PX4, replay and verify re-check the recorded evidence")
	fs.StringVar(&f.enable, "enable", "", "comma-separated decision `kinds` the executor may act on, or none (default with --executor: hold,yield_to_pilot,engage_rtl,engage_land); "+
		"a kind it serves that is not enabled fails as blocked_by_policy")
	fs.BoolVar(&f.enableKill, "enable-kill", false, "also enable engage_kill (a forced disarm): it is never enabled otherwise")
	fs.Var(&f.vehicle, "target-vehicle", "the vehicle's system `id` (PX4 MAV_SYS_ID), 1 to 255; evidence from any other is rejected. "+
		"Default: replay, verify, report and whatif take the vehicle the recording's first action receipt names; "+
		"without a receipt, and in sim, the --config file's executors.target_vehicle (1)")
	fs.DurationVar(&f.recommand, "recommand-interval", engine.DefaultRecommandInterval,
		"with --executor: shortest `time` between two commands of a decided kind the vehicle refused, did not reach or left; 0 never re-commands")
	fs.IntVar(&f.maxRecommands, "max-recommands", engine.DefaultMaxRecommands,
		"with --executor: re-commands per streak of one decided kind, at most 250; 0 never re-commands")
}

// verifyArgs are the flags verify needs to re-check the same executors.
func (f *executorFlags) verifyArgs() []string {
	if f.executor == "" {
		return nil
	}
	args := []string{"--executor", f.executor}
	if f.enable != "" {
		args = append(args, "--enable", f.enable)
	}
	if f.enableKill {
		args = append(args, "--enable-kill")
	}
	if f.vehicle.set && f.vehicle.id != audit.DefaultTargetVehicle {
		args = append(args, "--target-vehicle", f.vehicle.String())
	}
	if f.recommand != engine.DefaultRecommandInterval {
		args = append(args, "--recommand-interval", f.recommand.String())
	}
	if f.maxRecommands != engine.DefaultMaxRecommands {
		args = append(args, "--max-recommands", strconv.Itoa(f.maxRecommands))
	}
	return args
}

// apply adds the executors to sopts. simulated gives the px4 executor the
// simulated PX4 as its transport (sim); otherwise it sends nothing and the
// recording's evidence is re-checked (replay, verify). logTo receives the
// log executor's lines.
func (f *executorFlags) apply(sopts *session.SessionOptions, simulated bool, logTo io.Writer) error {
	if f.vehicle.set && (f.vehicle.id == 0 || f.vehicle.id > audit.MaxTargetVehicle) {
		return fail(exitUsage, "--target-vehicle %d: a PX4 system id is 1 to 255", f.vehicle.id)
	}
	if f.executor == "" {
		if f.vehicle.set {
			sopts.TargetVehicle = uint32(f.vehicle.id) // over the --config file's
		}
		if f.enable != "" || f.enableKill {
			return fail(exitUsage, "--enable and --enable-kill need --executor")
		}
		if f.recommand != engine.DefaultRecommandInterval || f.maxRecommands != engine.DefaultMaxRecommands {
			return fail(exitUsage, "--recommand-interval and --max-recommands need --executor (a --config file sets executors.recommand_interval_s and executors.max_recommands)")
		}
		if simulated {
			simulateExecutors(sopts, f.simPX4, logTo) // executors.* of a --config file
		}
		return nil
	}
	if f.recommand < 0 {
		return fail(exitUsage, "--recommand-interval %s: want 0 (never) or more", f.recommand)
	}
	if f.maxRecommands < 0 || f.maxRecommands > 250 {
		return fail(exitUsage, "--max-recommands %d: want 0 (never) to 250", f.maxRecommands)
	}
	var ex session.Executor
	switch f.executor {
	case "px4":
		opts := executor.PX4Options{}
		if simulated {
			so := f.simPX4
			so.SystemID = uint8(f.targetVehicle())
			opts.Transport = px4sim.New(so)
		}
		ex = executor.NewPX4(opts)
	case "log":
		if !simulated {
			logTo = nil // a re-check sends nothing, so it logs nothing
		}
		ex = executor.NewLog("log", executor.PX4Kinds(), nil, logTo)
	default:
		return fail(exitUsage, "--executor %q: want px4 or log", capText(f.executor, 40))
	}
	enable := slices.Clone(defaultEnable)
	if f.enable == "none" {
		enable = nil
	} else if f.enable != "" {
		enable = nil
		for _, s := range strings.Split(f.enable, ",") {
			k, err := decisions.ParseKind(strings.TrimSpace(s))
			if err != nil {
				return fail(exitUsage, "--enable %q: %w", capText(s, 40), err)
			}
			if k == decisions.KindEngageKill {
				return fail(exitUsage, "--enable engage_kill: kill has its own switch, --enable-kill")
			}
			if !slices.Contains(ex.Kinds(), k) {
				return fail(exitUsage, "--enable %s: executor %s does not act on it", k, ex.ID())
			}
			enable = append(enable, k)
		}
	}
	if f.enableKill {
		enable = append(enable, decisions.KindEngageKill)
	}
	sopts.Executors = []session.Executor{ex}
	sopts.Enable = enable
	sopts.TargetVehicle = f.targetVehicle()
	sopts.Loop.Actions.RecommandInterval, sopts.Loop.Actions.MaxRecommands = f.recommand, f.maxRecommands
	if f.recommand == 0 || f.maxRecommands == 0 {
		sopts.Loop.Actions.RecommandInterval = -1 // the Loop's "never"; its 0 means its default
	}
	return nil
}

// targetVehicle is the vehicle --executor commands: --target-vehicle, or
// the default.
func (f *executorFlags) targetVehicle() uint32 {
	if f.vehicle.set {
		return uint32(f.vehicle.id)
	}
	return audit.DefaultTargetVehicle
}

// targetChoice is how an audit of a recording picks its target vehicle
// (audit.ChooseTarget): --target-vehicle when given, else the vehicle the
// recording's first receipt names, else the one sopts, as apply left it,
// holds: the --config file's (configFile, when the executors are its) or
// the default.
func (f *executorFlags) targetChoice(sopts session.SessionOptions, configFile string) targetChoice {
	c := targetChoice{fallback: audit.Target{Vehicle: sopts.TargetVehicle, From: audit.TargetDefault}}
	if f.vehicle.set {
		c.given = uint32(f.vehicle.id)
	}
	if configFile != "" && f.executor == "" {
		c.fallback.From = audit.TargetFromConfig
	}
	return c
}

// targetChoice is what picks an audit's target vehicle: given (0: not
// given), else the recording's, else fallback.
type targetChoice struct {
	given    uint32
	fallback audit.Target
}

// of picks the target vehicle of an audit of rec's files, whose receipts
// are on actionsTopic.
func (c targetChoice) of(rec recording, actionsTopic string) (audit.Target, error) {
	t, err := audit.ChooseTarget(c.given, rec.files, actionsTopic, c.fallback)
	if err != nil {
		return t, fail(exitIO, "%s: the target vehicle: %w; --target-vehicle names it", rec.name, err)
	}
	return t, nil
}

// targetText says which vehicle an audit checked the action trail
// against, and where that came from.
func targetText(t audit.Target) string {
	var from string
	switch t.From {
	case audit.TargetGiven:
		from = "--target-vehicle"
	case audit.TargetFromReceipts:
		from = "from the recording's receipts"
	case audit.TargetFromConfig:
		from = "the --config file's executors.target_vehicle; the recording has no receipt"
	case audit.TargetDefault:
		from = "default; the recording has no receipt"
	default:
		return strconv.FormatUint(uint64(t.Vehicle), 10)
	}
	return fmt.Sprintf("%d (%s)", t.Vehicle, from)
}

// vehicleFlag is --target-vehicle: a system id, and whether it was given.
type vehicleFlag struct {
	id  uint
	set bool
}

func (v *vehicleFlag) String() string {
	if v == nil || !v.set {
		return ""
	}
	return strconv.FormatUint(uint64(v.id), 10)
}

func (v *vehicleFlag) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 0)
	if err != nil {
		return errors.New("want a system id, 1 to 255")
	}
	v.id, v.set = uint(n), true
	return nil
}

// defaultEnable are the kinds --executor enables without --enable.
var defaultEnable = []decisions.Kind{decisions.KindHold, decisions.KindYieldToPilot, decisions.KindEngageRTL, decisions.KindEngageLand}

// simulateExecutors gives the executors a --config file set (executors.*, which
// re-check recorded evidence) what sim gives --executor: the simulated PX4
// as the px4 executor's transport, logTo as the log executor's output.
func simulateExecutors(sopts *session.SessionOptions, so px4sim.Options, logTo io.Writer) {
	for i, e := range sopts.Executors {
		switch e.ID() {
		case "px4":
			so.SystemID = uint8(sopts.TargetVehicle)
			sopts.Executors[i] = executor.NewPX4(executor.PX4Options{Transport: px4sim.New(so)})
		case "log":
			sopts.Executors[i] = executor.NewLog("log", executor.PX4Kinds(), nil, logTo)
		}
	}
}

// simPX4Flags script the simulated PX4 of sim: how it answers each action,
// so that every escalation path can be run and re-checked.
type simPX4Flags struct {
	script, deny, reject, neverReach string
}

func (f *simPX4Flags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.script, "px4-script", "", "comma-separated `behaviours` the simulated PX4 gives its actions in turn, cycled: "+
		strings.Join(behaviourNames(), ", ")+" (default "+joinBehaviours(px4sim.DefaultScript())+")")
	fs.StringVar(&f.deny, "px4-deny", "", "comma-separated decision `kinds` the simulated PX4 always acknowledges DENIED")
	fs.StringVar(&f.reject, "px4-reject", "", "comma-separated decision `kinds` the simulated PX4 always acknowledges TEMPORARILY_REJECTED, "+
		"as PX4 answers a mode that cannot run now (yield_to_pilot: no pilot sticks)")
	fs.StringVar(&f.neverReach, "px4-never-reach", "", "comma-separated decision `kinds` the simulated PX4 accepts but never enters (the mode, or the disarm, never comes)")
}

// set reports whether any flag was given.
func (f *simPX4Flags) set() bool {
	return f.script != "" || f.deny != "" || f.reject != "" || f.neverReach != ""
}

// options turns the flags into the simulated PX4's options; a kind named
// by two flags is an error.
func (f *simPX4Flags) options() (px4sim.Options, error) {
	var o px4sim.Options
	if f.script != "" {
		for _, s := range strings.Split(f.script, ",") {
			b, err := px4sim.ParseBehaviour(strings.TrimSpace(s))
			if err != nil {
				return o, fail(exitUsage, "--px4-script: %w", err)
			}
			o.Script = append(o.Script, b)
		}
	}
	for _, g := range []struct {
		flag, list string
		b          px4sim.Behaviour
	}{{"--px4-deny", f.deny, px4sim.Deny}, {"--px4-reject", f.reject, px4sim.Reject}, {"--px4-never-reach", f.neverReach, px4sim.NeverReach}} {
		if g.list == "" {
			continue
		}
		for _, s := range strings.Split(g.list, ",") {
			k, err := decisions.ParseKind(strings.TrimSpace(s))
			if err != nil {
				return o, fail(exitUsage, "%s %q: %w", g.flag, capText(s, 40), err)
			}
			if !slices.Contains(executor.PX4Kinds(), k) {
				return o, fail(exitUsage, "%s %s: the px4 executor never commands it", g.flag, k)
			}
			for _, kb := range o.ByKind {
				if kb.Kind == k {
					return o, fail(exitUsage, "%s %s: already scripted as %s", g.flag, k, kb.Behaviour)
				}
			}
			o.ByKind = append(o.ByKind, px4sim.KindBehaviour{Kind: k, Behaviour: g.b})
		}
	}
	return o, nil
}

func behaviourNames() []string {
	var out []string
	for b := px4sim.Behaviour(0); ; b++ {
		if _, err := px4sim.ParseBehaviour(b.String()); err != nil {
			return out
		}
		out = append(out, b.String())
	}
}

func joinBehaviours(bs []px4sim.Behaviour) string {
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = b.String()
	}
	return strings.Join(names, ",")
}
