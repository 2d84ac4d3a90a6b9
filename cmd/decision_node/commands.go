package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// command is one of decision_node's commands. The table in commands is the
// only list of them: the usage text, the dispatch, the suggestions for a
// mistyped command and the message of a build without ROS 2 all read it.
type command struct {
	name     string
	synopsis string // its arguments, as usage lines show them
	run      func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"sim", "[--out flight.mcap] [--duration 120s] [--rate 50] [flags]", runSim},
		{"replay", "--in input.mcap --out output.mcap [flags]", runReplay},
		{"verify", "recording.mcap [more.mcap | directory ...] [--json report.json] [flags]", runVerify},
		{"report", "recording.mcap --out report.html [--figures DIR] [flags]", runReport},
		{"whatif", "--policy-file CANDIDATE [--config FILE] [--baseline POLICY] [--json] [--html OUT.html] RECORDING|DIRECTORY ...", runWhatif},
		{"ulog", "--in flight.ulg --out flight.mcap [flags]", runULog},
		{"honesty", "recording.mcap [--json FILE]", runHonesty},
		{"policy", "check FILE | test FILE CASES", runPolicy},
		{"latency", "recording.mcap [--json FILE]", runLatency},
		{"px4-standin", "[--release 1.15] [--system-id 1] [--deny KIND,...] [--ros-args ...]", runStandin},
		{"version", "", runVersion},
	}
}

// lookupCommand returns the command called name, nil if none is.
func lookupCommand(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return &c
		}
	}
	return nil
}

// commandNames lists the commands, comma-separated.
func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// exitRule is the exit status every command follows.
const exitRule = `Exit status, the same for every command:
  0    success (verify: PASS)
  1    the work was done and the result is a failure: verify FAIL, a
       truncated input (the output is complete up to the damage), a policy
       with dead rules or failing cases, a flight log nothing was decided from
  2    usage error: unknown command or flag, bad flag value, missing argument
  3    unusable input or output: a file that is missing, unreadable, too
       large, not a regular file (a pipe, a device, a directory where none
       is valid) or not what it should be (not MCAP, not ULog, a malformed
       policy, cases or parameters file, a private key others may read), an
       output that may not be replaced (one of the inputs, a directory)
  130  stopped by SIGINT, 143 by SIGTERM (sim, replay and ulog complete their
       output up to there)`

// usage is the top-level help.
var usage = usageText()

func usageText() string {
	var b strings.Builder
	b.WriteString("decision_node: the ghost decision node.\n\nUsage:\n")
	width := 0
	for _, c := range commands() {
		width = max(width, len(c.name))
	}
	for _, c := range commands() {
		line := fmt.Sprintf("  decision_node %-*s %s", width, c.name, c.synopsis)
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	b.WriteString("  decision_node --ros-args ...    run as a ROS 2 node (a build with -tags rclgo)\n\n")
	b.WriteString("Run 'decision_node <command> -h' for a command's flags and an example.\n\n")
	b.WriteString(exitRule)
	b.WriteString("\n")
	return b.String()
}

// runHelp prints the usage, or with a command name that command's help.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if c := lookupCommand(args[0]); c != nil {
			return run([]string{c.name, "-h"}, stdout, stderr)
		}
		unknownCommand(args[0], stderr)
		return exitUsage
	}
	fmt.Fprint(stdout, usage)
	return exitOK
}

// unknownCommand says that word is not a command, suggesting the closest
// one when it is close, and lists them all.
func unknownCommand(word string, stderr io.Writer) {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	hint := ""
	if s := suggest(word, names); s != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", s)
	}
	fmt.Fprintf(stderr, "decision_node: unknown command %q%s\ncommands: %s; a ROS 2 node command line starts with --ros-args\nrun 'decision_node -h' for help\n",
		capText(word, 40), hint, commandNames())
}

// suggest returns the candidate closest to word when it is close enough
// to be a typing mistake (one edit in a short word, two in a longer one,
// or the start of exactly one candidate), "" otherwise.
func suggest(word string, candidates []string) string {
	w := strings.ToLower(word)
	if len(w) > 64 {
		return ""
	}
	best, bestD, prefixOf := "", 0, []string{}
	for _, c := range candidates {
		if len(w) >= 2 && strings.HasPrefix(c, w) {
			prefixOf = append(prefixOf, c)
		}
		d := editDistance(w, c)
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	limit := 1
	if len(w) > 4 {
		limit = 2
	}
	switch {
	case best != "" && bestD <= limit:
		return best
	case len(prefixOf) == 1:
		return prefixOf[0]
	}
	return ""
}

// editDistance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and swaps of two neighbours that
// turn one into the other.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "Prints the version of this build: the module version, and the version\ncontrol revision it was built from when the build recorded one; then the\nROS 2 distribution it was built for, and the ROS_DISTRO and middleware\n(RMW_IMPLEMENTATION, else the default) it runs with.", "  decision_node version", stdout)
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fail(exitUsage, "version takes no arguments, got %s", quoteArgs(fs.Args()))
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(info, ok))
	fmt.Fprintln(stdout, rosLine(rosBuild, rosDistro, rclVersion, os.Getenv("ROS_DISTRO"), rosMiddleware()))
	return nil
}

// versionLine describes a build: the module and its version, the VCS
// revision and time, whether the tree had local changes, the Go release.
func versionLine(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "decision_node: no build information (built without module support)"
	}
	path, version := info.Main.Path, info.Main.Version
	if path == "" {
		path = "github.com/ghost-robotics/ghost"
	}
	if version == "" {
		version = "(unknown version)"
	}
	s := "decision_node " + version + ", module " + path
	var rev, when, modified string
	for _, kv := range info.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.time":
			when = kv.Value
		case "vcs.modified":
			modified = kv.Value
		}
	}
	if rev != "" {
		s += ", revision " + rev
		if when != "" {
			s += " of " + when
		}
		if modified == "true" {
			s += " with local changes"
		}
	}
	if info.GoVersion != "" {
		s += ", " + info.GoVersion
	}
	return s
}

// quoteArgs writes arguments as a shell would take them back.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(capText(a, 80))
	}
	return strings.Join(q, " ")
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
