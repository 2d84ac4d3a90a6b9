package layout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// root is the repository root, relative to this package.
const root = "../.."

// floors are the layers of docs/architecture.md, top first. A package may
// import packages on its own floor or below, never above: the ROS 2 edge
// sits on top of the audit and the simulator, they on the vehicle side and
// the seals, those on the session, the session on the engine, the engine
// on the rule policies, the policies and everything else on the wire
// formats and recordings, and those on the contracts. A pattern is a path
// relative to the module ("pkg/engine") or a tree ("pkg/wire/..." matches
// pkg/wire and everything below it); a package is on the floor of the
// pattern that matches it most closely, and a package on no floor is an
// error, so a new package must be placed.
var floors = [][]string{
	{"cmd/...", "test/..."},
	{"pkg/node", "pkg/ros2/..."},
	{"pkg/audit/...", "pkg/sim"},
	{"pkg/vehicle/...", "pkg/seal"},
	{"pkg/session"},
	{"pkg/engine"},
	{"pkg/rules"},
	{"pkg/wire/...", "pkg/bag"},
	{"pkg/decisions/...", "msg"},
	{"internal/..."},
}

// floorOf returns the floor of pkg (0 is the top) and whether it has one.
func floorOf(pkg string) (int, bool) {
	best, floor := -1, -1
	for i, f := range floors {
		for _, pattern := range f {
			if n := match(pattern, pkg); n > best {
				best, floor = n, i
			}
		}
	}
	return floor, floor >= 0
}

// A rule says which packages of the project the packages matching From may
// import, on their floor or below. A package follows the rule whose From
// matches it most closely; a package no rule matches is itself an error.
type rule struct {
	From  string
	Allow []string
}

var (
	contract = []string{"msg", "pkg/decisions"}
	// plumbing is what the ROS 2 side's lower members may import.
	plumbing = []string{"pkg/ros2/transport", "pkg/wire/..."}
)

func join(lists ...[]string) []string { return slices.Concat(lists...) }

// rules are the import rules docs/architecture.md states, one for one.
var rules = []rule{
	// The contracts: no I/O, nothing of the project.
	{"msg", nil},
	{"pkg/decisions", nil},
	{"pkg/decisions/decisionstest", []string{"pkg/decisions"}},
	// The wire formats and recordings, over the contracts.
	{"pkg/wire/...", join(contract, []string{"pkg/wire/..."})},
	{"pkg/bag", []string{"msg", "pkg/wire/qos", "internal/limitedfile"}},
	// The policies; the engine decides on values and knows no wire format;
	// the session decodes, runs the engine and publishes.
	{"pkg/rules", []string{"pkg/decisions", "internal/limitedfile"}},
	{"pkg/engine", []string{"pkg/decisions", "pkg/rules"}},
	{"pkg/session", []string{"pkg/decisions", "pkg/rules", "pkg/engine", "pkg/wire/..."}},
	// The vehicle side and the seals: nothing of ROS 2.
	{"pkg/vehicle/...", join(contract, []string{"pkg/wire/...", "pkg/bag",
		"pkg/engine", "pkg/session", "pkg/vehicle/...", "internal/limitedfile"})},
	{"pkg/seal", []string{"msg", "pkg/bag", "pkg/wire/...", "internal/limitedfile"}},
	// Reading recordings after the fact, on any machine; the simulated
	// flight.
	{"pkg/audit/...", join(contract, []string{"pkg/rules", "pkg/wire/...", "pkg/bag", "pkg/engine", "pkg/session",
		"pkg/seal", "pkg/vehicle/px4", "pkg/vehicle/truth", "pkg/audit/...", "internal/limitedfile", "internal/quat", "internal/timediff"})},
	{"pkg/sim", join(contract, []string{"pkg/wire/...", "pkg/bag", "pkg/engine", "pkg/session",
		"pkg/vehicle/truth", "internal/quat"})},
	// The ROS 2 edge: the transport and what runs on it; the node's
	// parameters turned into the plain values of what they configure.
	{"pkg/ros2", nil},
	{"pkg/ros2/transport", []string{"pkg/wire/qos"}},
	{"pkg/ros2/clock", plumbing},
	{"pkg/ros2/rosout", plumbing},
	{"pkg/ros2/lifecycle", plumbing},
	{"pkg/ros2/config", join(plumbing, []string{"pkg/decisions", "pkg/rules", "pkg/engine", "pkg/session", "pkg/vehicle/executor", "internal/limitedfile"})},
	{"pkg/ros2/param", join(plumbing, []string{"pkg/ros2/config", "pkg/decisions", "pkg/rules", "pkg/engine", "pkg/session", "pkg/vehicle/executor"})},
	{"pkg/ros2/px4link", []string{"pkg/wire/qos", "pkg/ros2/transport", "pkg/vehicle/executor", "pkg/vehicle/px4"}},
	{"pkg/ros2/standin", join(contract, plumbing, []string{"pkg/ros2/px4link", "pkg/vehicle/executor", "pkg/vehicle/px4", "pkg/vehicle/px4sim"})},
	// The live node wires everything but the command together; only the
	// command imports it.
	{"pkg/node", join(contract, []string{"pkg/...", "internal/limitedfile"})},
	{"cmd/...", []string{"msg", "pkg/...", "internal/..."}},
	// Helpers every package may use import nothing of the project.
	{"internal/...", nil},
	// Tests outside the packages may import any package.
	{"test/...", []string{"msg", "pkg/...", "internal/..."}},
	// The what-if comparison reads only the Sources its caller opens,
	// through the audit's pipeline, and draws in the report's style.
	{"pkg/audit/whatif", join(contract, []string{"pkg/rules", "pkg/engine", "pkg/session", "pkg/audit", "pkg/audit/report"})},
}

// testOnly are packages only tests may import: no production package may.
var testOnly = []string{"pkg/decisions/decisionstest", "internal/testpolicy"}

// match reports whether path matches pattern and how closely (the length
// of the matched part; -1 for no match).
func match(pattern, path string) int {
	if tree, ok := strings.CutSuffix(pattern, "/..."); ok {
		if path == tree || strings.HasPrefix(path, tree+"/") {
			return len(tree)
		}
		return -1
	}
	if path == pattern {
		return len(pattern) + 1 // an exact rule beats a tree of the same name
	}
	return -1
}

// ruleFor returns the rule of rs that governs pkg.
func ruleFor(rs []rule, pkg string) (rule, bool) {
	best, found := -1, rule{}
	for _, r := range rs {
		if n := match(r.From, pkg); n > best {
			best, found = n, r
		}
	}
	return found, best >= 0
}

// violations lists every import of graph (package -> the project packages
// it imports, paths relative to the module) that runs up a floor or that
// the rules do not allow, one line per import.
func violations(graph map[string][]string) []string {
	var out []string
	for _, pkg := range slices.Sorted(maps.Keys(graph)) {
		r, ok := ruleFor(rules, pkg)
		if !ok {
			out = append(out, fmt.Sprintf("%s: no rule places this package (add it to test/layout and docs/architecture.md)", pkg))
			continue
		}
		from, ok := floorOf(pkg)
		if !ok {
			out = append(out, fmt.Sprintf("%s: on no floor (add it to the floors of test/layout and docs/architecture.md)", pkg))
			continue
		}
		for _, imp := range graph[pkg] {
			if to, ok := floorOf(imp); ok && to < from {
				out = append(out, fmt.Sprintf("%s imports %s, which runs up from floor %d (%s) to floor %d (%s)",
					pkg, imp, from, strings.Join(floors[from], ", "), to, strings.Join(floors[to], ", ")))
				continue
			}
			if slices.Contains(testOnly, imp) {
				out = append(out, fmt.Sprintf("%s imports %s, which is for tests only", pkg, imp))
				continue
			}
			if !slices.ContainsFunc(r.Allow, func(p string) bool { return match(p, imp) >= 0 }) {
				out = append(out, fmt.Sprintf("%s imports %s: the rule for %s allows only %s", pkg, imp, r.From, allowed(r)))
			}
		}
	}
	return out
}

// upward lists every package of graph that a rule of rs would let a
// package of graph import from a floor below it: rules may only point down.
func upward(graph map[string][]string, rs []rule) []string {
	var out []string
	pkgs := slices.Sorted(maps.Keys(graph))
	for _, pkg := range pkgs {
		r, okR := ruleFor(rs, pkg)
		from, okF := floorOf(pkg)
		if !okR || !okF {
			continue // violations reports it
		}
		for _, imp := range pkgs {
			to, ok := floorOf(imp)
			if ok && to < from && slices.ContainsFunc(r.Allow, func(p string) bool { return match(p, imp) >= 0 }) {
				out = append(out, fmt.Sprintf("the rule for %s lets %s (floor %d) import %s (floor %d)", r.From, pkg, from, imp, to))
			}
		}
	}
	return out
}

func allowed(r rule) string {
	if len(r.Allow) == 0 {
		return "nothing of the project"
	}
	return strings.Join(r.Allow, ", ")
}

// modulePath reads the module path from go.mod.
func modulePath(t *testing.T) string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// importGraph lists the project's packages with `go list` and returns the
// project packages each imports (test files excluded: tests may import
// what they need), paths relative to the module.
func importGraph(t *testing.T, tags ...string) map[string][]string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not in PATH")
	}
	mod := modulePath(t)
	args := append([]string{"list", "-e", "-json=ImportPath,Imports,Error"}, tags...)
	cmd := exec.Command(goTool, append(args, "./...")...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	graph := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
			Error      *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if p.Error != nil {
			t.Fatalf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		rel, ok := strings.CutPrefix(p.ImportPath, mod+"/")
		if !ok {
			if p.ImportPath != mod {
				continue
			}
			rel = "."
		}
		imps := []string{}
		for _, imp := range p.Imports {
			if r, ok := strings.CutPrefix(imp, mod+"/"); ok {
				imps = append(imps, r)
			}
		}
		graph[rel] = imps
	}
	if len(graph) == 0 {
		t.Fatal("go list found no package")
	}
	return graph
}

// TestImportRules checks the project's import graph against the rules, for
// the plain build and for the ROS 2 build (-tags rclgo: go list reads the
// files without compiling them, so ROS 2 need not be installed).
func TestImportRules(t *testing.T) {
	for _, tags := range [][]string{nil, {"-tags", "rclgo"}} {
		build := ""
		if tags != nil {
			build = " (with -tags rclgo)"
		}
		for _, v := range violations(importGraph(t, tags...)) {
			t.Errorf("%s%s", v, build)
		}
	}
}

// TestRulesPointDown checks the rules against the floors: no rule may let
// a package import one on a floor above its own.
func TestRulesPointDown(t *testing.T) {
	for _, u := range upward(importGraph(t), rules) {
		t.Error(u)
	}
}

// TestRulesNameRealPackages catches a rule left behind by a move: every
// rule's From and every allowed pattern must name a package of the project.
func TestRulesNameRealPackages(t *testing.T) {
	graph := importGraph(t)
	exists := func(pattern string) bool {
		for pkg := range graph {
			if match(pattern, pkg) >= 0 {
				return true
			}
		}
		return false
	}
	for _, f := range floors {
		for _, p := range f {
			if !exists(p) {
				t.Errorf("floor pattern %s: no such package", p)
			}
		}
	}
	for _, r := range rules {
		if !exists(r.From) {
			t.Errorf("rule for %s: no such package", r.From)
		}
		for _, a := range r.Allow {
			if !exists(a) {
				t.Errorf("rule for %s allows %s: no such package", r.From, a)
			}
		}
	}
}

// TestViolationsAreFound feeds the checker imports the rules forbid, so the
// checks above are known to be able to fail.
func TestViolationsAreFound(t *testing.T) {
	tests := []struct {
		name  string
		graph map[string][]string
		want  string // a fragment of the one violation expected; "" for none
	}{
		{"allowed", map[string][]string{"pkg/session": {"pkg/engine", "pkg/wire/ros2msg"}, "pkg/engine": {"pkg/decisions"}}, ""},
		{"engine imports the wire", map[string][]string{"pkg/engine": {"pkg/wire/ros2msg"}}, "pkg/engine imports pkg/wire/ros2msg"},
		{"engine imports the session", map[string][]string{"pkg/engine": {"pkg/session"}}, "pkg/engine imports pkg/session"},
		{"decisions imports the wire", map[string][]string{"pkg/decisions": {"pkg/wire/ros2msg"}}, "pkg/decisions imports pkg/wire/ros2msg"},
		{"rules imports the engine", map[string][]string{"pkg/rules": {"pkg/engine"}}, "pkg/rules imports pkg/engine"},
		{"wire imports the vehicle", map[string][]string{"pkg/wire/dynamic": {"pkg/vehicle/px4"}}, "pkg/wire/dynamic imports pkg/vehicle/px4"},
		{"bag imports the transport", map[string][]string{"pkg/bag": {"pkg/ros2/transport"}}, "pkg/bag imports pkg/ros2/transport, which runs up"},
		{"wire imports the ROS 2 side", map[string][]string{"pkg/wire/qos": {"pkg/ros2/transport"}}, "pkg/wire/qos imports pkg/ros2/transport, which runs up"},
		{"wire imports the rules", map[string][]string{"pkg/wire/ros2msg": {"pkg/rules"}}, "pkg/wire/ros2msg imports pkg/rules, which runs up"},
		{"vehicle imports the transport", map[string][]string{"pkg/vehicle/executor": {"pkg/ros2/transport"}}, "pkg/vehicle/executor imports pkg/ros2/transport, which runs up"},
		{"vehicle imports the simulator", map[string][]string{"pkg/vehicle/px4sim": {"pkg/sim"}}, "pkg/vehicle/px4sim imports pkg/sim, which runs up"},
		{"session imports the parameters", map[string][]string{"pkg/session": {"pkg/ros2/config"}}, "pkg/session imports pkg/ros2/config, which runs up"},
		{"engine imports the parameter services", map[string][]string{"pkg/engine": {"pkg/ros2/param"}}, "pkg/engine imports pkg/ros2/param, which runs up"},
		{"rules import the parameters", map[string][]string{"pkg/rules": {"pkg/ros2/config"}}, "pkg/rules imports pkg/ros2/config, which runs up"},
		{"seal imports the audit", map[string][]string{"pkg/seal": {"pkg/audit"}}, "pkg/seal imports pkg/audit, which runs up"},
		{"sim imports the audit", map[string][]string{"pkg/sim": {"pkg/audit"}}, "pkg/sim imports pkg/audit: the rule for pkg/sim"},
		{"config imports the node", map[string][]string{"pkg/ros2/config": {"pkg/node"}}, "pkg/ros2/config imports pkg/node: the rule"},
		{"session imports the transport", map[string][]string{"pkg/session": {"pkg/ros2/transport"}}, "pkg/session imports pkg/ros2/transport"},
		{"audit imports the transport", map[string][]string{"pkg/audit/report": {"pkg/ros2/transport"}}, "pkg/audit/report imports pkg/ros2/transport, which runs up"},
		{"audit imports the bridge", map[string][]string{"pkg/audit": {"pkg/vehicle/bridge"}}, "pkg/audit imports pkg/vehicle/bridge"},
		{"vehicle imports the audit", map[string][]string{"pkg/vehicle/bridge": {"pkg/audit"}}, "pkg/vehicle/bridge imports pkg/audit"},
		{"whatif opens recordings itself", map[string][]string{"pkg/audit/whatif": {"pkg/bag"}}, "pkg/audit/whatif imports pkg/bag"},
		{"whatif reads PX4 logs itself", map[string][]string{"pkg/audit/whatif": {"pkg/vehicle/ulog"}}, "pkg/audit/whatif imports pkg/vehicle/ulog"},
		{"ros2 plumbing imports the session", map[string][]string{"pkg/ros2/clock": {"pkg/session"}}, "pkg/ros2/clock imports pkg/session"},
		{"something imports the node", map[string][]string{"pkg/sim": {"pkg/node"}}, "pkg/sim imports pkg/node, which runs up"},
		{"something imports the command", map[string][]string{"pkg/node": {"cmd/decision_node"}}, "pkg/node imports cmd/decision_node"},
		{"a helper imports the project", map[string][]string{"internal/golden": {"pkg/bag"}}, "internal/golden imports pkg/bag"},
		{"an unplaced package", map[string][]string{"pkg/planner": nil}, "pkg/planner: no rule"},
		{"production imports a test fixture", map[string][]string{"pkg/node": {"pkg/decisions/decisionstest"}}, "pkg/node imports pkg/decisions/decisionstest, which is for tests only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := violations(tt.graph)
			switch {
			case tt.want == "" && len(got) != 0:
				t.Errorf("violations %q, want none", got)
			case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
				t.Errorf("violations %q, want one containing %q", got, tt.want)
			}
		})
	}
}

// TestUpwardRulesAreFound feeds the floor check rules that point up, so
// TestRulesPointDown is known to be able to fail.
func TestUpwardRulesAreFound(t *testing.T) {
	graph := map[string][]string{"pkg/engine": nil, "pkg/session": nil, "pkg/wire/qos": nil, "pkg/ros2/transport": nil}
	tests := []struct {
		name string
		rs   []rule
		want string // a fragment of the one finding expected; "" for none
	}{
		{"down only", []rule{{"pkg/session", []string{"pkg/engine", "pkg/wire/..."}}, {"pkg/ros2/transport", []string{"pkg/wire/qos"}}}, ""},
		{"wire allowed the transport", []rule{{"pkg/wire/...", []string{"pkg/ros2/transport"}}}, "lets pkg/wire/qos (floor 7) import pkg/ros2/transport (floor 1)"},
		{"engine allowed the session", []rule{{"pkg/engine", []string{"pkg/session"}}}, "lets pkg/engine (floor 5) import pkg/session (floor 4)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := upward(graph, tt.rs)
			switch {
			case tt.want == "" && len(got) != 0:
				t.Errorf("findings %q, want none", got)
			case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
				t.Errorf("findings %q, want one containing %q", got, tt.want)
			}
		})
	}
}
