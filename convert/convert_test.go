package convert

import (
	"errors"
	"strings"
	"testing"

	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// tableCase is one document and the schedule it converts to (in recur's
// language), or the error it gets (a substring) and whether that error
// says "no equivalent".
type tableCase struct {
	name, doc string
	want      string // a policy, or "" when an error is wanted
	err       string
	noEquiv   bool
	notes     int // how many Notes, -1 for any
}

func runTable(t *testing.T, f Format, cases []tableCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := Read(f, []byte(tc.doc))
			if tc.err != "" {
				if err == nil {
					t.Fatalf("got %v; want an error containing %q", rs[0].Schedule, tc.err)
				}
				if !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %q; want it to contain %q", err, tc.err)
				}
				if got := errors.Is(err, ErrNoEquivalent); got != tc.noEquiv {
					t.Errorf("errors.Is(err, ErrNoEquivalent) = %v; want %v (%v)", got, tc.noEquiv, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := parse.MustParse(tc.want)
			if !schedule.Equal(rs[0].Schedule, want) {
				t.Errorf("schedule %v; want %v", rs[0].Schedule, want)
			}
			if tc.notes >= 0 && len(rs[0].Notes) != tc.notes {
				t.Errorf("notes %q; want %d", rs[0].Notes, tc.notes)
			}
		})
	}
}

// roundTrip checks that each policy, written in format f and read back,
// is the same value.
func roundTrip(t *testing.T, f Format, policies []string) {
	t.Helper()
	for _, p := range policies {
		s := parse.MustParse(p)
		b, err := Write(f, s)
		if err != nil {
			t.Errorf("Write(%s, %s): %v", f, p, err)
			continue
		}
		rs, err := Read(f, b)
		if err != nil {
			t.Errorf("Read(%s, %s) of %s: %v", f, b, p, err)
			continue
		}
		if !schedule.Equal(rs[0].Schedule, s) {
			t.Errorf("%s → %s → %v", p, b, rs[0].Schedule)
		}
	}
}

// refused checks that each policy has no equivalent in f, with an error
// that contains the text given.
func refused(t *testing.T, f Format, cases map[string]string) {
	t.Helper()
	for p, why := range cases {
		_, err := Write(f, parse.MustParse(p))
		if !errors.Is(err, ErrNoEquivalent) || !strings.Contains(err.Error(), why) {
			t.Errorf("Write(%s, %s) = %v; want no equivalent, %q", f, p, err, why)
		}
	}
}

func TestLimits(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)
	for _, f := range []Format{Temporal, Resilience4j, Envoy, Polly, GRPC} {
		if _, err := Read(f, []byte(deep)); err == nil || !strings.Contains(err.Error(), "nests more than") {
			t.Errorf("%s: deep document: %v", f, err)
		}
		big := make([]byte, MaxInput+1)
		if _, err := Read(f, big); err == nil || !strings.Contains(err.Error(), "limit") {
			t.Errorf("%s: long document: %v", f, err)
		}
		if _, err := Read(f, []byte("  \n")); err == nil {
			t.Errorf("%s: empty document: no error", f)
		}
		if _, err := Read(f, []byte("[1, 2]")); err == nil {
			t.Errorf("%s: a list: no error", f)
		}
	}
	if _, err := Read("hcl", nil); err == nil {
		t.Error("unknown format: no error")
	}
}

func TestFieldErrorPosition(t *testing.T) {
	_, err := FromEnvoy([]byte("num_retries: 2\nretry_back_off:\n  base_interval: 0s\n"))
	fe, ok := errors.AsType[*FieldError](err)
	if !ok || fe.Path != "retry_back_off.base_interval" || fe.Line != 3 {
		t.Fatalf("%#v", err)
	}
	if got, want := err.Error(), "convert: envoy: line 3: retry_back_off.base_interval: must be greater than zero; got 0s"; got != want {
		t.Errorf("%q; want %q", got, want)
	}
}

func TestRecur(t *testing.T) {
	roundTrip(t, Recur, []string{"fulljitter(100ms, 2s) & times(3)", "times(3) then spaced(1m)"})
	if _, err := Read(Recur, []byte("times(")); err == nil {
		t.Error("no error")
	}
}
