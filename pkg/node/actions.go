package node

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/px4link"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// SinkActions is the id of the node's action receipt sinks (ROS topic and
// recording).
const SinkActions = "actions"

// acting is the node's side of executors.*: the live executor's link to
// the vehicle, and the publication and recording of the evidence it
// returns and of every action receipt. nil when no executor is set.
//
// Evidence enters the Loop exactly as a replay of the node's recording
// re-reads it: each batch the executor polls is first published on the
// evidence topic and recorded at its arrival time (the receive time of the
// vehicle's message), then stepped, at that same time.
type acting struct {
	link     *px4link.Link // nil for the log executor
	evPub    transport.Publisher
	evKind   int // index of the evidence input in node.inputs
	evTopic  string
	buf      []byte
	actCh    bag.ChannelID
	receipts *session.RecordingActionSink // in-node recording; nil without
	// failures count evidence that could not be published or recorded.
	failures uint64
}

// prepareActing builds the configured executor into sopts: the px4
// executor over a link on t (encoding with the px4_msgs of amentPrefix,
// px4.release checked as input.source px4 checks it), the log executor
// logging to logger. It returns nil when no executor is set.
func prepareActing(cfg config.Config, t transport.Transport, sopts *session.SessionOptions, ament string, logger *slog.Logger) (*acting, error) {
	ex := cfg.Executors
	if ex.Executor == config.ExecutorNone {
		return nil, nil
	}
	a := &acting{evKind: -1}
	var tr *px4link.Link
	if ex.Executor == config.ExecutorPX4 {
		defs, err := px4.LoadFromAmentIndex(ament)
		if err != nil {
			return nil, fmt.Errorf("executors.executor px4: %w", err)
		}
		if rel := cfg.Input.PX4Release; rel != "" && string(defs.Release()) != rel {
			return nil, fmt.Errorf("executors.executor px4: px4.release is %s but the installed px4_msgs (%s) have release %s's layouts",
				rel, defs.Source(), defs.Release())
		}
		if tr, err = px4link.New(t, px4link.Options{Definitions: defs, Namespace: cfg.Input.PX4Namespace}); err != nil {
			return nil, fmt.Errorf("executors.executor px4: %w", err)
		}
		a.link = tr
	}
	var e session.Executor
	var err error
	if tr != nil {
		e, err = ex.NewExecutor(tr, nil)
	} else { // an interface holding a nil *Link would not be nil
		e, err = ex.NewExecutor(nil, &lineLogger{log: logger})
	}
	if err != nil {
		return nil, err
	}
	sopts.Executors = []session.Executor{e}
	return a, nil
}

// ticks reports whether ticks may step the Loop. While acting they do
// not: a tick is not in any recording, and a decision it made (a belief
// whose assessment timed out) would act at a time no replay reproduces,
// so its receipts could not be re-checked. The Loop's time then advances
// with the inputs and the evidence alone, and such a belief is decided at
// the next of them, exactly as a replay decides it.
func (a *acting) ticks() bool { return a == nil }

// ownsInput reports whether the node itself produces in (the evidence
// input while acting), so it must not subscribe to it.
func (a *acting) ownsInput(in session.InputSpec) bool {
	return a != nil && in.Kind == engine.InputEvidence
}

// startActing advertises the evidence and receipts topics, adds the
// receipts to the recording, registers the receipt sinks and subscribes
// to the vehicle's answers. Called once the session and recording exist.
func (n *node) startActing(tctx context.Context, t transport.Transport, configured []session.InputSpec, resolved session.Topics) error {
	a := n.act
	for k, in := range n.inputs {
		if in.Kind == engine.InputEvidence {
			a.evKind, a.evTopic = k, in.Topic
		}
	}
	if a.evKind < 0 {
		return fmt.Errorf("executors: the evidence input (topics.%s) is disabled", session.KeyActionEvidence)
	}
	evType := new(ros2msg.ActionEvidence).SchemaName()
	if n.vehicle != nil && n.vehicle.pubs[a.evTopic] != nil {
		a.evPub = n.vehicle.pubs[a.evTopic] // the vehicle source advertised it already
	} else {
		var err error
		if a.evPub, err = t.Advertise(configured[a.evKind].Topic, evType, n.inputs[a.evKind].QoS); err != nil {
			return fmt.Errorf("advertise %s: %w", session.KeyActionEvidence, err)
		}
	}
	receiptType := new(ros2msg.ActionReceipt).SchemaName()
	pub, err := t.Advertise(n.cfg.Topics.Actions(), receiptType, n.cfg.QoS[session.KeyActions])
	if err != nil {
		return fmt.Errorf("advertise actions: %w", err)
	}
	sinks := []session.ActionSink{session.NewRecordingActionSink(func(_ uint64, data []byte) error { return pub.Publish(data) })}
	if n.rec != nil {
		if a.actCh, err = n.rec.addChannel(func(r *bag.Recorder) (bag.ChannelID, error) {
			return r.AddMessageChannel(resolved.Actions(), receiptType, n.cfg.QoS[session.KeyActions])
		}); err != nil {
			return fmt.Errorf("recording: %w", err)
		}
		// Receipts are logged at their time, as replay logs them.
		a.receipts = session.NewRecordingActionSink(func(t uint64, data []byte) error {
			return n.rec.write(a.actCh, t, uint64(n.now().UnixNano()), data)
		})
		sinks = append(sinks, a.receipts)
	}
	for i, s := range sinks {
		if err := n.run.RegisterActionSink(fmt.Sprintf("%s_%d", SinkActions, i), s); err != nil {
			return err
		}
	}
	if a.link == nil {
		return nil
	}
	for k, sub := range a.link.Subscriptions() {
		h := func(data []byte, recv time.Time) {
			select {
			case n.in <- input{kind: k, executor: true, data: data, recv: recv, wall: recv}:
			case <-tctx.Done():
			}
		}
		if err := t.Subscribe(sub.Topic, sub.Type, sub.QoS, h); err != nil {
			return fmt.Errorf("subscribe %s: %w", sub.Topic, err)
		}
	}
	return nil
}

// handleExecutor buffers one message of the vehicle's answers in the link
// and delivers the evidence the executor makes of it.
func (n *node) handleExecutor(in input) {
	a := n.act
	sub := a.link.Subscriptions()[in.kind]
	if err := a.link.Deliver(sub.Topic, in.data, in.recv); err != nil {
		n.warn("executor_input", "vehicle answer dropped", "topic", sub.Topic, "err", err)
		return
	}
	n.stepped(n.s.Pump(in.recv.UnixNano(), n.recordEvidence))
}

// recordEvidence publishes and records one evidence batch before it is
// stepped. A failure is logged and counted; the batch is stepped anyway,
// because the vehicle's answer happened whether or not it was recorded.
func (n *node) recordEvidence(ev engine.EvidenceEvent) error {
	a := n.act
	m := session.EvidenceMessage(ev)
	data, err := m.AppendCDR(a.buf[:0])
	if err != nil {
		a.failures++
		n.warn("evidence", "cannot encode evidence", "err", err)
		return nil
	}
	a.buf = data
	if err := a.evPub.Publish(data); err != nil {
		a.failures++
		n.warn("evidence_publish", "cannot publish evidence", "topic", a.evTopic, "err", err)
	}
	n.sealInput(a.evKind, data, time.Unix(0, ev.ArrivalNs))
	if n.rec != nil {
		if err := n.rec.input(a.evKind, data, time.Unix(0, ev.ArrivalNs), n.now()); err != nil {
			n.stats.recordingFailures++
			n.warn("recording_input", "cannot record evidence", "err", err)
		}
	}
	return nil
}

// lineLogger logs each line the log executor writes.
type lineLogger struct{ log *slog.Logger }

func (l *lineLogger) Write(p []byte) (int, error) {
	for line := range bytes.SplitSeq(bytes.TrimRight(p, "\n"), []byte("\n")) {
		l.log.Info("log executor", "would_send", string(line))
	}
	return len(p), nil
}
