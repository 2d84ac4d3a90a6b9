package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseParamsYAML: any input yields sections or an error, never a panic,
// and every parameter it yields has a name and a type.
func FuzzParseParamsYAML(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "params", "*.yaml"))
	files = append(files, decisionYAML)
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("a: &x {ros__parameters: {p: *x}}"))
	f.Add([]byte("/**:\n  ros__parameters:\n    a: {b: {c: [1]}}\n"))
	f.Add([]byte("- 1\n- 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sections, err := parseParamsYAML(data)
		if err != nil {
			return
		}
		for _, s := range sections {
			if !strings.HasPrefix(s.node, "/") {
				t.Fatalf("node key %q is not absolute", s.node)
			}
			for _, p := range s.params {
				if p.name == "" || p.val.typ > TypeString { // typeArray (0): an array, refused when applied
					t.Fatalf("bad entry %+v", p)
				}
			}
			// Applying never panics, whatever the names and values.
			c := Default()
			_ = c.applySections([]paramSection{s}, "/decision_node", "fuzz", nil)
		}
	})
}

// FuzzParseValue: a -p value is typed or rejected, never a panic; typing is
// stable (a string's own quoted spelling reads back as the same string).
func FuzzParseValue(f *testing.F) {
	for _, tc := range valueCases {
		f.Add(tc.text)
	}
	for _, s := range []string{"", "[1,2]", "{a: 1}", "'unterminated", "*alias", "&a 1", "!!binary aGk=", "0b101", "1_000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseValue(s)
		if err != nil {
			return
		}
		if v.typ < TypeBool || v.typ > TypeString {
			t.Fatalf("parseValue(%q) typed %v", s, v.typ)
		}
		if v.typ == TypeString && !strings.ContainsAny(v.s, "'\n\r") && len(v.s) < 1000 {
			q, err := parseValue("'" + v.s + "'")
			if err == nil && (q.typ != TypeString || q.s != v.s) {
				t.Fatalf("'%s' reads back as %+v", v.s, q)
			}
		}
	})
}

// FuzzFromArgs: any command line gives a valid Config or an error.
func FuzzFromArgs(f *testing.F) {
	f.Add("--ros-args\x00-p\x00policy:=uncertainty_aware_reference_v1\x00--\x00x")
	f.Add("--ros-args\x00-r\x00__ns:=/a\x00-r\x00/state/nav:=nav\x00--log-level\x00a.decision_node:=debug")
	f.Add("--ros-args\x00-p\x00decision_node:qos.state.depth:=0x10\x00-e\x00/x")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		for _, a := range args {
			if a == "--params-file" {
				return // the file system is not part of this target
			}
		}
		c, _, err := FromArgs(args)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("FromArgs returned an invalid config: %v", err)
		}
		if _, err := c.ResolvedTopics(); err != nil {
			t.Fatalf("FromArgs returned unresolvable topics: %v", err)
		}
	})
}
