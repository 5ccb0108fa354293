package parse

import "github.com/recur-go/recur/schedule"

// MustParse is Parse for policies fixed in the program, such as a
// package-level variable: it returns the schedule src describes and panics
// with Parse's *Error if src is not a valid policy. Text that comes from
// outside the program, such as a config file or a flag, goes through Parse
// or Policy, which return the error instead.
//
//	var checkoutRetry = parse.MustParse("backoff(100ms, 30s) & times(5)")
func MustParse(src string) schedule.Schedule {
	s, err := Parse(src)
	if err != nil {
		panic(err)
	}
	return s
}
