// Package bag reads and writes rosbag2-profile MCAP recordings (profile
// ros2, ros2msg schemas, cdr messages, offered_qos_profiles metadata) as a
// thin layer over github.com/foxglove/mcap/go/mcap, using only its public
// API: the library's Writer lays out the file, its parsers read records.
//
// It adds what a recorder of safety evidence needs and the library does not
// give safely: a Recorder whose chunks close by size or log-time span, are
// compressed in parallel lanes and can be awaited (WaitChunks), and a Reader
// that treats its file as hostile: bounded records, chunks and
// decompression, CRC checks, chunk framing checked before any parse,
// truncation reported with its byte offset, and per-channel problems
// instead of a failed read.
//
// It stores and reads bytes; it must not decode messages or decide anything.
package bag
