package transport

import (
	"slices"
	"testing"
)

func TestRCLArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"none", nil, []string{"--ros-args", "--disable-rosout-logs"}},
		{"remaps", []string{"--ros-args", "-r", "__node:=n"},
			[]string{"--ros-args", "-r", "__node:=n", "--ros-args", "--disable-rosout-logs"}},
		{"ended block and plain arguments", []string{"--ros-args", "-p", "a:=1", "--", "x"},
			[]string{"--ros-args", "-p", "a:=1", "--", "x", "--ros-args", "--disable-rosout-logs"}},
		{"rcl rosout asked for", []string{"--ros-args", "--enable-rosout-logs"},
			[]string{"--ros-args", "--enable-rosout-logs", "--ros-args", "--disable-rosout-logs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.args)
			if got := RCLArgs(tt.args); !slices.Equal(got, tt.want) {
				t.Errorf("RCLArgs(%q) = %q, want %q", tt.args, got, tt.want)
			}
			if !slices.Equal(in, tt.args) {
				t.Errorf("RCLArgs changed its input to %q", tt.args)
			}
		})
	}
}
