package engine

import (
	"encoding/json"
	"errors"

	"github.com/recur-go/recur/grpcconfig"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// GRPC is a policy as a gRPC service config's retryPolicy, or why none
// fits.
type GRPC struct {
	RetryPolicy json.RawMessage `json:"retryPolicy,omitempty"`
	Jitter      string          `json:"jitter,omitempty"` // which of gRFC A6's formulas it follows
	Error       string          `json:"error,omitempty"`
}

// ToGRPC converts s with grpcconfig.FromSchedule.
func ToGRPC(s schedule.Schedule) *GRPC {
	p, j, err := grpcconfig.FromSchedule(s)
	if err != nil {
		return &GRPC{Error: err.Error()}
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return &GRPC{Error: err.Error()}
	}
	return &GRPC{RetryPolicy: b, Jitter: j.String()}
}

// Imported is a policy read from a gRPC retryPolicy.
type Imported struct {
	Policy string   `json:"policy,omitempty"` // infix form
	Notes  []string `json:"notes,omitempty"`
	Error  string   `json:"error,omitempty"`
}

// maxConfig is the most bytes FromGRPC reads.
const maxConfig = 1 << 20

// FromGRPC reads a retryPolicy object, or a whole service config whose
// first method config with a retryPolicy it takes, validates it as gRPC
// does and converts it with A6's full jitter, or ±20% when plusMinus20.
func FromGRPC(text string, plusMinus20 bool) Imported {
	if len(text) > maxConfig {
		return Imported{Error: "the config is longer than 1 MiB"}
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &probe); err != nil {
		return Imported{Error: "not a JSON object: " + err.Error()}
	}
	doc := []byte(text)
	if _, ok := probe["methodConfig"]; !ok {
		doc = []byte(`{"methodConfig":[{"name":[{}],"retryPolicy":` + text + `}]}`)
	}
	sc, err := grpcconfig.Parse(doc)
	if err != nil {
		return Imported{Error: err.Error()}
	}
	for _, mc := range sc.Methods {
		if mc.RetryPolicy == nil {
			continue
		}
		j := grpcconfig.FullJitter
		if plusMinus20 {
			j = grpcconfig.PlusMinus20
		}
		s, err := mc.RetryPolicy.Schedule(j)
		if err != nil {
			return Imported{Error: err.Error()}
		}
		return Imported{Policy: parse.Format(s, parse.Infix), Notes: mc.RetryPolicy.Notes()}
	}
	return Imported{Error: errors.New("the service config has no retryPolicy").Error()}
}
