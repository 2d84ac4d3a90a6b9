package config

import (
	"maps"
	"strings"
	"testing"
)

func TestExpandName(t *testing.T) {
	tests := []struct {
		name, node, ns string
		want           string // "" means an error is expected
	}{
		{"/state/nav", "decision_node", "/", "/state/nav"},
		{"/state/nav", "decision_node", "/drone1", "/state/nav"},
		{"state/nav", "decision_node", "/", "/state/nav"},
		{"state/nav", "decision_node", "/drone1", "/drone1/state/nav"},
		{"decisions", "decision_node", "/a/b", "/a/b/decisions"},
		{"~", "decision_node", "/drone1", "/drone1/decision_node"},
		{"~/debug", "decision_node", "/", "/decision_node/debug"},
		{"~/debug", "brain", "/drone1", "/drone1/brain/debug"},
		{"{node}/out", "brain", "/drone1", "/drone1/brain/out"},
		{"{ns}/out", "brain", "/drone1", "/drone1/out"},
		{"{namespace}/out", "brain", "/", "/out"},
		{"_private", "n", "/", "/_private"},
		{"", "n", "/", ""},
		{"/", "n", "/", ""},
		{"/a/", "n", "/", ""},
		{"/a//b", "n", "/", ""},
		{"/1a", "n", "/", ""},
		{"/a-b", "n", "/", ""},
		{"a/~", "n", "/", ""},
		{"~x", "n", "/", ""},
		{"{unknown}", "n", "/", ""},
		{"/" + strings.Repeat("a", maxNameLen), "n", "/", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name+"@"+tt.ns, func(t *testing.T) {
			got, err := expandName(tt.name, tt.node, tt.ns)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("expandName(%q) = %q, want an error", tt.name, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("expandName(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
			}
		})
	}
}

func TestResolveTopic(t *testing.T) {
	c := Default()
	c.Namespace = "/drone1"
	c.Remaps = []Remap{
		{From: "state/nav", To: "/fmu/out/state"},  // relative from: /drone1/state/nav
		{From: "/state/nav", To: "/global/state"},  // absolute from
		{From: "/global/state", To: "/never"},      // rules do not chain
		{From: "decisions", To: "~/decisions"},     // relative from, private to
		{From: "/state/nav", To: "/shadowed/rule"}, // first match wins
	}
	tests := []struct{ in, want string }{
		{"/state/nav", "/global/state"},
		{"state/nav", "/fmu/out/state"},
		{"decisions", "/drone1/decision_node/decisions"},
		{"/decisions", "/decisions"},
		{"/global/state", "/never"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := c.ResolveTopic(tt.in)
			if err != nil || got != tt.want {
				t.Fatalf("ResolveTopic(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestResolvedTopics(t *testing.T) {
	c, _, err := FromArgs([]string{"--ros-args", "-r", "__ns:=/uav", "-p", "topics.self_assessment:=self_assessment",
		"-r", "/decisions:=decisions"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.ResolvedTopics()
	if err != nil {
		t.Fatal(err)
	}
	want := Topics{
		"state":                      "/state/nav",
		"self_assessment":            "/uav/self_assessment",
		"perception_mode":            "/perception/mode",
		"self_assessment_calibrated": "",
		"decisions":                  "/uav/decisions",
		"diagnostics":                "/diagnostics",
		"action_evidence":            "/decisions/evidence",
		"parameter_events":           "/parameter_events",
		"transition_event":           "/uav/decision_node/transition_event",
		"actions":                    "/decisions/actions",
		"seal":                       "/decisions/seal",
	}
	if !maps.Equal(got, want) {
		t.Fatalf("ResolvedTopics = %+v, want %+v", got, want)
	}
}

func TestMatchNodeKey(t *testing.T) {
	tests := []struct {
		key, fqn string
		want     bool
	}{
		{"/**", "/decision_node", true},
		{"/**", "/a/b/decision_node", true},
		{"decision_node", "/decision_node", true},
		{"/decision_node", "/decision_node", true},
		{"/decision_node", "/ns/decision_node", false},
		{"/ns/decision_node", "/ns/decision_node", true},
		{"ns/decision_node", "/ns/decision_node", true},
		{"/ns/decision_node", "/decision_node", false},
		{"/*", "/decision_node", true},
		{"/*", "/ns/decision_node", false},
		{"/*/decision_node", "/ns/decision_node", true},
		{"/**/decision_node", "/decision_node", true},
		{"/**/decision_node", "/a/b/decision_node", true},
		{"/**/decision_node", "/a/b/other", false},
		{"/decision_*", "/decision_node", true},
		{"/ns/**", "/ns/x/decision_node", true},
		{"/ns/**", "/other/decision_node", false},
		{"/[", "/decision_node", false}, // malformed pattern never matches
		{strings.Repeat("/**/a", 40) + "/b", "/" + strings.Repeat("a/", 60) + "c", false},
	}
	for _, tt := range tests {
		t.Run(tt.key+"~"+tt.fqn, func(t *testing.T) {
			if got := matchNodeKey(tt.key, tt.fqn); got != tt.want {
				t.Fatalf("matchNodeKey(%q, %q) = %v, want %v", tt.key, tt.fqn, got, tt.want)
			}
		})
	}
}
