//go:build !unix

package main

import (
	"errors"
	"os/exec"
)

// runInPlace runs the program bin with args and waits for it, with this
// process's standard streams, and returns its exit status. Ctrl-C reaches
// both from the console; this one waits for the server to stop.
func (c *cli) runInPlace(bin string, args []string) int {
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.stdin, c.stdout, c.stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode()
	case err != nil:
		c.errorf("serve: running %s: %v", bin, err)
		return exitInvalid
	}
	return exitOK
}
