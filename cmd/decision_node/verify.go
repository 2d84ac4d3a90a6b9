package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/pyref"
)

const verifyDescription = `
Audits a recording (ADR-0021, ADR-0022). For every decision on /decisions it
finds the self-assessments with the same stamp and recomputes their SHA-256
(chain status verified, broken, assessment_missing or no_assessment_claimed),
checks the stamps, and re-decides the recording: its inputs go, in log-time
order with log times as arrival times, through the same Loop as the live node
and replay, with the policy the decision names (supplied by this host, never
taken from the recording); each recorded decision must come out identical.

Verdict PASS only when the recording holds at least one decision and every
decision on the decisions topic was decoded, its chain verified (or it claims
no assessment and the re-run shows why), its re-run matched, no belief between
the first and the last decision lacks a decision (beliefs before the first or
after the last are reported: a recorder that started early or stopped late),
every channel on the decisions topic was readable, the read reached the end
of the file, and the action trail on /decisions/actions holds: every receipt
traces to a verified decision of its kind and to an executor this host
supplies (--executor, --enable, --enable-kill, --target-vehicle, as the
recording host ran) that serves the kind, every command is that executor's
documented mapping, all accepted evidence satisfies provenance, and the
trail equals the one the Loop and Runner derive from the recorded inputs
and evidence. Anything else is a finding with its own count. --allow FINDING
(repeatable) reports a finding without failing on it; the report says which.
Findings: read_incomplete, no_decisions, unreadable_decisions_channel,
undecodable_decision, chain_broken, assessment_missing, diverged, no_context,
unknown_policy, missing_decision, stamp_problem, undecodable_receipt,
action_untraced, action_command, action_evidence, action_diverged.

Prints a summary; --json writes a machine-readable report ("-" for stdout)
with the verdict, its reasons and whether the read was complete.

Exit status 0 on PASS, 1 on FAIL; the printed verdict and the exit status
always agree.

Several recordings, or directories (searched for *.mcap), are audited at
once on all cores, each exactly as alone; the summary is then one row per
file (decisions, verdict, reasons) in argument order and a total, --json
writes an object {"files": [{path, exit_status, error, report}], "total":
{...}}, and the exit status is the worst of the files' (3 when one could not
be read).`

const verifyExample = `  decision_node sim --out flight.mcap
  decision_node verify flight.mcap --json report.json
  decision_node verify fleet/ --json fleet.json`

func runVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("verify", "verify recording.mcap [more.mcap | directory ...] [--json report.json]", verifyDescription, verifyExample, stderr)
	jsonOut := fs.String("json", "", "write the report as JSON to `file` (\"-\" for stdout)")
	format := fs.String("format", "ghost", "shape of the --json report: ghost (verdict, findings, counts, problems) or reference (the Python reference's ADR-0022 DecisionTraceReport)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	config := fs.String("config", "", "ROS 2 parameters `file` naming the topics and timeouts (as config/decision.yaml); default: the built-in ones")
	var policyFiles []string
	fs.Func("policy-file", "YAML rule policy `file` this host supplies (repeatable); a decision is re-run with the policy whose id it names",
		func(s string) error { policyFiles = append(policyFiles, s); return nil })
	var ef executorFlags
	ef.register(fs)
	var allow findingList
	fs.Var(&allow, "allow", "report `finding` without failing on it (repeatable), e.g. --allow unknown_policy")
	// Accept the recordings before or after the flags.
	var paths []string
	for len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		paths, args = append(paths, args[0]), args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	paths = append(paths, fs.Args()...)
	if len(paths) == 0 {
		fs.Usage()
		return fail(exitUsage, "verify needs a recording (or several, or a directory of them)")
	}
	path := paths[0]
	cfg, sopts, policies, err := auditSettings(*config, policyFiles)
	if err != nil {
		return err
	}
	if err := ef.apply(&sopts, false, nil); err != nil {
		return err
	}
	if *format != "ghost" && *format != "reference" {
		return fail(exitUsage, "--format %q: want ghost or reference", *format)
	}
	if st, err := os.Stat(path); len(paths) > 1 || (err == nil && st.IsDir()) {
		if *format != "ghost" {
			return fail(exitUsage, "--format reference writes one recording's trace: give one recording")
		}
		files, err := expandRecordings(paths)
		if err != nil {
			return err
		}
		return verifyMany(files, verifySetup{cfg: cfg, sopts: sopts, policies: policies, allow: allow}, *jsonOut, stdout, stderr)
	}
	if *jsonOut != "" && *jsonOut != "-" {
		// Refuse a report path that is the recording or not a regular
		// file before the work, not after it.
		if err := checkOutput("--json", *jsonOut, path, true); err != nil {
			return err
		}
	}
	reader, vopts, source, err := openAudit(path, cfg, sopts, stderr)
	if err != nil {
		return err
	}
	defer reader.Close()
	progress := newProgress(stderr, "verify", *quiet)
	var trace []pyref.TraceRecord
	vopts.Policies = policies
	vopts.Relax = allow
	vopts.Total = reader.MessageCount()
	vopts.OnProgress = progress.update
	vopts.OnCorrupt = func(err error) { fmt.Fprintf(stderr, "decision_node: verify: skipped: %v\n", err) }
	if *format == "reference" {
		vopts.OnAudit = func(a audit.DecisionAudit) { trace = append(trace, audit.TraceRecord(a)) }
	}
	src, reportOrder := inLogTimeOrder(reader, path, stderr)
	report, verr := audit.Verify(src, vopts)
	reportOrder()
	if report == nil {
		return fail(exitIO, "%s: %w", path, verr)
	}
	fmt.Fprintf(stdout, "format\t%s\n", source)
	printAuditSummary(stdout, path, report)
	if *jsonOut != "" {
		var err error
		if *format == "reference" {
			err = writeTrace(*jsonOut, path, stdout, trace)
		} else {
			err = writeJSON(*jsonOut, path, stdout, report)
		}
		if err != nil {
			return err
		}
	}
	if !report.Passed() {
		// The report already says why (a damaged file: read_incomplete).
		return &exitError{code: exitFindings, err: fmt.Errorf("%s: verdict FAIL: %s", path, strings.Join(report.Reasons, "; "))}
	}
	return nil
}

// findingList collects --allow flags.
type findingList []audit.Finding

func (l *findingList) String() string { return fmt.Sprint(*l) }

func (l *findingList) Set(s string) error {
	f, err := audit.ParseFinding(s)
	if err != nil {
		return err
	}
	*l = append(*l, f)
	return nil
}

// writeTrace writes the Python reference's DecisionTraceReport of the
// audited decisions, with the SHA-256 of the recording's bytes.
func writeTrace(out, recording string, stdout io.Writer, records []pyref.TraceRecord) error {
	f, err := os.Open(recording)
	if err != nil {
		return fail(exitIO, "%w", err)
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return fail(exitIO, "%s: %w", recording, err)
	}
	data := pyref.AppendTraceReport(nil, pyref.NewTraceReport(hex.EncodeToString(h.Sum(nil)), records))
	if out == "-" {
		if _, err := stdout.Write(data); err != nil {
			return fail(exitIO, "write report: %w", err)
		}
		return nil
	}
	return writeFileAtomic("--json", out, recording, data)
}

// writeJSON writes the report to path ("-" for stdout) through a temporary
// file, never over the recording it audits.
func writeJSON(path, recording string, stdout io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fail(exitIO, "report: %w", err)
	}
	data = append(data, '\n')
	if path == "-" {
		if _, err := stdout.Write(data); err != nil {
			return fail(exitIO, "write report: %w", err)
		}
		return nil
	}
	return writeFileAtomic("--json", path, recording, data)
}
