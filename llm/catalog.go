package llm

import (
	"maps"
	"slices"
	"strings"
)

// ModelInfo is what the loop needs to know about a model: its limits and
// prices (USD per million tokens).
type ModelInfo struct {
	ContextWindow   int
	MaxOutputTokens int
	// Adaptive models choose their own thinking budget.
	AdaptiveThinking bool

	InputPrice      float64
	OutputPrice     float64
	CacheReadPrice  float64
	CacheWritePrice float64
	// WebSearchPrice is the price in USD of one search of the provider's
	// web search (Usage.WebSearchRequests).
	WebSearchPrice float64
}

// DefaultModelInfo is the conservative fallback for models we do not know.
var DefaultModelInfo = ModelInfo{ContextWindow: 128_000, MaxOutputTokens: 8_192}

// entry is a catalog line: ModelInfo's limits and token prices, in order.
type entry struct {
	contextWindow, maxOutputTokens       int
	adaptiveThinking                     bool
	input, output, cacheRead, cacheWrite float64
}

// catalog maps a model-name prefix to its info; the longest matching prefix
// wins, so dated snapshots ("claude-sonnet-4-20250514") resolve to their family.
var catalog = map[string]entry{
	"claude-opus-4":     {200_000, 32_000, false, 15, 75, 1.5, 18.75},
	"claude-opus-4-5":   {200_000, 64_000, true, 5, 25, 0.5, 6.25},
	"claude-sonnet-4":   {200_000, 64_000, false, 3, 15, 0.3, 3.75},
	"claude-sonnet-4-5": {200_000, 64_000, true, 3, 15, 0.3, 3.75},
	"claude-haiku-4-5":  {200_000, 64_000, true, 1, 5, 0.1, 1.25},
	"claude-3-7-sonnet": {200_000, 64_000, false, 3, 15, 0.3, 3.75},
	"claude-3-5-haiku":  {200_000, 8_192, false, 0.8, 4, 0.08, 1},
	"claude-3-5-sonnet": {200_000, 8_192, false, 3, 15, 0.3, 3.75},
	"gpt-4o":            {128_000, 16_384, false, 2.5, 10, 1.25, 0},
	"gpt-4o-mini":       {128_000, 16_384, false, 0.15, 0.6, 0.075, 0},
	"gpt-4.1":           {1_047_576, 32_768, false, 2, 8, 0.5, 0},
	"gpt-5":             {400_000, 128_000, true, 1.25, 10, 0.125, 0},
	"gpt-5-mini":        {400_000, 128_000, true, 0.25, 2, 0.025, 0},
	"o4-mini":           {200_000, 100_000, true, 1.1, 4.4, 0.275, 0},
}

// webSearchPrices are the prices in USD of one web search by model-name
// prefix (longest wins): Anthropic charges USD 10 per 1,000 searches; OpenAI
// charges per web_search call, USD 10 per 1,000 for reasoning models and 25
// for the others (search content tokens aside).
var webSearchPrices = map[string]float64{
	"claude-": 0.01,
	"gpt-4o":  0.025,
	"gpt-4.1": 0.025,
	"gpt-5":   0.01,
	"o3":      0.01,
	"o4-mini": 0.01,
}

// LookupModel returns the catalog entry for model and whether one was found;
// unknown models get DefaultModelInfo.
func LookupModel(model string) (ModelInfo, bool) {
	best, found := "", false
	for prefix := range catalog {
		if strings.HasPrefix(model, prefix) && len(prefix) > len(best) {
			best, found = prefix, true
		}
	}
	info := DefaultModelInfo
	if found {
		e := catalog[best]
		info = ModelInfo{
			ContextWindow: e.contextWindow, MaxOutputTokens: e.maxOutputTokens, AdaptiveThinking: e.adaptiveThinking,
			InputPrice: e.input, OutputPrice: e.output, CacheReadPrice: e.cacheRead, CacheWritePrice: e.cacheWrite,
		}
	}
	info.WebSearchPrice = longestPrefix(webSearchPrices, model)
	return info, found
}

// longestPrefix returns the value of the longest key of m that model starts
// with, or 0.
func longestPrefix(m map[string]float64, model string) float64 {
	best, v := "", 0.0
	for prefix, x := range m {
		if strings.HasPrefix(model, prefix) && len(prefix) > len(best) {
			best, v = prefix, x
		}
	}
	return v
}

// CatalogModels names the models (and model families) the built-in catalog
// knows, sorted: what a model picker can offer without asking an endpoint.
func CatalogModels() []string {
	return slices.Sorted(maps.Keys(catalog))
}

// Cost is the price in USD of usage u on model info m.
func (m ModelInfo) Cost(u Usage) float64 {
	return (float64(u.InputTokens)*m.InputPrice+
		float64(u.OutputTokens)*m.OutputPrice+
		float64(u.CacheReadTokens)*m.CacheReadPrice+
		float64(u.CacheWriteTokens)*m.CacheWritePrice)/1e6 +
		float64(u.WebSearchRequests)*m.WebSearchPrice
}
