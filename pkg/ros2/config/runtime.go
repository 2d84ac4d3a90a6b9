package config

import (
	"fmt"
	"strconv"
)

// Value is one typed parameter value; Type selects the field holding it.
type Value struct {
	Type    Type
	Bool    bool
	Integer int64
	Double  float64
	String  string
}

func (v Value) internal() value {
	switch v.Type {
	case TypeBool:
		return value{typ: TypeBool, b: v.Bool, raw: strconv.FormatBool(v.Bool)}
	case TypeInteger:
		return intValue(v.Integer)
	case TypeDouble:
		return doubleValue(v.Double)
	case TypeString:
		return stringValue(v.String)
	}
	return value{typ: v.Type, raw: "(type " + strconv.Itoa(int(v.Type)) + ")"}
}

func (v value) exported() Value {
	return Value{Type: v.typ, Bool: v.b, Integer: v.i, Double: v.d, String: v.s}
}

// Get returns the value of the declared parameter name in c, or a
// *ParamError wrapping ErrUnknownParameter.
func (c Config) Get(name string) (Value, error) {
	p, ok := lookupParam(name)
	if !ok {
		return Value{}, &ParamError{Param: name, Value: "?", Err: ErrUnknownParameter}
	}
	return p.get(&c).exported(), nil
}

// Set returns a copy of c with the parameter name set to v, checked as at
// start-up: the declared type (an integer is accepted for a double), the
// parameter's range, then the whole configuration (Validate). source says
// where the value came from, for the error. c itself is never changed.
func (c Config) Set(name string, v Value, source string) (Config, error) {
	n := c.Clone()
	if v.Type < TypeBool || v.Type > TypeString {
		return c, &ParamError{Param: name, Value: v.internal().String(), Source: source,
			Err: fmt.Errorf("%w: want a %s", ErrWrongType, typeOf(name))}
	}
	if err := n.apply(name, v.internal(), source, nil); err != nil {
		return c, err
	}
	if err := n.Validate(); err != nil {
		if pe, ok := err.(*ParamError); ok && pe.Source == "" && pe.Param == name {
			pe.Source = source
		}
		return c, err
	}
	return n, nil
}

func typeOf(name string) string {
	if p, ok := lookupParam(name); ok {
		return p.typ.String()
	}
	return "declared parameter"
}
