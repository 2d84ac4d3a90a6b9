package packaging

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// root is the repository root, relative to this package.
const root = "../.."

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return string(b)
}

type packageXML struct {
	XMLName     xml.Name `xml:"package"`
	Format      string   `xml:"format,attr"`
	Name        string   `xml:"name"`
	Version     string   `xml:"version"`
	Description string   `xml:"description"`
	License     []string `xml:"license"`
	Maintainers []struct {
		Email string `xml:"email,attr"`
		Name  string `xml:",chardata"`
	} `xml:"maintainer"`
	BuildtoolDepend []string `xml:"buildtool_depend"`
	Depend          []string `xml:"depend"`
	ExecDepend      []string `xml:"exec_depend"`
	MemberOfGroup   []string `xml:"member_of_group"`
	BuildType       string   `xml:"export>build_type"`
}

func parsePackageXML(t *testing.T) packageXML {
	t.Helper()
	var p packageXML
	if err := xml.Unmarshal([]byte(read(t, "package.xml")), &p); err != nil {
		t.Fatalf("package.xml: %v", err)
	}
	return p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}

func TestPackageXML(t *testing.T) {
	p := parsePackageXML(t)
	checks := []struct {
		what string
		ok   bool
	}{
		{"format 3", p.Format == "3"},
		{"name ghost", p.Name == "ghost"},
		{"version 0.1.0", p.Version == "0.1.0"},
		{"a description", strings.TrimSpace(p.Description) != ""},
		{"license Apache-2.0", reflect.DeepEqual(p.License, []string{"Apache-2.0"})},
		{"a maintainer with an email", len(p.Maintainers) > 0 && strings.Contains(p.Maintainers[0].Email, "@")},
		{"build type ament_cmake", p.BuildType == "ament_cmake"},
		{"member of rosidl_interface_packages", contains(p.MemberOfGroup, "rosidl_interface_packages")},
	}
	for _, dep := range []string{"ament_cmake", "rosidl_default_generators"} {
		checks = append(checks, struct {
			what string
			ok   bool
		}{"buildtool_depend " + dep, contains(p.BuildtoolDepend, dep)})
	}
	for _, dep := range []string{"rosidl_default_runtime", "diagnostic_msgs", "launch", "launch_ros", "ament_index_python"} {
		checks = append(checks, struct {
			what string
			ok   bool
		}{"exec_depend " + dep, contains(p.ExecDepend, dep)})
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("package.xml: want %s", c.what)
		}
	}
}

// cmakeList returns the items of `set(<name> ...)` in CMakeLists.txt.
func cmakeList(t *testing.T, cmake, name string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?s)set\(` + regexp.QuoteMeta(name) + `\s+(.*?)\)`).FindStringSubmatch(cmake)
	if m == nil {
		t.Fatalf("CMakeLists.txt: no set(%s ...)", name)
	}
	var items []string
	for _, f := range strings.Fields(m[1]) {
		items = append(items, strings.Trim(f, `"`))
	}
	return items
}

func TestCMakeListsMessages(t *testing.T) {
	cmake := read(t, "CMakeLists.txt")
	listed := cmakeList(t, cmake, "msg_files")
	files, err := filepath.Glob(filepath.Join(root, "msg", "*.msg"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no msg/*.msg files: %v", err)
	}
	var want []string
	for _, f := range files {
		want = append(want, "msg/"+filepath.Base(f))
	}
	sort.Strings(want)
	got := append([]string(nil), listed...)
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CMakeLists.txt msg_files = %q\nwant every msg/*.msg = %q", got, want)
	}
	if !strings.Contains(cmake, "rosidl_generate_interfaces(${PROJECT_NAME} ${msg_files})") {
		t.Error("CMakeLists.txt does not generate the interfaces from msg_files")
	}
}

// cmakeExecutable checks how CMakeLists.txt builds and installs the node
// and returns the installed path relative to the install prefix.
func cmakeExecutable(t *testing.T) string {
	t.Helper()
	cmake := read(t, "CMakeLists.txt")
	p := parsePackageXML(t)
	if m := regexp.MustCompile(`project\((\w+)\)`).FindStringSubmatch(cmake); m == nil || m[1] != p.Name {
		t.Fatalf("CMakeLists.txt project() = %v, want package.xml name %q", m, p.Name)
	}
	bin := regexp.MustCompile(`set\(GHOST_DECISION_NODE "\$\{CMAKE_CURRENT_BINARY_DIR\}/(?:[\w-]+/)?(\w+)"\)`).FindStringSubmatch(cmake)
	if bin == nil {
		t.Fatal("CMakeLists.txt: GHOST_DECISION_NODE not set to a file in the build directory")
	}
	build := regexp.MustCompile(`build -tags rclgo .*\n\s*-o "\$\{GHOST_DECISION_NODE\}" \./cmd/(\w+)`).FindStringSubmatch(cmake)
	if build == nil {
		t.Fatal("CMakeLists.txt: no `go build -tags rclgo ... -o ${GHOST_DECISION_NODE} ./cmd/...`")
	}
	if !regexp.MustCompile(`install\(PROGRAMS "\$\{GHOST_DECISION_NODE\}" DESTINATION lib/\$\{PROJECT_NAME\}\)`).MatchString(cmake) {
		t.Fatal("CMakeLists.txt: the node is not installed to lib/${PROJECT_NAME}")
	}
	for _, dir := range []string{"launch", "config"} {
		if !regexp.MustCompile(`install\(DIRECTORY [^)]*\b` + dir + `\b[^)]*DESTINATION share/\$\{PROJECT_NAME\}\)`).MatchString(cmake) {
			t.Errorf("CMakeLists.txt: %s/ is not installed to share/${PROJECT_NAME}", dir)
		}
	}
	for _, want := range []string{"add_dependencies(decision_node ${PROJECT_NAME}", "ament_export_dependencies(rosidl_default_runtime)", "ament_package()", "CGO_CFLAGS=", "CGO_LDFLAGS="} {
		if !strings.Contains(cmake, want) {
			t.Errorf("CMakeLists.txt lacks %q", want)
		}
	}
	return "lib/" + p.Name + "/" + bin[1]
}

// The command CMake builds is the one in cmd/ with the executable's name.
func TestCMakeBuildsTheNodeCommand(t *testing.T) {
	installed := cmakeExecutable(t)
	m := regexp.MustCompile(`-o "\$\{GHOST_DECISION_NODE\}" \./cmd/(\w+)`).FindStringSubmatch(read(t, "CMakeLists.txt"))
	if m == nil || m[1] != filepath.Base(installed) {
		t.Fatalf("CMakeLists.txt builds ./cmd/%v, want ./cmd/%s", m, filepath.Base(installed))
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", m[1], "main.go")); err != nil {
		t.Errorf("CMakeLists.txt builds ./cmd/%s: %v", m[1], err)
	}
}

// The packages whose headers rclgo's cgo needs are dependencies in
// package.xml, so rosdep installs them.
func TestCMakeCgoPackagesAreDependencies(t *testing.T) {
	p := parsePackageXML(t)
	for _, pkg := range cmakeList(t, read(t, "CMakeLists.txt"), "ghost_cgo_packages") {
		if !contains(p.Depend, pkg) {
			t.Errorf("CMakeLists.txt uses %s for cgo but package.xml does not <depend> on it", pkg)
		}
	}
}

// The packages rcl's headers include only after Humble are dependencies
// on every distribution but Humble (a REP 149 condition), and nowhere
// unconditional, so rosdep on Humble does not look for them.
func TestCMakeCgoPackagesAfterHumbleAreConditional(t *testing.T) {
	var p struct {
		Depend []struct {
			Condition string `xml:"condition,attr"`
			Name      string `xml:",chardata"`
		} `xml:"depend"`
	}
	if err := xml.Unmarshal([]byte(read(t, "package.xml")), &p); err != nil {
		t.Fatalf("package.xml: %v", err)
	}
	conditions := map[string][]string{}
	for _, d := range p.Depend {
		name := strings.TrimSpace(d.Name)
		conditions[name] = append(conditions[name], d.Condition)
	}
	after := cmakeList(t, read(t, "CMakeLists.txt"), "ghost_cgo_packages_after_humble")
	if len(after) == 0 {
		t.Fatal("CMakeLists.txt: ghost_cgo_packages_after_humble is empty")
	}
	for _, pkg := range after {
		if got := conditions[pkg]; len(got) != 1 || got[0] != "$ROS_DISTRO != humble" {
			t.Errorf("package.xml <depend> on %s has conditions %q, want one: \"$ROS_DISTRO != humble\"", pkg, got)
		}
	}
	for _, pkg := range cmakeList(t, read(t, "CMakeLists.txt"), "ghost_cgo_packages") {
		if got := conditions[pkg]; len(got) != 1 || got[0] != "" {
			t.Errorf("package.xml <depend> on %s has conditions %q, want it unconditional", pkg, got)
		}
	}
}

func TestColconMeta(t *testing.T) {
	var meta struct {
		Names map[string]struct {
			CMakeArgs []string `json:"cmake-args"`
		} `json:"names"`
	}
	if err := json.Unmarshal([]byte(read(t, "colcon.meta")), &meta); err != nil {
		t.Fatalf("colcon.meta is not valid JSON: %v", err)
	}
	g, ok := meta.Names[parsePackageXML(t).Name]
	if !ok {
		t.Fatal("colcon.meta has no entry for the package")
	}
	if !contains(g.CMakeArgs, "-DCMAKE_BUILD_TYPE=Release") {
		t.Errorf("colcon.meta cmake-args = %q, want a Release build", g.CMakeArgs)
	}
}

// launchFacts is what the launch file declares, extracted statically by
// Python's own parser.
type launchFacts struct {
	Package    string            `json:"package"`
	Executable string            `json:"executable"`
	NodeName   string            `json:"node_name"`
	Topics     [][2]string       `json:"topics"`
	Args       map[string]string `json:"args"` // name -> literal default, or "<expr>"
}

const extractLaunch = `
import ast, json, sys
tree = ast.parse(open(sys.argv[1]).read())
consts, args = {}, {}
for node in tree.body:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        try:
            consts[node.targets[0].id] = ast.literal_eval(node.value)
        except ValueError:
            pass
for node in ast.walk(tree):
    if isinstance(node, ast.Call) and getattr(node.func, 'id', None) == 'DeclareLaunchArgument':
        if node.args and isinstance(node.args[0], ast.Constant):
            default = '<expr>'
            for kw in node.keywords:
                if kw.arg == 'default_value' and isinstance(kw.value, ast.Constant):
                    default = kw.value.value
            args[node.args[0].value] = default
        elif node.args and isinstance(node.args[0], ast.Name):
            # DeclareLaunchArgument(arg, default_value=topic) in the TOPICS loop
            for name, topic in consts.get('TOPICS', []):
                args[name] = topic
print(json.dumps({'package': consts.get('PACKAGE'), 'executable': consts.get('EXECUTABLE'),
                  'node_name': consts.get('NODE_NAME'), 'topics': consts.get('TOPICS', []), 'args': args}))
`

func parseLaunch(t *testing.T) (launchFacts, string) {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed: the launch file is checked only as text")
	}
	file := filepath.Join(root, "launch", "decision.launch.py")
	out, err := exec.Command(python, "-c", extractLaunch, file).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("launch/decision.launch.py does not parse: %s", ee.Stderr)
		}
		t.Fatal(err)
	}
	var f launchFacts
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("launch facts %s: %v", out, err)
	}
	return f, read(t, "launch/decision.launch.py")
}

func TestLaunchFile(t *testing.T) {
	f, src := parseLaunch(t)
	def := config.Default()
	installed := cmakeExecutable(t)
	if want := "lib/" + f.Package + "/" + f.Executable; installed != want {
		t.Errorf("CMakeLists.txt installs %s, the launch file runs %s", installed, want)
	}
	if f.Package != parsePackageXML(t).Name {
		t.Errorf("launch package %q, package.xml name %q", f.Package, parsePackageXML(t).Name)
	}
	if f.NodeName != config.DefaultNodeName {
		t.Errorf("launch node name %q, config.DefaultNodeName %q", f.NodeName, config.DefaultNodeName)
	}
	var wantTopics [][2]string
	for _, in := range session.DefaultInputs() {
		if in.Optional {
			continue // off by default: nothing to remap; enabled through its parameter
		}
		wantTopics = append(wantTopics, [2]string{in.Key + "_topic", def.Topics[in.Key]})
	}
	for _, key := range []string{session.KeyDecisions, session.KeyDiagnostics, session.KeyActions, session.KeySeal} {
		wantTopics = append(wantTopics, [2]string{key + "_topic", def.Topics[key]})
	}
	if !reflect.DeepEqual(f.Topics, wantTopics) {
		t.Errorf("launch TOPICS = %q, want the node's defaults %q", f.Topics, wantTopics)
	}
	wantArgs := map[string]string{
		"config_file":    "<expr>",
		"namespace":      "",
		"use_sim_time":   "false",
		"log_level":      "info",
		"policy":         "",
		"policy_file":    "",
		"input_source":   "",
		"executor":       "",
		"target_vehicle": "",
		"px4_namespace":  "",
		"recording_path": "",
		"seal_key_file":  "",
		"enclave":        "",
		"launch_prefix":  "",
		"respawn":        "false",
		"respawn_delay":  "2.0",
	}
	for _, tp := range wantTopics {
		wantArgs[tp[0]] = tp[1]
	}
	if !reflect.DeepEqual(f.Args, wantArgs) {
		t.Errorf("launch arguments = %q\nwant %q", f.Args, wantArgs)
	}
	if def.UseSimTime {
		t.Error("package config's use_sim_time default changed: update the launch default")
	}
	for _, want := range []string{
		"get_package_share_directory(PACKAGE), 'config', 'decision.yaml'",
		"parameters=[LaunchConfiguration('config_file'), overrides]",
		"'--ros-args', '--log-level', LaunchConfiguration('log_level')",
		"['--enclave', LaunchConfiguration('enclave')]",
		"arguments=arguments,",
		"output='screen'",
		"respawn=respawn == 'true'",
		"respawn_delay=delay",
		"overrides['executors.target_vehicle'] = target_vehicle(value('target_vehicle'))",
		"overrides['px4.namespace'] = px4_namespace(value('px4_namespace'))",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("launch/decision.launch.py lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "config", "decision.yaml")); err != nil {
		t.Errorf("the launch file's default config: %v", err)
	}
}

// flattenParams lists the dotted parameter names under ros__parameters.
func flattenParams(prefix string, n *yaml.Node, out *[]string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if v.Kind == yaml.MappingNode {
			flattenParams(prefix+k+".", v, out)
		} else {
			*out = append(*out, prefix+k)
		}
	}
}

// An independent reading of config/decision.yaml (package config's own test
// checks the values): its names are exactly the declared parameters.
func TestConfigYAMLNamesAreDeclared(t *testing.T) {
	var doc map[string]map[string]yaml.Node
	if err := yaml.Unmarshal([]byte(read(t, "config/decision.yaml")), &doc); err != nil {
		t.Fatalf("config/decision.yaml: %v", err)
	}
	params, ok := doc["/**"]["ros__parameters"]
	if len(doc) != 1 || !ok {
		t.Fatalf("config/decision.yaml: want exactly a /** ros__parameters section, got keys %v", doc)
	}
	var got, want []string
	flattenParams("", &params, &got)
	for _, p := range config.Parameters() {
		want = append(want, p.Name)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("config/decision.yaml names %q\nwant package config's %q", got, want)
	}
	if _, err := config.FromParamsFile(filepath.Join(root, "config", "decision.yaml")); err != nil {
		t.Errorf("config/decision.yaml: %v", err)
	}
}

// .dockerignore must not drop anything the colcon build reads. Docker
// matches a pattern against the whole path from the context root (and
// excludes what is below a matching directory); "**" is not used here.
func TestDockerignoreKeepsSources(t *testing.T) {
	needed := []string{"go.mod", "go.sum", "package.xml", "CMakeLists.txt", "colcon.meta",
		"msg/Decision.msg", "cmd/decision_node/main.go", "pkg/decisions/doc.go", "launch/decision.launch.py", "config/decision.yaml"}
	for _, line := range strings.Split(read(t, ".dockerignore"), "\n") {
		pat := strings.TrimSpace(line)
		if pat == "" || strings.HasPrefix(pat, "#") || strings.HasPrefix(pat, "!") {
			continue
		}
		pat = strings.TrimSuffix(pat, "/")
		for _, n := range needed {
			for dir := n; dir != "."; dir = filepath.Dir(dir) {
				if ok, _ := filepath.Match(pat, dir); ok {
					t.Errorf(".dockerignore pattern %q excludes %s", line, n)
				}
			}
		}
	}
}

// runLaunchCheck runs the launch file's argument check fn (a function of
// the file, taking the argument's text) on each text, by Python's own
// interpreter: the value it gives the node, or the error it raises.
const runLaunchCheck = `
import ast, json, sys
tree = ast.parse(open(sys.argv[1]).read())
defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == sys.argv[2]]
scope = {}
exec(compile(ast.Module(body=defs, type_ignores=[]), sys.argv[1], 'exec'), scope)
out = []
for text in json.loads(sys.argv[3]):
    try:
        out.append({'value': scope[sys.argv[2]](text)})
    except ValueError as e:
        out.append({'error': str(e)})
print(json.dumps(out))
`

// The launch arguments that set a parameter accept what the node accepts
// and give it the same value; what the node would refuse, the launch file
// refuses first, naming the argument and the value.
func TestLaunchArgumentChecks(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed: the launch file's checks are not run")
	}
	file := filepath.Join(root, "launch", "decision.launch.py")
	tests := []struct {
		fn, arg, param string
		texts          []string
		value          func(config.Config) any
	}{
		{"target_vehicle", "target_vehicle", "executors.target_vehicle",
			[]string{"1", "2", "255", "0", "256", "-1", "two", "2.5"},
			func(c config.Config) any { return float64(c.Executors.TargetVehicle) }},
		{"px4_namespace", "px4_namespace", "px4.namespace",
			[]string{"/px4_1", "/uav_1", "/a/b", "px4_1", "/px4_1/", "/"},
			func(c config.Config) any { return c.Input.PX4Namespace }},
	}
	for _, tc := range tests {
		texts, _ := json.Marshal(tc.texts)
		out, err := exec.Command(python, "-c", runLaunchCheck, file, tc.fn, string(texts)).Output()
		if err != nil {
			t.Fatalf("%s: %v", tc.fn, err)
		}
		var got []struct {
			Value any     `json:"value"`
			Error *string `json:"error"`
		}
		if err := json.Unmarshal(out, &got); err != nil || len(got) != len(tc.texts) {
			t.Fatalf("%s: %s: %v", tc.fn, out, err)
		}
		for i, text := range tc.texts {
			cfg, _, nodeErr := config.FromArgs([]string{"--ros-args", "-p", tc.param + ":=" + text})
			switch {
			case nodeErr == nil && got[i].Error != nil:
				t.Errorf("%s:=%s: the node takes it, the launch file refuses it: %s", tc.arg, text, *got[i].Error)
			case nodeErr != nil && got[i].Error == nil:
				t.Errorf("%s:=%s: the node refuses it (%v), the launch file gives it %v", tc.arg, text, nodeErr, got[i].Value)
			case nodeErr != nil && (!strings.Contains(*got[i].Error, tc.arg) || !strings.Contains(*got[i].Error, "'"+text+"'")):
				t.Errorf("%s:=%s: the launch file's error %q does not name the argument and the value", tc.arg, text, *got[i].Error)
			case nodeErr == nil && !reflect.DeepEqual(got[i].Value, tc.value(cfg)):
				t.Errorf("%s:=%s: the launch file gives %v (%T), the node reads %v", tc.arg, text, got[i].Value, got[i].Value, tc.value(cfg))
			}
		}
	}
}
