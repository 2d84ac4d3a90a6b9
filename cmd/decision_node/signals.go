package main

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interruption turns the first SIGINT or SIGTERM into a closed channel, so
// that sim and replay stop reading, decide what is pending and complete
// their output. A second signal has its default effect again (it kills
// the process, leaving the previous output, if any, in place).
type interruption struct {
	ch   chan os.Signal
	stop chan struct{}
	quit chan struct{}
	done chan struct{}
	sig  os.Signal // set before stop is closed
	once sync.Once
}

func watchSignals() *interruption {
	i := &interruption{
		ch:   make(chan os.Signal, 1),
		stop: make(chan struct{}),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	signal.Notify(i.ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		defer close(i.done)
		select {
		case s := <-i.ch:
			signal.Stop(i.ch)
			i.sig = s
			close(i.stop)
		case <-i.quit:
		}
	}()
	return i
}

// Stop is closed when the first signal arrives.
func (i *interruption) Stop() <-chan struct{} { return i.stop }

// release stops watching and returns the signal that arrived, nil if none.
// Later calls return the same.
func (i *interruption) release() os.Signal {
	i.once.Do(func() {
		signal.Stop(i.ch)
		close(i.quit)
		<-i.done
	})
	return i.sig
}

// signalName spells SIGINT and SIGTERM as users type them.
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// exitCode is the shell's status for a process ended by sig: 128 plus the
// signal number (130 for SIGINT, 143 for SIGTERM).
func exitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGTERM)
}
