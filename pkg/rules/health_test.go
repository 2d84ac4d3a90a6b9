package rules

import (
	"errors"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// health sets the belief's health bits.
func health(h decisions.Health) ctxOpt {
	return func(c *decisions.Context) {
		c.Flight.ErrorFlags = c.Flight.ErrorFlags&^decisions.HealthMask | h.Flags()
	}
}

// Each health condition: true, false, and unevaluable when the belief does
// not report what it reads.
func TestHealthConditions(t *testing.T) {
	const T, F = "fired", "nominal"
	fix := func(g decisions.GNSSFix, sats uint8) ctxOpt {
		return health(decisions.Health{Fix: g, Satellites: sats})
	}
	est := func(flags ...decisions.EstimatorFlag) ctxOpt {
		h := decisions.Health{EstimatorReported: true}
		for _, e := range flags {
			h.Estimator |= 1 << e
		}
		return health(h)
	}
	fs := func(navKnown bool, flags ...decisions.FailsafeFlag) ctxOpt {
		h := decisions.Health{FailsafeReported: true, NavigatorFailureReported: navKnown}
		for _, g := range flags {
			h.Failsafe |= 1 << g
		}
		return health(h)
	}
	tests := []struct {
		name, cond string
		opt        ctxOpt
		want       string
	}{
		{"fix lost, no fix", "{gnss: {fix: lost}}", fix(decisions.GNSSNoFix, 0), T},
		{"fix lost, 2d", "{gnss: {fix: lost}}", fix(decisions.GNSSFix2D, 4), T},
		{"fix lost, 3d", "{gnss: {fix: lost}}", fix(decisions.GNSSFix3D, 9), F},
		{"fix lost, not reported", "{gnss: {fix: lost}}", health(decisions.Health{}), "missing_gnss"},
		{"at least 3d, rtk fixed", "{gnss: {fix: {at_least: 3d}}}", fix(decisions.GNSSFixRTKFixed, 20), T},
		{"at least 3d, extrapolated", "{gnss: {fix: {at_least: 3d}}}", fix(decisions.GNSSFixExtrapolated, 0), T},
		{"is dgps", "{gnss: {fix: dgps}}", fix(decisions.GNSSFixDGPS, 8), T},
		{"in a list with a group", "{gnss: {fix: {in: [lost, rtk_float]}}}", fix(decisions.GNSSFixRTKFloat, 8), T},
		{"satellites below", "{gnss: {satellites: {lt: 6}}}", fix(decisions.GNSSFix3D, 5), T},
		{"satellites enough", "{gnss: {satellites: {lt: 6}}}", fix(decisions.GNSSFix3D, 6), F},
		{"satellites without a receiver", "{gnss: {satellites: {lt: 6}}}", nil, "missing_gnss"},
		{"fix and satellites", "{gnss: {fix: 3d, satellites: {ge: 6}}}", fix(decisions.GNSSFix3D, 6), T},
		{"fix and satellites, one fails", "{gnss: {fix: 3d, satellites: {ge: 6}}}", fix(decisions.GNSSFix3D, 5), F},
		{"gps not fused", "{estimator: {gps_fused: false}}", est(), T},
		{"gps fused", "{estimator: {gps_fused: false}}", est(decisions.EstimatorGNSSFused), F},
		{"estimator not reported", "{estimator: {gps_fused: false}}", nil, "missing_estimator"},
		{"two flags", "{estimator: {gps_fused: true, mag_fault: false}}", est(decisions.EstimatorGNSSFused), T},
		{"two flags, one fails", "{estimator: {gps_fused: true, mag_fault: false}}", est(decisions.EstimatorGNSSFused, decisions.EstimatorMagFault), F},
		{"dead reckoning an older release does not report", "{estimator: {dead_reckoning: true}}", est(decisions.EstimatorDeadReckoning), "missing_estimator"},
		{"dead reckoning reported", "{estimator: {dead_reckoning: true}}",
			health(decisions.Health{EstimatorReported: true, DeadReckoningReported: true, Estimator: 1 << decisions.EstimatorDeadReckoning}), T},
		{"failsafe flag raised", "{px4_failsafe: {flag: global_position_invalid}}", fs(true, decisions.FailsafeGlobalPositionInvalid), T},
		{"failsafe flag clear", "{px4_failsafe: {flag: global_position_invalid}}", fs(true, decisions.FailsafeLocalPositionInvalid), F},
		{"failsafe any of", "{px4_failsafe: {flag: {in: [global_position_invalid, local_position_invalid]}}}", fs(true, decisions.FailsafeLocalPositionInvalid), T},
		{"failsafe not reported", "{px4_failsafe: {flag: global_position_invalid}}", nil, "missing_px4_failsafe"},
		{"navigator failure before 1.16", "{px4_failsafe: {flag: navigator_failure}}", fs(false), "missing_px4_failsafe"},
		{"navigator failure", "{px4_failsafe: {flag: navigator_failure}}", fs(true, decisions.FailsafeNavigatorFailure), T},
		{"missing gnss", "{missing: gnss}", nil, T},
		{"missing gnss, reported", "{missing: gnss}", fix(decisions.GNSSNoFix, 0), F},
		{"the mapping's own bits are not health", "{gnss: {fix: lost}}", func(c *decisions.Context) { c.Flight.ErrorFlags = 0xffff }, "missing_gnss"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []ctxOpt{assessed(known, 0.1)}
			if tt.opt != nil {
				opts = append(opts, tt.opt)
			}
			d, err := single(t, tt.cond, "").Decide(ctx(1, opts...))
			if err != nil {
				t.Fatal(err)
			}
			if d.Reason != tt.want {
				t.Fatalf("decided %s/%s, want reason %s", d.Kind, d.Reason, tt.want)
			}
		})
	}
}

func TestHealthConditionErrors(t *testing.T) {
	tests := []struct{ cond, want string }{
		{"{gnss: {}}", "want fix, satellites or both"},
		{"{gnss: {fix: lots}}", `fix = "lots": want one of [no_fix 2d 3d dgps rtk_float rtk_fixed extrapolated lost]`},
		{"{gnss: {fix: 3}}", `fix = "3": want one of`},
		{"{gnss: {fix: 7}}", "PX4 never uses 7"},
		{"{gnss: {fix: {at_least: lost}}}", `"lost" is a group`},
		{"{gnss: {fix: {in: [lost, no_fix]}}}", `"no_fix" listed twice`},
		{"{gnss: {satellites: {lt: 300}}}", "out of range: gnss.satellites is the number of satellites the receiver uses"},
		{"{gnss: {satellites: 6}}", "want a mapping"},
		{"{gnss: {sats: {lt: 6}}}", `unknown key "sats"`},
		{"{estimator: {}}", "want at least one of [gps_fused"},
		{"{estimator: {gps: false}}", `unknown key "gps"`},
		{"{estimator: {gps_fused: no_way}}", "want true or false"},
		{"{px4_failsafe: {flag: gps_lost}}", `flag = "gps_lost": want one of [angular_velocity_invalid`},
		{"{px4_failsafe: {flag: {in: []}}}", "want at least one flag"},
		{"{px4_failsafe: {flag: {in: [attitude_invalid, attitude_invalid]}}}", `"attitude_invalid" listed twice`},
		{"{px4_failsafe: {}}", `missing key "flag"`},
		{"{missing: gps}", `want one of [assessment calibration perception battery_pct battery_v gnss estimator px4_failsafe]`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(policyWith("  - name: r\n    when: "+tt.cond+"\n    action: hold\n    reason: r\n")))
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) || pe.Line != 6 {
				t.Fatalf("error %v, want t.yaml:6:... %q", err, tt.want)
			}
		})
	}
}

// Equal meanings write equal canonical bytes; Check finds the health
// conditions no context meets.
func TestHealthIdentityAndCheck(t *testing.T) {
	same := [][2]string{
		{"{gnss: {fix: lost}}", "{gnss: {fix: {at_most: 2d}}}"},
		{"{gnss: {fix: lost}}", "{gnss: {fix: {in: [2d, no_fix]}}}"},
		{"{px4_failsafe: {flag: attitude_invalid}}", "{px4_failsafe: {flag: {in: [attitude_invalid]}}}"},
		{"{gnss: {fix: 3d, satellites: {ge: 6}}}", "{all: [{gnss: {fix: {is: 3d}}}, {gnss: {satellites: {ge: 6}}}]}"},
	}
	for _, pr := range same {
		if a, b := single(t, pr[0], ""), single(t, pr[1], ""); a.ID() != b.ID() {
			t.Errorf("%s and %s hash differently:\n%s\n%s", pr[0], pr[1], a.Canonical(), b.Canonical())
		}
	}
	if a, b := single(t, "{estimator: {gps_fused: true}}", ""), single(t, "{estimator: {gps_fused: false}}", ""); a.ID() == b.ID() {
		t.Error("opposite estimator tests hash alike")
	}
	for _, cond := range []string{
		"{all: [{estimator: {gps_fused: true}}, {estimator: {gps_fused: false}}]}",
		"{all: [{missing: gnss}, {gnss: {fix: 3d}}]}",
		"{all: [{gnss: {fix: lost}}, {gnss: {fix: {at_least: 3d}}}]}",
		"{all: [{missing: px4_failsafe}, {px4_failsafe: {flag: attitude_invalid}}]}",
		"{gnss: {satellites: {gt: 255}}}",
	} {
		if fs := Check(single(t, cond, "")); len(fs) != 1 || fs[0].Kind != NeverFires {
			t.Errorf("%s: findings %v, want never_fires", cond, fs)
		}
	}
	if fs := Check(single(t, "{all: [{px4_failsafe: {flag: attitude_invalid}}, {px4_failsafe: {flag: local_position_invalid}}]}", "")); len(fs) != 0 {
		t.Errorf("two raised flags at once: findings %v", fs)
	}
}

// Table cases set the health a belief carries, step by step.
func TestRunCasesHealth(t *testing.T) {
	p, err := Parse("p.yaml", []byte(policyWith(`  - name: position_invalid
    when: {px4_failsafe: {flag: {in: [global_position_invalid, local_position_invalid]}}}
    action: engage_land
    reason: position_invalid
  - name: gnss_lost
    when: {all: [{gnss: {fix: lost}}, {estimator: {gps_fused: false}}]}
    action: hold
    reason: gnss_lost
  - name: few_satellites
    when: {gnss: {satellites: {lt: 6}}}
    action: hold
    reason: few_satellites
`)))
	if err != nil {
		t.Fatal(err)
	}
	cases := `cases:
  - name: health
    steps:
      - {at: 0s, gnss: {fix: 3d, satellites: 10}, estimator: {gps_fused: true}, px4_failsafe: [], expect: {action: proceed}}
      - {at: 1s, gnss: {fix: no_fix}, expect: {action: proceed}}
      - {at: 2s, estimator: {gps_fused: false}, expect: {action: hold, reason: gnss_lost}}
      - {at: 3s, px4_failsafe: [local_position_invalid], expect: {action: engage_land}}
      - {at: 4s, px4_failsafe: [], gnss: {fix: 3d, satellites: 5}, estimator: {gps_fused: true}, expect: {action: hold, reason: few_satellites}}
      - {at: 5s, gnss: missing, expect: {action: abstain_uncertain, reason: missing_gnss}}
      - {at: 6s, gnss: {fix: rtk_fixed, satellites: 20}, px4_failsafe: missing, expect: {action: abstain_uncertain, reason: missing_px4_failsafe}}
`
	res, err := RunCases(p, "c.yaml", []byte(cases))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if !r.Pass {
			t.Error(r)
		}
	}
	for _, tt := range []struct{ step, want string }{
		{"gnss: {satellites: 6}", "want a fix"},
		{"gnss: {fix: 7}", `fix = "7": want one of [no_fix 2d`},
		{"gnss: {fix: 3d, satellites: 300}", "want a count from 0 to 255"},
		{"estimator: {gps: true}", `unknown key "gps"`},
		{"px4_failsafe: [gps_lost]", `"gps_lost": want one of`},
		{"px4_failsafe: [attitude_invalid, attitude_invalid]", "listed twice"},
		{"px4_failsafe: attitude_invalid", "want a list"},
	} {
		src := "cases:\n  - {name: a, steps: [{at: 0s, " + tt.step + ", expect: {action: hold}}]}\n"
		if _, err := RunCases(p, "c.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.step, err, tt.want)
		}
	}
}
