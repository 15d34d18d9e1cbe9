// Command quickstart runs one task with NovaCode as a library: the prompt
// from its arguments, the model from the environment as the nova command
// chooses it (ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL), in the
// current directory. It prints the answer as it streams, then a summary;
// the session is saved, so `nova --resume ID` continues it.
//
//	go run ./examples/quickstart "what does this repository do?"
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
)

func main() {
	nova.InitProcess()
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, `usage: quickstart "your task"`)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	s, err := nova.Open(ctx, nova.Options{
		// Calls that need approval are put to this function; without it
		// they are denied, as in nova -p.
		CanUseTool: askOnTerminal,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
	defer s.Close()
	fmt.Fprint(os.Stderr, s.Notice())

	for ev, err := range s.Send(ctx, strings.Join(os.Args[1:], " ")) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "\nquickstart:", err)
			continue
		}
		switch e := ev.(type) {
		case event.StreamText:
			fmt.Print(e.Text)
		case event.ToolUse:
			fmt.Fprintf(os.Stderr, "\n[%s %s]\n", e.Name, e.Input)
		}
	}
	r := s.Result()
	fmt.Printf("\n\n%s after %d model calls, %d tool calls, $%.4f; session %s\n", r.Reason, r.Turns, len(r.ToolCalls), r.CostUSD, r.SessionID)
}

// askOnTerminal asks on the terminal, when there is one, whether a call may
// run.
func askOnTerminal(_ context.Context, req nova.PermissionRequest) nova.Decision {
	if fi, err := os.Stdin.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nova.Deny("nobody at the terminal to approve it")
	}
	fmt.Fprintf(os.Stderr, "\nAllow %s %s? (%s) [y/N] ", req.Tool, req.Input, req.Reason)
	var answer string
	fmt.Scanln(&answer)
	if strings.HasPrefix(strings.ToLower(answer), "y") {
		return nova.Allow()
	}
	return nova.Deny("")
}
