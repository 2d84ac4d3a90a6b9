// Package testpolicy holds rule policies that the tests of several packages
// run, each written once. It imports nothing of the project and is for
// tests only.
package testpolicy

// HoldAfterUncertain2s holds once the belief has been uncertain for 2 s of
// its stamps, and on a missing assessment after 1 s: a probe of the clock
// the rules count in, on which neither may fire early.
const HoldAfterUncertain2s = `name: hold_after_uncertain_2s
version: 1
default: {action: proceed, reason: nominal}
rules:
  - name: uncertain_for_2s
    when: {effective_level: {at_least: uncertain}}
    for: 2s
    action: hold
    reason: uncertain_for_2s
  - name: assessment_missing
    when: {missing: assessment}
    for: 1s
    action: hold
    reason: assessment_missing
`
