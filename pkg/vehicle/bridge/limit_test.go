package bridge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
)

// A message definition that is a device (one that never ends) is refused,
// naming the file.
func TestOdometryDefinitionsAreBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	prefix := t.TempDir()
	dir := filepath.Join(prefix, "share", "builtin_interfaces", "msg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	endless := filepath.Join(dir, "Time.msg")
	if err := os.Symlink("/dev/zero", endless); err != nil {
		t.Skip(err)
	}
	_, err := LoadOdometryDefinitions(prefix)
	if !errors.Is(err, limitedfile.ErrNotRegular) || !strings.Contains(err.Error(), endless) {
		t.Fatalf("err %v, want a refusal naming %s", err, endless)
	}
}
