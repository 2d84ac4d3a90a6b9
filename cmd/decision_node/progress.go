package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"golang.org/x/term"
)

// progressPrinter shows a replay's or verification's progress on stderr: a
// bar redrawn in place when stderr is a terminal, a plain line every few
// seconds otherwise (logs, CI).
type progressPrinter struct {
	w      io.Writer
	label  string
	tty    bool
	off    bool
	start  time.Time
	last   time.Time
	drawn  bool
	period time.Duration
}

func newProgress(w io.Writer, label string, quiet bool) *progressPrinter {
	now := time.Now()
	return &progressPrinter{w: w, label: label, tty: isTerminal(w), off: quiet, start: now, last: now, period: 5 * time.Second}
}

// isTerminal reports whether w is a terminal. A character device is not
// enough: /dev/null is one, and a bar redrawn there is wasted work.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// update takes one progress report.
func (p *progressPrinter) update(pr audit.Progress) {
	if p.off {
		return
	}
	now := time.Now()
	if p.tty {
		if !pr.Done && now.Sub(p.last) < 100*time.Millisecond {
			return
		}
		p.last = now
		fmt.Fprintf(p.w, "\r%s", p.line(pr, now, true))
		p.drawn = true
		if pr.Done {
			fmt.Fprintln(p.w)
		}
		return
	}
	if pr.Done || now.Sub(p.last) < p.period {
		return
	}
	p.last = now
	fmt.Fprintln(p.w, p.line(pr, now, false))
}

func (p *progressPrinter) line(pr audit.Progress, now time.Time, bar bool) string {
	elapsed := now.Sub(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(pr.Messages) / elapsed
	}
	var b strings.Builder
	b.WriteString(p.label)
	if pr.Total > 0 {
		frac := float64(pr.Messages) / float64(pr.Total)
		if frac > 1 {
			frac = 1
		}
		if bar {
			const width = 30
			n := int(frac * width)
			fmt.Fprintf(&b, " [%s%s]", strings.Repeat("#", n), strings.Repeat(".", width-n))
		}
		fmt.Fprintf(&b, " %3.0f%% %d/%d messages", 100*frac, pr.Messages, pr.Total)
	} else {
		fmt.Fprintf(&b, " %d messages", pr.Messages)
	}
	fmt.Fprintf(&b, ", %d decisions, %s msg/s", pr.Decisions, humanRate(rate))
	if pr.Total > pr.Messages && rate > 0 {
		eta := time.Duration(float64(pr.Total-pr.Messages) / rate * float64(time.Second))
		fmt.Fprintf(&b, ", ETA %s", eta.Round(time.Second))
	}
	if bar {
		b.WriteString("   ") // clear leftovers of a longer previous line
	}
	return b.String()
}

func humanRate(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.2fM", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.1fk", r/1e3)
	default:
		return fmt.Sprintf("%.0f", r)
	}
}
