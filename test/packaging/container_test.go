package packaging

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
		"ROS_DISTRO": "jazzy",
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
