package packaging

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd  string // upper case: FROM, RUN, COPY, ...
	args string
}

// stage is a build stage: its name, what it is FROM and its instructions.
type stage struct {
	name, from string
	instrs     []instruction
}

// parseDockerfile splits a Dockerfile into its global ARGs and stages. It
// knows line continuations and comments, enough for this repository's file.
func parseDockerfile(t *testing.T, df string) (globals []instruction, stages []stage) {
	t.Helper()
	var logical []string
	cur := ""
	for _, line := range strings.Split(df, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur == "") {
			continue
		}
		if strings.HasSuffix(trimmed, `\`) {
			cur += strings.TrimSpace(strings.TrimSuffix(trimmed, `\`)) + " "
			continue
		}
		logical = append(logical, cur+trimmed)
		cur = ""
	}
	if cur != "" {
		t.Fatalf("Dockerfile ends in a continuation: %q", cur)
	}
	fromRE := regexp.MustCompile(`^FROM\s+(\S+)(?:\s+AS\s+(\S+))?$`)
	for _, l := range logical {
		cmd, args, _ := strings.Cut(l, " ")
		in := instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			m := fromRE.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("Dockerfile: cannot read %q", l)
			}
			stages = append(stages, stage{name: m[2], from: m[1]})
			continue
		}
		if len(stages) == 0 {
			globals = append(globals, in)
			continue
		}
		stages[len(stages)-1].instrs = append(stages[len(stages)-1].instrs, in)
	}
	return globals, stages
}

func (s stage) has(cmd, re string) bool {
	r := regexp.MustCompile(re)
	for _, in := range s.instrs {
		if in.cmd == cmd && r.MatchString(in.args) {
			return true
		}
	}
	return false
}

// installsMissing reports whether the stage runs ros-install-missing with
// the ROS package pkg.
func (s stage) installsMissing(pkg string) bool {
	return s.has("RUN", `ros-install-missing [\w ]*\b`+regexp.QuoteMeta(pkg)+`\b`)
}

func TestDockerfile(t *testing.T) {
	df := read(t, "Dockerfile")
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(read(t, "go.mod"))
	if goVersion == nil {
		t.Fatal("go.mod has no go directive")
	}
	name := parsePackageXML(t).Name
	globals, stages := parseDockerfile(t, df)
	byName := map[string]stage{}
	for _, s := range stages {
		byName[s.name] = s
	}
	get := func(n string) stage {
		s, ok := byName[n]
		if !ok {
			t.Fatalf("Dockerfile: no stage %q", n)
		}
		return s
	}

	// The official bases by default, each a build argument.
	wantGlobals := map[string]string{
		"ROS_DISTRO": "humble",
		"ROS_IMAGE":  "ros:${ROS_DISTRO}-ros-base",
		"GO_IMAGE":   "golang:" + goVersion[1] + "-bookworm",
	}
	for _, g := range globals {
		k, v, _ := strings.Cut(g.args, "=")
		if want, ok := wantGlobals[k]; ok && g.cmd == "ARG" {
			if v != want {
				t.Errorf("Dockerfile: ARG %s=%s, want %s", k, v, want)
			}
			delete(wantGlobals, k)
		}
	}
	for k, v := range wantGlobals {
		t.Errorf("Dockerfile: no global ARG %s=%s", k, v)
	}
	if s := get("go"); s.from != "${GO_IMAGE}" {
		t.Errorf("Dockerfile: stage go FROM %s, want ${GO_IMAGE}", s.from)
	}
	if s := get("ros"); s.from != "${ROS_IMAGE}" {
		t.Errorf("Dockerfile: stage ros FROM %s, want ${ROS_IMAGE}", s.from)
	}
	// px4_msgs is a placeholder the build context replaces: nothing of its
	// own, and nothing anywhere names a source to download.
	if s := get("px4_msgs"); s.from != "scratch" || len(s.instrs) != 0 {
		t.Errorf("Dockerfile: stage px4_msgs = FROM %s with %d instructions, want an empty scratch stage", s.from, len(s.instrs))
	}
	for _, re := range []string{`\bgit clone\b`, `\bcurl\b`, `\bwget\b`, `(?m)^ADD\s`, `https?://`} {
		if regexp.MustCompile(re).MatchString(df) {
			t.Errorf("Dockerfile downloads something (/%s/): sources come from build contexts", re)
		}
	}
	// Heredocs need BuildKit's newer syntax; podman 4's builder has none.
	if regexp.MustCompile(`(?m)^(RUN|COPY)\b.*<<`).MatchString(df) {
		t.Error("Dockerfile uses a heredoc: podman 4's builder cannot build it")
	}

	// ROS packages come from apt only when the base lacks them.
	ros := get("ros")
	if !ros.has("RUN", `/opt/ros/\$\{ROS_DISTRO\}/share/\$\{pkg\}/package\.xml`) || !ros.has("RUN", `apt-get install`) {
		t.Error("Dockerfile: ros-install-missing does not check /opt/ros/${ROS_DISTRO}/share/PKG before apt-get install")
	}
	for _, s := range stages {
		if s.name != "ros" && s.name != "go" && s.name != "px4_msgs" && s.from != "ros" {
			t.Errorf("Dockerfile: stage %s is FROM %s, want the ros stage", s.name, s.from)
		}
	}

	px4 := get("px4_msgs_install")
	for _, c := range []struct{ what, cmd, re string }{
		{"the px4_msgs context copied in", "COPY", `^--from=px4_msgs \. `},
		{"a source tree built with colcon", "RUN", `<name>px4_msgs</name>.*colcon build .*--install-base /opt/px4_msgs`},
		{"an install tree found by its share/px4_msgs", "RUN", `share/px4_msgs/package\.xml.*cp -a .* /opt/px4_msgs/`},
	} {
		if !px4.has(c.cmd, c.re) {
			t.Errorf("Dockerfile px4_msgs_install: want %s (%s /%s/)", c.what, c.cmd, c.re)
		}
	}

	build := get("build")
	for _, c := range []struct{ what, cmd, re string }{
		{"the Go toolchain copied in", "COPY", `^--from=go /usr/local/go /usr/local/go$`},
		{"rosidl_default_generators (a buildtool_depend)", "RUN", `ros-install-missing .*\brosidl_default_generators\b`},
		{"the repo in a colcon workspace", "COPY", `^\. src/` + name + `$`},
		{"colcon build of the package", "RUN", `colcon build .*--packages-select ` + name},
		{"the package's colcon.meta", "RUN", `--metas src/` + name + `/colcon\.meta`},
	} {
		if !build.has(c.cmd, c.re) {
			t.Errorf("Dockerfile build: want %s (%s /%s/)", c.what, c.cmd, c.re)
		}
	}

	runtime := stages[len(stages)-1]
	for _, c := range []struct{ what, cmd, re string }{
		{"the install copied in", "COPY", `^--from=build /ws/install /ws/install$`},
		{"px4_msgs copied in", "COPY", `^--from=px4_msgs_install /opt/px4_msgs /opt/px4_msgs$`},
		{"an entrypoint sourcing ROS 2", "RUN", `source "/opt/ros/\$\{ROS_DISTRO\}/setup\.bash"`},
		{"an entrypoint sourcing px4_msgs", "RUN", `source /opt/px4_msgs/share/px4_msgs/local_setup\.bash`},
		{"an entrypoint sourcing the install", "RUN", `source /ws/install/setup\.bash`},
		{"the entrypoint", "ENTRYPOINT", `^\["/ghost_entrypoint\.sh"\]$`},
		{"ros2 launch by default", "CMD", `^\["ros2", "launch", "` + name + `", "decision\.launch\.py"\]$`},
		{"SIGINT to stop (ros2 launch abandons the node on SIGTERM)", "STOPSIGNAL", `^SIGINT$`},
	} {
		if !runtime.has(c.cmd, c.re) {
			t.Errorf("Dockerfile runtime: want %s (%s /%s/)", c.what, c.cmd, c.re)
		}
	}
	// What the node needs at run time and the base may lack.
	p := parsePackageXML(t)
	for _, pkg := range []string{"diagnostic_msgs", "rosbag2_storage_mcap"} {
		if pkg == "diagnostic_msgs" && !contains(p.ExecDepend, pkg) {
			t.Errorf("package.xml no longer has exec_depend %s: update the Dockerfile and this test", pkg)
		}
		if !runtime.installsMissing(pkg) {
			t.Errorf("Dockerfile runtime: want ros-install-missing ... %s", pkg)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "launch", "decision.launch.py")); err != nil {
		t.Errorf("the Dockerfile launches decision.launch.py: %v", err)
	}
}

// The test of the parser itself: continuations, comments, globals, stages.
func TestParseDockerfile(t *testing.T) {
	globals, stages := parseDockerfile(t, "# c\nARG A=1\n\nFROM x AS one\nRUN a \\\n  && b\n# inside\nCOPY . /y\nFROM one\nCMD [\"z\"]\n")
	if len(globals) != 1 || globals[0] != (instruction{"ARG", "A=1"}) {
		t.Errorf("globals = %v", globals)
	}
	if len(stages) != 2 || stages[0].name != "one" || stages[0].from != "x" || stages[1].name != "" || stages[1].from != "one" {
		t.Fatalf("stages = %+v", stages)
	}
	if want := []instruction{{"RUN", "a && b"}, {"COPY", ". /y"}}; len(stages[0].instrs) != 2 || stages[0].instrs[0] != want[0] || stages[0].instrs[1] != want[1] {
		t.Errorf("stage one = %+v, want %+v", stages[0].instrs, want)
	}
	if !stages[1].has("CMD", `"z"`) || stages[1].has("RUN", ".") {
		t.Errorf("stage two = %+v", stages[1].instrs)
	}
}

type composeService struct {
	Image       string            `yaml:"image"`
	Build       any               `yaml:"build"`
	NetworkMode string            `yaml:"network_mode"`
	IPC         string            `yaml:"ipc"`
	PullPolicy  string            `yaml:"pull_policy"`
	StopSignal  string            `yaml:"stop_signal"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Entrypoint  []string          `yaml:"entrypoint"`
	Command     any               `yaml:"command"`
}

func (s composeService) command() string {
	switch c := s.Command.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, p := range c {
			parts = append(parts, p.(string))
		}
		return strings.Join(parts, " ")
	}
	return ""
}

func TestCompose(t *testing.T) {
	text := read(t, "compose.yaml")
	var c struct {
		Services map[string]composeService `yaml:"services"`
	}
	if err := yaml.Unmarshal([]byte(text), &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
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
		if s.Environment["ROS_LOCALHOST_ONLY"] != "1" {
			t.Errorf("compose.yaml %s: want ROS_LOCALHOST_ONLY=1", name)
		}
		// The middleware is the user's, Fast DDS (Humble's default) unless
		// they say otherwise, and the same for ghost and its recorder.
		if s.Environment["RMW_IMPLEMENTATION"] != "${RMW_IMPLEMENTATION:-rmw_fastrtps_cpp}" {
			t.Errorf("compose.yaml %s: RMW_IMPLEMENTATION %q, want the caller's, rmw_fastrtps_cpp by default", name, s.Environment["RMW_IMPLEMENTATION"])
		}
	}
	px4 := c.Services["px4-sitl"]
	cmd := px4.command()
	for _, want := range []string{"px4-param\" set UXRCE_DDS_PTCFG 1", "start -t udp -h 127.0.0.1 -p 8888", "exec \"$$PX4_BIN\" -d"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("compose.yaml px4-sitl: command lacks %q", want)
		}
	}
	// Until the participant is localhost-only, the client must not reach the agent.
	if port := px4.Environment["PX4_UXRCE_DDS_PORT"]; port == "" || port == "8888" {
		t.Errorf("compose.yaml px4-sitl: PX4_UXRCE_DDS_PORT %q, want a port the agent does not listen on", port)
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

	// Every variable is documented in the header, and none is nested in
	// another's default (podman-compose 1.0 cannot read that).
	header, _, _ := strings.Cut(text, "\nname:")
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`\$\{(\w+)(:?-[^}]*)?\}`).FindAllStringSubmatch(text, -1) {
		if seen[m[0]] {
			continue
		}
		seen[m[0]] = true
		if !regexp.MustCompile(`(?m)^#\s+` + m[1] + `\s`).MatchString(header) {
			t.Errorf("compose.yaml: ${%s} is not documented in the header", m[1])
		}
		if strings.Contains(m[2], "${") {
			t.Errorf("compose.yaml: nested default in %s", m[0])
		}
	}
}
