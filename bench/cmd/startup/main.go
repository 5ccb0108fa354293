//go:build unix

// Command startup measures what schedcheck costs to start: the CPU time
// (user + system, from wait4's rusage) of each of its commands, run with
// small arguments, beside a Go hello world built by the same toolchain.
// It runs every command of every binary once per round, interleaved (the
// binaries one after the other for each command), so that all of them
// share the machine's load, and prints as markdown the
// mean CPU time per run, its ratio to the hello world's and the minor
// page faults per run (the kernel's share of a short process's time is
// mostly those, and the dynamic loader's when the binary links libc).
//
//	cd bench && go run ./cmd/startup                 # builds schedcheck from ../cmd/schedcheck
//	cd bench && go run ./cmd/startup -n 100 /tmp/before/schedcheck /tmp/after/schedcheck
//
// serve is not measured: it does not exit.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// commands are the schedcheck commands measured, each with small
// arguments and its standard input.
var commands = []struct {
	name  string
	args  []string
	stdin string
}{
	{"check", []string{"check", "backoff(100ms, 30s) & times(5)"}, ""},
	{"lint", []string{"lint", "backoff(100ms, 30s) & times(5)"}, ""},
	{"explain", []string{"explain", "times(3)"}, ""},
	{"simulate", []string{"simulate", "--seed", "7", "backoff(100ms, 30s) & times(5)"}, ""},
	{"convert", []string{"convert", "--from", "recur", "--to", "polly", "-"}, "linear(1s) & times(4)"},
	{"storm", []string{"storm", "--clients", "10", "--runs", "10", "spaced(100ms) & times(2)"}, ""},
}

const hello = `package main

import "fmt"

func main() { fmt.Println("hello, world") }
`

func main() {
	n := flag.Int("n", 100, "rounds: runs of each command of each binary")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: startup [-n ROUNDS] [SCHEDCHECK...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	tmp, err := os.MkdirTemp("", "startup")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)

	helloBin := filepath.Join(tmp, "hello")
	if err := os.WriteFile(filepath.Join(tmp, "main.go"), []byte(hello), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte("module hello\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	build(tmp, "GOWORK=off", "-o", helloBin, ".")
	bins := flag.Args()
	if len(bins) == 0 {
		bins = []string{filepath.Join(tmp, "schedcheck")}
		build("../cmd/schedcheck", "", "-o", bins[0], ".")
	}

	var hello usage
	use := make([][]usage, len(bins))
	for i := range use {
		use[i] = make([]usage, len(commands))
	}
	for round := range *n {
		hello.add(run(helloBin, nil, ""))
		// Each round starts at another command: the first run after
		// another binary finds colder caches.
		for k := range commands {
			j := (round + k) % len(commands)
			for i, bin := range bins {
				use[i][j].add(run(bin, commands[j].args, commands[j].stdin))
			}
		}
	}

	mean := func(u usage) string {
		return fmt.Sprintf("%v, %d faults", (u.cpu / time.Duration(*n)).Round(time.Microsecond), u.faults/int64(*n))
	}
	fmt.Printf("%d rounds; hello world: %s a run\n\n", *n, mean(hello))
	fmt.Print("| command |")
	for _, bin := range bins {
		fmt.Printf(" %s | ratio |", bin)
	}
	fmt.Print("\n|---|")
	fmt.Print(strings.Repeat("---|---|", len(bins)))
	fmt.Println()
	for j, c := range commands {
		fmt.Printf("| %s |", c.name)
		for i := range bins {
			fmt.Printf(" %s | %.2f× |", mean(use[i][j]), float64(use[i][j].cpu)/float64(hello.cpu))
		}
		fmt.Println()
	}
}

// usage is the CPU time and the minor page faults of runs.
type usage struct {
	cpu    time.Duration
	faults int64
}

func (u *usage) add(v usage) { u.cpu += v.cpu; u.faults += v.faults }

// build runs go build in dir, with env added to the environment when set.
func build(dir, env string, args ...string) {
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if env != "" {
		cmd.Env = append(os.Environ(), env)
	}
	if err := cmd.Run(); err != nil {
		log.Fatalf("go build in %s: %v", dir, err)
	}
}

// run runs bin once and returns what it used. A run that fails ends the
// measurement.
func run(bin string, args []string, stdin string) usage {
	cmd := exec.Command(bin, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		log.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out.Bytes())
	}
	u := usage{cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		u.faults = ru.Minflt
	}
	return u
}
