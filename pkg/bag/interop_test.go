package bag

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/msg"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/stdmsgs"
)

// interopExpected is expected.json, read by test/interop/check.mjs.
type interopExpected struct {
	Profile    string               `json:"profile"`
	Recordings []interopRecording   `json:"recordings"`
	Channels   []interopChannel     `json:"channels"`
	Messages   []interopExpectedMsg `json:"messages"`
	// StandardSchemas are the schema texts the recorder writes for the
	// standard types, with the fields and constants Go reads from them:
	// the other ecosystem's parser must read the same.
	StandardSchemas []interopSchema `json:"standard_schemas"`
}

type interopSchema struct {
	SchemaName string         `json:"schema_name"`
	Text       string         `json:"text"`
	Fields     []interopField `json:"fields"`
	Constants  []interopConst `json:"constants"`
}

// interopField is a field as @foxglove/rosmsg describes it: byte as
// uint8, builtin_interfaces/Time as time, nested types by their full
// "pkg/Name".
type interopField struct {
	Name            string `json:"name"`
	Type            string `json:"type"`
	IsArray         bool   `json:"is_array"`
	ArrayLength     int    `json:"array_length,omitempty"`
	ArrayUpperBound int    `json:"array_upper_bound,omitempty"`
}

type interopConst struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value string `json:"value"`
}

// standardSchemas describes every standard type's schema text for
// check.mjs.
func standardSchemas(t *testing.T) []interopSchema {
	t.Helper()
	typeName := func(ty msg.Type) string {
		switch {
		case ty.Package == "builtin_interfaces" && ty.Name == "Time":
			return "time" // rosmsg's builtin
		case !ty.IsPrimitive():
			return ty.Package + "/" + ty.Name
		case ty.Name == "byte" || ty.Name == "char":
			return "uint8"
		}
		return ty.Name
	}
	var out []interopSchema
	for _, name := range stdmsgs.Names() {
		text, err := stdmsgs.SchemaText(name)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := stdmsgs.Definition(name)
		if err != nil {
			t.Fatal(err)
		}
		s := interopSchema{SchemaName: name, Text: text}
		for _, f := range spec.Fields {
			jf := interopField{Name: f.Name, Type: typeName(f.Type), IsArray: f.Array != msg.NotArray}
			switch f.Array {
			case msg.FixedArray:
				jf.ArrayLength = f.ArrayLen
			case msg.BoundedSequence:
				jf.ArrayUpperBound = f.ArrayLen
			}
			s.Fields = append(s.Fields, jf)
		}
		for _, c := range spec.Constants {
			s.Constants = append(s.Constants, interopConst{Name: c.Name, Type: typeName(c.Type), Value: c.Value})
		}
		out = append(out, s)
	}
	return out
}

type interopRecording struct {
	File        string `json:"file"`
	Compression string `json:"compression"`
}

type interopChannel struct {
	Topic              string `json:"topic"`
	SchemaName         string `json:"schema_name"`
	OfferedQoSProfiles string `json:"offered_qos_profiles"`
}

type interopExpectedMsg struct {
	Topic       string `json:"topic"`
	SchemaName  string `json:"schema_name"`
	LogTime     string `json:"log_time"`
	PublishTime string `json:"publish_time"`
	Sequence    uint32 `json:"sequence"`
	// Message is the golden vector's JSON: int64/uint64 as decimal strings,
	// non-finite and negative-zero floats as strings.
	Message json.RawMessage `json:"message"`
	Vector  string          `json:"vector"`
}

// TestInteropRecording writes, when GHOST_INTEROP_DIR is set, recordings of
// every ghost message type (each golden CDR vector, decoded from its JSON
// and serialized by the generated codec) plus expected.json, for
// test/interop/check.mjs to read with another ecosystem's MCAP and CDR
// libraries. Without the variable it checks only that the fixture builds.
func TestInteropRecording(t *testing.T) {
	dir := os.Getenv("GHOST_INTEROP_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	// Every type's vectors come from an independent implementation (the
	// shared set, or ROS 2's own for the types it lacks): a vector ghost
	// made itself would prove nothing.
	names := slices.DeleteFunc(msg.Names(), golden.AwaitingVectors)
	vectors := golden.CDRVectors(t, names)
	exp := interopExpected{Profile: ProfileROS2, StandardSchemas: standardSchemas(t)}
	types := map[string]bool{}
	for _, name := range names {
		exp.Channels = append(exp.Channels, interopChannel{
			Topic:              "/interop/" + name,
			SchemaName:         msg.SchemaName(name),
			OfferedQoSProfiles: qos.OfferedProfilesYAML(qos.DefaultDecisions()),
		})
	}
	for _, comp := range []Compression{CompressionZstd, CompressionLZ4} {
		file := "recording.mcap"
		if comp != CompressionZstd {
			file = "recording_" + string(comp) + ".mcap"
		}
		path := filepath.Join(dir, file)
		_ = os.Remove(path) // a rerun in the same directory starts afresh
		// Small chunks, so the reader crosses chunk boundaries.
		rec, err := CreateRecording(path, RecorderOptions{Compression: comp, ChunkSize: 2048})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]ChannelID{}
		for _, name := range names {
			id, err := rec.AddMessageChannel("/interop/"+name, name, qos.DefaultDecisions())
			if err != nil {
				t.Fatal(err)
			}
			ids[msg.SchemaName(name)] = id
		}
		seq := map[string]uint32{}
		for i, v := range vectors {
			data := v.CDR
			logTime := uint64(1_000_000_000 + i*1000)
			if err := rec.Write(ids[v.Type], logTime, logTime-7, data); err != nil {
				t.Fatal(err)
			}
			seq[v.Type]++
			types[v.Type] = true
			if comp == CompressionZstd {
				exp.Messages = append(exp.Messages, interopExpectedMsg{
					Topic:       "/interop/" + v.Type[strings.LastIndexByte(v.Type, '/')+1:],
					SchemaName:  v.Type,
					LogTime:     strconv.FormatUint(logTime, 10),
					PublishTime: strconv.FormatUint(logTime-7, 10),
					Sequence:    seq[v.Type],
					Message:     v.Message,
					Vector:      v.Name,
				})
			}
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		exp.Recordings = append(exp.Recordings, interopRecording{File: file, Compression: string(comp)})
	}
	for _, name := range names {
		if !types[msg.SchemaName(name)] {
			t.Errorf("no golden vector for %s: the interop recording would not cover it", name)
		}
	}
	out, err := json.MarshalIndent(exp, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "expected.json"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d messages of %d types to %s", len(exp.Messages), len(types), dir)
}
