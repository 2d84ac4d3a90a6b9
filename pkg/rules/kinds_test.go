package rules

import "testing"

// TestCondKindsComplete checks every entry of the table of condition kinds:
// a kind a policy can write has a parse function and a unique key, every
// kind has a canonical form, and every leaf says how it is evaluated.
func TestCondKindsComplete(t *testing.T) {
	keys := map[string]op{}
	for o := op(0); o < opCount; o++ {
		k := &condKinds[o]
		if k.canon == nil {
			t.Errorf("op %d (%q): no canonical form", o, k.key)
		}
		if k.eval == nil && k.value == nil && k.number == nil {
			t.Errorf("op %d (%q): nothing evaluates it", o, k.key)
		}
		if k.value != nil && k.number != nil {
			t.Errorf("op %d (%q): both an enumeration and a number", o, k.key)
		}
		if k.parse == nil {
			continue
		}
		if prev, dup := keys[k.key]; dup || k.key == "" {
			t.Errorf("op %d: key %q empty or already op %d's", o, k.key, prev)
		}
		keys[k.key] = o
	}
	if len(condKeys) != len(keys) {
		t.Errorf("condKeys = %v, want the %d keys of the table", condKeys, len(keys))
	}
}
