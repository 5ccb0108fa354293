package httpretry

import (
	"context"
	"io"
	"net/http"
)

// maxDrain is how much of a discarded response body is read so that its
// connection can be reused. A longer body is cut off: its connection is
// closed instead, which costs a new one, not a wait.
const maxDrain = 64 << 10

// drain reads what is left of resp's body, up to maxDrain bytes, and
// closes it.
func drain(resp *http.Response) {
	io.CopyN(io.Discard, resp.Body, maxDrain) //nolint:errcheck // best effort: Close follows
	resp.Body.Close()
}

// closeBody closes the body of a request that Base never received, as a
// RoundTripper must.
func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// cancelOnClose returns body with cancel called when it is closed. A
// body that can also be written (a 101 Switching Protocols response)
// stays writable.
func cancelOnClose(body io.ReadCloser, cancel context.CancelCauseFunc) io.ReadCloser {
	if rw, ok := body.(io.ReadWriteCloser); ok {
		return &cancelRWBody{cancelBody{body, cancel}, rw}
	}
	return &cancelBody{body, cancel}
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

type cancelRWBody struct {
	cancelBody
	w io.Writer
}

func (b *cancelRWBody) Write(p []byte) (int, error) { return b.w.Write(p) }
