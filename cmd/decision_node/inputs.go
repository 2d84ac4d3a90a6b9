package main

import (
	"flag"
	"os"
	"slices"

	"github.com/ghost-robotics/ghost/pkg/ros2/config"
)

// No output may replace an input. Every command's flag set records the
// files the command line names for reading (inputFlags, and the
// arguments), every output is checked against all of them before the work
// and again before it is renamed into place (checkOutput), and a file is
// the same as an input when it is the same file however it is reached: a
// symbolic link, a hard link, another spelling of the path.

// inputFlags are the flags, in any command, whose values name a file or a
// directory the command reads. A flag that names a file must be here or
// in outputFlags (TestEveryFileFlagIsClassified).
var inputFlags = []string{"in", "config", "policy-file", "signing-key", "trust-key", "px4-msgs", "baseline", "cases"}

// outputFlags are the flags whose values name a file or a directory a
// command writes ("-" is standard output).
var outputFlags = []string{"out", "json", "figures", "html"}

// input is a file a command reads, with what named it: a flag ("--config"),
// "an argument", or the parameter of a parameters file.
type input struct{ by, path string }

// inputs are a command's inputs.
type inputs []input

// recordValue is a flag.Value that also records every value set, so that
// repeatable flags (--policy-file, --trust-key) give all of theirs.
type recordValue struct {
	flag.Value
	name string
	to   *inputs
}

func (v recordValue) Set(s string) error {
	if s != "" {
		*v.to = append(*v.to, input{by: "--" + v.name, path: s})
	}
	return v.Value.Set(s)
}

// Get passes the wrapped value's on, for the help's defaults.
func (v recordValue) Get() any {
	if g, ok := v.Value.(flag.Getter); ok {
		return g.Get()
	}
	return nil
}

// recordInputs wraps the command's input flags before parsing.
func (c *cmdFlags) recordInputs() {
	for _, name := range inputFlags {
		if f := c.Lookup(name); f != nil {
			f.Value = recordValue{Value: f.Value, name: name, to: &c.named}
		}
	}
}

// inputs are the files the command line names for reading: the input
// flags' values and the arguments.
func (c *cmdFlags) inputs() inputs {
	out := slices.Clone(c.named)
	for _, a := range c.args {
		out = append(out, input{by: "an argument", path: a})
	}
	return out
}

// inputsWith are c's inputs and the files the configuration names for
// reading (a policy file, a key file): those of cfg and those of every
// --config file, which are read even when a flag overrides them.
func (c *cmdFlags) inputsWith(cfg config.Config) inputs {
	out := c.inputs()
	named := func(cfg config.Config, of string) {
		if cfg.PolicyFile != "" {
			out = append(out, input{by: "the parameter policy_file" + of, path: cfg.PolicyFile})
		}
		if cfg.Seal.KeyFile != "" {
			out = append(out, input{by: "the parameter seal.key_file" + of, path: cfg.Seal.KeyFile})
		}
	}
	named(cfg, "")
	for _, in := range c.named {
		if in.by == "--config" {
			if fc, err := config.FromParamsFile(in.path); err == nil {
				named(fc, " of --config "+in.path)
			}
		}
	}
	return out
}

// sameAs returns the input that path is (the same file or directory, or
// one of a rosbag2 bag's files), if any. A path that does not exist is no
// input.
func (ins inputs) sameAs(path string) (input, bool) {
	out, err := os.Stat(path)
	if err != nil {
		return input{}, false
	}
	for _, in := range ins {
		files := []string{in.path}
		if rec, ok := recordingAt(in.path); ok && rec.err == nil && len(rec.files) > 0 && rec.files[0] != in.path {
			files = append(files, rec.files...)
		}
		for _, f := range files {
			if st, err := os.Stat(f); err == nil && os.SameFile(st, out) {
				return input{by: in.by, path: f}, true
			}
		}
	}
	return input{}, false
}

// checkNotInput refuses an output path that is one of the inputs.
func checkNotInput(flag, path string, ins inputs) error {
	if in, ok := ins.sameAs(path); ok {
		return fail(exitIO, "%s %s is the input %s (%s): writing it would destroy what is read; choose another file", flag, path, in.path, in.by)
	}
	return nil
}

// checkOutputs refuses, before any work, an output flag's value that is
// one of the inputs.
func (c *cmdFlags) checkOutputs(ins inputs) error {
	for _, name := range outputFlags {
		f := c.Lookup(name)
		if f == nil {
			continue
		}
		if p := f.Value.String(); p != "" && p != "-" {
			if err := checkNotInput("--"+name, p, ins); err != nil {
				return err
			}
		}
	}
	return nil
}
