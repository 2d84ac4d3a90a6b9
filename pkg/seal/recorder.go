package seal

import (
	"fmt"
	"time"

	"github.com/ghost-robotics/ghost/msg"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// DefaultPeriod is how much node time one seal covers.
const DefaultPeriod = time.Second

// RecorderOptions configure a Recorder.
type RecorderOptions struct {
	// Topic is where the seals are written; default DefaultTopic.
	Topic string
	// Period is the log time one seal covers; default DefaultPeriod.
	Period time.Duration
	// QoS is the seal channel's offered QoS; default qos.DefaultDecisions().
	QoS *qos.Profile
}

// Recorder seals everything written through it to a bag.Recorder, as the
// node seals what it takes and publishes: an interval opens at the log time
// of its first message, and a message logged a Period or more after that
// first seals the interval before it; Close writes the final seal. Each
// seal is logged at the latest log time it covers, so it follows its
// messages in log-time order. The same writes give the same bytes: nothing
// here reads a clock, and Ed25519 signatures are deterministic.
//
// It is not safe for concurrent use.
type Recorder struct {
	rec    *bag.Recorder
	s      *Sealer
	topic  string
	period int64
	sealCh bag.ChannelID
	ids    []TopicID // by ChannelID; noTopic for the seal channel
	start  int64     // log time of the open interval's first message
	maxNs  int64     // the latest log time written
	buf    []byte
	seals  uint64
	closed bool
}

const noTopic TopicID = -1

// NewRecorder adds the seal channel to rec and returns the sealing Recorder.
func NewRecorder(rec *bag.Recorder, s *Sealer, opts RecorderOptions) (*Recorder, error) {
	if opts.Topic == "" {
		opts.Topic = DefaultTopic
	}
	if opts.Period <= 0 {
		opts.Period = DefaultPeriod
	}
	profile := qos.DefaultDecisions()
	if opts.QoS != nil {
		profile = *opts.QoS
	}
	ch, err := rec.AddMessageChannel(opts.Topic, "RecordingSeal", profile)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	r := &Recorder{rec: rec, s: s, topic: opts.Topic, period: int64(opts.Period), sealCh: ch}
	r.setID(ch, noTopic)
	return r, nil
}

func (r *Recorder) setID(ch bag.ChannelID, id TopicID) {
	for int(ch) >= len(r.ids) {
		r.ids = append(r.ids, noTopic)
	}
	r.ids[ch] = id
}

// AddChannel adds a channel, as bag.Recorder.AddChannel, and declares its
// topic to the Sealer.
func (r *Recorder) AddChannel(topic, schemaName, schemaText string, profiles ...qos.Profile) (bag.ChannelID, error) {
	if topic == r.topic {
		return 0, fmt.Errorf("seal: add channel %s: the seal topic is the sealing recorder's own", topic)
	}
	id, err := r.s.Declare(topic, schemaName)
	if err != nil {
		return 0, err
	}
	ch, err := r.rec.AddChannel(topic, schemaName, schemaText, profiles...)
	if err != nil {
		return 0, err
	}
	r.setID(ch, id)
	return ch, nil
}

// AddMessageChannel adds a channel of a ghost message type, as
// bag.Recorder.AddMessageChannel, and declares its topic to the Sealer.
func (r *Recorder) AddMessageChannel(topic, msgType string, profiles ...qos.Profile) (bag.ChannelID, error) {
	if topic == r.topic {
		return 0, fmt.Errorf("seal: add channel %s: the seal topic is the sealing recorder's own", topic)
	}
	id, err := r.s.Declare(topic, msg.SchemaName(msgType))
	if err != nil {
		return 0, err
	}
	ch, err := r.rec.AddMessageChannel(topic, msgType, profiles...)
	if err != nil {
		return 0, err
	}
	r.setID(ch, id)
	return ch, nil
}

// Write seals the interval before data when data is logged a Period or more
// after the interval's first message, folds data into the Sealer and
// records it.
func (r *Recorder) Write(ch bag.ChannelID, logTime, publishTime uint64, data []byte) error {
	if r.closed {
		return fmt.Errorf("seal: write: %w", bag.ErrRecorderClosed)
	}
	if int(ch) >= len(r.ids) || r.ids[ch] == noTopic {
		return fmt.Errorf("seal: write on channel %d: %w", ch, bag.ErrUnknownChannel)
	}
	t := int64(logTime)
	if r.s.Pending() > 0 && t-r.start >= r.period {
		if err := r.writeSeal(false); err != nil {
			return err
		}
	}
	if r.s.Pending() == 0 {
		r.start = t
	}
	r.maxNs = max(r.maxNs, t)
	r.s.Add(r.ids[ch], t, data)
	return r.rec.Write(ch, logTime, publishTime, data)
}

func (r *Recorder) writeSeal(final bool) error {
	s, err := r.s.Seal(r.maxNs, final)
	if err != nil {
		return err
	}
	if r.buf, err = s.AppendCDR(r.buf[:0]); err != nil {
		return fmt.Errorf("seal: encode seal %d: %w", s.Index, err)
	}
	t := uint64(r.maxNs)
	if err := r.rec.Write(r.sealCh, t, t, r.buf); err != nil {
		return fmt.Errorf("seal: write seal %d: %w", s.Index, err)
	}
	r.seals++
	return nil
}

// Compression returns the underlying recorder's compression.
func (r *Recorder) Compression() bag.Compression { return r.rec.Compression() }

// Seals returns the number of seals written so far.
func (r *Recorder) Seals() uint64 { return r.seals }

// Close writes the final seal and closes the underlying recorder.
func (r *Recorder) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.writeSeal(true)
	if cerr := r.rec.Close(); cerr != nil {
		return cerr
	}
	return err
}
