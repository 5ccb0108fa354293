package interp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/recur-go/recur/schedule"
)

const marshalVersion = 1

// ErrMismatch reports an UnmarshalBinary into a Run of another schedule.
var ErrMismatch = errors.New("interp: saved run belongs to another schedule")

// MarshalBinary encodes the run's state: seed, decision count and every
// node's state, plus a fingerprint of the schedule. The schedule itself is
// not encoded; store its String form beside the state if needed. The
// encoding holds times as the run measured them, from its beginning, so a
// resumed run must be given times measured from that same beginning.
func (r *Run) MarshalBinary() ([]byte, error) {
	return r.AppendBinary(make([]byte, 0, 32+len(r.nodes)*8))
}

// AppendBinary appends the encoding of MarshalBinary to b.
func (r *Run) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, marshalVersion)
	b = binary.LittleEndian.AppendUint64(b, fingerprint(r.sched))
	b = binary.LittleEndian.AppendUint64(b, r.seed)
	b = binary.AppendVarint(b, r.n)
	done := byte(0)
	if !r.live {
		done = 1
	}
	b = append(b, done)
	b = binary.AppendUvarint(b, uint64(len(r.nodes)))
	for _, nd := range r.nodes {
		b = binary.AppendVarint(b, nd.k)
		b = binary.AppendVarint(b, nd.start)
		b = binary.AppendVarint(b, nd.a)
		b = binary.AppendVarint(b, nd.b)
	}
	return b, nil
}

// UnmarshalBinary restores a state saved by MarshalBinary. The receiver
// must have been started (Start) on the same schedule, or it returns
// ErrMismatch; the seed comes from the saved state. On error the receiver
// is unchanged.
//
// A saved state is input like any other, and a resumed run never outlives
// its schedule: UnmarshalBinary refuses, with an error wrapping
// ErrInvalidState that names the field, any state that stepping the
// schedule could not have produced — a counter beyond a Times bound or out
// of step with its parent's, a stop a Union or AndThen recorded that its
// child cannot have made, a start before its parent's, variant state that
// its counter does not give, more decisions than schedule.Bounds allows
// attempts or than MaxDecisions. The state keeps no clock, so neither a
// start later than the times the resumed run is given nor decisions made
// sooner than an UpTo budget allows can be refused here; the resumed run's
// Next then counts an UpTo's budget from the earlier time, waits at most
// one period for a Spaced slot and stops at the attempts Bounds allows, so
// that such a state cannot put the end off either. A run whose times went
// back (an attempt that started before an earlier one did), or that did not
// wait the delays it was given, may leave a state that is refused.
func (r *Run) UnmarshalBinary(data []byte) error {
	if len(data) < 17 || data[0] != marshalVersion {
		return stateErr("not a saved run of version %d", marshalVersion)
	}
	if binary.LittleEndian.Uint64(data[1:]) != fingerprint(r.sched) {
		return ErrMismatch
	}
	seed := binary.LittleEndian.Uint64(data[9:])
	p := data[17:]
	// field names the i-th value read: the decision count, then each
	// node's four.
	field := func(i int) string {
		if i == 0 {
			return "decisions"
		}
		return fmt.Sprintf("node %d %s", (i-1)/4, [4]string{"k", "start", "a", "b"}[(i-1)%4])
	}
	read := 0
	next := func() (int64, error) {
		v, m := binary.Varint(p)
		if m <= 0 {
			return 0, stateErr("truncated or malformed at %s", field(read))
		}
		if v < 0 {
			return 0, stateErr("%s %d is negative", field(read), v)
		}
		p = p[m:]
		read++
		return v, nil
	}
	n, err := next()
	if err != nil {
		return err
	}
	if len(p) < 1 || p[0] > 1 {
		return stateErr("truncated or invalid at the stopped flag")
	}
	done := p[0] == 1
	p = p[1:]
	count, m := binary.Uvarint(p)
	if m <= 0 || count != uint64(len(r.nodes)) {
		return stateErr("%d nodes, schedule has %d", count, len(r.nodes))
	}
	p = p[m:]
	nodes := append([]node(nil), r.nodes...)
	for i := range nodes {
		for _, f := range [4]*int64{&nodes[i].k, &nodes[i].start, &nodes[i].a, &nodes[i].b} {
			if *f, err = next(); err != nil {
				return err
			}
		}
	}
	if len(p) != 0 {
		return stateErr("%d trailing bytes", len(p))
	}
	most, err := r.checkState(n, done, nodes)
	if err != nil {
		return err
	}
	r.seed, r.n, r.live, r.nodes = seed, n, !done && len(nodes) > 0, nodes
	if most < math.MaxInt64 && r.whole == wholeNone && len(nodes) > 0 {
		// The shapes Next decides inline have no UpTo: their states are
		// exact, and they need no bound.
		r.layout(r.sched, 0) // the nodes' own steps, had an earlier resume bounded the root's
		nodes[0].step = stepAtMost(nodes[0].step, most)
	}
	return nil
}

// fingerprint hashes the structure and parameters of s.
func fingerprint(s schedule.Schedule) uint64 {
	h := uint64(0x7265637572)
	add := func(v uint64) { h = mix(h ^ v) }
	var walk func(schedule.Schedule)
	walk = func(s schedule.Schedule) {
		switch s := s.(type) {
		case nil:
			add(0)
		case schedule.Times:
			add(1)
			add(uint64(s.N))
		case schedule.Spaced:
			add(2)
			add(uint64(s.Every))
		case schedule.Exponential:
			add(3)
			add(uint64(s.Base))
			add(uint64(s.FactorPct))
			add(uint64(s.Cap))
			if s.FactorFrac != 0 { // whole percents keep their fingerprints
				add(uint64(s.FactorFrac))
			}
		case schedule.Fibonacci:
			add(4)
			add(uint64(s.Base))
		case schedule.Jittered:
			add(5)
			add(uint64(s.LowPct))
			add(uint64(s.HighPct))
			if s.LowFrac != 0 || s.HighFrac != 0 {
				add(uint64(s.LowFrac))
				add(uint64(s.HighFrac))
			}
		case schedule.Union:
			add(6)
		case schedule.Intersect:
			add(7)
		case schedule.AndThen:
			add(8)
		case schedule.UpTo:
			add(9)
			add(uint64(s.Budget))
		case schedule.Forever:
			add(10)
		case schedule.Capped:
			add(11)
			add(uint64(s.Max))
		case schedule.Decorrelated:
			add(12)
			add(uint64(s.Base))
			add(uint64(s.Cap))
		case schedule.Linear:
			add(13)
			add(uint64(s.Base))
			add(uint64(s.Step))
		case schedule.Random:
			add(14)
			add(uint64(s.Lo))
			add(uint64(s.Hi))
		case schedule.Sum:
			add(15)
		case schedule.ResetAfter:
			add(18)
			add(uint64(s.After))
		case schedule.DecorrelatedV2:
			add(17)
			add(uint64(s.Base))
		case schedule.WhileBelow:
			add(16)
			add(uint64(s.Limit))
		}
		if a, b := schedule.Children(s); a != nil {
			walk(a)
			walk(b)
		}
	}
	walk(s)
	return h
}
