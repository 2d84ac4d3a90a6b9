package audit

import (
	"bytes"
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/testkeys"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/seal"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4sim"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

func sealKey(t testing.TB, name string) ed25519.PrivateKey {
	t.Helper()
	k, err := seal.LoadPrivateKey(testkeys.Private(t, "../seal/testdata/"+name+".key"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// sealedFlight simulates a flight acting through the px4 executor, as
// actionFlight does, written through a sealing recorder.
func sealedFlight(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	rec, err := bag.NewRecorder(&buf, bag.RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := seal.NewSealer(sealKey(t, "node"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := seal.NewRecorder(rec, s, seal.RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ex := executor.NewPX4(executor.PX4Options{Transport: px4sim.New(px4sim.Options{})})
	_, err = Replay(simSource(t, 30*time.Second, 20), out, ReplayOptions{Session: session.SessionOptions{
		Executors: []session.Executor{ex}, Enable: enabled, TargetVehicle: 1,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func verifySealed(t *testing.T, data []byte, trust ...ed25519.PublicKey) *AuditReport {
	t.Helper()
	return verifySealedFrom(t, openBytes(t, data), trust...)
}

func verifySealedFrom(t *testing.T, src Source, trust ...ed25519.PublicKey) *AuditReport {
	t.Helper()
	opts := VerifyOptions{Session: session.SessionOptions{Executors: []session.Executor{executor.NewPX4(executor.PX4Options{})},
		TargetVehicle: 1, Enable: enabled}, Seals: &seal.CheckOptions{TrustKeys: trust}}
	r, _ := Verify(src, opts)
	if r == nil {
		t.Fatal("no report")
	}
	return r
}

// editTopic rewrites the n-th message on topic with edit.
func editTopic(topic string, n int, edit func(data []byte) []byte) func(m *bag.Message) bool {
	i := 0
	return func(m *bag.Message) bool {
		if m.Topic == topic {
			if i == n {
				m.Data = edit(bytes.Clone(m.Data))
			}
			i++
		}
		return m.Data != nil
	}
}

// TestVerifySealedHostile: every forgery of a sealed recording fails verify
// with the trusted key, naming where; a cut recording passes up to its
// last whole seal and says so.
func TestVerifySealedHostile(t *testing.T) {
	pub := sealKey(t, "node").Public().(ed25519.PublicKey)
	other := sealKey(t, "other").Public().(ed25519.PublicKey)
	data := sealedFlight(t)
	covariance := func(b []byte) []byte {
		var w ros2msg.VehicleState
		if err := w.UnmarshalCDR(b); err != nil {
			t.Fatal(err)
		}
		w.Nav.Covariance15x15[0] *= 1.5 // still a valid covariance: only the seal tells
		out, err := w.AppendCDR(nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tests := []struct {
		name  string
		data  func() []byte
		trust []ed25519.PublicKey
		pass  bool
		topic string
	}{
		{"as recorded", func() []byte { return data }, []ed25519.PublicKey{pub}, true, ""},
		{"changed covariance in a belief", func() []byte {
			return rewriteMessages(t, data, editTopic("/state/nav", 300, covariance))
		}, []ed25519.PublicKey{pub}, false, "/state/nav"},
		{"dropped decision", func() []byte {
			return rewriteMessages(t, data, editTopic("/decisions", 40, func([]byte) []byte { return nil }))
		}, []ed25519.PublicKey{pub}, false, "/decisions"},
		{"forged evidence", func() []byte {
			return rewriteMessages(t, data, editTopic("/decisions/evidence", 0, func(b []byte) []byte { b[len(b)-1] ^= 1; return b }))
		}, []ed25519.PublicKey{pub}, false, "/decisions/evidence"},
		{"inserted belief (a copy of a real one)", func() []byte {
			n := 0
			return rewriteEach(t, data, func(m *bag.Message, write func(*bag.Message)) {
				write(m)
				if m.Topic == "/state/nav" {
					if n == 200 {
						write(m)
					}
					n++
				}
			})
		}, []ed25519.PublicKey{pub}, false, "/state/nav"},
		{"reordered assessments", func() []byte {
			var held *bag.Message
			n := 0
			return rewriteEach(t, data, func(m *bag.Message, write func(*bag.Message)) {
				if m.Topic != "/self_assessment" {
					write(m)
					return
				}
				n++
				switch {
				case n == 100:
					c := *m
					c.Data = bytes.Clone(m.Data)
					held = &c
				case n == 101:
					// The next one's bytes at the held one's place, and
					// the other way round.
					first := *held
					first.Data, m.Data = m.Data, held.Data
					write(&first)
					write(m)
				default:
					write(m)
				}
			})
		}, []ed25519.PublicKey{pub}, false, "/self_assessment"},
		{"wrong key", func() []byte { return data }, []ed25519.PublicKey{other}, false, seal.DefaultTopic},
		{"truncated", func() []byte { return data[:len(data)*2/3] }, []ed25519.PublicKey{pub}, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := verifySealed(t, tc.data(), tc.trust...)
			broken := r.FindingCount(FindingSealBroken) > 0
			if r.Seals == nil || broken == tc.pass {
				t.Fatalf("seal_broken %d, seals %+v", r.FindingCount(FindingSealBroken), r.Seals)
			}
			if !tc.pass && r.Seals.FirstBreak.Topic != tc.topic {
				t.Fatalf("first break %v, want on %s", r.Seals.FirstBreak, tc.topic)
			}
			if tc.pass && tc.name == "truncated" && (r.Seals.Final || r.Seals.LastSeal < 1 || r.ReadComplete) {
				t.Fatalf("truncated: %v", r.Seals.Lines())
			}
		})
	}
	// A parameter event the node never took: the seals do not list the
	// topic, which the audit reads.
	forged := &withExtra{t: t, src: openBytes(t, data), extra: []extra{parameterSet(int64(15*time.Second), testNode,
		ros2msg.Parameter{Name: engine.ParameterAssessmentTimeout, Value: ros2msg.ParameterValue{Type: engine.ParameterDouble, DoubleValue: 5}})}}
	r := verifySealedFrom(t, forged, pub)
	if r.FindingCount(FindingSealBroken) == 0 || r.Seals.FirstBreak.Topic != "/parameter_events" {
		t.Fatalf("forged parameter event: %v", r.Seals.Lines())
	}
	// Without a trusted key, seals are counted, not checked, and change
	// no verdict.
	r = verifySealed(t, rewriteMessages(t, data, editTopic("/state/nav", 300, covariance)))
	if r.Seals == nil || r.Seals.Trusted || r.Seals.Seals < 30 || r.FindingCount(FindingSealBroken) != 0 {
		t.Fatalf("untrusted: %+v", r.Seals)
	}
}

// TestReplayDropsSeals: a replay is a new claim. The input's seals are
// not copied, so a forged recording replayed without the key holds no
// seal and fails verify with the trusted key.
func TestReplayDropsSeals(t *testing.T) {
	pub := sealKey(t, "node").Public().(ed25519.PublicKey)
	data := sealedFlight(t)
	forged := rewriteMessages(t, data, editTopic("/state/nav", 100, func(b []byte) []byte { b[len(b)-1] ^= 1; return b }))
	out, _, err := replayBytes(t, openBytes(t, forged), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := openBytes(t, out)
	for {
		m, err := r.Next()
		if err != nil {
			break
		}
		if m.Topic == seal.DefaultTopic {
			t.Fatal("replay copied the input's seals")
		}
	}
	rep := verifySealed(t, out, pub)
	if rep.FindingCount(FindingSealBroken) == 0 || rep.Seals.FirstBreak.Kind != seal.BreakUnsealed {
		t.Fatalf("replayed forgery: %v", rep.Seals.Lines())
	}
}

// rewriteEach copies a recording, handing each message to edit, which
// writes it (changed or not) any number of times.
func rewriteEach(t *testing.T, data []byte, edit func(m *bag.Message, write func(*bag.Message))) []byte {
	t.Helper()
	r := openBytes(t, data)
	var buf bytes.Buffer
	rec, err := bag.NewRecorder(&buf, bag.RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	chans := map[string]bag.ChannelID{}
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		ch, ok := chans[m.Topic]
		if !ok {
			if ch, err = copyChannel(rec, r, &m); err != nil {
				t.Fatal(err)
			}
			chans[m.Topic] = ch
		}
		edit(&m, func(w *bag.Message) {
			if err := rec.Write(ch, w.LogTime, w.PublishTime, w.Data); err != nil {
				t.Fatal(err)
			}
		})
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
