package packaging

import (
	"encoding/xml"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/session"
)

// sros2Policy is the part of an sros2 policy file (format 0.2.0) the node's
// policy uses.
type sros2Policy struct {
	XMLName  xml.Name `xml:"policy"`
	Version  string   `xml:"version,attr"`
	Enclaves []struct {
		Path     string `xml:"path,attr"`
		Profiles []struct {
			NS     string `xml:"ns,attr"`
			Node   string `xml:"node,attr"`
			Topics []struct {
				Publish   string   `xml:"publish,attr"`
				Subscribe string   `xml:"subscribe,attr"`
				Names     []string `xml:"topic"`
			} `xml:"topics"`
			Services []struct {
				Reply   string   `xml:"reply,attr"`
				Request string   `xml:"request,attr"`
				Names   []string `xml:"service"`
			} `xml:"services"`
			Actions []struct {
				Names []string `xml:"action"`
			} `xml:"actions"`
		} `xml:"profiles>profile"`
	} `xml:"enclaves>enclave"`
}

// grants is what one enclave allows, as sorted name lists.
type grants struct {
	Publish, Subscribe, Reply []string
}

func sorted(names ...[]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, list := range names {
		for _, n := range list {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// The services the node answers: rclcpp's parameter services and
// rcl_lifecycle's (lifecycle true); it calls none.
var nodeServices = []string{
	"~/describe_parameters", "~/get_parameter_types", "~/get_parameters", "~/list_parameters",
	"~/set_parameters", "~/set_parameters_atomically",
	"~/change_state", "~/get_state", "~/get_available_states", "~/get_available_transitions",
	"~/get_transition_graph",
}

// wantGrants derives what each enclave of config/sros2/decision_node.policy.xml
// must allow, exactly: the node's default topics by key, so a renamed
// default fails here until the policy follows, and PX4's fixed names.
func wantGrants(t *testing.T) map[string]grants {
	t.Helper()
	topics := session.DefaultTopics()
	topic := func(keys ...string) []string {
		var out []string
		for _, k := range keys {
			n, ok := topics[k]
			if !ok || n == "" {
				t.Fatalf("session.DefaultTopics has no default topic for %q", k)
			}
			out = append(out, n)
		}
		return out
	}
	const clock, rosout = "/clock", "/rosout"
	outputs := append(topic(session.KeyDecisions, session.KeyDiagnostics, session.KeyActions, session.KeySeal), rosout)
	own := topic(session.KeyParameterEvents, session.KeyTransitionEvent) // published and read back
	beliefs := topic(session.KeyState, session.KeySelfAssessment)
	perception := topic(session.KeyPerceptionMode)
	evidence := topic(session.KeyActionEvidence)
	// The px4 executor's evidence (vehicle_status_v1 is PX4 1.16's name)
	// and its command.
	px4Evidence := []string{"/fmu/out/vehicle_command_ack", "/fmu/out/vehicle_status", "/fmu/out/vehicle_status_v1"}
	px4Command := []string{"/fmu/in/vehicle_command"}
	px4Estimate := []string{"/fmu/out/vehicle_odometry", "/fmu/out/vehicle_local_position", "/fmu/out/vehicle_attitude", "/fmu/out/battery_status",
		"/fmu/out/vehicle_gps_position", "/fmu/out/estimator_status_flags", "/fmu/out/failsafe_flags"}

	// Every input the node subscribes to by default is covered: the ghost
	// enclaves read all of them.
	var inputs []string
	for _, in := range session.DefaultInputs() {
		if !in.Optional {
			inputs = append(inputs, in.Topic)
		}
	}
	advisoryReads := sorted(beliefs, perception, evidence, own, []string{clock})
	if missing := difference(inputs, advisoryReads); len(missing) > 0 {
		t.Fatalf("the node's default inputs %q have no subscription in the advisory enclave", missing)
	}
	return map[string]grants{
		// input.source ghost, no executor or the log executor (which
		// publishes the evidence the node otherwise reads).
		"/ghost/decision_node": {
			Publish:   sorted(outputs, own, evidence),
			Subscribe: advisoryReads,
			Reply:     sorted(nodeServices),
		},
		// input.source ghost, executor px4.
		"/ghost/decision_node_acting": {
			Publish:   sorted(outputs, own, evidence, px4Command),
			Subscribe: sorted(beliefs, perception, own, px4Evidence, []string{clock}),
			Reply:     sorted(nodeServices),
		},
		// input.source px4: the beliefs it derives are outputs.
		"/ghost/decision_node_px4": {
			Publish:   sorted(outputs, own, evidence, beliefs, px4Command),
			Subscribe: sorted(own, px4Estimate, px4Evidence, []string{clock}),
			Reply:     sorted(nodeServices),
		},
	}
}

// difference lists the names of a that b lacks.
func difference(a, b []string) []string {
	var out []string
	for _, n := range a {
		if !contains(b, n) {
			out = append(out, n)
		}
	}
	return out
}

// TestSROS2Policy: the shipped access-control policy grants each enclave
// exactly what the node uses run that way (checked on a real graph by
// test/sros2/prove.sh), no wildcard, nothing it does not use.
func TestSROS2Policy(t *testing.T) {
	var p sros2Policy
	if err := xml.Unmarshal([]byte(read(t, "config/sros2/decision_node.policy.xml")), &p); err != nil {
		t.Fatalf("config/sros2/decision_node.policy.xml: %v", err)
	}
	if p.Version != "0.2.0" {
		t.Errorf("policy version %q, want sros2's 0.2.0", p.Version)
	}
	m := regexp.MustCompile(`(?m)^NODE_NAME = '([^']+)'$`).FindStringSubmatch(read(t, "launch/decision.launch.py"))
	if m == nil {
		t.Fatal("launch/decision.launch.py: no NODE_NAME")
	}
	nodeName := m[1]
	want := wantGrants(t)
	got := map[string]grants{}
	for _, e := range p.Enclaves {
		if _, dup := got[e.Path]; dup {
			t.Errorf("enclave %s is declared twice", e.Path)
		}
		var g grants
		for _, pr := range e.Profiles {
			if pr.NS != "/" || pr.Node != nodeName {
				t.Errorf("enclave %s: profile ns=%q node=%q, want ns=\"/\" node=%q (the launched node)", e.Path, pr.NS, pr.Node, nodeName)
			}
			if len(pr.Actions) > 0 {
				t.Errorf("enclave %s grants actions: the node has none", e.Path)
			}
			for _, tp := range pr.Topics {
				checkQualifiers(t, e.Path, tp.Names, tp.Publish, tp.Subscribe)
				if tp.Publish == "ALLOW" {
					g.Publish = append(g.Publish, tp.Names...)
				}
				if tp.Subscribe == "ALLOW" {
					g.Subscribe = append(g.Subscribe, tp.Names...)
				}
			}
			for _, sv := range pr.Services {
				checkQualifiers(t, e.Path, sv.Names, sv.Reply, sv.Request)
				if sv.Request == "ALLOW" {
					t.Errorf("enclave %s lets the node call %q: it calls no service", e.Path, sv.Names)
				}
				if sv.Reply == "ALLOW" {
					g.Reply = append(g.Reply, sv.Names...)
				}
			}
		}
		g = grants{Publish: sorted(g.Publish), Subscribe: sorted(g.Subscribe), Reply: sorted(g.Reply)}
		got[e.Path] = g
	}
	for path, w := range want {
		g, ok := got[path]
		if !ok {
			t.Errorf("policy has no enclave %s", path)
			continue
		}
		for _, c := range []struct {
			what      string
			got, want []string
		}{{"publish", g.Publish, w.Publish}, {"subscribe", g.Subscribe, w.Subscribe}, {"reply", g.Reply, w.Reply}} {
			if !reflect.DeepEqual(c.got, c.want) {
				t.Errorf("enclave %s %s:\n got  %q\n want %q\n extra %q, missing %q",
					path, c.what, c.got, c.want, difference(c.got, c.want), difference(c.want, c.got))
			}
		}
	}
	for path := range got {
		if _, ok := want[path]; !ok {
			t.Errorf("policy enclave %s is not one this test knows: add what it must grant", path)
		}
	}
}

// checkQualifiers: only ALLOW rules with explicit names. DDS permissions
// treat *, ? and [ as patterns, which would grant more than the node uses.
func checkQualifiers(t *testing.T, enclave string, names []string, quals ...string) {
	t.Helper()
	for _, q := range quals {
		if q != "" && q != "ALLOW" {
			t.Errorf("enclave %s: rule %q on %q: the policy only allows (DENY rules would hide what is granted)", enclave, q, names)
		}
	}
	for _, n := range names {
		if strings.ContainsAny(n, "*?[]") || strings.TrimSpace(n) != n || n == "" {
			t.Errorf("enclave %s: name %q is a pattern or blank, want an exact topic or service name", enclave, n)
		}
	}
}
