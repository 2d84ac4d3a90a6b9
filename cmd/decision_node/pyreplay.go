package main

import (
	"fmt"
	"io"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/audit/pyref"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// replayReference replays a recording the Python reference wrote (JSON
// messages) into a ghost ROS 2 recording: each belief, raw assessment,
// calibrated assessment and perception report becomes the ghost message
// (CDR) on the configured topic, and the decisions are re-decided as the
// node decides them. Where the reference recorded calibrated assessments
// the calibrated input is enabled (on the configured topic, else
// /self_assessment/calibrated), so the decisions use the calibrated
// context as the reference's did; its recorded decisions and every other
// channel are left out.
func replayReference(df *decisionFlags, in, out string, cfg config.Config, stderr io.Writer) error {
	reader, err := openInput(in, nil, "", "", stderr, jsonEncoding)
	if err != nil {
		return err
	}
	defer reader.Close()
	roles := map[string]pyref.Role{}
	hasCalibrated := false
	for _, c := range channelInfos(reader) {
		if r := pyref.RoleOf(c); r != pyref.RoleOther && r != pyref.RoleDecision {
			roles[c.Topic] = r
			hasCalibrated = hasCalibrated || r == pyref.RoleCalibrated
		}
	}
	cfg = cfg.Clone()
	if hasCalibrated && cfg.Topics[session.KeySelfAssessmentCalibrated] == "" {
		cfg.Topics[session.KeySelfAssessmentCalibrated] = session.CalibratedTopic
	}
	if err := cfg.Validate(); err != nil {
		return &exitError{code: inputOrUsage(err), err: err}
	}
	sopts, err := cfg.SessionOptions()
	if err != nil {
		return &exitError{code: inputOrUsage(err), err: err}
	}
	t := &referenceTranslation{roles: roles}
	for _, i := range sopts.Inputs {
		switch i.Key {
		case session.KeyState:
			t.topic[pyref.RoleBelief] = i.Topic
		case session.KeySelfAssessment:
			t.topic[pyref.RoleAssessment] = i.Topic
		case session.KeySelfAssessmentCalibrated:
			t.topic[pyref.RoleCalibrated] = i.Topic
		case session.KeyPerceptionMode:
			t.topic[pyref.RolePerception] = i.Topic
		}
	}
	src, reportOrder := inLogTimeOrder(reader, reader.Indexed(), in, stderr)
	defer reportOrder()
	t.in = src
	if _, err := df.decideInto("replay", t, 0, in, out, cfg, sopts, stderr); err != nil {
		return err
	}
	if t.skipped > 0 && !df.quiet {
		fmt.Fprintf(stderr, "decision_node: replay: %d reference messages did not decode and were left out (last: %v)\n", t.skipped, t.lastErr)
	}
	return nil
}

// referenceTranslation turns the messages of a Python reference recording
// into ghost messages (CDR), in the recording's order, keeping their log
// and publish times. Channels without a ghost counterpart are skipped.
type referenceTranslation struct {
	in    audit.Source
	roles map[string]pyref.Role // by recorded topic
	topic [pyref.RolePerception + 1]string
	seq   uint32
	buf   []byte
	// skipped counts messages that did not decode; lastErr is the last
	// one's error.
	skipped uint64
	lastErr error
}

// Next returns the next translated message; its Data is valid until the
// next call.
func (t *referenceTranslation) Next() (bag.Message, error) {
	for {
		m, err := t.in.Next()
		if err != nil {
			return bag.Message{}, err
		}
		role, ok := t.roles[m.Topic]
		if !ok || t.topic[role] == "" {
			continue
		}
		schema, err := t.translate(role, m.Data)
		if err != nil {
			t.skipped++
			t.lastErr = fmt.Errorf("%s at log time %d: %w", m.Topic, m.LogTime, err)
			continue
		}
		t.seq++
		return bag.Message{Topic: t.topic[role], SchemaName: schema, Sequence: t.seq,
			LogTime: m.LogTime, PublishTime: m.PublishTime, Data: t.buf}, nil
	}
}

// translate decodes one reference message of role into t.buf as CDR and
// returns its schema name.
func (t *referenceTranslation) translate(role pyref.Role, data []byte) (string, error) {
	var err error
	switch role {
	case pyref.RoleBelief:
		var b decisions.Belief
		if b, err = pyref.DecodeBelief(data); err != nil {
			return "", err
		}
		w := ros2msg.BeliefToWire(&b)
		t.buf, err = w.AppendCDR(t.buf[:0])
		return w.SchemaName(), err
	case pyref.RoleAssessment:
		var a decisions.SelfAssessment
		if a, err = pyref.DecodeAssessment(data); err != nil {
			return "", err
		}
		w := ros2msg.SelfAssessmentToWire(&a)
		t.buf, err = w.AppendCDR(t.buf[:0])
		return w.SchemaName(), err
	case pyref.RoleCalibrated:
		a, c, err := pyref.DecodeCalibrated(data)
		if err != nil {
			return "", err
		}
		w := ros2msg.CalibratedToWire(&a, &c)
		t.buf, err = w.AppendCDR(t.buf[:0])
		return w.SchemaName(), err
	case pyref.RolePerception:
		var p decisions.PerceptionReport
		if p, err = pyref.DecodePerception(data); err != nil {
			return "", err
		}
		w := ros2msg.PerceptionToWire(p)
		t.buf, err = w.AppendCDR(t.buf[:0])
		return w.SchemaName(), err
	}
	return "", fmt.Errorf("no ghost message for the reference's %s channel", role)
}
