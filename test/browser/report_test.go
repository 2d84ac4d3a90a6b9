package browser

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/audit/report"
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// root is the repository root, relative to this package.
const root = "../.."

// Window of the screenshot: wide enough for the figures at full size, tall
// enough for the header and the whole timeline.
const width, height = 1400, 2400

func TestReportInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed: skipping the browser check")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	bin := filepath.Join(dir, "decision_node")
	run(t, ctx, root, "go", "build", "-o", bin, "./cmd/decision_node")
	flight := filepath.Join(dir, "flight.mcap")
	// A flight decided by the PX4-like rule policy decides all seven kinds.
	policy, err := filepath.Abs(filepath.Join(root, "config", "policies", "px4_failsafe_like.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// It acts through the simulated PX4, so the report has an action trail.
	acting := []string{"--policy-file", policy, "--executor", "px4", "--enable-kill"}
	run(t, ctx, dir, bin, append([]string{"sim", "--out", flight, "--quiet"}, acting...)...)

	// The report as users make it, audit included.
	html := filepath.Join(dir, "report.html")
	run(t, ctx, dir, bin, append([]string{"report", flight, "--out", html, "--figures", filepath.Join(dir, "figures"), "--quiet"}, acting...)...)
	f, err := report.Collect(flight, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	// The audit passed; the policy's battery thresholds, the action trail
	// and the detail of the crowded end are shown.
	for _, want := range []string{"PASS", "battery lt 15 %: hold (battery_low)", `id="action-1"`, `id="fig-detail-1"`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the report of a sim flight lacks %q", want)
		}
	}
	if len(f.Actions.Trail) == 0 {
		t.Fatal("the acting flight has no action trail")
	}
	// px4_failsafe_like reads no action outcome: its lands and returns are
	// its battery and uncertainty rules', and the page calls none of them
	// an escalation.
	if bytes.Contains(page, []byte("<b>Escalations</b>")) {
		t.Error("the report lists escalations for a policy that never reads what its commands achieved")
	}

	start := time.Now()
	data, img := screenshot(t, ctx, chromium, dir, html, width, height)
	t.Logf("chromium rendered the report in %v", time.Since(start).Round(time.Millisecond))
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Errorf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), width, height)
	}
	colors, inked := palette(img)
	t.Logf("%d distinct colours, %.0f%% of pixels not white", len(colors), 100*inked)
	if len(colors) < 50 || inked < 0.05 {
		t.Errorf("screenshot looks blank: %d colours, %.1f%% not white", len(colors), 100*inked)
	}
	// The decision band, from its figure file: every kind decided in the
	// flight shows in its colour, no other kind does.
	figs, err := report.WriteFigures(filepath.Join(dir, "figures"), f, report.NotAudited())
	if err != nil {
		t.Fatal(err)
	}
	_, band := screenshot(t, ctx, chromium, dir, figs[0], 1200, 300)
	inBand := map[string]bool{}
	for y := bandTop + 2; y < bandTop+bandHeight-2; y++ {
		for x := 172; x < 1178; x++ {
			r, g, b, _ := band.At(x, y).RGBA()
			inBand[fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)] = true
		}
	}
	for _, k := range decisions.Kinds() {
		if f.Counts.ByKind[k] == 0 {
			t.Errorf("the flight never decides %s", k)
		}
		decided, shown := f.Counts.ByKind[k] > 0, inBand[strings.ToUpper(report.KindColor(k))]
		if decided != shown {
			t.Errorf("kind %s: %d decisions, on the band %v", k, f.Counts.ByKind[k], shown)
		}
	}
	// The action lane, on the full timeline and in the details of its
	// crowded stretches: the bar or mark of every kind acted on, in its
	// kind's colour, and the shapes of its events in ink.
	inLane := map[string]bool{}
	lanes := []image.Image{band}
	for _, fig := range figs[1:] {
		if strings.HasPrefix(filepath.Base(fig), "detail-") {
			_, img := screenshot(t, ctx, chromium, dir, fig, 1200, 300)
			lanes = append(lanes, img)
		}
	}
	if len(lanes) < 2 {
		t.Error("no detail figure of the flight's crowded end")
	}
	for _, img := range lanes {
		for y := laneTop; y < laneTop+laneHeight; y++ {
			for x := 160; x < 1190; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				inLane[fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)] = true
			}
		}
	}
	for _, a := range f.Actions.Trail {
		if c := strings.ToUpper(report.KindColor(a.Kind)); !inLane[c] {
			t.Errorf("action %d (%s): its colour %s is not in the action lane", a.ID, a.Kind, c)
		}
	}
	if !inLane["#222222"] {
		t.Error("no event shape in the action lane")
	}
	if t.Failed() {
		if keep := os.Getenv("REPORT_SCREENSHOT"); keep != "" {
			_ = os.WriteFile(keep, data, 0o644)
		}
	}
}

// The places of the decision band and of the action lane's bars in their
// figure (pkg/audit/report's geometry).
const (
	bandTop, bandHeight = 26, 44
	laneTop, laneHeight = 102, 24
)

// screenshot renders the file at path in a w x h window and decodes the PNG.
func screenshot(t *testing.T, ctx context.Context, chromium, dir, path string, w, h int) ([]byte, image.Image) {
	t.Helper()
	shot := filepath.Join(dir, filepath.Base(path)+".png")
	run(t, ctx, dir, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot,
		fmt.Sprintf("--window-size=%d,%d", w, h), "file://"+path)
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	return data, img
}

// palette returns the set of colours ("#RRGGBB") in img and the fraction of
// pixels that are not white.
func palette(img image.Image) (map[string]bool, float64) {
	colors := map[string]bool{}
	b := img.Bounds()
	inked := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			c := fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, bl>>8)
			colors[c] = true
			if c != "#FFFFFF" {
				inked++
			}
		}
	}
	return colors, float64(inked) / float64(b.Dx()*b.Dy())
}

func run(t *testing.T, ctx context.Context, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(out.String(), 2000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
