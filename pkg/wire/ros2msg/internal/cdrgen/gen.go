package main

import (
	"bytes"
	"fmt"
	"go/format"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ghost-robotics/ghost/msg"
	"github.com/ghost-robotics/ghost/pkg/wire/stdmsgs"
)

// genFile is one generated source file.
type genFile struct {
	name string
	data []byte
}

// stdGoNames renames standard types whose plain names would be too generic
// inside package ros2msg.
var stdGoNames = map[string]string{
	"builtin_interfaces/Time":  "RosTime",
	"std_msgs/Header":          "RosHeader",
	"diagnostic_msgs/KeyValue": "DiagnosticKeyValue",
	// The lifecycle types' plain names (State, Transition) would read as
	// the node's own.
	"lifecycle_msgs/State":                           "LifecycleState",
	"lifecycle_msgs/Transition":                      "LifecycleTransition",
	"lifecycle_msgs/TransitionDescription":           "LifecycleTransitionDescription",
	"lifecycle_msgs/TransitionEvent":                 "LifecycleTransitionEvent",
	"lifecycle_msgs/ChangeStateRequest":              "LifecycleChangeStateRequest",
	"lifecycle_msgs/ChangeStateResponse":             "LifecycleChangeStateResponse",
	"lifecycle_msgs/GetStateResponse":                "LifecycleGetStateResponse",
	"lifecycle_msgs/GetAvailableStatesResponse":      "LifecycleGetAvailableStatesResponse",
	"lifecycle_msgs/GetAvailableTransitionsResponse": "LifecycleGetAvailableTransitionsResponse",
	"rosgraph_msgs/Clock":                            "RosClock",
	// geometry_msgs' plain names (Point, Vector3) would read as the
	// node's own values.
	"geometry_msgs/Point":      "GeometryPoint",
	"geometry_msgs/Vector3":    "GeometryVector3",
	"geometry_msgs/Quaternion": "GeometryQuaternion",
	"rcl_interfaces/Log":       "RosLog",
}

// initialisms are written in capitals in Go names (Go naming conventions).
var initialisms = map[string]string{
	"id": "ID", "json": "JSON", "sha256": "SHA256", "ok": "OK",
	"rtl": "RTL", "imu": "IMU", "vio": "VIO", "url": "URL", "uri": "URI",
}

// camel turns snake_case or UPPER_SNAKE_CASE into a Go CamelCase name.
func camel(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(strings.ToLower(name), "_") {
		if part == "" {
			continue
		}
		if up, ok := initialisms[part]; ok {
			b.WriteString(up)
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]))
		b.WriteString(part[1:])
	}
	return b.String()
}

// prim describes how a primitive type is written in Go and on the wire.
type prim struct {
	goType string
	size   int    // wire size and alignment
	wire   string // Go type the put/get helpers use
	put    string // scalar writer: "cdrPutU16(buf, origin, %s)"
	get    string // scalar reader: "d.u16(%s)"
	putArr string // array writer
	getArr string // array reader
}

var prims = map[string]prim{
	"bool":    {"bool", 1, "bool", "cdrPutBool(buf, %s)", "d.boolean(%s)", "cdrPutBools(buf, %s)", "cdrReadBools(d, %s, %s)"},
	"byte":    {"uint8", 1, "uint8", "cdrPutU8(buf, %s)", "d.u8(%s)", "cdrPut8s(buf, %s)", "cdrRead8(d, %s, %s)"},
	"char":    {"uint8", 1, "uint8", "cdrPutU8(buf, %s)", "d.u8(%s)", "cdrPut8s(buf, %s)", "cdrRead8(d, %s, %s)"},
	"uint8":   {"uint8", 1, "uint8", "cdrPutU8(buf, %s)", "d.u8(%s)", "cdrPut8s(buf, %s)", "cdrRead8(d, %s, %s)"},
	"int8":    {"int8", 1, "uint8", "cdrPutU8(buf, %s)", "d.u8(%s)", "cdrPut8s(buf, %s)", "cdrRead8(d, %s, %s)"},
	"uint16":  {"uint16", 2, "uint16", "cdrPutU16(buf, origin, %s)", "d.u16(%s)", "cdrPut16s(buf, origin, %s)", "cdrRead16(d, %s, %s)"},
	"int16":   {"int16", 2, "uint16", "cdrPutU16(buf, origin, %s)", "d.u16(%s)", "cdrPut16s(buf, origin, %s)", "cdrRead16(d, %s, %s)"},
	"uint32":  {"uint32", 4, "uint32", "cdrPutU32(buf, origin, %s)", "d.u32(%s)", "cdrPut32s(buf, origin, %s)", "cdrRead32(d, %s, %s)"},
	"int32":   {"int32", 4, "uint32", "cdrPutU32(buf, origin, %s)", "d.u32(%s)", "cdrPut32s(buf, origin, %s)", "cdrRead32(d, %s, %s)"},
	"uint64":  {"uint64", 8, "uint64", "cdrPutU64(buf, origin, %s)", "d.u64(%s)", "cdrPut64s(buf, origin, %s)", "cdrRead64(d, %s, %s)"},
	"int64":   {"int64", 8, "uint64", "cdrPutU64(buf, origin, %s)", "d.u64(%s)", "cdrPut64s(buf, origin, %s)", "cdrRead64(d, %s, %s)"},
	"float32": {"float32", 4, "float32", "cdrPutF32(buf, origin, %s)", "d.f32(%s)", "cdrPutF32s(buf, origin, %s)", "cdrReadF32s(d, %s, %s)"},
	"float64": {"float64", 8, "float64", "cdrPutF64(buf, origin, %s)", "d.f64(%s)", "cdrPutF64s(buf, origin, %s)", "cdrReadF64s(d, %s, %s)"},
}

// msgType is one message to generate.
type msgType struct {
	key     string // "pkg/Name"
	spec    *msg.Spec
	goName  string
	fields  []genField
	minSize int
	// lines are the definition's lines when its comments document the
	// generated code, nil otherwise; header is the length of its leading
	// comment block (headerEnd).
	lines  []string
	header int
}

type genField struct {
	msg.Field
	goName string
	nested *msgType // nil for primitives and strings
}

// generator holds every message of every output file, so nested types
// resolve across packages.
type generator struct {
	types map[string]*msgType
	names map[string]string // Go identifier -> what defined it, for collisions
}

// source is a set of definitions and the file their code goes to.
type source struct {
	file string
	set  *msg.Set
	doc  string
	// docs says whether the definitions' comments document the generated
	// code. Only the project's own definitions do: the standard ones are
	// another project's facts, and their generated code names each field
	// by its declaration alone.
	docs bool
}

// generateAll generates both output files.
func generateAll() ([]genFile, error) {
	ghost, err := msg.Ghost()
	if err != nil {
		return nil, err
	}
	std, err := stdmsgs.Set()
	if err != nil {
		return nil, err
	}
	return generate([]source{
		{"messages_gen.go", ghost, "ghost messages (package msg)", true},
		{"diagnostics_gen.go", std, "standard ROS 2 messages the node exchanges (package stdmsgs)", false},
	})
}

func generate(sources []source) ([]genFile, error) {
	g := &generator{types: make(map[string]*msgType), names: make(map[string]string)}
	perFile := make([][]*msgType, len(sources))
	for i, src := range sources {
		for _, full := range src.set.Names() {
			t, err := g.add(src.set, full, src.docs)
			if err != nil {
				return nil, err
			}
			perFile[i] = append(perFile[i], t)
		}
	}
	for _, types := range perFile {
		for _, t := range types {
			if err := g.resolve(t); err != nil {
				return nil, err
			}
		}
	}
	var all []*msgType
	for _, types := range perFile {
		all = append(all, types...)
	}
	for _, t := range all {
		if _, err := g.minSize(t, 0); err != nil {
			return nil, err
		}
	}
	var out []genFile
	for i, src := range sources {
		var body bytes.Buffer
		for _, t := range perFile[i] {
			if err := g.emitType(&body, t); err != nil {
				return nil, err
			}
		}
		if i == 0 {
			g.emitRegistry(&body, all)
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "// Code generated by cdrgen. DO NOT EDIT.\n\n")
		fmt.Fprintf(&b, "// CDR codec of the %s.\n\npackage ros2msg\n\n", src.doc)
		if bytes.Contains(body.Bytes(), []byte("math.")) {
			b.WriteString("import \"math\"\n\n")
		}
		b.Write(body.Bytes())
		src, err := format.Source(b.Bytes())
		if err != nil {
			return nil, fmt.Errorf("format %s: %w", sources[i].file, err)
		}
		out = append(out, genFile{name: sources[i].file, data: src})
	}
	return out, nil
}

// claim records a Go identifier and fails on a second use.
func (g *generator) claim(ident, by string) error {
	if prev, dup := g.names[ident]; dup {
		return fmt.Errorf("the Go name %s of %s collides with %s", ident, by, prev)
	}
	g.names[ident] = by
	return nil
}

func (g *generator) add(set *msg.Set, full string, docs bool) (*msgType, error) {
	spec, err := set.Definition(full)
	if err != nil {
		return nil, err
	}
	key := spec.Package + "/" + spec.Name
	goName := spec.Name
	if spec.Package != msg.Package {
		if n, ok := stdGoNames[key]; ok {
			goName = n
		}
	}
	if len(spec.Fields) == 0 {
		return nil, fmt.Errorf("%s has no fields; empty messages are not supported", full)
	}
	t := &msgType{key: key, spec: spec, goName: goName}
	if docs {
		text, err := set.Text(full)
		if err != nil {
			return nil, err
		}
		t.lines = strings.Split(text, "\n")
		t.header = headerEnd(t.lines)
	}
	for _, ident := range []string{goName, "New" + goName} {
		if err := g.claim(ident, full); err != nil {
			return nil, err
		}
	}
	for _, c := range spec.Constants {
		if err := g.claim(goName+camel(c.Name), full+" constant "+c.Name); err != nil {
			return nil, err
		}
	}
	g.types[key] = t
	return t, nil
}

func (g *generator) resolve(t *msgType) error {
	seen := make(map[string]string)
	for _, f := range t.spec.Fields {
		gf := genField{Field: f, goName: camel(f.Name)}
		if prev, dup := seen[gf.goName]; dup {
			return fmt.Errorf("%s: fields %s and %s both become Go field %s", t.spec.FullName(), prev, f.Name, gf.goName)
		}
		seen[gf.goName] = f.Name
		switch {
		case f.Type.Name == "wstring":
			return fmt.Errorf("%s field %s: wstring is not supported", t.spec.FullName(), f.Name)
		case !f.Type.IsPrimitive():
			n, ok := g.types[f.Type.Package+"/"+f.Type.Name]
			if !ok {
				return fmt.Errorf("%s field %s: type %s is not generated", t.spec.FullName(), f.Name, f.Type.FullName())
			}
			gf.nested = n
		}
		t.fields = append(t.fields, gf)
	}
	return nil
}

// minSize computes the fewest bytes a value of t takes on the wire, ignoring
// padding. Decoders check counts against it before allocating.
func (g *generator) minSize(t *msgType, depth int) (int, error) {
	if depth > 64 {
		return 0, fmt.Errorf("%s: types nested too deeply", t.spec.FullName())
	}
	if t.minSize > 0 {
		return t.minSize, nil
	}
	total := 0
	for _, f := range t.fields {
		var elem int
		switch {
		case f.nested != nil:
			n, err := g.minSize(f.nested, depth+1)
			if err != nil {
				return 0, err
			}
			elem = n
		case f.Type.IsString():
			elem = 5 // length and NUL
		default:
			elem = prims[f.Type.Name].size
		}
		switch f.Array {
		case msg.NotArray:
			total += elem
		case msg.FixedArray:
			total += elem * f.ArrayLen
		default:
			total += 4 // the count; there may be no elements
		}
		if total > math.MaxInt32 {
			return 0, fmt.Errorf("%s: minimum size overflows", t.spec.FullName())
		}
	}
	t.minSize = total
	return total, nil
}

// goType returns the Go type of a field.
func (f *genField) goType() string {
	var elem string
	switch {
	case f.nested != nil:
		elem = f.nested.goName
	case f.Type.IsString():
		elem = "string"
	default:
		elem = prims[f.Type.Name].goType
	}
	switch f.Array {
	case msg.FixedArray:
		return fmt.Sprintf("[%d]%s", f.ArrayLen, elem)
	case msg.UnboundedSequence, msg.BoundedSequence:
		return "[]" + elem
	}
	return elem
}

// decl writes the field back as a .msg declaration, for comments.
func (f *genField) decl() string {
	t := f.Type.String()
	if !f.Type.IsPrimitive() {
		t = f.Type.Package + "/" + f.Type.Name
	}
	switch f.Array {
	case msg.FixedArray:
		t += fmt.Sprintf("[%d]", f.ArrayLen)
	case msg.UnboundedSequence:
		t += "[]"
	case msg.BoundedSequence:
		t += fmt.Sprintf("[<=%d]", f.ArrayLen)
	}
	return t + " " + f.Name
}

// commentAt returns the text of the comment of the 1-based line, if any.
func commentAt(lines []string, n int) (string, bool) {
	if n < 1 || n > len(lines) {
		return "", false
	}
	_, comment, found, err := msg.SplitComment(lines[n-1])
	if err != nil || !found {
		return "", false
	}
	return strings.TrimSpace(comment), true
}

func isCommentLine(lines []string, n int) bool {
	return n >= 1 && n <= len(lines) && strings.HasPrefix(strings.TrimSpace(lines[n-1]), "#")
}

// headerEnd returns the number of lines of the leading comment block when a
// blank line separates it from the definitions, 0 otherwise: a comment right
// above a field documents that field.
func headerEnd(lines []string) int {
	n := 0
	for isCommentLine(lines, n+1) {
		n++
	}
	if n > 0 && (n == len(lines) || strings.TrimSpace(lines[n]) == "") {
		return n
	}
	return 0
}

// docFor returns the comment lines directly above line n (not part of the
// header block) and the line's own trailing comment, joined.
func docFor(lines []string, header, n int) string {
	start := n
	for start-1 > header && isCommentLine(lines, start-1) {
		start--
	}
	var parts []string
	for i := start; i < n; i++ {
		if c, ok := commentAt(lines, i); ok && c != "" {
			parts = append(parts, c)
		}
	}
	if c, ok := commentAt(lines, n); ok && c != "" && !isCommentLine(lines, n) {
		parts = append(parts, c)
	}
	return strings.Join(parts, " ")
}

// goLiteral returns a Go expression for a canonical .msg literal.
func goLiteral(t msg.Type, v string) (string, error) {
	switch {
	case t.IsString():
		return strconv.Quote(v), nil
	case t.Name == "bool":
		return v, nil
	case t.Name == "float32" || t.Name == "float64":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return "", err
		}
		var expr string
		switch {
		case math.IsNaN(f):
			expr = "math.NaN()"
		case math.IsInf(f, 1):
			expr = "math.Inf(1)"
		case math.IsInf(f, -1):
			expr = "math.Inf(-1)"
		}
		if expr != "" {
			return conv(prims[t.Name].goType, "float64", expr), nil
		}
		if !strings.ContainsAny(v, ".eE") {
			v += ".0"
		}
		return v, nil
	}
	return v, nil
}

// emitType writes everything generated for t: its constants, its struct,
// its constructor, its public methods and its CDR code.
func (g *generator) emitType(b *bytes.Buffer, t *msgType) error {
	if err := emitConstants(b, t); err != nil {
		return err
	}
	emitStruct(b, t)
	if err := g.emitNew(b, t); err != nil {
		return err
	}
	emitMethods(b, t)
	fmt.Fprintf(b, "const cdrMinSize%s = %d\n\n", t.goName, t.minSize)
	g.emitEnd(b, t)
	g.emitAppend(b, t)
	g.emitDecode(b, t)
	return nil
}

// emitConstants writes t's constants as typed Go constants.
func emitConstants(b *bytes.Buffer, t *msgType) error {
	if len(t.spec.Constants) == 0 {
		return nil
	}
	full := t.spec.FullName()
	fmt.Fprintf(b, "// Constants of %s.\nconst (\n", full)
	for _, c := range t.spec.Constants {
		if doc := docFor(t.lines, t.header, c.Line); doc != "" && !strings.HasSuffix(doc, ":") {
			fmt.Fprintf(b, "\t// %s%s: %s\n", t.goName, camel(c.Name), doc)
		}
		lit, err := goLiteral(c.Type, c.Value)
		if err != nil {
			return fmt.Errorf("%s constant %s: %w", full, c.Name, err)
		}
		if strings.Contains(lit, "math.") {
			return fmt.Errorf("%s constant %s: %s cannot be a Go constant", full, c.Name, c.Value)
		}
		goType := "string"
		if !c.Type.IsString() {
			goType = prims[c.Type.Name].goType
		}
		fmt.Fprintf(b, "\t%s%s %s = %s // %s\n", t.goName, camel(c.Name), goType, lit, c.Name)
	}
	fmt.Fprintf(b, ")\n\n")
	return nil
}

// emitStruct writes t's struct, each field documented by its declaration
// and, for the project's own definitions, their comments.
func emitStruct(b *bytes.Buffer, t *msgType) {
	fmt.Fprintf(b, "// %s is the ROS 2 message %s.\n", t.goName, t.spec.FullName())
	if t.header > 0 {
		b.WriteString("//\n")
		for i := 1; i <= t.header; i++ {
			c, _ := commentAt(t.lines, i)
			fmt.Fprintf(b, "// %s\n", c)
		}
	}
	fmt.Fprintf(b, "type %s struct {\n", t.goName)
	for i := range t.fields {
		f := &t.fields[i]
		doc := fmt.Sprintf("%s is %q.", f.goName, f.decl())
		if d := docFor(t.lines, t.header, f.Line); d != "" {
			doc += " " + d
		}
		fmt.Fprintf(b, "\t// %s\n\t%s %s\n", doc, f.goName, f.goType())
	}
	b.WriteString("}\n\n")
}

// emitNew writes NewXxx, which gives the defaults of t's definition.
func (g *generator) emitNew(b *bytes.Buffer, t *msgType) error {
	fmt.Fprintf(b, "// New%s returns the default %s: the defaults its definition gives, zero\n// values elsewhere.\n", t.goName, t.goName)
	fmt.Fprintf(b, "func New%s() %s {\n\treturn %s{", t.goName, t.goName, t.goName)
	var inits []string
	for i := range t.fields {
		init, err := g.fieldInit(&t.fields[i])
		if err != nil {
			return fmt.Errorf("%s field %s: %w", t.spec.FullName(), t.fields[i].Name, err)
		}
		if init != "" {
			inits = append(inits, init)
		}
	}
	if len(inits) > 0 {
		b.WriteString("\n\t\t" + strings.Join(inits, ",\n\t\t") + ",\n\t")
	}
	b.WriteString("}\n}\n\n")
	return nil
}

// fieldInit returns the composite-literal element that sets f to its
// default ("Name: value"), or "" when its zero value is the default.
func (g *generator) fieldInit(f *genField) (string, error) {
	switch {
	case f.nested != nil && f.Array == msg.NotArray && g.hasDefaults(f.nested):
		return fmt.Sprintf("%s: New%s()", f.goName, f.nested.goName), nil
	case f.nested != nil && f.Array == msg.FixedArray && g.hasDefaults(f.nested):
		elems := slices.Repeat([]string{"New" + f.nested.goName + "()"}, f.ArrayLen)
		return fmt.Sprintf("%s: %s{%s}", f.goName, f.goType(), strings.Join(elems, ", ")), nil
	case f.HasDefault && f.Array == msg.NotArray:
		lit, err := goLiteral(f.Type, f.Default[0])
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: %s", f.goName, lit), nil
	case f.HasDefault && len(f.Default) > 0:
		var elems []string
		for _, v := range f.Default {
			lit, err := goLiteral(f.Type, v)
			if err != nil {
				return "", err
			}
			elems = append(elems, lit)
		}
		return fmt.Sprintf("%s: %s{%s}", f.goName, f.goType(), strings.Join(elems, ", ")), nil
	}
	return "", nil
}

// emitMethods writes the methods every generated type has in common
// (CDRMessage): Reset, SchemaName, CDRSize, MarshalCDR, AppendCDR and
// UnmarshalCDR.
func emitMethods(b *bytes.Buffer, t *msgType) {
	full := t.spec.FullName()
	fmt.Fprintf(b, "// Reset sets m to New%s().\nfunc (m *%s) Reset() { *m = New%s() }\n\n", t.goName, t.goName, t.goName)
	fmt.Fprintf(b, "// SchemaName returns %q.\nfunc (*%s) SchemaName() string { return %q }\n\n", full, t.goName, full)
	fmt.Fprintf(b, "// CDRSize returns the length of m's serialization, header included.\n")
	fmt.Fprintf(b, "func (m *%s) CDRSize() int { return cdrHeaderLen + m.cdrEnd(0) }\n\n", t.goName)
	fmt.Fprintf(b, "// MarshalCDR serializes m as little-endian CDR with its encapsulation header.\n")
	fmt.Fprintf(b, "func (m *%s) MarshalCDR() ([]byte, error) { return m.AppendCDR(make([]byte, 0, m.CDRSize())) }\n\n", t.goName)
	fmt.Fprintf(b, `// AppendCDR appends m's serialization, header included, to buf. On error
// it returns buf with its original length.
func (m *%[1]s) AppendCDR(buf []byte) ([]byte, error) {
	n := len(buf)
	buf = append(buf, cdrHeaderLE[:]...)
	out, err := m.cdrAppend(buf, n+cdrHeaderLen)
	if err != nil {
		return buf[:n], toEncodeError(%[2]q, err)
	}
	return out, nil
}

// UnmarshalCDR decodes a serialized %[1]s, header included. On error m is
// left unchanged and the error is a *DecodeError.
func (m *%[1]s) UnmarshalCDR(data []byte) error {
	var d cdrDecoder
	if !d.start(data, %[2]q) {
		return d.err
	}
	var v %[1]s
	v.cdrDecode(&d)
	if err := d.finish(); err != nil {
		return err
	}
	*m = v
	return nil
}

`, t.goName, full)
}

// hasDefaults reports whether NewXxx of t sets anything.
func (g *generator) hasDefaults(t *msgType) bool {
	for _, f := range t.fields {
		if f.HasDefault && (f.Array == msg.NotArray || len(f.Default) > 0) {
			return true
		}
		if f.nested != nil && f.Array != msg.UnboundedSequence && f.Array != msg.BoundedSequence && g.hasDefaults(f.nested) {
			return true
		}
	}
	return false
}

func (g *generator) emitEnd(b *bytes.Buffer, t *msgType) {
	fmt.Fprintf(b, "// cdrEnd returns the offset after m serialized at off (counted from the\n// end of the header).\n")
	fmt.Fprintf(b, "func (m *%s) cdrEnd(off int) int {\n", t.goName)
	for i := range t.fields {
		f := &t.fields[i]
		v := "m." + f.goName
		if f.Array == msg.UnboundedSequence || f.Array == msg.BoundedSequence {
			b.WriteString("\toff = cdrAlign(off, 4) + 4\n")
		}
		switch {
		case f.Array == msg.NotArray && f.nested != nil:
			fmt.Fprintf(b, "\toff = %s.cdrEnd(off)\n", v)
		case f.Array == msg.NotArray && f.Type.IsString():
			fmt.Fprintf(b, "\toff = cdrStringEnd(off, len(%s))\n", v)
		case f.Array == msg.NotArray:
			g.emitPrimEnd(b, prims[f.Type.Name].size, "1")
		case f.nested != nil:
			fmt.Fprintf(b, "\tfor i := range %s {\n\t\toff = %s[i].cdrEnd(off)\n\t}\n", v, v)
		case f.Type.IsString():
			fmt.Fprintf(b, "\tfor _, s := range %s {\n\t\toff = cdrStringEnd(off, len(s))\n\t}\n", v)
		case f.Array == msg.FixedArray:
			g.emitPrimEnd(b, prims[f.Type.Name].size, strconv.Itoa(f.ArrayLen))
		default:
			fmt.Fprintf(b, "\tif len(%s) > 0 {\n", v)
			g.emitPrimEnd(b, prims[f.Type.Name].size, "len("+v+")")
			b.WriteString("\t}\n")
		}
	}
	b.WriteString("\treturn off\n}\n\n")
}

func (g *generator) emitPrimEnd(b *bytes.Buffer, size int, count string) {
	n := strconv.Itoa(size)
	if count != "1" {
		n += "*" + count
	}
	if n == "1" {
		b.WriteString("\toff++\n")
		return
	}
	if size == 1 {
		fmt.Fprintf(b, "\toff += %s\n", n)
		return
	}
	fmt.Fprintf(b, "\toff = cdrAlign(off, %d) + %s\n", size, n)
}

// conv wraps v in a conversion when the Go type differs from the wire type.
func conv(to, from, v string) string {
	if to == from {
		return v
	}
	return to + "(" + v + ")"
}

func (g *generator) emitAppend(b *bytes.Buffer, t *msgType) {
	needErr := false
	for _, f := range t.fields {
		if f.nested != nil || f.Type.IsString() || f.Array == msg.UnboundedSequence || f.Array == msg.BoundedSequence {
			needErr = true
		}
	}
	fmt.Fprintf(b, "// cdrAppend appends m's fields; origin is where the header ends in buf.\n")
	fmt.Fprintf(b, "func (m *%s) cdrAppend(buf []byte, origin int) ([]byte, error) {\n", t.goName)
	if needErr {
		b.WriteString("\tvar err error\n")
	}
	for i := range t.fields {
		f := &t.fields[i]
		v := "m." + f.goName
		q := strconv.Quote(f.Name)
		p := prims[f.Type.Name]
		bound := f.Type.StringBound
		if f.Array == msg.UnboundedSequence || f.Array == msg.BoundedSequence {
			seqBound := 0
			if f.Array == msg.BoundedSequence {
				seqBound = f.ArrayLen
			}
			fmt.Fprintf(b, "\tif buf, err = cdrPutCount(buf, origin, len(%s), %d); err != nil {\n\t\treturn buf, encodeFieldErr(%s, err)\n\t}\n", v, seqBound, q)
		}
		switch {
		case f.Array == msg.NotArray && f.nested != nil:
			fmt.Fprintf(b, "\tif buf, err = %s.cdrAppend(buf, origin); err != nil {\n\t\treturn buf, prefixEncodeErr(%s, err)\n\t}\n", v, q)
		case f.Array == msg.NotArray && f.Type.IsString():
			fmt.Fprintf(b, "\tif buf, err = cdrPutString(buf, origin, %s, %d); err != nil {\n\t\treturn buf, encodeFieldErr(%s, err)\n\t}\n", v, bound, q)
		case f.Array == msg.NotArray:
			fmt.Fprintf(b, "\tbuf = "+p.put+"\n", conv(p.wire, p.goType, v))
		case f.nested != nil:
			fmt.Fprintf(b, "\tfor i := range %s {\n\t\tif buf, err = %s[i].cdrAppend(buf, origin); err != nil {\n\t\t\treturn buf, prefixEncodeErr(indexPath(%s, i), err)\n\t\t}\n\t}\n", v, v, q)
		case f.Type.IsString():
			fmt.Fprintf(b, "\tfor i, s := range %s {\n\t\tif buf, err = cdrPutString(buf, origin, s, %d); err != nil {\n\t\t\treturn buf, encodeFieldErr(indexPath(%s, i), err)\n\t\t}\n\t}\n", v, bound, q)
		case f.Array == msg.FixedArray:
			fmt.Fprintf(b, "\tbuf = "+p.putArr+"\n", v+"[:]")
		default:
			fmt.Fprintf(b, "\tbuf = "+p.putArr+"\n", v)
		}
	}
	b.WriteString("\treturn buf, nil\n}\n\n")
}

func (g *generator) emitDecode(b *bytes.Buffer, t *msgType) {
	fmt.Fprintf(b, "// cdrDecode reads m's fields; the caller checks d.err.\n")
	fmt.Fprintf(b, "func (m *%s) cdrDecode(d *cdrDecoder) {\n", t.goName)
	for i := range t.fields {
		f := &t.fields[i]
		v := "m." + f.goName
		q := strconv.Quote(f.Name)
		p := prims[f.Type.Name]
		bound := f.Type.StringBound
		// Element decoding for arrays and sequences, given the slice expression.
		elems := func(s string) {
			switch {
			case f.nested != nil:
				fmt.Fprintf(b, "\tfor i := range %s {\n\t\t%s[i].cdrDecode(d)\n\t\tif d.err != nil {\n\t\t\td.prefix(indexPath(%s, i))\n\t\t\treturn\n\t\t}\n\t}\n", s, s, q)
			case f.Type.IsString():
				fmt.Fprintf(b, "\tfor i := range %s {\n\t\t%s[i] = d.str(\"\", %d)\n\t\tif d.err != nil {\n\t\t\td.prefix(indexPath(%s, i))\n\t\t\treturn\n\t\t}\n\t}\n", s, s, bound, q)
			default:
				arr := s
				if f.Array == msg.FixedArray {
					arr += "[:]"
				}
				fmt.Fprintf(b, "\t"+p.getArr+"\n", arr, q)
			}
		}
		prefixes := f.nested != nil || (f.Array != msg.NotArray && f.Type.IsString())
		if prefixes {
			// An earlier error must not get this field's name.
			b.WriteString("\tif d.err != nil {\n\t\treturn\n\t}\n")
		}
		switch f.Array {
		case msg.NotArray:
			switch {
			case f.nested != nil:
				fmt.Fprintf(b, "\t%s.cdrDecode(d)\n\tif d.err != nil {\n\t\td.prefix(%s)\n\t\treturn\n\t}\n", v, q)
			case f.Type.IsString():
				fmt.Fprintf(b, "\t%s = d.str(%s, %d)\n", v, q, bound)
			default:
				fmt.Fprintf(b, "\t%s = %s\n", v, conv(p.goType, p.wire, fmt.Sprintf(p.get, q)))
			}
		case msg.FixedArray:
			elems(v)
		default:
			seqBound := 0
			if f.Array == msg.BoundedSequence {
				seqBound = f.ArrayLen
			}
			var minElem string
			switch {
			case f.nested != nil:
				minElem = "cdrMinSize" + f.nested.goName
			case f.Type.IsString():
				minElem = "5"
			default:
				minElem = strconv.Itoa(p.size)
			}
			if f.nested == nil && !f.Type.IsString() && p.size == 8 {
				// An empty one still moves rmw_fastrtps' size estimate.
				fmt.Fprintf(b, "\tif n := d.count8(%s, %d); n > 0 {\n\t\t%s = make(%s, n)\n", q, seqBound, v, f.goType())
			} else {
				fmt.Fprintf(b, "\tif n := d.count(%s, %d, %s); n > 0 {\n\t\t%s = make(%s, n)\n", q, seqBound, minElem, v, f.goType())
			}
			var inner bytes.Buffer
			bb := b
			b = &inner
			elems(v)
			b = bb
			for _, l := range strings.SplitAfter(inner.String(), "\n") {
				if l != "" {
					b.WriteString("\t" + l)
				}
			}
			fmt.Fprintf(b, "\t} else {\n\t\t%s = nil\n\t}\n", v)
		}
	}
	b.WriteString("}\n\n")
}

func (g *generator) emitRegistry(b *bytes.Buffer, all []*msgType) {
	sorted := slices.Clone(all)
	slices.SortFunc(sorted, func(a, c *msgType) int { return strings.Compare(a.spec.FullName(), c.spec.FullName()) })
	b.WriteString("// Every generated type implements CDRMessage.\nvar (\n")
	for _, t := range sorted {
		fmt.Fprintf(b, "\t_ CDRMessage = (*%s)(nil)\n", t.goName)
	}
	b.WriteString(")\n\n")
	b.WriteString("// cdrSchemaNames lists the generated types by schema name, sorted.\nvar cdrSchemaNames = []string{\n")
	for _, t := range sorted {
		fmt.Fprintf(b, "\t%q,\n", t.spec.FullName())
	}
	b.WriteString("}\n\n")
	b.WriteString("// newCDRMessage returns a new message with defaults for a schema name, or nil.\nfunc newCDRMessage(schemaName string) CDRMessage {\n\tswitch schemaName {\n")
	for _, t := range sorted {
		fmt.Fprintf(b, "\tcase %q:\n\t\tm := New%s()\n\t\treturn &m\n", t.spec.FullName(), t.goName)
	}
	b.WriteString("\t}\n\treturn nil\n}\n")
}
