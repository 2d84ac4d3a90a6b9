// Package px4fixture reads, for tests, the px4_msgs definitions of a PX4
// release as published (shared/golden/px4_msgs/<release>/msg beside the
// repository root), so each test package does not locate and read them
// again. The repository keeps no copy of them: px4_msgs is another
// project's text. Without the shared folder the tests that need it skip,
// saying where they looked, except in CI (CI set), where they fail. It
// imports nothing of the project, so pkg/vehicle/px4's own tests use it too. It is
// for tests only.
package px4fixture

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Messages are the px4_msgs messages the project reads or writes (the list
// pkg/vehicle/px4's Messages gives; a test there keeps the two equal).
var Messages = []string{
	"BatteryStatus", "EstimatorStatusFlags", "FailsafeFlags", "SensorGps", "VehicleAttitude", "VehicleCommand",
	"VehicleCommandAck", "VehicleLocalPosition", "VehicleOdometry", "VehicleStatus",
}

// path is the msg directory of a release in the shared golden data.
func path(rel string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "golden", "px4_msgs", rel, "msg")
}

// Dir returns the msg directory of a px4_msgs release ("1.15"), as an
// installed px4_msgs holds it (share/px4_msgs/msg). It skips t, or fails
// it in CI, when the shared golden data is absent.
func Dir(t testing.TB, rel string) string {
	t.Helper()
	dir := path(rel)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		missing(t, dir, err)
	}
	return dir
}

func missing(t testing.TB, dir string, err error) {
	t.Helper()
	const why = "px4_msgs as published are read from the shared golden data beside the repository"
	if v := os.Getenv("CI"); v != "" && v != "false" && v != "0" {
		t.Fatalf("%s; %s is missing: %v", why, dir, err)
	}
	t.Skipf("%s; %s is missing (%v): skipped", why, dir, err)
}

// Texts returns the release's .msg texts of Messages by message name.
func Texts(t testing.TB, rel string) map[string]string {
	t.Helper()
	dir := Dir(t, rel)
	texts := make(map[string]string, len(Messages))
	for _, name := range Messages {
		data, err := os.ReadFile(filepath.Join(dir, name+".msg"))
		if err != nil {
			t.Fatalf("px4_msgs %s: %v", rel, err)
		}
		texts[strings.TrimSpace(name)] = string(data)
	}
	return texts
}
