package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/testkeys"
	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/audit/honesty"
	"github.com/ghost-robotics/ghost/pkg/audit/latency"
)

// The hostile-input classes, each tested across every command that has the
// flag: an output that is an input, an input that is not a regular file.

// hostileFiles are valid inputs of every kind, in a temporary directory,
// so that a guard that fails destroys nothing of the repository.
type hostileFiles struct {
	dir                                        string
	flight, ulg, policy, cases, config, params string
	key, pub                                   string
}

func newHostileFiles(t *testing.T) hostileFiles {
	t.Helper()
	dir := t.TempDir()
	copyFile := func(from, name string) string {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	h := hostileFiles{dir: dir, flight: simulateShort(t, dir)}
	h.ulg = copyFile("../../pkg/vehicle/ulog/testdata/px4_v1.11_excerpt.ulg", "flight.ulg")
	h.policy = copyFile(px4Policy, "policy.yaml")
	h.cases = copyFile(strings.TrimSuffix(px4Policy, ".yaml")+".cases.yaml", "cases.yaml")
	h.params = copyFile("../../config/policies/pilot_takeover.yaml", "named-by-params.yaml")
	h.config = filepath.Join(dir, "params.yaml")
	if err := os.WriteFile(h.config, []byte("/**:\n  ros__parameters:\n    policy_file: "+h.params+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.key = testkeys.Private(t, testKeys+"node.key")
	h.pub = copyFile(testKeys+"node.pub", "node.pub")
	return h
}

// fileCommand is one command with the inputs it reads and the outputs it
// writes, as flags (an input flag "" is the command's argument).
type fileCommand struct {
	name    string
	base    func(h hostileFiles) []string // the command and what it always needs, inputs excepted
	inputs  map[string]func(h hostileFiles) string
	outputs []string
}

// fileCommands are every command that reads or writes files a user names.
func fileCommands() []fileCommand {
	flight := func(h hostileFiles) string { return h.flight }
	config := func(h hostileFiles) string { return h.config }
	policy := func(h hostileFiles) string { return h.policy }
	params := func(h hostileFiles) string { return h.params } // named by --config's policy_file
	return []fileCommand{
		{"sim", func(hostileFiles) []string { return []string{"sim", "--duration", "1s", "--quiet"} },
			map[string]func(hostileFiles) string{"--config": config, "--policy-file": policy,
				"--signing-key": func(h hostileFiles) string { return h.key }, "policy_file": params},
			[]string{"--out"}},
		{"replay", func(hostileFiles) []string { return []string{"replay", "--quiet", "--force"} },
			map[string]func(hostileFiles) string{"--in": flight, "--config": config, "--policy-file": policy,
				"--signing-key": func(h hostileFiles) string { return h.key }, "policy_file": params},
			[]string{"--out"}},
		{"ulog", func(hostileFiles) []string { return []string{"ulog", "--quiet", "--force"} },
			map[string]func(hostileFiles) string{"--in": func(h hostileFiles) string { return h.ulg }, "--config": config,
				"--policy-file": policy, "--signing-key": func(h hostileFiles) string { return h.key }, "policy_file": params},
			[]string{"--out"}},
		{"verify", func(hostileFiles) []string { return []string{"verify", "--quiet"} },
			map[string]func(hostileFiles) string{"": flight, "--config": config, "--policy-file": policy,
				"--trust-key": func(h hostileFiles) string { return h.pub }, "policy_file": params},
			[]string{"--json"}},
		{"report", func(hostileFiles) []string { return []string{"report", "--quiet", "--force"} },
			map[string]func(hostileFiles) string{"": flight, "--config": config, "--policy-file": policy, "policy_file": params},
			[]string{"--out", "--figures"}},
		{"honesty", func(hostileFiles) []string { return []string{"honesty", "--quiet"} },
			map[string]func(hostileFiles) string{"": flight, "--config": config},
			[]string{"--json"}},
		{"latency", func(hostileFiles) []string { return []string{"latency"} },
			map[string]func(hostileFiles) string{"": flight, "--config": config},
			[]string{"--json"}},
		{"whatif", func(hostileFiles) []string { return []string{"whatif", "--quiet"} },
			map[string]func(hostileFiles) string{"": flight, "--config": config, "--policy-file": policy,
				"--cases": func(h hostileFiles) string { return h.cases }, "policy_file": params},
			[]string{"--html"}},
		{"policy check", func(hostileFiles) []string { return []string{"policy", "check"} },
			map[string]func(hostileFiles) string{"": policy}, nil},
		{"policy test", func(h hostileFiles) []string { return []string{"policy", "test", h.policy} },
			map[string]func(hostileFiles) string{"": func(h hostileFiles) string { return h.cases }}, nil},
	}
}

// args are c's command line with every input at its valid file, the one
// named by flag (if any: "-" names none) replaced by path (the parameter
// policy_file by a parameters file naming path), and the outputs given.
func (c fileCommand) args(h hostileFiles, flag, path string, outputs map[string]string) []string {
	args := c.base(h)
	for _, f := range c.inputNames() {
		v := c.inputs[f](h)
		if f == flag {
			v = path
		}
		switch {
		case f == "policy_file": // named by --config
		case f == "":
			args = append(args, v)
		case f == "--config" && flag == "policy_file":
			args = append(args, f, writeParams(h, path))
		default:
			args = append(args, f, v)
		}
	}
	for _, o := range c.outputs {
		if p, ok := outputs[o]; ok {
			args = append(args, o, p)
		}
	}
	return args
}

// inputNames are c's inputs in order.
func (c fileCommand) inputNames() []string {
	var names []string
	for k := range c.inputs {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// writeParams writes a parameters file naming policy as its policy_file.
func writeParams(h hostileFiles, policy string) string {
	p := filepath.Join(h.dir, fmt.Sprintf("params-%d.yaml", len(policy)))
	_ = os.WriteFile(p, []byte("/**:\n  ros__parameters:\n    policy_file: "+policy+"\n"), 0o644)
	return p
}

// TestNoOutputReplacesAnInput: for every command, every output it writes
// given as every input it reads, by the same path, another spelling, a
// symbolic link or a hard link, is refused with exit status 3 before any
// work, naming the input, and the input is left as it was.
func TestNoOutputReplacesAnInput(t *testing.T) {
	h := newHostileFiles(t)
	spellings := []struct {
		name string
		of   func(t *testing.T, path string) string
	}{
		{"same path", func(_ *testing.T, p string) string { return p }},
		{"a detour", func(_ *testing.T, p string) string {
			return filepath.Join(filepath.Dir(p), ".", "..", filepath.Base(filepath.Dir(p)), filepath.Base(p))
		}},
		{"a symbolic link", func(t *testing.T, p string) string {
			l := filepath.Join(t.TempDir(), "link")
			if err := os.Symlink(p, l); err != nil {
				t.Skip(err)
			}
			return l
		}},
		{"a hard link", func(t *testing.T, p string) string {
			l := filepath.Join(filepath.Dir(p), "hard-"+filepath.Base(p))
			_ = os.Remove(l)
			if err := os.Link(p, l); err != nil {
				t.Skip(err)
			}
			t.Cleanup(func() { os.Remove(l) })
			return l
		}},
	}
	for _, c := range fileCommands() {
		for _, out := range c.outputs {
			for _, in := range c.inputNames() {
				pathOf := c.inputs[in]
				for _, sp := range spellings {
					name := fmt.Sprintf("%s %s=%s by %s", c.name, out, cmp(in, "argument"), sp.name)
					t.Run(name, func(t *testing.T) {
						target := pathOf(h)
						before, err := os.ReadFile(target)
						if err != nil {
							t.Fatal(err)
						}
						outputs := map[string]string{out: sp.of(t, target)}
						fresh := t.TempDir()
						for _, o := range c.outputs {
							if o != out {
								outputs[o] = filepath.Join(fresh, strings.TrimPrefix(o, "--"))
							}
						}
						args := c.args(h, "-", "", outputs)
						code, stdout, stderr := cli(t, args...)
						if code != exitIO || !strings.Contains(stderr, "is the input") {
							t.Fatalf("%q: exit %d, want %d naming the input:\n%s%s", args, code, exitIO, stdout, stderr)
						}
						after, err := os.ReadFile(target)
						if err != nil || !bytes.Equal(before, after) {
							t.Fatalf("%q changed the input %s (%v)", args, target, err)
						}
						assertNoPartials(t, filepath.Dir(target))
						if entries, _ := os.ReadDir(fresh); len(entries) > 0 {
							t.Errorf("%q wrote %s before refusing", args, entries[0].Name())
						}
					})
				}
			}
		}
	}
}

func cmp(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

// assertNoPartials fails when dir holds a temporary output.
func assertNoPartials(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".partial-") {
			t.Errorf("a temporary output was left: %s", e.Name())
		}
	}
}

// TestInputsMustBeRegularFiles: every input of every command given as a
// named pipe (which blocks an open for reading until a writer comes), a
// device, a socket or a directory (where a directory is not a valid
// input) is refused with exit status 3, naming it, without waiting.
func TestInputsMustBeRegularFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no named pipes as files here")
	}
	h := newHostileFiles(t)
	fifo := filepath.Join(h.dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	sock := filepath.Join(h.dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	empty := filepath.Join(h.dir, "empty-dir")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	kinds := []struct{ name, path string }{{"a named pipe", fifo}, {"a socket", sock}, {"a directory", empty}}
	if _, err := os.Stat("/dev/null"); err == nil {
		kinds = append(kinds, struct{ name, path string }{"a character device", "/dev/null"})
	}
	out := filepath.Join(h.dir, "out")
	for _, c := range fileCommands() {
		for _, in := range c.inputNames() {
			for _, k := range kinds {
				t.Run(fmt.Sprintf("%s %s=%s", c.name, cmp(in, "argument"), k.name), func(t *testing.T) {
					outputs := map[string]string{}
					for _, o := range c.outputs {
						outputs[o] = out + strings.TrimPrefix(o, "--")
					}
					args := c.args(h, in, k.path, outputs)
					code, stdout, stderr := cliWithin(t, fifo, args...)
					if code != exitIO || !strings.Contains(stderr, k.path) {
						t.Fatalf("%q: exit %d, want %d naming %s:\n%s%s", args, code, exitIO, k.path, stdout, stderr)
					}
					for _, o := range outputs {
						if _, err := os.Stat(o); err == nil {
							t.Errorf("%q wrote %s", args, o)
							os.RemoveAll(o)
						}
					}
				})
			}
		}
	}
}

// cliWithin runs the command line and fails t if it has not ended within
// a minute, opening the named pipe for writing so that a reader blocked on
// it returns.
func cliWithin(t *testing.T, fifo string, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		done <- result{code, stdout.String(), stderr.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(time.Minute):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatalf("%q still running after a minute: it waits on an input", args)
	}
	return 0, "", ""
}

// TestEveryFileFlagIsClassified: every flag of every command whose value
// is a file or a folder is an input flag or an output flag, so that the
// guard against an output replacing an input knows it.
func TestEveryFileFlagIsClassified(t *testing.T) {
	known := append(slices.Clone(inputFlags), outputFlags...)
	for _, c := range commands() {
		if c.name == "version" {
			continue
		}
		var stdout bytes.Buffer
		code := run([]string{c.name, "-h"}, &stdout, io.Discard)
		if code != exitOK {
			t.Fatalf("%s -h: exit %d", c.name, code)
		}
		// The help lists "--flag placeholder"; the placeholder is the
		// back-quoted word of the usage, "file" or "dir" for files.
		for _, line := range strings.Split(stdout.String(), "\n") {
			fields := strings.Fields(line)
			if len(fields) < 2 || !strings.HasPrefix(fields[0], "--") {
				continue
			}
			if p := fields[1]; p == "file" || p == "dir" {
				name := strings.TrimPrefix(fields[0], "--")
				if !slices.Contains(known, name) {
					t.Errorf("%s --%s names a %s but is neither in inputFlags nor in outputFlags", c.name, name, p)
				}
			}
		}
	}
}

// TestReportLeavesNothingWhenAnOutputFails: the HTML and the figures are
// put in place together, so a --figures that cannot be written (a file,
// not a folder; a figure's name taken by a folder) leaves no report behind.
func TestReportLeavesNothingWhenAnOutputFails(t *testing.T) {
	dir := t.TempDir()
	flight := simulateShort(t, dir)
	file := filepath.Join(dir, "figures.txt")
	if err := os.WriteFile(file, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	taken := filepath.Join(dir, "taken")
	if err := os.MkdirAll(filepath.Join(taken, "decisions.svg"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, figures, want string }{
		{"a file", file, "not a folder"},
		{"a figure's name taken by a folder", taken, "is a directory, not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "report.html")
			code, _, stderr := cli(t, "report", flight, "--out", out, "--figures", tc.figures)
			if code != exitIO || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want %d saying %q:\n%s", code, exitIO, tc.want, stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatalf("the report was left behind")
			}
			assertNoPartials(t, dir)
			assertNoPartials(t, taken)
			if entries, _ := os.ReadDir(taken); len(entries) != 1 {
				t.Errorf("figures were left behind: %d entries", len(entries))
			}
		})
	}
}

// TestJSONOutputsCannotFail: encoding/json refuses an infinite or NaN
// float, so no figure of a --json output may be a plain float: each is a
// type that writes itself (honesty.Number), so that a finite input, however
// huge, always gives a JSON document.
func TestJSONOutputsCannotFail(t *testing.T) {
	marshaler := reflect.TypeFor[json.Marshaler]()
	var walk func(path string, typ reflect.Type, seen map[reflect.Type]bool)
	walk = func(path string, typ reflect.Type, seen map[reflect.Type]bool) {
		if typ.Implements(marshaler) || reflect.PointerTo(typ).Implements(marshaler) || seen[typ] {
			return
		}
		seen[typ] = true
		defer delete(seen, typ)
		switch typ.Kind() {
		case reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
			t.Errorf("%s is a plain %s: an infinite value would make the JSON fail", path, typ)
		case reflect.Interface:
			t.Errorf("%s is an interface: what it holds cannot be checked", path)
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(path+"[]", typ.Elem(), seen)
		case reflect.Map:
			walk(path+"{key}", typ.Key(), seen)
			walk(path+"{}", typ.Elem(), seen)
		case reflect.Struct:
			for f := range typ.Fields() {
				if f.IsExported() && f.Tag.Get("json") != "-" {
					walk(path+"."+f.Name, f.Type, seen)
				}
			}
		}
	}
	for _, v := range []any{honesty.Result{}, latency.Report{}, audit.AuditReport{}, manyReport{}} {
		typ := reflect.TypeOf(v)
		walk(typ.String(), typ, map[reflect.Type]bool{})
	}
}
