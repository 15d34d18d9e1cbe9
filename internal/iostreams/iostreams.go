// Package iostreams holds the streams a command reads and writes, so that
// tests can swap them for buffers (the GitHub CLI's pattern).
package iostreams

import (
	"bytes"
	"io"
	"os"

	"github.com/charmbracelet/x/term"
)

// IOStreams are a command's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// StdinIsTTY and StdoutIsTTY report whether In and Out are interactive
	// terminals.
	StdinIsTTY  bool
	StdoutIsTTY bool
	// StderrIsTTY reports whether ErrOut is one: progress that redraws a
	// line in place (nova batch) only then.
	StderrIsTTY bool
}

// System returns the process's streams.
func System() *IOStreams {
	return &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		StdinIsTTY: isTerminal(os.Stdin), StdoutIsTTY: isTerminal(os.Stdout), StderrIsTTY: isTerminal(os.Stderr)}
}

// Test returns streams backed by buffers: input, output, error output.
// They claim to be terminals, as the interactive paths expect.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, StdinIsTTY: true, StdoutIsTTY: true}, in, out, errOut
}

// isTerminal asks the terminal driver, not the file mode: /dev/null is a
// character device too, and `nova < /dev/null` must not be taken for a
// terminal (the TUI would fail to put it in raw mode).
func isTerminal(f *os.File) bool {
	return term.IsTerminal(f.Fd())
}
