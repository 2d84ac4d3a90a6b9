package pyref

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// seeds adds real reference payloads (and a few malformed ones) to f.
func seeds(f *testing.F, names ...string) {
	for _, n := range names {
		f.Add(payload(f, n))
	}
	for _, s := range []string{``, `{}`, `null`, `[`, `{"a":"\ud800"}`, `{"__array":[[1e400]],"__dtype":"float64"}`} {
		f.Add([]byte(s))
	}
}

// FuzzDecodeAssessment: never panics; what decodes writes canonical JSON
// that decodes to the same canonical JSON (so its hash is stable).
func FuzzDecodeAssessment(f *testing.F) {
	seeds(f, "self_assessment_exponent.json", "self_assessment_uncertain.json", "self_assessment_unknown.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := DecodeAssessment(data)
		if err != nil {
			return
		}
		canon := a.AppendCanonicalJSON(nil)
		b, err := DecodeAssessment(canon)
		if err != nil {
			t.Fatalf("canonical JSON %s does not decode: %v", canon, err)
		}
		if again := b.AppendCanonicalJSON(nil); !bytes.Equal(again, canon) {
			t.Fatalf("round trip changed\n%s\n%s", canon, again)
		}
	})
}

// FuzzDecodeBelief: never panics; a decoded covariance has 0 or 225 values.
func FuzzDecodeBelief(f *testing.F) {
	seeds(f, "vehicle_state_cov1e-10.json", "vehicle_state_cov2.25.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := DecodeBelief(data)
		if err != nil {
			return
		}
		if n := len(b.Covariance); n != 0 && n != decisions.CovarianceLen {
			t.Fatalf("%d covariance values", n)
		}
		_ = b.Validate()
	})
}

// FuzzDecodeCalibrated: never panics; the raw assessment round-trips.
func FuzzDecodeCalibrated(f *testing.F) {
	seeds(f, "calibrated_no_outcomes.json", "calibrated_downgrade.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, cal, err := DecodeCalibrated(data)
		if err != nil {
			return
		}
		back, err := DecodeAssessment(raw.AppendCanonicalJSON(nil))
		if err != nil || back.SHA256() != raw.SHA256() {
			t.Fatalf("raw assessment does not round-trip: %v", err)
		}
		_ = cal.Validate()
	})
}

// FuzzDecodeRationale: never panics; a decoded rationale with a kind of the
// catalog round-trips through its canonical JSON to an equal value.
func FuzzDecodeRationale(f *testing.F) {
	seeds(f, "rationale_proceed.json", "rationale_no_assessment.json", "rationale_abstain.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeRationale(data)
		if err != nil {
			return
		}
		back, err := DecodeRationale(r.AppendCanonicalJSON(nil))
		if err != nil || back != r {
			t.Fatalf("round trip: %+v -> %+v (%v)", r, back, err)
		}
	})
}

// FuzzDecodePerception: never panics; a decoded mode is in the catalog.
func FuzzDecodePerception(f *testing.F) {
	seeds(f, "perception_mode_changed.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodePerception(data)
		if err == nil && !r.Mode.Valid() {
			t.Fatalf("mode %d", r.Mode)
		}
	})
}

func benchPayload(b *testing.B, name string, decode func([]byte) error) {
	data := readFile(b, filepath.Join("testdata", "payloads", name))
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeAssessment(b *testing.B) {
	benchPayload(b, "self_assessment_uncertain.json", func(d []byte) error { _, err := DecodeAssessment(d); return err })
}

func BenchmarkDecodeBelief(b *testing.B) {
	benchPayload(b, "vehicle_state_cov2.25.json", func(d []byte) error { _, err := DecodeBelief(d); return err })
}

func BenchmarkDecodeCalibrated(b *testing.B) {
	benchPayload(b, "calibrated_downgrade.json", func(d []byte) error { _, _, err := DecodeCalibrated(d); return err })
}

func BenchmarkDecodeRationale(b *testing.B) {
	benchPayload(b, "rationale_proceed.json", func(d []byte) error { _, err := DecodeRationale(d); return err })
}

func BenchmarkWriteTraceReport(b *testing.B) {
	report, _ := traceOf(b, readFile(b, golden.Path(b, "python", "gps_denial.mcap")))
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteTraceReport(io.Discard, report); err != nil {
			b.Fatal(err)
		}
	}
}
