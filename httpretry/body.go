package httpretry

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// maxDrain is how much of a discarded response body is read so that its
// connection can be reused. A longer body is cut off: its connection is
// closed instead, which costs a new one, not a wait.
const maxDrain = 64 << 10

// maxDrainTime is how long reading a discarded response body may take. A
// body that comes slower than that is cut off: its connection is closed.
const maxDrainTime = 250 * time.Millisecond

// drain reads what is left of resp's body, up to maxDrain bytes, and
// closes it. The reading stops after maxDrainTime, or when ctx ends,
// whichever comes first: the body is then closed under the read, which
// closes its connection.
func drain(ctx context.Context, resp *http.Response) {
	body := resp.Body
	var once sync.Once
	closeBody := func() { once.Do(func() { body.Close() }) }
	timer := time.AfterFunc(maxDrainTime, closeBody)
	stop := context.AfterFunc(ctx, closeBody)
	io.CopyN(io.Discard, body, maxDrain) //nolint:errcheck // best effort: Close follows
	timer.Stop()
	stop()
	closeBody()
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
