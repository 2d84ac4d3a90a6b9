package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/msg"
)

// layoutTopics maps the topics the Foxglove layout may use to their types.
var layoutTopics = map[string]string{
	"/state/nav":       "VehicleState",
	"/self_assessment": "BeliefSelfAssessment",
	"/perception/mode": "PerceptionMode",
	"/decisions":       "DecisionRationale",
}

// resolvePath checks a Foxglove message path "/topic.field.field" against
// the ghost message definitions.
func resolvePath(path string) error {
	var topic string
	for tp := range layoutTopics {
		if strings.HasPrefix(path, tp+".") && len(tp) > len(topic) {
			topic = tp
		}
	}
	if topic == "" {
		return &pathError{path, "no known topic"}
	}
	typ := layoutTopics[topic]
	for _, name := range strings.Split(strings.TrimPrefix(path, topic+"."), ".") {
		if typ == "" {
			return &pathError{path, "field of a primitive"}
		}
		spec, err := msg.Definition(typ)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(spec.Fields, func(f msg.Field) bool { return f.Name == name })
		if i < 0 {
			return &pathError{path, typ + " has no field " + name}
		}
		f := spec.Fields[i]
		if f.Array != msg.NotArray {
			return &pathError{path, name + " is an array"}
		}
		typ = ""
		if !f.Type.IsPrimitive() {
			typ = f.Type.Name
		}
	}
	if typ != "" {
		return &pathError{path, "ends at a message, not a value"}
	}
	return nil
}

type pathError struct{ path, msg string }

func (e *pathError) Error() string { return e.path + ": " + e.msg }

func TestFoxgloveLayout(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "config", "foxglove", "ghost.json"))
	if err != nil {
		t.Fatal(err)
	}
	var layout struct {
		ConfigByID map[string]struct {
			Paths []struct {
				Value string `json:"value"`
			} `json:"paths"`
			TopicPath string `json:"topicPath"`
			// Foxglove and Lichtblick read a panel's title under different keys.
			FoxgloveTitle   string `json:"foxglovePanelTitle"`
			LichtblickTitle string `json:"lichtblickPanelTitle"`
		} `json:"configById"`
		Layout json.RawMessage `json:"layout"`
	}
	if err := json.Unmarshal(data, &layout); err != nil {
		t.Fatalf("layout does not parse: %v", err)
	}
	var inTree []string
	var walk func(raw json.RawMessage)
	walk = func(raw json.RawMessage) {
		var id string
		if json.Unmarshal(raw, &id) == nil {
			inTree = append(inTree, id)
			return
		}
		var node map[string]json.RawMessage
		if err := json.Unmarshal(raw, &node); err != nil || node["first"] == nil || node["second"] == nil {
			t.Fatalf("layout node %s is neither a panel id nor a split", raw)
		}
		walk(node["first"])
		walk(node["second"])
	}
	walk(layout.Layout)
	slices.Sort(inTree)
	var ids []string
	for id := range layout.ConfigByID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, inTree) {
		t.Errorf("panels configured %v, placed %v", ids, inTree)
	}
	var have []string
	for id, cfg := range layout.ConfigByID {
		kind := id[:strings.IndexByte(id+"!", '!')]
		if cfg.FoxgloveTitle == "" || cfg.LichtblickTitle != cfg.FoxgloveTitle {
			t.Errorf("%s: title %q for Foxglove, %q for Lichtblick; want one title under both keys", id, cfg.FoxgloveTitle, cfg.LichtblickTitle)
		}
		for _, p := range cfg.Paths {
			if err := resolvePath(p.Value); err != nil {
				t.Errorf("%s: %v", id, err)
			}
			have = append(have, kind+" "+p.Value)
		}
		if cfg.TopicPath != "" {
			if _, ok := layoutTopics[cfg.TopicPath]; !ok {
				t.Errorf("%s: unknown topic %s", id, cfg.TopicPath)
			}
			have = append(have, kind+" "+cfg.TopicPath)
		}
	}
	for _, want := range []string{
		"StateTransitions /decisions.decision.kind",
		"StateTransitions /self_assessment.overall_level",
		"Plot /self_assessment.position_axis_x_std_m",
		"Plot /self_assessment.thresholds_used.position_known_std_m",
		"Plot /self_assessment.thresholds_used.orientation_unknown_std_rad",
		"Plot /self_assessment.velocity_axis_z_std_mps",
		"RawMessages /decisions",
	} {
		if !slices.Contains(have, want) {
			t.Errorf("layout lacks %s", want)
		}
	}
}

func TestResolvePath(t *testing.T) {
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"/decisions.decision.kind", true},
		{"/state/nav.flight.battery_pct", true},
		{"/decisions.decision", false},
		{"/decisions.kind", false},
		{"/state/nav.nav.covariance_15x15", false},
		{"/nowhere.x", false},
		{"/self_assessment.overall_level.x", false},
	} {
		if err := resolvePath(tc.path); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok=%v", tc.path, err, tc.ok)
		}
	}
}
