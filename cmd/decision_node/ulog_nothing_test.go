package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ulog exits 1 when it decided nothing, saying why; the output it wrote is
// a complete recording.
func TestULogThatDecidesNothing(t *testing.T) {
	dir := t.TempDir()
	headerOnly := filepath.Join(dir, "empty.ulg")
	if err := os.WriteFile(headerOnly, ulogBytes(nil), 0o644); err != nil {
		t.Fatal(err)
	}
	odometry := filepath.Join(dir, "odometry.ulg")
	if err := os.WriteFile(odometry, ulogBytes([]uint64{1000, 2000, 3000}), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		log   string
		flags []string
		want  string
	}{
		{headerOnly, nil, "nothing decided: the log holds no vehicle_local_position sample"},
		{odometry, nil, "but 3 vehicle_odometry samples: pass --position odometry"},
		{odometry, []string{"--position", "odometry"}, "none of its 3 vehicle_odometry samples became a belief (3 lacked a field"},
	}
	for i, tt := range tests {
		out := filepath.Join(dir, "out"+string(rune('a'+i))+".mcap")
		args := append([]string{"ulog", "--in", tt.log, "--out", out, "--quiet"}, tt.flags...)
		code, _, stderr := cli(t, args...)
		if code != exitFindings || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, out+" holds no decision") {
			t.Errorf("%q: exit %d, want %d saying %q:\n%s", args, code, exitFindings, tt.want, stderr)
		}
		if code, stdout, _ := cli(t, "verify", out, "--quiet"); code != exitFindings || !strings.Contains(stdout, "no_decisions") {
			t.Errorf("verify of the output: exit %d\n%s", code, lastLines(stdout, 2))
		}
	}
}

// ulogBytes is a ULog file whose only topic is vehicle_odometry holding a
// timestamp, with one sample per stamp given.
func ulogBytes(stamps []uint64) []byte {
	b := []byte("ULog\x01\x12\x35\x01")
	b = binary.LittleEndian.AppendUint64(b, 0)
	msg := func(typ byte, body []byte) {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(body)))
		b = append(b, typ)
		b = append(b, body...)
	}
	if len(stamps) == 0 {
		return b
	}
	msg('F', []byte("vehicle_odometry:uint64_t timestamp;"))
	msg('A', append([]byte{0, 1, 0}, "vehicle_odometry"...))
	for _, s := range stamps {
		msg('D', binary.LittleEndian.AppendUint64([]byte{1, 0}, s))
	}
	return b
}
