package grpcconfig_test

import (
	"fmt"
	"log"

	"github.com/recur-go/recur/grpcconfig"
	"github.com/recur-go/recur/parse"
)

func ExampleParse() {
	sc, err := grpcconfig.Parse([]byte(`{
	  "methodConfig": [{
	    "name": [{"service": "echo.Echo"}],
	    "retryPolicy": {
	      "maxAttempts": 4,
	      "initialBackoff": "0.1s",
	      "maxBackoff": "1s",
	      "backoffMultiplier": 2,
	      "retryableStatusCodes": ["UNAVAILABLE"]
	    }
	  }]
	}`))
	if err != nil {
		log.Fatal(err)
	}
	mc, _ := sc.Lookup("/echo.Echo/Say")
	s, err := mc.RetryPolicy.Schedule(grpcconfig.FullJitter)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s)
	// Output:
	// Intersect(Jittered(Exponential(100ms, 200%, 1s), 0%, 100%), Times(4))
}

func ExampleFromSchedule() {
	s, err := parse.Parse("fulljitter(250ms, 5s) & times(3)")
	if err != nil {
		log.Fatal(err)
	}
	p, jitter, err := grpcconfig.FromSchedule(s)
	if err != nil {
		log.Fatal(err)
	}
	b, _ := p.MarshalJSON()
	fmt.Println(jitter)
	fmt.Println(string(b))
	// Output:
	// full jitter
	// {"maxAttempts":3,"initialBackoff":"0.250s","maxBackoff":"5s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}
}

func ExampleRetryPolicy_Notes() {
	p := grpcconfig.RetryPolicy{
		MaxAttempts: 8, InitialBackoff: 1e8, MaxBackoff: 1e9, BackoffMultiplier: 1.6,
		RetryableStatusCodes: []grpcconfig.Code{grpcconfig.Unavailable},
	}
	s, _ := p.Schedule(grpcconfig.FullJitter)
	fmt.Println(s)
	for _, n := range p.Notes() {
		fmt.Println("note:", n)
	}
	// Output:
	// Intersect(Jittered(Exponential(100ms, 160%, 1s), 0%, 100%), Times(5))
	// note: maxAttempts 8 is treated as 5, as gRFC A6 requires
}
