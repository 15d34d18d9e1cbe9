package tool

import (
	"strings"

	"github.com/novacode/nova/llm"
)

// ToolSearchName is the name of the tool that finds deferred tools
// (builtin.NewToolSearch).
const ToolSearchName = "ToolSearch"

// The modes of Partition (the mcpToolSearch setting).
const (
	// ToolSearchAuto defers the tools when their specs would take more
	// than the threshold of the context window.
	ToolSearchAuto = "auto"
	// ToolSearchAlways defers every tool.
	ToolSearchAlways = "always"
	// ToolSearchNever lists every tool.
	ToolSearchNever = "never"
)

// DefaultToolSearchThreshold is the share of the context window that the
// specs of the tools handed to Partition may take before auto mode defers
// them.
const DefaultToolSearchThreshold = 0.10

// Partition decides once, before a session's first request, which of ts
// (the tools of MCP servers) are listed in the tools array and which are
// deferred behind ToolSearch. mode is ToolSearchAlways (defer all),
// ToolSearchNever (list all) or ToolSearchAuto (the default, also for "" and
// any other value, compared without regard to case): all of ts are deferred
// when SpecTokens(ts) exceeds threshold × contextWindow, else all are listed.
// A threshold that is not positive means DefaultToolSearchThreshold; a
// contextWindow that is not positive (unknown) means the default window
// (llm.DefaultModelInfo). Both results keep the order of ts; one of them is
// always empty.
func Partition(ts []Tool, contextWindow int, mode string, threshold float64) (listed, deferred []Tool) {
	if len(ts) == 0 {
		return nil, nil
	}
	switch strings.ToLower(strings.TrimSpace(mode)) {
	case ToolSearchAlways:
		return nil, ts
	case ToolSearchNever:
		return ts, nil
	}
	if !(threshold > 0) { // NaN too
		threshold = DefaultToolSearchThreshold
	}
	if contextWindow <= 0 {
		contextWindow = llm.DefaultModelInfo.ContextWindow
	}
	if float64(SpecTokens(ts)) > threshold*float64(contextWindow) {
		return nil, ts
	}
	return ts, nil
}

// SpecTokens estimates the tokens the specs of ts take in a request: the
// bytes of each name, description and input schema, divided by four (a
// rough rule for English text and JSON; no tokenizer is asked).
func SpecTokens(ts []Tool) int {
	n := 0
	for _, t := range ts {
		n += len(t.Name()) + len(t.Description()) + len(t.Schema())
	}
	return n / 4
}
