package main

import (
	"crypto/ed25519"
	"flag"
	"fmt"
	"io"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/seal"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// Seals (docs/seals.md): sim, replay and ulog seal their output only with a
// key given by --signing-key, because a replay is a new claim, made by
// whoever holds that key, never the vehicle's; verify trusts only the keys
// given by --trust-key.

// sealTopic is the resolved seal topic of a validated configuration.
func sealTopic(cfg config.Config) string {
	t, err := cfg.ResolvedTopics()
	if err != nil || t.Seal() == "" {
		return session.DefaultTopics().Seal()
	}
	return t.Seal()
}

// signingKey loads --signing-key, nil without one.
func (f *decisionFlags) signingKey() (ed25519.PrivateKey, error) {
	if f.signingKeyFile == "" {
		return nil, nil
	}
	k, err := seal.LoadPrivateKey(f.signingKeyFile)
	if err != nil {
		return nil, fail(exitIO, "--signing-key: %w", err) // a file it names is unusable
	}
	return k, nil
}

// sealedOutput returns where a decision command writes: rec itself without
// a key, else a recorder that seals every message written and, on close,
// writes the final seal.
func sealedOutput(rec *bag.Recorder, key ed25519.PrivateKey, cfg config.Config) (audit.Recorder, func() error, error) {
	if key == nil {
		return rec, rec.Close, nil
	}
	s, err := seal.NewSealer(key)
	if err != nil {
		return nil, nil, fail(exitUsage, "--signing-key: %w", err)
	}
	qos := cfg.QoS[session.KeySeal]
	out, err := seal.NewRecorder(rec, s, seal.RecorderOptions{Topic: sealTopic(cfg), QoS: &qos})
	if err != nil {
		return nil, nil, fail(exitIO, "%w", err)
	}
	return out, out.Close, nil
}

// trustKeys collects --trust-key flags; load reads them once the command
// line is parsed, so that an unusable key file is exit status 3, as any
// unusable input, not a usage error.
type trustKeys []ed25519.PublicKey

// trustKeyFiles are the --trust-key files as given.
type trustKeyFiles []string

func (k *trustKeyFiles) String() string { return fmt.Sprint(len(*k), " keys") }

func (k *trustKeyFiles) Set(path string) error {
	*k = append(*k, path)
	return nil
}

// load reads every key file.
func (k trustKeyFiles) load() (trustKeys, error) {
	var keys trustKeys
	for _, path := range k {
		pub, err := seal.LoadPublicKey(path)
		if err != nil {
			return nil, fail(exitIO, "--trust-key: %w", err)
		}
		keys = append(keys, pub)
	}
	return keys, nil
}

func (k *trustKeyFiles) register(fs *flag.FlagSet) {
	fs.Var(k, "trust-key", "public key `file` (PEM, openssl pkey -pubout) whose seals are trusted (repeatable): the recording must hold exactly the messages they seal (docs/seals.md)")
}

// sealOptions are the seal check of an audit: report-only without trusted
// keys. Another recorder's log times may put a message on the wrong side
// of a seal by as much as its receipts may be skewed.
func sealOptions(cfg config.Config, skewOf audit.VerifyOptions) *seal.CheckOptions {
	return &seal.CheckOptions{Topic: sealTopic(cfg), Skew: skewOf.ReceiptTimeSkew}
}

// printSeals prints the seal check, if there is one.
func printSeals(w io.Writer, r *audit.AuditReport) {
	if r.Seals == nil {
		return
	}
	for _, l := range r.Seals.Lines() {
		fmt.Fprintf(w, "seals: %s\n", l)
	}
}
