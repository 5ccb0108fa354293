package main

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"time"

	"github.com/recur-go/recur/explain"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// textChart prints one row per retry, numbered by the attempt it comes
// before (2 for the first retry) as the playground numbers them: the
// p5–p95 band as ├──┤ with the median as ●, scaled to the largest p95,
// then the numbers.
func textChart(w io.Writer, d distribution) {
	const width = 40
	fmt.Fprintf(w, "%s\n%d seeds; each row: delay p5 ├─●─┤ p95 (● median)\n", d.Policy, d.Seeds)
	if d.Partial != "" {
		fmt.Fprintf(w, "partial: %s\n", d.Partial)
	}
	if d.Cut > 0 {
		fmt.Fprintln(w, cutNote(d.Cut))
	}
	if d.Seeds == 0 {
		return
	}
	if len(d.Delay) == 0 {
		fmt.Fprintln(w, "no retries: the policy stops after the first attempt")
		return
	}
	var top time.Duration
	for _, x := range d.Delay {
		top = max(top, x.P95)
	}
	pos := func(v time.Duration) int {
		if top == 0 {
			return 0
		}
		return int(math.Round(float64(v) / float64(top) * (width - 1)))
	}
	fmt.Fprintf(w, "attempt  %-*s  %10s %10s %10s  %12s\n", width, "delay 0 … "+explain.Duration(top), "p5", "median", "p95", "total median")
	for i, x := range d.Delay {
		row := []rune(strings.Repeat(" ", width))
		lo, mid, hi := pos(x.P5), pos(x.P50), pos(x.P95)
		for j := lo; j <= hi; j++ {
			row[j] = '─'
		}
		row[lo], row[hi] = '├', '┤'
		row[mid] = '●'
		fmt.Fprintf(w, "%7d  %s  %10s %10s %10s  %12s\n", i+2, string(row), explain.Duration(x.P5), explain.Duration(x.P50), explain.Duration(x.P95), explain.Duration(d.Total[i].P50))
	}
}

// canvas is what the chart draws on: an SVG document or a PNG image.
type canvas interface {
	band(xs, lo, hi []float64, c color.RGBA)
	line(xs, ys []float64, c color.RGBA, width float64)
	dot(x, y float64, c color.RGBA)
	text(x, y float64, s string, anchor int) // anchor: -1 start, 0 middle, 1 end
	rule(x0, y0, x1, y1 float64, c color.RGBA)
}

var (
	ink   = color.RGBA{0x22, 0x22, 0x22, 0xff}
	grid  = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	blue  = color.RGBA{0x1f, 0x5f, 0xbf, 0xff}
	shade = color.RGBA{0xc6, 0xd8, 0xf2, 0xff}
)

const (
	chartW, chartH = 760, 580
	left, right    = 90, 20
	panelH         = 180
)

// draw lays out the two panels — each retry's delay, and the cumulative
// wait — on cv.
func draw(cv canvas, d distribution) {
	cv.text(chartW/2, 22, d.Policy, 0)
	sub := fmt.Sprintf("median and 5th-95th percentile over %d seeds; attempts take no time", d.Seeds)
	if d.Partial != "" {
		sub = "partial: " + d.Partial + "; " + sub
	}
	if d.Cut > 0 {
		sub += fmt.Sprintf("; cut at --max-retries %d", d.Cut)
	}
	cv.text(chartW/2, 40, sub, 0)
	panel(cv, 70, "delay before attempt", d.Delay)
	panel(cv, 70+panelH+80, "total wait so far", d.Total)
}

func panel(cv canvas, top float64, title string, xs []dist) {
	bottom := top + panelH
	// The title sits clear above the top tick label, whose text reaches
	// about 10px above its baseline at top+4.
	cv.text(left, top-14, title, -1)
	n := len(xs)
	var hi time.Duration
	for _, x := range xs {
		hi = max(hi, x.P95)
	}
	if hi == 0 {
		hi = time.Millisecond
	}
	ymax := niceCeil(float64(hi))
	px := func(i int) float64 {
		if n == 1 {
			return left + (chartW-left-right)/2
		}
		return left + float64(i)*(chartW-left-right)/float64(n-1)
	}
	py := func(v time.Duration) float64 { return bottom - float64(v)/ymax*panelH }
	for k := 0; k <= 4; k++ {
		v := time.Duration(ymax * float64(k) / 4)
		y := py(v)
		cv.rule(left, y, chartW-right, y, grid)
		cv.text(left-6, y+4, explain.Duration(v.Round(time.Microsecond)), 1)
	}
	// Numbered by attempt, from 2, as the playground and textChart do.
	step := max(1, n/15)
	for i := 0; i < n; i += step {
		cv.text(px(i), bottom+16, fmt.Sprint(i+2), 0)
	}
	cv.text((left+chartW-right)/2, bottom+34, "attempt", 0)
	var X, lo, mid, up []float64
	for i, x := range xs {
		X = append(X, px(i))
		lo = append(lo, py(x.P5))
		mid = append(mid, py(x.P50))
		up = append(up, py(x.P95))
	}
	cv.band(X, lo, up, shade)
	cv.line(X, mid, blue, 2)
	for i := range X {
		cv.dot(X[i], mid[i], blue)
	}
	cv.rule(left, bottom, chartW-right, bottom, ink)
	cv.rule(left, top, left, bottom, ink)
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// svgCanvas writes SVG elements.
type svgCanvas struct{ b bytes.Buffer }

func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func (s *svgCanvas) band(xs, lo, hi []float64, c color.RGBA) {
	var pts []string
	for i := range xs {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", xs[i], hi[i]))
	}
	for i := len(xs) - 1; i >= 0; i-- {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", xs[i], lo[i]))
	}
	fmt.Fprintf(&s.b, "<polygon points=%q fill=%q stroke=%q/>\n", strings.Join(pts, " "), hex(c), hex(c))
}

func (s *svgCanvas) line(xs, ys []float64, c color.RGBA, width float64) {
	var pts []string
	for i := range xs {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", xs[i], ys[i]))
	}
	fmt.Fprintf(&s.b, "<polyline points=%q fill=\"none\" stroke=%q stroke-width=\"%g\"/>\n", strings.Join(pts, " "), hex(c), width)
}

func (s *svgCanvas) dot(x, y float64, c color.RGBA) {
	fmt.Fprintf(&s.b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=%q/>\n", x, y, hex(c))
}

func (s *svgCanvas) text(x, y float64, t string, anchor int) {
	a := [...]string{"start", "middle", "end"}[anchor+1]
	fmt.Fprintf(&s.b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=%q>%s</text>\n", x, y, a, html.EscapeString(t))
}

func (s *svgCanvas) rule(x0, y0, x1, y1 float64, c color.RGBA) {
	fmt.Fprintf(&s.b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=%q/>\n", x0, y0, x1, y1, hex(c))
}

func svgChart(d distribution) []byte {
	var s svgCanvas
	fmt.Fprintf(&s.b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", chartW, chartH, chartW, chartH)
	fmt.Fprintf(&s.b, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", chartW, chartH)
	draw(&s, d)
	s.b.WriteString("</svg>\n")
	return s.b.Bytes()
}

// pngCanvas rasterises onto an RGBA image, with the 7×13 bitmap font.
type pngCanvas struct{ img *image.RGBA }

func (p *pngCanvas) set(x, y int, c color.RGBA) {
	if image.Pt(x, y).In(p.img.Rect) {
		p.img.SetRGBA(x, y, c)
	}
}

func (p *pngCanvas) band(xs, lo, hi []float64, c color.RGBA) {
	for i := 0; i+1 < len(xs); i++ {
		for x := int(xs[i]); x <= int(xs[i+1]); x++ {
			t := (float64(x) - xs[i]) / (xs[i+1] - xs[i])
			a, b := lo[i]+t*(lo[i+1]-lo[i]), hi[i]+t*(hi[i+1]-hi[i])
			for y := int(b); y <= int(a); y++ {
				p.set(x, y, c)
			}
		}
	}
	if len(xs) == 1 {
		for y := int(hi[0]); y <= int(lo[0]); y++ {
			for x := int(xs[0]) - 3; x <= int(xs[0])+3; x++ {
				p.set(x, y, c)
			}
		}
	}
}

func (p *pngCanvas) segment(x0, y0, x1, y1 float64, c color.RGBA, width float64) {
	n := int(math.Max(math.Abs(x1-x0), math.Abs(y1-y0))) + 1
	r := int(width / 2)
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(n)
		x, y := int(x0+t*(x1-x0)), int(y0+t*(y1-y0))
		for dx := -r; dx <= r; dx++ {
			for dy := -r; dy <= r; dy++ {
				p.set(x+dx, y+dy, c)
			}
		}
	}
}

func (p *pngCanvas) line(xs, ys []float64, c color.RGBA, width float64) {
	for i := 0; i+1 < len(xs); i++ {
		p.segment(xs[i], ys[i], xs[i+1], ys[i+1], c, width)
	}
}

func (p *pngCanvas) dot(x, y float64, c color.RGBA) {
	for dx := -3; dx <= 3; dx++ {
		for dy := -3; dy <= 3; dy++ {
			if dx*dx+dy*dy <= 9 {
				p.set(int(x)+dx, int(y)+dy, c)
			}
		}
	}
}

func (p *pngCanvas) text(x, y float64, t string, anchor int) {
	d := font.Drawer{Dst: p.img, Src: image.NewUniform(ink), Face: basicfont.Face7x13}
	w := d.MeasureString(t).Round()
	x -= float64(w) * float64(anchor+1) / 2
	d.Dot = fixed.P(int(x), int(y))
	d.DrawString(t)
}

func (p *pngCanvas) rule(x0, y0, x1, y1 float64, c color.RGBA) { p.segment(x0, y0, x1, y1, c, 1) }

func pngChart(d distribution) ([]byte, error) {
	img := image.NewRGBA(image.Rect(0, 0, chartW, chartH))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	draw(&pngCanvas{img}, d)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
