// Command llmserver serves a scripted model over HTTP, for end-to-end
// tests, benchmarks and demos:
//
//	llmserver -script turns.json [-addr 127.0.0.1:0] [-repeat]
//
// The script is a JSON array of llmtest.Turn values (see package llmtest
// for the format), or a JSON object of such arrays keyed by marker, one
// script per conversation (llmtest.Conversations): a model call gets the
// next turn of the script whose marker its first user message contains
// (the longest such marker), else of the script keyed "". The server's base
// URL is printed as the first line of standard output, ready for
// ANTHROPIC_BASE_URL; OpenAI clients (Responses or Chat Completions) take it
// with /v1 appended. With an array, every model call, whatever its format,
// takes the next turn. The server runs until SIGINT or SIGTERM. With
// -repeat an array is served round and round instead of running out (an
// object cannot be).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
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
	script := fs.String("script", "", "JSON file holding an array of turns, or an object of arrays keyed by conversation marker (required)")
	addr := fs.String("addr", "127.0.0.1:0", "listen address; port 0 picks a free port")
	repeat := fs.Bool("repeat", false, "cycle through the script forever instead of running out")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *script == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: llmserver -script FILE.json [-addr HOST:PORT] [-repeat]")
		return 2
	}
	turns, conversations, err := loadScript(*script)
	if err == nil && conversations != nil && *repeat {
		err = errors.New("-repeat needs a script that is an array of turns, not an object of conversations")
	}
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
	switch {
	case conversations != nil:
		srv.SetFallback(llmtest.Conversations(conversations))
	case *repeat:
		srv.SetFallback(llmtest.Cycle(turns...))
	default:
		srv.Push(turns...)
	}
	fmt.Fprintln(stdout, srv.URL)
	<-ctx.Done()
	return 0
}

// loadScript reads and validates the script file: an array of turns, or an
// object of conversations, each an array of turns keyed by its marker. An
// empty script or conversation is an error: a server that can only answer
// "script exhausted" is a mistake.
func loadScript(path string) (turns []llmtest.Turn, conversations map[string][]llmtest.Turn, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if !bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) {
		turns, err := llmtest.ParseScript(data)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(turns) == 0 {
			return nil, nil, errors.New(path + ": script has no turns")
		}
		return turns, nil, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, nil, fmt.Errorf("%s: parse conversations: %w", path, err)
	}
	if len(raw) == 0 {
		return nil, nil, errors.New(path + ": script has no conversations")
	}
	conversations = map[string][]llmtest.Turn{}
	for _, marker := range slices.Sorted(maps.Keys(raw)) { // the first error, always the same one
		turns, err := llmtest.ParseScript(raw[marker])
		if err != nil {
			return nil, nil, fmt.Errorf("%s: conversation %q: %w", path, marker, err)
		}
		if len(turns) == 0 {
			return nil, nil, fmt.Errorf("%s: conversation %q has no turns", path, marker)
		}
		conversations[marker] = turns
	}
	return nil, conversations, nil
}
