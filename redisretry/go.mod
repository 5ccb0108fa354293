module github.com/recur-go/recur/redisretry

go 1.26.0

replace github.com/recur-go/recur => ../

require (
	github.com/google/go-cmp v0.7.0
	github.com/recur-go/recur v0.1.0
	github.com/redis/go-redis/v9 v9.23.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
