package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const root = "../.."

// link matches a Markdown link or image target: [text](target) with an
// optional "title". Targets with a scheme are left to the reader.
var link = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// pages returns README.md and every docs/*.md, relative to root.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{filepath.Join(root, "README.md")}
	return append(out, docs...)
}

// anchors returns the GitHub anchors of a page's headings: lower case,
// punctuation other than '-' and '_' dropped, spaces to '-', repeats
// numbered -1, -2, ...
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + itoa(n%10)
}

// stripCode removes fenced blocks and inline code spans, where a link is
// an example rather than a link.
func stripCode(text string) string {
	var b strings.Builder
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if !fence {
			b.WriteString(regexp.MustCompile("`[^`]*`").ReplaceAllString(line, ""))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestRelativeLinksResolve(t *testing.T) {
	for _, page := range pages(t) {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, page)
		for _, m := range link.FindAllStringSubmatch(stripCode(string(raw)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), file)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q: %s does not exist", name, target, file)
					continue
				}
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				continue
			}
			text, err := os.ReadFile(dest)
			if err != nil {
				t.Errorf("%s: link %q: %v", name, target, err)
				continue
			}
			if !anchors(string(text))[frag] {
				t.Errorf("%s: link %q: no heading gives #%s", name, target, frag)
			}
		}
	}
}

func TestAnchorsFollowGitHub(t *testing.T) {
	got := anchors("# Logging: stderr and /rosout\n## Build and run\n## Build and run\n```\n# not a heading\n```\n## `decision_node verify`, 2.0\n")
	for _, want := range []string{"logging-stderr-and-rosout", "build-and-run", "build-and-run-1", "decision_node-verify-20"} {
		if !got[want] {
			t.Errorf("anchors: %q missing from %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Errorf("anchors: a line in a fence was taken as a heading")
	}
}
