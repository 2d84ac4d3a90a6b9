package main

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// printDecisionSummary writes the end-of-run table: decisions per kind,
// decided without assessment, rejected inputs by reason, corrupt messages,
// the output path.
func printDecisionSummary(w io.Writer, c session.Counters, st session.SessionStats, messages uint64, out string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "messages read\t%d\t(%s)\n", messages, inputCounts(st, false))
	fmt.Fprintf(tw, "decisions\t%d\t\n", c.DecisionsTotal())
	for _, k := range decisions.Kinds() {
		fmt.Fprintf(tw, "  %s\t%d\t\n", k, c.Decisions[k])
	}
	fmt.Fprintf(tw, "decided without assessment\t%d\t", c.WithoutAssessment)
	sep := "("
	for w := engine.WithoutReason(1); w < engine.NumWithoutReasons; w++ {
		if n := c.WithoutAssessmentBy[w]; n > 0 {
			fmt.Fprintf(tw, "%s%s %d", sep, w, n)
			sep = ", "
		}
	}
	if sep != "(" {
		fmt.Fprint(tw, ")")
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "rejected inputs\t%d\t\n", c.RejectedTotal())
	for r := engine.RejectReason(0); r < engine.NumRejectReasons; r++ {
		if n := c.Rejected[r]; n > 0 {
			fmt.Fprintf(tw, "  %s\t%d\t\n", r, n)
		}
	}
	if c.Duplicates > 0 {
		fmt.Fprintf(tw, "identical repeats ignored\t%d\t\n", c.Duplicates)
	}
	if n := st.Corrupt(); n > 0 {
		fmt.Fprintf(tw, "corrupt messages skipped\t%d\t(%s)\n", n, inputCounts(st, true))
	}
	if c.ProvenanceViolations > 0 {
		fmt.Fprintf(tw, "provenance violations\t%d\t\n", c.ProvenanceViolations)
	}
	if a := c.Actions; a != (session.ActionCounts{}) {
		fmt.Fprintf(tw, "commands sent\t%d\t(retries %d, refused %d, send errors %d)\n", a.Sent, a.Retried, a.Refused, a.SendErrors)
		fmt.Fprintf(tw, "evidence batches\t%d\t(rejected %d, repeats %d)\n", a.EvidenceAccepted, a.EvidenceRejected, a.EvidenceRepeats)
		for o := engine.Outcome(0); o < session.NumOutcomes; o++ {
			fmt.Fprintf(tw, "  %s\t%d\t\n", o, a.Outcomes[o])
		}
		for f := engine.FailureClass(1); f < engine.NumFailureClasses; f++ {
			fmt.Fprintf(tw, "    failed %s\t%d\t\n", f, a.Failures[f])
		}
	}
	if out != "" {
		fmt.Fprintf(tw, "output\t%s\t\n", out)
	}
	tw.Flush()
}

// inputCounts lists the messages (or the corrupt ones) per input key.
func inputCounts(st session.SessionStats, corrupt bool) string {
	var b strings.Builder
	for i, in := range st.Inputs {
		if i > 0 {
			b.WriteString(", ")
		}
		n := in.Messages
		if corrupt {
			n = in.Corrupt
		}
		fmt.Fprintf(&b, "%s %d", in.Key, n)
	}
	return b.String()
}

// auditHints are what the host knows that makes a cause's fix exact.
type auditHints struct {
	// rulePolicies are the rule policy files the host supplied, by id.
	rulePolicies map[string]string
}

// printAuditSummary writes verify's human report.
func printAuditSummary(w io.Writer, path string, r *audit.AuditReport, hints auditHints) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "recording\t%s\t\n", path)
	fmt.Fprintf(tw, "decisions\t%d\t\n", r.Decisions)
	reasons := r.ReasonCounts()
	for _, k := range decisions.Kinds() {
		fmt.Fprintf(tw, "  %s\t%d\t", k, r.KindCount(k))
		sep := "("
		for _, rc := range reasons {
			if rc.Kind == k {
				fmt.Fprintf(tw, "%s%s %d", sep, rc.Reason, rc.N)
				sep = ", "
			}
		}
		if sep != "(" {
			fmt.Fprint(tw, ")")
		}
		fmt.Fprintln(tw)
	}
	ids, counts := r.Policies()
	fmt.Fprintln(tw, "by policy\t\t")
	for i, id := range ids {
		fmt.Fprintf(tw, "  %s\t%d\t\n", id, counts[i])
	}
	fmt.Fprintln(tw, "hash chain\t\t")
	for s := audit.ChainStatus(0); s < audit.NumChainStatuses; s++ {
		fmt.Fprintf(tw, "  %s\t%d\t\n", s, r.ChainCount(s))
	}
	fmt.Fprintln(tw, "policy re-run\t\t")
	for s := audit.RerunStatus(0); s < audit.NumRerunStatuses; s++ {
		fmt.Fprintf(tw, "  %s\t%d\t\n", s, r.RerunCount(s))
	}
	fmt.Fprintf(tw, "stamp problems\t%d\t\n", r.StampProblems)
	if len(r.Actions) > 0 {
		fmt.Fprintln(tw, "action receipts\t\t")
		for _, k := range slices.Sorted(maps.Keys(r.Actions)) {
			fmt.Fprintf(tw, "  %s\t%d\t\n", k, r.Actions[k])
		}
		if r.ReceiptTimeSkewed > 0 {
			fmt.Fprintf(tw, "  matched with another time\t%d\t(at most %s apart: the recorder's log times)\n",
				r.ReceiptTimeSkewed, time.Duration(r.ReceiptTimeSkewMaxNs))
		}
	}
	if n := len(r.Undecided); n > 0 {
		fmt.Fprintf(tw, "beliefs without a recorded decision\t%d\t(before the first %d, between %d, after the last %d)\n",
			r.Undecided["before_first"]+r.Undecided["between"]+r.Undecided["after_last"],
			r.Undecided["before_first"], r.Undecided["between"], r.Undecided["after_last"])
	}
	if len(r.WithoutAssessment) > 0 {
		fmt.Fprint(tw, "decided without assessment, why\t\t")
		sep := "("
		for w := engine.WithoutReason(1); w < engine.NumWithoutReasons; w++ {
			if n := r.WithoutAssessment[w.String()]; n > 0 {
				fmt.Fprintf(tw, "%s%s %d", sep, w, n)
				sep = ", "
			}
		}
		fmt.Fprintln(tw, ")")
	}
	fmt.Fprintf(tw, "read to the end\t%v\t\n", r.ReadComplete)
	if r.Decisions > 0 {
		fmt.Fprintf(tw, "stamps\t%d .. %d\t(span %.3f s)\n", r.FirstStamp, r.LastStamp, float64(r.SpanNs)/1e9)
	}
	tw.Flush()
	printCauses(w, path, r, hints)
	printSeals(w, r)
	relaxed := ""
	if len(r.Relaxed) > 0 {
		relaxed = " (not failing on: " + strings.Join(r.Relaxed, ", ") + ")"
	}
	if r.Passed() {
		fmt.Fprintf(w, "verdict: PASS, every decision is justified by the recording%s\n", relaxed)
	} else {
		fmt.Fprintf(w, "verdict: FAIL: %s%s\n", strings.Join(r.Reasons, "; "), relaxed)
	}
}

// printCauses writes the problems grouped by cause: one line per cause
// with its count and, where the host can fix it, the fix, then a few
// distinct examples.
func printCauses(w io.Writer, path string, r *audit.AuditReport, hints auditHints) {
	relaxed := map[string]bool{}
	for _, f := range r.Relaxed {
		relaxed[f] = true
	}
	for _, c := range r.ProblemCauses() {
		allowed := ""
		if !slices.ContainsFunc(slices.Collect(maps.Keys(c.Findings)), func(f string) bool { return !relaxed[f] }) {
			allowed = " (allowed by --allow)"
		}
		text, n, _ := causeText(c, path, r, hints)
		fmt.Fprintf(w, "problem: %s%s\n", text, allowed)
		examples := c.Examples[:min(n, len(c.Examples))]
		for _, e := range examples {
			fmt.Fprintf(w, "  e.g. %s\n", e)
		}
		if more := c.Count - uint64(len(examples)); more > 0 {
			fmt.Fprintf(w, "  ... and %d more with this cause\n", more)
		}
	}
}

// causeText says what one cause of problems is, in a line, with the fix
// when this host can apply one (fixable), and how many of its examples
// are worth showing (alike examples add nothing to a line that names the
// fix).
func causeText(c audit.Cause, path string, r *audit.AuditReport, hints auditHints) (text string, examples int, fixable bool) {
	findings := slices.Sorted(maps.Keys(c.Findings))
	switch c.Cause {
	case audit.CausePolicyNotSupplied:
		also := ""
		if n := c.Count - c.Findings[string(audit.FindingUnknownPolicy)]; n > 0 {
			also = fmt.Sprintf(", and %d of its receipts could not be checked (%s)", n, findingCounts(c, slices.DeleteFunc(slices.Clone(findings),
				func(f string) bool { return f == string(audit.FindingUnknownPolicy) })))
		}
		decided := c.Findings[string(audit.FindingUnknownPolicy)]
		if file, id, ok := edited(c.Subject, hints.rulePolicies); ok {
			name, _, _ := cutLast(c.Subject, "_")
			return fmt.Sprintf("%d decisions were made by policy %s%s, but %s is %s: the same policy, %s, with other rules "+
				"(a rule policy's id ends in the hash of its rules: the file was changed after the recording was made). "+
				"Pass the file as it was then (from version control, or the copy kept with the recording); to see what the changed rules decide, "+
				"replay the recording with them: decision_node replay --in %s --out replayed.mcap --policy-file %s",
				decided, printable(c.Subject), also, file, id, name, shellQuote(path), shellQuote(file)), 1, true
		}
		return fmt.Sprintf("%d decisions name policy %s, which was not supplied%s: pass --policy-file %s",
			decided, printable(c.Subject), also, policyFileHint(c.Subject)), 1, true
	case audit.CauseKindNotEnabled:
		return fmt.Sprintf("the recording acted on %s, which this host did not enable: pass %s, as the recording's host did (%s)",
			printable(c.Subject), enableFix(c.Subject), findingCounts(c, findings)), 1, true
	case audit.CauseKindEnabled:
		return fmt.Sprintf("this host enabled %s, which the recording's host did not: %s (%s)",
			printable(c.Subject), disableFix(c.Subject), findingCounts(c, findings)), 1, true
	case audit.CauseExecutorNotUsed:
		return fmt.Sprintf("the recording holds no action receipt: it was made without an executor (advisory), "+
			"but this host re-derived the commands executor %s would have sent (%s). Verify it without --executor",
			printable(c.Subject), findingCounts(c, findings)), 1, true
	case audit.CauseExecutorNotSupplied:
		return fmt.Sprintf("the recording holds actions by executor %s, which was not supplied: pass %s (%s)",
			printable(c.Subject), executorFix(c.Subject, r.ActedOn()), findingCounts(c, findings)), 1, true
	case audit.CauseVehicleNotTarget:
		if r.Target != nil && r.Target.From == audit.TargetGiven {
			return fmt.Sprintf("the recording's receipts name vehicle %s, not the target vehicle %d this host gave: "+
				"drop --target-vehicle (the recording's receipts name the vehicle) or pass --target-vehicle %s (%s)",
				printable(c.Subject), r.Target.Vehicle, printable(c.Subject), findingCounts(c, findings)), 1, true
		}
		target := "the target vehicle"
		if r.Target != nil {
			target += " " + targetText(*r.Target)
		}
		return fmt.Sprintf("receipts name vehicle %s, not %s: one recording commanding two vehicles (%s)",
			printable(c.Subject), target, findingCounts(c, findings)), audit.MaxCauseExamples, false
	case audit.CauseRecordingStartedLate:
		return fmt.Sprintf("the recording started after the node: %d decisions are older than its first belief or self-assessment, "+
			"so their inputs were never recorded (%s). Start the recorder before the node's inputs flow",
			c.Count, findingCounts(c, findings)), audit.MaxCauseExamples, false
	}
	return findingCounts(c, findings), audit.MaxCauseExamples, false
}

// edited finds, among the host's rule policies, one of the same name as
// id with other rules: its file and id.
func edited(id string, policies map[string]string) (file, other string, ok bool) {
	name, _, found := cutLast(id, "_")
	if !found {
		return "", "", false
	}
	for _, pid := range slices.Sorted(maps.Keys(policies)) {
		if n, _, _ := cutLast(pid, "_"); n == name && pid != id {
			return policies[pid], pid, true
		}
	}
	return "", "", false
}

// enableFix is the flag that enables kind: --enable-kill for engage_kill,
// --enable with the kind among the others.
func enableFix(kind string) string {
	if kind == decisions.KindEngageKill.String() {
		return "--enable-kill"
	}
	return "--enable with " + shellQuote(kind) + " among its kinds"
}

// executorFix is the command line that supplies executor with the kinds
// the recording's host acted on enabled: --enable-kill when it acted on
// engage_kill, --enable when it acted on a kind the default leaves out.
func executorFix(executor string, acted []decisions.Kind) string {
	fix := "--executor " + shellQuote(executor)
	enable := slices.Clone(defaultEnable)
	extra, kill := false, false
	for _, k := range acted {
		switch {
		case k == decisions.KindEngageKill:
			kill = true
		case !slices.Contains(enable, k):
			enable, extra = append(enable, k), true
		}
	}
	if extra {
		names := make([]string, len(enable))
		for i, k := range enable {
			names[i] = k.String()
		}
		fix += " --enable " + strings.Join(names, ",")
	}
	if kill {
		fix += " --enable-kill"
	}
	return fix
}

// disableFix says how to verify without kind enabled.
func disableFix(kind string) string {
	if kind == decisions.KindEngageKill.String() {
		return "verify without --enable-kill"
	}
	return "pass --enable with the kinds the recording's host enabled, without " + shellQuote(kind)
}

// rulePolicyFiles are the rule policies of files, by id.
func rulePolicyFiles(files []string) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		if p, err := rules.ParseFile(f); err == nil {
			out[p.ID()] = f
		}
	}
	return out
}

// findingCounts writes a cause's problems by finding: "diverged 3".
func findingCounts(c audit.Cause, findings []string) string {
	parts := make([]string, len(findings))
	for i, f := range findings {
		parts[i] = fmt.Sprintf("%s %d", f, c.Findings[f])
	}
	return strings.Join(parts, ", ")
}

// policyFileHint names the policy file to pass for a rule policy id: the
// file of this name in config/policies when it defines that very policy
// (its id carries the hash of its text), else FILE.
func policyFileHint(id string) string {
	name, hash, ok := cutLast(id, "_")
	if !ok || len(hash) != 12 || strings.ContainsAny(name, "/\\.") {
		return "FILE"
	}
	path := filepath.Join("config", "policies", name+".yaml")
	if p, err := rules.ParseFile(path); err == nil && p.ID() == id {
		return path
	}
	return "FILE (the rule policy file of " + name + " they were decided with)"
}

func cutLast(s, sep string) (before, after string, ok bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// printable is s as it may be printed: quoted when it holds anything but
// printable characters.
func printable(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) || r == ' ' {
			return strconv.Quote(s)
		}
	}
	return s
}
