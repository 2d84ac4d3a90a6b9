package config

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
)

// Executors, the values of executors.executor.
const (
	// ExecutorNone: every decision is advisory (the default).
	ExecutorNone = ""
	// ExecutorPX4 sends VehicleCommands to PX4 and takes its
	// acknowledgements and status as evidence.
	ExecutorPX4 = "px4"
	// ExecutorLog logs what it would send and sends nothing.
	ExecutorLog = "log"
)

// DefaultEnable is the default of executors.enable: every kind the px4
// mapping serves but kill, which has its own switch.
const DefaultEnable = "hold,yield_to_pilot,engage_rtl,engage_land"

// Executors configure whether and how decisions act on the vehicle
// (parameters executors.*). The zero executor acts on nothing.
type Executors struct {
	// Executor is "" (default: nothing is executed), "px4" or "log"
	// (parameter executors.executor).
	Executor string
	// Enable lists, comma-separated, the decision kinds the executor may
	// act on; a kind it serves that is not listed fails as
	// blocked_by_policy (parameter executors.enable, default
	// DefaultEnable). engage_kill is not accepted here.
	Enable string
	// EnableKill also enables engage_kill, a forced disarm (parameter
	// executors.enable_kill, default false).
	EnableKill bool
	// TargetVehicle is the vehicle's system id, PX4 MAV_SYS_ID; evidence
	// from any other is rejected (parameter executors.target_vehicle,
	// default 1).
	TargetVehicle int
	// AckTimeout is how long a command waits for its acknowledgement
	// before it is retried (parameter executors.ack_timeout_s, default
	// 1 s; engine.ActionOptions.AckTimeout).
	AckTimeout time.Duration
	// MaxRetries is how many times an unacknowledged command is re-sent
	// (parameter executors.max_retries, default 2; 0 never retries).
	MaxRetries int
	// ReachTimeout is how long an accepted command waits for the vehicle
	// state it commands (parameter executors.reach_timeout_s, default 5 s;
	// engine.ActionOptions.ReachTimeout).
	ReachTimeout time.Duration
	// RecommandInterval is the shortest time between two commands of a
	// decided kind the vehicle refused, did not reach or left, while the
	// policy still decides it (parameter executors.recommand_interval_s,
	// default 5 s; 0 never re-commands; engine.ActionOptions.RecommandInterval).
	RecommandInterval time.Duration
	// MaxRecommands bounds the re-commands of one streak of a decided kind
	// (parameter executors.max_recommands, default 5; 0 never
	// re-commands; engine.ActionOptions.MaxRecommands).
	MaxRecommands int
}

func defaultExecutors() Executors {
	return Executors{Enable: DefaultEnable, TargetVehicle: 1, AckTimeout: engine.DefaultAckTimeout,
		MaxRetries: engine.DefaultMaxRetries, ReachTimeout: engine.DefaultReachTimeout,
		RecommandInterval: engine.DefaultRecommandInterval, MaxRecommands: engine.DefaultMaxRecommands}
}

// EnabledKinds parses Enable and adds engage_kill when EnableKill is set.
// An error names the kind.
func (e Executors) EnabledKinds() ([]decisions.Kind, error) {
	var out []decisions.Kind
	for s := range strings.SplitSeq(e.Enable, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		k, err := decisions.ParseKind(s)
		if err != nil {
			return nil, fmt.Errorf("kind %q: want kinds of %s", capText(s, 40), DefaultEnable)
		}
		switch {
		case k == decisions.KindEngageKill:
			return nil, errors.New("engage_kill has its own switch, executors.enable_kill")
		case k == decisions.KindProceed || k == decisions.KindAbstainUncertain:
			return nil, fmt.Errorf("kind %s asks the vehicle for nothing", k)
		}
		for _, have := range out {
			if have == k {
				return nil, fmt.Errorf("kind %s listed twice", k)
			}
		}
		out = append(out, k)
	}
	if e.EnableKill {
		out = append(out, decisions.KindEngageKill)
	}
	return out, nil
}

// NewExecutor builds the configured executor: nil for none. The px4
// executor sends through tr (nil: it sends nothing and re-checks the
// recorded evidence, for replay and verify); the log executor writes to
// logTo.
func (e Executors) NewExecutor(tr executor.Transport, logTo io.Writer) (session.Executor, error) {
	switch e.Executor {
	case ExecutorNone:
		return nil, nil
	case ExecutorPX4:
		return executor.NewPX4(executor.PX4Options{Transport: tr}), nil
	case ExecutorLog:
		return executor.NewLog(ExecutorLog, executor.PX4Kinds(), nil, logTo), nil
	}
	return nil, &ParamError{Param: "executors.executor", Value: fmt.Sprintf("%q", e.Executor),
		Err: fmt.Errorf("%w: want \"\", px4 or log", ErrInvalidValue)}
}

// apply sets the session's executor fields: the executor (a re-checking
// one, see NewExecutor), the enabled kinds, the target vehicle and the
// Loop's deadlines and retries. Without an executor it sets nothing, so
// every decision stays advisory.
func (e Executors) apply(so *session.SessionOptions) error {
	ex, err := e.NewExecutor(nil, nil)
	if err != nil || ex == nil {
		return err
	}
	kinds, err := e.EnabledKinds()
	if err != nil {
		return &ParamError{Param: "executors.enable", Value: fmt.Sprintf("%q", e.Enable), Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
	}
	so.Executors = []session.Executor{ex}
	so.Enable = kinds
	so.TargetVehicle = uint32(e.TargetVehicle)
	so.Loop.Actions.AckTimeout = e.AckTimeout
	so.Loop.Actions.ReachTimeout = e.ReachTimeout
	so.Loop.Actions.MaxRetries = e.MaxRetries
	if e.MaxRetries == 0 {
		so.Loop.Actions.MaxRetries = -1 // the Loop's "never"; its 0 means its default
	}
	so.Loop.Actions.RecommandInterval, so.Loop.Actions.MaxRecommands = e.RecommandInterval, e.MaxRecommands
	if e.RecommandInterval == 0 || e.MaxRecommands == 0 {
		so.Loop.Actions.RecommandInterval = -1 // the Loop's "never", as above
	}
	return nil
}

// executorParams declares executors.*.
func executorParams() []param {
	return []param{
		stringParam("executors.executor", `executor decisions act through: "" (none: every decision is advisory), px4 (VehicleCommand to PX4) or log (logs what it would send)`,
			func(c *Config) *string { return &c.Executors.Executor },
			func(c *Config) error {
				switch c.Executors.Executor {
				case ExecutorNone, ExecutorPX4, ExecutorLog:
					return nil
				}
				return errors.New(`want "", px4 or log`)
			}),
		stringParam("executors.enable", "comma-separated decision kinds the executor may act on; a served kind not listed fails as blocked_by_policy; engage_kill only through executors.enable_kill",
			func(c *Config) *string { return &c.Executors.Enable },
			func(c *Config) error { _, err := c.Executors.EnabledKinds(); return err }),
		boolParam("executors.enable_kill", "also enable engage_kill (a forced disarm); never enabled otherwise",
			func(c *Config) *bool { return &c.Executors.EnableKill }),
		intParam("executors.target_vehicle", "system id of the commanded vehicle (PX4 MAV_SYS_ID); evidence from any other is rejected",
			func(c *Config) *int { return &c.Executors.TargetVehicle }, 1, 255),
		durationParam("executors.ack_timeout_s", "seconds a command waits for its acknowledgement before it is retried (after the last retry it fails as transport)",
			func(c *Config) *time.Duration { return &c.Executors.AckTimeout }),
		intParam("executors.max_retries", "times an unacknowledged command is re-sent; 0 never retries",
			func(c *Config) *int { return &c.Executors.MaxRetries }, 0, 250),
		durationParam("executors.reach_timeout_s", "seconds an accepted command waits for the vehicle state it commands before it fails as executor",
			func(c *Config) *time.Duration { return &c.Executors.ReachTimeout }),
		offDurationParam("executors.recommand_interval_s", "seconds between two commands of a decided kind the vehicle refused, did not reach or left, "+
			"while the policy still decides it; 0 never re-commands",
			func(c *Config) *time.Duration { return &c.Executors.RecommandInterval }),
		intParam("executors.max_recommands", "re-commands per streak of one decided kind; 0 never re-commands",
			func(c *Config) *int { return &c.Executors.MaxRecommands }, 0, 250),
	}
}

// offDurationParam is durationParam where 0 is allowed: it turns the
// setting off.
func offDurationParam(name, doc string, field func(*Config) *time.Duration) param {
	p := durationParam(name, doc, field)
	set := p.set
	p.set = func(c *Config, v value) error {
		if v.d == 0 {
			*field(c) = 0
			return nil
		}
		if err := set(c, v); err != nil {
			return fmt.Errorf("want 0 (off) or %w", err)
		}
		return nil
	}
	p.check = func(c *Config) error {
		if *field(c) < 0 {
			return errors.New("must be >= 0 (0 is off)")
		}
		return nil
	}
	return p
}
