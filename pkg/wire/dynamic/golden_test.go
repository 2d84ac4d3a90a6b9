package dynamic

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/msg"
)

// The golden CDR vectors were serialized by an independent implementation
// (and match rmw_cyclonedds byte for byte). Decoding them from the ghost
// definitions alone checks the plan against real wire data: strings,
// bounded sequences of messages, fixed arrays, NaN and extreme integers.
// Without the shared golden data the test skips (and fails in CI).
func TestGoldenCDR(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(golden.Dir(t), "cdr", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no golden CDR vectors in the golden data's cdr folder")
	}
	set, err := msg.Ghost()
	if err != nil {
		t.Fatal(err)
	}
	plans := make(map[string]*Plan)
	vectors := 0
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for line := 1; sc.Scan(); line++ {
			var v struct {
				Type    string `json:"type"`
				Message json.RawMessage
				CDRHex  string `json:"cdr_hex"`
			}
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				t.Fatalf("%s:%d: %v", file, line, err)
			}
			p := plans[v.Type]
			if p == nil {
				if p, err = CompileSet(set, v.Type); err != nil {
					t.Fatalf("%s: %v", v.Type, err)
				}
				plans[v.Type] = p
			}
			data, err := hex.DecodeString(v.CDRHex)
			if err != nil {
				t.Fatal(err)
			}
			m, err := p.Decode(data)
			if err != nil {
				t.Errorf("%s:%d: %v", file, line, err)
				continue
			}
			dec := json.NewDecoder(strings.NewReader(string(v.Message)))
			dec.UseNumber()
			var tree any
			if err := dec.Decode(&tree); err != nil {
				t.Fatal(err)
			}
			compareTree(t, &m, "", tree, file+":"+strconv.Itoa(line))
			vectors++
		}
		f.Close()
	}
	t.Logf("%d golden vectors decoded", vectors)
}

func compareTree(t *testing.T, m *Message, path string, v any, where string) {
	t.Helper()
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			compareTree(t, m, join(k), e, where)
		}
		return
	case []any:
		n, err := m.Len(path)
		if err != nil || n != len(x) {
			t.Errorf("%s: len(%s) = %d, %v; want %d", where, path, n, err, len(x))
			return
		}
		for i, e := range x {
			compareTree(t, m, path+"["+strconv.Itoa(i)+"]", e, where)
		}
		return
	}
	ref, err := m.Plan().Field(path)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	text := ""
	switch x := v.(type) {
	case json.Number:
		text = x.String()
	case string:
		text = x
	case bool:
		got, err := m.BoolAt(ref)
		if err != nil || got != x {
			t.Errorf("%s: %s = %v, %v; want %v", where, path, got, err, x)
		}
		return
	}
	switch k := ref.Kind(); {
	case k == KindString:
		got, err := m.StringAt(ref)
		if err != nil || got != text {
			t.Errorf("%s: %s = %q, %v; want %q", where, path, got, err, text)
		}
	case k == KindFloat32 || k == KindFloat64:
		want, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatalf("%s: %s: %v", where, path, err)
		}
		got, err := m.FloatAt(ref)
		if err != nil || !(got == want && math.Signbit(got) == math.Signbit(want) || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("%s: %s = %v, %v; want %v", where, path, got, err, want)
		}
	case k.signed():
		got, err := m.IntAt(ref)
		if err != nil || strconv.FormatInt(got, 10) != text {
			t.Errorf("%s: %s = %d, %v; want %s", where, path, got, err, text)
		}
	default:
		got, err := m.UintAt(ref)
		if err != nil || strconv.FormatUint(got, 10) != text {
			t.Errorf("%s: %s = %d, %v; want %s", where, path, got, err, text)
		}
	}
}
