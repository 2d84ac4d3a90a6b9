package msg

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
)

// Package is the ROS 2 package name of the ghost messages.
const Package = "ghost"

//go:embed *.msg
var files embed.FS

// ErrUnknownType is wrapped by errors for message names that a set does
// not define.
var ErrUnknownType = errors.New("unknown message type")

// schemaSeparator is the line rosbag2 writes before each dependency of a
// schema text (80 '=' characters).
var schemaSeparator = strings.Repeat("=", 80)

// maxSchemaDepth bounds dependency nesting, as rosbag2 does, so a cyclic
// definition fails instead of recursing forever.
const maxSchemaDepth = 50

// Set is a collection of parsed message definitions that may reference each
// other. The zero value is not usable; create one with NewSet.
type Set struct {
	specs map[string]*Spec  // by "pkg/Name"
	texts map[string]string // by "pkg/Name"
}

// NewSet returns an empty set.
func NewSet() *Set {
	return &Set{specs: make(map[string]*Spec), texts: make(map[string]string)}
}

// Add parses text as the definition of pkg/name and adds it to the set.
func (s *Set) Add(pkg, name, text string) error {
	key := pkg + "/" + name
	if _, dup := s.specs[key]; dup {
		return fmt.Errorf("msg: %s/msg/%s defined twice", pkg, name)
	}
	spec, err := Parse(pkg, name, text)
	if err != nil {
		return err
	}
	s.specs[key] = spec
	s.texts[key] = text
	return nil
}

// AddFS adds every file "<pkg>/<Name>.msg" found directly below the
// package directories of fsys.
func (s *Set) AddFS(fsys fs.FS) error {
	matches, err := fs.Glob(fsys, "*/*.msg")
	if err != nil {
		return fmt.Errorf("msg: list definitions: %w", err)
	}
	for _, m := range matches {
		data, err := fs.ReadFile(fsys, m)
		if err != nil {
			return fmt.Errorf("msg: read %s: %w", m, err)
		}
		if err := s.Add(path.Dir(m), strings.TrimSuffix(path.Base(m), ".msg"), string(data)); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks that every referenced message type is in the set and that
// no type contains itself.
func (s *Set) Validate() error {
	done := make(map[string]bool)
	for _, key := range s.keys() {
		if err := s.checkRefs(key, nil, done); err != nil {
			return err
		}
	}
	return nil
}

// checkRefs walks the types key uses, depth-first. stack holds the types
// being walked (a repeat is a cycle); done the types already found sound, so
// shared dependencies are walked once.
func (s *Set) checkRefs(key string, stack []string, done map[string]bool) error {
	if done[key] {
		return nil
	}
	if slices.Contains(stack, key) {
		return fmt.Errorf("msg: %s contains itself via %s", key, strings.Join(append(stack, key), " -> "))
	}
	if len(stack) >= maxSchemaDepth {
		return fmt.Errorf("msg: %s: types nested deeper than %d", stack[0], maxSchemaDepth)
	}
	spec := s.specs[key]
	stack = append(stack, key)
	for _, f := range spec.Fields {
		if f.Type.IsPrimitive() {
			continue
		}
		dep := f.Type.Package + "/" + f.Type.Name
		if _, ok := s.specs[dep]; !ok {
			return fmt.Errorf("msg: %s field %s: %w %s", spec.FullName(), f.Name, ErrUnknownType, f.Type.FullName())
		}
		if err := s.checkRefs(dep, stack, done); err != nil {
			return err
		}
	}
	done[key] = true
	return nil
}

func (s *Set) keys() []string {
	keys := make([]string, 0, len(s.specs))
	for k := range s.specs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Names returns the full names ("pkg/msg/Name") of the set's types, sorted.
func (s *Set) Names() []string {
	keys := s.keys()
	for i, k := range keys {
		keys[i] = s.specs[k].FullName()
	}
	return keys
}

// lookupKey maps "pkg/Name" or "pkg/msg/Name" to the set's key.
func (s *Set) lookupKey(name string) (string, error) {
	key := name
	if p, rest, ok := strings.Cut(name, "/msg/"); ok && !strings.Contains(rest, "/") {
		key = p + "/" + rest
	}
	if _, ok := s.specs[key]; !ok {
		return "", fmt.Errorf("msg: %w %q", ErrUnknownType, name)
	}
	return key, nil
}

// Definition returns a copy of the parsed definition of name, given as
// "pkg/Name" or "pkg/msg/Name".
func (s *Set) Definition(name string) (*Spec, error) {
	key, err := s.lookupKey(name)
	if err != nil {
		return nil, err
	}
	return s.specs[key].Clone(), nil
}

// Text returns the definition text of name exactly as it was added.
func (s *Set) Text(name string) (string, error) {
	key, err := s.lookupKey(name)
	if err != nil {
		return "", err
	}
	return s.texts[key], nil
}

// SchemaText returns the complete "ros2msg" schema text of name, as rosbag2
// (rosbag2_cpp LocalMessageDefinitionSource) writes it into MCAP files: the
// type's own text, then for each dependency, depth-first, the dependencies
// of a type in sorted order, each type once: "\n", a line of 80 '=', a line
// "MSG: pkg/Name", and the dependency's text.
func (s *Set) SchemaText(name string) (string, error) {
	key, err := s.lookupKey(name)
	if err != nil {
		return "", err
	}
	if err := s.checkRefs(key, nil, make(map[string]bool)); err != nil {
		return "", err
	}
	var b strings.Builder
	seen := make(map[string]bool)
	if err := s.appendSchema(&b, key, seen, maxSchemaDepth); err != nil {
		return "", fmt.Errorf("msg: schema of %s: %w", name, err)
	}
	return b.String(), nil
}

func (s *Set) appendSchema(b *strings.Builder, key string, seen map[string]bool, depth int) error {
	if depth <= 0 {
		return errors.New("dependencies nested too deeply (cyclic definition?)")
	}
	spec, ok := s.specs[key]
	if !ok {
		return fmt.Errorf("%w %s", ErrUnknownType, key)
	}
	b.WriteString(s.texts[key])
	for _, dep := range spec.Dependencies() {
		if seen[dep] {
			continue
		}
		seen[dep] = true
		b.WriteString("\n")
		b.WriteString(schemaSeparator)
		b.WriteString("\nMSG: ")
		b.WriteString(dep)
		b.WriteString("\n")
		if err := s.appendSchema(b, dep, seen, depth-1); err != nil {
			return err
		}
	}
	return nil
}

// CheckSchema parses a stored schema text for type name and reports, as an
// error naming the first difference, whether it describes a different wire
// layout than the set's own definitions: another field name, type, array
// kind or length, in name or in any type it uses. Comments, constants and
// default values do not matter.
func (s *Set) CheckSchema(name, schema string) error {
	stored, err := ParseSchemaText(name, schema)
	if err != nil {
		return err
	}
	key, err := s.lookupKey(name)
	if err != nil {
		return err
	}
	return s.compare(key, stored, maxSchemaDepth)
}

func (s *Set) compare(key string, stored map[string]*Spec, depth int) error {
	if depth <= 0 {
		return errors.New("msg: dependencies nested too deeply")
	}
	want := s.specs[key]
	got, ok := stored[want.FullName()]
	if !ok {
		return fmt.Errorf("msg: schema lacks %s", want.FullName())
	}
	if len(got.Fields) != len(want.Fields) {
		return fmt.Errorf("msg: schema %s has %d fields, want %d", want.FullName(), len(got.Fields), len(want.Fields))
	}
	for i, w := range want.Fields {
		g := got.Fields[i]
		if g.Name != w.Name || g.Type != w.Type || g.Array != w.Array || g.ArrayLen != w.ArrayLen {
			return fmt.Errorf("msg: schema %s field %d is %q, want %q", want.FullName(), i, fieldDecl(g), fieldDecl(w))
		}
		if !w.Type.IsPrimitive() {
			if err := s.compare(w.Type.Package+"/"+w.Type.Name, stored, depth-1); err != nil {
				return err
			}
		}
	}
	return nil
}

// fieldDecl writes a field back as a declaration, for error messages.
func fieldDecl(f Field) string {
	t := f.Type.String()
	switch f.Array {
	case FixedArray:
		t += fmt.Sprintf("[%d]", f.ArrayLen)
	case UnboundedSequence:
		t += "[]"
	case BoundedSequence:
		t += fmt.Sprintf("[<=%d]", f.ArrayLen)
	}
	return t + " " + f.Name
}

// ParseSchemaText parses a complete "ros2msg" schema text as stored in MCAP
// for the type name ("pkg/msg/Name" or "pkg/Name"). It returns every
// definition in it keyed by full name ("ghost/msg/Goal"). Dependencies may
// come in any order and their headers may read "MSG: pkg/Name" or
// "MSG: pkg/msg/Name". Every referenced type must be defined, exactly once.
func ParseSchemaText(name, schema string) (map[string]*Spec, error) {
	pkg, typ, err := splitTypeName(name)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*Spec)
	add := func(pkg, typ, text string, line int) error {
		spec, err := Parse(pkg, typ, text)
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) && pe.Line > 0 {
				pe.Line += line - 1 // report lines of the whole schema text
			}
			return err
		}
		if _, dup := out[spec.FullName()]; dup {
			return fmt.Errorf("msg: schema of %s defines %s twice", name, spec.FullName())
		}
		out[spec.FullName()] = spec
		return nil
	}
	lines := strings.Split(schema, "\n")
	start, curPkg, curType := 0, pkg, typ
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSuffix(lines[i], "\r")
		if l == "" || strings.Trim(l, "=") != "" {
			continue
		}
		// A separator line: the next line must name the next definition.
		if i+1 >= len(lines) {
			return nil, fmt.Errorf("msg: schema of %s line %d: separator without a MSG: line", name, i+1)
		}
		header := strings.TrimSuffix(lines[i+1], "\r")
		dep, ok := strings.CutPrefix(header, "MSG: ")
		if !ok {
			return nil, fmt.Errorf("msg: schema of %s line %d: want \"MSG: pkg/Name\" after the separator, got %q", name, i+2, header)
		}
		if err := add(curPkg, curType, strings.Join(lines[start:i], "\n"), start+1); err != nil {
			return nil, err
		}
		curPkg, curType, err = splitTypeName(strings.TrimSpace(dep))
		if err != nil {
			return nil, fmt.Errorf("msg: schema of %s line %d: %w", name, i+2, err)
		}
		start = i + 2
		i++
	}
	if err := add(curPkg, curType, strings.Join(lines[start:], "\n"), start+1); err != nil {
		return nil, err
	}
	set := NewSet()
	for _, spec := range out {
		for _, f := range spec.Fields {
			if !f.Type.IsPrimitive() && out[f.Type.FullName()] == nil {
				return nil, fmt.Errorf("msg: schema of %s lacks the definition of %s (used by %s.%s)",
					name, f.Type.FullName(), spec.FullName(), f.Name)
			}
		}
		set.specs[spec.Package+"/"+spec.Name] = spec
	}
	if err := set.Validate(); err != nil {
		return nil, fmt.Errorf("msg: schema of %s: %w", name, err)
	}
	return out, nil
}

// splitTypeName splits "pkg/Name" or "pkg/msg/Name".
func splitTypeName(name string) (pkg, typ string, err error) {
	parts := strings.Split(name, "/")
	switch {
	case len(parts) == 2:
		pkg, typ = parts[0], parts[1]
	case len(parts) == 3 && parts[1] == "msg":
		pkg, typ = parts[0], parts[2]
	default:
		return "", "", fmt.Errorf("msg: invalid type name %q: want pkg/Name or pkg/msg/Name", name)
	}
	if !validPackageName(pkg) || !validMessageName(typ) {
		return "", "", fmt.Errorf("msg: invalid type name %q", name)
	}
	return pkg, typ, nil
}

// ghost loads the embedded ghost definitions once.
var ghost = sync.OnceValues(func() (*Set, error) {
	s := NewSet()
	entries, err := fs.Glob(files, "*.msg")
	if err != nil {
		return nil, fmt.Errorf("msg: list embedded definitions: %w", err)
	}
	for _, e := range entries {
		data, err := files.ReadFile(e)
		if err != nil {
			return nil, fmt.Errorf("msg: read embedded %s: %w", e, err)
		}
		if err := s.Add(Package, strings.TrimSuffix(e, ".msg"), string(data)); err != nil {
			return nil, err
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
})

// Ghost returns the set of the embedded ghost definitions.
func Ghost() (*Set, error) { return ghost() }

// ghostName maps "Name", "ghost/Name" or "ghost/msg/Name" to "ghost/Name".
func ghostName(name string) string {
	if !strings.Contains(name, "/") {
		return Package + "/" + name
	}
	return name
}

// Names returns the ghost message type names, sorted ("AssessmentThresholds",
// "BeliefSelfAssessment", ...).
func Names() []string {
	s, err := ghost()
	if err != nil {
		return nil
	}
	names := s.keys()
	for i, k := range names {
		names[i] = s.specs[k].Name
	}
	return names
}

// Definition returns a copy of the parsed definition of a ghost message,
// named "Decision", "ghost/Decision" or "ghost/msg/Decision".
func Definition(name string) (*Spec, error) {
	s, err := ghost()
	if err != nil {
		return nil, err
	}
	return s.Definition(ghostName(name))
}

// Text returns the raw .msg text of a ghost message as embedded.
func Text(name string) (string, error) {
	s, err := ghost()
	if err != nil {
		return "", err
	}
	return s.Text(ghostName(name))
}

// SchemaText returns the complete "ros2msg" schema text of a ghost message,
// as rosbag2 stores it in MCAP (see Set.SchemaText).
func SchemaText(name string) (string, error) {
	s, err := ghost()
	if err != nil {
		return "", err
	}
	return s.SchemaText(ghostName(name))
}

// CheckSchema reports whether a stored schema text for a ghost message
// describes the same wire layout as the embedded definitions (see
// Set.CheckSchema).
func CheckSchema(name, schema string) error {
	s, err := ghost()
	if err != nil {
		return err
	}
	return s.CheckSchema(ghostName(name), schema)
}

// SchemaName returns the MCAP schema name of a ghost message,
// "ghost/msg/<Name>", for name given as "Name", "ghost/Name" or
// "ghost/msg/Name".
func SchemaName(name string) string {
	return Package + "/msg/" + name[strings.LastIndexByte(name, '/')+1:]
}
