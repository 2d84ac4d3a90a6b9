// Package testkeys gives tests the private key files kept in testdata in
// the form the key loader accepts: a repository checks files out readable
// by everyone, and a private key file must be readable by its owner only.
// It is for tests only.
package testkeys

import (
	"os"
	"path/filepath"
	"testing"
)

// Private copies the private key file at path into a temporary directory
// of t, readable by its owner only, and returns the copy's path.
func Private(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}
