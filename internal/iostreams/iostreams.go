// Package iostreams holds the streams a command reads and writes, so that
// tests can swap them for buffers (the GitHub CLI's pattern).
package iostreams

import (
	"bytes"
	"io"
	"os"
)

// IOStreams are a command's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// StdinIsTTY reports whether In is an interactive terminal.
	StdinIsTTY bool
}

// System returns the process's streams.
func System() *IOStreams {
	return &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, StdinIsTTY: isTerminal(os.Stdin)}
}

// Test returns streams backed by buffers: input, output, error output.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, StdinIsTTY: true}, in, out, errOut
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
