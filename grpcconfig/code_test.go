package grpcconfig

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCodeNames(t *testing.T) {
	// The numbering every gRPC implementation shares.
	want := map[Code]string{0: "OK", 1: "CANCELLED", 4: "DEADLINE_EXCEEDED", 8: "RESOURCE_EXHAUSTED", 14: "UNAVAILABLE", 16: "UNAUTHENTICATED", 17: "CODE(17)"}
	for c, name := range want {
		if got := c.String(); got != name {
			t.Errorf("Code(%d).String() = %q; want %q", uint32(c), got, name)
		}
	}
	if Unavailable.String() != "UNAVAILABLE" {
		t.Errorf("Unavailable = %v", Unavailable)
	}
	for i := range NumCodes {
		c := Code(i)
		got, err := ParseCode(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCode(%q) = %v, %v; want %v", c.String(), got, err, c)
		}
	}
}

func TestCodeJSON(t *testing.T) {
	var got []Code
	if err := json.Unmarshal([]byte(`["UNAVAILABLE", 4, "ABORTED", 0]`), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Code{Unavailable, 4, 10, 0}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if want := `["UNAVAILABLE","DEADLINE_EXCEEDED","ABORTED","OK"]`; string(b) != want {
		t.Errorf("Marshal = %s; want %s", b, want)
	}
	bad := map[string]string{
		`"unavailable"`: `unknown status code "unavailable": want a name such as "UNAVAILABLE" or a number from 0 to 16`,
		`17`:            `unknown status code "17": want a name such as "UNAVAILABLE" or a number from 0 to 16`,
		`"14"`:          `unknown status code "14": a number is written without quotes`,
		`-1`:            `unknown status code "-1": want a name such as "UNAVAILABLE" or a number from 0 to 16`,
		`1.5`:           `unknown status code "1.5": want a name such as "UNAVAILABLE" or a number from 0 to 16`,
	}
	for in, want := range bad {
		var c Code
		err := json.Unmarshal([]byte(in), &c)
		if err == nil || err.Error() != want {
			t.Errorf("Unmarshal(%s) = %v; want %q", in, err, want)
		}
	}
	if _, err := json.Marshal(Code(99)); err == nil {
		t.Error("Marshal(Code(99)) succeeded")
	}
}
