package grpcconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Code is a gRPC status code, numbered as in google.golang.org/grpc/codes
// (and every other gRPC implementation), so codes.Code(c) converts it.
// This package defines its own type to stay free of the grpc module.
type Code uint32

// Unavailable is status UNAVAILABLE (14), the code a retry policy retries
// when none is named.
const Unavailable Code = 14

// codeNames are the names service configs use, indexed by code.
var codeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
	"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
	"INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
}

// NumCodes is the number of status codes gRPC defines: a valid Code is
// below it.
const NumCodes = len(codeNames)

// String returns the code's service-config name, such as "UNAVAILABLE",
// or "CODE(n)" for a code gRPC does not define.
func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "CODE(" + strconv.FormatUint(uint64(c), 10) + ")"
}

// ParseCode returns the code a service config names, in either of the
// two forms gRPC accepts: the upper-case name ("UNAVAILABLE",
// "CANCELLED") or the number ("14").
func ParseCode(s string) (Code, error) {
	for i, n := range codeNames {
		if s == n {
			return Code(i), nil
		}
	}
	if n, err := strconv.ParseUint(s, 10, 32); err == nil && n < uint64(len(codeNames)) {
		return Code(n), nil
	}
	return 0, fmt.Errorf("unknown status code %q: want a name such as \"UNAVAILABLE\" or a number from 0 to %d", s, len(codeNames)-1)
}

var errNilCode = errors.New("grpcconfig: UnmarshalJSON into a nil *Code")

// MarshalJSON writes the code's name.
func (c Code) MarshalJSON() ([]byte, error) {
	if int(c) >= len(codeNames) {
		return nil, fmt.Errorf("grpcconfig: unknown status code %d", uint32(c))
	}
	return json.Marshal(c.String())
}

// UnmarshalJSON reads a code as a service config writes it: a JSON
// string holding the upper-case name, or a JSON number, as grpc-go does.
// On a nil *Code it returns an error.
func (c *Code) UnmarshalJSON(b []byte) error {
	if c == nil {
		return errNilCode
	}
	var s string
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if _, err := strconv.ParseUint(s, 10, 32); err == nil {
			return fmt.Errorf("unknown status code %q: a number is written without quotes", s)
		}
	} else {
		s = string(b)
	}
	code, err := ParseCode(s)
	if err != nil {
		return err
	}
	*c = code
	return nil
}
