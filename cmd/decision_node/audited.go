package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ghost-robotics/ghost/msg"
	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/audit/pyref"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// Recording formats verify and report read.
const (
	formatGhost     = "ghost ROS 2 recording (CDR)"
	formatReference = "Python reference recording (JSON)"
)

// jsonEncoding is how the Python reference records: schemas with a name
// only, JSON messages.
var jsonEncoding = []bag.Encoding{{Schema: "", Message: pyref.MessageEncoding}}

// openAudit opens a recording for an audit and says how to audit it: a
// ghost ROS 2 recording on the configured topics, or a recording the Python
// reference wrote, told apart by its header library, message encodings and
// schema names. A ghost recording holding one channel of calibrated
// self-assessments while the configuration enables none is audited with the
// calibrated input on that channel. The options carry the inputs, the decisions topic and the
// format; the caller adds policies and callbacks.
func openAudit(path string, cfg config.Config, sopts session.SessionOptions, stderr io.Writer) (*bag.Reader, audit.VerifyOptions, string, error) {
	probe, err := openInput(path, nil, "", "", stderr, jsonEncoding)
	if err != nil {
		return nil, audit.VerifyOptions{}, "", err
	}
	chans := channelInfos(probe)
	lib := probe.Library()
	isReference := pyref.Detect(lib, probe.Profile(), chans)
	loop := sopts.Loop
	loop.Policy = nil
	if !isReference {
		probe.Close()
		format := formatGhost
		inputs := sopts.Inputs
		if t := calibratedChannel(chans); t != "" && cfg.Topics[session.KeySelfAssessmentCalibrated] == "" && cfg.Input.Source == config.SourceGhost {
			// A node records only the inputs it reads: a recording with
			// calibrated assessments was decided on them.
			c := cfg.Clone()
			c.Topics[session.KeySelfAssessmentCalibrated] = t
			so, err := c.SessionOptions()
			if err != nil {
				return nil, audit.VerifyOptions{}, "", fail(exitUsage, "%s: calibrated assessments on %s: %w", path, t, err)
			}
			inputs = so.Inputs
			format += ", decided on the calibrated assessments of " + t
		}
		decisionsT := decisionsTopic(cfg)
		actionsT := actionsTopic(cfg)
		r, err := openInput(path, inputs, decisionsT, actionsT, stderr, nil, sealTopic(cfg))
		if err != nil {
			return nil, audit.VerifyOptions{}, "", err
		}
		so := sopts
		so.Inputs, so.Loop = inputs, loop
		vopts := audit.VerifyOptions{DecisionsTopic: decisionsT, ActionsTopic: actionsT, Session: so}
		if lib != bag.DefaultLibrary && !strings.HasPrefix(lib, bag.DefaultLibrary+";") {
			// Another recorder (rosbag2) logged at its own receive times.
			vopts.ReceiptTimeSkew = audit.RecorderTimeSkew
			format += ", receipt times within " + audit.RecorderTimeSkew.String() + " (another recorder's log times)"
		}
		vopts.Seals = sealOptions(cfg, vopts)
		return r, vopts, format, nil
	}
	rr, err := audit.NewReferenceRecording(chans)
	if err != nil {
		probe.Close()
		return nil, audit.VerifyOptions{}, "", fail(exitIO, "%s: %w", path, err)
	}
	return probe, audit.VerifyOptions{DecisionsTopic: rr.DecisionsTopic, Format: rr.Format,
			Session: session.SessionOptions{Inputs: rr.Inputs, Loop: loop}},
		fmt.Sprintf("%s, %d channels not audited", formatReference, len(rr.Ignored)), nil
}

// calibratedChannel returns the topic of the recording's one channel of
// ghost calibrated self-assessments, "" when it has none or several.
func calibratedChannel(chans []pyref.ChannelInfo) string {
	topic := ""
	for _, c := range chans {
		if c.SchemaName == msg.SchemaName("CalibratedSelfAssessment") {
			if topic != "" && topic != c.Topic {
				return ""
			}
			topic = c.Topic
		}
	}
	return topic
}

// isReferenceRecording reports whether the recording at path was written
// by the Python reference (false when it cannot be read: the caller's own
// open reports why).
func isReferenceRecording(path string) bool {
	r, err := bag.OpenRecording(path, bag.ReaderOptions{Encodings: jsonEncoding})
	if err != nil {
		return false
	}
	defer r.Close()
	return pyref.Detect(r.Library(), r.Profile(), channelInfos(r))
}

// channelInfos describes a recording's channels as pyref reads them.
func channelInfos(r *bag.Reader) []pyref.ChannelInfo {
	var chans []pyref.ChannelInfo
	for _, c := range r.Channels() {
		chans = append(chans, pyref.ChannelInfo{Topic: c.Topic, MessageEncoding: c.MessageEncoding, SchemaName: c.SchemaName, SchemaEncoding: c.SchemaEncoding})
	}
	return chans
}
