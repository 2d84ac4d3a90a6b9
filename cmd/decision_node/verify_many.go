package main

import (
	"crypto/ed25519"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// Verifying a fleet: verify takes several recordings, or directories of
// them, audits each exactly as it audits one (same options, same host
// policies), on GOMAXPROCS workers, and prints one row per file in argument
// order, then a total. The exit status is the worst of the files': an
// unreadable file (3) is worse than a FAIL (1), which is worse than a PASS.

// fileAudit is the outcome of one recording of a many-file verify.
type fileAudit struct {
	Path string `json:"path"`
	// ExitStatus is what verify of this file alone would exit with.
	ExitStatus int `json:"exit_status"`
	// Error is why the file could not be audited (exit status 3), or the
	// read error of a damaged file that was audited up to the damage.
	Error string `json:"error,omitempty"`
	// Report is the audit, absent when the file could not be opened.
	Report *audit.AuditReport `json:"report,omitempty"`
}

// manyReport is the --json document of a many-file verify: one entry per
// file in argument order, and the total.
type manyReport struct {
	Files []fileAudit `json:"files"`
	Total manyTotal   `json:"total"`
}

type manyTotal struct {
	Files      int    `json:"files"`
	Passed     int    `json:"passed"`
	Failed     int    `json:"failed"`
	Unreadable int    `json:"unreadable"`
	Decisions  uint64 `json:"decisions"`
	Verdict    string `json:"verdict"`
	ExitStatus int    `json:"exit_status"`
}

// verifySetup is what every file of a verify is audited with.
type verifySetup struct {
	cfg   config.Config
	sopts session.SessionOptions
	// target picks each recording's target vehicle.
	target   targetChoice
	policies []decisions.Policy
	allow    []audit.Finding
	trust    []ed25519.PublicKey // --trust-key
	inputs   inputs              // every file read, which no output may replace
	// policyFiles are the rule policy files supplied (flags and the
	// configuration's), for the fixes the summary names.
	policyFiles []string
	// decodeWorkers is audit.VerifyOptions.DecodeWorkers: the cores
	// left to each file by the files audited side by side.
	decodeWorkers int
}

// verifyMany audits recs concurrently and prints the table (and --json).
func verifyMany(recs []recording, setup verifySetup, jsonOut string, stdout, stderr io.Writer) error {
	results := make([]fileAudit, len(recs))
	errw := &lockedWriter{w: stderr}
	workers := min(runtime.GOMAXPROCS(0), len(recs))
	if setup.decodeWorkers = min(runtime.GOMAXPROCS(0)/workers-1, audit.MaxDecodeWorkers); setup.decodeWorkers == 0 {
		setup.decodeWorkers = -1 // the reading goroutine decodes
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = verifyOne(recs[i], setup, errw)
			}
		}()
	}
	for i := range recs {
		next <- i
	}
	close(next)
	wg.Wait()

	total := manyTotal{Files: len(recs), Verdict: audit.VerdictPass}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "recording\tdecisions\tverdict\treasons")
	for i, r := range results {
		total.ExitStatus = max(total.ExitStatus, r.ExitStatus)
		verdict, decided, reasons := "ERROR", "-", r.Error
		switch {
		case r.Report == nil:
			total.Unreadable++
		case r.Report.Passed():
			total.Passed++
		default:
			total.Failed++
		}
		if r.Report != nil {
			verdict, decided = r.Report.Verdict, fmt.Sprint(r.Report.Decisions)
			reasons = strings.Join(r.Report.Reasons, "; ")
			total.Decisions += r.Report.Decisions
		}
		if reasons == "" {
			reasons = "-"
		}
		name := r.Path
		if n := len(recs[i].files); n > 1 {
			// A split bag, or the node's split recording: one stream.
			name += fmt.Sprintf(" (%d files)", n)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, decided, verdict, capText(reasons, 300))
	}
	if total.ExitStatus != exitOK {
		total.Verdict = audit.VerdictFail
	}
	fmt.Fprintf(tw, "total: %d recordings\t%d\t%s\t%d passed, %d failed, %d unreadable\n",
		total.Files, total.Decisions, total.Verdict, total.Passed, total.Failed, total.Unreadable)
	if err := tw.Flush(); err != nil {
		return fail(exitIO, "write summary: %w", err)
	}
	if jsonOut != "" {
		if err := writeJSON(jsonOut, setup.inputs, stdout, manyReport{Files: results, Total: total}); err != nil {
			return err
		}
	}
	if total.ExitStatus != exitOK {
		return &exitError{code: total.ExitStatus, err: fmt.Errorf("verdict FAIL: %d of %d recordings failed, %d unreadable",
			total.Failed, total.Files, total.Unreadable)}
	}
	return nil
}

// verifyOne audits one recording of a many-file verify, without progress.
func verifyOne(rec recording, setup verifySetup, stderr io.Writer) fileAudit {
	res := fileAudit{Path: rec.name}
	in, err := openAuditOf(rec, setup.cfg, setup.sopts, setup.target, stderr)
	if err != nil {
		res.ExitStatus, res.Error = exitIO, capText(err.Error(), 300)
		return res
	}
	defer in.Close()
	vopts := in.vopts
	vopts.Policies, vopts.Relax, vopts.DecodeWorkers = setup.policies, setup.allow, setup.decodeWorkers
	if vopts.Seals != nil {
		vopts.Seals.TrustKeys = setup.trust
	}
	vopts.Total = in.total // a small recording is verified on one goroutine
	vopts.OnCorrupt = func(err error) { fmt.Fprintf(stderr, "decision_node: verify: %s: skipped: %v\n", rec.name, err) }
	report, verr := audit.Verify(in.src, vopts)
	in.reportOrder()
	if report == nil {
		res.ExitStatus, res.Error = exitIO, capText(verr.Error(), 300)
		return res
	}
	res.Report = report
	if verr != nil {
		res.Error = capText(verr.Error(), 300)
	}
	if !report.Passed() {
		res.ExitStatus = exitFindings
	}
	return res
}

// lockedWriter serialises the workers' diagnostics line by line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// capText shortens s to at most n bytes, marking the cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
