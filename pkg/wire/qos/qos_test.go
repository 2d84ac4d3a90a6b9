package qos

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestQoSEnumSpellings(t *testing.T) {
	// Values and spellings as in rmw/types.h and the ROS 2 parameter names;
	// written out by hand so a renumbering in the code fails here.
	cases := []struct {
		spelling string
		parse    func(string) (uint8, error)
		str      func(uint8) string
		want     uint8
	}{
		{"system_default", parseRel, strRel, 0},
		{"reliable", parseRel, strRel, 1},
		{"best_effort", parseRel, strRel, 2},
		{"system_default", parseDur, strDur, 0},
		{"transient_local", parseDur, strDur, 1},
		{"volatile", parseDur, strDur, 2},
		{"system_default", parseHist, strHist, 0},
		{"keep_last", parseHist, strHist, 1},
		{"keep_all", parseHist, strHist, 2},
		{"system_default", parseLive, strLive, 0},
		{"automatic", parseLive, strLive, 1},
		{"manual_by_topic", parseLive, strLive, 3},
	}
	for _, c := range cases {
		t.Run(c.spelling, func(t *testing.T) {
			got, err := c.parse(c.spelling)
			if err != nil {
				t.Fatalf("parse %q: %v", c.spelling, err)
			}
			if got != c.want {
				t.Fatalf("parse %q = %d, want %d", c.spelling, got, c.want)
			}
			if s := c.str(got); s != c.spelling {
				t.Fatalf("String(%d) = %q, want %q", got, s, c.spelling)
			}
		})
	}
}

func parseRel(s string) (uint8, error)  { v, err := ParseReliability(s); return uint8(v), err }
func parseDur(s string) (uint8, error)  { v, err := ParseDurability(s); return uint8(v), err }
func parseHist(s string) (uint8, error) { v, err := ParseHistory(s); return uint8(v), err }
func parseLive(s string) (uint8, error) { v, err := ParseLiveliness(s); return uint8(v), err }
func strRel(v uint8) string             { return Reliability(v).String() }
func strDur(v uint8) string             { return Durability(v).String() }
func strHist(v uint8) string            { return History(v).String() }
func strLive(v uint8) string            { return Liveliness(v).String() }

func TestQoSParseRejects(t *testing.T) {
	cases := []struct {
		name  string
		parse func(string) (uint8, error)
		in    string
	}{
		{"reliability uppercase", parseRel, "RELIABLE"},
		{"reliability empty", parseRel, ""},
		{"durability typo", parseDur, "transient-local"},
		{"history number", parseHist, "1"},
		{"liveliness by node", parseLive, "manual_by_node"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.parse(c.in)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), `"`+c.in+`"`) {
				t.Fatalf("error %q does not name the value %q", err, c.in)
			}
		})
	}
}

func TestQoSStringOutOfRange(t *testing.T) {
	if got := Reliability(7).String(); got != "Reliability(7)" {
		t.Errorf("Reliability(7).String() = %q", got)
	}
	if got := Liveliness(2).String(); got != "Liveliness(2)" {
		t.Errorf("Liveliness(2).String() = %q", got)
	}
	// Unknown values print, but are not parameter spellings.
	for _, u := range []fmt.Stringer{HistoryUnknown, ReliabilityUnknown, DurabilityUnknown, LivelinessUnknown} {
		if u.String() != "unknown" {
			t.Errorf("%#v.String() = %q", u, u.String())
		}
	}
	if _, err := ParseHistory("unknown"); !errors.Is(err, ErrInvalid) {
		t.Errorf(`ParseHistory("unknown") = %v`, err)
	}
}

func TestQoSDefaults(t *testing.T) {
	in := DefaultInput()
	if in.Reliability != ReliabilityReliable || in.Durability != DurabilityVolatile ||
		in.History != HistoryKeepLast || in.Depth != 10 {
		t.Errorf("DefaultInput() = %+v", in)
	}
	dec := DefaultDecisions()
	if dec.Reliability != ReliabilityReliable || dec.Durability != DurabilityTransientLocal ||
		dec.History != HistoryKeepLast || dec.Depth != 100 {
		t.Errorf("DefaultDecisions() = %+v", dec)
	}
	for _, p := range []Profile{in, dec} {
		if err := p.Validate(); err != nil {
			t.Errorf("Validate(%+v): %v", p, err)
		}
	}
}

func TestQoSValidate(t *testing.T) {
	cases := []struct {
		name string
		p    Profile
		ok   bool
	}{
		{"default input", DefaultInput(), true},
		{"zero value", Profile{}, true},
		{"keep_all depth 0", Profile{History: HistoryKeepAll}, true},
		{"keep_last depth 0", Profile{History: HistoryKeepLast}, false},
		{"history unknown", Profile{History: HistoryUnknown}, false},
		{"reliability unknown", Profile{Reliability: ReliabilityUnknown}, false},
		{"durability unknown", Profile{Durability: DurabilityUnknown}, false},
		{"liveliness unknown", Profile{Liveliness: LivelinessUnknown}, false},
		{"reliability 3", Profile{Reliability: 3}, false},
		{"durability 3", Profile{Durability: 3}, false},
		{"liveliness 2", Profile{Liveliness: 2}, false},
		{"liveliness 4", Profile{Liveliness: 4}, false},
		{"negative deadline", Profile{Deadline: -1}, false},
		{"negative lifespan", Profile{Lifespan: -1}, false},
		{"negative lease", Profile{LivelinessLeaseDuration: -1}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.p.Validate()
			if c.ok && err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if !c.ok && !errors.Is(err, ErrInvalid) {
				t.Fatalf("Validate = %v, want ErrInvalid", err)
			}
		})
	}
}

// TestOfferedQoSProfilesYAMLGolden pins the exact text, in the layout rosbag2
// Humble's yaml-cpp emitter produces for a reliable, transient-local,
// keep-last-100 publisher with default (infinite) durations.
func TestOfferedQoSProfilesYAMLGolden(t *testing.T) {
	want := `- history: 1
  depth: 100
  reliability: 1
  durability: 1
  deadline:
    sec: 2147483647
    nsec: 4294967295
  lifespan:
    sec: 2147483647
    nsec: 4294967295
  liveliness: 0
  liveliness_lease_duration:
    sec: 2147483647
    nsec: 4294967295
  avoid_ros_namespace_conventions: false`
	if got := OfferedProfilesYAML(DefaultDecisions()); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := OfferedProfilesYAML(); got != "[]" {
		t.Fatalf("no profiles: got %q, want []", got)
	}
}

func TestOfferedQoSProfilesRoundTrip(t *testing.T) {
	cases := []struct {
		name     string
		profiles []Profile
	}{
		{"none", nil},
		{"defaults", []Profile{DefaultInput(), DefaultDecisions()}},
		{"finite durations", []Profile{{
			History: HistoryKeepAll, Reliability: ReliabilityBestEffort,
			Durability: DurabilitySystemDefault, Liveliness: LivelinessManualByTopic,
			Deadline: 1500 * time.Millisecond, Lifespan: time.Nanosecond,
			LivelinessLeaseDuration: 3 * time.Hour, AvoidROSNamespaceConventions: true,
			Depth: 4294967295,
		}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := OfferedProfilesYAML(c.profiles...)
			got, err := ParseOfferedProfiles(text)
			if err != nil {
				t.Fatalf("parse %q: %v", text, err)
			}
			if len(got) != len(c.profiles) {
				t.Fatalf("got %d profiles, want %d", len(got), len(c.profiles))
			}
			for i := range got {
				if got[i] != c.profiles[i] {
					t.Errorf("[%d] = %+v, want %+v", i, got[i], c.profiles[i])
				}
			}
		})
	}
}

func TestParseOfferedQoSProfiles(t *testing.T) {
	entry := func(deadline string) string {
		return "- history: 3\n  depth: 0\n  reliability: 1\n  durability: 2\n" +
			"  deadline:\n" + deadline +
			"  lifespan:\n    sec: 0\n    nsec: 0\n  liveliness: 1\n" +
			"  liveliness_lease_duration:\n    sec: 0\n    nsec: 0\n" +
			"  avoid_ros_namespace_conventions: false\n"
	}
	valid := func(deadline string) string {
		return strings.Replace(entry(deadline), "history: 3", "history: 1", 1)
	}
	cases := []struct {
		name     string
		in       string
		wantErr  string // substring of the error; empty means success
		deadline time.Duration
	}{
		{"empty", "", "", 0},
		{"empty list", "[]", "", 0},
		// rosbag2 Humble records discovered publishers with history unknown
		// and depth 0.
		{"humble discovered publisher", entry("    sec: 1\n    nsec: 0\n"), "", time.Second},
		{"history out of range", strings.Replace(entry("    sec: 1\n    nsec: 0\n"), "history: 3", "history: 4", 1), "history 4 out of range", 0},
		{"liveliness out of range", strings.Replace(valid("    sec: 1\n    nsec: 0\n"), "liveliness: 1", "liveliness: 5", 1), "liveliness 5 out of range", 0},
		{"humble infinite", valid("    sec: 2147483647\n    nsec: 4294967295\n"), "", 0},
		{"connext foxy infinite", valid("    sec: 2147483647\n    nsec: 2147483647\n"), "", 0},
		{"cyclone foxy infinite", valid("    sec: 9223372036854775807\n    nsec: 0\n"), "", 0},
		{"rmw infinite", valid("    sec: 9223372036\n    nsec: 854775807\n"), "", 0},
		{"finite", valid("    sec: 2\n    nsec: 5\n"), "", 2*time.Second + 5},
		{"nsec too large", valid("    sec: 2\n    nsec: 1000000000\n"), "nsec 1000000000", 0},
		{"negative sec", valid("    sec: -1\n    nsec: 0\n"), "sec -1 is negative", 0},
		{"missing nsec", valid("    sec: 1\n"), "deadline: missing sec or nsec", 0},
		{"string enum", strings.Replace(valid("    sec: 1\n    nsec: 0\n"), "reliability: 1", "reliability: reliable", 1), "offered_qos_profiles", 0},
		{"missing depth", strings.Replace(valid("    sec: 1\n    nsec: 0\n"), "  depth: 0\n", "", 1), "missing depth", 0},
		{"depth too large", strings.Replace(valid("    sec: 1\n    nsec: 0\n"), "depth: 0", "depth: 4294967296", 1), "depth 4294967296", 0},
		{"liveliness by node", strings.Replace(valid("    sec: 1\n    nsec: 0\n"), "liveliness: 1", "liveliness: 2", 1), "manual_by_node", 0},
		{"not a list", "history: 1\n", "offered_qos_profiles", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseOfferedProfiles(c.in)
			checkQoSParse(t, c.in, got, err, c.wantErr, c.deadline)
		})
	}
}

func checkQoSParse(t *testing.T, in string, got []Profile, err error, wantErr string, deadline time.Duration) {
	t.Helper()
	if wantErr != "" {
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("err = %v, want ErrInvalid containing %q", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	// Every non-empty success case holds exactly one entry.
	wantN := 0
	if strings.HasPrefix(in, "- ") {
		wantN = 1
	}
	if len(got) != wantN {
		t.Fatalf("got %d profiles, want %d", len(got), wantN)
	}
	if wantN == 1 && got[0].Deadline != deadline {
		t.Fatalf("deadline = %v, want %v", got[0].Deadline, deadline)
	}
}

func FuzzQoSParse(f *testing.F) {
	f.Add(OfferedProfilesYAML(DefaultInput(), DefaultDecisions()))
	f.Add("[]")
	f.Add("- history: 1\n  depth: 1\n")
	f.Add("- {history: 1, depth: 1, reliability: 1, durability: 2, deadline: {sec: 0, nsec: 0}}")
	f.Fuzz(func(t *testing.T, s string) {
		profiles, err := ParseOfferedProfiles(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		// Whatever parses must survive a write/parse round trip unchanged.
		again, err := ParseOfferedProfiles(OfferedProfilesYAML(profiles...))
		if err != nil {
			t.Fatalf("re-parse of written profiles: %v", err)
		}
		if len(again) != len(profiles) {
			t.Fatalf("round trip: %d profiles, want %d", len(again), len(profiles))
		}
		for i := range again {
			if again[i] != profiles[i] {
				t.Fatalf("round trip [%d] = %+v, want %+v", i, again[i], profiles[i])
			}
		}
	})
}
