package optcheck

import "testing"

type in struct {
	A int
	F func()
}

type out struct {
	A, B int
	F    func()
}

func f() {}
func g() {}

// recorder is a testing.TB that records failures instead of reporting them.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestCarries(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   in
		out  out
		fail bool
	}{
		{"copied", in{1, f}, out{A: 1, F: f}, false},
		{"value lost", in{1, f}, out{A: 2, F: f}, true},
		{"other function", in{1, f}, out{A: 1, F: g}, true},
		{"extra field set", in{1, f}, out{A: 1, B: 1, F: f}, true},
		{"input field zero", in{0, f}, out{F: f}, true},
	} {
		r := &recorder{TB: t}
		Carries(r, tc.in, tc.out)
		if r.failed != tc.fail {
			t.Errorf("%s: failed %v, want %v", tc.name, r.failed, tc.fail)
		}
	}
}
