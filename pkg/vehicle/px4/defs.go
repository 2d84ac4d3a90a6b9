package px4

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
	"github.com/ghost-robotics/ghost/msg"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
)

// ErrNotFound is wrapped when px4_msgs is not installed under any prefix.
var ErrNotFound = errors.New("px4_msgs definitions not found")

// Definitions are the px4_msgs definitions of one release, compiled for
// decoding, with counters of the payloads decoded and rejected per
// message. Safe for concurrent use.
type Definitions struct {
	release Release
	source  string
	specs   map[string]*msg.Spec
	plans   map[string]*dynamic.Plan
	stats   map[string]*counters
	texts   map[string]string
}

type counters struct {
	decoded, layout, malformed atomic.Uint64
}

// Stat counts the payloads of one message.
type Stat struct {
	// Message is the px4_msgs message name.
	Message string
	// Decoded counts payloads decoded.
	Decoded uint64
	// LayoutMismatch counts payloads rejected because their length fits
	// another release's layout, or none (a PX4 version mismatch).
	LayoutMismatch uint64
	// Malformed counts payloads of the right length that failed to decode
	// (bad header, invalid bool, non-zero padding).
	Malformed uint64
}

// NewDefinitions compiles the .msg texts of release rel, keyed by message
// name ("VehicleStatus"). Texts of messages they use must be included. Each
// message this package knows is checked against the sizes of rel, so that
// definitions of another release are refused at start-up rather than
// misread in flight; other messages are accepted unchecked.
func NewDefinitions(rel Release, texts map[string]string) (*Definitions, error) {
	return newDefinitions(rel, texts, "supplied definitions")
}

func newDefinitions(rel Release, texts map[string]string, source string) (*Definitions, error) {
	if !rel.Valid() {
		return nil, fmt.Errorf("px4: definitions: %w %q", ErrUnknownRelease, rel)
	}
	d := &Definitions{release: rel, source: source, specs: make(map[string]*msg.Spec),
		plans: make(map[string]*dynamic.Plan), stats: make(map[string]*counters), texts: maps.Clone(texts)}
	names := make([]string, 0, len(texts))
	for name := range texts {
		names = append(names, name)
	}
	slices.Sort(names)
	deps := make([]*msg.Spec, 0, len(names))
	for _, name := range names {
		spec, err := msg.Parse(Package, name, texts[name])
		if err != nil {
			return nil, fmt.Errorf("px4: %s: %w", source, err)
		}
		d.specs[name] = spec
		deps = append(deps, spec)
	}
	for _, name := range names {
		plan, err := dynamic.Compile(d.specs[name], deps...)
		if err != nil {
			return nil, fmt.Errorf("px4: %s: %w", source, err)
		}
		d.plans[name] = plan
		d.stats[name] = new(counters)
		info, err := lookup(name)
		if err != nil {
			continue // not one of ours: decodable, unchecked
		}
		size, fixed := plan.FixedSize()
		if !fixed {
			return nil, fmt.Errorf("px4: %s: %s has strings or sequences; px4_msgs messages are fixed-size", source, name)
		}
		if err := checkSize(info, rel, info.sizes[rel.index()], size, true); err != nil {
			return nil, fmt.Errorf("px4: %s: %w", source, err)
		}
	}
	return d, nil
}

// LoadFromAmentIndex finds px4_msgs in an AMENT_PREFIX_PATH value
// (prefixes separated by the OS list separator; the first prefix holding
// share/px4_msgs/msg wins, as in ROS 2 overlays), reads the .msg files of
// the messages this package knows (and of the px4_msgs types they use) and
// tells the release from their layouts. Callers compare Release with the
// configured release.
func LoadFromAmentIndex(amentPrefixPath string) (*Definitions, error) {
	var dir string
	for prefix := range strings.SplitSeq(amentPrefixPath, string(os.PathListSeparator)) {
		if prefix == "" {
			continue
		}
		cand := filepath.Join(prefix, "share", Package, "msg")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			dir = cand
			break
		}
	}
	if dir == "" {
		return nil, fmt.Errorf("px4: %w in AMENT_PREFIX_PATH %q (no <prefix>/share/px4_msgs/msg): source the workspace that builds px4_msgs",
			ErrNotFound, capString(amentPrefixPath, 200))
	}
	texts, err := readTexts(os.DirFS(dir), Messages())
	if err != nil {
		return nil, fmt.Errorf("px4: %s: %w", dir, err)
	}
	rel, err := detectRelease(texts)
	if err != nil {
		return nil, fmt.Errorf("px4: %s: %w", dir, err)
	}
	return newDefinitions(rel, texts, dir)
}

// maxDefinitionBytes bounds what is read of one .msg file; the largest
// px4_msgs definition is a few kilobytes.
const maxDefinitionBytes = 1 << 20

// readTexts reads name.msg for each name and, transitively, for the
// px4_msgs message types they use.
func readTexts(fsys fs.FS, names []string) (map[string]string, error) {
	texts := make(map[string]string)
	queue := slices.Clone(names)
	for len(queue) > 0 && len(texts) < 1000 {
		name := queue[0]
		queue = queue[1:]
		if _, done := texts[name]; done {
			continue
		}
		data, err := limitedfile.ReadFS(fsys, name+".msg", maxDefinitionBytes)
		if err != nil {
			return nil, fmt.Errorf("read %s.msg: %w", name, err)
		}
		texts[name] = string(data)
		spec, err := msg.Parse(Package, name, string(data))
		if err != nil {
			return nil, err
		}
		for _, f := range spec.Fields {
			if f.Type.Package == Package {
				queue = append(queue, f.Type.Name)
			}
		}
	}
	return texts, nil
}

// DetectDefinitions compiles texts of a release it tells from their
// layouts, as a recording's schemas carry them (source names where they
// came from, for messages). When the messages present have the same layout
// in several releases (a recording of vehicle_odometry alone), the newest of
// those is taken: they decode alike.
func DetectDefinitions(texts map[string]string, source string) (*Definitions, error) {
	found, err := matchingReleases(texts)
	if err != nil {
		return nil, fmt.Errorf("px4: %s: %w", source, err)
	}
	return newDefinitions(found[len(found)-1], texts, source)
}

// detectRelease returns the one release whose sizes all known messages in
// texts have.
func detectRelease(texts map[string]string) (Release, error) {
	found, err := matchingReleases(texts)
	if err != nil {
		return "", err
	}
	if len(found) != 1 {
		return "", fmt.Errorf("%w: the layouts match releases %v, want exactly one", ErrLayoutMismatch, found)
	}
	return found[0], nil
}

// matchingReleases returns, oldest first, the releases whose sizes all
// known messages in texts have; none is an error.
func matchingReleases(texts map[string]string) ([]Release, error) {
	sizes := make(map[string]int)
	var parts []string
	for _, info := range messages {
		text, ok := texts[info.name]
		if !ok {
			continue
		}
		spec, err := msg.Parse(Package, info.name, text)
		if err != nil {
			return nil, err
		}
		plan, err := dynamic.Compile(spec) // the known messages use primitives only
		if err != nil {
			return nil, err
		}
		size, _ := plan.FixedSize()
		sizes[info.name] = size
		parts = append(parts, info.name+" "+strconv.Itoa(size))
	}
	var found []Release
	for i, r := range releases {
		ok := len(sizes) > 0
		for _, info := range messages {
			if s, has := sizes[info.name]; has && s != info.sizes[i] {
				ok = false
			}
		}
		if ok {
			found = append(found, r)
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("%w: layouts (%s bytes) match no supported release", ErrLayoutMismatch, strings.Join(parts, ", "))
	}
	return found, nil
}

func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// SchemaText returns the definition text of message as a recording's
// schema carries it (rosbag2 layout: the message's text, then each px4_msgs
// type it uses after a separator line).
func (d *Definitions) SchemaText(message string) (string, error) {
	spec, ok := d.specs[message]
	if !ok {
		return "", fmt.Errorf("px4: %w: %s", ErrUnknownMessage, message)
	}
	var b strings.Builder
	b.WriteString(d.texts[message])
	seen := map[string]bool{message: true}
	var add func(s *msg.Spec)
	add = func(s *msg.Spec) {
		for _, f := range s.Fields {
			dep := f.Type.Name
			if f.Type.Package != Package || seen[dep] {
				continue
			}
			seen[dep] = true
			b.WriteString("\n" + strings.Repeat("=", 80) + "\nMSG: " + Package + "/" + dep + "\n" + d.texts[dep])
			if ds, ok := d.specs[dep]; ok {
				add(ds)
			}
		}
	}
	add(spec)
	return b.String(), nil
}

// Release returns the release of the definitions.
func (d *Definitions) Release() Release { return d.release }

// Source says where the definitions came from (a directory, or "supplied
// definitions").
func (d *Definitions) Source() string { return d.source }

// Plan returns the compiled plan of message.
func (d *Definitions) Plan(message string) (*dynamic.Plan, error) {
	p, ok := d.plans[message]
	if !ok {
		return nil, fmt.Errorf("px4: %w %q: no definition loaded", ErrUnknownMessage, capString(message, 60))
	}
	return p, nil
}

// Spec returns a copy of the parsed definition of message, constants
// included.
func (d *Definitions) Spec(message string) (*msg.Spec, error) {
	s, ok := d.specs[message]
	if !ok {
		return nil, fmt.Errorf("px4: %w %q: no definition loaded", ErrUnknownMessage, capString(message, 60))
	}
	return s.Clone(), nil
}

// MessageVersion returns the MESSAGE_VERSION constant of message's
// definition, 0 when it has none (releases before 1.16).
func (d *Definitions) MessageVersion(message string) int {
	s, ok := d.specs[message]
	if !ok {
		return 0
	}
	for _, c := range s.Constants {
		if c.Name == "MESSAGE_VERSION" {
			if v, err := strconv.Atoi(c.Value); err == nil {
				return v
			}
		}
	}
	return 0
}

// TopicName returns the topic of message under namespace, versioned by
// the loaded definition's MESSAGE_VERSION ("vehicle_status_v1").
func (d *Definitions) TopicName(message, namespace string) (string, error) {
	info, err := lookup(message)
	if err != nil {
		return "", err
	}
	return topicName(info, d.MessageVersion(message), namespace)
}

// Decode checks a CDR payload (encapsulation header included) of message
// against the release's layout and decodes it. A length that does not fit
// is a *LayoutError naming the release it fits; other defects are
// *dynamic.DecodeError. Either way the rejection is counted (see Stats).
func (d *Definitions) Decode(message string, data []byte) (dynamic.Message, error) {
	var m dynamic.Message
	err := d.DecodeInto(message, &m, data)
	return m, err
}

// DecodeInto is Decode into a reused Message; it does not allocate.
func (d *Definitions) DecodeInto(message string, m *dynamic.Message, data []byte) error {
	p, ok := d.plans[message]
	if !ok {
		return fmt.Errorf("px4: %w %q: no definition loaded", ErrUnknownMessage, capString(message, 60))
	}
	c := d.stats[message]
	if size, fixed := p.FixedSize(); fixed && len(data) >= 4 {
		if info, err := lookup(message); err == nil {
			if err := checkSize(info, d.release, size, len(data)-4, false); err != nil {
				c.layout.Add(1)
				*m = dynamic.Message{}
				return err
			}
		}
	}
	if err := p.DecodeInto(m, data); err != nil {
		c.malformed.Add(1)
		return err
	}
	c.decoded.Add(1)
	return nil
}

// Stats returns the counters of every loaded message, sorted by name.
func (d *Definitions) Stats() []Stat {
	out := make([]Stat, 0, len(d.stats))
	for name, c := range d.stats {
		out = append(out, Stat{Message: name, Decoded: c.decoded.Load(),
			LayoutMismatch: c.layout.Load(), Malformed: c.malformed.Load()})
	}
	slices.SortFunc(out, func(a, b Stat) int { return strings.Compare(a.Message, b.Message) })
	return out
}
