package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// rawTool is a tool with a schema of its own, as an MCP server sends it.
type rawTool struct {
	name, desc string
	schema     string
}

func (t rawTool) Name() string            { return t.name }
func (t rawTool) Description() string     { return t.desc }
func (t rawTool) Schema() json.RawMessage { return json.RawMessage(t.schema) }
func (t rawTool) ReadOnly() bool          { return true }
func (t rawTool) Run(context.Context, *Env, json.RawMessage) (Result, error) {
	return Result{Content: t.desc}, nil
}

func mcpTool(name, desc string) rawTool {
	return rawTool{name: name, desc: desc, schema: `{"type":"object","properties":{"q":{"type":"string"}}}`}
}

func names(ts []Tool) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name())
	}
	return out
}

func TestDeferredTools(t *testing.T) {
	type op func(r *Registry)
	deferT := func(name, desc string) op { return func(r *Registry) { r.Defer(mcpTool(name, desc)) } }
	tests := []struct {
		name string
		ops  []op
		// what Get finds, by name, as the tool's description ("" = not found)
		get      map[string]string
		deferred []string
		listed   []string
	}{
		{
			name:     "deferred tools are callable, not listed",
			ops:      []op{deferT("mcp__s__b", "b1"), deferT("mcp__s__a", "a1")},
			get:      map[string]string{"mcp__s__a": "a1", "mcp__s__b": "b1", "Read": "Reads a file.", "nope": ""},
			deferred: []string{"mcp__s__a", "mcp__s__b"},
			listed:   []string{"Read", "Write"},
		},
		{
			name:     "deferring a name again replaces the tool",
			ops:      []op{deferT("mcp__s__a", "a1"), deferT("mcp__s__a", "a2")},
			get:      map[string]string{"mcp__s__a": "a2"},
			deferred: []string{"mcp__s__a"},
			listed:   []string{"Read", "Write"},
		},
		{
			name: "RemoveDeferred drops deferred tools only",
			ops: []op{deferT("mcp__s__a", "a1"), deferT("mcp__s__b", "b1"),
				func(r *Registry) { r.RemoveDeferred("mcp__s__a", "Read", "never-there") }},
			get:      map[string]string{"mcp__s__a": "", "mcp__s__b": "b1", "Read": "Reads a file."},
			deferred: []string{"mcp__s__b"},
			listed:   []string{"Read", "Write"},
		},
		{
			name:     "a listed name stays listed",
			ops:      []op{deferT("Read", "shadow")},
			get:      map[string]string{"Read": "Reads a file."},
			deferred: []string{},
			listed:   []string{"Read", "Write"},
		},
		{
			name:     "Register lists a deferred tool",
			ops:      []op{deferT("mcp__s__a", "a1"), func(r *Registry) { r.Register(mcpTool("mcp__s__a", "a2")) }},
			get:      map[string]string{"mcp__s__a": "a2"},
			deferred: []string{},
			listed:   []string{"Read", "Write", "mcp__s__a"},
		},
		{
			name:     "Remove drops listed and deferred tools",
			ops:      []op{deferT("mcp__s__a", "a1"), func(r *Registry) { r.Remove("mcp__s__a", "Write") }},
			get:      map[string]string{"mcp__s__a": "", "Write": ""},
			deferred: []string{},
			listed:   []string{"Read"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sample()
			for _, o := range tt.ops {
				o(r)
			}
			got := map[string]string{}
			for n := range tt.get {
				got[n] = ""
				if tl, ok := r.Get(n); ok {
					got[n] = tl.Description()
				}
			}
			if diff := cmp.Diff(tt.get, got); diff != "" {
				t.Errorf("Get (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.deferred, names(r.Deferred())); diff != "" {
				t.Errorf("Deferred (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.listed, r.Names()); diff != "" {
				t.Errorf("Names (-want +got):\n%s", diff)
			}
			var specs []string
			for _, s := range r.Specs() {
				specs = append(specs, s.Name)
			}
			if diff := cmp.Diff(tt.listed, specs); diff != "" {
				t.Errorf("Specs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestZeroRegistry(t *testing.T) {
	var r Registry
	r.Defer(mcpTool("mcp__s__a", "a"))
	r.Register(mcpTool("Look", "l"))
	if diff := cmp.Diff([]string{"mcp__s__a"}, names(r.Deferred())); diff != "" {
		t.Errorf("Deferred (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Look"}, r.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
}

// TestSpecsStableWhileDeferredChange changes deferred tools from several
// goroutines while others read: Specs stays byte-identical (run with -race).
func TestSpecsStableWhileDeferredChange(t *testing.T) {
	r := sample()
	want, _ := json.Marshal(r.Specs())
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 200 {
				name := fmt.Sprintf("mcp__s%d__t%d", w, i%7)
				switch i % 3 {
				case 0, 1:
					r.Defer(mcpTool(name, fmt.Sprint(i)))
				default:
					r.RemoveDeferred(name)
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 200 {
				got, _ := json.Marshal(r.Specs())
				if string(got) != string(want) {
					t.Errorf("Specs changed:\n%s\nwant\n%s", got, want)
					return
				}
				for _, d := range r.Deferred() {
					r.Get(d.Name())
				}
				r.UnknownToolResult("x")
			}
		})
	}
	wg.Wait()
}

func TestUnknownToolResult(t *testing.T) {
	tests := []struct {
		name     string
		search   bool
		deferred int
		want     string
		not      string
	}{
		{name: "no deferred tools", search: true, want: `Unknown tool "x". Available tools: Read, Write, ToolSearch. Call one of those.`, not: "deferred"},
		{name: "deferred tools and ToolSearch", search: true, deferred: 3, want: "3 more tools are deferred (not listed): find them with ToolSearch"},
		{name: "deferred tools without ToolSearch", deferred: 3, want: `Available tools: Read, Write. Call one of those.`, not: "deferred"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sample()
			if tt.search {
				r.Register(mcpTool(ToolSearchName, "finds tools"))
			}
			for i := range tt.deferred {
				r.Defer(mcpTool(fmt.Sprintf("mcp__s__t%d", i), "t"))
			}
			res := r.UnknownToolResult("x")
			if !res.IsError || !strings.Contains(res.Content, tt.want) || (tt.not != "" && strings.Contains(res.Content, tt.not)) {
				t.Errorf("got %q, want it to contain %q and not %q", res.Content, tt.want, tt.not)
			}
		})
	}
}

func TestPartition(t *testing.T) {
	// Each of these takes 100 bytes: 25 estimated tokens.
	sized := func(n int) []Tool {
		var ts []Tool
		for i := range n {
			name := fmt.Sprintf("mcp__s__t%02d", i) // 11 bytes
			schema := `{"type":"object"}`           // 17 bytes
			ts = append(ts, rawTool{name: name, desc: strings.Repeat("d", 100-len(name)-len(schema)), schema: schema})
		}
		return ts
	}
	ten := sized(10) // 250 tokens
	all := names(ten)
	tests := []struct {
		name      string
		ts        []Tool
		window    int
		mode      string
		threshold float64
		listed    []string
		deferred  []string
	}{
		{name: "no tools", ts: nil, window: 1000, mode: "always", listed: []string{}, deferred: []string{}},
		{name: "always defers", ts: ten, window: 1 << 30, mode: "always", threshold: 0.1, listed: []string{}, deferred: all},
		{name: "never lists", ts: ten, window: 10, mode: "never", threshold: 0.1, listed: all, deferred: []string{}},
		{name: "auto under the threshold lists", ts: ten, window: 2500, mode: "auto", threshold: 0.1, listed: all, deferred: []string{}},
		{name: "auto over the threshold defers", ts: ten, window: 2499, mode: "auto", threshold: 0.1, listed: []string{}, deferred: all},
		{name: "empty mode is auto", ts: ten, window: 2499, mode: "", threshold: 0.1, listed: []string{}, deferred: all},
		{name: "unknown mode is auto", ts: ten, window: 2500, mode: "sometimes", threshold: 0.1, listed: all, deferred: []string{}},
		{name: "mode ignores case", ts: ten, window: 1 << 30, mode: " Always", threshold: 0.1, listed: []string{}, deferred: all},
		{name: "zero threshold is the default", ts: ten, window: 2499, mode: "auto", threshold: 0, listed: []string{}, deferred: all},
		{name: "a larger threshold lists", ts: ten, window: 2499, mode: "auto", threshold: 0.5, listed: all, deferred: []string{}},
		{name: "unknown window is the default window", ts: sized(1000), window: 0, mode: "auto", threshold: 0.1, listed: []string{}, deferred: names(sized(1000))},
		{name: "unknown window, few tools", ts: ten, window: -1, mode: "auto", threshold: 0.1, listed: all, deferred: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			listed, deferred := Partition(tt.ts, tt.window, tt.mode, tt.threshold)
			if diff := cmp.Diff(tt.listed, names(listed)); diff != "" {
				t.Errorf("listed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.deferred, names(deferred)); diff != "" {
				t.Errorf("deferred (-want +got):\n%s", diff)
			}
		})
	}
	if got := SpecTokens(ten); got != 250 {
		t.Errorf("SpecTokens = %d, want 250", got)
	}
}
