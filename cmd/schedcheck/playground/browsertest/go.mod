module github.com/recur-go/recur/cmd/schedcheck/playground/browsertest

go 1.26.0

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/google/go-cmp v0.7.0
	github.com/recur-go/recur v0.1.0
	github.com/recur-go/recur/cmd/schedcheck v0.1.0
)

require (
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)

replace (
	github.com/recur-go/recur => ../../../..
	github.com/recur-go/recur/cmd/schedcheck => ../..
)
