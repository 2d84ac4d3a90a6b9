package packaging

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// composeFile is what these tests read of a compose file.
type composeFile struct {
	Services map[string]composeService `yaml:"services"`
}

type composeService struct {
	Image       string            `yaml:"image"`
	Build       any               `yaml:"build"`
	NetworkMode string            `yaml:"network_mode"`
	IPC         string            `yaml:"ipc"`
	PullPolicy  string            `yaml:"pull_policy"`
	StopSignal  string            `yaml:"stop_signal"`
	DependsOn   dependsOn         `yaml:"depends_on"`
	Healthcheck *healthcheck      `yaml:"healthcheck"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Entrypoint  []string          `yaml:"entrypoint"`
	Command     any               `yaml:"command"`
}

type healthcheck struct {
	Test     []string `yaml:"test"`
	Interval string   `yaml:"interval"`
	Retries  int      `yaml:"retries"`
}

// dependsOn is depends_on in either of its forms, service to condition: a
// list of services (each to be started) or a map with conditions.
type dependsOn map[string]string

func (d *dependsOn) UnmarshalYAML(n *yaml.Node) error {
	m := dependsOn{}
	switch n.Kind {
	case yaml.SequenceNode:
		var names []string
		if err := n.Decode(&names); err != nil {
			return fmt.Errorf("depends_on: %w", err)
		}
		for _, s := range names {
			m[s] = "service_started"
		}
	case yaml.MappingNode:
		var full map[string]struct {
			Condition string `yaml:"condition"`
		}
		if err := n.Decode(&full); err != nil {
			return fmt.Errorf("depends_on: %w", err)
		}
		for s, c := range full {
			if c.Condition == "" {
				c.Condition = "service_started"
			}
			m[s] = c.Condition
		}
	default:
		return fmt.Errorf("line %d: depends_on is neither a list nor a map", n.Line)
	}
	*d = m
	return nil
}

func (s composeService) command() string {
	switch c := s.Command.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, p := range c {
			parts = append(parts, fmt.Sprint(p))
		}
		return strings.Join(parts, " ")
	}
	return ""
}

// volume is one short-syntax volume: source, target and mode.
type volume struct{ source, target, mode string }

// splitVolume splits "SRC:DST[:MODE]" at the colons outside ${...}, where a
// default value has its own.
func splitVolume(v string) (volume, error) {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(v); i++ {
		switch {
		case strings.HasPrefix(v[i:], "${"):
			depth++
			i++
		case v[i] == '}' && depth > 0:
			depth--
		case v[i] == ':' && depth == 0:
			parts = append(parts, v[start:i])
			start = i + 1
		}
	}
	parts = append(parts, v[start:])
	if depth != 0 || len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return volume{}, fmt.Errorf("volume %q is not SRC:DST[:MODE]", v)
	}
	vol := volume{source: parts[0], target: parts[1]}
	if len(parts) == 3 {
		vol.mode = parts[2]
	}
	return vol, nil
}

// mount returns the service's volume mounted at target.
func (s composeService) mount(t *testing.T, target string) (volume, bool) {
	t.Helper()
	for _, v := range s.Volumes {
		vol, err := splitVolume(v)
		if err != nil {
			t.Error(err)
			continue
		}
		if vol.target == target {
			return vol, true
		}
	}
	return volume{}, false
}

// override applies an override file's service to a base one as compose
// does with several -f: single values replace, environment and depends_on
// merge key by key, volumes merge by target.
func override(t *testing.T, base, o composeService) composeService {
	t.Helper()
	m := base
	for _, f := range []struct {
		dst *string
		src string
	}{
		{&m.Image, o.Image}, {&m.NetworkMode, o.NetworkMode}, {&m.IPC, o.IPC},
		{&m.PullPolicy, o.PullPolicy}, {&m.StopSignal, o.StopSignal},
	} {
		if f.src != "" {
			*f.dst = f.src
		}
	}
	if o.Build != nil {
		m.Build = o.Build
	}
	if o.Healthcheck != nil {
		m.Healthcheck = o.Healthcheck
	}
	if o.Entrypoint != nil {
		m.Entrypoint = o.Entrypoint
	}
	if o.Command != nil {
		m.Command = o.Command
	}
	m.Environment = map[string]string{}
	for _, env := range []map[string]string{base.Environment, o.Environment} {
		for k, v := range env {
			m.Environment[k] = v
		}
	}
	m.DependsOn = dependsOn{}
	for _, d := range []dependsOn{base.DependsOn, o.DependsOn} {
		for k, v := range d {
			m.DependsOn[k] = v
		}
	}
	m.Volumes = nil
	index := map[string]int{}
	for _, v := range append(slices.Clone(base.Volumes), o.Volumes...) {
		vol, err := splitVolume(v)
		if err != nil {
			t.Error(err)
			continue
		}
		if i, ok := index[vol.target]; ok {
			m.Volumes[i] = v
			continue
		}
		index[vol.target] = len(m.Volumes)
		m.Volumes = append(m.Volumes, v)
	}
	return m
}

func loadCompose(t *testing.T, name string) (composeFile, string) {
	t.Helper()
	text := read(t, name)
	var c composeFile
	if err := yaml.Unmarshal([]byte(text), &c); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c, text
}

// gazeboCompose is compose.yaml with compose.gazebo.yaml applied, and the
// override file alone.
func gazeboCompose(t *testing.T) (merged, gz composeFile) {
	t.Helper()
	gz, _ = loadCompose(t, "compose.gazebo.yaml")
	return withOverrides(t, "compose.gazebo.yaml"), gz
}

// withOverrides is compose.yaml with the override files applied in order,
// as compose applies the -f files after the first.
func withOverrides(t *testing.T, names ...string) composeFile {
	t.Helper()
	base, _ := loadCompose(t, "compose.yaml")
	merged := composeFile{Services: map[string]composeService{}}
	for n, s := range base.Services {
		merged.Services[n] = s
	}
	for _, name := range names {
		o, _ := loadCompose(t, name)
		for n, s := range o.Services {
			if b, ok := merged.Services[n]; ok {
				s = override(t, b, s)
			}
			merged.Services[n] = s
		}
	}
	return merged
}

// bagRecord reads a `ros2 bag record` command line: the topics and the QoS
// override file. The line ends at a redirection, a pipe or a background &.
func bagRecord(line string) (topics []string, qos string, err error) {
	_, rest, ok := strings.Cut(line, "ros2 bag record")
	if !ok {
		return nil, "", fmt.Errorf("no ros2 bag record in %q", line)
	}
	takesValue := map[string]bool{"-s": true, "--storage": true, "-o": true, "--output": true, "--qos-profile-overrides-path": true}
	// A command substitution is one word, whatever its spaces.
	rest = regexp.MustCompile(`\$?\$\([^)]*\)`).ReplaceAllString(rest, "SUBST")
	fields := strings.Fields(rest)
	for i := 0; i < len(fields); i++ {
		f := strings.Trim(fields[i], `"'`)
		switch {
		case f == `\`:
		case strings.HasPrefix(f, ">") || strings.HasPrefix(f, "2>") || f == "|" || f == "&":
			return topics, qos, nil
		case strings.HasPrefix(f, "-"):
			if !takesValue[f] {
				continue
			}
			if i+1 == len(fields) {
				return nil, "", fmt.Errorf("%s has no value", f)
			}
			i++
			if f == "--qos-profile-overrides-path" {
				qos = strings.Trim(fields[i], `"'`)
			}
		case strings.HasPrefix(f, "/"):
			topics = append(topics, f)
		default:
			return nil, "", fmt.Errorf("cannot read %q in ros2 bag record", f)
		}
	}
	return topics, qos, nil
}

// scriptBagRecord is the `ros2 bag record` line of a shell script, its
// continuation lines joined.
func scriptBagRecord(script string) (string, error) {
	lines := strings.Split(script, "\n")
	for i, l := range lines {
		if !strings.Contains(l, "ros2 bag record") || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		joined := ""
		for ; i < len(lines); i++ {
			l := strings.TrimSpace(lines[i])
			if !strings.HasSuffix(l, `\`) {
				return joined + l, nil
			}
			joined += strings.TrimSuffix(l, `\`) + " "
		}
		return "", fmt.Errorf("ros2 bag record ends in a continuation")
	}
	return "", fmt.Errorf("no ros2 bag record")
}

func TestBagRecord(t *testing.T) {
	script := "# ros2 bag record in a comment\nros2 bag record -s mcap -o \"$out/bag-$(date +%F %T)\" --qos-profile-overrides-path \"$here/q.yaml\" /a /b \\\n\t/c/d \\\n\t>\"$out/bag.log\" 2>&1 &\n"
	line, err := scriptBagRecord(script)
	if err != nil {
		t.Fatal(err)
	}
	topics, qos, err := bagRecord(line)
	if err != nil || !slices.Equal(topics, []string{"/a", "/b", "/c/d"}) || qos != "$here/q.yaml" {
		t.Errorf("bagRecord(%q) = %v, %q, %v", line, topics, qos, err)
	}
	for _, bad := range []string{"ros2 bag record /a stray", "ros2 bag record -o", "ros2 topic echo /a"} {
		if _, _, err := bagRecord(bad); err == nil {
			t.Errorf("bagRecord(%q) accepted", bad)
		}
	}
	if _, err := scriptBagRecord("x\nros2 bag record /a \\"); err == nil {
		t.Error("a trailing continuation was accepted")
	}
}

func TestSplitVolume(t *testing.T) {
	for _, c := range []struct {
		in   string
		want volume
	}{
		{"a:/b", volume{"a", "/b", ""}},
		{"${X:-/usr/local}:${X:-/usr/local}:ro", volume{"${X:-/usr/local}", "${X:-/usr/local}", "ro"}},
		{"./q.yaml:/q.yaml:ro", volume{"./q.yaml", "/q.yaml", "ro"}},
	} {
		if got, err := splitVolume(c.in); err != nil || got != c.want {
			t.Errorf("splitVolume(%q) = %+v, %v, want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"/only", "a:b:c:d", "${X:-a:b", ":b"} {
		if _, err := splitVolume(bad); err == nil {
			t.Errorf("splitVolume(%q) accepted", bad)
		}
	}
}

func TestOverride(t *testing.T) {
	base := composeService{Image: "a", PullPolicy: "missing", Environment: map[string]string{"K": "1", "L": "2"},
		Volumes: []string{"x:/x", "y:/y"}, DependsOn: dependsOn{"r": "service_healthy"}, Command: "c"}
	o := composeService{Image: "b", Environment: map[string]string{"L": "3"}, Volumes: []string{"z:/y", "w:/w:ro"},
		DependsOn: dependsOn{"g": "service_started"}}
	m := override(t, base, o)
	if m.Image != "b" || m.PullPolicy != "missing" || m.Command != "c" {
		t.Errorf("single values: %+v", m)
	}
	if m.Environment["K"] != "1" || m.Environment["L"] != "3" {
		t.Errorf("environment %v", m.Environment)
	}
	if !slices.Equal(m.Volumes, []string{"x:/x", "z:/y", "w:/w:ro"}) {
		t.Errorf("volumes %v", m.Volumes)
	}
	if len(m.DependsOn) != 2 || m.DependsOn["r"] != "service_healthy" || m.DependsOn["g"] != "service_started" {
		t.Errorf("depends_on %v", m.DependsOn)
	}
	if base.Environment["L"] != "2" {
		t.Error("override changed the base")
	}
}

func TestDependsOnForms(t *testing.T) {
	var c composeFile
	src := "services:\n  a:\n    depends_on: [b]\n  c:\n    depends_on:\n      a:\n        condition: service_healthy\n      b: {}\n"
	if err := yaml.Unmarshal([]byte(src), &c); err != nil {
		t.Fatal(err)
	}
	if c.Services["a"].DependsOn["b"] != "service_started" || c.Services["c"].DependsOn["a"] != "service_healthy" || c.Services["c"].DependsOn["b"] != "service_started" {
		t.Errorf("depends_on = %v, %v", c.Services["a"].DependsOn, c.Services["c"].DependsOn)
	}
	if err := yaml.Unmarshal([]byte("services:\n  a:\n    depends_on: b\n"), &c); err == nil {
		t.Error("a scalar depends_on was accepted")
	}
}

// checkHeader checks that every variable of a compose file is documented
// in its header (the comment before the first key) and that none is nested
// in another's default (podman-compose 1.0 cannot read that).
func checkHeader(t *testing.T, name, text string) {
	t.Helper()
	header := text[:regexp.MustCompile(`(?m)^[a-z]`).FindStringIndex(text)[0]]
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`\$\{(\w+)(:?-[^}]*)?\}`).FindAllStringSubmatch(text, -1) {
		if seen[m[0]] {
			continue
		}
		seen[m[0]] = true
		if !regexp.MustCompile(`(?m)^#\s+` + m[1] + `\s`).MatchString(header) {
			t.Errorf("%s: ${%s} is not documented in the header", name, m[1])
		}
		if strings.Contains(m[2], "${") {
			t.Errorf("%s: nested default in %s", name, m[0])
		}
	}
	if len(seen) == 0 {
		t.Errorf("%s: no variables found; the check reads nothing", name)
	}
}

// registryImages are the images a compose file may pull, the official ones
// its header names; every other image is local (pull_policy: never).
var registryImages = []string{"ros:jazzy-ros-base", "ros:humble-ros-base"}

// checkImages checks every service's image: a variable with a default
// (or a fixed name), never "latest", and pulled only when it is one of
// registryImages.
func checkImages(t *testing.T, name string, c composeFile) {
	t.Helper()
	for svc, s := range c.Services {
		img := s.Image
		if m := regexp.MustCompile(`^\$\{\w+:-([^}]+)\}$`).FindStringSubmatch(img); m != nil {
			img = m[1]
		}
		if img == "" || strings.Contains(img, "$") {
			t.Errorf("%s %s: image %q has no plain default", name, svc, s.Image)
			continue
		}
		if strings.HasSuffix(img, ":latest") {
			t.Errorf("%s %s: image %q is latest", name, svc, img)
		}
		if s.PullPolicy != "never" && !slices.Contains(registryImages, img) {
			t.Errorf("%s %s: image %q may be pulled (pull_policy %q); only %v come from a registry", name, svc, img, s.PullPolicy, registryImages)
		}
	}
}

// checkStartOrder checks depends_on against the order the services must
// start in: every dependency starts earlier, and the edges in want exist
// with their conditions.
func checkStartOrder(t *testing.T, name string, c composeFile, order []string, want map[[2]string]string) {
	t.Helper()
	pos := map[string]int{}
	for i, s := range order {
		pos[s] = i
	}
	for svc, s := range c.Services {
		if _, ok := pos[svc]; !ok {
			t.Errorf("%s: service %s is not in the start order %v", name, svc, order)
		}
		for dep := range s.DependsOn {
			if _, ok := c.Services[dep]; !ok {
				t.Errorf("%s %s: depends on %s, which is not a service", name, svc, dep)
			} else if pos[dep] >= pos[svc] {
				t.Errorf("%s %s: depends on %s, which must start after it (%v)", name, svc, dep, order)
			}
		}
	}
	for edge, cond := range want {
		if got := c.Services[edge[0]].DependsOn[edge[1]]; got != cond {
			t.Errorf("%s %s: depends_on %s condition %q, want %q", name, edge[0], edge[1], got, cond)
		}
	}
}

// checkRecorder checks the recorder: the topics and the QoS override file
// of test/sitl/gps_loss.sh, and a healthcheck that passes once rosbag2 has
// subscribed to the topics verify needs.
func checkRecorder(t *testing.T, name string, c composeFile) {
	t.Helper()
	line, err := scriptBagRecord(read(t, "test/sitl/gps_loss.sh"))
	if err != nil {
		t.Fatalf("test/sitl/gps_loss.sh: %v", err)
	}
	scriptTopics, scriptQoS, err := bagRecord(line)
	if err != nil || len(scriptTopics) == 0 || scriptQoS == "" {
		t.Fatalf("test/sitl/gps_loss.sh: ros2 bag record: topics %v, QoS %q, %v", scriptTopics, scriptQoS, err)
	}
	rec := c.Services["recorder"]
	topics, qos, err := bagRecord(rec.command())
	if err != nil {
		t.Fatalf("%s recorder: %v", name, err)
	}
	if a, b := slices.Sorted(slices.Values(topics)), slices.Sorted(slices.Values(scriptTopics)); !slices.Equal(a, b) {
		t.Errorf("%s recorder: topics %v, test/sitl/gps_loss.sh records %v", name, a, b)
	}
	// The same QoS file as the script's, mounted where the command reads it.
	if qos == "" {
		t.Fatalf("%s recorder: no --qos-profile-overrides-path", name)
	}
	vol, ok := rec.mount(t, qos)
	if !ok {
		t.Fatalf("%s recorder: nothing mounted at %s", name, qos)
	}
	if want := "./test/sitl/" + filepath.Base(scriptQoS); vol.source != want || vol.mode != "ro" {
		t.Errorf("%s recorder: %s mounted from %q (%q), want %s read-only", name, qos, vol.source, vol.mode, want)
	}
	qosText := read(t, filepath.Join("test/sitl", filepath.Base(scriptQoS)))
	var profiles map[string]map[string]any
	if err := yaml.Unmarshal([]byte(qosText), &profiles); err != nil || len(profiles) == 0 {
		t.Fatalf("%s: %d profiles, %v", scriptQoS, len(profiles), err)
	}
	for topic := range profiles {
		if !slices.Contains(topics, topic) {
			t.Errorf("%s recorder: QoS override for %s, which it does not record", name, topic)
		}
	}

	// Healthy once subscribed to what verify reads, from the log the
	// command writes.
	hc := rec.Healthcheck
	if hc == nil || len(hc.Test) != 2 || hc.Test[0] != "CMD-SHELL" {
		t.Fatalf("%s recorder: healthcheck %+v, want a CMD-SHELL test", name, hc)
	}
	logFile := regexp.MustCompile(`>\s*>\(tee (\S+)\) 2>&1$`).FindStringSubmatch(strings.TrimSpace(rec.command()))
	if logFile == nil {
		t.Fatalf("%s recorder: its output does not go to a log file through tee", name)
	}
	if !strings.Contains(rec.command(), "exec ros2 bag record") {
		t.Errorf("%s recorder: rosbag2 is not exec'd: the stop signal would reach the shell", name)
	}
	checked := map[string]bool{}
	for _, m := range regexp.MustCompile(`grep -q "Subscribed to topic '([^']+)'" (\S+)`).FindAllStringSubmatch(hc.Test[1], -1) {
		checked[m[1]] = true
		if m[2] != logFile[1] {
			t.Errorf("%s recorder: healthcheck reads %s, the log is %s", name, m[2], logFile[1])
		}
		if !slices.Contains(topics, m[1]) {
			t.Errorf("%s recorder: healthcheck waits for %s, which it does not record", name, m[1])
		}
	}
	for _, topic := range []string{"/decisions", "/state/nav", "/self_assessment"} {
		if !checked[topic] {
			t.Errorf("%s recorder: healthcheck does not wait for %s", name, topic)
		}
	}
	if hc.Retries == 0 || hc.Interval == "" {
		t.Errorf("%s recorder: healthcheck interval %q retries %d", name, hc.Interval, hc.Retries)
	}
}

func TestCompose(t *testing.T) {
	c, text := loadCompose(t, "compose.yaml")
	for _, name := range []string{"px4-sitl", "xrce-agent", "ghost", "recorder"} {
		s, ok := c.Services[name]
		if !ok {
			t.Errorf("compose.yaml: no service %s", name)
			continue
		}
		// All traffic stays on this host's loopback.
		if s.NetworkMode != "host" {
			t.Errorf("compose.yaml %s: network_mode %q, want host", name, s.NetworkMode)
		}
		if s.StopSignal != "SIGINT" {
			t.Errorf("compose.yaml %s: stop_signal %q, want SIGINT", name, s.StopSignal)
		}
		if s.Build != nil {
			t.Errorf("compose.yaml %s: builds something; every service runs an image or a mounted build", name)
		}
	}
	for _, name := range []string{"ghost", "recorder"} {
		s := c.Services[name]
		if s.Image != "${GHOST_IMAGE:-ghost}" || s.PullPolicy != "never" {
			t.Errorf("compose.yaml %s: image %q pull_policy %q, want the local ${GHOST_IMAGE:-ghost}, never pulled", name, s.Image, s.PullPolicy)
		}
		// Jazzy's way; its deprecated predecessor is compose.humble.yaml's.
		if s.Environment["ROS_AUTOMATIC_DISCOVERY_RANGE"] != "LOCALHOST" {
			t.Errorf("compose.yaml %s: want ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST", name)
		}
		if v, ok := s.Environment["ROS_LOCALHOST_ONLY"]; ok {
			t.Errorf("compose.yaml %s: ROS_LOCALHOST_ONLY=%q, which Jazzy warns is deprecated", name, v)
		}
		// The range alone leaves Cyclone DDS on the host's first interface,
		// where the agent's localhost-only participant does not answer.
		if uri := s.Environment["CYCLONEDDS_URI"]; !strings.HasPrefix(uri, "${CYCLONEDDS_URI:-") ||
			!strings.Contains(uri, `<Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces>`) {
			t.Errorf("compose.yaml %s: CYCLONEDDS_URI %q, want the caller's, loopback as the one interface by default", name, uri)
		}
		// The middleware is the user's, Fast DDS (Jazzy's and Humble's default) unless
		// they say otherwise, and the same for ghost and its recorder.
		if s.Environment["RMW_IMPLEMENTATION"] != "${RMW_IMPLEMENTATION:-rmw_fastrtps_cpp}" {
			t.Errorf("compose.yaml %s: RMW_IMPLEMENTATION %q, want the caller's, rmw_fastrtps_cpp by default", name, s.Environment["RMW_IMPLEMENTATION"])
		}
	}
	px4 := c.Services["px4-sitl"]
	cmd := px4.command()
	for _, want := range []string{"px4-param\" set UXRCE_DDS_PTCFG 1", "px4-param\" set UXRCE_DDS_SYNCT 0", "start -t udp -h 127.0.0.1 -p 8888", "exec \"$$PX4_BIN\" -d"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("compose.yaml px4-sitl: command lacks %q", want)
		}
	}
	// Until the participant is localhost-only, the client must not reach the agent.
	if port := px4.Environment["PX4_UXRCE_DDS_PORT"]; port == "" || port == "8888" {
		t.Errorf("compose.yaml px4-sitl: PX4_UXRCE_DDS_PORT %q, want a port the agent does not listen on", port)
	}
	if px4.Environment["PX4_SIMULATOR"] != "sihsim" || px4.Environment["PX4_SIM_MODEL"] != "sihsim_quadx" {
		t.Errorf("compose.yaml px4-sitl: PX4_SIMULATOR %q PX4_SIM_MODEL %q, want SIH", px4.Environment["PX4_SIMULATOR"], px4.Environment["PX4_SIM_MODEL"])
	}
	if !strings.Contains(c.Services["ghost"].command(), "input_source:=px4") {
		t.Error("compose.yaml ghost: not launched with input_source:=px4")
	}
	// The default policy named in the image is one the package installs.
	if m := regexp.MustCompile(`/ws/install/ghost/share/ghost/(config/\S+\.yaml)`).FindStringSubmatch(c.Services["ghost"].command()); m != nil {
		if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
			t.Errorf("compose.yaml ghost: %v", err)
		}
	}

	// ghost decides on PX4's data: PX4 starts once the recorder listens.
	checkStartOrder(t, "compose.yaml", c, []string{"xrce-agent", "ghost", "recorder", "px4-sitl"}, map[[2]string]string{
		{"ghost", "xrce-agent"}:  "service_started",
		{"recorder", "ghost"}:    "service_started",
		{"px4-sitl", "recorder"}: "service_healthy",
	})
	checkRecorder(t, "compose.yaml", c)
	checkImages(t, "compose.yaml", c)
	checkHeader(t, "compose.yaml", text)
}

// px4RCEnv are the environment variables PX4 v1.15's POSIX startup scripts
// read (ROMFS/px4fmu_common/init.d-posix: rcS, px4-rc.simulator,
// px4-rc.mavlink and the gz airframes).
var px4RCEnv = []string{
	"PX4_SIM_MODEL", "PX4_SYS_AUTOSTART", "PX4_SIMULATOR", "PX4_SIM_SPEED_FACTOR",
	"PX4_UXRCE_DDS_NS", "PX4_UXRCE_DDS_PORT", "PX4_HOME_LAT", "PX4_HOME_LON",
	"PX4_SIM_HOSTNAME", "PX4_SIM_HOST_ADDR", "PX4_GZ_STANDALONE", "PX4_GZ_WORLD",
	"PX4_GZ_WORLDS", "PX4_GZ_MODEL_NAME", "PX4_GZ_MODEL_POSE", "PX4_GZ_SIM_RENDER_ENGINE",
	"HEADLESS",
}

// px4Airframes are PX4 v1.15's POSIX airframes by SYS_AUTOSTART, as its
// files are named (init.d-posix/airframes/4001_gz_x500): the model a
// PX4_SIM_MODEL names must be the airframe PX4_SYS_AUTOSTART starts.
var px4Airframes = map[string]string{"4001": "gz_x500", "10040": "sihsim_quadx"}

// gzEnv are the environment variables the Gazebo Harmonic libraries read
// that the compose files may set: gz-sim 8, gz-tools 2 (its `gz` command)
// and gz-transport 13.
var gzEnv = []string{
	"GZ_SIM_RESOURCE_PATH", "GZ_SIM_SERVER_CONFIG_PATH", "GZ_SIM_SYSTEM_PLUGIN_PATH",
	"GZ_SIM_PHYSICS_ENGINE_PATH", "GZ_SIM_RENDER_ENGINE_PATH",
	"GZ_CONFIG_PATH",
	"GZ_IP", "GZ_PARTITION", "GZ_RELAY", "GZ_DISCOVERY_MULTICAST_IP", "GZ_VERBOSE",
}

func TestComposeGazebo(t *testing.T) {
	merged, gz := gazeboCompose(t)
	text := read(t, "compose.gazebo.yaml")
	if len(gz.Services) != 2 || gz.Services["gazebo"].Image == "" || gz.Services["px4-sitl"].Image == "" {
		t.Errorf("compose.gazebo.yaml: services %v, want gazebo and an override of px4-sitl's image", slices.Sorted(func(yield func(string) bool) {
			for n := range gz.Services {
				if !yield(n) {
					return
				}
			}
		}))
	}
	base, _ := loadCompose(t, "compose.yaml")
	for name := range base.Services {
		if _, ok := merged.Services[name]; !ok {
			t.Errorf("compose.gazebo.yaml: service %s of compose.yaml is gone", name)
		}
	}

	g := merged.Services["gazebo"]
	if g.NetworkMode != "host" || g.StopSignal != "SIGINT" || g.Build != nil {
		t.Errorf("gazebo: network_mode %q stop_signal %q build %v, want host, SIGINT and no build", g.NetworkMode, g.StopSignal, g.Build)
	}
	// The server alone, the world running from the start, a world of the
	// mounted PX4-gazebo-models.
	gcmd := g.command()
	if !regexp.MustCompile(`"\$\$gz" sim -s -r\b`).MatchString(gcmd) {
		t.Errorf("gazebo: command %q does not run gz sim -s -r", gcmd)
	}
	world := regexp.MustCompile(`"(/gz_models/worlds/)\$\$GZ_WORLD\.sdf"`).FindStringSubmatch(gcmd)
	if world == nil {
		t.Errorf("gazebo: command %q does not load /gz_models/worlds/$GZ_WORLD.sdf", gcmd)
	}
	models, ok := g.mount(t, "/gz_models")
	if !ok || models.mode != "ro" || !strings.HasPrefix(models.source, "${GZ_MODELS:-") {
		t.Errorf("gazebo: /gz_models mount %+v, want GZ_MODELS read-only", models)
	}
	for _, p := range strings.Split(g.Environment["GZ_SIM_RESOURCE_PATH"], ":") {
		if !strings.HasPrefix(p, "/gz_models/") {
			t.Errorf("gazebo: GZ_SIM_RESOURCE_PATH has %q, outside the models mount", p)
		}
	}
	for _, want := range []string{"/gz_models/models", "/gz_models/worlds"} {
		if !slices.Contains(strings.Split(g.Environment["GZ_SIM_RESOURCE_PATH"], ":"), want) {
			t.Errorf("gazebo: GZ_SIM_RESOURCE_PATH %q lacks %s", g.Environment["GZ_SIM_RESOURCE_PATH"], want)
		}
	}
	if g.Environment["GZ_SIM_SERVER_CONFIG_PATH"] != "/gz_models/server.config" {
		t.Errorf("gazebo: GZ_SIM_SERVER_CONFIG_PATH %q, want PX4's /gz_models/server.config", g.Environment["GZ_SIM_SERVER_CONFIG_PATH"])
	}
	// Variables of our own are read by the command.
	for k := range g.Environment {
		if strings.HasPrefix(k, "GZ_") && !slices.Contains(gzEnv, k) {
			if !strings.Contains(gcmd, "$$"+k) {
				t.Errorf("gazebo: %s is neither read by Gazebo nor by the command", k)
			}
		}
	}

	p := merged.Services["px4-sitl"]
	// Every PX4_ variable is one PX4's scripts read, or PX4_BIN, which the
	// service's own command reads.
	for k := range p.Environment {
		switch {
		case k == "PX4_BIN":
			if !strings.Contains(p.command(), "$$PX4_BIN") {
				t.Error("px4-sitl: PX4_BIN is set but not read")
			}
		case strings.HasPrefix(k, "PX4_") || k == "HEADLESS":
			if !slices.Contains(px4RCEnv, k) {
				t.Errorf("px4-sitl: %s is not read by PX4's startup scripts", k)
			}
		case strings.HasPrefix(k, "GZ_"):
			if !slices.Contains(gzEnv, k) {
				t.Errorf("px4-sitl: %s is not read by Gazebo's libraries", k)
			}
		}
	}
	env := p.Environment
	// px4-rc.simulator takes SIH when PX4_SIMULATOR is sihsim, whatever
	// the model: compose.yaml's value must be replaced.
	for k, want := range map[string]string{"PX4_SIMULATOR": "gz", "PX4_GZ_STANDALONE": "1", "HEADLESS": "1"} {
		if env[k] != want {
			t.Errorf("px4-sitl: %s=%q, want %q", k, env[k], want)
		}
	}
	if model, ok := px4Airframes[env["PX4_SYS_AUTOSTART"]]; !ok || model != env["PX4_SIM_MODEL"] || !strings.HasPrefix(model, "gz_") {
		t.Errorf("px4-sitl: PX4_SYS_AUTOSTART %q and PX4_SIM_MODEL %q are not the same Gazebo airframe", env["PX4_SYS_AUTOSTART"], env["PX4_SIM_MODEL"])
	}
	if env["PX4_GZ_WORLD"] == "" || env["PX4_GZ_WORLD"] != g.Environment["GZ_WORLD"] {
		t.Errorf("px4-sitl: PX4_GZ_WORLD %q, gazebo loads GZ_WORLD %q: PX4 spawns in a world that is not there", env["PX4_GZ_WORLD"], g.Environment["GZ_WORLD"])
	}
	// The two find each other over gz-transport on loopback, in one partition.
	for _, k := range []string{"GZ_IP", "GZ_PARTITION"} {
		if env[k] == "" || env[k] != g.Environment[k] {
			t.Errorf("%s: px4-sitl %q, gazebo %q, want the same", k, env[k], g.Environment[k])
		}
	}
	if g.Environment["GZ_IP"] != "127.0.0.1" {
		t.Errorf("gazebo: GZ_IP %q, want 127.0.0.1", g.Environment["GZ_IP"])
	}
	// The Gazebo prefix, where one is mounted, is at its own path in both
	// (Gazebo's command files name it), and its libraries are found.
	for _, name := range []string{"gazebo", "px4-sitl"} {
		s := merged.Services[name]
		found := false
		for _, v := range s.Volumes {
			vol, err := splitVolume(v)
			if err != nil || !strings.HasPrefix(vol.source, "${GZ_PREFIX:-") {
				continue
			}
			found = true
			if vol.target != vol.source || vol.mode != "ro" {
				t.Errorf("%s: GZ_PREFIX mounted as %q, want read-only at its own path", name, v)
			}
			if s.Environment["LD_LIBRARY_PATH"] != vol.target+"/lib" {
				t.Errorf("%s: LD_LIBRARY_PATH %q, want %s/lib", name, s.Environment["LD_LIBRARY_PATH"], vol.target)
			}
		}
		if !found {
			t.Errorf("%s: GZ_PREFIX is not mounted", name)
		}
		if s.Image != "${GZ_IMAGE:-gz-harmonic}" {
			t.Errorf("%s: image %q, want ${GZ_IMAGE:-gz-harmonic} (PX4 with gz_bridge links gz-transport)", name, s.Image)
		}
	}
	if px4Build, ok := p.mount(t, "/px4"); !ok || px4Build.mode != "ro" {
		t.Errorf("px4-sitl: PX4's build is no longer mounted at /px4: %+v", px4Build)
	}

	checkStartOrder(t, "compose.yaml + compose.gazebo.yaml", merged,
		[]string{"gazebo", "xrce-agent", "ghost", "recorder", "px4-sitl"}, map[[2]string]string{
			{"px4-sitl", "gazebo"}:   "service_started",
			{"px4-sitl", "recorder"}: "service_healthy",
			{"recorder", "ghost"}:    "service_started",
		})
	checkRecorder(t, "compose.yaml + compose.gazebo.yaml", merged)
	checkImages(t, "compose.yaml + compose.gazebo.yaml", merged)
	checkHeader(t, "compose.gazebo.yaml", text)
	// The header's build command names the Containerfile that exists.
	if m := regexp.MustCompile(`docker build -t gz-harmonic -f (\S+)`).FindStringSubmatch(text); m == nil {
		t.Error("compose.gazebo.yaml: the header does not say how to build gz-harmonic")
	} else if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
		t.Errorf("compose.gazebo.yaml: %v", err)
	}
}

func TestGazeboContainerfiles(t *testing.T) {
	// The image with internet: Gazebo's Ubuntu packages on the official
	// ROS image of the distro given, Jazzy's by default.
	df := read(t, "docker/gz-harmonic.Containerfile")
	globals, stages := parseDockerfile(t, df)
	if len(stages) != 1 || stages[0].from != "${ROS_IMAGE}" {
		t.Fatalf("gz-harmonic.Containerfile: stages %+v, want one FROM ${ROS_IMAGE}", stages)
	}
	for _, want := range []instruction{{"ARG", "ROS_DISTRO=jazzy"}, {"ARG", "ROS_IMAGE=ros:${ROS_DISTRO}-ros-base"}} {
		if !slices.Contains(globals, want) {
			t.Errorf("gz-harmonic.Containerfile: no %s %s in %v", want.cmd, want.args, globals)
		}
	}
	s := stages[0]
	for _, c := range []struct{ what, re string }{
		{"the repository's key in a keyring of its own", `packages\.osrfoundation\.org/gazebo\.gpg.*-o /usr/share/keyrings/(\S+\.gpg)`},
		{"the source signed by that keyring", `signed-by=/usr/share/keyrings/\S+\.gpg\] https://packages\.osrfoundation\.org/gazebo/ubuntu-stable \$\(lsb_release -cs\) main`},
		{"gz-harmonic installed", `apt-get install -y --no-install-recommends gz-harmonic\b`},
		{"apt lists removed", `rm -rf /var/lib/apt/lists/\*`},
	} {
		if !s.has("RUN", c.re) {
			t.Errorf("gz-harmonic.Containerfile: want %s (/%s/)", c.what, c.re)
		}
	}
	if !s.has("RUN", `^gz sim --versions$`) {
		t.Error("gz-harmonic.Containerfile: the build does not check that gz sim runs")
	}

	// The stand-in: Debian, runtime libraries only, Gazebo mounted.
	sf := read(t, "test/container/gz.Containerfile")
	_, stages = parseDockerfile(t, sf)
	if len(stages) != 1 || stages[0].from != "${BASE}" {
		t.Fatalf("gz.Containerfile: stages %+v, want one FROM ${BASE}", stages)
	}
	var install string
	for _, in := range stages[0].instrs {
		if in.cmd == "RUN" && strings.Contains(in.args, "apt-get install") {
			install = in.args
		}
	}
	pkgs := strings.Fields(install)
	if !slices.Contains(pkgs, "ruby") {
		t.Error("gz.Containerfile: no ruby, which the gz command is written in")
	}
	for _, p := range pkgs {
		if strings.HasSuffix(p, "-dev") || strings.HasPrefix(p, "gz-") || strings.HasPrefix(p, "libgz-") {
			t.Errorf("gz.Containerfile: installs %s; the stand-in has runtime libraries, Gazebo is mounted", p)
		}
	}
}

func TestSitlScriptSelectsTheGazeboOverride(t *testing.T) {
	sh := read(t, "test/container/sitl.sh")
	m := regexp.MustCompile(`(?s)\ngz\)\n(.*?);;`).FindStringSubmatch(sh)
	if m == nil || !strings.Contains(m[1], `files+=(-f "$repo/compose.gazebo.yaml")`) {
		t.Error("sitl.sh: SIM=gz does not add compose.gazebo.yaml")
	}
	if !strings.Contains(sh, `SIM="${SIM:-sih}"`) {
		t.Error("sitl.sh: SIM does not default to sih")
	}
	if strings.Contains(sh, `-f "$repo/compose.yaml" -p`) {
		t.Error("sitl.sh: a compose call names compose.yaml alone, whatever SIM says")
	}
}

// TestComposeHumble: compose.humble.yaml changes the images and the
// loopback variable for Humble and nothing else, and Gazebo's override
// given after it still runs PX4 in Gazebo's image.
func TestComposeHumble(t *testing.T) {
	base, _ := loadCompose(t, "compose.yaml")
	humble, text := loadCompose(t, "compose.humble.yaml")
	merged := withOverrides(t, "compose.humble.yaml")
	wantImage := map[string]string{
		"px4-sitl":   "${PX4_IMAGE:-ros:humble-ros-base}",
		"xrce-agent": "${XRCE_AGENT_IMAGE:-ros:humble-ros-base}",
		"ghost":      "${GHOST_IMAGE:-ghost:humble}",
		"recorder":   "${GHOST_IMAGE:-ghost:humble}",
	}
	for name, s := range humble.Services {
		b, ok := base.Services[name]
		if !ok {
			t.Errorf("compose.humble.yaml: service %s is not compose.yaml's", name)
			continue
		}
		if s.Image != wantImage[name] {
			t.Errorf("compose.humble.yaml %s: image %q, want %q", name, s.Image, wantImage[name])
		}
		m := merged.Services[name]
		// Everything but the image and the loopback settings stays compose.yaml's.
		m.Image, b.Image = "", ""
		env, benv := maps.Clone(m.Environment), maps.Clone(b.Environment)
		delete(env, "ROS_LOCALHOST_ONLY")
		delete(env, "CYCLONEDDS_URI")
		delete(benv, "CYCLONEDDS_URI")
		m.Environment, b.Environment = env, benv
		// Compose makes no difference between an empty map and none.
		for _, svc := range []*composeService{&m, &b} {
			if len(svc.Environment) == 0 {
				svc.Environment = nil
			}
			if len(svc.DependsOn) == 0 {
				svc.DependsOn = nil
			}
		}
		if !reflect.DeepEqual(m, b) {
			t.Errorf("compose.humble.yaml %s: changes more than the image and ROS_LOCALHOST_ONLY:\n got %+v\nwant %+v", name, m, b)
		}
	}
	if len(humble.Services) != len(wantImage) {
		t.Errorf("compose.humble.yaml: %d services, want %d", len(humble.Services), len(wantImage))
	}
	for _, name := range []string{"ghost", "recorder"} {
		env := merged.Services[name].Environment
		if v := env["ROS_LOCALHOST_ONLY"]; v != "1" {
			t.Errorf("compose.yaml + compose.humble.yaml %s: ROS_LOCALHOST_ONLY %q, want 1 (Humble reads no discovery range)", name, v)
		}
		// Humble's Cyclone DDS is on loopback already and refuses it twice.
		if v := env["CYCLONEDDS_URI"]; v != "${CYCLONEDDS_URI:-}" {
			t.Errorf("compose.yaml + compose.humble.yaml %s: CYCLONEDDS_URI %q, want none by default", name, v)
		}
	}
	checkImages(t, "compose.yaml + compose.humble.yaml", merged)
	checkHeader(t, "compose.humble.yaml", text)

	gz, _ := loadCompose(t, "compose.gazebo.yaml")
	all := withOverrides(t, "compose.humble.yaml", "compose.gazebo.yaml")
	if got, want := all.Services["px4-sitl"].Image, gz.Services["px4-sitl"].Image; got != want {
		t.Errorf("compose.yaml + compose.humble.yaml + compose.gazebo.yaml px4-sitl: image %q, want Gazebo's %q", got, want)
	}
}
