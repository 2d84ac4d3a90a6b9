package audit

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/pkg/audit/pyref"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// referenceRecordings are the Python reference's own recordings, of the
// shared golden set (t skips without it, or fails in CI).
func referenceRecordings(t *testing.T) []string {
	var paths []string
	for _, n := range []string{"gps_denial", "gps_degradation_loss_recovery", "cascade_dropout_ewma"} {
		paths = append(paths, golden.Path(t, "python", n+".mcap"))
	}
	return paths
}

func openReference(t *testing.T, path string) (*bag.Reader, ReferenceRecording) {
	t.Helper()
	r, err := bag.OpenRecording(path, bag.ReaderOptions{Encodings: []bag.Encoding{{Schema: "", Message: "json"}}})
	if err != nil {
		t.Fatal(err)
	}
	var chans []pyref.ChannelInfo
	for _, c := range r.Channels() {
		chans = append(chans, pyref.ChannelInfo{Topic: c.Topic, MessageEncoding: c.MessageEncoding, SchemaName: c.SchemaName, SchemaEncoding: c.SchemaEncoding})
	}
	if !pyref.Detect(r.Library(), r.Profile(), chans) {
		t.Fatalf("%s not detected as a reference recording", path)
	}
	rr, err := NewReferenceRecording(chans)
	if err != nil {
		t.Fatal(err)
	}
	return r, rr
}

// TestVerifyReferenceRecordings: every decision of the reference's own
// recordings gets the chain verdict of the reference's trace, the policy
// re-run (with the calibrated context of ADR-0027) matches every one, and
// the trace written from verify's audits equals the reference's .trace.json
// byte for byte.
func TestVerifyReferenceRecordings(t *testing.T) {
	for _, path := range referenceRecordings(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			r, rr := openReference(t, path)
			defer r.Close()
			var records []pyref.TraceRecord
			var audits []DecisionAudit
			report, err := Verify(r, VerifyOptions{DecisionsTopic: rr.DecisionsTopic, Format: rr.Format, OnAudit: func(a DecisionAudit) { audits = append(audits, a); records = append(records, TraceRecord(a)) },
				Session: session.SessionOptions{Inputs: rr.Inputs}})
			if err != nil {
				t.Fatal(err)
			}
			if !report.Passed() || report.RerunCount(RerunMatched) != report.Decisions {
				t.Fatalf("verdict %s %v %v %+v", report.Verdict, report.Reasons, report.ByRerun, report.Problems)
			}
			if report.Inputs["other"] == 0 {
				t.Errorf("the reference's other channels were not counted: %v", report.Inputs)
			}

			base := path[:len(path)-len(".mcap")]
			want := readLines(t, base+".decisions.jsonl")
			if len(want) != len(audits) {
				t.Fatalf("%d decisions audited, the reference lists %d", len(audits), len(want))
			}
			for i, w := range want {
				var line struct {
					LogTime     int64  `json:"log_time"`
					ChainStatus string `json:"chain_status"`
				}
				if err := json.Unmarshal(w, &line); err != nil {
					t.Fatal(err)
				}
				if audits[i].LogTimeNs != line.LogTime || audits[i].Chain.String() != line.ChainStatus {
					t.Fatalf("decision %d: %d %s, the reference says %d %s", i, audits[i].LogTimeNs, audits[i].Chain, line.LogTime, line.ChainStatus)
				}
			}

			file, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(file)
			var got bytes.Buffer
			if err := pyref.WriteTraceReport(&got, pyref.NewTraceReport(hex.EncodeToString(sum[:]), records)); err != nil {
				t.Fatal(err)
			}
			trace, err := os.ReadFile(base + ".trace.json")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), trace) {
				t.Fatalf("the trace report differs from the reference's:\n%s", firstDiff(got.Bytes(), trace))
			}
		})
	}
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return "ours:   " + string(a[lo:min(len(a), i+80)]) + "\ntheirs: " + string(b[lo:min(len(b), i+80)])
}

// TestVerifyReferenceTamperedAssessment changes one float of one recorded
// assessment: exactly that stamp's chain is broken, every other decision
// still verifies and re-runs.
func TestVerifyReferenceTamperedAssessment(t *testing.T) {
	r, rr := openReference(t, golden.Path(t, "python", "gps_denial.mcap"))
	msgs := drainSource(t, r)
	r.Close()
	var stamp int64 = -1
	for i, n := range msgs {
		if n.Topic != rr.Format.ChainTopic {
			continue
		}
		if stamp < 0 && bytes.Contains(n.Data, []byte("0.01")) && i > len(msgs)/3 {
			msgs[i].Data = bytes.Replace(n.Data, []byte("0.01"), []byte("0.02"), 1)
			stamp = int64(n.LogTime)
		}
	}
	if stamp < 0 {
		t.Fatal("no assessment to tamper with")
	}
	report, err := Verify(&sliceSource{msgs: msgs}, VerifyOptions{DecisionsTopic: rr.DecisionsTopic, Format: rr.Format,
		Session: session.SessionOptions{Inputs: rr.Inputs}})
	if err != nil {
		t.Fatal(err)
	}
	if report.Passed() || report.ChainCount(ChainBroken) != 1 || report.ChainCount(ChainVerified) != report.Decisions-1 {
		t.Fatalf("verdict %s, chains %v", report.Verdict, report.ByChain)
	}
	if len(report.Problems) != 1 || report.Problems[0].Stamp != stamp {
		t.Fatalf("problems %+v, want one at stamp %d", report.Problems, stamp)
	}
}
