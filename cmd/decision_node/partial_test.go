package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The temporary files a killed run left beside a target are removed by
// the next run that writes it; those of a run still writing, of another
// target, and symbolic links are left alone.
func TestLeftoverPartialsAreRemoved(t *testing.T) {
	if lockless() {
		t.Skip("this system has no flock: leftovers are kept")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "out.mcap")
	write := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("half a recording"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	leftover := write(".out.mcap.partial-123")
	other := write(".other.mcap.partial-123")
	victim := write("precious")
	link := filepath.Join(dir, ".out.mcap.partial-link")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}

	// A run still writing holds its temporary file.
	running, err := createAtomic("--out", target, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(leftover); err == nil {
		t.Fatal("the leftover was kept")
	}
	next, err := createAtomic("--out", target, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{running.Name(), other, victim, link} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
	if _, err := running.WriteString("a recording"); err != nil {
		t.Fatal(err)
	}
	if err := running.Commit(); err != nil {
		t.Fatal(err)
	}
	next.Abort()
	if data, err := os.ReadFile(target); err != nil || string(data) != "a recording" {
		t.Fatalf("target %q, %v", data, err)
	}
}

// lockless reports whether this build keeps leftovers (no flock).
func lockless() bool {
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd", "netbsd", "openbsd", "dragonfly":
		return false
	}
	return true
}

// SIGKILL leaves the temporary output; the next run writing the same
// target removes it.
func TestKilledRunsLeftoverIsRemovedByTheNext(t *testing.T) {
	if testing.Short() || lockless() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "flight.mcap")
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildProcess$")
	cmd.Env = append(os.Environ(), childArgs+"="+strings.Join([]string{"sim", "--out", out, "--duration", "10h", "--quiet"}, "\n"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for partialSize(t, dir) < 4096 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatal("the output was never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// While the child writes, another run leaves its file alone.
	other, err := createAtomic("--out", out, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	other.Abort()
	if partialSize(t, dir) < 0 {
		t.Fatal("the temporary file of a running process was removed")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if partialSize(t, dir) < 0 {
		t.Fatal("SIGKILL left no temporary file: nothing to test")
	}
	if code, _, stderr := cli(t, "sim", "--out", out, "--duration", "2s", "--quiet"); code != exitOK {
		t.Fatalf("sim exit %d: %s", code, stderr)
	}
	assertNoPartialFiles(t, dir)
}
