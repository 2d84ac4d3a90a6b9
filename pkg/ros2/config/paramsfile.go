package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
	"go.yaml.in/yaml/v3"
)

// Bounds on params files: real ones are a few kilobytes and a few levels
// deep; the limits keep a hostile file from exhausting memory or stack.
const (
	maxParamsFileSize = 1 << 20
	maxDepth          = 32
)

// paramSection is the ros__parameters of one node key of a params file,
// flattened to dotted names in document order.
type paramSection struct {
	node   string // node key as written, e.g. "/**" or "/ns/decision_node"
	params []paramEntry
}

type paramEntry struct {
	name string
	val  value
	line int
}

// parseParamsYAML reads a ROS 2 parameter file: a mapping from node keys to
// `ros__parameters:` mappings. A node key may be a path ("/ns/node") or
// nested mappings (`ns: {node: {ros__parameters: ...}}`); nested parameter
// mappings flatten to dotted names, and a literal dotted key is the same
// parameter. An empty document has no sections.
func parseParamsYAML(data []byte) ([]paramSection, error) {
	if len(data) > maxParamsFileSize {
		return nil, fmt.Errorf("%d bytes exceeds the %d byte limit", len(data), maxParamsFileSize)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("malformed YAML: %w", err)
	}
	// rcl reads one document; a second one would be silently ignored, so
	// its parameters (and its typos) are refused instead.
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, fmt.Errorf("malformed YAML: %w", err)
	case len(next.Content) > 0 && !(next.Content[0].Kind == yaml.ScalarNode && next.Content[0].Tag == "!!null"):
		return nil, fmt.Errorf("line %d: a second YAML document (after ---): a parameters file holds one", next.Content[0].Line)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	root := resolveAlias(doc.Content[0])
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: want a mapping of node names to ros__parameters", root.Line)
	}
	var sections []paramSection
	if err := walkNodes("", root, 0, &sections); err != nil {
		return nil, err
	}
	return sections, nil
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for depth := 0; n.Kind == yaml.AliasNode && n.Alias != nil && depth < maxDepth; depth++ {
		n = n.Alias
	}
	return n
}

func walkNodes(prefix string, m *yaml.Node, depth int, out *[]paramSection) error {
	if depth > maxDepth {
		return fmt.Errorf("line %d: node names nested deeper than %d levels", m.Line, maxDepth)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := resolveAlias(m.Content[i]), resolveAlias(m.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: node name must be a scalar", k.Line)
		}
		if k.Value == "ros__parameters" {
			if prefix == "" {
				return fmt.Errorf("line %d: ros__parameters must be under a node name such as /**", k.Line)
			}
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				*out = append(*out, paramSection{node: prefix})
				continue
			}
			if v.Kind != yaml.MappingNode {
				return fmt.Errorf("line %d: ros__parameters of %s must be a mapping", v.Line, prefix)
			}
			s := paramSection{node: prefix}
			if err := flatten("", v, 0, &s.params); err != nil {
				return fmt.Errorf("node %s: %w", prefix, err)
			}
			if err := checkDuplicates(s.params); err != nil {
				return fmt.Errorf("node %s: %w", prefix, err)
			}
			*out = append(*out, s)
			continue
		}
		name := strings.Trim(k.Value, "/")
		if name == "" && k.Value != "/" {
			return fmt.Errorf("line %d: empty node name", k.Line)
		}
		node := prefix + "/" + name
		if name == "" {
			node = "/"
		}
		if v.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: node %s must map to ros__parameters", v.Line, node)
		}
		if err := walkNodes(strings.TrimSuffix(node, "/"), v, depth+1, out); err != nil {
			return err
		}
	}
	return nil
}

func flatten(prefix string, m *yaml.Node, depth int, out *[]paramEntry) error {
	if depth > maxDepth {
		return fmt.Errorf("line %d: parameters nested deeper than %d levels", m.Line, maxDepth)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := resolveAlias(m.Content[i]), resolveAlias(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			return fmt.Errorf("line %d: parameter name must be a non-empty scalar", k.Line)
		}
		name := prefix + k.Value
		switch v.Kind {
		case yaml.MappingNode:
			if err := flatten(name+".", v, depth+1, out); err != nil {
				return err
			}
		case yaml.ScalarNode:
			*out = append(*out, paramEntry{name: name, val: scalarValue(v), line: v.Line})
		case yaml.SequenceNode:
			// Refused only if it applies to this node: a file shared by
			// several nodes may hold their array parameters.
			*out = append(*out, paramEntry{name: name, val: value{typ: typeArray, raw: "[...]"}, line: v.Line})
		default:
			return fmt.Errorf("line %d: parameter %q: unsupported YAML node", v.Line, name)
		}
	}
	return nil
}

func checkDuplicates(ps []paramEntry) error {
	seen := make(map[string]int, len(ps))
	for _, p := range ps {
		if line, dup := seen[p.name]; dup {
			return fmt.Errorf("line %d: parameter %q already set on line %d", p.line, p.name, line)
		}
		seen[p.name] = p.line
	}
	return nil
}

// applySections applies the sections that select the node fqn: wildcard
// keys first, then exact ones, each group in document order, so a section
// naming the node overrides `/**` in the same file.
func (c *Config) applySections(sections []paramSection, fqn, file string, sources map[string]string) error {
	matching := make([]paramSection, 0, len(sections))
	for _, s := range sections {
		if matchNodeKey(s.node, fqn) {
			matching = append(matching, s)
		}
	}
	sort.SliceStable(matching, func(i, j int) bool {
		return isWildcardKey(matching[i].node) && !isWildcardKey(matching[j].node)
	})
	for _, s := range matching {
		for _, p := range s.params {
			src := fmt.Sprintf("params file %s, node %s, line %d", file, s.node, p.line)
			if err := c.apply(p.name, p.val, src, sources); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadParamsFile reads and parses one params file; errors wrap
// ErrParamsFile and name the file. Reading stops one byte past the size
// limit, so an oversized file is rejected without being read whole.
func loadParamsFile(file string) ([]paramSection, error) {
	data, err := limitedfile.ReadFile(file, maxParamsFileSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParamsFile, err)
	}
	sections, err := parseParamsYAML(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrParamsFile, file, err)
	}
	return sections, nil
}

// FromParamsFile builds a Config from the defaults and one params file, for
// the commands that run without ROS (`decision_node sim --config FILE`):
// the sections selecting the default node /decision_node apply (`/**`,
// `decision_node`, `/decision_node`, ...). The result is validated.
func FromParamsFile(file string) (Config, error) {
	c := Default()
	sections, err := loadParamsFile(file)
	if err != nil {
		return Config{}, err
	}
	sources := make(map[string]string)
	if err := c.applySections(sections, c.FullyQualifiedName(), file, sources); err != nil {
		return Config{}, err
	}
	if err := c.validateWithSources(sources); err != nil {
		return Config{}, fmt.Errorf("%s: %w", file, err)
	}
	return c, nil
}
