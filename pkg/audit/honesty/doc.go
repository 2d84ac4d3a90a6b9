// Package honesty audits a recording's beliefs against a simulator's
// ground truth: did the vehicle know what it claimed to know? For every
// belief that has truth around its stamp it compares the true error of
// each axis with what the self-assessment claimed (the standard deviation
// and the KNOWN, UNCERTAIN or UNKNOWN level), and it follows the
// consequences into the decisions taken on those beliefs.
//
// Per axis (named as the assessment's rules name them: position_x ...
// orientation_z) it counts the KNOWN claims whose true error exceeded the
// known threshold (overconfidence) and the UNCERTAIN or UNKNOWN claims whose
// true error was within it (underconfidence), with the time each held, and
// the RMS of the error normalized by the claimed deviation (1 when the
// claims are honest). Per block it gives the NEES with its chi-square
// bounds. It lists the decisions taken on overconfident beliefs, and the
// holds and abstentions that were needless because every axis the
// assessment doubted was in fact within the known threshold.
//
// The numbers follow from rules written down in docs/honesty.md: truth is
// interpolated linearly to each belief stamp from the samples on either
// side, and gives no verdict when either is more than MaxGap away or
// missing (counted as gaps); the truth is mapped to ghost's frames as the
// estimates are (package truth). Each position axis is aligned once per
// recording (align.go): in the global frame, the simulator's global
// position projected into the origin the estimator declares, when the
// recording holds both; otherwise by an offset, the median of estimate
// minus truth over a window from the axis' first claim within the known
// threshold, moved by the estimator's resets. Velocities and attitude need
// no alignment.
//
// The estimator's declared origin is a statement of its frame, not of the
// vehicle's state: expressing the truth in it takes nothing of the
// estimate for truth. The package reads a recording and judges nothing
// but the beliefs against the truth. It must not decide, re-run policies
// or take the estimator's own output for truth: with no simulator truth
// (or only one of its two halves) it gives no verdict.
package honesty
