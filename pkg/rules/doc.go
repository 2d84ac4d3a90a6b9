// Package rules implements rule policies written in YAML: ordered rules,
// each a condition over the decision context (the belief's assessment, the
// flight and mission status, and what became of earlier commands), a
// decision kind, a reason, a delay (`for`), a release condition (`clear`)
// and an optional silencing condition (`unless`), with the decision being
// the most severe fired rule. It parses and validates policy files strictly
// (every error names file:line:column), gives each policy an identity that
// names the rule set exactly (name plus a hash of its canonical form),
// evaluates contexts without allocating, checks policies for rules that can
// never decide, and runs table cases written by users.
//
// A policy's state (when a condition began to hold, which rules are
// latched) is a function of the contexts it decided, in stamp order, and
// nothing else: the package reads no clock, draws no random numbers and
// performs no I/O except ParseFile and RunCasesFile reading the file they
// are given. It does not assemble contexts, publish decisions or execute
// them; those belong to the packages that drive a decisions.Policy.
package rules
