package report

import (
	"fmt"
	"strconv"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Unfollowed is a span of "decided X, vehicle in Y": consecutive decisions
// of one kind whose own belief showed the vehicle, armed, in one flight
// mode that differs from the kind (compareMode). Unlike the time-sliced
// comparison of the figures it is exact, decision by decision, and it says
// what ghost commanded meanwhile, so a decision nothing carries out shows
// with its cause.
type Unfollowed struct {
	Kind decisions.Kind
	Mode decisions.FlightMode
	// StartNs is the stamp of the span's first decision, LastNs of its
	// last; EndNs of the next decision (the disagreement lasted until
	// then), or LastNs at the end of the recording.
	StartNs, LastNs, EndNs int64
	// Decisions counts the span's decisions.
	Decisions uint64
	// Commands counts the actions of Kind that decisions of the span
	// started and that sent a command; Latest is the newest action of Kind
	// started by the end of the span (nil when none): what became of it
	// says why nothing more was sent.
	Commands int
	Latest   *Action
}

// maxUnfollowed bounds the spans a Flight keeps; later ones are counted in
// UnfollowedOmitted.
const maxUnfollowed = 10_000

// modeSeen is what a belief showed of the vehicle, kept for its decision.
type modeSeen struct {
	mode  decisions.FlightMode
	armed bool
}

// follow extends, ends or starts the current span with the decision of
// stamp and kind; seen says whether its belief was read, as m.
func (c *Collector) follow(stamp int64, kind decisions.Kind, m modeSeen, seen bool) {
	open := c.unfollowedOpen
	var cur *Unfollowed
	if open {
		cur = &c.unfollowedCur
		cur.EndNs = stamp
	}
	if !seen || compareMode(kind, m.mode, m.armed) != differs {
		c.closeUnfollowed()
		return
	}
	if open && cur.Kind == kind && cur.Mode == m.mode {
		cur.LastNs, cur.EndNs = stamp, stamp
		cur.Decisions++
		return
	}
	c.closeUnfollowed()
	c.unfollowedCur = Unfollowed{Kind: kind, Mode: m.mode, StartNs: stamp, LastNs: stamp, EndNs: stamp, Decisions: 1}
	c.unfollowedOpen = true
}

func (c *Collector) closeUnfollowed() {
	if !c.unfollowedOpen {
		return
	}
	c.unfollowedOpen = false
	if len(c.f.Unfollowed) < maxUnfollowed {
		c.f.Unfollowed = append(c.f.Unfollowed, c.unfollowedCur)
	} else {
		c.f.UnfollowedOmitted++
	}
}

// finishUnfollowed closes the last span and finds each span's commands in
// the action trail.
func (c *Collector) finishUnfollowed() {
	c.closeUnfollowed()
	trail := c.f.Actions.Trail
	for i := range c.f.Unfollowed {
		u := &c.f.Unfollowed[i]
		for j := range trail {
			a := &trail[j]
			if a.Kind != u.Kind || a.DecisionNs > u.LastNs {
				continue
			}
			if a.DecisionNs >= u.StartNs && a.Sends > 0 {
				u.Commands++
			}
			if u.Latest == nil || a.DecisionNs >= u.Latest.DecisionNs {
				u.Latest = a
			}
		}
	}
}

// UnfollowedSummary says in one line how long decisions went unfollowed
// and what ghost commanded in the longest span, or "" when the vehicle's
// mode never differed from the decision.
func UnfollowedSummary(f *Flight) string {
	if len(f.Unfollowed) == 0 {
		return ""
	}
	var total int64
	longest := &f.Unfollowed[0]
	for i := range f.Unfollowed {
		u := &f.Unfollowed[i]
		total += u.EndNs - u.StartNs
		if u.EndNs-u.StartNs > longest.EndNs-longest.StartNs {
			longest = u
		}
	}
	n := uint64(len(f.Unfollowed)) + f.UnfollowedOmitted
	return fmt.Sprintf("%d spans, %s in all; the longest decided %s for %s while the vehicle was in %s, %s",
		n, fmtDur(total), longest.Kind, fmtDur(longest.EndNs-longest.StartNs), longest.Mode, longest.what())
}

// what says what ghost commanded in the span.
func (u *Unfollowed) what() string {
	s := strconv.Itoa(u.Commands) + " commands sent in it"
	if u.Commands == 1 {
		s = "1 command sent in it"
	}
	if u.Latest == nil {
		return s + "; no " + u.Kind.String() + " action (advisory, or never started)"
	}
	a := u.Latest
	out := "still open"
	if a.HasOutcome {
		out = a.Outcome.Event.String()
		if a.Outcome.Detail != "" {
			out += ": " + a.Outcome.Detail
		}
	}
	return fmt.Sprintf("%s; the latest, action %d: %s", s, a.ID, capText(out, 300))
}

// unfollowed writes the table of spans.
func (p *printer) unfollowed(f *Flight, t timeAxis) {
	if len(f.Unfollowed) == 0 {
		return
	}
	p.s("<h2>Decided X, vehicle in Y</h2>\n")
	p.s(`<p class="muted">Runs of decisions whose own belief showed the vehicle armed in a flight mode that differs from the decided kind `,
		`(the mapping is in the legend), with the commands of that kind the run's decisions sent and what became of the latest.</p>`)
	p.s(`<table><tr><th class="num">from</th><th class="num">to</th><th class="num">for</th><th>decided</th><th>vehicle in</th>`,
		`<th class="num">decisions</th><th class="num">commands</th><th>latest action</th></tr>`, "\n")
	for i := range f.Unfollowed {
		if i == maxTableRows {
			break
		}
		u := &f.Unfollowed[i]
		latest := "none"
		if u.Latest != nil {
			latest = u.what()
		}
		p.s(`<tr><td class="num">`, fmtSec(t.seconds(u.StartNs)), `</td><td class="num">`, fmtSec(t.seconds(u.EndNs)),
			`</td><td class="num">`, esc(fmtDur(u.EndNs-u.StartNs)), `</td><td class="kind"><span class="sw" style="background:`, KindColor(u.Kind), `"></span>`,
			esc(u.Kind.String()), `</td><td>`, esc(u.Mode.String()), `</td><td class="num">`, strconv.FormatUint(u.Decisions, 10),
			`</td><td class="num">`, strconv.Itoa(u.Commands), `</td><td>`, esc(latest), "</td></tr>\n")
	}
	p.s("</table>\n")
	if omitted := uint64(len(f.Unfollowed)-min(len(f.Unfollowed), maxTableRows)) + f.UnfollowedOmitted; omitted > 0 {
		p.s(`<p class="note">`, strconv.FormatUint(omitted, 10), ` further spans are not listed.</p>`)
	}
}
