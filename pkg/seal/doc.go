// Package seal makes and checks recording seals: signed claims, by the node
// that took and published a set of messages, of exactly which messages those
// were, in which order per topic (ghost/msg/RecordingSeal, docs/seals.md).
//
// A Sealer folds every message into per-topic SHA-256 chains and, when its
// owner asks, signs the interval with an Ed25519 key read from a PEM file
// (LoadPrivateKey). A Recorder wraps a bag.Recorder so that what sim and
// replay write is sealed as the node seals what it takes and publishes. A
// Checker reads a recording back and says from which seal to which the
// recording holds exactly the sealed messages, or names the first break.
//
// The package hashes bytes, signs and checks; it must not decide anything,
// read a clock, or trust a key it was not given: a seal proves only who
// signed it, and only the caller knows whom to trust.
package seal
