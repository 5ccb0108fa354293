package grpcconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/recur-go/recur/budget"
)

// ServiceConfig is the part of a gRPC service config that concerns
// retries: the method configs, with their names and retry policies, and
// the retry throttling. Parse reads one; everything else a service config
// holds (load balancing, timeouts, message sizes) is ignored.
type ServiceConfig struct {
	// Methods are the methodConfig entries, in order.
	Methods []MethodConfig
	// Throttling is retryThrottling as a token bucket configuration, or
	// nil when the config has none.
	Throttling *budget.TokenBucketConfig
}

// MethodConfig is one methodConfig entry: the methods it applies to and
// their retry or hedging policy (at most one of the two).
type MethodConfig struct {
	// Names are the methods, services or the default it applies to.
	Names []Name
	// RetryPolicy is the entry's retryPolicy, or nil when it has none: the
	// methods it names are then not retried.
	RetryPolicy *RetryPolicy
	// HedgingPolicy is the entry's hedgingPolicy, or nil when it has
	// none. gRFC A6 makes the two exclusive: Parse refuses an entry with
	// both.
	HedgingPolicy *HedgingPolicy
}

// Name selects methods, as a service config's name entry does: one
// method (Service and Method set), every method of a service (Method
// empty), or every method of every service (both empty: the default).
type Name struct {
	Service string `json:"service,omitempty"`
	Method  string `json:"method,omitempty"`
}

// Path returns the name as gRPC writes a full method name: "/svc/method",
// "/svc/" for a whole service and "" for the default.
func (n Name) Path() string {
	if n.Service == "" {
		return ""
	}
	return "/" + n.Service + "/" + n.Method
}

// String returns the name for people: "/svc/method", "/svc/*", or "*" for
// the default.
func (n Name) String() string {
	switch {
	case n.Service == "":
		return "*"
	case n.Method == "":
		return "/" + n.Service + "/*"
	}
	return n.Path()
}

// Lookup returns the method config that applies to a full method name
// such as "/pkg.Service/Method", the way gRPC picks it: the entry naming
// the method, else the one naming its service, else the default entry.
// It returns false when none applies.
func (sc *ServiceConfig) Lookup(method string) (MethodConfig, bool) {
	if sc == nil {
		return MethodConfig{}, false
	}
	service := method
	if i := strings.LastIndexByte(method, '/'); i >= 0 {
		service = method[:i+1]
	}
	for _, want := range [...]string{method, service, ""} {
		for _, m := range sc.Methods {
			for _, n := range m.Names {
				if n.Path() == want {
					return m, true
				}
			}
		}
	}
	return MethodConfig{}, false
}

// jsonServiceConfig is the part of a service config's JSON form that
// Parse reads; encoding/json ignores the rest.
type jsonServiceConfig struct {
	MethodConfig []struct {
		Name          []Name          `json:"name"`
		RetryPolicy   json.RawMessage `json:"retryPolicy"`
		HedgingPolicy json.RawMessage `json:"hedgingPolicy"`
	} `json:"methodConfig"`
	RetryThrottling *struct {
		MaxTokens  *float64 `json:"maxTokens"`
		TokenRatio *float64 `json:"tokenRatio"`
	} `json:"retryThrottling"`
}

// Parse reads a gRPC service config in its JSON form and checks what
// concerns retries as gRPC does: every retryPolicy is valid (see
// RetryPolicy.Validate) and so is every hedgingPolicy, no entry has both,
// no method is named twice, a name with a method
// has a service, and retryThrottling's maxTokens is a whole number from 1
// to 1000 and its tokenRatio at least 0.001. An error names the field,
// such as "methodConfig[1].retryPolicy.maxAttempts".
func Parse(data []byte) (*ServiceConfig, error) {
	var j jsonServiceConfig
	if err := json.Unmarshal(data, &j); err != nil {
		if se, ok := errors.AsType[*json.SyntaxError](err); ok {
			line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			return nil, fmt.Errorf("grpcconfig: line %d: %v", line, se)
		}
		if err := jsonError(err); errors.As(err, new(*FieldError)) {
			return nil, err
		}
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			return nil, fmt.Errorf("grpcconfig: a service config is a JSON object; got %s%s", article(te.Value), te.Value)
		}
		return nil, fmt.Errorf("grpcconfig: %w", err)
	}
	sc := &ServiceConfig{Methods: make([]MethodConfig, 0, len(j.MethodConfig))}
	seen := map[string]string{}
	for i, m := range j.MethodConfig {
		at := "methodConfig[" + strconv.Itoa(i) + "]"
		for k, n := range m.Name {
			name := at + ".name[" + strconv.Itoa(k) + "]"
			if n.Service == "" && n.Method != "" {
				return nil, fieldError(name, "has a method but no service")
			}
			if prev, dup := seen[n.Path()]; dup {
				return nil, fieldError(name, "names "+n.String()+", already named by "+prev)
			}
			seen[n.Path()] = name
		}
		mc := MethodConfig{Names: m.Name}
		if len(m.RetryPolicy) > 0 && string(m.RetryPolicy) != "null" {
			mc.RetryPolicy = new(RetryPolicy)
			err := json.Unmarshal(m.RetryPolicy, mc.RetryPolicy)
			if err == nil {
				err = mc.RetryPolicy.Validate()
			}
			if err != nil {
				return nil, within(at+".retryPolicy", err)
			}
		}
		if len(m.HedgingPolicy) > 0 && string(m.HedgingPolicy) != "null" {
			if mc.RetryPolicy != nil {
				return nil, fieldError(at, "has both a retryPolicy and a hedgingPolicy; gRFC A6 allows one")
			}
			mc.HedgingPolicy = new(HedgingPolicy)
			err := json.Unmarshal(m.HedgingPolicy, mc.HedgingPolicy)
			if err == nil {
				err = mc.HedgingPolicy.Validate()
			}
			if err != nil {
				return nil, within(at+".hedgingPolicy", err)
			}
		}
		sc.Methods = append(sc.Methods, mc)
	}
	if t := j.RetryThrottling; t != nil {
		c, err := throttling(t.MaxTokens, t.TokenRatio)
		if err != nil {
			return nil, within("retryThrottling", err)
		}
		sc.Throttling = &c
	}
	return sc, nil
}

// throttling converts retryThrottling to a token bucket configuration.
func throttling(maxTokens, ratio *float64) (budget.TokenBucketConfig, error) {
	switch {
	case maxTokens == nil:
		return budget.TokenBucketConfig{}, fieldError("maxTokens", "is required")
	case *maxTokens != math.Trunc(*maxTokens) || *maxTokens < 1 || *maxTokens > budget.MaxMaxTokens:
		return budget.TokenBucketConfig{}, fieldError("maxTokens", "must be a whole number from 1 to 1000; got "+strconv.FormatFloat(*maxTokens, 'g', -1, 64))
	case ratio == nil:
		return budget.TokenBucketConfig{}, fieldError("tokenRatio", "is required")
	case !(*ratio >= 0.0005): // rounds to at least 0.001, A6's precision
		return budget.TokenBucketConfig{}, fieldError("tokenRatio", "must be at least 0.001; got "+strconv.FormatFloat(*ratio, 'g', -1, 64))
	}
	c := budget.TokenBucketConfig{MaxTokens: int(*maxTokens), TokenRatio: *ratio}
	if _, err := budget.NewTokenBucket(c); err != nil {
		return budget.TokenBucketConfig{}, fieldError("tokenRatio", "is not usable: "+err.Error())
	}
	return c, nil
}
