package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/audit/pyref"
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
supplies (--executor, --enable, --enable-kill, as the recording host ran)
that serves the kind, every command is that executor's documented mapping,
all accepted evidence satisfies provenance, and the trail equals the one
the Loop and Runner derive from the recorded inputs and evidence. The
trail is checked against one vehicle: --target-vehicle when given, else
the one the recording's first receipt names, else the --config file's
(1); the summary says which and where from. Anything else is a finding
with its own count. --allow FINDING (repeatable) reports a finding without
failing on it; the report says which.
Findings: read_incomplete, no_decisions, unreadable_decisions_channel,
undecodable_decision, chain_broken, assessment_missing, diverged, no_context,
unknown_policy, missing_decision, stamp_problem, undecodable_receipt,
action_untraced, action_command, action_evidence, action_diverged,
seal_broken.

Seals (docs/seals.md): a node given a key, or sim, replay and ulog given
--signing-key, seals what it takes and publishes on /decisions/seal. Without
--trust-key, verify counts the seals and names their keys, and trusts none.
With --trust-key KEY.pub (repeatable), the recording must hold exactly the
messages sealed by those keys, each topic in its sealed order: a message
inserted, dropped, changed or reordered, a seal missing or not signed by a
trusted key, a message the audit reads that no seal covers, is seal_broken,
and the first break is named (topic, log time, index). A recording cut
short is trusted up to its last whole seal, and one from a recorder that
started late from the first interval it holds whole; verify says so.

Prints a summary, then the problems grouped by cause: one line per cause
with its count and, when this host can remove it, the fix (the
--policy-file or --executor to pass), and a few examples. --json writes a
machine-readable report ("-" for stdout) with the verdict, its reasons,
whether the read was complete and, on FAIL, the causes.

Exit status 0 on PASS, 1 on FAIL; the printed verdict and the exit status
always agree.

A rosbag2 bag directory (metadata.yaml, MCAP storage) is one recording,
however many files ros2 bag record split it into: its files are read one
after the other, in the order metadata.yaml lists them.

Several recordings, or directories (searched for rosbag2 bags and other
*.mcap files), are audited at once on all cores, each exactly as alone; the
summary is then one row per recording (decisions, verdict, reasons) in
argument order and a total, --json writes an object {"files": [{path,
exit_status, error, report}], "total": {...}}, and the exit status is the
worst of the recordings' (3 when one could not be read).`

const verifyExample = `  decision_node sim --out flight.mcap
  decision_node verify flight.mcap --json report.json
  decision_node verify rosbag2_2026_12_01-10_00_00/      # a rosbag2 bag, split or not
  decision_node verify fleet/ --json fleet.json`

func runVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("verify", verifyDescription, verifyExample, stdout)
	jsonOut := fs.String("json", "", "write the report as JSON to `file` (\"-\" for stdout)")
	format := fs.String("format", "ghost", "shape of the --json report: ghost (verdict, findings, counts, problems) or reference (the Python reference's ADR-0022 DecisionTraceReport)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	config := fs.String("config", "", "ROS 2 parameters `file` naming the topics and timeouts (as config/decision.yaml); default: the built-in ones")
	var policyFiles []string
	fs.Func("policy-file", "YAML rule policy `file` this host supplies (repeatable); a decision is re-run with the policy whose id it names",
		func(s string) error { policyFiles = append(policyFiles, s); return nil })
	var ef executorFlags
	ef.register(fs.FlagSet)
	var allow findingList
	fs.Var(&allow, "allow", "report `finding` without failing on it (repeatable), e.g. --allow unknown_policy")
	var trustFiles trustKeyFiles
	trustFiles.register(fs.FlagSet)
	if err := fs.parse(args); err != nil {
		return err
	}
	paths := fs.Args()
	if len(paths) == 0 {
		return fail(exitUsage, "verify needs a recording (or several, or a directory of them)")
	}
	path := paths[0]
	trust, err := trustFiles.load()
	if err != nil {
		return err
	}
	cfg, sopts, policies, err := auditSettings(*config, policyFiles)
	if err != nil {
		return err
	}
	ins := fs.inputsWith(cfg)
	if err := fs.checkOutputs(ins); err != nil {
		return err
	}
	if cfg.PolicyFile != "" {
		policyFiles = append(policyFiles, cfg.PolicyFile)
	}
	if err := ef.apply(&sopts, false, nil); err != nil {
		return err
	}
	target := ef.targetChoice(sopts, *config)
	if *format != "ghost" && *format != "reference" {
		return fail(exitUsage, "--format %q: want ghost or reference", *format)
	}
	rec, one := recordingAt(path)
	if len(paths) > 1 || !one {
		if *format != "ghost" {
			return fail(exitUsage, "--format reference writes one recording's trace: give one recording")
		}
		recs, err := expandRecordings(paths)
		if err != nil {
			return err
		}
		if len(recs) == 1 && len(recs[0].files) > 1 {
			// The files of one split recording, named or in their
			// directory: one flight, audited and reported as one.
			return verifySingle(recs[0], recs[0].name, verifySetup{cfg: cfg, sopts: sopts, target: target, policies: policies, allow: allow, trust: trust, inputs: ins, policyFiles: policyFiles},
				*format, *jsonOut, *quiet, stdout, stderr)
		}
		return verifyMany(recs, verifySetup{cfg: cfg, sopts: sopts, target: target, policies: policies, allow: allow, trust: trust, inputs: ins, policyFiles: policyFiles},
			*jsonOut, stdout, stderr)
	}
	return verifySingle(rec, path, verifySetup{cfg: cfg, sopts: sopts, target: target, policies: policies, allow: allow, trust: trust, inputs: ins, policyFiles: policyFiles},
		*format, *jsonOut, *quiet, stdout, stderr)
}

// verifySingle audits one recording (a file, or a rosbag2 bag as one) and
// prints its summary, and its report as JSON when asked.
func verifySingle(rec recording, path string, setup verifySetup, format, jsonOut string, quiet bool, stdout, stderr io.Writer) error {
	if format == "reference" && len(rec.files) > 1 {
		return fail(exitUsage, "--format reference writes one file's trace, with its SHA-256: %s is a bag of %d files", path, len(rec.files))
	}
	if jsonOut != "" && jsonOut != "-" {
		// Refuse a report path that is the recording or not a regular
		// file before the work, not after it.
		if err := checkOutput("--json", jsonOut, setup.inputs, true); err != nil {
			return err
		}
	}
	in, err := openAuditOf(rec, setup.cfg, setup.sopts, setup.target, stderr)
	if err != nil {
		return err
	}
	defer in.Close()
	progress := newProgress(stderr, "verify", quiet)
	var trace []pyref.TraceRecord
	vopts := in.vopts
	vopts.Policies = setup.policies
	vopts.Relax = setup.allow
	if vopts.Seals != nil {
		vopts.Seals.TrustKeys = setup.trust
	} else if len(setup.trust) > 0 {
		return fail(exitUsage, "--trust-key: %s is a %s, which carries no seals", path, in.format)
	}
	vopts.Total = in.total
	vopts.OnProgress = progress.update
	vopts.OnCorrupt = func(err error) { fmt.Fprintf(stderr, "decision_node: verify: skipped: %v\n", err) }
	if format == "reference" {
		vopts.OnAudit = func(a audit.DecisionAudit) { trace = append(trace, audit.TraceRecord(a)) }
	}
	report, verr := audit.Verify(in.src, vopts)
	in.reportOrder()
	if report == nil {
		return fail(exitIO, "%s: %w", path, verr)
	}
	fmt.Fprintf(stdout, "format\t%s\n", in.format)
	if report.Target != nil {
		fmt.Fprintf(stdout, "target vehicle\t%s\n", targetText(*report.Target))
	}
	printAuditSummary(stdout, path, report, auditHints{rulePolicies: rulePolicyFiles(setup.policyFiles)})
	if jsonOut != "" {
		var err error
		if format == "reference" {
			err = writeTrace(jsonOut, rec.files[0], setup.inputs, stdout, trace)
		} else {
			err = writeJSON(jsonOut, setup.inputs, stdout, report)
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
func writeTrace(out, recording string, ins inputs, stdout io.Writer, records []pyref.TraceRecord) error {
	f, err := limitedfile.Open(recording)
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
	return writeFileAtomic("--json", out, ins, data)
}

// writeJSON writes the report to path ("-" for stdout) through a temporary
// file, never over an input ins.
func writeJSON(path string, ins inputs, stdout io.Writer, v any) error {
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
	return writeFileAtomic("--json", path, ins, data)
}
