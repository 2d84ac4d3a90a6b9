package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shippedDir is the repository's config/policies, relative to this package.
var shippedDir = filepath.Join("..", "..", "config", "policies")

func shippedPolicy(t testing.TB, name string) *Policy {
	t.Helper()
	p, err := ParseFile(filepath.Join(shippedDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Every shipped policy parses, passes Check, and passes its cases file.
func TestShippedPolicies(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(shippedDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var policies []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".cases.yaml") {
			policies = append(policies, f)
		}
	}
	for _, want := range []string{"reference_v1.yaml", "px4_failsafe_like.yaml", "pilot_takeover.yaml", "px4_failsafe_escalating.yaml", "px4_gnss_health.yaml"} {
		found := false
		for _, f := range policies {
			found = found || filepath.Base(f) == want
		}
		if !found {
			t.Errorf("%s is not shipped", want)
		}
	}
	for _, f := range policies {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if base := strings.TrimSuffix(filepath.Base(f), ".yaml"); p.Name() != base {
				t.Errorf("name %q, want the file's base name %q", p.Name(), base)
			}
			if fs := Check(p); len(fs) != 0 {
				t.Errorf("Check: %v", fs)
			}
			cases := strings.TrimSuffix(f, ".yaml") + ".cases.yaml"
			if _, err := os.Stat(cases); err != nil {
				t.Fatalf("no cases file: %v", err)
			}
			res, err := RunCasesFile(p, cases)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) < 3 {
				t.Errorf("only %d cases", len(res))
			}
			for _, r := range res {
				if !r.Pass {
					t.Error(r)
				}
			}
		})
	}
}
