module github.com/recur-go/recur/cmd/schedcheck

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/pelletier/go-toml/v2 v2.4.3
	github.com/recur-go/recur v0.1.0
	go.uber.org/goleak v1.3.0
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/image v0.48.0
	pgregory.net/rapid v1.3.0
)

require (
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
)

// No release of recur is published yet, so GOWORK=off builds (make
// standalone) take the library from this tree. go install of a version
// refuses a module with a replace line: the release commit removes it
// (docs/releasing.md).
replace github.com/recur-go/recur => ../..
