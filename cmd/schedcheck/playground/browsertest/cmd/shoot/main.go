// Command shoot drives the playground in headless Chromium: it writes the
// screenshot the README shows and prints the figures of docs/benchmarks.md
// (the program's size, the time from load to first result, and the time
// of an update per keystroke), each read in the page with
// performance.now(). make screenshot runs it.
//
//	go run ./cmd/shoot -o ../../../../docs/playground.png
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/recur-go/recur/cmd/schedcheck/playground/browsertest"
)

// tenNodes is the policy typed key by key to time updates: 10 nodes.
const tenNodes = "(fulljitter(100ms, 10s) | decorrelated(50ms, 5s)) & times(6) & capped(spaced(1s), 5s) upto 30s"

// shown is the policy of the screenshot.
const shown = "fulljitter(100ms, 10s) & times(8)"

func main() {
	out := flag.String("o", "playground.png", "write the screenshot to `FILE`")
	loads := flag.Int("loads", 5, "page loads to time")
	flag.Parse()
	if err := run(*out, *loads); err != nil {
		log.Fatal(err)
	}
}

func run(out string, loads int) error {
	path, err := browsertest.Chromium()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "shoot")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	srv, err := browsertest.Serve(context.Background(), dir)
	if err != nil {
		return err
	}
	defer srv.Stop()
	bctx, cancel := browsertest.Browser(context.Background(), path, filepath.Join(dir, "profile"))
	defer cancel()
	if err := chromedp.Do(bctx); err != nil {
		return err
	}
	if err := sizes(srv.URL); err != nil {
		return err
	}
	fmt.Println("load  compiled  started  first call  first result   (ms from navigation start; first call: its own ms)")
	var firsts []float64
	for i := range loads {
		m, err := load(bctx, srv.URL)
		if err != nil {
			return err
		}
		fmt.Printf("%4d  %8.0f  %7.0f  %10.0f  %12.0f\n", i+1, m.Compiled, m.Started, m.Analyze, m.FirstResult)
		firsts = append(firsts, m.FirstResult)
	}
	fmt.Printf("first result: %s\n", stats(firsts))
	if err := typing(bctx, srv.URL); err != nil {
		return err
	}
	return screenshot(bctx, srv.URL, out)
}

// sizes prints the size of the program as serve sends it, raw and
// gzipped.
func sizes(base string) error {
	get := func(encoding string) (int, error) {
		req, err := http.NewRequest("GET", base+"recur.wasm", nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Accept-Encoding", encoding) // set by hand: the client leaves the body as sent
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		n, err := io.Copy(io.Discard, resp.Body)
		if err == nil && resp.StatusCode != 200 {
			err = fmt.Errorf("GET recur.wasm: %s", resp.Status)
		}
		return int(n), err
	}
	raw, err := get("identity")
	if err != nil {
		return err
	}
	gz, err := get("gzip")
	if err != nil {
		return err
	}
	fmt.Printf("recur.wasm: %d bytes raw, %d gzipped (served)\n", raw, gz)
	return nil
}

// marks are the page's recurMetrics, in milliseconds from navigation start.
type marks struct {
	Compiled, Started, FirstResult float64
	Analyze                        float64 // the first call into recur
}

// load opens the page in a new tab and returns its marks.
func load(bctx context.Context, base string) (marks, error) {
	tctx, cancel, w, err := browsertest.NewTab(bctx)
	if err != nil {
		return marks{}, err
	}
	defer cancel()
	ctx, cancelT := context.WithTimeout(tctx, time.Minute)
	defer cancelT()
	err = chromedp.Do(ctx, chromedp.Navigate(base+"#p="+url.PathEscape(shown)),
		chromedp.Poll[chromedp.Void](`window.recurMetrics && window.recurMetrics.firstResult !== null`))
	if err != nil {
		return marks{}, err
	}
	if errs := w.Errors(); len(errs) > 0 {
		return marks{}, fmt.Errorf("the console has errors: %q", errs)
	}
	return chromedp.Run(ctx, chromedp.Evaluate[marks](`({Compiled: recurMetrics.compiled, Started: recurMetrics.started, FirstResult: recurMetrics.firstResult, Analyze: recurMetrics.analyze[0]})`))
}

// typing types tenNodes key by key and reports the update times.
func typing(bctx context.Context, base string) error {
	tctx, cancel, _, err := browsertest.NewTab(bctx)
	if err != nil {
		return err
	}
	defer cancel()
	ctx, cancelT := context.WithTimeout(tctx, 2*time.Minute)
	defer cancelT()
	err = chromedp.Do(ctx, chromedp.Navigate(base),
		chromedp.Poll[chromedp.Void](`window.recurMetrics && window.recurMetrics.firstResult !== null`),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("policy").value = ""; window.recurMetrics.updates = []`),
		chromedp.SendKeys(chromedp.ID("policy"), tenNodes))
	if err != nil {
		return err
	}
	ups, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`window.recurMetrics.updates`))
	if err != nil {
		return err
	}
	// The last keystrokes are the whole 10-node policy: time it alone too.
	err = chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.recurMetrics.updates = []; window.recurMetrics.analyze = []; for (let i = 0; i < 50; i++) document.getElementById("policy").dispatchEvent(new Event("input"))`))
	if err != nil {
		return err
	}
	whole, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`window.recurMetrics.updates`))
	if err != nil {
		return err
	}
	calls, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`window.recurMetrics.analyze`))
	if err != nil {
		return err
	}
	fmt.Printf("update per keystroke, typing the 10-node policy (%d keystrokes): %s\n", len(ups), stats(ups))
	fmt.Printf("update of the whole 10-node policy (%d updates): %s\n  of which the call into recur: %s\n", len(whole), stats(whole), stats(calls))
	return nil
}

func stats(ms []float64) string {
	if len(ms) == 0 {
		return "none"
	}
	s := slices.Clone(ms)
	slices.Sort(s)
	return fmt.Sprintf("median %.1f ms, p95 %.1f ms, max %.1f ms", s[len(s)/2], s[len(s)*95/100], s[len(s)-1])
}

// screenshot shows a jittered policy with a finished storm and writes
// the page as PNG.
func screenshot(bctx context.Context, base, out string) error {
	tctx, cancel, _, err := browsertest.NewTab(bctx)
	if err != nil {
		return err
	}
	defer cancel()
	ctx, cancelT := context.WithTimeout(tctx, 2*time.Minute)
	defer cancelT()
	err = chromedp.Do(ctx, chromedp.Navigate(base+"#p="+url.PathEscape(shown)),
		chromedp.Poll[chromedp.Void](`window.recurMetrics && window.recurMetrics.firstResult !== null`),
		chromedp.Click(chromedp.ID("storm-run")),
		chromedp.Poll[chromedp.Void](`document.getElementById("storm-msg").textContent.startsWith("Done")`, chromedp.WithPollingTimeout(90*time.Second)),
		chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`))
	if err != nil {
		return err
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d bytes)\n", out, len(png))
	return nil
}
