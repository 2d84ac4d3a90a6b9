package main

import (
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// A word that is no command is an error naming it, with the closest
// command when it is close and the list of them all; it never reaches the
// ROS 2 node.
func TestUnknownCommand(t *testing.T) {
	tests := []struct {
		args    []string
		suggest string // "" for none
	}{
		{[]string{"verfy", "x.mcap"}, "verify"},
		{[]string{"veirfy"}, "verify"},
		{[]string{"Verify"}, "verify"},
		{[]string{"simm"}, "sim"},
		{[]string{"rpeort"}, "report"},
		{[]string{"px4"}, "px4-standin"},
		{[]string{"fly"}, ""},
		{[]string{"x"}, ""},
		{[]string{"help", "verfy"}, "verify"},
		{[]string{strings.Repeat("v", 10000)}, ""},
	}
	for _, tt := range tests {
		code, stdout, stderr := cli(t, tt.args...)
		if code != exitUsage || stdout != "" {
			t.Errorf("%.20q: exit %d, stdout %q", tt.args, code, stdout)
		}
		first, _, _ := strings.Cut(stderr, "\n")
		word := tt.args[0]
		if word == "help" {
			word = tt.args[1]
		}
		if !strings.HasPrefix(first, `decision_node: unknown command "`+word[:min(len(word), 40)]) {
			t.Errorf("%.20q: %q", tt.args, first)
		}
		if hint := `(did you mean "` + tt.suggest + `"?)`; (tt.suggest != "") != strings.HasSuffix(first, hint) || (tt.suggest == "" && strings.Contains(first, "did you mean")) {
			t.Errorf("%.20q: %q, want suggestion %q", tt.args, first, tt.suggest)
		}
		for _, c := range commands() {
			if !strings.Contains(stderr, c.name) {
				t.Errorf("%.20q: the list lacks %s:\n%s", tt.args, c.name, stderr)
			}
		}
		if len(stderr) > 400 {
			t.Errorf("%.20q: %d bytes of stderr", tt.args, len(stderr))
		}
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"check", "test"}
	for word, want := range map[string]string{"chek": "check", "chekc": "check", "tset": "test", "tes": "test", "c": "", "verify": "", "": ""} {
		if got := suggest(word, names); got != want {
			t.Errorf("suggest(%q) = %q, want %q", word, got, want)
		}
	}
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"verfy", "verify", 1}, {"veirfy", "verify", 1}, {"kitten", "sitting", 3}} {
		if d := editDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}

// A flag error is one line saying what is wrong in the user's spelling,
// then the command's synopsis and where its help is: never the whole help.
func TestFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string // the error line
	}{
		{[]string{"sim", "--otu", "x.mcap"}, "unknown flag --otu (did you mean --out?)"},
		{[]string{"sim", "--frobnicate"}, "unknown flag --frobnicate"},
		{[]string{"sim", "--duration", "2"}, "--duration 2: not a duration: write it with a unit, such as 2s, 500ms or 1m30s"},
		{[]string{"sim", "--rate", "fast"}, "--rate fast: not a number"},
		{[]string{"sim", "--chunk-size", "1.5"}, "--chunk-size 1.5: not a whole number"},
		{[]string{"sim", "--quiet=maybe"}, "--quiet=maybe: want true or false"},
		{[]string{"sim", "--out"}, "--out needs a value"},
		{[]string{"sim", "extra", "words"}, "sim takes no arguments, got extra words"},
		{[]string{"replay", "--in", "f.mcap"}, "replay needs --out"},
		{[]string{"replay", "f.mcap"}, "replay takes no arguments, got f.mcap: name the input with --in"},
		{[]string{"ulog", "--out", "f.mcap"}, "ulog needs --in"},
		{[]string{"verify"}, "verify needs a recording (or several, or a directory of them)"},
		{[]string{"verify", "f.mcap", "--allow", "nothing"}, `--allow nothing: unknown finding "nothing"`},
		{[]string{"report", "f.mcap"}, "report needs --out"},
		{[]string{"report", "a.mcap", "b.mcap", "--out", "r.html"}, "report takes one recording, got also b.mcap"}, // flags after it parsed,
		{[]string{"policy"}, "policy needs a subcommand: check FILE or test FILE CASES"},
		{[]string{"policy", "chek", "p.yaml"}, `unknown policy subcommand "chek" (did you mean "check"?): want check or test`},
		{[]string{"policy", "check"}, "policy check takes one FILE, got 0 arguments"},
		{[]string{"policy", "test", "p.yaml"}, "policy test takes a policy FILE and a CASES file, got 1 arguments"},
		{[]string{"px4-standin", "--system-id", "-1"}, "--system-id -1: not a whole number of at least 0"},
		{[]string{"version", "now"}, "version takes no arguments, got now"},
	}
	for _, tt := range tests {
		code, stdout, stderr := cli(t, tt.args...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		c := lookupCommand(tt.args[0])
		if code != exitUsage || stdout != "" || len(lines) != 3 {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s", tt.args, code, stdout, stderr)
			continue
		}
		if !strings.HasPrefix(lines[0], "decision_node: "+tt.want) {
			t.Errorf("%q:\n got %s\nwant decision_node: %s", tt.args, lines[0], tt.want)
		}
		if lines[1] != strings.TrimSpace("usage: decision_node "+c.name+" "+c.synopsis) || lines[2] != "run 'decision_node "+c.name+" -h' for help" {
			t.Errorf("%q: after the error:\n%s\n%s", tt.args, lines[1], lines[2])
		}
	}
}

// -h and --help are help on every command and subcommand, wherever they
// stand before "--" or --ros-args: the whole help on stdout, exit 0, with
// flags written --flag.
func TestHelpOnEveryCommand(t *testing.T) {
	var cases [][]string
	for _, c := range commands() {
		cases = append(cases, []string{c.name, "-h"}, []string{c.name, "--help"}, []string{"help", c.name})
	}
	cases = append(cases,
		[]string{"policy", "check", "-h"}, []string{"policy", "test", "p.yaml", "--help"},
		[]string{"verify", "x.mcap", "-h"}, []string{"report", "x.mcap", "--out", "r.html", "-h"},
		[]string{"replay", "--in", "x.mcap", "extra", "-h"}, []string{"px4-standin", "--deny", "hold", "-h", "--ros-args"})
	goStyle := regexp.MustCompile(`(?m)^\s+-[a-z]`)
	for _, args := range cases {
		code, stdout, stderr := cli(t, args...)
		name := args[0]
		if name == "help" {
			name = args[1]
		}
		if code != exitOK || stderr != "" || !strings.HasPrefix(stdout, "Usage: decision_node "+name) || !strings.Contains(stdout, "\nExample:\n") {
			t.Errorf("%q: exit %d, stderr %q, stdout:\n%.300s", args, code, stderr, stdout)
			continue
		}
		if goStyle.MatchString(stdout) {
			t.Errorf("%q: a flag written -flag:\n%s", args, goStyle.FindString(stdout))
		}
		if i := strings.Index(stdout, "\nFlags:\n"); i >= 0 && !strings.HasPrefix(stdout[i+len("\nFlags:\n"):], "  --") {
			t.Errorf("%q: a Flags heading without flags:\n%s", args, stdout)
		}
	}
	// policy has no flags: no Flags heading at all.
	if _, stdout, _ := cli(t, "policy", "-h"); strings.Contains(stdout, "Flags:") {
		t.Errorf("policy -h:\n%s", stdout)
	}
	// The top-level help lists every command and the exit rule.
	_, stdout, _ := cli(t, "--help")
	for _, c := range commands() {
		if !strings.Contains(stdout, "decision_node "+c.name) {
			t.Errorf("the usage lacks %s", c.name)
		}
	}
	for _, s := range []string{"Exit status", "\n  2    usage error", "\n  3    unusable input", "130", "143"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("the usage lacks %q", s)
		}
	}
}

// A command line starting with a flag is the ROS 2 node's; without ROS 2
// the message lists every command.
func TestNodeCommandLineWithoutROS(t *testing.T) {
	if rosBuild {
		t.Skip("this build runs the node")
	}
	for _, args := range [][]string{{"--ros-args", "-r", "__node:=x"}, {"-p", "x:=1"}} {
		code, _, stderr := cli(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "no ROS 2 transport") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d:\n%s", args, code, stderr)
		}
		for _, c := range commands() {
			if !strings.Contains(stderr, c.name) {
				t.Errorf("%q: the message lacks %s:\n%s", args, c.name, stderr)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, stdout, stderr := cli(t, args...)
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if code != exitOK || stderr != "" || len(lines) != 2 || !strings.HasPrefix(lines[0], "decision_node ") || !strings.HasPrefix(lines[1], "ROS 2: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/ghost-robotics/ghost", Version: "v1.2.3"}}
	tests := []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, "decision_node v1.2.3, module github.com/ghost-robotics/ghost, go1.26.0"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "39133f8"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "false"}},
			"decision_node v1.2.3, module github.com/ghost-robotics/ghost, revision 39133f8 of 2026-01-02T03:04:05Z, go1.26.0"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "39133f8"}, {Key: "vcs.modified", Value: "true"}},
			"decision_node v1.2.3, module github.com/ghost-robotics/ghost, revision 39133f8 with local changes, go1.26.0"},
	}
	for _, tt := range tests {
		info.Settings = tt.settings
		if got := versionLine(info, true); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
	if got := versionLine(nil, false); !strings.Contains(got, "no build information") {
		t.Errorf("without build information: %s", got)
	}
}

func TestROSLine(t *testing.T) {
	tests := []struct {
		name                               string
		withROS                            bool
		distro, rcl, envDistro, middleware string
		want                               string
	}{
		{"no transport", false, "", "", "jazzy", "", "ROS 2: none (a build without the ROS 2 transport)"},
		{"jazzy on fast dds", true, "jazzy", "9.2.0", "jazzy", "rmw_fastrtps_cpp",
			"ROS 2: built for ROS 2 jazzy (rcl 9.2.0); running with ROS_DISTRO jazzy, middleware rmw_fastrtps_cpp"},
		{"humble without ros_environment", true, "humble", "5.3.9", "", "rmw_cyclonedds_cpp",
			"ROS 2: built for ROS 2 humble (rcl 5.3.9); running with ROS_DISTRO unset, middleware rmw_cyclonedds_cpp"},
		{"built outside CMake", true, "", "", "humble", "rmw_fastrtps_cpp",
			"ROS 2: built for an unrecorded ROS 2 distribution (not built by the package's CMake); running with ROS_DISTRO humble, middleware rmw_fastrtps_cpp"},
		{"other distribution's environment", true, "humble", "5.3.9", "jazzy", "rmw_fastrtps_cpp",
			"ROS 2: built for ROS 2 humble (rcl 5.3.9); running with ROS_DISTRO jazzy, middleware rmw_fastrtps_cpp; this build links humble's libraries: run it in a humble environment"},
		{"no middleware", true, "jazzy", "9.2.0", "jazzy", "",
			"ROS 2: built for ROS 2 jazzy (rcl 9.2.0); running with ROS_DISTRO jazzy, no middleware loadable (is a ROS 2 environment sourced, RMW_IMPLEMENTATION installed?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rosLine(tt.withROS, tt.distro, tt.rcl, tt.envDistro, tt.middleware); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"flight.mcap":      "flight.mcap",
		"my flight.mcap":   "'my flight.mcap'",
		"it's.mcap":        `'it'\''s.mcap'`,
		"":                 "''",
		"a/b-c_d=e:f,g@h%": "a/b-c_d=e:f,g@h%",
		"$(rm -rf x)":      "'$(rm -rf x)'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
