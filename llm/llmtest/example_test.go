package llmtest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// A test scripts two model turns: a tool call, then the final answer. A
// client pointed at the server (the nova binary via ANTHROPIC_BASE_URL, or
// here the SDK) streams them in order, and the requests are kept for
// assertions.
func Example() {
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.Text("Let me check."),
			llmtest.ToolUse("", "read_file", `{"path":"go.mod"}`),
		}},
		llmtest.Turn{
			Blocks: []llmtest.Block{llmtest.Text("The module is github.com/novacode/nova.")},
			Usage:  llm.Usage{InputTokens: 120, OutputTokens: 9},
		},
	)
	defer srv.Close()

	client := newClient(srv.URL)
	for range 2 {
		s := client.Messages.NewStreaming(context.Background(), params())
		var msg anthropic.Message
		for s.Next() {
			_ = msg.Accumulate(s.Current())
		}
		s.Close()
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				fmt.Println("text:", b.Text)
			case "tool_use":
				fmt.Println("tool:", b.ID, b.Name, string(b.Input))
			}
		}
		fmt.Println("stop:", msg.StopReason, "output tokens:", msg.Usage.OutputTokens)
	}
	fmt.Println("requests:", len(srv.Requests()))
	// Output:
	// text: Let me check.
	// tool: toolu_1 read_file {"path":"go.mod"}
	// stop: tool_use output tokens: 0
	// text: The module is github.com/novacode/nova.
	// stop: end_turn output tokens: 9
	// requests: 2
}

// BenchmarkStream measures the server's cost per streamed turn of about
// 4 KB of text, without pacing, as seen by a plain HTTP client.
func BenchmarkStream(b *testing.B) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(llmtest.Cycle(llmtest.Turn{Blocks: []llmtest.Block{
		llmtest.Text(strings.Repeat("benchmark text ", 270)),
		llmtest.ToolUse("", "read_file", `{"path":"main.go"}`),
	}}))
	client := &http.Client{}
	defer client.CloseIdleConnections()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := client.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(`{"stream":true}`))
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
}
