package packaging

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The flight script's simulator switch, without PX4, Gazebo or ROS 2: an
// unknown simulator is a usage error, and a Gazebo flight on a machine
// without Gazebo, or with a PX4 built without it, is skipped (status 77)
// with what is missing, before anything is started.
func TestGPSLossSimulatorSwitch(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script, err := filepath.Abs(filepath.Join("..", "sitl", "gps_loss.sh"))
	if err != nil {
		t.Fatal(err)
	}
	withGz := t.TempDir() // a bin directory holding a stand-in gz
	if err := os.WriteFile(filepath.Join(withGz, "gz"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	px4NoGz := t.TempDir()
	px4Gz := t.TempDir()
	if err := os.MkdirAll(filepath.Join(px4Gz, "rootfs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(px4Gz, "rootfs", "gz_env.sh"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A PATH with the shell's tools but neither gz nor ros2.
	base := "/usr/bin:/bin"
	tests := []struct {
		name     string
		sim      string
		path     string
		px4      string
		wantCode int
		wantErr  string
	}{
		{"unknown simulator", "ignition", base, px4Gz, 2, "SIM must be sih or gz, not 'ignition'"},
		{"gazebo not installed", "gz", base, px4Gz, 77, "SIM=gz skipped: gz is not on PATH"},
		{"PX4 built without gazebo", "gz", withGz + ":" + base, px4NoGz, 77, "SIM=gz skipped: " + px4NoGz + " has no rootfs/gz_env.sh"},
		// Past the switch, the next thing missing here is ROS 2.
		{"gazebo ready", "gz", withGz + ":" + base, px4Gz, 2, "ros2 is not on PATH"},
		{"SIH, the default", "", base, px4NoGz, 2, "ros2 is not on PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("bash", script, t.TempDir())
			cmd.Env = []string{"PATH=" + tt.path, "HOME=" + t.TempDir(), "PX4_BUILD=" + tt.px4, "XRCE_AGENT=/bin/true", "SIM=" + tt.sim}
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("want exit status %d, got %v\n%s", tt.wantCode, err, out)
			}
			if exit.ExitCode() != tt.wantCode || !strings.Contains(string(out), tt.wantErr) {
				t.Errorf("exit %d, want %d with %q; output:\n%s", exit.ExitCode(), tt.wantCode, tt.wantErr, out)
			}
		})
	}
}

// TestROSOnLoopback: the SITL scripts keep ROS 2 on loopback through the
// variable the sourced distro reads, and through both where it does not
// say which it is.
func TestROSOnLoopback(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	lib, err := filepath.Abs(filepath.Join("..", "sitl", "processes.sh")) // which sources ../loopback.sh
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		distro, uri, want string // uri: the caller's CYCLONEDDS_URI
	}{
		{"jazzy", "file:///etc/cyclone.xml", "localhost_only=unset range=LOCALHOST cyclone=file:///etc/cyclone.xml"},
		{"humble", "", "localhost_only=1 range=unset cyclone=unset"},
		{"jazzy", "", `localhost_only=unset range=LOCALHOST cyclone=<CycloneDDS><Domain><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces></General></Domain></CycloneDDS>`},
		{"rolling", "", `localhost_only=unset range=LOCALHOST cyclone=<CycloneDDS><Domain><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces></General></Domain></CycloneDDS>`},
		{"", "", "localhost_only=1 range=LOCALHOST cyclone=unset"},
	}
	for _, tc := range tests {
		t.Run("distro="+tc.distro+",uri="+tc.uri, func(t *testing.T) {
			// A caller's ROS_LOCALHOST_ONLY=0 must not survive on Jazzy: it warns.
			cmd := exec.Command("bash", "-c", `set -eu; repo=.; . "$1"; ros_on_loopback
echo "localhost_only=${ROS_LOCALHOST_ONLY-unset} range=${ROS_AUTOMATIC_DISCOVERY_RANGE-unset} cyclone=${CYCLONEDDS_URI-unset}"`, "bash", lib)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "ROS_DISTRO=" + tc.distro, "ROS_LOCALHOST_ONLY=0"}
			if tc.uri != "" {
				cmd.Env = append(cmd.Env, "CYCLONEDDS_URI="+tc.uri)
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if got := strings.TrimSpace(string(out)); got != tc.want {
				t.Errorf("ROS_DISTRO=%q: %s, want %s", tc.distro, got, tc.want)
			}
		})
	}
}
