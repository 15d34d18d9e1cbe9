package llm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestLookupModel(t *testing.T) {
	tests := []struct {
		model     string
		found     bool
		window    int
		maxOutput int
	}{
		{"claude-sonnet-4-20250514", true, 200_000, 64_000},
		{"claude-sonnet-4-5-20250929", true, 200_000, 64_000},
		{"claude-opus-4-1", true, 200_000, 32_000},
		{"gpt-4o-mini-2024-07-18", true, 128_000, 16_384},
		{"my-local-llama", false, DefaultModelInfo.ContextWindow, DefaultModelInfo.MaxOutputTokens},
	}
	for _, tc := range tests {
		m, found := LookupModel(tc.model)
		if found != tc.found || m.ContextWindow != tc.window || m.MaxOutputTokens != tc.maxOutput {
			t.Errorf("LookupModel(%q) = %+v, %v", tc.model, m, found)
		}
	}
	// Longest prefix wins: gpt-4o-mini is not priced as gpt-4o.
	mini, _ := LookupModel("gpt-4o-mini")
	full, _ := LookupModel("gpt-4o")
	if mini.InputPrice >= full.InputPrice {
		t.Error("gpt-4o-mini resolved to gpt-4o prices")
	}
}

func TestCost(t *testing.T) {
	m, _ := LookupModel("claude-sonnet-4-5")
	u := Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000, CacheReadTokens: 1_000_000, CacheWriteTokens: 1_000_000}
	if got, want := m.Cost(u), 3+15+0.3+3.75; fmt.Sprintf("%.4f", got) != fmt.Sprintf("%.4f", want) {
		t.Fatalf("cost = %v, want %v", got, want)
	}
	if u.PromptTokens() != 3_000_000 {
		t.Fatalf("prompt tokens = %d", u.PromptTokens())
	}
}

// Searches of the provider's web search are billed per search, on top of
// the tokens their results add to the prompt.
func TestWebSearchCost(t *testing.T) {
	tests := []struct {
		model string
		want  float64 // USD for 1,000 searches
	}{
		{"claude-sonnet-4-5", 10},
		{"claude-opus-4-1", 10},
		{"gpt-5", 10},
		{"gpt-5-mini", 10},
		{"gpt-4.1-2025-04-14", 25},
		{"gpt-4o-mini", 25},
		{"my-local-llama", 0},
	}
	for _, tc := range tests {
		m, _ := LookupModel(tc.model)
		got := m.Cost(Usage{WebSearchRequests: 1000})
		if fmt.Sprintf("%.4f", got) != fmt.Sprintf("%.4f", tc.want) {
			t.Errorf("%s: 1,000 searches cost %v, want %v", tc.model, got, tc.want)
		}
	}
	if got := (Usage{WebSearchRequests: 2}).Add(Usage{WebSearchRequests: 3, InputTokens: 1}); got != (Usage{WebSearchRequests: 5, InputTokens: 1}) {
		t.Errorf("Add = %+v", got)
	}
}

func TestErrorClassification(t *testing.T) {
	err := fmt.Errorf("stream: %w", &Error{Kind: ErrOverloaded, StatusCode: 529, Message: "busy"})
	if !IsRetryable(err) {
		t.Error("overloaded not retryable")
	}
	if IsRetryable(&Error{Kind: ErrAuth}) || IsRetryable(errors.New("x")) {
		t.Error("auth or plain error retryable")
	}
	if got := (&Error{Kind: ErrRateLimit, StatusCode: 429, Message: "slow down"}).Error(); got != "model call failed (rate_limit, HTTP 429): slow down" {
		t.Errorf("message = %q", got)
	}
}

func TestWebSearchRejected(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&Error{Kind: ErrInvalid, StatusCode: 400, Message: "tools.0: Input tag 'web_search_20250305' found using 'type' does not match any of the expected tags"}, true},
		{fmt.Errorf("stream: %w", &Error{Kind: ErrInvalid, StatusCode: 422, Message: "Unsupported tool type: Web_Search"}), true},
		{&Error{Kind: ErrInvalid, StatusCode: 400, Message: "messages.1: unexpected role"}, false},
		{&Error{Kind: ErrServer, StatusCode: 500, Message: "web_search backend down"}, false},
		{&Error{Kind: ErrInvalid, Message: "message 3: web_search block without its result"}, false}, // made here, not refused there
		{errors.New("web_search"), false},
	}
	for _, tt := range tests {
		if got := WebSearchRejected(tt.err); got != tt.want {
			t.Errorf("WebSearchRejected(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestMessageHelpers(t *testing.T) {
	m := Message{Role: RoleAssistant, Content: []Block{
		{Type: BlockThinking, Text: "hidden"}, {Type: BlockText, Text: "a"},
		{Type: BlockToolUse, ToolUseID: "1"}, {Type: BlockText, Text: "b"},
	}}
	if m.Text() != "ab" || len(m.ToolCalls()) != 1 {
		t.Fatalf("Text %q calls %d", m.Text(), len(m.ToolCalls()))
	}
}

type windowFunc func(ctx context.Context, model string) (int, error)

func (f windowFunc) ContextWindow(ctx context.Context, model string) (int, error) {
	return f(ctx, model)
}

// countingEndpoint knows one model's window and counts the questions.
func countingEndpoint(calls *int) windowFunc {
	return func(ctx context.Context, model string) (int, error) {
		*calls++
		if model == "local-qwen" {
			return 32768, nil
		}
		return 0, errors.New("unreachable")
	}
}

func TestWindowResolver(t *testing.T) {
	calls := 0
	endpoint := countingEndpoint(&calls)
	tests := []struct {
		configured int
		src        WindowSource
		srcID      string
		model      string
		want       int
		from       string
		asks       int // the endpoint's questions so far
	}{
		{100_000, endpoint, "a", "local-qwen", 100_000, WindowFromConfig, 0},
		{0, endpoint, "a", "local-qwen", 32768, WindowFromEndpoint, 1},
		{0, endpoint, "a", "local-qwen", 32768, WindowFromEndpoint, 1}, // remembered
		{0, endpoint, "b", "local-qwen", 32768, WindowFromEndpoint, 2}, // another endpoint
		{0, endpoint, "a", "claude-sonnet-4-5", 200_000, WindowFromCatalog, 3},
		{0, endpoint, "a", "claude-sonnet-4-5", 200_000, WindowFromCatalog, 4}, // failures are not remembered
		{0, nil, "a", "mystery", DefaultModelInfo.ContextWindow, WindowFromDefault, 4},
	}
	var r WindowResolver
	for i, tc := range tests {
		got, from := r.Resolve(context.Background(), tc.configured, tc.src, tc.srcID, tc.model)
		if got != tc.want || from != tc.from || calls != tc.asks {
			t.Errorf("%d: %s (configured %d, source %q): %d from %s after %d questions, want %d from %s after %d",
				i, tc.model, tc.configured, tc.srcID, got, from, calls, tc.want, tc.from, tc.asks)
		}
	}
}

// TestWindowResolversAreIndependent: what one resolver learnt is not
// another's. When the cache was a package variable, a second session (or a
// second run of a test, with -count=2) got the first one's answer without
// asking, and an endpoint that changed its answer was never asked again.
func TestWindowResolversAreIndependent(t *testing.T) {
	for i := range 2 {
		calls := 0
		var r WindowResolver
		if n, _ := r.Resolve(context.Background(), 0, countingEndpoint(&calls), "same-endpoint", "local-qwen"); n != 32768 || calls != 1 {
			t.Errorf("resolver %d: window %d after %d questions, want 32768 after 1", i, n, calls)
		}
	}
}

// TestWindowResolverConcurrent resolves from several goroutines at once
// (run it with -race).
func TestWindowResolverConcurrent(t *testing.T) {
	var asked atomic.Int32
	endpoint := windowFunc(func(ctx context.Context, model string) (int, error) {
		asked.Add(1)
		return 1000 + len(model), nil
	})
	var r WindowResolver
	var wg sync.WaitGroup
	for i := range 8 {
		model := strings.Repeat("m", i%4+1)
		wg.Go(func() {
			if n, from := r.Resolve(context.Background(), 0, endpoint, "e", model); n != 1000+len(model) || from != WindowFromEndpoint {
				t.Errorf("%s: %d from %s", model, n, from)
			}
		})
	}
	wg.Wait()
	if n := asked.Load(); n < 4 || n > 8 {
		t.Errorf("endpoint asked %d times for 4 models", n)
	}
}

func TestCatalogModels(t *testing.T) {
	names := CatalogModels()
	if !slices.IsSorted(names) || !slices.Contains(names, "claude-sonnet-4-5") || !slices.Contains(names, "gpt-5") {
		t.Fatalf("CatalogModels() = %v", names)
	}
	for _, n := range names {
		if _, ok := LookupModel(n); !ok {
			t.Errorf("%s is listed but not found", n)
		}
	}
}
