package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// maxFileBytes bounds what a policy or cases file may hold, so a hostile
// file cannot make the parser work without limit.
const maxFileBytes = 1 << 20

// reader walks a yaml.Node tree and turns every problem into a ParseError
// at the offending node. yaml.v3's KnownFields misses duplicate keys and
// gives no columns, hence the walk.
type reader struct{ file string }

func (r *reader) errf(n *yaml.Node, format string, args ...any) error {
	line, col := 1, 1
	if n != nil && n.Line > 0 {
		line, col = n.Line, n.Column
	}
	return &ParseError{File: r.file, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// document decodes data as exactly one YAML document and returns its root.
func (r *reader) document(data []byte) (root *yaml.Node, err error) {
	if len(data) > maxFileBytes {
		return nil, &ParseError{File: r.file, Line: 1, Column: 1, Msg: fmt.Sprintf("file is %d bytes, more than the limit of %d", len(data), maxFileBytes)}
	}
	defer func() {
		// The YAML library is third-party code; whatever it does with a
		// hostile input, the caller gets an error, not a panic.
		if p := recover(); p != nil {
			root, err = nil, &ParseError{File: r.file, Line: 1, Column: 1, Msg: fmt.Sprintf("YAML: %v", p)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ParseError{File: r.file, Line: 1, Column: 1, Msg: "empty file"}
		}
		return nil, r.syntax(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, r.errf(&extra, "more than one YAML document")
	} else if !errors.Is(err, io.EOF) {
		return nil, r.syntax(err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, r.errf(&doc, "empty document")
	}
	return doc.Content[0], nil
}

func (r *reader) syntax(err error) error {
	line := 1
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		if n, e := strconv.Atoi(m[1]); e == nil {
			line = n
		}
	}
	msg := err.Error()
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return &ParseError{File: r.file, Line: line, Column: 1, Msg: msg}
}

// kindName names a node's kind for messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return n.Tag + " " + quote(n.Value)
	}
	return "nothing"
}

func (r *reader) noAlias(n *yaml.Node, what string) error {
	if n.Kind == yaml.AliasNode {
		return r.errf(n, "%s: YAML aliases are not supported", what)
	}
	return nil
}

// entry is one key of a mapping with its value.
type entry struct{ key, val *yaml.Node }

// fields reads a mapping whose keys must all be in allowed and contain
// every key of required; a duplicate or unknown key is an error. The result
// is indexed by key; iteration order never reaches output.
func (r *reader) fields(n *yaml.Node, what string, allowed, required []string) (map[string]entry, error) {
	if err := r.noAlias(n, what); err != nil {
		return nil, err
	}
	if n.Kind != yaml.MappingNode {
		return nil, r.errf(n, "%s: want a mapping, got %s", what, kindName(n))
	}
	out := make(map[string]entry, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
			return nil, r.errf(k, "%s: keys must be plain strings, got %s", what, kindName(k))
		}
		if prev, dup := out[k.Value]; dup {
			return nil, r.errf(k, "%s: duplicate key %s (first at line %d)", what, quote(k.Value), prev.key.Line)
		}
		if !contains(allowed, k.Value) {
			return nil, r.errf(k, "%s: unknown key %s (allowed: %v)", what, quote(k.Value), allowed)
		}
		if err := r.noAlias(v, what+"."+k.Value); err != nil {
			return nil, err
		}
		out[k.Value] = entry{k, v}
	}
	for _, k := range required {
		if _, ok := out[k]; !ok {
			return nil, r.errf(n, "%s: missing key %s", what, quote(k))
		}
	}
	return out, nil
}

// single reads a mapping of exactly one key (a condition or an operator).
func (r *reader) single(n *yaml.Node, what string) (entry, error) {
	if err := r.noAlias(n, what); err != nil {
		return entry{}, err
	}
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return entry{}, r.errf(n, "%s: want a mapping with exactly one key, got %s", what, describe(n))
	}
	k, v := n.Content[0], n.Content[1]
	if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
		return entry{}, r.errf(k, "%s: keys must be plain strings, got %s", what, kindName(k))
	}
	if err := r.noAlias(v, what+"."+k.Value); err != nil {
		return entry{}, err
	}
	return entry{k, v}, nil
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.MappingNode {
		return fmt.Sprintf("a mapping with %d keys", len(n.Content)/2)
	}
	return kindName(n)
}

func (r *reader) str(n *yaml.Node, what string) (string, error) {
	if err := r.noAlias(n, what); err != nil {
		return "", err
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", r.errf(n, "%s: want a string, got %s", what, kindName(n))
	}
	return n.Value, nil
}

// ident reads a snake_case identifier of 1 to max characters.
func (r *reader) ident(n *yaml.Node, what string, max int) (string, error) {
	s, err := r.str(n, what)
	if err != nil {
		return "", err
	}
	if !isIdentifier(s, max) {
		return "", r.errf(n, "%s = %s: must match ^[a-z][a-z0-9_]*$, 1 to %d characters", what, quote(s), max)
	}
	return s, nil
}

func (r *reader) integer(n *yaml.Node, what string) (int64, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return 0, r.errf(n, "%s: want an integer, got %s", what, kindName(n))
	}
	var v int64
	if err := n.Decode(&v); err != nil {
		return 0, r.errf(n, "%s = %s: not a 64-bit integer", what, quote(n.Value))
	}
	return v, nil
}

func (r *reader) float(n *yaml.Node, what string) (float64, error) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		return 0, r.errf(n, "%s: want a number, got %s", what, kindName(n))
	}
	var v float64
	if err := n.Decode(&v); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, r.errf(n, "%s = %s: want a finite number", what, quote(n.Value))
	}
	return v + 0, nil // +0 turns -0 into 0: they compare equal, so they must hash equal
}

func (r *reader) boolean(n *yaml.Node, what string) (bool, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return false, r.errf(n, "%s: want true or false, got %s", what, kindName(n))
	}
	var v bool
	if err := n.Decode(&v); err != nil {
		return false, r.errf(n, "%s = %s: want true or false", what, quote(n.Value))
	}
	return v, nil
}

// duration reads a Go duration string ("2s", "1500ms", "0s"), >= 0.
func (r *reader) duration(n *yaml.Node, what string) (int64, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return 0, r.errf(n, "%s: want a duration such as \"2s\" or \"500ms\", got %s", what, kindName(n))
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil {
		return 0, r.errf(n, "%s = %s: want a duration such as \"2s\" or \"500ms\"", what, quote(n.Value))
	}
	if d < 0 {
		return 0, r.errf(n, "%s = %s: must not be negative", what, quote(n.Value))
	}
	return int64(d), nil
}

func (r *reader) seq(n *yaml.Node, what string) ([]*yaml.Node, error) {
	if err := r.noAlias(n, what); err != nil {
		return nil, err
	}
	if n.Kind != yaml.SequenceNode {
		return nil, r.errf(n, "%s: want a list, got %s", what, kindName(n))
	}
	for _, c := range n.Content {
		if err := r.noAlias(c, what); err != nil {
			return nil, err
		}
	}
	return n.Content, nil
}

// name reads one of names (a closed enumeration) and returns its index.
func (r *reader) name(n *yaml.Node, what string, names []string) (int, error) {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
		return 0, r.errf(n, "%s = %s: want one of %v, a name, not a number", what, quote(n.Value), names)
	}
	s, err := r.str(n, what)
	if err != nil {
		return 0, err
	}
	for i, v := range names {
		if v == s {
			return i, nil
		}
	}
	return 0, r.errf(n, "%s = %s: want one of %v", what, quote(s), names)
}

// isIdentifier reports whether s matches ^[a-z][a-z0-9_]*$ with 1 to max
// characters: the form of reasons, rule names and policy ids.
func isIdentifier(s string, max int) bool {
	if len(s) < 1 || len(s) > max || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
