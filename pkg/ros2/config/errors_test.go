package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParamsFileDocumentsAndOtherNodesArrays(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		text string
		want error  // nil: accepted
		says string // in the error
	}{
		{"an unknown key in a second document",
			"/**:\n  ros__parameters:\n    policy: uncertainty_aware_reference_v1\n---\n/**:\n  ros__parameters:\n    polciy: typo\n",
			ErrParamsFile, "line 5: a second YAML document"},
		{"an empty second document", "/**:\n  ros__parameters:\n    max_stamp_lead_s: 5.0\n---\n", nil, ""},
		{"another node's array parameter",
			"/**:\n  ros__parameters:\n    max_stamp_lead_s: 5.0\ncamera_node:\n  ros__parameters:\n    intrinsics: [1.0, 2.0, 3.0]\n",
			nil, ""},
		{"this node's array parameter",
			"decision_node:\n  ros__parameters:\n    topics:\n      state: [/a, /b]\n",
			ErrWrongType, `"topics.state" = [...] (params file ` + filepath.Join(dir, "this node's array parameter.yaml") + ", node /decision_node, line 4): wrong parameter type: arrays"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := write(tt.name+".yaml", tt.text)
			c, err := FromParamsFile(path)
			if tt.want == nil {
				if err != nil || c.MaxStampLead != 5*time.Second {
					t.Fatalf("refused: %v (max_stamp_lead %s)", err, c.MaxStampLead)
				}
				return
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %v, want %v saying %q and naming the file", err, tt.want, tt.says)
			}
		})
	}
}

func TestErrorMessagesAreOneShortLine(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	dir := t.TempDir()
	longFile := filepath.Join(dir, "long.yaml")
	if err := os.WriteFile(longFile, []byte("/**:\n  ros__parameters:\n    policy: \""+strings.Repeat("y", 500<<10)+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		says []string
	}{
		{"a 1 MB -p value", []string{"--ros-args", "-p", "policy:=" + huge}, []string{`"policy"`, "bytes"}},
		{"a 1 MB malformed -p value", []string{"--ros-args", "-p", "policy:=[" + huge}, []string{`"policy"`, "exceeds"}},
		{"a 1 MB unknown parameter name", []string{"--ros-args", "-p", huge + ":=1"}, []string{"unknown parameter", "bytes"}},
		{"a 1 MB remap", []string{"--ros-args", "-r", huge}, []string{"ROS argument", "bytes"}},
		{"a line break in a value", []string{"--ros-args", "-p", "recording.compression:=\"a\\nb\""}, []string{`recording.compression`, `a\nb`}},
		{"a 500 KiB value in a file", []string{"--ros-args", "--params-file", longFile}, []string{`"policy"`, "long.yaml", "line 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := FromArgs(tt.args)
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if len(msg) > 1000 || strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("%d bytes, line breaks %v: %.300s", len(msg), strings.ContainsAny(msg, "\n\r"), msg)
			}
			for _, s := range tt.says {
				if !strings.Contains(msg, s) {
					t.Errorf("%q does not say %q", msg, s)
				}
			}
		})
	}
}
