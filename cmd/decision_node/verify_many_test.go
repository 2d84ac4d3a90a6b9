package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVerifyMany audits a good, a truncated and an unreadable recording
// together: one row per file in argument order, a total, the worst exit
// status, and per-file reports equal to single-file verification.
func TestVerifyMany(t *testing.T) {
	dir := t.TempDir()
	fleet := filepath.Join(dir, "fleet")
	if err := os.Mkdir(fleet, 0o755); err != nil {
		t.Fatal(err)
	}
	good := simulate(t, fleet) // fleet/flight.mcap
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(fleet, "cut.mcap")
	junk := filepath.Join(fleet, "junk.mcap")
	notes := filepath.Join(fleet, "notes.txt") // not a recording: ignored in a directory
	for p, b := range map[string][]byte{cut: data[:len(data)/2], junk: []byte("not a recording"), notes: []byte("x")} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, single, _ := cli(t, "verify", good, "--quiet")
	if code != exitOK {
		t.Fatalf("single verify: exit %d\n%s", code, single)
	}
	decided := regexp.MustCompile(`(?m)^decisions\s+(\d+)`).FindStringSubmatch(single)
	if decided == nil {
		t.Fatalf("no decision count in:\n%s", single)
	}

	tests := []struct {
		name  string
		args  []string
		code  int
		rows  []string // the path of each row, in order
		total string
	}{
		{"two good", []string{good, good}, exitOK, []string{good, good}, "2 passed, 0 failed, 0 unreadable"},
		{"good and truncated", []string{cut, good}, exitFindings, []string{cut, good}, "1 passed, 1 failed, 0 unreadable"},
		{"a directory, sorted", []string{fleet}, exitIO, []string{cut, good, junk}, "1 passed, 1 failed, 1 unreadable"},
		{"missing file", []string{good, filepath.Join(dir, "absent.mcap")}, exitIO, []string{good, filepath.Join(dir, "absent.mcap")}, "1 passed, 0 failed, 1 unreadable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			report := filepath.Join(dir, "many.json")
			args := append([]string{"verify"}, tt.args...)
			code, stdout, stderr := cli(t, append(args, "--json", report)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.code, stdout, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			if len(lines) != len(tt.rows)+2 || !strings.HasPrefix(lines[0], "recording") {
				t.Fatalf("want a header, %d rows and a total:\n%s", len(tt.rows), stdout)
			}
			for i, p := range tt.rows {
				if !strings.HasPrefix(lines[i+1], p+" ") {
					t.Fatalf("row %d is not %s:\n%s", i, p, stdout)
				}
			}
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "total:") || !strings.Contains(last, tt.total) {
				t.Fatalf("total line %q, want %q", last, tt.total)
			}
			var doc manyReport
			raw, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Files) != len(tt.rows) || doc.Total.ExitStatus != tt.code || doc.Total.Files != len(tt.rows) {
				t.Fatalf("json: %d files, total %+v", len(doc.Files), doc.Total)
			}
			for i, f := range doc.Files {
				if f.Path != tt.rows[i] {
					t.Fatalf("json file %d is %s, want %s", i, f.Path, tt.rows[i])
				}
				if f.Path == good && (f.Report == nil || f.ExitStatus != exitOK || decided[1] != jsonNumber(f.Report.Decisions)) {
					t.Fatalf("the good recording's entry %+v differs from its single verify (%s decisions)", f, decided[1])
				}
				if f.Path == cut && (f.Report == nil || f.ExitStatus != exitFindings || !strings.Contains(strings.Join(f.Report.Reasons, ","), "read_incomplete")) {
					t.Fatalf("truncated entry %+v", f)
				}
				if f.Path == junk && (f.Report != nil || f.ExitStatus != exitIO || f.Error == "") {
					t.Fatalf("unreadable entry %+v", f)
				}
			}
			// Deterministic: the same arguments print the same table.
			if _, again, _ := cli(t, args...); again != stdout {
				t.Fatalf("second run differs:\n%s\n---\n%s", stdout, again)
			}
		})
	}
	if code, _, stderr := cli(t, "verify", filepath.Join(dir, "empty-dir-missing")); code != exitIO {
		t.Fatalf("a missing path alone: exit %d %s", code, stderr)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cli(t, "verify", empty); code != exitIO || !strings.Contains(stderr, "no .mcap recordings") {
		t.Fatalf("an empty directory: exit %d %s", code, stderr)
	}
}

func jsonNumber(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
