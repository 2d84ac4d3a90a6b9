package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// legend writes the report's one legend table (colour or symbol, and its
// one meaning), the mapping the "mode ≠ decision" lane uses, and the rules
// behind escalation marks and detail figures.
func (p *printer) legend() {
	p.s("<h2>Reading the timeline</h2>\n")
	p.s(`<p class="muted">Each colour has one meaning on every figure. A kind's colour also fills its action's bar and draws the battery thresholds whose rule decides it. `,
		`The colours are the Okabe-Ito palette, readable with the common forms of colour blindness; the action trail is drawn in shapes, and named states in words.</p>`)
	p.s(`<table class="legend"><tr><th></th><th>meaning</th></tr>`, "\n")
	for _, e := range legend {
		sw := `<span class="sw" style="background:` + e.color + `"></span>`
		switch {
		case e.symbol != "":
			sw = `<span class="sym">` + esc(e.symbol) + `</span>`
		case e.swatch != "":
			sw = `<span class="sw" style="background:` + e.swatch + `"></span>`
		}
		p.s("<tr><td>", sw, "</td><td>", esc(e.meaning), "</td></tr>\n")
	}
	p.s("</table>\n")
	p.s(`<p><b>Mode ≠ decision.</b> The vehicle's flight mode (FlightStatus.mode in the belief) is compared, in each time slice, with the kind decided; `,
		`the slice is hatched when no decided kind of the slice agrees with any of its modes. Nothing is compared for mode init (no status yet, or a mode FlightStatus cannot name), `,
		`nor while the vehicle is disarmed (a disarmed vehicle agrees with engage_land and engage_kill).</p>`)
	p.s(`<table><tr><th>decided kind</th><th>flight modes that agree</th></tr>`, "\n")
	for _, m := range ModeMapping() {
		p.s("<tr><td>", esc(m[0]), "</td><td>", esc(m[1]), "</td></tr>\n")
	}
	p.s("</table>\n")
	p.s(`<p><b>Escalation</b> (▲): the decided kind changes to a more severe kind that commands the vehicle (hold &lt; yield_to_pilot &lt; engage_rtl &lt; engage_land &lt; engage_kill) `,
		`while the last action of the previous kind has not reached its state: it failed (transport, executor, blocked_by_policy), was refused, `,
		`or was still sent or accepted when the new kind superseded it. A not_applicable action (disarmed, or already in the mode) does not count. `,
		`The mark is derived from the receipts and decisions alone: it says what happened, not why the policy decided.</p>`)
	p.s(`<p><b>Details.</b> Changes of decided kind and action outcomes less than `, strconv.Itoa(int(detailGap*100)), ` % of the width apart form a stretch; `,
		`a stretch of `, strconv.Itoa(detailMin), ` or more packed tighter than `, strconv.Itoa(detailPx), ` pixels each is drawn again at full width, `,
		`unless it spans more than a third of the flight (at most `, strconv.Itoa(maxDetails), `, the most crowded).</p>`, "\n")
}

func (p *printer) actions(f *Flight, a Audit, t timeAxis) {
	p.s("<h2>Actions</h2>\n")
	if len(f.Actions.Trail) == 0 {
		p.s("<p>", esc(actionsSummary(f, a)), ".</p>\n")
		return
	}
	p.s(`<p class="muted">An action is a decision acting on the vehicle through an executor, from its receipts: sent (and retried), acknowledged, `,
		`then reached, failed with its class, refused or superseded. Time: where the receipt was recorded, on the stamp axis.</p>`)
	p.s(`<table><tr><th>action</th><th>kind</th><th class="num">decided</th><th class="num">sends</th><th>acknowledged</th><th>outcome</th>`,
		`<th class="num">at</th><th>detail</th></tr>`, "\n")
	for i, r := range ActionRows(f) {
		act := &f.Actions.Trail[i]
		p.s(`<tr id="action-`, r.ID, `" title="`, esc(act.summary(t)), `"><td class="num">`, r.ID, `</td><td class="kind"><span class="sw" style="background:`, KindColor(act.Kind), `"></span>`,
			esc(r.Kind), `</td><td class="num">`, r.Decided, `</td><td class="num">`, r.Sends, `</td><td class="mono">`, esc(r.Ack),
			`</td><td class="mono">`, esc(r.Outcome), `</td><td class="num">`, r.At, `</td><td>`, esc(r.Detail), "</td></tr>\n")
	}
	p.s("</table>\n")
	if omitted := uint64(len(f.Actions.Trail)-min(len(f.Actions.Trail), maxActionRows)) + f.Actions.Omitted; omitted > 0 {
		p.s(`<p class="note">`, strconv.FormatUint(omitted, 10), ` further actions are not listed.</p>`)
	}
	shown, others := a.escalations(f)
	if len(others) > 0 {
		var reasons []string
		for _, e := range others {
			if !slices.Contains(reasons, e.Reason) {
				reasons = append(reasons, e.Reason)
			}
		}
		p.s(`<p class="muted">`, strconv.Itoa(len(others)), ` changes to a more severe kind came after an action that had not reached its state, `,
			`but were made by rules that do not read what actions achieved (reasons `, esc(strings.Join(reasons, ", ")), `): not escalations.</p>`, "\n")
	}
	if len(shown) == 0 {
		p.s("<p>No escalation: no rule that reads what actions achieved made a decided kind more severe.</p>\n")
		return
	}
	p.s("<p><b>Escalations</b></p><ul>\n")
	for _, e := range shown {
		link := esc(e.To.String())
		if e.Episode <= maxTableRows {
			link = `<a href="#episode-` + strconv.Itoa(e.Episode) + `">` + link + `</a>`
		}
		p.s("<li>", fmtSec(t.seconds(e.StampNs)), ": ", esc(e.From.String()), " → ", link, esc(e.byReason()), " after ", esc(e.Why), "</li>\n")
	}
	p.s("</ul>\n")
}

// actionsSummary counts the action trail in one line.
func actionsSummary(f *Flight, au Audit) string {
	a := &f.Actions
	if a.Topic == "" && a.EvidenceTopic == "" {
		return "no action receipts in the recording: every decision was advisory"
	}
	ev := a.ByEvent
	var fails []string
	for c := FailureNotApplicable; c <= NumFailures; c++ {
		if n := a.ByFailure[c]; n > 0 {
			fails = append(fails, fmt.Sprintf("%d %s", n, FailureName(c)))
		}
	}
	var acks []string
	for r, n := range a.ByAck {
		if n > 0 {
			acks = append(acks, fmt.Sprintf("%d %s", n, decisions.AckResult(min(r, 255))))
		}
	}
	s := fmt.Sprintf("%d actions from %d receipts on %s: %d sent, %d retries", uint64(len(a.Trail))+a.Omitted, a.Messages, a.Topic,
		ev[EventSent], ev[EventRetried])
	if len(acks) > 0 {
		s += ", acknowledged " + strings.Join(acks, ", ")
	}
	s += fmt.Sprintf("; %d reached, %d failed", ev[EventReached], ev[EventFailed]+ev[EventRefused])
	if len(fails) > 0 {
		s += " (" + strings.Join(fails, ", ") + ")"
	}
	s += fmt.Sprintf(", %d superseded; %d evidence batches rejected", ev[EventSuperseded], ev[EventEvidenceRejected])
	if a.EvidenceTopic != "" {
		s += fmt.Sprintf(" of %d on %s", a.EvidenceBatches, a.EvidenceTopic)
	}
	shown, _ := au.escalations(f)
	return s + fmt.Sprintf("; %d escalations", len(shown))
}

// modeSummary says how long and where the vehicle's flight mode differed
// from the decision (compareMode, by time slice).
func modeSummary(f *Flight) string {
	var runs, slices, compared int
	first, prev := -1, false
	var fk, fm string
	for i := range f.Buckets {
		ag, k, m := bucketAgreement(&f.Buckets[i])
		if ag != notCompared {
			compared++
		}
		d := ag == differs
		if d {
			slices++
			if !prev {
				runs++
			}
			if first < 0 {
				first, fk, fm = i, k.String(), m.String()
			}
		}
		prev = d
	}
	switch {
	case compared == 0:
		return "nothing compared: no slice had both a decision and a named flight mode of an armed vehicle"
	case runs == 0:
		return "the vehicle's flight mode agrees with the decision wherever they are compared"
	}
	t := newTimeAxis(f)
	at := f.BucketStartNs + int64(first)*f.BucketNs
	return fmt.Sprintf("the vehicle's flight mode differs from the decision for about %s in %d stretches; first at %s: the vehicle in %s while the decision is %s",
		fmtSpan(uint64(slices)*uint64(f.BucketNs)), runs, fmtSec(t.seconds(max(at, t.origin))), fm, fk)
}
