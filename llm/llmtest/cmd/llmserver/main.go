// Command llmserver serves a scripted model over HTTP, for end-to-end
// tests, benchmarks and demos:
//
//	llmserver -script turns.json [-addr 127.0.0.1:0] [-repeat]
//
// The script is a JSON array of llmtest.Turn values (see package llmtest
// for the format). The server's base URL is printed as the first line of
// standard output, ready for ANTHROPIC_BASE_URL; OpenAI clients (Responses
// or Chat Completions) take it with /v1 appended. Every model call, whatever
// its format, takes the next turn. The server runs until SIGINT or SIGTERM.
// With -repeat the script is served round and round instead of running out.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/novacode/nova/llm/llmtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: it serves until ctx ends and returns the
// exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llmserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	script := fs.String("script", "", "JSON file holding an array of turns (required)")
	addr := fs.String("addr", "127.0.0.1:0", "listen address; port 0 picks a free port")
	repeat := fs.Bool("repeat", false, "cycle through the script forever instead of running out")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *script == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: llmserver -script FILE.json [-addr HOST:PORT] [-repeat]")
		return 2
	}
	turns, err := loadScript(*script)
	if err != nil {
		fmt.Fprintln(stderr, "llmserver:", err)
		return 1
	}
	srv, err := llmtest.Listen(*addr)
	if err != nil {
		fmt.Fprintln(stderr, "llmserver:", err)
		return 1
	}
	defer srv.Close()
	if *repeat {
		srv.SetFallback(llmtest.Cycle(turns...))
	} else {
		srv.Push(turns...)
	}
	fmt.Fprintln(stdout, srv.URL)
	<-ctx.Done()
	return 0
}

// loadScript reads and validates the script file. An empty script is an
// error: a server that can only answer "script exhausted" is a mistake.
func loadScript(path string) ([]llmtest.Turn, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	turns, err := llmtest.ParseScript(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(turns) == 0 {
		return nil, errors.New(path + ": script has no turns")
	}
	return turns, nil
}
