package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/standin"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

const standinDescription = `
Runs a stand-in for a PX4 autopilot on the ROS 2 graph, to show the live
action path without a simulator: it reads VehicleCommand on
<namespace>/fmu/in/vehicle_command and answers as PX4's Commander would:
a VehicleCommandAck (ACCEPTED, or DENIED for the --deny kinds) addressed to
the command's source system and component on /fmu/out/vehicle_command_ack,
and a VehicleStatus showing the commanded nav_state and arming on
/fmu/out/vehicle_status (also every --status-period). Messages use the
px4_msgs of the sourced workspace (--release insists on one). It flies
nothing. Arguments after --ros-args go to ROS 2 (remaps, __node, ...).
Stop it with Ctrl-C.`

const standinExample = `  decision_node px4-standin --deny engage_land &
  ros2 launch ghost decision.launch.py config_file:=acting.yaml   # executors.executor: px4`

// standinOptions are the stand-in's settings from its flags.
type standinOptions struct {
	opts   standin.Options
	period time.Duration
}

func runStandin(args []string, stdout, stderr io.Writer) error {
	flagArgs, rosArgs := args, []string(nil)
	if i := slices.Index(args, "--ros-args"); i >= 0 {
		flagArgs, rosArgs = args[:i], args[i:]
	}
	fs := newFlags("px4-standin", standinDescription, standinExample, stdout)
	release := fs.String("release", "", "PX4 `release` whose px4_msgs layouts to insist on (1.14, 1.15, 1.16); default: the installed px4_msgs")
	namespace := fs.String("namespace", "", "namespace of the PX4 topics: \"\" for /fmu/..., /uav_1 for /uav_1/fmu/...")
	system := fs.Uint("system-id", 1, "the vehicle's system `id` (MAV_SYS_ID); commands for another system are ignored")
	deny := fs.String("deny", "", "comma-separated decision `kinds` whose commands are answered DENIED (e.g. engage_land)")
	period := fs.Duration("status-period", time.Second, "period of the vehicle_status publication (0: only on changes)")
	if err := fs.parse(flagArgs); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fail(exitUsage, "px4-standin takes no arguments before --ros-args, got %s", quoteArgs(fs.Args()))
	}
	if *system == 0 || *system > 255 {
		return fail(exitUsage, "--system-id %d: a PX4 system id is 1 to 255", *system)
	}
	if *period < 0 {
		return fail(exitUsage, "--status-period %v: must be >= 0", *period)
	}
	so := standinOptions{opts: standin.Options{Namespace: *namespace, SystemID: uint8(*system)}, period: *period}
	if *deny != "" {
		for s := range strings.SplitSeq(*deny, ",") {
			k, err := decisions.ParseKind(strings.TrimSpace(s))
			if err != nil {
				return fail(exitUsage, "--deny %q: %w", capText(s, 40), err)
			}
			if _, _, err := executor.PX4Command(k); err != nil {
				return fail(exitUsage, "--deny %s: %w", k, err)
			}
			so.opts.Deny = append(so.opts.Deny, k)
		}
	}
	defs, err := px4.LoadFromAmentIndex(os.Getenv("AMENT_PREFIX_PATH"))
	if err != nil {
		return fail(exitIO, "%w", err)
	}
	if *release != "" && string(defs.Release()) != *release {
		return fail(exitUsage, "--release %s, but the installed px4_msgs (%s) have release %s's layouts", capText(*release, 20), defs.Source(), defs.Release())
	}
	so.opts.Definitions = defs
	logger := slog.New(slog.NewTextHandler(stderr, nil)).With("logger", "px4_standin")
	t, err := newStandinTransport(rosArgs, logger)
	if err != nil {
		return fail(exitIO, "%w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := errors.Join(serveStandin(ctx, t, so, logger, nil), t.Close()); err != nil {
		return fail(exitIO, "px4-standin: %w", err)
	}
	return nil
}

// serveStandin runs the stand-in on t until ctx is done. tick, when set,
// replaces the status period's ticker (tests).
func serveStandin(ctx context.Context, t transport.Transport, so standinOptions, logger *slog.Logger, tick <-chan time.Time) error {
	s, err := standin.New(t, so.opts)
	if err != nil {
		return err
	}
	if tick == nil && so.period > 0 {
		tk := time.NewTicker(so.period)
		defer tk.Stop()
		tick = tk.C
	}
	logger.Info("px4 stand-in ready", "commands", s.CommandTopic(), "release", so.opts.Definitions.Release(),
		"system_id", so.opts.SystemID, "deny", fmt.Sprint(so.opts.Deny))
	tctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- t.Run(tctx) }()
	if err := s.PublishStatus(time.Now()); err != nil {
		logger.Warn("status not published", "err", err)
	}
	var last standin.Stats
	for {
		select {
		case <-ctx.Done():
			cancel()
			err := <-done
			logger.Info("px4 stand-in stopped", "stats", fmt.Sprintf("%+v", s.Stats()))
			return err
		case err := <-done:
			return fmt.Errorf("transport stopped: %w", errors.Join(err, errors.New("returned before shutdown")))
		case now := <-tick:
			if err := s.PublishStatus(now); err != nil {
				logger.Warn("status not published", "err", err)
			}
			if st := s.Stats(); st != last {
				logger.Info("answered", "stats", fmt.Sprintf("%+v", st))
				last = st
			}
		}
	}
}
