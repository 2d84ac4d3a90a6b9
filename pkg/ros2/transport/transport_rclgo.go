//go:build rclgo

package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/tiiuae/rclgo/pkg/rclgo"
	"github.com/tiiuae/rclgo/pkg/rclgo/types"
)

// RCLTransport is the Transport over rclgo: one rcl context and one node,
// subscriptions and publishers on serialized messages with type support
// loaded at run time (libghost__rosidl_typesupport_c.so and the like, built
// by colcon), and a wait set spun by Run.
type RCLTransport struct {
	log  *slog.Logger
	rctx *rclgo.Context
	node *rclgo.Node

	// mu guards the fields below and keeps Publish out of Close: rcl
	// entities must not be used while or after they are finalized.
	mu    sync.RWMutex
	subs  []*rclgo.Subscription
	pubs  []*rclgo.Publisher
	srvs  []*rclgo.Service
	types map[string]types.MessageTypeSupport // keeps the dlopen'ed libraries loaded
	lifetime
	cancel context.CancelFunc
	done   chan struct{}
}

var _ Transport = (*RCLTransport)(nil)

// NewRCLTransport creates the rcl context from the process arguments (those
// between --ros-args and --; the rest is ignored), so remaps, __node, __ns,
// params files and logging options act natively, and a node named nodeName
// in namespace ("" for the root; __ns overrides it). logger receives errors
// that happen while taking messages.
func NewRCLTransport(args []string, nodeName, namespace string, logger *slog.Logger) (*RCLTransport, error) {
	if logger == nil {
		logger = slog.Default()
	}
	rclArgs, _, err := rclgo.ParseArgs(RCLArgs(args))
	if err != nil {
		return nil, fmt.Errorf("rcl: parse ROS arguments: %w", err)
	}
	rctx, err := rclgo.NewContext(rclgo.ClockTypeROSTime, rclArgs)
	if err != nil {
		return nil, fmt.Errorf("rcl: init context: %w", err)
	}
	node, err := rctx.NewNode(nodeName, namespace)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("rcl: create node %q in namespace %q: %w", nodeName, namespace, err), rctx.Close())
	}
	return &RCLTransport{
		log:   logger.With("node", node.FullyQualifiedName()),
		rctx:  rctx,
		node:  node,
		types: make(map[string]types.MessageTypeSupport),
	}, nil
}

// typeSupport loads (once) the C type support of a "pkg/msg/Name" type.
// The caller holds t.mu.
func (t *RCLTransport) typeSupport(typeName string) (types.MessageTypeSupport, error) {
	if ts, ok := t.types[typeName]; ok {
		return ts, nil
	}
	pkg, msg, err := SplitTypeName(typeName)
	if err != nil {
		return nil, err
	}
	ts, err := rclgo.LoadDynamicMessageTypeSupport(pkg, msg)
	if err != nil {
		return nil, fmt.Errorf("type support for %s (is the workspace's install/setup.bash sourced?): %w", typeName, err)
	}
	t.types[typeName] = ts
	return ts, nil
}

// rclQoS converts a profile to rclgo's; the enum integers are rmw's in both.
func rclQoS(p qos.Profile) (rclgo.QosProfile, error) {
	r, err := RMW(p)
	if err != nil {
		return rclgo.QosProfile{}, err
	}
	return rclgo.QosProfile{
		History:                      rclgo.HistoryPolicy(r.History),
		Depth:                        r.Depth,
		Reliability:                  rclgo.ReliabilityPolicy(r.Reliability),
		Durability:                   rclgo.DurabilityPolicy(r.Durability),
		Deadline:                     r.Deadline,
		Lifespan:                     r.Lifespan,
		Liveliness:                   rclgo.LivelinessPolicy(r.Liveliness),
		LivelinessLeaseDuration:      r.LivelinessLeaseDuration,
		AvoidRosNamespaceConventions: r.AvoidROSNamespaceConventions,
	}, nil
}

// Subscribe creates a subscription that takes serialized messages and
// passes them to h with the time they were taken.
func (t *RCLTransport) Subscribe(topic, typeName string, qos qos.Profile, h Handler) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.ready(); err != nil {
		return fmt.Errorf("subscribe %s: %w", topic, err)
	}
	ts, err := t.typeSupport(typeName)
	if err != nil {
		return fmt.Errorf("subscribe %s: %w", topic, err)
	}
	q, err := rclQoS(qos)
	if err != nil {
		return fmt.Errorf("subscribe %s: %w", topic, err)
	}
	log := t.log.With("topic", topic)
	sub, err := t.node.NewSubscription(topic, ts, &rclgo.SubscriptionOptions{Qos: q}, func(s *rclgo.Subscription) {
		data, _, err := s.TakeSerializedMessage()
		recv := time.Now()
		if err != nil {
			// A wake-up with nothing to take is normal (another entity
			// of the wait set was ready, or the message was withdrawn).
			var none *rclgo.SubscriptionTakeFailed
			if !errors.As(err, &none) {
				log.Warn("take serialized message failed", "err", err)
			}
			return
		}
		h(data, recv)
	})
	if err != nil {
		return fmt.Errorf("subscribe %s (%s): %w", topic, typeName, err)
	}
	t.subs = append(t.subs, sub)
	return nil
}

// Advertise creates a publisher of serialized messages.
func (t *RCLTransport) Advertise(topic, typeName string, qos qos.Profile) (Publisher, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.ready(); err != nil {
		return nil, fmt.Errorf("advertise %s: %w", topic, err)
	}
	ts, err := t.typeSupport(typeName)
	if err != nil {
		return nil, fmt.Errorf("advertise %s: %w", topic, err)
	}
	q, err := rclQoS(qos)
	if err != nil {
		return nil, fmt.Errorf("advertise %s: %w", topic, err)
	}
	pub, err := t.node.NewPublisher(topic, ts, &rclgo.PublisherOptions{Qos: q})
	if err != nil {
		return nil, fmt.Errorf("advertise %s (%s): %w", topic, typeName, err)
	}
	t.pubs = append(t.pubs, pub)
	return &rclPublisher{t: t, pub: pub, topic: topic}, nil
}

// Endpoint is one publisher or subscription of a transport and how many
// peers the middleware has matched with it.
type Endpoint struct {
	Topic     string
	Publisher bool
	Matched   int
}

// Endpoints lists this transport's publishers and subscriptions with their
// matched peers: a test waits for both sides of a topic to be matched
// instead of sleeping through discovery. Each side matches on its own: a
// publisher may see a subscription before the subscription sees it, and a
// volatile sample written in between is lost.
func (t *RCLTransport) Endpoints() ([]Endpoint, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.closed {
		return nil, ErrTransportClosed
	}
	out := make([]Endpoint, 0, len(t.pubs)+len(t.subs))
	for _, p := range t.pubs {
		n, err := p.GetSubscriptionCount()
		if err != nil {
			return nil, fmt.Errorf("matched subscriptions of %s: %w", p.TopicName, err)
		}
		out = append(out, Endpoint{Topic: p.TopicName, Publisher: true, Matched: n})
	}
	for _, s := range t.subs {
		n, err := s.GetPublisherCount()
		if err != nil {
			return nil, fmt.Errorf("matched publishers of %s: %w", s.TopicName, err)
		}
		out = append(out, Endpoint{Topic: s.TopicName, Matched: n})
	}
	return out, nil
}

// Serve creates a service whose requests and responses h exchanges as
// CDR bytes (see service_rclgo.go). A request that does not convert, or a
// handler error, is logged and left unanswered.
func (t *RCLTransport) Serve(name, typeName string, qos qos.Profile, h ServiceHandler) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.ready(); err != nil {
		return fmt.Errorf("serve %s: %w", name, err)
	}
	ts, err := loadServiceTypeSupport(typeName)
	if err != nil {
		return fmt.Errorf("serve %s (is the workspace's install/setup.bash sourced?): %w", name, err)
	}
	q, err := rclQoS(qos)
	if err != nil {
		return fmt.Errorf("serve %s: %w", name, err)
	}
	log := t.log.With("service", name)
	srv, err := t.node.NewService(name, ts, &rclgo.ServiceOptions{Qos: q},
		func(_ *rclgo.ServiceInfo, req types.Message, send rclgo.ServiceResponseSender) {
			m, ok := req.(*cdrMessage)
			if !ok || m.err != nil {
				log.Warn("request not converted", "err", m.err)
				return
			}
			resp, err := h(m.data)
			if err != nil {
				log.Warn("request not answered", "err", err)
				return
			}
			out := &cdrMessage{ts: ts.resp, data: resp}
			if err := send.SendResponse(out); err != nil || out.err != nil {
				log.Warn("response not sent", "err", errors.Join(err, out.err))
			}
		})
	if err != nil {
		return fmt.Errorf("serve %s (%s): %w", name, typeName, err)
	}
	t.srvs = append(t.srvs, srv)
	return nil
}

type rclPublisher struct {
	t     *RCLTransport
	pub   *rclgo.Publisher
	topic string
}

// Publish hands data to rcl, which copies it into its own buffer.
func (p *rclPublisher) Publish(data []byte) error {
	p.t.mu.RLock()
	defer p.t.mu.RUnlock()
	if p.t.closed {
		return fmt.Errorf("publish on %s: %w", p.topic, ErrTransportClosed)
	}
	if err := p.pub.PublishSerialized(data); err != nil {
		return fmt.Errorf("publish on %s: %w", p.topic, err)
	}
	return nil
}

// Run spins a wait set over the subscriptions, calling their handlers on
// this goroutine, until ctx is done or Close is called.
func (t *RCLTransport) Run(ctx context.Context) error {
	t.mu.Lock()
	if err := t.ready(); err != nil {
		t.mu.Unlock()
		return err
	}
	ws, err := t.rctx.NewWaitSet()
	if err != nil {
		t.mu.Unlock()
		return fmt.Errorf("rcl: create wait set: %w", err)
	}
	ws.AddSubscriptions(t.subs...)
	ws.AddServices(t.srvs...)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	t.running, t.cancel, t.done = true, cancel, done
	t.mu.Unlock()

	err = ws.Run(runCtx)
	canceled := runCtx.Err() != nil
	closeErr := ws.Close()

	t.mu.Lock()
	t.running, t.cancel, t.done = false, nil, nil
	t.mu.Unlock()
	cancel()
	close(done)

	if canceled {
		// ws.Run reports the cancellation itself as its error.
		if closeErr != nil {
			return fmt.Errorf("rcl: close wait set: %w", closeErr)
		}
		return nil
	}
	return errors.Join(fmt.Errorf("rcl: wait set: %w", err), closeErr)
}

// Close stops a running Run, waits for it to return, then finalizes the
// node, its subscriptions and publishers, and the context.
func (t *RCLTransport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	cancel, done := t.cancel, t.done
	t.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.rctx.Close(); err != nil {
		return fmt.Errorf("rcl: close context: %w", err)
	}
	return nil
}
