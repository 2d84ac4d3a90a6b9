package seal

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/testkeys"
)

// opensslKeyIDs reads the key ids OpenSSL computed (testdata/README.md).
func opensslKeyIDs(t testing.TB) map[string]string {
	t.Helper()
	f, err := os.Open("testdata/keyids.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ids := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, id, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			t.Fatalf("keyids.txt: %q", sc.Text())
		}
		ids[name] = id
	}
	return ids
}

func TestLoadKeysMatchOpenSSL(t *testing.T) {
	for name, want := range opensslKeyIDs(t) {
		priv, err := LoadPrivateKey(testkeys.Private(t, filepath.Join("testdata", name+".key")))
		if err != nil {
			t.Fatal(err)
		}
		pub, err := LoadPublicKey(filepath.Join("testdata", name+".pub"))
		if err != nil {
			t.Fatal(err)
		}
		if got := KeyID(pub); got != want {
			t.Errorf("%s: KeyID = %s, OpenSSL says %s", name, got, want)
		}
		if !pub.Equal(priv.Public()) {
			t.Errorf("%s: the public key file is not the private key's", name)
		}
	}
}

func TestKeyFileRejected(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	priv, pub := read("node.key"), read("node.pub")
	tests := []struct {
		name, data string
		public     bool
		want       string
	}{
		{"empty", "", false, "no PEM block"},
		{"not PEM", "ed25519 key\n", false, "no PEM block"},
		{"public for private", pub, false, "a public key where a private key is needed"},
		{"private for public", priv, true, "a private key where the public key is needed"},
		{"P-256 private", read("p256.key"), false, "want Ed25519"},
		{"P-256 public", read("p256.pub"), true, "want Ed25519"},
		{"two keys", priv + read("other.key"), false, "one key per file"},
		{"trailing text", pub + "trust me\n", true, "after the PEM block"},
		{"encrypted", strings.ReplaceAll(priv, "PRIVATE KEY", "ENCRYPTED PRIVATE KEY"), false, "encrypted"},
		{"other block", strings.ReplaceAll(pub, "PUBLIC KEY", "CERTIFICATE"), true, `"CERTIFICATE"`},
		{"headers", strings.Replace(priv, "-----\n", "-----\nProc-Type: 4,ENCRYPTED\n\n", 1), false, "PEM headers"},
		{"bad DER", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", false, "PKCS#8"},
		{"bad PKIX", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", true, "PKIX"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.public {
				_, err = ParsePublicKeyPEM([]byte(tc.data))
			} else {
				_, err = ParsePrivateKeyPEM([]byte(tc.data))
			}
			if !errors.Is(err, ErrKey) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrKey saying %q", err, tc.want)
			}
		})
	}
}

func TestKeyFileBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.key")
	data, err := os.ReadFile("testdata/node.key")
	if err != nil {
		t.Fatal(err)
	}
	// A valid key after MaxKeyFile bytes of blank lines is still refused:
	// the file is not read past the bound.
	if err := os.WriteFile(big, append([]byte(strings.Repeat("\n", MaxKeyFile)), data...), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{big, "longer than"},
		{dir, "not a regular file"},
		{filepath.Join(dir, "absent.key"), "no such file"},
	} {
		if _, err := LoadPrivateKey(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadPrivateKey(%s) = %v, want %q", filepath.Base(tc.path), err, tc.want)
		}
		if _, err := LoadPublicKey(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadPublicKey(%s) = %v, want %q", filepath.Base(tc.path), err, tc.want)
		}
	}
}

// TestPrivateKeyPermissions: as ssh does, a private key file its group or
// others may read or write is refused, and the message gives the chmod
// that fixes it; a public key may be read by anyone.
func TestPrivateKeyPermissions(t *testing.T) {
	if !permissionsMatter {
		t.Skip("mode bits do not say who may read a file here")
	}
	dir := t.TempDir()
	write := func(name, from string, mode os.FileMode) string {
		data, err := os.ReadFile(filepath.Join("testdata", from))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // whatever the umask
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		mode    os.FileMode
		refused bool
	}{{0o600, false}, {0o400, false}, {0o700, false}, {0o640, true}, {0o644, true}, {0o604, true}, {0o620, true}, {0o666, true}} {
		p := write(fmt.Sprintf("node-%04o.key", tc.mode), "node.key", tc.mode)
		_, err := LoadPrivateKey(p)
		switch {
		case !tc.refused && err != nil:
			t.Errorf("mode %04o: %v", tc.mode, err)
		case tc.refused && (!errors.Is(err, ErrKeyPermissions) || !strings.Contains(err.Error(), "chmod 600 "+p) ||
			!strings.Contains(err.Error(), fmt.Sprintf("%04o", tc.mode))):
			t.Errorf("mode %04o: %v, want ErrKeyPermissions naming the mode and chmod 600", tc.mode, err)
		}
	}
	if _, err := LoadPublicKey(write("node.pub", "node.pub", 0o644)); err != nil {
		t.Errorf("a public key readable by all: %v", err)
	}
}
