package llm

import (
	"context"
	"sync"
)

// WindowSource is a client that can ask its endpoint for a model's context
// window; 0 means the endpoint did not say.
type WindowSource interface {
	ContextWindow(ctx context.Context, model string) (int, error)
}

// Where a context window came from, for logs and tests.
const (
	WindowFromConfig   = "config"
	WindowFromEndpoint = "endpoint"
	WindowFromCatalog  = "catalog"
	WindowFromDefault  = "default"
)

var windowCache sync.Map // "<source identity>\x00<model>" -> int

// ResolveContextWindow returns model's context window: the configured value
// if positive, else what src's endpoint reports, else the built-in catalog,
// else a conservative default. Endpoint answers are cached for the process.
// src may be nil; an endpoint error only means falling back.
func ResolveContextWindow(ctx context.Context, configured int, src WindowSource, srcID, model string) (int, string) {
	if configured > 0 {
		return configured, WindowFromConfig
	}
	if src != nil {
		key := srcID + "\x00" + model
		if v, ok := windowCache.Load(key); ok && v.(int) > 0 {
			return v.(int), WindowFromEndpoint
		}
		if n, err := src.ContextWindow(ctx, model); err == nil && n > 0 {
			windowCache.Store(key, n)
			return n, WindowFromEndpoint
		}
	}
	if info, ok := LookupModel(model); ok {
		return info.ContextWindow, WindowFromCatalog
	}
	return DefaultModelInfo.ContextWindow, WindowFromDefault
}
