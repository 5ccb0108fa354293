module github.com/recur-go/recur/h3retry

go 1.26.0

replace github.com/recur-go/recur => ../

require (
	github.com/google/go-cmp v0.7.0
	github.com/quic-go/quic-go v0.65.0
	github.com/recur-go/recur v0.1.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	github.com/quic-go/qpack v0.6.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/crypto v0.54.0 // indirect
	golang.org/x/net v0.56.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.40.0 // indirect
)
