package config

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// maxNameLen bounds names; rmw allows 255 characters for a fully qualified
// topic name once the DDS prefix is added, less is never needed here.
const maxNameLen = 255

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// validateToken checks one name token: [A-Za-z_][A-Za-z0-9_]*, the rule of
// rmw_validate_full_topic_name, rmw_validate_namespace and
// rmw_validate_node_name.
func validateToken(tok string) error {
	if tok == "" {
		return errors.New("empty name token (repeated or trailing '/')")
	}
	if isDigit(tok[0]) {
		return fmt.Errorf("token %q starts with a digit", tok)
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if !isAlpha(c) && !isDigit(c) && c != '_' {
			return fmt.Errorf("token %q contains %q; only letters, digits and '_' are allowed", tok, c)
		}
	}
	return nil
}

func validateNodeName(name string) error {
	if len(name) > maxNameLen {
		return fmt.Errorf("node name longer than %d characters", maxNameLen)
	}
	return validateToken(name)
}

// validateNamespace accepts "/" or an absolute name without a trailing '/'.
func validateNamespace(ns string) error {
	if ns == "/" {
		return nil
	}
	if !strings.HasPrefix(ns, "/") {
		return fmt.Errorf("namespace %q is not absolute (must start with '/')", ns)
	}
	return validateAbsolute(ns)
}

func validateAbsolute(name string) error {
	if len(name) > maxNameLen {
		return fmt.Errorf("name longer than %d characters", maxNameLen)
	}
	if !strings.HasPrefix(name, "/") {
		return fmt.Errorf("%q is not absolute", name)
	}
	for _, tok := range strings.Split(name[1:], "/") {
		if err := validateToken(tok); err != nil {
			return fmt.Errorf("name %q: %w", name, err)
		}
	}
	return nil
}

// expandName turns a topic name as written into a fully qualified one, as
// rcl_expand_topic_name does: "~" is the node's private namespace,
// "{node}" and "{ns}"/"{namespace}" are substituted, and a relative name is
// prefixed with the namespace.
func expandName(name, nodeName, namespace string) (string, error) {
	if name == "" {
		return "", errors.New("empty topic name")
	}
	if len(name) > maxNameLen {
		return "", fmt.Errorf("topic name longer than %d characters", maxNameLen)
	}
	nsPrefix := namespace
	if nsPrefix == "/" {
		nsPrefix = ""
	}
	switch {
	case name == "~":
		name = nsPrefix + "/" + nodeName
	case strings.HasPrefix(name, "~/"):
		name = nsPrefix + "/" + nodeName + name[1:]
	case strings.Contains(name, "~"):
		return "", fmt.Errorf("topic name %q: '~' is only allowed as the first character, followed by '/'", name)
	}
	if strings.ContainsAny(name, "{}") {
		r := strings.NewReplacer("{node}", nodeName, "{ns}", namespace, "{namespace}", namespace)
		name = r.Replace(name)
		if strings.ContainsAny(name, "{}") {
			return "", fmt.Errorf("topic name %q: unknown substitution (known: {node}, {ns}, {namespace})", name)
		}
		// A substituted "/" namespace must not leave "//" behind.
		name = strings.ReplaceAll(name, "//", "/")
	}
	if !strings.HasPrefix(name, "/") {
		name = nsPrefix + "/" + name
	}
	if err := validateAbsolute(name); err != nil {
		return "", fmt.Errorf("topic %w", err)
	}
	return name, nil
}

func (c Config) expand(name string) (string, error) {
	return expandName(name, c.NodeName, c.Namespace)
}

// ResolveTopic returns the fully qualified topic name the node uses for a
// configured name: expanded against the node's namespace, then rewritten by
// the first remap rule whose expanded "from" equals it, as rcl does. The
// rclgo transport is given the configured name and lets rcl do the same, so
// this is what `ros2 topic list` shows; recordings use it as the channel
// topic.
func (c Config) ResolveTopic(name string) (string, error) {
	full, err := c.expand(name)
	if err != nil {
		return "", err
	}
	for _, r := range c.Remaps {
		from, err := c.expand(r.From)
		if err != nil {
			return "", fmt.Errorf("remap %s:=%s: %w", r.From, r.To, err)
		}
		if from != full {
			continue
		}
		to, err := c.expand(r.To)
		if err != nil {
			return "", fmt.Errorf("remap %s:=%s: %w", r.From, r.To, err)
		}
		return to, nil
	}
	return full, nil
}

// ResolvedTopics resolves every configured topic with ResolveTopic.
func (c Config) ResolvedTopics() (Topics, error) {
	out := Topics{}
	for _, tk := range topicKeys {
		name := c.Topics[tk.key]
		if tk.optional && name == "" {
			out[tk.key] = "" // disabled
			continue
		}
		r, err := c.ResolveTopic(name)
		if err != nil {
			return nil, &ParamError{Param: "topics." + tk.key, Value: fmt.Sprintf("%q", name), Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
		}
		out[tk.key] = r
	}
	return out, nil
}

// matchNodeKey reports whether a node key of a params file (or the node
// prefix of `-p node:name:=value`) selects the node with the given fully
// qualified name. Keys are absolute or taken as absolute; a token "**"
// matches any number of tokens, and other tokens are shell patterns
// matching one token ("*", "decision_*").
func matchNodeKey(key, fqn string) bool {
	key = "/" + strings.Trim(key, "/")
	pat := strings.Split(key[1:], "/")
	name := strings.Split(fqn[1:], "/")
	return matchTokens(pat, name)
}

// matchTokens is glob matching over tokens, by dynamic programming so that
// hostile keys like "/**/a/**/a/**" stay linear in the product of lengths.
func matchTokens(pat, name []string) bool {
	// ok[j] reports whether pat[:i] matches name[:j] for the current i.
	ok := make([]bool, len(name)+1)
	ok[0] = true
	for _, p := range pat {
		next := make([]bool, len(name)+1)
		if p == "**" {
			seen := false
			for j := range ok {
				seen = seen || ok[j]
				next[j] = seen
			}
		} else {
			for j := 1; j <= len(name); j++ {
				if ok[j-1] {
					m, err := path.Match(p, name[j-1])
					next[j] = err == nil && m
				}
			}
		}
		ok = next
	}
	return ok[len(name)]
}

// isWildcardKey reports whether a node key contains a pattern; such keys
// are applied before exact ones so that the specific section wins.
func isWildcardKey(key string) bool { return strings.ContainsAny(key, "*?[") }
