//go:build unix

package main

import (
	"os"
	"syscall"
)

// runInPlace runs the program bin with args in place of this process, as
// exec(2) does: it keeps the process, its standard streams and its
// signals, so that whoever started schedcheck serve stops the server. It
// returns only when the exec fails.
func (c *cli) runInPlace(bin string, args []string) int {
	err := syscall.Exec(bin, append([]string{bin}, args...), os.Environ())
	c.errorf("serve: running %s: %v", bin, err)
	return exitInvalid
}
