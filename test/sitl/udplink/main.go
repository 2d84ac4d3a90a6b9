// Command udplink stands between PX4's uXRCE-DDS client and the agent as
// the link to the autopilot, and loses or delays its packets on demand:
// the fault script (test/sitl/faults.sh) points PX4 at it instead of the
// agent. It does in user space what tc netem does on a kernel that has it,
// on this one UDP link only.
//
//	udplink -listen 127.0.0.1:8889 -to 127.0.0.1:8888 -loss 0.1
//	udplink -listen 127.0.0.1:8889 -to 127.0.0.1:8888 -delay 25ms -jitter 50ms
//
// The link starts clean; SIGUSR1 turns the fault on, SIGUSR2 off. Each
// packet, in either direction, is lost with probability -loss, else sent
// after -delay plus a uniform draw in [-jitter, +jitter] (at least 0), so
// packets may overtake each other as with netem. It prints its counts at
// each change and when stopped.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "udplink:", err)
		os.Exit(1)
	}
}

// link is the fault and its counts.
type link struct {
	loss          float64
	delay, jitter time.Duration
	on            atomic.Bool

	mu      sync.Mutex
	rng     *rand.Rand
	counts  [2]struct{ packets, lost, delayed uint64 }
	maxLate time.Duration
}

const (
	up   = 0 // client (PX4) to agent
	down = 1 // agent to client
)

// plan says whether to send a packet of direction dir, and after how long.
func (l *link) plan(dir int) (send bool, after time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := &l.counts[dir]
	c.packets++
	if !l.on.Load() {
		return true, 0
	}
	if l.loss > 0 && l.rng.Float64() < l.loss {
		c.lost++
		return false, 0
	}
	after = l.delay
	if l.jitter > 0 {
		after += time.Duration((l.rng.Float64()*2 - 1) * float64(l.jitter))
	}
	after = max(after, 0)
	if after > 0 {
		c.delayed++
		l.maxLate = max(l.maxLate, after)
	}
	return true, after
}

func (l *link) report(w io.Writer, what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(w, "%s %s: to agent %d packets, %d lost, %d delayed; to PX4 %d packets, %d lost, %d delayed; longest delay %v\n",
		time.Now().UTC().Format("15:04:05.000"), what,
		l.counts[up].packets, l.counts[up].lost, l.counts[up].delayed,
		l.counts[down].packets, l.counts[down].lost, l.counts[down].delayed, l.maxLate)
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("udplink", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8889", "address PX4's client sends to")
	to := fs.String("to", "127.0.0.1:8888", "the agent's address")
	loss := fs.Float64("loss", 0, "probability in [0, 1] that a packet is lost while the fault is on")
	delay := fs.Duration("delay", 0, "delay of each packet while the fault is on")
	jitter := fs.Duration("jitter", 0, "uniform jitter around -delay while the fault is on")
	seed := fs.Uint64("seed", 1, "seed of the draws")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *loss < 0 || *loss > 1 || *delay < 0 || *jitter < 0 {
		return errors.New("want -loss in [0, 1], -delay and -jitter >= 0")
	}
	l := &link{loss: *loss, delay: *delay, jitter: *jitter, rng: rand.New(rand.NewPCG(*seed, *seed))}

	la, err := net.ResolveUDPAddr("udp", *listen)
	if err != nil {
		return fmt.Errorf("-listen: %w", err)
	}
	ta, err := net.ResolveUDPAddr("udp", *to)
	if err != nil {
		return fmt.Errorf("-to: %w", err)
	}
	front, err := net.ListenUDP("udp", la)
	if err != nil {
		return err
	}
	back, err := net.DialUDP("udp", nil, ta)
	if err != nil {
		return err
	}
	var client atomic.Pointer[net.UDPAddr]

	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGINT, syscall.SIGTERM)
	errc := make(chan error, 2)
	go func() {
		buf := make([]byte, 65536)
		for {
			n, from, err := front.ReadFromUDP(buf)
			if err != nil {
				errc <- err
				return
			}
			client.Store(from)
			pkt := append([]byte(nil), buf[:n]...)
			if send, after := l.plan(up); send {
				time.AfterFunc(after, func() { _, _ = back.Write(pkt) })
			}
		}
	}()
	go func() {
		buf := make([]byte, 65536)
		for {
			n, err := back.Read(buf)
			if err != nil {
				// The agent not listening (killed) reads as refused:
				// the link stays up, as a radio does.
				var op *net.OpError
				if errors.As(err, &op) && errors.Is(op.Err, syscall.ECONNREFUSED) {
					continue
				}
				errc <- err
				return
			}
			c := client.Load()
			if c == nil {
				continue
			}
			pkt := append([]byte(nil), buf[:n]...)
			if send, after := l.plan(down); send {
				time.AfterFunc(after, func() { _, _ = front.WriteToUDP(pkt, c) })
			}
		}
	}()
	l.report(stdout, "started")
	for {
		select {
		case s := <-sig:
			switch s {
			case syscall.SIGUSR1:
				l.on.Store(true)
				l.report(stdout, "fault on")
			case syscall.SIGUSR2:
				l.on.Store(false)
				l.report(stdout, "fault off")
			default:
				l.report(stdout, "stopped")
				return nil
			}
		case err := <-errc:
			l.report(stdout, "failed")
			return err
		}
	}
}
