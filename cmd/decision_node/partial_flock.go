//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"os"
	"syscall"
)

// lockPartial takes an exclusive lock on the temporary output at path,
// through a descriptor of its own, and returns what releases it. The
// kernel releases it when the process ends, however it ends, so a locked
// temporary file is one a running process is writing.
func lockPartial(path string) (unlock func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return func() {}, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return func() {}, err
	}
	return func() { _ = f.Close() }, nil
}

// removeUnlocked removes the temporary output at path unless a running
// process holds its lock. A symbolic link is never followed.
func removeUnlocked(path string) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return // being written
	}
	st, err := f.Stat()
	lst, lerr := os.Lstat(path)
	if err != nil || lerr != nil || !st.Mode().IsRegular() || !os.SameFile(st, lst) {
		return
	}
	_ = os.Remove(path)
}
