package transport

import (
	"context"
	"fmt"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"sync"
	"time"
)

// FakeTransport is an in-memory Transport for tests of code that runs on a
// ROS 2 graph. Messages injected with Deliver reach the handlers on the
// goroutine running Run, as with the real transport; published messages are
// kept per topic. It applies no name resolution: topics are matched as
// given.
type FakeTransport struct {
	mu         sync.Mutex
	subs       map[string][]fakeSub // in subscription order
	pubs       map[string]*FakePublisher
	services   map[string]fakeService
	deliveries chan delivery
	lifetime   // guarded by mu
	closeCount int
	changed    chan struct{} // closed and replaced on every publish
}

type fakeSub struct {
	typeName string
	qos      qos.Profile
	h        Handler
}

type fakeService struct {
	typeName string
	h        ServiceHandler
}

type delivery struct {
	topic string
	data  []byte
	recv  time.Time
	done  chan error
	// call is set for a service request: the handler's answer goes there.
	call func()
}

// NewFakeTransport returns an empty FakeTransport.
func NewFakeTransport() *FakeTransport {
	return &FakeTransport{
		subs:       make(map[string][]fakeSub),
		pubs:       make(map[string]*FakePublisher),
		services:   make(map[string]fakeService),
		deliveries: make(chan delivery),
		changed:    make(chan struct{}),
	}
}

// Subscribe registers h for topic. A topic may have several subscriptions
// of one type, as on a ROS 2 graph (a node reading PX4's vehicle_status
// for its belief and for its executor): each delivery reaches them all, in
// subscription order.
func (t *FakeTransport) Subscribe(topic, typeName string, qos qos.Profile, h Handler) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.ready(); err != nil {
		return err
	}
	if h == nil {
		return fmt.Errorf("subscribe %s: nil handler", topic)
	}
	if _, _, err := SplitTypeName(typeName); err != nil {
		return fmt.Errorf("subscribe %s: %w", topic, err)
	}
	if subs := t.subs[topic]; len(subs) > 0 && subs[0].typeName != typeName {
		return fmt.Errorf("subscribe %s as %s: already subscribed as %s", topic, typeName, subs[0].typeName)
	}
	t.subs[topic] = append(t.subs[topic], fakeSub{typeName: typeName, qos: qos, h: h})
	return nil
}

// Advertise creates the publisher for topic; one publisher per topic.
func (t *FakeTransport) Advertise(topic, typeName string, qos qos.Profile) (Publisher, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.ready(); err != nil {
		return nil, err
	}
	if _, _, err := SplitTypeName(typeName); err != nil {
		return nil, fmt.Errorf("advertise %s: %w", topic, err)
	}
	if _, dup := t.pubs[topic]; dup {
		return nil, fmt.Errorf("advertise %s: already advertised", topic)
	}
	p := &FakePublisher{t: t, Topic: topic, TypeName: typeName, QoS: qos}
	t.pubs[topic] = p
	return p, nil
}

// Run calls handlers for delivered messages until ctx is done.
func (t *FakeTransport) Run(ctx context.Context) error {
	t.mu.Lock()
	switch {
	case t.closed:
		t.mu.Unlock()
		return ErrTransportClosed
	case t.running:
		t.mu.Unlock()
		return ErrTransportRunning
	}
	t.running = true
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.running = false
		t.mu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case d := <-t.deliveries:
			if d.call != nil {
				d.call()
				continue
			}
			t.mu.Lock()
			subs := t.subs[d.topic]
			t.mu.Unlock()
			if len(subs) == 0 {
				d.done <- fmt.Errorf("deliver on %s: no subscription", d.topic)
				continue
			}
			for _, s := range subs {
				s.h(d.data, d.recv)
			}
			d.done <- nil
		}
	}
}

// Deliver hands a copy of data to topic's handler on the Run goroutine and
// returns after the handler has returned. It fails if nothing subscribed to
// topic and waits for Run to be running, or for ctx to be done.
func (t *FakeTransport) Deliver(ctx context.Context, topic string, data []byte, recv time.Time) error {
	d := delivery{topic: topic, data: append([]byte(nil), data...), recv: recv, done: make(chan error, 1)}
	select {
	case t.deliveries <- d:
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-d.done
}

// Serve registers h for the service name (matched as given, "~/" included);
// one handler per name.
func (t *FakeTransport) Serve(name, typeName string, qos qos.Profile, h ServiceHandler) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.ready(); err != nil {
		return err
	}
	if h == nil {
		return fmt.Errorf("serve %s: nil handler", name)
	}
	if _, _, err := SplitServiceTypeName(typeName); err != nil {
		return fmt.Errorf("serve %s: %w", name, err)
	}
	if _, dup := t.services[name]; dup {
		return fmt.Errorf("serve %s: already served", name)
	}
	t.services[name] = fakeService{typeName: typeName, h: h}
	return nil
}

// Call sends a request to the service name and returns the response, as a
// client would: the handler runs on the Run goroutine. It waits for Run, or
// for ctx to be done.
func (t *FakeTransport) Call(ctx context.Context, name string, req []byte) ([]byte, error) {
	t.mu.Lock()
	s, ok := t.services[name]
	t.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("call %s: no such service", name)
	}
	var resp []byte
	done := make(chan error, 1)
	d := delivery{call: func() {
		var err error
		resp, err = s.h(append([]byte(nil), req...))
		done <- err
	}}
	select {
	case t.deliveries <- d:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := <-done; err != nil {
		return nil, fmt.Errorf("call %s: %w", name, err)
	}
	return resp, nil
}

// Service returns the type name the service name was served with.
func (t *FakeTransport) Service(name string) (typeName string, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.services[name]
	return s.typeName, ok
}

// Close marks the transport closed; it counts calls so tests can check a
// transport is closed exactly once.
func (t *FakeTransport) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closeCount++
	t.closed = true
	return nil
}

// CloseCount is the number of Close calls so far.
func (t *FakeTransport) CloseCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closeCount
}

// Subscription returns the type name and QoS topic was first subscribed
// with.
func (t *FakeTransport) Subscription(topic string) (typeName string, qos qos.Profile, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	subs := t.subs[topic]
	if len(subs) == 0 {
		return "", qos, false
	}
	return subs[0].typeName, subs[0].qos, true
}

// Publisher returns the publisher advertised on topic, or nil.
func (t *FakeTransport) Publisher(topic string) *FakePublisher {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pubs[topic]
}

// Published returns copies of the messages published on topic so far.
func (t *FakeTransport) Published(topic string) [][]byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.pubs[topic]
	if p == nil {
		return nil
	}
	out := make([][]byte, len(p.msgs))
	for i, m := range p.msgs {
		out[i] = append([]byte(nil), m...)
	}
	return out
}

// WaitPublished waits until at least n messages were published on topic and
// returns them, or returns ctx's error.
func (t *FakeTransport) WaitPublished(ctx context.Context, topic string, n int) ([][]byte, error) {
	for {
		t.mu.Lock()
		count := 0
		if p := t.pubs[topic]; p != nil {
			count = len(p.msgs)
		}
		changed := t.changed
		t.mu.Unlock()
		if count >= n {
			return t.Published(topic), nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %d messages on %s, have %d: %w", n, topic, count, ctx.Err())
		}
	}
}

// FakePublisher records what is published through it.
type FakePublisher struct {
	t        *FakeTransport
	Topic    string
	TypeName string
	QoS      qos.Profile
	msgs     [][]byte
	err      error
}

// Publish records a copy of data, or returns the error set with FailWith.
func (p *FakePublisher) Publish(data []byte) error {
	p.t.mu.Lock()
	defer p.t.mu.Unlock()
	if p.t.closed {
		return ErrTransportClosed
	}
	if p.err != nil {
		return p.err
	}
	p.msgs = append(p.msgs, append([]byte(nil), data...))
	close(p.t.changed)
	p.t.changed = make(chan struct{})
	return nil
}

// FailWith makes every later Publish return err (nil restores success).
func (p *FakePublisher) FailWith(err error) {
	p.t.mu.Lock()
	defer p.t.mu.Unlock()
	p.err = err
}
