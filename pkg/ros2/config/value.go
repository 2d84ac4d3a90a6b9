package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Type is a ROS 2 parameter type. The node declares only scalar
// parameters; arrays are rejected.
type Type uint8

// Parameter types, named as `ros2 param describe` prints them.
const (
	TypeBool Type = iota + 1
	TypeInteger
	TypeDouble
	TypeString
)

// String returns "bool", "integer", "double" or "string".
func (t Type) String() string {
	switch t {
	case TypeBool:
		return "bool"
	case TypeInteger:
		return "integer"
	case TypeDouble:
		return "double"
	case TypeString:
		return "string"
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// typeArray marks an array value read from a params file: declared by no
// parameter of this node, refused when it applies to it.
const typeArray Type = 0

// value is one typed parameter value and its text as written, for errors.
type value struct {
	typ Type
	b   bool
	i   int64
	d   float64
	s   string
	raw string
}

func (v value) String() string {
	if v.typ == TypeString {
		return strconv.Quote(v.s)
	}
	return v.raw
}

// maxValueLen bounds a single -p value; real values are short, and the
// bound keeps hostile command lines from feeding the YAML parser megabytes.
const maxValueLen = 64 << 10

var (
	errArray   = errors.New("arrays are not supported: every parameter of this node is a scalar")
	errMapping = errors.New("expected a scalar value, got a mapping")
)

// rcl_yaml_param_parser reads booleans with this vocabulary, wider than
// YAML 1.2's true/false; a plain `on` must mean the same here as in rclcpp.
var (
	trueWords  = []string{"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}
	falseWords = []string{"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}
)

// scalarValue types a YAML scalar the way rcl_yaml_param_parser does: an
// explicit !!str tag or any quoting makes a string; otherwise a bool word,
// then an integer (C strtoll base 0), then a double (strtod, .inf/.nan),
// and anything else is a string, including the empty scalar and `~`.
func scalarValue(n *yaml.Node) value {
	s := n.Value
	v := value{raw: s}
	quoted := n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
	explicitStr := n.Style&yaml.TaggedStyle != 0 && (n.Tag == "!!str" || n.Tag == "tag:yaml.org,2002:str")
	if quoted || explicitStr {
		v.typ, v.s = TypeString, s
		return v
	}
	for _, w := range trueWords {
		if s == w {
			v.typ, v.b = TypeBool, true
			return v
		}
	}
	for _, w := range falseWords {
		if s == w {
			v.typ, v.b = TypeBool, false
			return v
		}
	}
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		v.typ, v.i = TypeInteger, i
		return v
	}
	switch s {
	case ".nan", ".NaN", ".NAN":
		v.typ, v.d = TypeDouble, math.NaN()
		return v
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		v.typ, v.d = TypeDouble, math.Inf(1)
		return v
	case "-.inf", "-.Inf", "-.INF":
		v.typ, v.d = TypeDouble, math.Inf(-1)
		return v
	}
	// strtod sets ERANGE on overflow and rcl then falls through to a
	// string; ParseFloat's range error is treated the same way.
	if d, err := strconv.ParseFloat(s, 64); err == nil {
		v.typ, v.d = TypeDouble, d
		return v
	}
	v.typ, v.s = TypeString, s
	return v
}

// parseValue parses the value part of `-p name:=value` as a one-line YAML
// document, as rcl does, so `-p x:=3` is an integer, `-p x:=3.0` a double,
// `-p x:=true` a bool and `-p x:="'3'"` a string. An empty value is the
// empty string.
func parseValue(s string) (value, error) {
	if len(s) > maxValueLen {
		return value{}, fmt.Errorf("value of %d bytes exceeds %d", len(s), maxValueLen)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
		return value{}, fmt.Errorf("malformed YAML value %s: %w", capQuote(s), err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return value{typ: TypeString, raw: s}, nil
	}
	n := doc.Content[0]
	for depth := 0; n.Kind == yaml.AliasNode && n.Alias != nil && depth < maxDepth; depth++ {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return scalarValue(n), nil
	case yaml.SequenceNode:
		return value{}, errArray
	default:
		return value{}, errMapping
	}
}

// convert checks v against the declared type t. An integer is accepted for
// a double (1 means 1.0); rclcpp would refuse it, but the widening is
// lossless for every value this node accepts and saves a confusing error.
func convert(v value, t Type) (value, error) {
	if v.typ == t {
		return v, nil
	}
	if t == TypeDouble && v.typ == TypeInteger {
		v.typ, v.d = TypeDouble, float64(v.i)
		return v, nil
	}
	return value{}, fmt.Errorf("%w: want %s, got %s", ErrWrongType, t, v.typ)
}
