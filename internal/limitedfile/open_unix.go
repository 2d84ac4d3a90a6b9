//go:build unix

package limitedfile

import "syscall"

// openNoWait makes opening a named pipe return at once rather than wait for
// a writer; it changes nothing for a regular file.
const openNoWait = syscall.O_NONBLOCK
