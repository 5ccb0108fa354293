package convert_test

import (
	"fmt"

	"github.com/recur-go/recur/convert"
)

func ExampleFromTemporal() {
	r, err := convert.FromTemporal([]byte(`{
	  "initialInterval": "1s",
	  "maximumAttempts": 5,
	  "nonRetryableErrorTypes": ["InvalidOrder"]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Schedule)
	for _, f := range r.Retained {
		fmt.Println(f.Path, f.Value)
	}
	// Output:
	// Intersect(Exponential(1s, 200%, 1m40s), Times(5))
	// nonRetryableErrorTypes ["InvalidOrder"]
}

func ExampleFromResilience4j() {
	rs, err := convert.FromResilience4j([]byte(`
resilience4j.retry:
  instances:
    payments:
      maxAttempts: 5
      waitDuration: 500ms
      enableExponentialBackoff: true
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rs {
		fmt.Println(r.Name, r.Schedule)
		for _, n := range r.Notes {
			fmt.Println("note:", n)
		}
	}
	// Output:
	// instances.payments Intersect(Exponential(500ms, 150%, 2562047h47m16.854775807s), Times(5))
	// note: the waits differ from Resilience4j's by up to 500µs, first at retry 4 (1.6875s here, 1.687s in Resilience4j): Resilience4j rounds each wait down to a whole millisecond before multiplying again
}

func ExampleFromEnvoy() {
	r, err := convert.FromEnvoy([]byte(`
retry_on: 5xx,reset
num_retries: 3
per_try_timeout: 2s
retry_back_off:
  base_interval: 0.1s
  max_interval: 1s
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Schedule)
	for _, f := range r.Retained {
		fmt.Println(f.Path, f.Value)
	}
	// Output:
	// Intersect(Jittered(Exponential(100ms, 200%, 1s), 0%, 100%), Times(4))
	// retry_on "5xx,reset"
	// per_try_timeout "2s"
}

func ExampleFromPolly() {
	r, err := convert.FromPolly([]byte(`{
	  "MaxRetryAttempts": 4,
	  "BackoffType": "Exponential",
	  "UseJitter": true,
	  "Delay": "00:00:00.200",
	  "MaxDelay": "00:00:05"
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Schedule)
	// Output:
	// Intersect(Capped(DecorrelatedV2(200ms), 5s), Times(5))
}

func ExampleToTemporal() {
	s, _ := convert.FromRecur([]byte("exponential(1s, 200%, 30s) & times(4)"))
	b, err := convert.ToTemporal(s.Schedule)
	fmt.Println(string(b), err)
	// Output:
	// {"initialInterval":"1s","backoffCoefficient":2,"maximumInterval":"30s","maximumAttempts":4} <nil>
}

func ExampleToEnvoy() {
	s, _ := convert.FromRecur([]byte("fulljitter(100ms, 1s) & times(4)"))
	b, err := convert.ToEnvoy(s.Schedule)
	fmt.Println(string(b), err)
	// Output:
	// {"retry_on":"connect-failure,refused-stream,reset,gateway-error,retriable-status-codes","num_retries":3,"retriable_status_codes":[408,429],"retry_back_off":{"base_interval":"0.100s","max_interval":"1s"}} <nil>
}

func ExampleWrite() {
	s, _ := convert.FromRecur([]byte("exponential(500ms, 150%, 10s) & times(5)"))
	_, err := convert.Write(convert.Resilience4j, s.Schedule)
	fmt.Println(err)
	// Output:
	// convert: resilience4j: Intersect(Exponential(500ms, 150%, 10s), Times(5)): no equivalent: retry 4 would wait 1.687s in Resilience4j, 1.6875s here: Resilience4j rounds each wait down to a whole millisecond
}
