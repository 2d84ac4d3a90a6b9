package pyref

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A small strict JSON parser. encoding/json would do, but the decoders need
// three things it does not give together: the byte offset of every value
// (errors name it), the literal text of every number (floats are parsed once
// from it, so their bits are exact, and an integer literal in a float field
// can be told from a float literal, which changes the reference's hash), and
// the raw text of an object (goal metadata is kept as written).
//
// The grammar is RFC 8259, as Python's json.loads reads it with two
// differences, both refusals: NaN, Infinity and -Infinity (which Python
// accepts) and a byte order mark are errors. Duplicate keys are kept in
// order; the decoders let the last one win, as Python's dict does.

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

var jsonKindNames = [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}

func (k jsonKind) String() string { return jsonKindNames[k] }

// maxDepth bounds nesting, so adversarial input cannot exhaust the stack.
// The deepest reference payload nests 5 levels.
const maxDepth = 64

// node is one JSON value. Containers link their children through first and
// next (indices into parser.nodes, -1 for none).
type node struct {
	kind  jsonKind
	b     bool
	start int    // offset of the value's first byte
	end   int    // offset just past the value
	str   string // the unescaped string, or the number's literal
	key   string // the member name when the parent is an object
	first int
	next  int
	n     int // number of children
}

// parser holds one payload and its nodes; src is the payload as a string so
// that unescaped strings are substrings, not copies.
type parser struct {
	src   string
	pos   int
	nodes []node
}

// syntaxError is a grammar failure at an offset.
type syntaxError struct {
	off    int
	reason string
}

// parseJSON parses one JSON document. It returns the parser (root at index
// 0) or the first syntax error.
func parseJSON(data []byte) (*parser, *syntaxError) {
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			off += size
		}
		return nil, &syntaxError{off, "not UTF-8"}
	}
	// Every value but the first follows a ',', '[' or ':', so their count
	// bounds the nodes: one allocation instead of repeated growth.
	bound := 1
	for _, c := range data {
		if c == ',' || c == '[' || c == ':' {
			bound++
		}
	}
	p := &parser{src: string(data), nodes: make([]node, 0, bound)}
	if len(p.src) >= 3 && p.src[:3] == "\ufeff" {
		return nil, &syntaxError{0, "byte order mark before the document"}
	}
	p.space()
	if _, err := p.value(0); err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.src) {
		return nil, &syntaxError{p.pos, "extra data after the document"}
	}
	return p, nil
}

func (p *parser) space() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) add(n node) int {
	n.first, n.next = -1, -1
	p.nodes = append(p.nodes, n)
	return len(p.nodes) - 1
}

// value parses the value at p.pos (whitespace already skipped).
func (p *parser) value(depth int) (int, *syntaxError) {
	if p.pos >= len(p.src) {
		return 0, &syntaxError{p.pos, "unexpected end of data, want a value"}
	}
	start := p.pos
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.string()
		if err != nil {
			return 0, err
		}
		return p.add(node{kind: jsonString, start: start, end: p.pos, str: s}), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.literal("true"):
		return p.add(node{kind: jsonBool, b: true, start: start, end: p.pos}), nil
	case p.literal("false"):
		return p.add(node{kind: jsonBool, start: start, end: p.pos}), nil
	case p.literal("null"):
		return p.add(node{kind: jsonNull, start: start, end: p.pos}), nil
	case c == 'N' || c == 'I':
		return 0, &syntaxError{start, "NaN and Infinity are not JSON (and have no canonical form)"}
	default:
		return 0, &syntaxError{start, "want a value, got " + strconv.QuoteRune(rune(c))}
	}
}

func (p *parser) literal(word string) bool {
	if len(p.src)-p.pos >= len(word) && p.src[p.pos:p.pos+len(word)] == word {
		p.pos += len(word)
		return true
	}
	return false
}

func (p *parser) object(depth int) (int, *syntaxError) {
	if depth >= maxDepth {
		return 0, &syntaxError{p.pos, "nested too deeply"}
	}
	start := p.pos
	self := p.add(node{kind: jsonObject, start: start})
	p.pos++ // '{'
	p.space()
	last := -1
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		p.nodes[self].end = p.pos
		return self, nil
	}
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return 0, &syntaxError{p.pos, "want a member name in double quotes"}
		}
		key, err := p.string()
		if err != nil {
			return 0, err
		}
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return 0, &syntaxError{p.pos, "want ':' after a member name"}
		}
		p.pos++
		p.space()
		child, err := p.value(depth + 1)
		if err != nil {
			return 0, err
		}
		p.nodes[child].key = key
		p.link(self, &last, child)
		p.space()
		if p.pos >= len(p.src) {
			return 0, &syntaxError{p.pos, "unexpected end of data in an object"}
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.space()
		case '}':
			p.pos++
			p.nodes[self].end = p.pos
			return self, nil
		default:
			return 0, &syntaxError{p.pos, "want ',' or '}' in an object"}
		}
	}
}

func (p *parser) array(depth int) (int, *syntaxError) {
	if depth >= maxDepth {
		return 0, &syntaxError{p.pos, "nested too deeply"}
	}
	self := p.add(node{kind: jsonArray, start: p.pos})
	p.pos++ // '['
	p.space()
	last := -1
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		p.nodes[self].end = p.pos
		return self, nil
	}
	for {
		child, err := p.value(depth + 1)
		if err != nil {
			return 0, err
		}
		p.link(self, &last, child)
		p.space()
		if p.pos >= len(p.src) {
			return 0, &syntaxError{p.pos, "unexpected end of data in an array"}
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.space()
		case ']':
			p.pos++
			p.nodes[self].end = p.pos
			return self, nil
		default:
			return 0, &syntaxError{p.pos, "want ',' or ']' in an array"}
		}
	}
}

// link appends child to parent's children; last tracks the previous child.
func (p *parser) link(parent int, last *int, child int) {
	if *last < 0 {
		p.nodes[parent].first = child
	} else {
		p.nodes[*last].next = child
	}
	*last = child
	p.nodes[parent].n++
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? and keeps its
// literal; conversion happens where the field's type is known.
func (p *parser) number() (int, *syntaxError) {
	start := p.pos
	s := p.src
	i := p.pos
	if s[i] == '-' {
		i++
		if i < len(s) && s[i] == 'I' {
			return 0, &syntaxError{start, "NaN and Infinity are not JSON (and have no canonical form)"}
		}
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return 0, &syntaxError{i, "want a digit in a number"}
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return 0, &syntaxError{i, "want a digit after the decimal point"}
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return 0, &syntaxError{i, "want a digit in the exponent"}
		}
	}
	p.pos = i
	return p.add(node{kind: jsonNumber, start: start, end: i, str: s[start:i]}), nil
}

// string scans a quoted string at p.pos and returns it unescaped. Without
// escapes the result is a substring of the payload (no copy).
func (p *parser) string() (string, *syntaxError) {
	start := p.pos
	s := p.src
	i := start + 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return s[start+1 : i], nil
		case c == '\\':
			return p.escapedString(start, i)
		case c < 0x20:
			return "", &syntaxError{i, "control character in a string"}
		}
		i++
	}
	return "", &syntaxError{start, "unterminated string"}
}

// escapedString continues string from the first backslash at i.
func (p *parser) escapedString(start, i int) (string, *syntaxError) {
	s := p.src
	buf := make([]byte, 0, 2*(i-start))
	buf = append(buf, s[start+1:i]...)
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return string(buf), nil
		case c < 0x20:
			return "", &syntaxError{i, "control character in a string"}
		case c != '\\':
			buf = append(buf, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := hex4(s, i+2)
			if !ok {
				return "", &syntaxError{i, `want four hex digits after \u`}
			}
			i += 6
			if utf16.IsSurrogate(r) {
				// A pair makes one code point; a lone surrogate (which a
				// Python str can hold) has no UTF-8 form and becomes U+FFFD.
				if r2, ok := hex4(s, i+2); ok && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						buf = utf8.AppendRune(buf, dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
			continue
		default:
			return "", &syntaxError{i, "invalid escape in a string"}
		}
		i += 2
	}
	return "", &syntaxError{start, "unterminated string"}
}

// hex4 reads four hex digits at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}
