package llmtest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

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

// The same turn answers an OpenAI client, in the Responses format here; a
// Chat Completions client would get it as chunks. Tool calls the script
// leaves without an ID get OpenAI-style ones.
func Example_openAI() {
	srv := llmtest.NewServer(llmtest.Turn{
		Blocks: []llmtest.Block{
			llmtest.Text("Let me check."),
			llmtest.ToolUse("", "read_file", `{"path":"go.mod"}`),
		},
		Usage: llm.Usage{InputTokens: 20, OutputTokens: 9, CacheReadTokens: 100},
	})
	defer srv.Close()

	client := openai.NewClient(
		oaoption.WithBaseURL(srv.URL+"/v1"),
		oaoption.WithAPIKey("test"),
		oaoption.WithMaxRetries(0),
	)
	s := client.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
		Model: "gpt-5",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("What is the module path?")},
	})
	defer s.Close()
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.output_item.done":
			if ev.Item.Type == "function_call" {
				fmt.Println("tool:", ev.Item.CallID, ev.Item.Name, ev.Item.Arguments.OfString)
			}
		case "response.completed":
			u := ev.Response.Usage
			fmt.Println("text:", ev.Response.OutputText())
			fmt.Println("input tokens:", u.InputTokens, "of which cached:", u.InputTokensDetails.CachedTokens)
		}
	}
	fmt.Println("protocol:", srv.Requests()[0].Protocol)
	// Output:
	// tool: call_1 read_file {"path":"go.mod"}
	// text: Let me check.
	// input tokens: 120 of which cached: 100
	// protocol: openai-responses
}

// BenchmarkStream measures the server's cost per streamed turn of about
// 4 KB of text, without pacing, as seen by a plain HTTP client, in each
// wire format.
func BenchmarkStream(b *testing.B) {
	for name, path := range map[string]string{"anthropic": "/v1/messages", "responses": "/v1/responses", "chat": "/v1/chat/completions"} {
		b.Run(name, func(b *testing.B) {
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
				resp, err := client.Post(srv.URL+path, "application/json", strings.NewReader(`{"stream":true}`))
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
		})
	}
}
