package packaging

import (
	"path/filepath"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/vehicle/mapping"
)

// config/px4_sitl.yaml is a valid parameters file, and its thresholds let a
// normal PX4 belief be KNOWN: on a first live SITL flight the defaults held
// every belief UNCERTAIN or UNKNOWN (PX4's heading 1-sigma of 0.06 to
// 0.21 rad against 0.05 / 0.2 rad), so ghost never proceeded. Each row is a
// vehicle_local_position sample PX4 v1.15 SIH publishes, with the level it
// must get under the shipped file and under the defaults.
func TestPX4SITLConfigLevels(t *testing.T) {
	cfg, err := config.FromParamsFile(filepath.Join(root, "config", "px4_sitl.yaml"))
	if err != nil {
		t.Fatalf("config/px4_sitl.yaml: %v", err)
	}
	if cfg.Input.Source != config.SourcePX4 || cfg.Input.PX4Position != "local_position" {
		t.Errorf("input.source %q, px4.position %q: want px4 and local_position", cfg.Input.Source, cfg.Input.PX4Position)
	}
	defaults, err := config.FromParamsFile(filepath.Join(root, "config", "decision.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                string
		eph, evh, headingSD float32
		px4, defaults       decisions.Level
	}{
		{"hover with GPS, heading 0.06 rad", 0.3, 0.05, 0.06, decisions.LevelKnown, decisions.LevelUncertain},
		{"hover with GPS, heading 0.21 rad", 0.5, 0.1, 0.21, decisions.LevelKnown, decisions.LevelUnknown},
		{"GPS lost 5 s, eph 2.5 m", 2.5, 0.4, 0.1, decisions.LevelUncertain, decisions.LevelUnknown},
		{"GPS lost 10 s, eph 7 m (PX4's failsafe at COM_POS_FS_EPH 5 m)", 7, 1.2, 0.1, decisions.LevelUnknown, decisions.LevelUnknown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mapping.PX4LocalPosition{Timestamp: 2_000_040, TimestampSample: 2_000_000,
				XYValid: true, ZValid: true, VXYValid: true, VZValid: true, Z: -5,
				EPH: tc.eph, EPV: tc.eph / 2, EVH: tc.evh, EVV: tc.evh / 2,
				HasHeadingTiltVar: true, HeadingVar: tc.headingSD * tc.headingSD, TiltVar: 1e-4}
			att := mapping.PX4Attitude{Timestamp: 2_000_000, Q: [4]float32{1, 0, 0, 0}}
			s, err := mapping.MapPX4LocalPosition(p, att, mapping.NoFlightStatus())
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name string
				th   decisions.Thresholds
				want decisions.Level
			}{{"px4_sitl.yaml", cfg.Thresholds, tc.px4}, {"decision.yaml", defaults.Thresholds, tc.defaults}} {
				a, err := mapping.Assess(&s, c.th)
				if err != nil {
					t.Fatal(err)
				}
				if a.OverallLevel != c.want {
					t.Errorf("%s: overall %v, want %v (%+v)", c.name, a.OverallLevel, c.want, a)
				}
			}
		})
	}
}
