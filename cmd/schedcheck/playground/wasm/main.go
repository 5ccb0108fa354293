//go:build js && wasm

// Command wasm is the playground's WebAssembly program: it puts the
// functions of package engine on globalThis.recur for the page and its
// storm worker, each taking and returning JSON text, then waits forever.
//
//	recur.analyze(text, seed)                       → engine.Analysis
//	recur.fromGRPC(text, plusMinus20)               → engine.Imported
//	recur.storm(policiesJSON, clients, runs, seed, onProgress) → {rows, error}
//
// playground.Builder builds it (schedcheck serve, make wasm and make site
// run it) into the user cache; it is never committed.
package main

import (
	"context"
	"encoding/json"
	"runtime/debug"
	"syscall/js"

	"github.com/recur-go/recur/cmd/schedcheck/playground/engine"
	"github.com/recur-go/recur/storm"
)

func main() {
	// Each keystroke allocates a few hundred kilobytes that die at once;
	// collecting less often keeps a collection out of most keystrokes.
	debug.SetGCPercent(400)
	api := js.Global().Get("Object").New()
	api.Set("analyze", js.FuncOf(analyze))
	api.Set("fromGRPC", js.FuncOf(fromGRPC))
	api.Set("storm", js.FuncOf(runStorm))
	js.Global().Set("recur", api)
	if ready := js.Global().Get("recurReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

func marshal(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	return string(b)
}

func analyze(_ js.Value, args []js.Value) any {
	if len(args) < 2 {
		return marshal(map[string]string{"error": "analyze(text, seed)"})
	}
	return marshal(engine.Analyze(args[0].String(), uint64(max(0, args[1].Int()))))
}

func fromGRPC(_ js.Value, args []js.Value) any {
	if len(args) < 2 {
		return marshal(map[string]string{"error": "fromGRPC(text, plusMinus20)"})
	}
	return marshal(engine.FromGRPC(args[0].String(), args[1].Bool()))
}

type stormResult struct {
	Rows  []engine.StormRow `json:"rows"`
	Error string            `json:"error,omitempty"`
}

func runStorm(_ js.Value, args []js.Value) any {
	if len(args) < 5 {
		return marshal(stormResult{Error: "storm(policiesJSON, clients, runs, seed, onProgress)"})
	}
	var policies []string
	if err := json.Unmarshal([]byte(args[0].String()), &policies); err != nil {
		return marshal(stormResult{Error: err.Error()})
	}
	onProgress := args[4]
	rows, err := engine.Storm(context.Background(), policies, args[1].Int(), args[2].Int(), uint64(max(0, args[3].Int())),
		func(i int, p storm.Progress) { onProgress.Invoke(i, p.Run, p.Runs) })
	res := stormResult{Rows: rows}
	if err != nil {
		res.Error = err.Error()
	}
	return marshal(res)
}
