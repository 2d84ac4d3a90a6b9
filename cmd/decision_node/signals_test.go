package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childArgs, when set in the environment, makes the test binary run the
// command line it holds (one argument a line) instead of the tests and exit
// with its status: the parent test then signals a real process.
const childArgs = "DECISION_NODE_TEST_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(childArgs); args != "" {
		os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestSignalsCompleteTheOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{{syscall.SIGINT, "SIGINT", 130}, {syscall.SIGTERM, "SIGTERM", 143}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "flight.mcap")
			// Ten simulated hours: far more than the test waits.
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), childArgs+"="+strings.Join([]string{"sim", "--out", out, "--duration", "10h"}, "\n"))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The temporary output exists once the signals are watched;
			// it grows past its header once a chunk of decided messages
			// is written.
			deadline := time.Now().Add(60 * time.Second)
			for partialSize(t, dir) < 4096 {
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
					t.Fatalf("the output was never started: %s", stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
				t.Fatalf("exit %v, want status %d; stderr:\n%s", err, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "stopped by "+tc.name) || !strings.Contains(stderr.String(), "decisions") {
				t.Errorf("no message and summary on stderr:\n%s", stderr.String())
			}
			// A complete recording of what was processed, that verifies.
			if code, stdout, _ := cli(t, "verify", out, "--quiet"); code != exitOK {
				t.Fatalf("verify of the interrupted output: exit %d\n%s", code, stdout)
			}
			assertNoPartialFiles(t, dir)
		})
	}
}

// partialSize returns the size of the temporary output in dir, -1 when
// there is none.
func partialSize(t *testing.T, dir string) int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".partial-") {
			if info, err := e.Info(); err == nil {
				return info.Size()
			}
		}
	}
	return -1
}
