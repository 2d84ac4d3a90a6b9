package audit

import (
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// candidate is one host-supplied policy re-deciding the recording.
type candidate struct {
	id      string
	session *session.Session
	// decided are the Loop's decisions not yet matched with a recorded
	// one, in stamp order.
	decided fifo[redecision]
	// receipts are the action receipts its Runner made, not yet compared.
	receipts fifo[session.ActionReceipt]
	retired  bool
}

type redecision struct {
	r       decisions.Rationale
	without engine.WithoutReason
}

// newCandidate builds the Session that re-decides the recording with p,
// its sinks feeding the comparison.
func (v *verifier) newCandidate(p decisions.Policy) (*candidate, error) {
	so := v.opts.Session
	so.Loop.Policy = p
	s, err := session.NewSession(so)
	if err != nil {
		return nil, fmt.Errorf("verify: policy %s: %w", p.ID(), err)
	}
	c := &candidate{id: p.ID(), session: s}
	err = s.Runner().RegisterActionSink("audit", actionSinkFunc(func(rc session.ActionReceipt) error {
		v.derivedReceipt(c, rc)
		return nil
	}))
	if err != nil {
		return nil, err
	}
	err = s.Runner().Register("audit", session.FuncSink(func(cmd engine.Command) error {
		if c.retired {
			return nil
		}
		c.decided.push(redecision{r: cmd.Rationale, without: cmd.WithoutAssessment})
		if c.decided.len() > v.opts.MaxHeld {
			if rd := c.decided.pop(); c == v.primary() {
				v.unmatched(rd)
			}
		}
		return nil
	}))
	if err != nil {
		return nil, err
	}
	return c, nil
}

// retireOthers stops every candidate but the one with id once the first
// recorded decision names its policy (the others only ran because the
// policy was not known yet). A recording is audited against the policy of
// its first decision: a decision naming another policy later is not re-run.
func (v *verifier) retireOthers(id string) {
	for _, c := range v.cands {
		if c.id != id && !c.retired {
			c.retired = true
			v.active--
			c.decided = fifo[redecision]{}
			c.receipts = fifo[session.ActionReceipt]{}
		}
	}
}

func (v *verifier) candidateFor(id string) *candidate {
	for _, c := range v.cands {
		if c.id == id && !c.retired {
			return c
		}
	}
	return nil
}

// primary is the candidate whose re-decisions stand for the recording's:
// the one of the first decision's policy once known, else the first.
func (v *verifier) primary() *candidate {
	for _, c := range v.cands {
		if !c.retired {
			return c
		}
	}
	return nil
}

func (v *verifier) supplied(id string) bool {
	for _, c := range v.cands {
		if c.id == id {
			return true
		}
	}
	return false
}
