package seal

import (
	"bytes"
	"crypto/ed25519"
	"os"
	"slices"
	"testing"
)

// FuzzDecode: the seal decoder never panics, and what it accepts encodes
// back to a seal that decodes to the same.
func FuzzDecode(f *testing.F) {
	s, _ := exampleSeal(f)
	data, err := s.AppendCDR(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte{0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data)
		if err != nil {
			return
		}
		again, err := s.AppendCDR(nil)
		if err != nil {
			t.Fatalf("an accepted seal does not encode: %v", err)
		}
		back, err := Decode(again)
		if err != nil {
			t.Fatalf("an accepted seal, encoded again, is refused: %v", err)
		}
		if back.Digest() != s.Digest() || !bytes.Equal(back.Signature[:], s.Signature[:]) {
			t.Fatal("an accepted seal changed through encoding")
		}
	})
}

func keyCorpus(f *testing.F) {
	for _, name := range []string{"node.key", "node.pub", "p256.key", "p256.pub"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzParsePrivateKeyPEM: the private key parser never panics and accepts
// only keys that sign.
func FuzzParsePrivateKeyPEM(f *testing.F) {
	keyCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParsePrivateKeyPEM(data)
		if err != nil {
			return
		}
		var s Seal
		s.Version = Version
		s.Sign(k)
		if !s.VerifySignature(k.Public().(ed25519.PublicKey)) {
			t.Fatal("an accepted key does not sign")
		}
	})
}

// FuzzParsePublicKeyPEM: the public key parser never panics and accepts
// only keys with an id.
func FuzzParsePublicKeyPEM(f *testing.F) {
	keyCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParsePublicKeyPEM(data)
		if err != nil {
			return
		}
		if len(KeyID(k)) != KeyIDLen {
			t.Fatalf("an accepted key has the id %q", KeyID(k))
		}
	})
}

// FuzzChecker: whatever replaces one message of a sealed recording, the
// Checker does not panic, and passes it only when the bytes are the same
// (or differ by the padding a middleware adds).
func FuzzChecker(f *testing.F) {
	stream := nodeStream(f, 2)
	opts := trustNode(f)
	f.Add(uint16(0), []byte{0, 1, 0, 0})
	f.Add(uint16(len(stream)-1), []byte{})
	f.Add(uint16(52), stream[52].data)
	f.Fuzz(func(t *testing.T, at uint16, data []byte) {
		s := slices.Clone(stream)
		i := int(at) % len(s)
		orig := s[i].data
		s[i].data = data
		r := check(t, s, true, opts)
		same := bytes.Equal(orig, data) ||
			len(data) == len(orig)+(4-len(orig)%4)%4 && bytes.Equal(data[:len(orig)], orig) && !slices.ContainsFunc(data[len(orig):], func(b byte) bool { return b != 0 })
		if s[i].topic == DefaultTopic {
			// Another encoding of the same seal is the same seal.
			a, errA := Decode(orig)
			b, errB := Decode(data)
			same = errA == nil && errB == nil && a.Digest() == b.Digest() && a.Signature == b.Signature &&
				slices.Equal(a.Topics, b.Topics)
		}
		if r.OK() != same {
			t.Fatalf("message %d on %s: %x for %x: OK %v (%v)", i, s[i].topic, data, orig, r.OK(), r.Lines())
		}
	})
}
