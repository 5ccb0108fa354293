package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// newFlags returns a flag set for a command whose help text is the usage
// line, a description and examples.
func (c *cli) newFlags(name, usage, help string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: schedcheck %s %s\n\n%s\n", name, usage, strings.TrimSpace(help))
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprint(w, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseArgs parses flags that may come before, between or after the
// positional arguments, and returns the positional ones. A lone "-" and
// anything after "--" are positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagExit turns a flag parsing error into an exit status: 0 for --help,
// 2 otherwise (the flag package has already printed the problem).
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// source is one policy's text and where it came from, for messages.
type source struct {
	name string // "arg 1" or a file name
	key  string // for a policy in a config file, its key path, such as "clients.a.retry"
	text string
	line int       // the line in the file where the text starts, 1 for arguments
	file *fileText // for a policy in a config file, the whole file, to find columns
}

// label names the source for messages: the file, and the key path in a
// config file.
func (s source) label() string {
	if s.key != "" {
		return s.name + ":" + s.key
	}
	return s.name
}

// files is a flag.Value collecting repeated -f flags.
type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

// argSources returns the policies given as arguments, named "arg 1"….
func argSources(pos []string) []source {
	var srcs []source
	for i, p := range pos {
		srcs = append(srcs, source{name: fmt.Sprintf("arg %d", i+1), text: p, line: 1})
	}
	return srcs
}

// fileSources reads one policy from each file. It reports an unreadable
// file and returns false.
func (c *cli) fileSources(names []string) ([]source, bool) {
	var srcs []source
	for _, f := range names {
		b, err := c.readFile(f)
		if err != nil {
			c.errorf("%v", err)
			return nil, false
		}
		srcs = append(srcs, source{name: f, text: string(b), line: 1})
	}
	return srcs, true
}

// parsed is a source and its schedule or error.
type parsed struct {
	src source
	s   schedule.Schedule
	err error
}

// parseAll parses every source.
func parseAll(srcs []source) []parsed {
	out := make([]parsed, len(srcs))
	for i, src := range srcs {
		s, err := parse.Parse(src.text)
		out[i] = parsed{src, s, err}
	}
	return out
}

// reportError prints a parse error as FILE:LINE:COL: message, then the
// source line with a caret under the spot.
func (c *cli) reportError(p parsed) {
	var pe *parse.Error
	if errors.As(p.err, &pe) {
		line, col := p.src.position(pe)
		key := ""
		if p.src.key != "" {
			key = p.src.key + ": "
		}
		fmt.Fprintf(c.stderr, "%s:%d:%d: %s%s\n", p.src.name, line, col, key, pe.Msg+expected(pe))
		for _, l := range strings.Split(pe.Caret(), "\n") {
			fmt.Fprintf(c.stderr, "\t%s\n", l)
		}
		return
	}
	fmt.Fprintf(c.stderr, "%s: %v\n", p.src.name, p.err)
}

// position returns the error's line and column in the file the source
// came from. In a config file the policy is a string value, possibly
// indented or quoted: the column is found by looking for the error's line
// of policy text in the file's line, or in the lines just after it.
func (s source) position(pe *parse.Error) (line, col int) {
	line, col = pe.Line+s.line-1, pe.Column
	if s.file == nil {
		return line, col
	}
	policyLine := nthLine(s.text, pe.Line-1)
	if strings.TrimSpace(policyLine) == "" {
		return line, col
	}
	for i := line - 1; i < line-1+positionWindow; i++ {
		fileLine, ok := s.file.line(i)
		if !ok {
			break
		}
		if k := strings.Index(fileLine, policyLine); k >= 0 {
			return i + 1, utf8.RuneCountInString(fileLine[:k]) + pe.Column
		}
	}
	return line, col
}

func asParseError(err error) *parse.Error {
	var pe *parse.Error
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

func expected(pe *parse.Error) string {
	if pe.Expected == "" {
		return ""
	}
	return "; expected " + pe.Expected
}

// onePolicy parses the single policy of commands that take exactly one.
func (c *cli) onePolicy(fs *flag.FlagSet, pos []string, file string) (parsed, int) {
	srcs := argSources(pos)
	if file != "" {
		fromFile, ok := c.fileSources([]string{file})
		if !ok {
			return parsed{}, exitUsage
		}
		srcs = append(srcs, fromFile...)
	}
	if len(srcs) != 1 {
		c.errorf("%s takes one policy, as an argument or with -f FILE; got %d", fs.Name(), len(srcs))
		fs.Usage()
		return parsed{}, exitUsage
	}
	p := parseAll(srcs)[0]
	if p.err != nil {
		c.reportError(p)
		return p, exitInvalid
	}
	return p, exitOK
}
