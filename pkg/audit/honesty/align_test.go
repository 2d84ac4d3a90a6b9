package honesty

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
)

// flight builds a recording of a vehicle whose true position (the
// simulator's local frame, ENU) is truePos(t), with truth every 10 ms and
// beliefs every period; belief(t) gives the estimate's position and the
// claimed deviations.
type flight struct {
	duration, period int64
	truePos          func(t float64) [3]float64
	belief           func(t float64, truth [3]float64) (pos [3]float64, std [9]float64)
}

func (f flight) record(r *recording) {
	for stamp := int64(0); stamp <= f.duration; stamp += 10 * ms {
		x := float64(stamp) / 1e9
		r.truth(truth.Sample{Stream: truth.StreamPosition, StampNs: stamp, Value: f.truePos(x)})
		r.truth(truth.Sample{Stream: truth.StreamVelocity, StampNs: stamp})
		r.truth(truth.Sample{Stream: truth.StreamAttitude, StampNs: stamp, Q: yaw(0.1)})
	}
	for stamp := int64(0); stamp <= f.duration; stamp += f.period {
		x := float64(stamp) / 1e9
		pos, std := f.belief(x, f.truePos(x))
		r.belief(stamp, pos, [3]float64{}, yaw(0.1), std, decisions.KindProceed)
	}
}

// TestOffsetIsRobust: an axis aligned by offset takes the median of
// estimate minus truth over the claims within the known threshold from the
// axis' first such claim: a settling transient before it cannot bias the
// offset, a minority of bad samples inside it barely moves it, and an
// axis that never claims to know is aligned over its first beliefs.
func TestOffsetIsRobust(t *testing.T) {
	frame := [3]float64{12.5, -30, 0.85} // estimator origin to truth origin
	wobble := func(x float64) float64 { return 0.05 * math.Sin(2.3*x) }
	truePos := func(x float64) [3]float64 { return [3]float64{2 * x, -x, 10 + math.Sin(x)} }
	tests := []struct {
		name string
		// err is the estimate's true error in the estimator's frame, std
		// the position deviation it claims.
		err, std func(x float64) float64
		// want: the offset's distance from the frame's, whether the axis
		// settled, and where its window starts.
		tol           float64
		settled       bool
		windowStart   int64
		maxViolations uint64
	}{
		{
			name: "a transient while the estimator doubts",
			err: func(x float64) float64 {
				if x < 5 {
					return 1.65 * (1 - x/5)
				}
				return wobble(x)
			},
			std: func(x float64) float64 {
				if x < 5 {
					return 3
				}
				return 0.2
			},
			tol: 0.06, settled: true, windowStart: 5 * int64(time.Second),
		},
		{
			// An EKF settling its height while it already claims to know
			// it: 1.65 m off at first, within 0.1 m of its final offset
			// after about 6 s, a sixth of the window.
			name: "a transient while the estimator claims to know",
			err:  func(x float64) float64 { return 0.8*math.Exp(-x/3) + wobble(x) },
			std:  func(float64) float64 { return 0.3 },
			tol:  0.08, settled: true, windowStart: 0, maxViolations: 60,
		},
		{
			name: "an axis that never claims to know",
			err:  wobble,
			std:  func(float64) float64 { return 3 },
			tol:  0.06, settled: false, windowStart: 0,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRecording(t, true, truth.FrameSim)
			flight{duration: 40 * int64(time.Second), period: 50 * ms, truePos: truePos,
				belief: func(x float64, tr [3]float64) ([3]float64, [9]float64) {
					std := uniform(0.2, 0.1, 0.01)
					pos := [3]float64{tr[0] + frame[0], tr[1] + frame[1], tr[2] + frame[2] + tc.err(x)}
					std[2] = tc.std(x)
					return pos, std
				}}.record(r)
			res := r.audit(Options{})
			al := res.Alignment.Axes["position_z"]
			if al.Method != MethodOffset || al.OffsetM == nil || !near(*al.OffsetM, frame[2], tc.tol) || al.Settled != tc.settled ||
				al.WindowStartNs != tc.windowStart || al.WindowSamples == 0 {
				t.Fatalf("alignment %+v, offset %v; want the frame's %v within %v", al, optNumber(al.OffsetM), frame[2], tc.tol)
			}
			if !strings.Contains(al.How, "offset: median") || !strings.Contains(res.PositionAlignment, "by an offset") {
				t.Errorf("how %q, position alignment %q", al.How, res.PositionAlignment)
			}
			if a := res.Axes["position_z"]; a.KnownViolations > tc.maxViolations {
				t.Errorf("%d KNOWN claims violated, want at most %d", a.KnownViolations, tc.maxViolations)
			}
			for _, name := range []string{"position_x", "position_y"} {
				if al := res.Alignment.Axes[name]; al.OffsetM == nil || !near(*al.OffsetM, frame[axisIndex(name)], 1e-9) {
					t.Errorf("%s: %+v", name, al)
				}
			}
		})
	}
}

// TestOffsetFollowsResets: on an axis aligned by offset, a reset moves the
// offset by its step, before the window and after it, so the steps are not
// counted as error; the offset is given at the window's start and at the
// end; without the reset record the steps are error.
func TestOffsetFollowsResets(t *testing.T) {
	frame := [3]float64{12.5, -30, 2}
	early, late := [3]float64{5, -5, 1}, [3]float64{0.8, -0.6, 0.3}
	const earlyAt, lateAt = 300 * ms, 3000 * ms
	build := func(withResets bool) *recording {
		r := newRecording(t, true, truth.FrameSim)
		flight{duration: 4 * int64(time.Second), period: 20 * ms, truePos: func(x float64) [3]float64 { return [3]float64{2 * x, -x, 10} },
			belief: func(x float64, tr [3]float64) ([3]float64, [9]float64) {
				std := uniform(0.2, 0.1, 0.01)
				if x < 1 {
					std = uniform(5, 0.1, 0.01) // settles at 1 s, after the early reset
				}
				pos := [3]float64{tr[0] + frame[0], tr[1] + frame[1], tr[2] + frame[2]}
				for i := range pos {
					if x >= float64(earlyAt)/1e9 {
						pos[i] += early[i]
					}
					if x >= float64(lateAt)/1e9 {
						pos[i] += late[i]
					}
				}
				return pos, std
			}}.record(r)
		if withResets {
			r.reset(truth.Reset{StampNs: earlyAt, Delta: early})
			r.reset(truth.Reset{StampNs: lateAt, Delta: late})
		} else {
			r.chans = deleteTopic(r.chans, truth.TopicEstimatorReset)
		}
		return r
	}
	res := build(true).audit(Options{OffsetWindow: time.Second})
	for i, name := range AxisNames[:3] {
		al := res.Alignment.Axes[name]
		if al.Method != MethodOffset || !near(optNumber(al.OffsetM), frame[i]+early[i], 1e-9) || !near(optNumber(al.FinalOffsetM), frame[i]+early[i]+late[i], 1e-9) ||
			al.WindowStartNs != 1000*ms || al.WindowEndNs != 2000*ms {
			t.Errorf("%s: %+v (offset %v, final %v)", name, al, optNumber(al.OffsetM), optNumber(al.FinalOffsetM))
		}
		if a := res.Axes[name]; a.MaxAbsError == nil || *a.MaxAbsError > 1e-9 {
			t.Errorf("%s: max error %v: a reset was counted as error", name, a.MaxAbsError)
		}
	}
	if rc := res.Alignment.Resets; rc.Read != 2 || len(rc.First) != 2 || rc.First[1].DeltaM != [3]Number{Number(late[0]), Number(late[1]), Number(late[2])} {
		t.Errorf("resets %+v", rc)
	}
	// Without the record, each step is error on its side of the window.
	res = build(false).audit(Options{OffsetWindow: time.Second})
	if res.Alignment.Resets.Source != "" {
		t.Fatalf("reset source %q", res.Alignment.Resets.Source)
	}
	for i, name := range AxisNames[:3] {
		if a := res.Axes[name]; a.MaxAbsError == nil || !near(*a.MaxAbsError, math.Max(math.Abs(early[i]), math.Abs(late[i])), 1e-9) {
			t.Errorf("%s without resets: max error %v", name, a.MaxAbsError)
		}
	}
}

// geoFlight is a flight whose truth also comes as a global position (by
// PX4 SIH's rule, from ref) and whose estimator declares origins: the
// estimate is the truth projected into the origin in force, plus err.
type geoFlight struct {
	ref      [3]float64     // the simulator's reference: lat, lon, alt
	origins  []truth.Origin // declared, in stamp order
	altShift float64        // added to the global altitude only: another datum
	err      func(x float64) ([3]float64, float64)
	noGlobal bool
}

func (g geoFlight) global(p [3]float64) [3]float64 {
	const deg = 180 / math.Pi
	lat0 := g.ref[0] / deg
	return [3]float64{g.ref[0] + p[1]/truth.EarthRadiusM*deg, g.ref[1] + p[0]/(truth.EarthRadiusM*math.Cos(lat0))*deg, g.ref[2] + p[2] + g.altShift}
}

func (g geoFlight) record(t testing.TB) *recording {
	r := newRecordingWith(t, true, !g.noGlobal, truth.FramePX4)
	truePos := func(x float64) [3]float64 { return [3]float64{20 * x, -10 * x, 10 + x} }
	for stamp := int64(0); stamp <= 4100*ms; stamp += 100 * ms {
		if !g.noGlobal {
			r.truth(truth.Sample{Stream: truth.StreamGlobal, StampNs: stamp, Value: g.global(truePos(float64(stamp) / 1e9))})
		}
	}
	if !g.noGlobal {
		for _, o := range g.origins {
			r.origin(o)
		}
	}
	flight{duration: 4 * int64(time.Second), period: 20 * ms, truePos: truePos,
		belief: func(x float64, tr [3]float64) ([3]float64, [9]float64) {
			o := g.origins[0]
			for _, oo := range g.origins {
				if float64(oo.StampNs)/1e9 <= x {
					o = oo
				}
			}
			gp := g.global(tr)
			gp[2] -= g.altShift // the estimator's GNSS has the truth's datum less the shift
			pos := o.ENU(gp[0], gp[1], gp[2])
			if !o.HasZ() { // its height from a frame of its own, 1.5 m up
				pos[2] = gp[2] - g.ref[2] - 1.5
			}
			e, std := g.err(x)
			for i := range pos {
				pos[i] += e[i]
			}
			return pos, uniform(std, 0.1, 0.01)
		}}.record(r)
	return r
}

// TestGlobalFrame: with the global position and the estimator's origin
// the truth is put in the estimator's frame and nothing is estimated: the
// error before a corrective reset shows, the reset is not followed, a new
// origin is followed, beliefs before any origin get no position verdict,
// and a global position on another datum is refused for the offset.
func TestGlobalFrame(t *testing.T) {
	ref := [3]float64{45.467116, -73.757837, 32.34}
	nan := math.NaN()
	o1 := truth.Origin{StampNs: 0, Lat: ref[0] + 3e-5, Lon: ref[1] - 2e-5, Alt: ref[2] + 1.5}
	o2 := truth.Origin{StampNs: 2000 * ms, Lat: ref[0] + 5e-4, Lon: ref[1] + 4e-4, Alt: ref[2] - 3}
	drift := [3]float64{-4, 2.5, 0}
	drifting := func(x float64) ([3]float64, float64) {
		if x < 1 { // dead reckoning, and saying so
			return drift, 5
		}
		return [3]float64{}, 0.2
	}
	tests := []struct {
		name    string
		g       geoFlight
		resets  []truth.Reset
		method  [3]string
		without uint64 // beliefs without the frame, per axis
		zNote   string
	}{
		{"a drift, then a corrective reset", geoFlight{ref: ref, origins: []truth.Origin{o1}, err: drifting},
			[]truth.Reset{{StampNs: 1000 * ms, Delta: [3]float64{4, -2.5, 0}}}, [3]string{MethodGlobal, MethodGlobal, MethodGlobal}, 0, ""},
		{"a new origin mid-flight", geoFlight{ref: ref, origins: []truth.Origin{o1, o2}, err: drifting},
			nil, [3]string{MethodGlobal, MethodGlobal, MethodGlobal}, 0, ""},
		{"beliefs before the origin", geoFlight{ref: ref, origins: []truth.Origin{{StampNs: 500 * ms, Lat: o1.Lat, Lon: o1.Lon, Alt: o1.Alt}}, err: drifting},
			nil, [3]string{MethodGlobal, MethodGlobal, MethodGlobal}, 25, ""},
		{"the horizontal origin alone", geoFlight{ref: ref, origins: []truth.Origin{{Lat: o1.Lat, Lon: o1.Lon, Alt: nan}}, err: drifting},
			nil, [3]string{MethodGlobal, MethodGlobal, MethodOffset}, 0, "no belief claiming within the known threshold had it"},
		{"a global position on another datum", geoFlight{ref: ref, origins: []truth.Origin{o1}, altShift: 488, err: drifting},
			nil, [3]string{MethodGlobal, MethodGlobal, MethodOffset}, 0, "do not share a datum"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.g.record(t)
			for _, x := range tc.resets {
				r.reset(x)
			}
			res := r.audit(Options{OffsetWindow: 2 * time.Second})
			for i, name := range AxisNames[:3] {
				al := res.Alignment.Axes[name]
				if al.Method != tc.method[i] {
					t.Fatalf("%s: %+v, want %s", name, al, tc.method[i])
				}
				if al.Method == MethodGlobal && (al.WithoutFrame != tc.without || al.CheckM == nil || math.Abs(float64(*al.CheckM)) > 1e-6 ||
					al.How != "global frame: truth projected into the estimator's origin") {
					t.Errorf("%s: %+v", name, al)
				}
				want := ""
				if i == 2 {
					want = tc.zNote
				}
				if !strings.Contains(al.Note, want) || (want == "") != (al.Note == "") {
					t.Errorf("%s: note %q, want %q", name, al.Note, want)
				}
			}
			// After the drift, no error; during it, the drift itself (the
			// global frame does not follow a corrective reset).
			for i, name := range AxisNames[:3] {
				a := res.Axes[name]
				if a.KnownViolations != 0 || a.MaxAbsError == nil || !near(*a.MaxAbsError, math.Abs(drift[i]), 1e-6) {
					t.Errorf("%s: %d violations, max error %v, want the drift %v", name, a.KnownViolations, a.MaxAbsError, drift[i])
				}
			}
			if n := res.Alignment.Origin.Declared; n != uint64(len(tc.g.origins)) {
				t.Errorf("%d origins declared", n)
			}
			if !strings.Contains(res.PositionAlignment, "in the global frame") {
				t.Errorf("position alignment %q", res.PositionAlignment)
			}
		})
	}
}

// TestGlobalFrameAgainstAnchoring: the case that anchoring at the first
// belief got wrong. The first belief comes before GNSS fusion, 4.7 m off;
// an offset taken there turned every later KNOWN claim into a violation.
// In the global frame the drift shows where the estimator doubted, and
// its KNOWN claims are honest.
func TestGlobalFrameAgainstAnchoring(t *testing.T) {
	ref := [3]float64{45.467116, -73.757837, 32.34}
	g := geoFlight{ref: ref, origins: []truth.Origin{{Lat: ref[0] + 3e-5, Lon: ref[1] - 2e-5, Alt: ref[2] + 1.5}},
		err: func(x float64) ([3]float64, float64) {
			if x < 1 {
				return [3]float64{-4, 2.5, 0}, 50
			}
			return [3]float64{}, 0.2
		}}
	res := g.record(t).audit(Options{})
	for _, name := range AxisNames[:2] {
		a := res.Axes[name]
		if a.KnownClaims == 0 || a.KnownViolations != 0 || a.UnknownClaims == 0 || res.Alignment.Axes[name].Method != MethodGlobal {
			t.Errorf("%s: %d of %d KNOWN claims violated, %d doubted; %+v", name, a.KnownViolations, a.KnownClaims, a.UnknownClaims, res.Alignment.Axes[name])
		}
	}
	if res.Verdict != VerdictHonest {
		t.Errorf("verdict %s: %s", res.Verdict, res.Reason)
	}
}

// TestAlignmentWaitIsBounded: verdicts wait for an axis that has not
// settled only up to a bound; then the axis is aligned with what came,
// and a note says so.
func TestAlignmentWaitIsBounded(t *testing.T) {
	frame := [3]float64{1, 2, 3}
	r := newRecording(t, true, truth.FrameSim)
	flight{duration: 2 * int64(time.Second), period: 20 * ms, truePos: func(x float64) [3]float64 { return [3]float64{x, 0, 0} },
		belief: func(x float64, tr [3]float64) ([3]float64, [9]float64) {
			return [3]float64{tr[0] + frame[0], tr[1] + frame[1], tr[2] + frame[2]}, uniform(5, 0.1, 0.01) // never claims to know
		}}.record(r)
	for _, tc := range []struct {
		bound   int
		samples uint64
		note    bool
	}{{10, 10, true}, {0, 101, false}} {
		res := r.audit(Options{maxHeld: tc.bound})
		al := res.Alignment.Axes["position_x"]
		noted := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "waited for the position's alignment") })
		if al.Method != MethodOffset || al.Settled || al.WindowSamples != tc.samples || noted != tc.note || res.Axes["position_x"].Samples != 101 {
			t.Errorf("bound %d: %+v, notes %q, %d samples", tc.bound, al, res.Notes, res.Axes["position_x"].Samples)
		}
		if a := res.Axes["position_x"]; a.MaxAbsError == nil || *a.MaxAbsError > 1e-9 {
			t.Errorf("bound %d: max error %v", tc.bound, a.MaxAbsError)
		}
	}
}

// TestTableNamesTheAlignment: the table gives each axis' alignment and
// the verdict says it.
func TestTableNamesTheAlignment(t *testing.T) {
	ref := [3]float64{45.467116, -73.757837, 32.34}
	g := geoFlight{ref: ref, origins: []truth.Origin{{Lat: ref[0], Lon: ref[1], Alt: math.NaN()}},
		err: func(float64) ([3]float64, float64) { return [3]float64{}, 0.2 }}
	res := g.record(t).audit(Options{OffsetWindow: time.Second})
	var b strings.Builder
	if err := WriteTable(&b, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"position_x: global frame: truth projected into the estimator's origin (checked at 0.000 s",
		"position_z: offset: median of estimate minus truth over 1.0 s from 0.000 s, the axis' first claim within the known threshold (51 samples): -1.500 m",
		"estimator origins      1 declared, the first at 0.000 s: lat/lon 45.4671160, -73.7578370; alt -",
		"verdict: honest: every KNOWN claim had a true error within the known threshold (position aligned: position_x and position_y in the global frame (truth projected into the estimator's origin) and position_z by an offset (median of estimate minus truth))",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, b.String())
		}
	}
}
