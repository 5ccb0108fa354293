module github.com/recur-go/recur/capi

go 1.26.0

replace github.com/recur-go/recur => ../

require (
	github.com/google/go-cmp v0.7.0
	github.com/recur-go/recur v0.1.0
	pgregory.net/rapid v1.3.0
)

require (
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)
