module github.com/recur-go/recur/grpcretry

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/recur-go/recur v0.1.0
	go.uber.org/goleak v1.3.0
	golang.org/x/net v0.61.0
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
)

replace github.com/recur-go/recur => ../
