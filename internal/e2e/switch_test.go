//go:build unix

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/anthropic"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/llm/openai"
	"github.com/novacode/nova/llm/openaichat"
	"github.com/novacode/nova/tool"
	"github.com/novacode/nova/tool/builtin"
)

func clientFor(provider, url string) llm.Client {
	switch provider {
	case "openai":
		return openai.New(openai.Options{APIKey: "k", BaseURL: url + "/v1"})
	case "openai-chat":
		return openaichat.New(openaichat.Options{APIKey: "k", BaseURL: url + "/v1"})
	}
	return anthropic.New(anthropic.Options{APIKey: "k", BaseURL: url, MaxRetries: -1})
}

// A conversation started on one protocol continues on another: history
// (thinking, tool calls, results) converts to each wire format, foreign
// reasoning is left out rather than sent where it would be rejected, and
// every call stays paired with its result.
func TestSwitchProviderMidSession(t *testing.T) {
	for _, from := range protocols {
		for _, to := range protocols {
			if from.provider == to.provider {
				continue
			}
			t.Run(from.provider+"→"+to.provider, func(t *testing.T) {
				ws := t.TempDir()
				srvA := llmtest.NewServer(
					llmtest.Turn{Blocks: []llmtest.Block{
						llmtest.Thinking("Plan: list the directory.", "opaque-signature-"+from.provider),
						llmtest.ToolUse("call_ls", "LS", `{"path":"."}`),
					}},
					llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("The directory is empty.")}},
				)
				defer srvA.Close()
				srvB := llmtest.NewServer(
					llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("call_glob", "Glob", `{"pattern":"*"}`)}},
					llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Still empty.")}},
				)
				defer srvB.Close()

				a := &agent.Agent{
					Client: clientFor(from.provider, srvA.URL), Model: from.model,
					Tools: tool.NewRegistry(builtin.All()...), Env: &tool.Env{Dir: ws, Files: tool.NewFileState()},
					Thinking: &llm.Thinking{Effort: "low"},
				}
				conv := agent.NewConversation("s", "You are a test.", "What is in this directory?")
				if lc := runAgent(t, a, conv); lc.Reason != event.ReasonDone || lc.FinalText != "The directory is empty." {
					t.Fatalf("first half: %+v", lc)
				}
				if conv.Messages[1].Content[0].Type != llm.BlockThinking || conv.Messages[1].Content[0].Origin == "" {
					t.Fatalf("thinking not kept with its origin: %+v", conv.Messages[1].Content[0])
				}

				a.Client, a.Model = clientFor(to.provider, srvB.URL), to.model
				conv.AddUser("Check again.")
				if lc := runAgent(t, a, conv); lc.Reason != event.ReasonDone || lc.FinalText != "Still empty." {
					t.Fatalf("second half: %+v", lc)
				}
				reqs := modelCalls(srvB)
				if len(reqs) != 2 {
					t.Fatalf("%d calls to the second provider", len(reqs))
				}
				first := string(reqs[0].Body)
				if strings.Contains(first, "opaque-signature-") {
					t.Errorf("%s's signature was sent to %s:\n%s", from.provider, to.provider, first)
				}
				for _, want := range []string{"call_ls", "What is in this directory?", "The directory is empty.", "Check again."} {
					if !strings.Contains(first, want) {
						t.Errorf("history sent to %s lacks %q:\n%s", to.provider, want, first)
					}
				}
				// The earlier call and its result are both there, paired.
				if strings.Count(first, `"call_ls"`) < 2 {
					t.Errorf("call_ls not sent with its result:\n%s", first)
				}
			})
		}
	}
}

func runAgent(t *testing.T, a *agent.Agent, conv *agent.Conversation) event.LoopComplete {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var lc event.LoopComplete
	for e := range a.Run(ctx, conv) {
		if l, ok := e.(event.LoopComplete); ok {
			lc = l
		}
		if r, ok := e.(event.ToolResult); ok && r.IsError {
			t.Errorf("tool %s failed: %s", r.Name, r.Content)
		}
	}
	return lc
}
