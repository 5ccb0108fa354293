package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// maxPipeWait is how long schedcheck waits for a file that is not a
// regular file, such as a named pipe or a device, to give it its input.
var maxPipeWait = 5 * time.Second

// openInput opens the file name for reading without blocking: a named
// pipe that no process writes to would block open(2) for ever. It
// returns the file and whether it is a regular file. A directory is an
// error.
func openInput(name string) (*os.File, bool, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, false, err
	}
	if st.IsDir() {
		f.Close()
		return nil, false, fmt.Errorf("%s: is a directory, not a file of policies", name)
	}
	return f, st.Mode().IsRegular(), nil
}

// readInput reads at most limit+1 bytes of f, the file name, for
// readFile. A file that is not regular (a named pipe, a device, a
// socket) is read for at most maxPipeWait; a named pipe with no writer
// reads as empty at once, and is an error that says so.
func readInput(name string, f *os.File, regular bool, limit int64) ([]byte, error) {
	if regular {
		return io.ReadAll(io.LimitReader(f, limit+1))
	}
	// Deadlines need a file the runtime polls, which O_NONBLOCK gives a
	// pipe; a device that cannot be polled is read as it is.
	deadline := f.SetReadDeadline(time.Now().Add(maxPipeWait)) == nil
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, fmt.Errorf("%s: not a regular file, and nothing more came from it within %v", name, maxPipeWait)
	case errors.Is(err, syscall.EAGAIN) && !deadline:
		return nil, fmt.Errorf("%s: not a regular file, and it had nothing to read", name)
	case err != nil:
		return nil, err
	}
	if len(b) == 0 {
		if st, err := f.Stat(); err == nil && st.Mode()&fs.ModeNamedPipe != 0 {
			return nil, fmt.Errorf("%s: a named pipe that nothing writes to; pass its contents on standard input (-f -) instead", name)
		}
	}
	return b, nil
}
