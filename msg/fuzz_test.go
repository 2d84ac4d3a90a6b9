package msg

import (
	"reflect"
	"strings"
	"testing"
)

// render writes a parsed definition back as .msg text.
func render(s *Spec) string {
	var b strings.Builder
	quote := func(v string) string {
		r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
		return `"` + r.Replace(v) + `"`
	}
	lit := func(t Type, v string) string {
		if t.IsString() {
			return quote(v)
		}
		return v
	}
	for _, c := range s.Constants {
		b.WriteString(c.Type.String() + " " + c.Name + "=" + lit(c.Type, c.Value) + "\n")
	}
	for _, f := range s.Fields {
		t := f.Type
		if !t.IsPrimitive() {
			t.Package = "" // written unqualified when in the same package
			if f.Type.Package != s.Package {
				t.Name = f.Type.Package + "/" + f.Type.Name
			}
		}
		decl := fieldDecl(Field{Name: f.Name, Type: t, Array: f.Array, ArrayLen: f.ArrayLen})
		if f.HasDefault {
			if f.Array == NotArray {
				decl += " " + lit(f.Type, f.Default[0])
			} else {
				elems := make([]string, len(f.Default))
				for i, v := range f.Default {
					elems[i] = lit(f.Type, v)
				}
				decl += " [" + strings.Join(elems, ", ") + "]"
			}
		}
		b.WriteString(decl + "\n")
	}
	return b.String()
}

func withoutLines(s *Spec) *Spec {
	c := s.Clone()
	for i := range c.Fields {
		c.Fields[i].Line = 0
	}
	for i := range c.Constants {
		c.Constants[i].Line = 0
	}
	return c
}

// FuzzParse checks that the parser never panics and that whatever it accepts
// can be written back and parsed to the same definition.
func FuzzParse(f *testing.F) {
	for _, n := range wantNames {
		text, err := Text(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(text)
	}
	f.Add("string<=4[<=2] names [\"a,b\", 'c\\'d'] # comment\nstd_msgs/Header h\n")
	f.Add("float32 F=-inf\nfloat64 NAN=nan\nbool B=1\nstring S='#x'\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse("ghost", "Fuzz", text)
		if err != nil {
			return
		}
		again := render(s)
		s2, err := Parse("ghost", "Fuzz", again)
		if err != nil {
			t.Fatalf("re-parse of %q (from %q): %v", again, text, err)
		}
		if a, b := withoutLines(s), withoutLines(s2); !reflect.DeepEqual(a, b) {
			t.Fatalf("re-parse differs:\n first %+v\nsecond %+v\nrendered %q", a, b, again)
		}
	})
}

// FuzzParseSchemaText checks that schema parsing never panics and that every
// accepted schema defines the types it references.
func FuzzParseSchemaText(f *testing.F) {
	for _, n := range wantNames {
		text, err := SchemaText(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(SchemaName(n), text)
	}
	f.Add("ghost/X", "uint8 a\n===\nMSG: ghost/msg/Y\n")
	f.Fuzz(func(t *testing.T, name, schema string) {
		specs, err := ParseSchemaText(name, schema)
		if err != nil {
			return
		}
		for full, spec := range specs {
			if spec.FullName() != full {
				t.Fatalf("key %q holds %q", full, spec.FullName())
			}
			for _, fl := range spec.Fields {
				if !fl.Type.IsPrimitive() && specs[fl.Type.FullName()] == nil {
					t.Fatalf("%s.%s uses undefined %s", full, fl.Name, fl.Type.FullName())
				}
			}
		}
	})
}
