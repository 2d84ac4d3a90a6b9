package px4

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/px4fixture"
)

func TestCommandName(t *testing.T) {
	for id, want := range map[uint32]string{20: "NAV_RETURN_TO_LAUNCH", 21: "NAV_LAND", 176: "DO_SET_MODE", 185: "DO_FLIGHT_TERMINATION",
		400: "COMPONENT_ARM_DISARM", 100001: "SET_NAV_STATE", 16: "COMMAND(16)"} {
		if got := CommandName(id); got != want {
			t.Errorf("CommandName(%d) = %q, want %q", id, got, want)
		}
	}
}

// TestNavStateLabelsArePX4s: every NAVIGATION_STATE_* constant of
// VehicleStatus.msg as PX4 publishes it has the label of its name.
func TestNavStateLabelsArePX4s(t *testing.T) {
	for _, rel := range []Release{Release115, Release116} {
		dir := px4fixture.Dir(t, string(rel))
		f, err := os.Open(filepath.Join(dir, "VehicleStatus.msg"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line, _, _ := strings.Cut(sc.Text(), "#")
			fields := strings.Fields(line) // uint8 NAVIGATION_STATE_X = n
			if len(fields) != 4 || fields[0] != "uint8" || fields[2] != "=" || !strings.HasPrefix(fields[1], "NAVIGATION_STATE_") {
				continue
			}
			label := strings.TrimPrefix(fields[1], "NAVIGATION_STATE_")
			v, err := strconv.Atoi(fields[3])
			if err != nil || label == "MAX" || strings.HasPrefix(label, "FREE") {
				continue
			}
			if got := NavStateLabel(uint8(v)); got != label {
				t.Errorf("%s: NavStateLabel(%d) = %q, PX4 says %q", rel, v, got, label)
			}
			n++
		}
		f.Close()
		if n < 20 {
			t.Errorf("%s: only %d nav states read", rel, n)
		}
	}
}
