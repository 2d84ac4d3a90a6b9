package node

import (
	"bytes"
	"crypto/ed25519"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/testkeys"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/seal"
	"github.com/ghost-robotics/ghost/pkg/session"
)

const sealKeys = "../seal/testdata/"

func trusting(t *testing.T) seal.CheckOptions {
	pub, err := seal.LoadPublicKey(sealKeys + "node.pub")
	if err != nil {
		t.Fatal(err)
	}
	return seal.CheckOptions{TrustKeys: []ed25519.PublicKey{pub}}
}

// recorded is one message as a recorder logged it.
type recorded struct {
	topic, schema string
	at            time.Time
	data          []byte
}

func checkStream(t *testing.T, stream []recorded, opts seal.CheckOptions) *seal.Report {
	t.Helper()
	c := seal.NewChecker(opts)
	for _, m := range stream {
		c.Observe(m.topic, m.schema, uint64(m.at.UnixNano()), m.data)
	}
	return c.Finish(true)
}

// TestRunSeals: a node with a key seals every input it takes and every
// decision it publishes, publishes a seal on each seal tick and at
// shutdown, and records the seals; its own recording verifies whole, and
// so does a recording of the same topics by another recorder, from the
// first interval it holds whole when it started late.
func TestRunSeals(t *testing.T) {
	cfg := testConfig()
	cfg.Seal.KeyFile = testkeys.Private(t, sealKeys+"node.key")
	cfg.Recording.Path = filepath.Join(t.TempDir(), "own.mcap")
	h := startNode(t, cfg)

	var other []recorded // what a recorder subscribed to the same topics logs
	const beliefs = 30
	for i := range beliefs {
		at := base.Add(time.Duration(i) * 100 * time.Millisecond)
		b, a := beliefCDR(t, testBelief(int64(i+1)*1e6)), assessmentCDR(t, testAssessment(t, int64(i+1)*1e6, 0.1))
		h.deliver(cfg.Topics[session.KeyState], b, at)
		h.deliver(cfg.Topics[session.KeySelfAssessment], a, at.Add(ms(1)))
		// rmw_cyclonedds pads what it delivers to a multiple of 4 bytes.
		pad := func(d []byte) []byte { return append(slices.Clone(d), make([]byte, (4-len(d)%4)%4)...) }
		other = append(other, recorded{cfg.Topics[session.KeyState], "ghost/msg/VehicleState", at.Add(ms(2)), pad(b)},
			recorded{cfg.Topics[session.KeySelfAssessment], "ghost/msg/BeliefSelfAssessment", at.Add(ms(3)), pad(a)})
		if i%10 == 9 {
			h.sync(at.Add(ms(50)))
			h.clock.set(at.Add(ms(60)))
			h.seal <- at.Add(ms(60))
			// Nothing more is delivered before the seal is made: the node
			// seals what it drained by then.
			h.sync(at.Add(ms(70)))
		}
	}
	h.sync(base.Add(5 * time.Second))
	if err := h.shutdown(); err != nil {
		t.Fatalf("Run = %v", err)
	}
	decided := h.ft.Published(cfg.Topics[session.KeyDecisions])
	seals := h.ft.Published(cfg.Topics[session.KeySeal])
	if len(decided) != beliefs || len(seals) != 4 {
		t.Fatalf("%d decisions and %d seals published, want %d and 4", len(decided), len(seals), beliefs)
	}
	for i, d := range decided {
		other = append(other, recorded{cfg.Topics[session.KeyDecisions], "ghost/msg/DecisionRationale",
			base.Add(time.Duration(i)*100*time.Millisecond + ms(4)), d})
	}
	for i, data := range seals {
		s, err := seal.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if s.Index != uint64(i) || s.Final != (i == 3) || i < 3 && s.Count != 30 || i == 3 && s.Count != 0 {
			t.Errorf("seal %d: index %d, final %v, %d messages", i, s.Index, s.Final, s.Count)
		}
		other = append(other, recorded{seal.DefaultTopic, seal.SchemaName, base.Add(time.Duration(i)*time.Second + ms(965)), data})
	}
	slices.SortStableFunc(other, func(a, b recorded) int { return a.at.Compare(b.at) })

	t.Run("own recording", func(t *testing.T) {
		r, err := bag.OpenRecording(cfg.Recording.Path, bag.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var own []recorded
		for m, err := range r.Messages() {
			if err != nil {
				t.Fatal(err)
			}
			own = append(own, recorded{m.Topic, m.SchemaName, time.Unix(0, int64(m.LogTime)), bytes.Clone(m.Data)})
		}
		rep := checkStream(t, own, trusting(t))
		if !rep.OK() || !rep.Final || rep.FirstSeal != 0 || rep.LastSeal != 3 || rep.Messages != 3*beliefs {
			t.Fatalf("%v", rep.Lines())
		}
	})
	t.Run("another recorder", func(t *testing.T) {
		opts := trusting(t)
		opts.Skew = time.Second
		rep := checkStream(t, other, opts)
		if !rep.OK() || !rep.Final || rep.FirstSeal != 0 || rep.Before != 0 {
			t.Fatalf("%v", rep.Lines())
		}
	})
	t.Run("another recorder, started late", func(t *testing.T) {
		opts := trusting(t)
		opts.Skew = time.Second
		late := slices.DeleteFunc(slices.Clone(other), func(m recorded) bool { return m.at.Before(base.Add(1500 * time.Millisecond)) })
		rep := checkStream(t, late, opts)
		if !rep.OK() || rep.FirstSeal != 2 || rep.Before == 0 {
			t.Fatalf("%v", rep.Lines())
		}
	})
	t.Run("another recorder, a decision dropped", func(t *testing.T) {
		opts := trusting(t)
		opts.Skew = time.Second
		i := slices.IndexFunc(other, func(m recorded) bool { return m.topic == cfg.Topics[session.KeyDecisions] })
		rep := checkStream(t, slices.Delete(slices.Clone(other), i+12, i+13), opts)
		if rep.OK() || rep.FirstBreak == nil {
			t.Fatalf("%v", rep.Lines())
		}
	})
}

func TestRunSealKeyRequired(t *testing.T) {
	cfg := testConfig()
	cfg.Seal.KeyFile = sealKeys + "node.pub"
	h := startNode(t, cfg)
	err := h.shutdown()
	if err == nil || !strings.Contains(err.Error(), "seal.key_file") {
		t.Fatalf("Run = %v, want an error naming seal.key_file", err)
	}
}
