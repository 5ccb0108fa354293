package grpcconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/recur-go/recur/internal/protodur"
)

// MaxAttempts is the most attempts a retry policy makes: gRFC A6 treats a
// larger maxAttempts as 5, without calling it an error. (grpc-go lets a
// client raise the cap with grpc.WithMaxCallAttempts; this package keeps
// A6's.)
const MaxAttempts = 5

// RetryPolicy is a method config's retryPolicy: the attempts, the backoff
// and the status codes of gRFC A6. Its JSON form is the service config's:
//
//	{
//	  "maxAttempts": 4,
//	  "initialBackoff": "0.1s",
//	  "maxBackoff": "1s",
//	  "backoffMultiplier": 2,
//	  "retryableStatusCodes": ["UNAVAILABLE"]
//	}
type RetryPolicy struct {
	// MaxAttempts is the most attempts, the first included, as written:
	// at least 2. Attempts applies A6's cap of 5.
	MaxAttempts int
	// InitialBackoff is the ceiling of the first retry's wait; positive.
	InitialBackoff time.Duration
	// MaxBackoff caps the ceiling of every wait; positive.
	MaxBackoff time.Duration
	// BackoffMultiplier multiplies the ceiling after each retry; positive.
	BackoffMultiplier float64
	// RetryableStatusCodes are the codes that are retried; not empty.
	RetryableStatusCodes []Code
}

// Attempts returns the most attempts the policy makes: MaxAttempts,
// capped at 5 as A6 requires.
func (p RetryPolicy) Attempts() int { return min(p.MaxAttempts, MaxAttempts) }

// Validate checks the policy as gRPC does when it loads a service config,
// and names the first bad field.
func (p RetryPolicy) Validate() error {
	switch {
	case p.MaxAttempts < 2:
		return fieldError("maxAttempts", "must be at least 2; got "+strconv.Itoa(p.MaxAttempts))
	case p.InitialBackoff <= 0:
		return fieldError("initialBackoff", "must be positive; got "+quoted(p.InitialBackoff))
	case p.MaxBackoff <= 0:
		return fieldError("maxBackoff", "must be positive; got "+quoted(p.MaxBackoff))
	case !(p.BackoffMultiplier > 0) || math.IsInf(p.BackoffMultiplier, 1):
		return fieldError("backoffMultiplier", "must be a positive number; got "+strconv.FormatFloat(p.BackoffMultiplier, 'g', -1, 64))
	case len(p.RetryableStatusCodes) == 0:
		return fieldError("retryableStatusCodes", "must name at least one status code")
	}
	for i, c := range p.RetryableStatusCodes {
		if int(c) >= NumCodes {
			return fieldError("retryableStatusCodes["+strconv.Itoa(i)+"]", "is "+c.String()+", which gRPC does not define")
		}
	}
	return nil
}

func quoted(d time.Duration) string { return strconv.Quote(protodur.Format(d)) }

// FieldError is a problem with one field of a service config. Path is
// the field's place in the JSON document, such as
// "methodConfig[0].retryPolicy.maxAttempts".
type FieldError struct {
	Path string
	Msg  string
}

// Error returns "grpcconfig: PATH MSG".
func (e *FieldError) Error() string { return "grpcconfig: " + e.Path + " " + e.Msg }

func fieldError(path, msg string) *FieldError { return &FieldError{Path: path, Msg: msg} }

// within returns err with its path put under prefix, such as
// "methodConfig[2].retryPolicy".
func within(prefix string, err error) error {
	if fe, ok := errors.AsType[*FieldError](err); ok {
		return &FieldError{Path: prefix + "." + fe.Path, Msg: fe.Msg}
	}
	return fmt.Errorf("grpcconfig: %s: %w", prefix, err)
}

// jsonRetryPolicy is RetryPolicy's JSON form.
type jsonRetryPolicy struct {
	MaxAttempts          int      `json:"maxAttempts"`
	InitialBackoff       duration `json:"initialBackoff"`
	MaxBackoff           duration `json:"maxBackoff"`
	BackoffMultiplier    float64  `json:"backoffMultiplier"`
	RetryableStatusCodes []Code   `json:"retryableStatusCodes"`
}

// MarshalJSON writes the policy as a service config's retryPolicy, with
// durations in protobuf's form ("0.100s"). It does not validate.
func (p RetryPolicy) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonRetryPolicy{
		MaxAttempts:          p.MaxAttempts,
		InitialBackoff:       duration(p.InitialBackoff),
		MaxBackoff:           duration(p.MaxBackoff),
		BackoffMultiplier:    p.BackoffMultiplier,
		RetryableStatusCodes: p.RetryableStatusCodes,
	})
}

// UnmarshalJSON reads a service config's retryPolicy. Like gRPC, it
// ignores fields it does not know; it does not validate (Parse does). On
// a nil *RetryPolicy it returns an error.
func (p *RetryPolicy) UnmarshalJSON(b []byte) error {
	if p == nil {
		return errors.New("grpcconfig: UnmarshalJSON into a nil *RetryPolicy")
	}
	var j jsonRetryPolicy
	if err := json.Unmarshal(b, &j); err != nil {
		return jsonError(err)
	}
	*p = RetryPolicy{
		MaxAttempts:          j.MaxAttempts,
		InitialBackoff:       time.Duration(j.InitialBackoff),
		MaxBackoff:           time.Duration(j.MaxBackoff),
		BackoffMultiplier:    j.BackoffMultiplier,
		RetryableStatusCodes: j.RetryableStatusCodes,
	}
	return nil
}

// jsonError rewords encoding/json's type errors to name the field.
func jsonError(err error) error {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
		return fieldError(te.Field, "must be a JSON "+jsonKind(te.Type.Kind().String())+"; got "+article(te.Value)+te.Value)
	}
	return err
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an "
	}
	return "a "
}

func jsonKind(goKind string) string {
	switch {
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"):
		return "integer"
	case strings.HasPrefix(goKind, "float"):
		return "number"
	case goKind == "slice":
		return "array"
	case goKind == "struct", goKind == "map", goKind == "ptr":
		return "object"
	}
	return goKind
}
