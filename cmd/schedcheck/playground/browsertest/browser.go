// Package browsertest drives the playground in headless Chromium: the
// tests here check the page against schedcheck serve, and cmd/shoot makes
// the README's screenshot and the figures of docs/benchmarks.md. It is a
// module of its own, so that chromedp stays out of the go.mod of recur
// and of schedcheck.
package browsertest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// InstallHint says how to get the browser on Debian.
const InstallHint = "apt-get update && apt-get install -y chromium"

// Chromium returns the path of the browser: $CHROMIUM, /usr/bin/chromium,
// or chromium or chromium-browser on the PATH.
func Chromium() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("CHROMIUM=%s: %w; install Chromium with: %s", p, err, InstallHint)
		}
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium", nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found; install it with: " + InstallHint)
}

// Root returns the repository's root, four levels above this module
// (cmd/schedcheck/playground/browsertest).
func Root() (string, error) {
	abs, err := filepath.Abs("../..")
	if err != nil {
		return "", err
	}
	dir := abs
	for range 4 {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/recur-go/recur\n") {
			return dir, nil
		}
		dir = filepath.Dir(dir)
	}
	return "", fmt.Errorf("no recur module root at or above %s", abs)
}

// Server is a running `schedcheck serve`.
type Server struct {
	URL string // http://127.0.0.1:PORT/
	Bin string // the schedcheck binary, for other commands
	cmd *exec.Cmd
}

// Serve builds schedcheck into dir and starts `schedcheck serve --addr
// 127.0.0.1:0` in the repository's root, waiting at most 5 minutes for
// the build of schedcheck and 10 for its address: serve first builds the
// playground's WebAssembly program from this tree into the user cache
// (playground.Builder), which takes a minute or two when the cache is
// cold. What serve says goes to standard error.
func Serve(ctx context.Context, dir string) (*Server, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "schedcheck")
	bctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(bctx, "go", "build", "-o", bin, "./cmd/schedcheck")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/schedcheck: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
	}()
	s := &Server{Bin: bin, cmd: cmd}
	select {
	case l, ok := <-line:
		_, url, found := strings.Cut(l, "http://")
		if !ok || !found {
			s.Stop()
			return nil, fmt.Errorf("schedcheck serve printed %q, not its address (its standard error above says why)", l)
		}
		s.URL = "http://" + url
		return s, nil
	case <-time.After(10 * time.Minute):
		s.Stop()
		return nil, errors.New("schedcheck serve did not print its address within 10 minutes")
	case <-ctx.Done():
		s.Stop()
		return nil, ctx.Err()
	}
}

// Stop ends the server.
func (s *Server) Stop() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// Browser starts headless Chromium with a fresh profile in dir and
// returns its context; cancel ends it.
func Browser(ctx context.Context, path, dir string) (context.Context, context.CancelFunc) {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(dir),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1100, 1400),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	return bctx, func() { cancelBrowser(); cancelAlloc() }
}

// Watch records, for one tab, what the page logs as an error or a warning
// (console calls, uncaught exceptions, browser log entries such as a
// failed load) and every URL it requests.
type Watch struct {
	mu       sync.Mutex
	errors   []string
	requests []string
}

// NewTab opens a tab of the browser in bctx with a Watch on it.
func NewTab(bctx context.Context) (context.Context, context.CancelFunc, *Watch, error) {
	tctx, cancel := chromedp.NewContext(bctx)
	w := &Watch{}
	console := chromedp.Console(tctx)
	requests := chromedp.Events(tctx, network.RequestWillBeSent)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			switch m.Type {
			case chromedp.ConsoleError, chromedp.ConsoleWarning, chromedp.ConsoleException:
				w.mu.Lock()
				w.errors = append(w.errors, m.String()+" "+m.URL)
				w.mu.Unlock()
			}
		}
	}()
	go func() {
		for ev, err := range requests {
			if err != nil {
				return
			}
			w.mu.Lock()
			w.requests = append(w.requests, ev.Request.URL)
			w.mu.Unlock()
		}
	}()
	if _, err := chromedp.Call(tctx, log.Enable, cdp.Empty{}); err != nil {
		cancel()
		return nil, nil, nil, err
	}
	if _, err := chromedp.Call(tctx, network.Enable, network.EnableParams{}); err != nil {
		cancel()
		return nil, nil, nil, err
	}
	return tctx, cancel, w, nil
}

// Errors returns what the page logged as an error or warning so far.
func (w *Watch) Errors() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.errors...)
}

// Requests returns the URLs the page requested so far.
func (w *Watch) Requests() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.requests...)
}
