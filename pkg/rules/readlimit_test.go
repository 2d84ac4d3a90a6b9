package rules

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
)

// Policy and cases files are bounded while they are read: a file over the
// limit, or one that never ends, is refused with the path and the limit,
// after reading at most one byte past it.
func TestFilesAreBoundedBeforeTheyAreRead(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte(policyWith(oneRule)+strings.Repeat("#\n", maxFileBytes)), 0o644); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(small, []byte(policyWith(oneRule)), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{big}
	p, err := ParseFile(small)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		_, perr := ParseFile(f)
		_, cerr := RunCasesFile(p, f)
		for _, err := range []error{perr, cerr} {
			if !errors.Is(err, limitedfile.ErrTooLarge) || !strings.Contains(err.Error(), f) || !strings.Contains(err.Error(), "1 MiB") {
				t.Errorf("%s: %v, want a refusal naming the file and the limit", f, err)
			}
		}
	}
	// A device that never ends is refused before it is read.
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, perr := ParseFile("/dev/zero")
		_, cerr := RunCasesFile(p, "/dev/zero")
		for _, err := range []error{perr, cerr} {
			if !errors.Is(err, limitedfile.ErrNotRegular) || !strings.Contains(err.Error(), "/dev/zero") {
				t.Errorf("/dev/zero: %v, want a refusal naming it", err)
			}
		}
	}
}
