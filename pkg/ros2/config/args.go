package config

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
)

// rosArgs is the ROS part of a command line, split but not yet applied.
type rosArgs struct {
	remaps      []remapRule
	paramsFiles []string
	params      []paramRule
	logLevels   []logRule
}

type remapRule struct {
	node, from, to string
	index          int    // position of the value in the argument list
	arg            string // the argument as written, for errors
}

type paramRule struct {
	node, name, raw string
	arg             string // the argument as written, for errors
}

type logRule struct {
	logger string // "" for the default level
	level  slog.Level
	unset  bool
}

// Flags of `--ros-args` that take a value, and those that take none. Flags
// the node has no use for (enclave, logging outputs) are accepted so that
// launch files written for rclcpp nodes work unchanged.
var (
	valueFlags = map[string]bool{
		"-p": true, "--param": true, "-r": true, "--remap": true,
		"--params-file": true, "--log-level": true,
		"-e": true, "--enclave": true, "--log-config-file": true,
	}
	switchFlags = map[string]bool{
		"--enable-rosout-logs": true, "--disable-rosout-logs": true,
		"--enable-stdout-logs": true, "--disable-stdout-logs": true,
		"--enable-external-lib-logs": true, "--disable-external-lib-logs": true,
	}
)

func argErr(i int, arg string, format string, a ...any) error {
	return &ArgError{Index: i, Arg: arg, Err: fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, a...)...)}
}

// splitArgs separates the `--ros-args ... [--]` sections (there may be
// several, as launch_ros emits) from the rest of the command line.
func splitArgs(args []string) (rosArgs, []string, error) {
	var ra rosArgs
	var rest []string
	inROS := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !inROS {
			if a == "--ros-args" {
				inROS = true
			} else {
				rest = append(rest, a)
			}
			continue
		}
		switch {
		case a == "--":
			inROS = false
			continue
		case a == "--ros-args":
			continue
		case switchFlags[a]:
			continue
		case !valueFlags[a]:
			return rosArgs{}, nil, argErr(i, a, "unknown ROS argument (end the ROS arguments with \"--\" to pass it to the node)")
		case i+1 >= len(args):
			return rosArgs{}, nil, argErr(i, a, "missing value")
		}
		i++
		v := args[i]
		whole := a + " " + v
		switch a {
		case "-p", "--param":
			lhs, raw, ok := strings.Cut(v, ":=")
			if !ok {
				return rosArgs{}, nil, argErr(i, whole, "want name:=value")
			}
			node, name, err := splitNodePrefix(lhs)
			if err != nil || name == "" {
				return rosArgs{}, nil, argErr(i, whole, "want [node:]name:=value")
			}
			ra.params = append(ra.params, paramRule{node: node, name: name, raw: raw, arg: whole})
		case "-r", "--remap":
			lhs, to, ok := strings.Cut(v, ":=")
			if !ok {
				return rosArgs{}, nil, argErr(i, whole, "want from:=to")
			}
			node, from, err := splitNodePrefix(lhs)
			if err != nil || from == "" || to == "" {
				return rosArgs{}, nil, argErr(i, whole, "want [node:]from:=to")
			}
			ra.remaps = append(ra.remaps, remapRule{node: node, from: from, to: to, index: i, arg: whole})
		case "--params-file":
			ra.paramsFiles = append(ra.paramsFiles, v)
		case "--log-level":
			r, err := parseLogRule(v)
			if err != nil {
				return rosArgs{}, nil, argErr(i, whole, "%v", err)
			}
			ra.logLevels = append(ra.logLevels, r)
		}
	}
	return ra, rest, nil
}

// splitNodePrefix splits "node:name" into its parts; names never contain
// ':' so at most one is allowed.
func splitNodePrefix(s string) (node, name string, err error) {
	switch strings.Count(s, ":") {
	case 0:
		return "", s, nil
	case 1:
		node, name, _ = strings.Cut(s, ":")
		if node == "" {
			return "", "", errors.New("empty node prefix")
		}
		return node, name, nil
	}
	return "", "", errors.New("too many ':'")
}

func parseLogRule(s string) (logRule, error) {
	logger, level, ok := strings.Cut(s, ":=")
	if !ok {
		logger, level = "", s
	} else if logger == "" {
		return logRule{}, errors.New("empty logger name")
	}
	r := logRule{logger: logger}
	if strings.ToLower(level) == "unset" {
		r.unset = true
		return r, nil
	}
	l, err := ParseLevel(level)
	if err != nil {
		return logRule{}, fmt.Errorf("log level %q: want debug, info, warn, error, fatal or unset", level)
	}
	r.level = l
	return r, nil
}

// ParseLevel reads a ROS log level name (debug, info, warn, error, fatal;
// any case) as the slog level the node logs at.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	case "fatal":
		return LevelFatal, nil
	}
	return 0, errors.New("want debug, info, warn, error or fatal")
}

// LevelName is the ROS name of a level ParseLevel returns; other levels
// get slog's name, which ParseLevel refuses.
func LevelName(l slog.Level) string {
	switch l {
	case slog.LevelDebug:
		return "debug"
	case slog.LevelInfo:
		return "info"
	case slog.LevelWarn:
		return "warn"
	case slog.LevelError:
		return "error"
	case LevelFatal:
		return "fatal"
	}
	return l.String()
}

// LevelFatal is the slog level `--log-level fatal` maps to; slog has no
// fatal level, and only messages above error pass it.
const LevelFatal = slog.LevelError + 4

// FromArgs builds the node's Config from its command line (without the
// program name) and returns the arguments outside `--ros-args ... --` for
// the caller. Sources apply in ROS order: defaults, then each
// `--params-file` in order (in each, the sections selecting the node:
// wildcard keys such as `/**` first, then the node's own), then each
// `-p [node:]name:=value` in order. `-r __node:=` and `-r __ns:=` rename the
// node before parameter sections are matched; other remaps are kept in
// Config.Remaps. The result is validated; errors are *ArgError or
// *ParamError and name the argument or parameter and value.
func FromArgs(args []string) (Config, []string, error) {
	ra, rest, err := splitArgs(args)
	if err != nil {
		return Config{}, rest, err
	}
	c := Default()
	if err := c.applyIdentity(ra.remaps); err != nil {
		return Config{}, rest, err
	}
	fqn := c.FullyQualifiedName()
	sources := make(map[string]string)
	for _, file := range ra.paramsFiles {
		sections, err := loadParamsFile(file)
		if err != nil {
			return Config{}, rest, err
		}
		if err := c.applySections(sections, fqn, file, sources); err != nil {
			return Config{}, rest, err
		}
	}
	for _, p := range ra.params {
		if p.node != "" && !matchNodeKey(p.node, fqn) {
			continue
		}
		src := "argument " + p.arg
		v, err := parseValue(p.raw)
		if err != nil {
			kind := ErrWrongType
			if !errors.Is(err, errArray) && !errors.Is(err, errMapping) {
				kind = ErrInvalidValue
			}
			return Config{}, rest, &ParamError{Param: p.name, Value: fmt.Sprintf("%q", p.raw), Source: src, Err: fmt.Errorf("%w: %w", kind, err)}
		}
		if err := c.apply(p.name, v, src, sources); err != nil {
			return Config{}, rest, err
		}
	}
	for _, r := range ra.remaps {
		if isIdentityRemap(r.from) || (r.node != "" && r.node != c.NodeName) {
			continue
		}
		for _, n := range []string{r.from, r.to} {
			if _, err := c.expand(n); err != nil {
				return Config{}, rest, argErr(r.index, r.arg, "%v", err)
			}
		}
		c.Remaps = append(c.Remaps, Remap{From: r.from, To: r.to})
	}
	c.LogLevel = resolveLogLevel(ra.logLevels, c.LoggerName(), c.LogLevel)
	if err := c.validateWithSources(sources); err != nil {
		return Config{}, rest, err
	}
	return c, rest, nil
}

func isIdentityRemap(from string) bool {
	return from == "__node" || from == "__name" || from == "__ns"
}

// applyIdentity applies the first `__node` (or its old spelling `__name`)
// and the first `__ns` rule that target this node, as rcl does; a node
// prefix on these rules is matched against the node's original name.
func (c *Config) applyIdentity(remaps []remapRule) error {
	var nameSet, nsSet bool
	for _, r := range remaps {
		if r.node != "" && r.node != DefaultNodeName {
			continue
		}
		switch r.from {
		case "__node", "__name":
			if nameSet {
				continue
			}
			if err := validateNodeName(r.to); err != nil {
				return &ParamError{Param: r.from, Value: fmt.Sprintf("%q", r.to), Source: "argument -r " + r.from + ":=" + r.to, Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
			}
			c.NodeName, nameSet = r.to, true
		case "__ns":
			if nsSet {
				continue
			}
			ns := r.to
			if len(ns) > 1 {
				ns = strings.TrimSuffix(ns, "/")
			}
			if err := validateNamespace(ns); err != nil {
				return &ParamError{Param: "__ns", Value: fmt.Sprintf("%q", r.to), Source: "argument -r __ns:=" + r.to, Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
			}
			c.Namespace, nsSet = ns, true
		}
	}
	return nil
}

// resolveLogLevel: a rule naming the node's logger wins over the default
// level; among rules of one kind the last wins; "unset" clears back to
// base, the log_level parameter.
func resolveLogLevel(rules []logRule, logger string, base slog.Level) slog.Level {
	level := base
	var specific *slog.Level
	for _, r := range rules {
		switch r.logger {
		case "":
			level = base
			if !r.unset {
				level = r.level
			}
		case logger:
			if r.unset {
				specific = nil
			} else {
				l := r.level
				specific = &l
			}
		}
	}
	if specific != nil {
		return *specific
	}
	return level
}
