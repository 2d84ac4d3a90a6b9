package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/ghost-robotics/ghost/pkg/runner"
)

const verifyDescription = `
Audits a recording (ADR-0021, ADR-0022): for every decision on /decisions it
finds the self-assessment with the same stamp and recomputes its SHA-256
(chain status verified, broken, assessment_missing or no_assessment_claimed),
checks the stamps, and re-runs the named policy, when this build knows it, on
the context rebuilt from the recording (the assessment, the belief's flight
and mission status, the perception mode as of the stamp); the decision must
come out identical. Prints a summary; --json writes a machine-readable report
("-" for stdout).

Exit status 0 only when no chain is broken or missing, no decision diverges
and the stamps are consistent; 1 otherwise or when the recording is truncated.`

const verifyExample = `  decision_node sim --out flight.mcap
  decision_node verify flight.mcap --json report.json`

func runVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("verify", "verify recording.mcap [--json report.json]", verifyDescription, verifyExample, stderr)
	jsonOut := fs.String("json", "", "write the report as JSON to `file` (\"-\" for stdout)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	config := fs.String("config", "", "ROS 2 parameters `file` naming the topics (as config/decision.yaml); default: the built-in topic names")
	// Accept the recording before or after the flags.
	var path string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		path, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if path == "" && fs.NArg() == 1 {
		path = fs.Arg(0)
	} else if fs.NArg() > 0 || path == "" {
		fs.Usage()
		return fail(exitUsage, "verify needs exactly one recording")
	}
	df := decisionFlags{config: *config}
	_, sopts, err := df.session()
	if err != nil {
		return err
	}
	topics := sopts.Topics
	reader, err := openInput(path, topics, stderr)
	if err != nil {
		return err
	}
	defer reader.Close()
	progress := newProgress(stderr, "verify", *quiet)
	report, verr := runner.Verify(reader, runner.VerifyOptions{
		Topics:     topics,
		Total:      reader.MessageCount(),
		OnProgress: progress.update,
		OnCorrupt: func(err error) {
			fmt.Fprintf(stderr, "decision_node: verify: skipped: %v\n", err)
		},
	})
	printAuditSummary(stdout, path, report)
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, stdout, report); err != nil {
			return fail(exitIO, "write report: %w", err)
		}
	}
	switch {
	case verr != nil:
		return fail(exitFindings, "%s: %w", path, verr)
	case !report.Passed():
		return &exitError{code: exitFindings, err: fmt.Errorf("%s: verification failed", path)}
	}
	return nil
}

func writeJSON(path string, stdout io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if path == "-" {
		_, err = stdout.Write(data)
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
