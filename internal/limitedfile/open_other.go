//go:build !unix

package limitedfile

// openNoWait: this system's opens of the files Open takes do not wait.
const openNoWait = 0
