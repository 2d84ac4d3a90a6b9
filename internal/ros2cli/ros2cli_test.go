package ros2cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A stand-in ros2 that answers as a call that has not discovered the node
// yet (early: a shell command) until it has been called failures times,
// then answers.
func standIn(t *testing.T, failures int, early string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nn=$(cat " + filepath.Join(dir, "n") + " 2>/dev/null || echo 0)\n" +
		"echo $((n + 1)) > " + filepath.Join(dir, "n") + "\n" +
		"if [ \"$n\" -lt " + strconv.Itoa(failures) + " ]; then " + early + "; fi\n" +
		"echo \"answer $*\"\n"
	p := filepath.Join(dir, "ros2")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// How a call answers before it has discovered the node: most verbs say
// so and fail; ros2 param list, before it has seen the node's services,
// prints nothing and succeeds.
const (
	nodeNotFound       = "echo 'Node not found'; exit 1"
	servicesNotYetSeen = "exit 0"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		early    string
		failures int
		timeout  time.Duration
		wantOut  string
		wantErr  bool
	}{
		{"answers at once", nodeNotFound, 0, 10 * time.Second, "answer param get", false},
		{"retries until discovered", nodeNotFound, 3, 10 * time.Second, "answer param get", false},
		{"retries until the services are discovered", servicesNotYetSeen, 3, 10 * time.Second, "answer param get", false},
		{"gives up when the context has ended", nodeNotFound, 1 << 30, 0, "", true},
		{"gives up when the context ends while retrying", nodeNotFound, 1 << 30, 300 * time.Millisecond, "", true},
		{"gives up when the context ends before the services are seen", servicesNotYetSeen, 1 << 30, 300 * time.Millisecond, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := standIn(t, tt.failures, tt.early)
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			out, err := Run(ctx, path, "param", "get")
			if (err != nil) != tt.wantErr || !strings.Contains(string(out), tt.wantOut) {
				t.Errorf("Run = %q, %v; want %q, error %v", out, err, tt.wantOut, tt.wantErr)
			}
		})
	}
}

// Another failure than "Node not found" is returned at once, not retried.
func TestRunOtherFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ros2")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho x >> "+filepath.Join(dir, "calls")+"\necho 'Parameter not set'; exit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), p, "param", "get")
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	if err == nil || !strings.Contains(string(out), "Parameter not set") || strings.Count(string(calls), "x") != 1 {
		t.Errorf("Run = %q, %v after %d calls; want one call and its error", out, err, strings.Count(string(calls), "x"))
	}
}
