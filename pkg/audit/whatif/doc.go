// Package whatif answers "what would a candidate policy have decided on the
// flights already flown?": it re-decides recordings under a candidate
// policy (through audit.Redecide, the pipeline of replay and verify) and
// compares the candidate's decisions, stamp by stamp, with a baseline: the
// decisions the recording holds, or a second policy run on the same inputs.
//
// Per flight it reports the decisions that differ by kind pair, the first
// divergence, each failsafe kind's onset moved earlier or later, the
// reasons (and the rules behind them) that fired differently, and rows of
// differing decisions; everything after the first decision that would have
// commanded the vehicle differently is marked counterfactual, since from
// there the recorded vehicle is what the baseline made of it. A fleet
// summary totals the flights. Flights are compared on a bounded pool of
// workers and reduced to small summaries as they finish, and written in
// the order of their names, so the same inputs give the same bytes
// whatever the number of workers; a flight that cannot be read is a named
// failure, never left out. Writers give text, JSON lines and an HTML page
// in the report's style.
//
// The package reads recordings only through the Sources its caller opens
// and decides nothing itself: the Sessions of audit.Redecide do. It must
// not open files by name, read a clock into its output or import the
// vehicle side (the caller maps a PX4 log to a Source).
package whatif
