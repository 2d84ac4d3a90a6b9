package node

import (
	"fmt"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/seal"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// SinkSeal is the id under which the node's sealing sinks are registered.
const SinkSeal = "seal"

// sealing seals every message the node takes (its inputs, as handed to the
// session) and publishes on the topics it records (decisions, receipts,
// evidence), and publishes a seal once a second and at shutdown
// (docs/seals.md). Everything here runs on the node goroutine.
type sealing struct {
	s       *seal.Sealer
	pub     transport.Publisher
	topic   string
	inputs  []seal.TopicID // by index of node.inputs
	dec     seal.TopicID
	act     seal.TopicID
	recCh   bag.ChannelID // in the in-node recording, when there is one
	buf     []byte
	clock   func() int64 // the session's arrival time, as decisions are logged
	seals   uint64
	failed  uint64
	stopped bool
}

// setupSealing reads the node's key and declares what it seals; nothing is
// sealed without seal.key_file. A key that cannot be read stops the node:
// one configured to seal must not run unsealed.
func (n *node) setupSealing(t transport.Transport, resolved session.Topics) error {
	if n.cfg.Seal.KeyFile == "" {
		return nil
	}
	key, err := seal.LoadPrivateKey(n.cfg.Seal.KeyFile)
	if err != nil {
		return fmt.Errorf("node configuration: seal.key_file: %w", err)
	}
	s, err := seal.NewSealer(key)
	if err != nil {
		return fmt.Errorf("node configuration: seal.key_file: %w", err)
	}
	sl := &sealing{s: s, topic: resolved.Seal(), clock: n.s.Now}
	for _, in := range n.inputs {
		id, err := s.Declare(in.Topic, in.Type)
		if err != nil {
			return err
		}
		sl.inputs = append(sl.inputs, id)
	}
	if sl.dec, err = s.Declare(resolved.Decisions(), new(ros2msg.DecisionRationale).SchemaName()); err != nil {
		return err
	}
	qos := n.cfg.QoS[session.KeySeal]
	typ := new(ros2msg.RecordingSeal).SchemaName()
	if sl.pub, err = t.Advertise(n.cfg.Topics[session.KeySeal], typ, qos); err != nil {
		return fmt.Errorf("advertise seal: %w", err)
	}
	if n.rec != nil {
		if sl.recCh, err = n.rec.addChannel(func(r *bag.Recorder) (bag.ChannelID, error) {
			return r.AddMessageChannel(sl.topic, typ, qos)
		}); err != nil {
			return fmt.Errorf("recording: %w", err)
		}
	}
	// Decisions are sealed as the ROS sink encodes them, logged at the
	// arrival time that made them.
	n.ros.encoded = func(data []byte) { sl.s.Add(sl.dec, sl.clock(), data) }
	if n.act != nil {
		if sl.act, err = s.Declare(resolved.Actions(), new(ros2msg.ActionReceipt).SchemaName()); err != nil {
			return err
		}
		receipts := session.NewRecordingActionSink(func(t uint64, data []byte) error {
			sl.s.Add(sl.act, int64(t), data)
			return nil
		})
		if err := n.run.RegisterActionSink(SinkSeal, receipts); err != nil {
			return err
		}
	}
	n.seal = sl
	return nil
}

// sealInput seals input k as taken at recv.
func (n *node) sealInput(k int, data []byte, recv time.Time) {
	if n.seal != nil {
		n.seal.s.Add(n.seal.inputs[k], recv.UnixNano(), data)
	}
}

// sealNow seals what was taken and published since the last seal, unless
// that is nothing, and publishes and records the seal; final seals at
// shutdown, even nothing, and ends sealing.
func (n *node) sealNow(wall time.Time, final bool) {
	sl := n.seal
	if sl == nil || sl.stopped || !final && sl.s.Pending() == 0 {
		return
	}
	at := n.endTime(wall)
	s, err := sl.s.Seal(at, final)
	if err != nil {
		sl.failed++
		n.warn("seal", "cannot seal", "err", err)
		return
	}
	sl.stopped = final
	sl.seals++
	if sl.buf, err = s.AppendCDR(sl.buf[:0]); err != nil {
		sl.failed++
		n.warn("seal", "cannot encode a seal", "seal", s.Index, "err", err)
		return
	}
	if err := sl.pub.Publish(sl.buf); err != nil {
		sl.failed++
		n.warn("seal_publish", "cannot publish a seal", "topic", sl.topic, "seal", s.Index, "err", err)
	}
	if n.rec != nil {
		// Logged after every message it covers, as verify expects of a
		// recording the node wrote.
		t := uint64(max(at, s.LastTimeNs))
		if err := n.rec.write(sl.recCh, t, uint64(n.now().UnixNano()), sl.buf); err != nil {
			n.stats.recordingFailures++
			n.warn("recording_seal", "cannot record a seal", "seal", s.Index, "err", err)
		}
	}
	if final {
		n.log.Info("sealed", "seals", sl.seals, "key_id", sl.s.KeyID(), "last_seal", s.Index, "failures", sl.failed)
	}
}
