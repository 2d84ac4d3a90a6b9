package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/audit"
)

func TestOutputsNeverReplaceTheInputOrNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	flight := simulate(t, dir)
	original, err := os.ReadFile(flight)
	if err != nil {
		t.Fatal(err)
	}
	// Other spellings of the input: a detour through the directory, a
	// hard link, a symbolic link.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.mcap")
	if err := os.Link(flight, hard); err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(dir, "soft.mcap")
	if err := os.Symlink(flight, soft); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"input by a detour", []string{"replay", "--in", flight, "--out", filepath.Join(sub, "..", "flight.mcap"), "--force"}, exitIO, "is the input"},
		{"input by a hard link", []string{"replay", "--in", flight, "--out", hard, "--force"}, exitIO, "is the input"},
		{"input by a symbolic link", []string{"replay", "--in", soft, "--out", flight, "--force"}, exitIO, "is the input"},
		{"a directory", []string{"replay", "--in", flight, "--out", sub, "--force"}, exitIO, "is a directory, not a regular file"},
		{"a symbolic link", []string{"sim", "--out", soft, "--duration", "1s"}, exitIO, "is a symbolic link, not a regular file"},
		{"report over the recording", []string{"verify", flight, "--json", hard, "--quiet"}, exitIO, "is the input"},
		{"report into a directory", []string{"verify", flight, "--json", sub, "--quiet"}, exitIO, "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := cli(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d (want %d), stderr:\n%s", code, tt.code, stderr)
			}
			lines := 1
			if code == exitUsage {
				lines = 3 // the command's synopsis and where its help is
			}
			if strings.Count(stderr, "\n") != lines {
				t.Errorf("the error is more than one line:\n%s", stderr)
			}
			got, err := os.ReadFile(flight)
			if err != nil || !bytes.Equal(got, original) {
				t.Fatalf("the input changed (%v)", err)
			}
			if st, err := os.Lstat(sub); err != nil || !st.IsDir() {
				t.Fatalf("the directory changed: %v", err)
			}
		})
	}
	// A symbolic link that is not the input is still not a regular file.
	other := filepath.Join(dir, "other.mcap")
	if err := os.Symlink(filepath.Join(dir, "nowhere.mcap"), other); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cli(t, "sim", "--out", other, "--duration", "1s"); code != exitIO || !strings.Contains(stderr, "symbolic link") {
		t.Fatalf("sim onto a dangling link: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere.mcap")); err == nil {
		t.Fatal("the link was followed")
	}
	assertNoPartialFiles(t, dir)
}

func TestOutputsRefuseDeviceNodes(t *testing.T) {
	const null = os.DevNull
	st, err := os.Lstat(null)
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("%s is not a character device here", null)
	}
	flight := simulate(t, t.TempDir())
	for _, args := range [][]string{
		{"sim", "--out", null, "--duration", "1s"},
		{"replay", "--in", flight, "--out", null, "--force"},
		{"verify", flight, "--json", null, "--quiet"},
	} {
		code, _, stderr := cli(t, args...)
		if code != exitIO || !strings.Contains(stderr, "character device, not a regular file") {
			t.Errorf("%s: exit %d, %s", args[0], code, stderr)
		}
	}
	if st, err := os.Lstat(null); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s was replaced: %v", null, err)
	}
}

func TestAtomicFileLeavesTheTargetUntilCommit(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.mcap")
	if err := os.WriteFile(target, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		t.Helper()
		b, err := os.ReadFile(target)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if _, err := createAtomic("--out", target, nil, false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("an existing target without replace: %v", err)
	}

	// Written, then abandoned (a failed run): the previous file stays.
	f, err := createAtomic("--out", target, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("half a recor"); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "previous" {
		t.Fatalf("while writing, the target holds %q", got)
	}
	f.Abort()
	f.Abort()
	if got := read(); got != "previous" {
		t.Fatalf("after Abort the target holds %q", got)
	}
	assertNoPartialFiles(t, dir)

	// Written and committed: the new content, whole, and nothing else.
	f, err = createAtomic("--out", target, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("a complete recording"); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: a no-op
	if got := read(); got != "a complete recording" {
		t.Fatalf("after Commit the target holds %q", got)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	assertNoPartialFiles(t, dir)

	// The target turned into a directory while the output was written:
	// Commit refuses and removes its temporary file.
	other := filepath.Join(dir, "late.mcap")
	f, err = createAtomic("--out", other, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("Commit onto a directory: %v", err)
	}
	assertNoPartialFiles(t, dir)
}

// assertNoPartialFiles fails if a temporary output file was left behind.
func assertNoPartialFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".partial-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestAuditSummaryReceiptSkew: receipts matched at another time (a
// recorder's log times) are counted in the summary, with the largest gap.
func TestAuditSummaryReceiptSkew(t *testing.T) {
	for _, skewed := range []uint64{0, 33} {
		r := &audit.AuditReport{Actions: map[string]uint64{"sent": 6}, ReceiptTimeSkewed: skewed, ReceiptTimeSkewMaxNs: 426121}
		var b strings.Builder
		printAuditSummary(&b, "rec.mcap", r, auditHints{})
		got := slices.ContainsFunc(strings.Split(b.String(), "\n"), func(l string) bool {
			f := strings.Fields(l)
			return len(f) > 7 && strings.Join(f[:4], " ") == "matched with another time" && f[4] == "33" && f[7] == "426.121µs"
		})
		if got != (skewed > 0) {
			t.Errorf("skewed %d: summary\n%s", skewed, b.String())
		}
	}
}
