package honesty

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
)

// WriteTable writes r as the table `decision_node honesty` prints.
func WriteTable(w io.Writer, r *Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }
	t := &r.Truth
	if t.Source == "none" {
		p("truth\tnone\n")
	} else {
		p("truth\t%s: %s (%s form", t.Source, t.Origin, t.Form)
		if t.Frame != "" {
			p(", frame %s", t.Frame)
		}
		p(")\n")
		p("truth samples\t%s\n", streamCounts(t.Samples, t.Topics))
		if t.Rejected > 0 {
			p("truth left out\t%d (last: %s)\n", t.Rejected, t.LastRejected)
		}
		writeAlignment(p, r)
		p("beliefs\t%d read, %d compared with the truth, %d without assessment, %d without decision",
			r.Beliefs.Read, r.Beliefs.Compared, r.Beliefs.WithoutAssessment, r.Beliefs.WithoutDecision)
		if n := r.Beliefs.Unusable + r.Beliefs.Duplicate + r.Beliefs.Late; n > 0 {
			p(", %d unusable, %d duplicate stamps, %d late assessments or decisions", r.Beliefs.Unusable, r.Beliefs.Duplicate, r.Beliefs.Late)
		}
		p("\n")
		writeGaps(p, r)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Given() {
		if err := writeAxes(w, r); err != nil {
			return err
		}
		if err := writeNEES(w, r); err != nil {
			return err
		}
		writeConsequences(w, r)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	var err error
	switch r.Verdict {
	case VerdictHonest:
		_, err = fmt.Fprintf(w, "verdict: honest: every KNOWN claim had a true error within the known threshold (%s)\n", r.PositionAlignment)
	case VerdictOverconfident:
		_, err = fmt.Fprintf(w, "verdict: overconfident: %s (%s)\n", r.Reason, r.PositionAlignment)
	default:
		_, err = fmt.Fprintf(w, "verdict: none: %s\n", r.Reason)
	}
	return err
}

func streamCounts(samples map[string]uint64, topics map[string]string) string {
	var parts []string
	for s := truth.Stream(0); s < truth.NumStreams; s++ {
		name := s.String()
		if topics[name] == "" {
			parts = append(parts, name+" none")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d on %s", name, samples[name], topics[name]))
	}
	return strings.Join(parts, ", ")
}

func writeAlignment(p func(string, ...any), r *Result) {
	label := "alignment"
	for _, name := range AxisNames[:3] {
		al := r.Alignment.Axes[name]
		p("%s\t%s: %s", label, name, al.How)
		switch {
		case al.Method == MethodGlobal:
			p(" (checked at %.3f s: estimate minus truth %.3f m", float64(al.CheckStampNs)/1e9, optNumber(al.CheckM))
			if al.WithoutFrame > 0 {
				p("; %d beliefs outside it have no verdict on the axis", al.WithoutFrame)
			}
			p(")")
		case al.Method == MethodOffset && al.FinalOffsetM != nil && al.OffsetM != nil && *al.FinalOffsetM != *al.OffsetM:
			p("; %.3f m at the end, after the resets", float64(*al.FinalOffsetM))
		}
		p("\n")
		if al.Note != "" {
			p("\t  (%s)\n", al.Note)
		}
		label = ""
	}
	oc := &r.Alignment.Origin
	if oc.Source != "" {
		p("estimator origins\t%d declared", oc.Declared)
		if len(oc.First) > 0 {
			o := oc.First[0]
			p(", the first at %.3f s: lat/lon %s, %s; alt %s", float64(o.StampNs)/1e9, optFloat(o.Lat, "%.7f"), optFloat(o.Lon, "%.7f"), optFloat(o.AltM, "%.3f m"))
		}
		if oc.Rejected > 0 {
			p(", %d unusable", oc.Rejected)
		}
		p(" (from %s)\n", oc.Source)
	}
	rc := &r.Alignment.Resets
	if rc.Source == "" {
		p("estimator resets\tnone recorded: on an axis aligned by offset a reset would count as error\n")
		return
	}
	p("estimator resets\t%d read, %d whose steps are unknown, %d unusable (from %s): they move the offsets of the axes aligned by offset; the global frame needs none\n",
		rc.Read, rc.Lost, rc.Rejected, rc.Source)
}

func optNumber(x *Number) float64 {
	if x == nil {
		return math.NaN()
	}
	return float64(*x)
}

func writeGaps(p func(string, ...any), r *Result) {
	var parts []string
	for s := truth.Stream(0); s < truth.NumStreams; s++ {
		g := r.Gaps[s.String()]
		if n := g["no_sample_before"] + g["no_sample_after"] + g["too_far"]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d (%d before the first sample, %d after the last, %d too far)",
				s, n, g["no_sample_before"], g["no_sample_after"], g["too_far"]))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "none")
	}
	p("beliefs without truth\t%s (truth must lie within %.0f ms on both sides", strings.Join(parts, "; "), float64(r.Truth.MaxGapNs)/1e6)
	if r.Truth.Topics[truth.StreamGlobal.String()] != "" {
		p(", the global position within %.0f ms", float64(r.Truth.MaxGlobalGapNs)/1e6)
	}
	p(")\n")
}

func pct(n, of uint64) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

func optFloat(x *Number, format string) string {
	if x == nil {
		return "-"
	}
	return fmt.Sprintf(format, float64(*x))
}

func writeAxes(w io.Writer, r *Result) error {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "axis\tknown\tsamples\tknown\tbeyond known\toverconfident\tdoubted\twithin known\tunderconfident\trms e/σ\t>3σ\trms error\tmax error\t")
	fmt.Fprintln(tw, "\tthreshold\t\tclaims\t(overconfident)\tfor\tclaims\t(underconfident)\tfor\t\t\t\t\t")
	for _, name := range AxisNames {
		a := r.Axes[name]
		fmt.Fprintf(tw, "%s\t%g %s\t%d\t%d\t%d %s\t%.1f s\t%d\t%d %s\t%.1f s\t%s\t%s\t%s\t%s\t\n", name, a.KnownThreshold, a.Unit, a.Samples,
			a.KnownClaims, a.KnownViolations, pct(a.KnownViolations, a.KnownClaims), a.KnownViolationsS,
			a.UnknownClaims, a.UnknownButWithin, pct(a.UnknownButWithin, a.UnknownClaims), a.UnknownButWithinS,
			optFloat(a.RMSNormalizedError, "%.2f"), pct(a.Beyond3Sigma, a.NormalizedSamples),
			optFloat(a.RMSError, "%.3g"), optFloat(a.MaxAbsError, "%.3g"))
	}
	return tw.Flush()
}

func writeNEES(w io.Writer, r *Result) error {
	n0 := r.NEES[BlockNames[0]]
	fmt.Fprintf(w, "\nNEES per block: the error weighed by the claimed covariance; an estimator whose covariance is right averages 3 (the degrees of freedom), with 95%% of its samples between %.3g and %.3g\n", float64(n0.Lower), float64(n0.Upper))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "block\tsamples\tmean\twithin %.3g to %.3g\tmean expected within\treads as\tno covariance\t\n", float64(n0.Lower), float64(n0.Upper))
	for _, b := range BlockNames {
		n := r.NEES[b]
		bounds := "-"
		if n.MeanLower != nil {
			bounds = fmt.Sprintf("%.3g to %.3g", float64(*n.MeanLower), float64(*n.MeanUpper))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d\t\n", b, n.Samples, optFloat(n.Mean, "%.3g"), pct(n.Within, n.Samples), bounds, n.Reading(), n.Skipped)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "(the expected range of the mean holds for independent samples; successive beliefs are not, so a mean just outside it is weak evidence)")
	return err
}

func writeConsequences(w io.Writer, r *Result) {
	fmt.Fprintln(w, "\nconsequences")
	c := &r.Consequences
	for _, g := range []struct {
		name string
		g    *Group
	}{{"decisions on overconfident beliefs", c.Overconfident}, {"needless holds", c.NeedlessHolds}, {"needless abstentions", c.NeedlessAbstentions}} {
		fmt.Fprintf(w, "  %s: %d (%.1f s)", g.name, g.g.Decisions, g.g.Seconds)
		sep := ": "
		for _, k := range decisions.Kinds() {
			if kc := g.g.ByKind[k.String()]; kc != nil {
				fmt.Fprintf(w, "%s%s %d (%.1f s)", sep, k, kc.Decisions, kc.Seconds)
				sep = ", "
			}
		}
		fmt.Fprintln(w)
		if n := len(g.g.Episodes); n > 0 {
			longest := g.g.Episodes[0]
			for _, e := range g.g.Episodes {
				if e.Seconds > longest.Seconds {
					longest = e
				}
			}
			fmt.Fprintf(w, "    %d episode(s); the longest: %s from %.3f s for %.1f s (%d decisions) on %s\n", n+int(g.g.EpisodesOmitted),
				longest.Kind, float64(longest.StartNs)/1e9, longest.Seconds, longest.Decisions, strings.Join(longest.Axes, ", "))
		}
	}
}
