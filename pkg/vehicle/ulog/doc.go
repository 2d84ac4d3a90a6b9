// Package ulog reads PX4 ULog flight logs (.ulg), written from the ULog
// file format specification. Its job is to turn a log into typed messages
// and to give access to logged values by field name, as the log's own
// format definitions lay them out, so it works across PX4 releases whose
// field order differs. It does not map PX4 topics to anything else, write
// logs, seek, or keep samples: a Reader holds the definitions and the
// current message only, so memory does not grow with the length of a log.
//
// Reading:
//
//	r, err := ulog.NewReader(f, ulog.Options{})
//	for m, err := range r.Messages() {
//		if d, ok := m.(*ulog.Data); ok && d.Name() == "vehicle_local_position" {
//			eph, ok := d.Float("eph") // ok is false if this release has no eph
//			...
//		}
//	}
//	if t, ok := r.Truncated(); ok { ... }
//
// For a loop over many samples, look fields up once per format with
// Format.Field and read them with Data.FloatAt and friends. ReadAll reads a
// whole log into a Summary (info, parameters, subscriptions with counts,
// logged strings, dropouts, problems).
//
// # What fails and what is counted
//
// Errors end reading; they are returned by NewReader, or by Next after every
// message before them:
//   - not a ULog (ErrNotULog), a header cut short (ErrTruncated);
//   - a flag bits message shorter than 40 bytes (ErrBadFlagBits);
//   - an incompatible flag bit other than DATA_APPENDED (*IncompatError,
//     naming the bit), as the specification demands;
//   - a read error of the underlying io.Reader.
//
// Everything else is a Problem: counted (Reader.ProblemCount), kept in
// detail up to Options.MaxProblems, and stepped over. The rule: whatever
// makes a subscription's later data uninterpretable is reported for that
// subscription (Subscription.Err) and its data is skipped (counted in
// Subscription.Skipped); the rest of the log continues.
//   - An unknown message type is skipped (ProblemUnknownType).
//   - A known message too short for its fixed part, an info or parameter key
//     that is not "type name", a parameter that is not int32_t or float, a
//     sync message with the wrong magic, a second flag bits message: that
//     message is skipped (ProblemMalformed). An info value that does not
//     fit its type is kept raw (Info.Value nil).
//   - An 'F' that does not parse is ignored (ProblemBadFormat); a second,
//     different 'F' for a name is ignored and the first kept
//     (ProblemDuplicateFormat).
//   - A subscription whose format is not defined, names an unknown nested
//     type, nests recursively or deeper than 32 levels, or lays out larger
//     than 65535 bytes: the subscription's data is skipped
//     (ProblemUnresolved, once per subscription). Formats are resolved
//     when first used, so a nested type may be defined after its user.
//   - A second 'A' giving a msg_id in use a different name or instance:
//     that msg_id's data is skipped (ProblemDuplicateSubscription).
//   - A 'D' for a msg_id without subscription (ProblemUnknownMsgID), or
//     whose length is neither the format's size nor that size without a
//     trailing padding field (ProblemDataSize): that message is skipped.
//   - An Options limit reached: the message is skipped (ProblemLimit).
//   - Appended data (DATA_APPENDED): reading continues as ordinary data at
//     each appended offset; a message cut by the offset is discarded and an
//     offset behind the reading position ignored (ProblemAppended).
//
// A log that ends inside a message ends reading cleanly (io.EOF) after
// every complete message; Reader.Truncated says where (*Truncation, which
// matches ErrTruncated).
//
// Names follow pyulog: "q[0]" for array elements, "a.b" for nested fields,
// "heartbeats[1].system_id" for both. Fields whose names start with
// "_padding" are laid out but not addressable. Char arrays read as strings.
package ulog
