package seal

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
)

// permissionsMatter is whether a file's mode bits say who may read it:
// not on Windows, whose access lists they do not show.
const permissionsMatter = runtime.GOOS != "windows"

// MaxKeyFile bounds the bytes read from a key file: an Ed25519 key in PEM is
// about 120 bytes, so anything near this is not a key.
const MaxKeyFile = 4 << 10

// KeyIDLen is the length of a key id in hex digits (8 bytes).
const KeyIDLen = 16

// ErrKey is matched by every error about a key file's content.
var ErrKey = errors.New("not an Ed25519 key")

// ErrKeyPermissions is matched by the error of a private key file that
// others than its owner may read or write: as ssh does, such a key is
// refused, since whoever could read it may have sealed with it.
var ErrKeyPermissions = errors.New("private key file open to others")

// KeyID returns the id seals name their key by: the first 8 bytes, in
// lowercase hex, of the SHA-256 of pub's PKIX (SubjectPublicKeyInfo) DER,
// which is what `openssl pkey -pubout -outform DER` writes.
func KeyID(pub ed25519.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		// Only a key of the wrong length fails; its id matches nothing.
		return fmt.Sprintf("invalid-%d-bytes", len(pub))
	}
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:KeyIDLen/2])
}

// LoadPrivateKey reads an Ed25519 private key from a PEM file holding one
// unencrypted PKCS#8 "PRIVATE KEY" block, as `openssl genpkey -algorithm
// ed25519` writes it.
//
// The file must be private: one that its group or others may read or write
// is refused with ErrKeyPermissions, whose message gives the chmod that
// fixes it.
func LoadPrivateKey(path string) (ed25519.PrivateKey, error) {
	data, err := readKeyFile(path, true)
	if err != nil {
		return nil, err
	}
	k, err := ParsePrivateKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return k, nil
}

// LoadPublicKey reads an Ed25519 public key from a PEM file holding one PKIX
// "PUBLIC KEY" block, as `openssl pkey -in KEY -pubout` writes it.
func LoadPublicKey(path string) (ed25519.PublicKey, error) {
	data, err := readKeyFile(path, false)
	if err != nil {
		return nil, err
	}
	k, err := ParsePublicKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return k, nil
}

// readKeyFile reads at most MaxKeyFile bytes of a regular file: a device or
// a pipe named by mistake is refused before it is opened (it would block or
// never end). A private key's file must be private.
func readKeyFile(path string, private bool) ([]byte, error) {
	f, err := limitedfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	defer f.Close()
	if private {
		st, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("key file: %w", err)
		}
		if perm := st.Mode().Perm(); perm&0o077 != 0 && permissionsMatter {
			return nil, fmt.Errorf("key file %s: %w: mode %04o lets its group or others read or write it; a private key must be private: chmod 600 %s",
				path, ErrKeyPermissions, perm, path)
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	if len(data) > MaxKeyFile {
		return nil, fmt.Errorf("key file %s: %w: longer than %d bytes", path, ErrKey, MaxKeyFile)
	}
	return data, nil
}

// ParsePrivateKeyPEM parses one unencrypted PKCS#8 Ed25519 private key in
// PEM; anything but whitespace around the block is an error.
func ParsePrivateKeyPEM(data []byte) (ed25519.PrivateKey, error) {
	block, err := onePEMBlock(data)
	if err != nil {
		return nil, err
	}
	switch block.Type {
	case "PRIVATE KEY":
	case "ENCRYPTED PRIVATE KEY":
		return nil, fmt.Errorf("%w: the key is encrypted; the node reads unencrypted PKCS#8 (openssl genpkey -algorithm ed25519)", ErrKey)
	case "PUBLIC KEY":
		return nil, fmt.Errorf("%w: a public key where a private key is needed", ErrKey)
	default:
		return nil, fmt.Errorf("%w: PEM block %q, want \"PRIVATE KEY\" (PKCS#8)", ErrKey, clip(block.Type))
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: PKCS#8: %w", ErrKey, err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: a %T in PKCS#8, want Ed25519", ErrKey, k)
	}
	return priv, nil
}

// ParsePublicKeyPEM parses one PKIX Ed25519 public key in PEM; anything but
// whitespace around the block is an error.
func ParsePublicKeyPEM(data []byte) (ed25519.PublicKey, error) {
	block, err := onePEMBlock(data)
	if err != nil {
		return nil, err
	}
	switch block.Type {
	case "PUBLIC KEY":
	case "PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
		return nil, fmt.Errorf("%w: a private key where the public key is needed (openssl pkey -in KEY -pubout): the private key stays with the node", ErrKey)
	default:
		return nil, fmt.Errorf("%w: PEM block %q, want \"PUBLIC KEY\" (PKIX)", ErrKey, clip(block.Type))
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: PKIX: %w", ErrKey, err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%w: a %T in PKIX, want Ed25519", ErrKey, k)
	}
	return pub, nil
}

// onePEMBlock decodes the single PEM block of data, without headers.
func onePEMBlock(data []byte) (*pem.Block, error) {
	block, rest := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%w: no PEM block", ErrKey)
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, fmt.Errorf("%w: %d bytes after the PEM block: one key per file", ErrKey, len(bytes.TrimSpace(rest)))
	}
	if len(block.Headers) > 0 {
		return nil, fmt.Errorf("%w: PEM headers (an encrypted legacy key?): want plain PKCS#8 or PKIX", ErrKey)
	}
	return block, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
