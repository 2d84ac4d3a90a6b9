package ros2msg

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedCodeIsFresh runs the generator into a temporary directory
// and fails when the committed generated files differ: after editing a .msg
// file, run go generate ./pkg/wire/ros2msg.
func TestGeneratedCodeIsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not in PATH")
	}
	dir := t.TempDir()
	cmd := exec.Command(goTool, "run", "./internal/cdrgen", "-out", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cdrgen: %v\n%s", err, out)
	}
	for _, name := range []string{"messages_gen.go", "diagnostics_gen.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./pkg/wire/ros2msg", name)
		}
	}
}
