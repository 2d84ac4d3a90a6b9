package seal

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/testkeys"
)

var update = flag.Bool("update", false, "rewrite testdata/example.golden from the code's output")

func testKey(t testing.TB, name string) ed25519.PrivateKey {
	t.Helper()
	k, err := LoadPrivateKey(testkeys.Private(t, "testdata/"+name+".key"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func testPub(t testing.TB, name string) ed25519.PublicKey {
	t.Helper()
	return testKey(t, name).Public().(ed25519.PublicKey)
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// example is the worked example of docs/seals.md.
type example struct {
	Leaves       map[string]string `json:"leaves"`
	Topics       []exampleTopic    `json:"topics"`
	IntervalHex  string            `json:"chain_sha256"`
	SignedHex    string            `json:"signed_bytes"`
	DigestHex    string            `json:"seal_sha256"`
	SignatureHex string            `json:"signature"`
	CDRHex       string            `json:"cdr"`
}

type exampleTopic struct {
	Topic, Type string
	Count       uint64
	First       string
	Chain       string
}

// exampleSeal seals the example's three messages with the test key.
func exampleSeal(t testing.TB) (*Seal, map[string]string) {
	t.Helper()
	s, err := NewSealer(testKey(t, "node"))
	if err != nil {
		t.Fatal(err)
	}
	nav, err := s.Declare("/state/nav", "ghost/msg/VehicleState")
	if err != nil {
		t.Fatal(err)
	}
	dec, err := s.Declare("/decisions", "ghost/DecisionRationale") // either spelling
	if err != nil {
		t.Fatal(err)
	}
	msgs := []struct {
		id      TopicID
		name    string
		t       int64
		payload string
	}{
		{nav, "/state/nav#0", 1_000_000_000, "000100000100000000000000"},
		{dec, "/decisions#0", 1_000_000_000, "0001000001"},
		{nav, "/state/nav#1", 1_020_000_000, "000100000200000000000000"},
	}
	leaves := map[string]string{}
	for _, m := range msgs {
		p := mustHex(t, m.payload)
		topic, typ := s.topics[m.id].name, s.topics[m.id].typ
		l := Leaf(topic, typ, p)
		leaves[m.name] = hex.EncodeToString(l[:])
		s.Add(m.id, m.t, p)
	}
	out, err := s.Seal(1_500_000_000, true)
	if err != nil {
		t.Fatal(err)
	}
	return out, leaves
}

func TestWorkedExample(t *testing.T) {
	s, leaves := exampleSeal(t)
	got := example{Leaves: leaves, IntervalHex: hex.EncodeToString(s.Chain[:]),
		SignedHex: hex.EncodeToString(s.SignedBytes()), SignatureHex: hex.EncodeToString(s.Signature[:])}
	d := s.Digest()
	got.DigestHex = hex.EncodeToString(d[:])
	for _, td := range s.Topics {
		got.Topics = append(got.Topics, exampleTopic{td.Topic, td.Type, td.Count, hex.EncodeToString(td.First[:]), hex.EncodeToString(td.Chain[:])})
	}
	cdr, err := s.AppendCDR(nil)
	if err != nil {
		t.Fatal(err)
	}
	got.CDRHex = hex.EncodeToString(cdr)
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	if *update {
		if err := os.WriteFile("testdata/example.golden", data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/example.golden")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Fatalf("worked example changed (docs/seals.md quotes it):\n%s\nwant\n%s", data, want)
	}
	// Computed apart from this code, from the definitions in docs/seals.md,
	// with the Python given there (hashlib); OpenSSL verified the signature
	// over the signed bytes (openssl pkeyutl -verify -rawin).
	for _, c := range []struct{ name, got, want string }{
		{"leaf of the padded decision", leaves["/decisions#0"], "0f6c27720a91b6d6f97a3343ace7eed7f2c9ebe786b62ae98e43b47f24cb2d2e"},
		{"chain of /state/nav", got.Topics[1].Chain, "04299b427e4cb8043d2546f2467e31a0bed98dcf5d2558e4801ce87a48f8e890"},
		{"interval digest", got.IntervalHex, "3714a792a6ec2858d01a814c6cf1623889da32c1e0504582d1b3aebe1f79716a"},
		{"seal digest", got.DigestHex, "f989a3b931570dfa249732f3726527107424ff8e9828888f6d34ead2dead3296"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %s, computed apart: %s", c.name, c.got, c.want)
		}
	}
}

func TestSealRoundTrip(t *testing.T) {
	s, _ := exampleSeal(t)
	data, err := s.AppendCDR(nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	again, err := back.AppendCDR(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again) || back.Digest() != s.Digest() {
		t.Fatal("a decoded seal encodes differently")
	}
	if !back.VerifySignature(testPub(t, "node")) {
		t.Fatal("the decoded seal's signature does not verify")
	}
	if back.VerifySignature(testPub(t, "other")) {
		t.Fatal("the seal verifies with another key")
	}
}

// TestSignatureCoversEveryField: changing any field but the topics (which
// the interval digest covers, checked by Validate) breaks the signature.
func TestSignatureCoversEveryField(t *testing.T) {
	pub := testPub(t, "node")
	tests := []struct {
		name   string
		mutate func(s *Seal)
	}{
		{"version", func(s *Seal) { s.Version++ }},
		{"index", func(s *Seal) { s.Index++ }},
		{"final", func(s *Seal) { s.Final = !s.Final }},
		{"first sequence", func(s *Seal) { s.FirstSequence++ }},
		{"last sequence", func(s *Seal) { s.LastSequence++ }},
		{"count", func(s *Seal) { s.Count++ }},
		{"first time", func(s *Seal) { s.FirstTimeNs++ }},
		{"last time", func(s *Seal) { s.LastTimeNs-- }},
		{"seal time", func(s *Seal) { s.SealTimeNs++ }},
		{"previous", func(s *Seal) { s.Previous[31] ^= 1 }},
		{"chain", func(s *Seal) { s.Chain[0] ^= 1 }},
		{"signature", func(s *Seal) { s.Signature[10] ^= 1 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := exampleSeal(t)
			tc.mutate(s)
			if s.VerifySignature(pub) {
				t.Fatal("a changed seal still verifies")
			}
		})
	}
	s, _ := exampleSeal(t)
	s.KeyID = KeyID(testPub(t, "other"))
	if s.VerifySignature(pub) {
		t.Fatal("a seal naming another key verifies")
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(s *Seal)
		want   string
	}{
		{"version", func(s *Seal) { s.Version = 2 }, "version 2"},
		{"key id", func(s *Seal) { s.KeyID = "ABCDEF0123456789" }, "key_id"},
		{"short key id", func(s *Seal) { s.KeyID = "abc" }, "key_id"},
		{"sequences", func(s *Seal) { s.LastSequence = s.FirstSequence }, "sequences"},
		{"empty with a range", func(s *Seal) { s.Count, s.Topics = 0, nil }, "empty interval"},
		{"times", func(s *Seal) { s.LastTimeNs = s.FirstTimeNs - 1 }, "first_time_ns"},
		{"previous of seal 0", func(s *Seal) { s.Previous[0] = 1 }, "names a previous"},
		{"unsorted topics", func(s *Seal) { s.Topics[0], s.Topics[1] = s.Topics[1], s.Topics[0] }, "increasing byte order"},
		{"duplicate topic", func(s *Seal) { s.Topics[1].Topic = s.Topics[0].Topic }, "increasing byte order"},
		{"type", func(s *Seal) { s.Topics[0].Type = "DecisionRationale" }, "pkg/msg/Type"},
		{"first without messages", func(s *Seal) { s.Topics[0].Count = 0; s.Count--; s.LastSequence-- }, "messages with first"},
		{"counts", func(s *Seal) { s.Topics[0].Count++ }, "add up"},
		{"topic digest", func(s *Seal) { s.Topics[1].Chain[3] ^= 1 }, "not the digest of its topics"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := exampleSeal(t)
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			tc.mutate(s)
			err := s.Validate()
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want ErrMalformed saying %q", err, tc.want)
			}
			// Decode applies the same checks to the wire form.
			data, err := s.AppendCDR(nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Decode(data); !errors.Is(err, ErrMalformed) {
				t.Fatalf("Decode accepted it: %v", err)
			}
		})
	}
}

func TestSealer(t *testing.T) {
	s, err := NewSealer(testKey(t, "node"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Declare("/b", "ghost/msg/Decision")
	a, _ := s.Declare("/a", "ghost/msg/Goal")
	if again, err := s.Declare("/b", "ghost/Decision"); err != nil || again != b {
		t.Fatalf("redeclaring /b: %v, %v", again, err)
	}
	if _, err := s.Declare("/b", "ghost/msg/Goal"); err == nil {
		t.Fatal("a topic declared with two types")
	}
	if _, err := s.Declare("/c", "Goal"); err == nil {
		t.Fatal("a type without a package")
	}
	s.Add(b, 30, []byte{1})
	s.Add(a, 10, []byte{2})
	s.Add(b, 20, []byte{3})
	first, err := s.Seal(40, false)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := s.Seal(50, false)
	if err != nil {
		t.Fatal(err)
	}
	s.Add(a, 60, []byte{4})
	last, err := s.Seal(70, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Seal(80, false); err == nil {
		t.Fatal("a seal after the final one")
	}
	wantChain := Chain(Leaf("/b", "ghost/msg/Decision", []byte{1}), Leaf("/b", "ghost/msg/Decision", []byte{3}))
	checks := []struct {
		name      string
		got, want any
	}{
		{"first range", [3]uint64{first.FirstSequence, first.LastSequence, first.Count}, [3]uint64{0, 2, 3}},
		{"first times", [3]int64{first.FirstTimeNs, first.LastTimeNs, first.SealTimeNs}, [3]int64{10, 30, 40}},
		{"topic order", first.Topics[0].Topic + first.Topics[1].Topic, "/a/b"},
		{"chain of /b", first.Topics[1].Chain, wantChain},
		{"first of /b", first.Topics[1].First, Leaf("/b", "ghost/msg/Decision", []byte{1})},
		{"empty range", [3]uint64{empty.FirstSequence, empty.LastSequence, empty.Count}, [3]uint64{3, 3, 0}},
		{"empty times", [2]int64{empty.FirstTimeNs, empty.LastTimeNs}, [2]int64{0, 0}},
		{"empty topics", empty.Topics[0].Count + empty.Topics[1].Count, uint64(0)},
		{"links", [2]Digest{empty.Previous, last.Previous}, [2]Digest{first.Digest(), empty.Digest()}},
		{"indices", [3]uint64{first.Index, empty.Index, last.Index}, [3]uint64{0, 1, 2}},
		{"last range", [3]uint64{last.FirstSequence, last.LastSequence, last.Count}, [3]uint64{3, 3, 1}},
		{"final", [3]bool{first.Final, empty.Final, last.Final}, [3]bool{false, false, true}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	for _, x := range []*Seal{first, empty, last} {
		if err := x.Validate(); err != nil {
			t.Errorf("seal %d: %v", x.Index, err)
		}
	}
}

// TestLeafPadding: rmw_cyclonedds delivers a message padded to a multiple
// of 4 bytes; its leaf is the unpadded message's.
func TestLeafPadding(t *testing.T) {
	msg := []byte{0, 1, 0, 0, 7}
	padded := append(append([]byte(nil), msg...), 0, 0, 0)
	if Leaf("/t", "p/msg/T", msg) != Leaf("/t", "p/msg/T", padded) {
		t.Fatal("padding changes the leaf")
	}
	for _, other := range [][]byte{{0, 1, 0, 0, 8}, {0, 1, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0}, {0, 1, 0, 0}} {
		if Leaf("/t", "p/msg/T", msg) == Leaf("/t", "p/msg/T", other) {
			t.Fatalf("%x and %x share a leaf", msg, other)
		}
	}
	if Leaf("/t", "p/msg/T", msg) == Leaf("/u", "p/msg/T", msg) || Leaf("/t", "p/msg/T", msg) == Leaf("/t", "p/msg/U", msg) {
		t.Fatal("the leaf does not cover the topic and type")
	}
}

// TestLeafStart checks the leaf that starts from a topic's saved hash state
// against the formula of docs/seals.md, written out here, for prefixes
// shorter than, as long as and longer than one or two SHA-256 blocks, and
// against the leaf that hashes its prefix each time.
func TestLeafStart(t *testing.T) {
	reference := func(topic, typ string, p []byte) Digest {
		var b []byte
		b = append(b, "ghost-seal-leaf-v1\x00"...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(topic)))
		b = append(b, topic...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(typ)))
		b = append(b, typ...)
		padded := append(append([]byte(nil), p...), make([]byte, (4-len(p)%4)%4)...)
		b = binary.BigEndian.AppendUint64(b, uint64(len(padded)))
		return sha256.Sum256(append(b, padded...))
	}
	const typ = "ghost/msg/VehicleState" // 22 bytes: a prefix is 49 + len(topic)
	l := newLeafHasher()
	if l.restore == nil {
		t.Fatal("crypto/sha256 cannot restore a state: every leaf hashes its prefix")
	}
	for _, n := range []int{1, 10, 14, 15, 16, 40, 78, 79, 80, 120} {
		topic := "/" + strings.Repeat("t", n)
		start := l.start(topic, typ)
		if start.state == nil {
			t.Fatalf("topic of %d bytes: no saved state", len(topic))
		}
		plain := leafStart{prefix: start.prefix}
		for _, size := range []int{0, 1, 3, 4, 5, 6, 7, 8, 55, 56, 63, 64, 65, 119, 120, 128, 300} {
			p := bytes.Repeat([]byte{0xa5}, size)
			want := reference(topic, typ, p)
			if got := l.leaf(&start, p); got != want {
				t.Fatalf("prefix of %d bytes, payload of %d: leaf %x from the saved state, want %x", len(start.prefix), size, got[:8], want[:8])
			}
			if got := l.leaf(&plain, p); got != want {
				t.Fatalf("prefix of %d bytes, payload of %d: leaf %x from the prefix, want %x", len(start.prefix), size, got[:8], want[:8])
			}
		}
	}
}
