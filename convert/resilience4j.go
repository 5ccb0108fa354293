package convert

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/recur-go/recur/schedule"
	"go.yaml.in/yaml/v3"
)

// Resilience4j's defaults (RetryConfig, IntervalFunction).
const (
	r4jAttempts   = 3
	r4jWaitMS     = 500
	r4jMultiplier = 1.5
	r4jFactor     = 0.5
)

// r4jProps is one instance's or shared config's properties, as
// CommonRetryConfigurationProperties.InstanceProperties holds them: nil
// for a property the document does not set.
type r4jProps struct {
	name, path                   string // "instances.backendA", and its key path in the document
	wait, maxWait                *time.Duration
	attempts                     *int64
	enableExp, enableRand        *bool
	multiplier, factor           *float64
	baseConfig                   string
	nodes                        map[string]*yaml.Node // property → value, for positions
	retained                     []Field
	multiplierNode, attemptsNode *yaml.Node
}

// r4jConfig is a RetryConfig's schedule part: its attempts and its
// interval function.
type r4jConfig struct {
	attempts   int64
	kind       string // "fixed", "exponential", "randomized", "exponential+randomized"
	waitMS     int64
	multiplier float64
	factor     float64
	maxMS      int64 // 0: no cap
	notes      []string
}

// flatten walks a YAML mapping as Spring Boot reads application.yml:
// nested keys and dotted keys are one property path. Lists and scalars
// are leaves.
func (d doc) flatten(n *yaml.Node, prefix []string, out map[string]*yaml.Node, order *[]string, keys map[string]*yaml.Node) error {
	es, err := d.mapping(n, strings.Join(prefix, "."))
	if err != nil {
		return err
	}
	for _, e := range es {
		segs := append(append([]string(nil), prefix...), strings.Split(e.key, ".")...)
		if e.value.Kind == yaml.MappingNode && len(e.value.Content) > 0 {
			if err := d.flatten(e.value, segs, out, order, keys); err != nil {
				return err
			}
			continue
		}
		p := strings.Join(segs, ".")
		if _, dup := out[p]; dup {
			return d.errorf(e.keyN, p, "is given twice")
		}
		out[p], keys[p] = e.value, e.keyN
		*order = append(*order, p)
	}
	return nil
}

// relaxed is Spring's relaxed binding of a property name: camelCase,
// kebab-case and snake_case name one property.
func relaxed(s string) string {
	return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s))
}

// FromResilience4j reads the retry section of a Spring Boot application
// YAML (or the same properties in JSON), resilience4j.retry: one Result
// per entry of instances (named "instances.NAME"; the legacy backends
// too) and of configs ("configs.NAME"), in the document's order:
//
//	resilience4j.retry:
//	  configs:
//	    default:
//	      maxAttempts: 4
//	      waitDuration: 200ms
//	  instances:
//	    payments:
//	      enableExponentialBackoff: true
//	      exponentialBackoffMultiplier: 2
//
// Keys may be nested or dotted, in camelCase or kebab-case, as Spring
// binds them; the rest of the document (spring.*, other resilience4j
// modules) is not read. Each entry is resolved as Resilience4j does:
// baseConfig, else configs.default, supplies what the entry leaves out;
// maxAttempts (default 3) counts the first call; waitDuration (default
// 500ms) is read in whole milliseconds; enableExponentialBackoff with
// exponentialBackoffMultiplier (default 1.5) and exponentialMaxWaitDuration
// gives Exponential(wait, multiplier, max); enableRandomizedWait with
// randomizedWaitFactor f (default 0.5) scales each wait by a random
// (1−f) to (1+f); both together randomize the uncapped exponential, then
// cap it. A multiplier below 1 and an intervalBiFunction class are
// refused. Resilience4j multiplies in whole milliseconds, rounding down
// each time; where that makes its waits differ from Exponential's, a
// Note gives the difference.
func FromResilience4j(data []byte) ([]Result, error) {
	d := doc{format: Resilience4j, norm: func(s string) string { return s }}
	root, err := d.decode(data)
	if err != nil {
		return nil, err
	}
	flat, keys := map[string]*yaml.Node{}, map[string]*yaml.Node{}
	var order []string
	if err := d.flatten(root, nil, flat, &order, keys); err != nil {
		return nil, err
	}
	props := map[string]*r4jProps{} // "instances.x" or "configs.x"
	var names []string
	for _, p := range order {
		segs := strings.Split(p, ".")
		if len(segs) < 3 || relaxed(segs[0]) != "resilience4j" || relaxed(segs[1]) != "retry" {
			continue
		}
		var group string
		switch relaxed(segs[2]) {
		case "instances", "backends":
			group = "instances"
		case "configs":
			group = "configs"
		default:
			continue // retryAspectOrder, metrics and the like
		}
		empty := isNull(flat[p]) || flat[p].Kind == yaml.MappingNode // NAME: {} or NAME: with nothing
		if len(segs) < 5 && !(len(segs) == 4 && empty) {
			return nil, d.errorf(flat[p], p, "want %s.NAME.PROPERTY; this holds %s", strings.Join(segs[:3], "."), describe(flat[p]))
		}
		if len(segs) > 5 {
			return nil, d.errorf(keys[p], p, "is not a retry property: %s has no nested properties", segs[4])
		}
		name := group + "." + segs[3]
		ip := props[name]
		if ip == nil {
			ip = &r4jProps{name: name, path: strings.Join(segs[:4], "."), nodes: map[string]*yaml.Node{}}
			props[name] = ip
			names = append(names, name)
		}
		if len(segs) == 4 {
			continue
		}
		if err := d.r4jProperty(ip, relaxed(segs[4]), p, flat[p], keys[p]); err != nil {
			return nil, err
		}
	}
	if len(names) == 0 {
		return nil, d.errorf(nil, "resilience4j.retry", "no instances or configs: nothing to convert (want resilience4j.retry.instances.NAME.PROPERTY)")
	}
	configs := map[string]*r4jProps{}
	for name, p := range props {
		if n, ok := strings.CutPrefix(name, "configs."); ok {
			configs[n] = p
		}
	}
	var out []Result
	for _, name := range names {
		p := props[name]
		instance := strings.TrimPrefix(strings.TrimPrefix(name, "instances."), "configs.")
		c, err := d.r4jResolve(p, instance, configs, nil)
		if err != nil {
			return nil, err
		}
		r, err := d.r4jResult(c, p)
		if err != nil {
			return nil, err
		}
		r.Retained = inherited(p, configs)
		r.Name = name
		out = append(out, r)
	}
	return out, nil
}

// r4jProperty reads one property into ip.
func (d doc) r4jProperty(ip *r4jProps, prop, path string, v, key *yaml.Node) error {
	if isNull(v) {
		return nil
	}
	ip.nodes[prop] = v
	keep := func(use string) error {
		s, err := d.list(v, path)
		if err != nil {
			return err
		}
		ip.retained = append(ip.retained, Field{Path: path, Value: s, Use: use})
		return nil
	}
	dur := func() (*time.Duration, error) {
		x, err := d.springDuration(v, path)
		if err != nil {
			return nil, err
		}
		if x < 0 {
			return nil, d.errorf(v, path, "must not be negative; got %s", v.Value)
		}
		return &x, nil
	}
	boolean := func() (*bool, error) {
		b, err := d.boolean(v, path)
		return &b, err
	}
	var err error
	switch prop {
	case "waitduration":
		ip.wait, err = dur()
	case "exponentialmaxwaitduration":
		ip.maxWait, err = dur()
	case "maxattempts":
		var n int64
		if n, err = d.integer(v, path, math.MinInt32, math.MaxInt32); err == nil && n < 1 {
			err = d.errorf(v, path, "must be at least 1; got %d (it counts the first call)", n)
		}
		ip.attempts, ip.attemptsNode = &n, v
	case "enableexponentialbackoff":
		ip.enableExp, err = boolean()
	case "enablerandomizedwait":
		ip.enableRand, err = boolean()
	case "exponentialbackoffmultiplier":
		var m float64
		if m, err = d.number(v, path); err == nil && m <= 0 {
			err = d.errorf(v, path, "must be greater than 0; got %s", v.Value)
		}
		ip.multiplier, ip.multiplierNode = &m, v
	case "randomizedwaitfactor":
		var f float64
		if f, err = d.number(v, path); err == nil && (f < 0 || f >= 1) {
			err = d.errorf(v, path, "must be in [0, 1); got %s", v.Value)
		}
		ip.factor = &f
	case "baseconfig":
		ip.baseConfig, err = d.str(v, path)
	case "intervalbifunction", "intervalfunction":
		return d.refuse(v, path, "is a class that computes the waits in code; recur cannot read it: write its schedule by hand")
	case "retryexceptions", "ignoreexceptions", "retryexceptionpredicate", "resultpredicate", "consumeresultbeforeretryattempt":
		return keep("which failures to retry is not a schedule's: a worth function or judge (retry.Options) that does what this says")
	case "failaftermaxattempts":
		return keep("recur always returns a *retry.Error when it gives up")
	case "eventconsumerbuffersize":
		return keep("events are recur's Observer's: retry.Options.Observer")
	default:
		return d.errorf(key, path, "is not a Resilience4j retry property (Resilience4j would ignore it: a typo?)")
	}
	return err
}

// r4jResolve builds p's configuration as
// CommonRetryConfigurationProperties.createRetryConfig does: from its
// baseConfig, else from configs.default, else from RetryConfig's
// defaults; then p's own properties on top.
func (d doc) r4jResolve(p *r4jProps, name string, configs map[string]*r4jProps, stack []string) (r4jConfig, error) {
	if len(stack) > 16 {
		return r4jConfig{}, d.errorf(nil, p.path+".baseConfig", "the baseConfig chain is longer than 16")
	}
	c := r4jConfig{attempts: r4jAttempts, kind: "fixed", waitMS: r4jWaitMS}
	var base *r4jProps
	baseName := ""
	switch {
	case p.baseConfig != "":
		base, baseName = configs[p.baseConfig], p.baseConfig
		if base == nil {
			return r4jConfig{}, d.errorf(p.nodes["baseconfig"], p.path+".baseConfig", "names %s, which configs does not define", quote(p.baseConfig))
		}
	case name != "default" && configs["default"] != nil && configs["default"] != p:
		base, baseName = configs["default"], "default"
	}
	merged := *p
	if base != nil {
		for _, s := range stack {
			if s == baseName {
				return r4jConfig{}, d.errorf(p.nodes["baseconfig"], p.path+".baseConfig", "%s leads back to itself", quote(baseName))
			}
		}
		var err error
		if c, err = d.r4jResolve(base, baseName, configs, append(stack, baseName)); err != nil {
			return r4jConfig{}, err
		}
		// ConfigUtils.mergePropertiesIfAny: these four come from the base
		// when the entry leaves them out (the rest does not).
		bm := d.r4jMerged(base, configs, stack)
		if merged.enableExp == nil {
			merged.enableExp = bm.enableExp
		}
		if merged.enableRand == nil {
			merged.enableRand = bm.enableRand
		}
		if merged.multiplier == nil {
			merged.multiplier, merged.multiplierNode = bm.multiplier, bm.multiplierNode
		}
		if merged.maxWait == nil {
			merged.maxWait = bm.maxWait
		}
	}
	if merged.attempts != nil {
		c.attempts = *merged.attempts
	}
	if merged.wait == nil {
		return c, nil // the base's interval function, or the default 500ms
	}
	c.notes = nil
	w := int64(*merged.wait / time.Millisecond)
	if *merged.wait != time.Duration(w)*time.Millisecond {
		c.notes = append(c.notes, "waitDuration "+merged.wait.String()+" is "+strconv.FormatInt(w, 10)+"ms to Resilience4j, which counts whole milliseconds")
	}
	exp := merged.enableExp != nil && *merged.enableExp
	rnd := merged.enableRand != nil && *merged.enableRand
	c.waitMS, c.multiplier, c.factor, c.maxMS = w, r4jMultiplier, r4jFactor, 0
	ignoredMax := func(why string) {
		if merged.maxWait != nil {
			c.notes = append(c.notes, "exponentialMaxWaitDuration is ignored, as Resilience4j ignores it "+why+": the waits have no cap")
		}
	}
	switch {
	case exp && rnd:
		c.kind = "exponential+randomized"
		if merged.multiplier != nil && p.factor != nil && merged.maxWait != nil {
			c.multiplier, c.factor, c.maxMS = *merged.multiplier, *p.factor, int64(*merged.maxWait/time.Millisecond)
		} else {
			if merged.multiplier != nil {
				c.multiplier = *merged.multiplier
			}
			if merged.multiplier != nil && p.factor != nil {
				c.factor = *p.factor
			}
			ignoredMax("unless exponentialBackoffMultiplier and randomizedWaitFactor are set too")
			if p.factor != nil && merged.multiplier == nil {
				c.notes = append(c.notes, "randomizedWaitFactor is ignored, as Resilience4j ignores it without exponentialBackoffMultiplier: the factor is 0.5")
			}
		}
	case exp:
		c.kind = "exponential"
		if merged.multiplier != nil {
			c.multiplier = *merged.multiplier
			if merged.maxWait != nil {
				c.maxMS = int64(*merged.maxWait / time.Millisecond)
			}
		} else {
			ignoredMax("without exponentialBackoffMultiplier")
		}
	case rnd:
		c.kind = "randomized"
		if p.factor != nil {
			c.factor = *p.factor
		}
	default:
		c.kind = "fixed"
	}
	at := p.path + ".waitDuration"
	if c.kind != "fixed" && w < 1 {
		return r4jConfig{}, d.errorf(p.nodes["waitduration"], at, "must be at least 1ms with %s, or Resilience4j fails to start", c.kind)
	}
	if c.maxMS < 0 || merged.maxWait != nil && c.maxMS == 0 && (c.kind == "exponential" && merged.multiplier != nil || c.kind == "exponential+randomized" && merged.multiplier != nil && p.factor != nil) {
		return r4jConfig{}, d.errorf(p.nodes["exponentialmaxwaitduration"], p.path+".exponentialMaxWaitDuration", "must be at least 1ms, or Resilience4j fails to start")
	}
	if c.kind != "fixed" && c.kind != "randomized" && c.multiplier < 1 {
		return r4jConfig{}, d.refuse(merged.multiplierNode, p.path+".exponentialBackoffMultiplier",
			"%s is below 1, so Resilience4j's waits shrink, and no schedule's do (Exponential only grows)", strconv.FormatFloat(c.multiplier, 'g', -1, 64))
	}
	return c, nil
}

// r4jBase returns the shared config p takes what it leaves out from:
// its baseConfig, else configs.default (but for default itself).
func r4jBase(p *r4jProps, configs map[string]*r4jProps) *r4jProps {
	switch {
	case p.baseConfig != "":
		return configs[p.baseConfig]
	case !strings.HasSuffix(p.name, ".default") && configs["default"] != p:
		return configs["default"]
	}
	return nil
}

// inherited returns p's retained fields and those of its bases that p
// does not set itself: RetryConfig.from copies the base's exception
// lists and predicates.
func inherited(p *r4jProps, configs map[string]*r4jProps) []Field {
	out := append([]Field(nil), p.retained...)
	set := map[string]bool{}
	for k := range p.nodes {
		set[k] = true
	}
	seen := map[*r4jProps]bool{p: true}
	for b := r4jBase(p, configs); b != nil && !seen[b]; b = r4jBase(b, configs) {
		seen[b] = true
		for _, f := range b.retained {
			prop := relaxed(f.Path[strings.LastIndexByte(f.Path, '.')+1:])
			if !set[prop] {
				out = append(out, f)
				set[prop] = true
			}
		}
	}
	return out
}

// r4jMerged returns p's four mergeable properties with its own base's
// filled in, transitively.
func (d doc) r4jMerged(p *r4jProps, configs map[string]*r4jProps, stack []string) r4jProps {
	m := *p
	base := r4jBase(p, configs)
	if base == nil || len(stack) > 16 {
		return m
	}
	bm := d.r4jMerged(base, configs, append(stack, base.name))
	if m.enableExp == nil {
		m.enableExp = bm.enableExp
	}
	if m.enableRand == nil {
		m.enableRand = bm.enableRand
	}
	if m.multiplier == nil {
		m.multiplier, m.multiplierNode = bm.multiplier, bm.multiplierNode
	}
	if m.maxWait == nil {
		m.maxWait = bm.maxWait
	}
	return m
}

// r4jExponential is IntervalFunction.ofExponentialBackoff: the k-th wait
// is the initial interval multiplied k−1 times, in whole milliseconds
// (Java's (long) cast after each product), then capped.
func r4jExponential(waitMS int64, m float64, maxMS int64) func(k int) time.Duration {
	var seen []int64
	return func(k int) time.Duration {
		for len(seen) < k {
			if len(seen) == 0 {
				seen = append(seen, waitMS)
				continue
			}
			x := float64(seen[len(seen)-1]) * m
			v := int64(math.MaxInt64) // Java saturates a double to long
			if x < math.MaxInt64 {
				v = int64(x)
			}
			seen = append(seen, v)
		}
		v := seen[k-1]
		if maxMS > 0 {
			v = min(v, maxMS)
		}
		if v > int64(schedule.MaxDuration/time.Millisecond) {
			return schedule.MaxDuration
		}
		return time.Duration(v) * time.Millisecond
	}
}

// r4jResult turns a resolved configuration into its Result.
func (d doc) r4jResult(c r4jConfig, p *r4jProps) (Result, error) {
	r := Result{Notes: c.notes, Retained: p.retained}
	ms := func(v int64) time.Duration {
		if v > int64(schedule.MaxDuration/time.Millisecond) {
			return schedule.MaxDuration
		}
		return time.Duration(v) * time.Millisecond
	}
	w := ms(c.waitMS)
	var wait schedule.Schedule
	jitter := func(inner schedule.Schedule) (schedule.Schedule, error) {
		f := math.Round(c.factor * 1e6)
		if math.Abs(c.factor*1e6-f) > 1e-6 {
			return nil, d.refuse(p.nodes["randomizedwaitfactor"], p.path+".randomizedWaitFactor", "%s is not a whole millionth: recur's jitter steps by 0.0001%%", strconv.FormatFloat(c.factor, 'g', -1, 64))
		}
		lo, hi := 1_000_000-int64(f), 1_000_000+int64(f)
		r.Notes = append(r.Notes, "Resilience4j draws each wait as a whole number of milliseconds from w·(1−f) to 1ms above w·(1+f), and at least 1ms; recur draws any nanosecond from w·(1−f) to w·(1+f)")
		return schedule.Jittered{Inner: inner, LowPct: int(lo / schedule.PctFracs), LowFrac: int(lo % schedule.PctFracs),
			HighPct: int(hi / schedule.PctFracs), HighFrac: int(hi % schedule.PctFracs)}, nil
	}
	exponential := func(capMS int64) (schedule.Exponential, error) {
		pct, frac, ok := factor(c.multiplier)
		if !ok {
			return schedule.Exponential{}, d.refuse(p.multiplierNode, p.path+".exponentialBackoffMultiplier",
				"%s is not a whole millionth from 1 to 1000000: recur's factor steps by 0.0001%%", strconv.FormatFloat(c.multiplier, 'g', -1, 64))
		}
		cp := schedule.MaxDuration
		if capMS > 0 {
			cp = ms(capMS)
		}
		return schedule.Exponential{Base: w, FactorPct: pct, FactorFrac: frac, Cap: cp}, nil
	}
	compare := func(e schedule.Exponential, maxMS int64, what string) {
		if first, rd, pd, most, _ := mismatch(e, r4jExponential(c.waitMS, c.multiplier, maxMS), int(c.attempts)-1, ms(maxMS)); first > 0 {
			r.Notes = append(r.Notes, differNote("Resilience4j", "Resilience4j rounds "+what+" down to a whole millisecond before multiplying again", first, rd, pd, most))
		}
	}
	var err error
	switch c.kind {
	case "fixed":
		if c.waitMS > 0 {
			wait = schedule.Exponential{Base: w, FactorPct: 100, Cap: w}
		}
	case "randomized":
		if wait, err = jitter(schedule.Exponential{Base: w, FactorPct: 100, Cap: w}); err != nil {
			return Result{}, err
		}
	case "exponential":
		e, err := exponential(c.maxMS)
		if err != nil {
			return Result{}, err
		}
		compare(e, c.maxMS, "each wait")
		wait = e
	case "exponential+randomized":
		e, err := exponential(0)
		if err != nil {
			return Result{}, err
		}
		compare(e, 0, "each wait, before it randomizes it,")
		if wait, err = jitter(e); err != nil {
			return Result{}, err
		}
		if c.maxMS > 0 {
			wait = schedule.Capped{Inner: wait, Max: ms(c.maxMS)}
		}
	}
	if wait == nil {
		r.Schedule = schedule.Times{N: int(c.attempts)}
	} else if c.attempts == 1 {
		r.Schedule = schedule.Times{N: 1}
	} else {
		r.Schedule = schedule.Intersect{A: wait, B: schedule.Times{N: int(c.attempts)}}
	}
	return r, nil
}

// springDuration reads a java.time.Duration property as Spring Boot
// binds it: a bare number of milliseconds, a number with a unit (ns, us,
// ms, s, m, h, d), or ISO-8601 (PT0.5S).
func (d doc) springDuration(n *yaml.Node, path string) (time.Duration, error) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		return 0, d.errorf(n, path, "want a duration such as 500ms; got %s", describe(n))
	}
	s := strings.TrimSpace(n.Value)
	v, err := parseSpringDuration(s)
	if err != nil {
		return 0, d.errorf(n, path, "duration %s: %v", quote(s), err)
	}
	return v, nil
}

func parseSpringDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, fmt.Errorf("is empty")
	}
	if strings.ContainsAny(s[:min(2, len(s))], "pP") {
		return parseISODuration(s)
	}
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i = 1
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0, fmt.Errorf("want a whole number and a unit, such as 500ms or 2s")
	}
	num, err := strconv.ParseInt(s[:j], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("is out of range")
	}
	units := map[string]time.Duration{"": time.Millisecond, "ns": 1, "us": time.Microsecond, "ms": time.Millisecond,
		"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	unit, ok := units[strings.ToLower(s[j:])]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q; Spring reads ns, us, ms, s, m, h and d", s[j:])
	}
	if num > int64(schedule.MaxDuration/unit) || num < -int64(schedule.MaxDuration/unit) {
		return 0, fmt.Errorf("is longer than Go's longest duration (292 years)")
	}
	return time.Duration(num) * unit, nil
}

// parseISODuration reads java.time.Duration.parse's form:
// [-]PnDTnHnMn.nS, each part optional but one, seconds with up to nine
// decimals.
func parseISODuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("want an ISO-8601 duration such as PT0.5S or PT2M")
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg, s = s[0] == '-', s[1:]
	}
	if len(s) < 2 || (s[0] != 'P' && s[0] != 'p') {
		return 0, bad
	}
	s = strings.ToUpper(s[1:])
	datePart, timePart, hasT := strings.Cut(s, "T")
	if hasT && timePart == "" {
		return 0, bad
	}
	var total float64
	add := func(part string, units map[byte]float64) error {
		for part != "" {
			k := 0
			for k < len(part) && (part[k] >= '0' && part[k] <= '9' || part[k] == '.' || part[k] == '-' && k == 0) {
				k++
			}
			if k == 0 || k == len(part) {
				return bad
			}
			u, ok := units[part[k]]
			if !ok {
				return bad
			}
			v, err := strconv.ParseFloat(part[:k], 64)
			if err != nil || strings.Contains(part[:k], ".") && part[k] != 'S' {
				return bad
			}
			total += v * u
			part = part[k+1:]
		}
		return nil
	}
	if err := add(datePart, map[byte]float64{'D': 86400e9}); err != nil {
		return 0, err
	}
	if err := add(timePart, map[byte]float64{'H': 3600e9, 'M': 60e9, 'S': 1e9}); err != nil {
		return 0, err
	}
	if datePart == "" && !hasT {
		return 0, bad
	}
	if math.Abs(total) >= float64(schedule.MaxDuration) {
		return 0, fmt.Errorf("is longer than Go's longest duration (292 years)")
	}
	d := time.Duration(math.Round(total))
	if neg {
		d = -d
	}
	return d, nil
}

// ToResilience4j writes s as Spring Boot YAML for Resilience4j, under
// resilience4j.retry.configs.default, the config every retry instance
// takes what it does not set from. s must be a shape FromResilience4j
// returns, with a Times (Resilience4j always bounds the attempts) and
// durations in whole milliseconds, and Resilience4j's millisecond
// arithmetic must give its waits exactly: exponential(500ms, 150%, 10s)
// would wait 1.6875s at the fourth retry, where Resilience4j waits
// 1.687s, and is refused.
func ToResilience4j(s schedule.Schedule) ([]byte, error) {
	if err := schedule.Validate(s); err != nil {
		return nil, err
	}
	inner, n := splitTimes(s)
	if n == 0 {
		return nil, noEquivalent(Resilience4j, s, "maxAttempts always bounds a Resilience4j retry: add a Times")
	}
	if n > math.MaxInt32 {
		return nil, noEquivalent(Resilience4j, s, "maxAttempts is a 32-bit integer")
	}
	props := [][2]string{{"maxAttempts", strconv.Itoa(n)}}
	add := func(k, v string) { props = append(props, [2]string{k, v}) }
	msText := func(what string, d time.Duration) (string, error) {
		if !whole(d, time.Millisecond) {
			return "", noEquivalent(Resilience4j, s, what+" "+d.String()+" is not a whole number of milliseconds, which Resilience4j counts")
		}
		if whole(d, time.Second) {
			return strconv.FormatInt(int64(d/time.Second), 10) + "s", nil
		}
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms", nil
	}
	constant := func(e schedule.Exponential) bool { return e.FactorPPM() == 1_000_000 && e.Cap == e.Base }
	symmetric := func(j schedule.Jittered) (string, bool) {
		lo, hi := j.LowPPM(), j.HighPPM()
		if lo+hi != 2_000_000 || lo <= 0 || hi <= 1_000_000 {
			return "", false
		}
		return strconv.FormatFloat(float64(hi-1_000_000)/1e6, 'g', -1, 64), true
	}
	exact := func(e schedule.Exponential, capMS int64) error {
		if e.Base < time.Millisecond {
			return noEquivalent(Resilience4j, s, "an exponential backoff waits at least 1ms in Resilience4j")
		}
		if first, rd, pd, _, _ := mismatch(e, r4jExponential(int64(e.Base/time.Millisecond), factorFloat(e), capMS), n-1, e.Cap); first > 0 {
			return noEquivalent(Resilience4j, s, "retry "+strconv.Itoa(first)+" would wait "+pd.String()+" in Resilience4j, "+rd.String()+" here: Resilience4j rounds each wait down to a whole millisecond")
		}
		return nil
	}
	exponential := func(e schedule.Exponential, capped bool) error {
		w, err := msText("the base", e.Base)
		if err != nil {
			return err
		}
		add("waitDuration", w)
		add("enableExponentialBackoff", "true")
		add("exponentialBackoffMultiplier", formatFactor(e))
		var capMS int64
		if e.Cap != schedule.MaxDuration && !capped {
			c, err := msText("the cap", e.Cap)
			if err != nil {
				return err
			}
			add("exponentialMaxWaitDuration", c)
			capMS = int64(e.Cap / time.Millisecond)
		}
		return exact(e, capMS)
	}
	var err error
	capLine := ""
	// Type assertions, not a switch: a switch over the schedule variants
	// names them all (internal/exhaustive), and Resilience4j has three shapes.
	_, forever := inner.(schedule.Forever)
	ev, isExponential := inner.(schedule.Exponential)
	_, isJittered := inner.(schedule.Jittered)
	_, isCapped := inner.(schedule.Capped)
	switch {
	case forever:
		add("waitDuration", "0ms")
	case isExponential:
		v := ev
		if constant(v) {
			w, err := msText("the delay", v.Base)
			if err != nil {
				return nil, err
			}
			add("waitDuration", w)
		} else if err = exponential(v, false); err != nil {
			return nil, err
		}
	case isJittered || isCapped:
		capMS := int64(0)
		j, ok := inner.(schedule.Jittered)
		if c, isCap := inner.(schedule.Capped); isCap {
			j, ok = c.Inner.(schedule.Jittered)
			if c.Max < time.Millisecond {
				return nil, noEquivalent(Resilience4j, s, "exponentialMaxWaitDuration is at least 1ms")
			}
			m, err := msText("the cap", c.Max)
			if err != nil {
				return nil, err
			}
			capLine = m
			capMS = int64(c.Max / time.Millisecond)
		}
		if !ok {
			return nil, noEquivalent(Resilience4j, s, inner.String()+" is none of Resilience4j's waits")
		}
		f, ok := symmetric(j)
		if !ok {
			return nil, noEquivalent(Resilience4j, s, "Resilience4j's randomized wait is symmetric, w·(1−f) to w·(1+f) with 0 ≤ f < 1; "+j.String()+" is not")
		}
		e, isExp := j.Inner.(schedule.Exponential)
		switch {
		case isExp && constant(e) && capMS == 0:
			w, err := msText("the delay", e.Base)
			if err != nil {
				return nil, err
			}
			if e.Base < time.Millisecond {
				return nil, noEquivalent(Resilience4j, s, "a randomized wait is at least 1ms")
			}
			add("waitDuration", w)
			add("enableRandomizedWait", "true")
			add("randomizedWaitFactor", f)
		case isExp && e.Cap == schedule.MaxDuration && !constant(e):
			if err := exponential(e, true); err != nil {
				return nil, err
			}
			add("enableRandomizedWait", "true")
			add("randomizedWaitFactor", f)
		default:
			return nil, noEquivalent(Resilience4j, s, "Resilience4j randomizes a fixed wait, or an uncapped exponential that it caps after randomizing (capped(jittered(exponential(w, m, 2562047h47m16.854775807s), …), max)); "+inner.String()+" is neither")
		}
	default:
		return nil, noEquivalent(Resilience4j, s, inner.String()+" is none of Resilience4j's waits (fixed, exponential, randomized, both)")
	}
	if capLine != "" {
		add("exponentialMaxWaitDuration", capLine)
	}
	var b strings.Builder
	b.WriteString("resilience4j:\n  retry:\n    configs:\n      default:\n")
	for _, p := range props {
		b.WriteString("        " + p[0] + ": " + p[1] + "\n")
	}
	return []byte(b.String()), nil
}
