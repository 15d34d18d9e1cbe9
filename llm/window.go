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

// WindowResolver finds models' context windows and remembers what endpoints
// answered for as long as it lives. The caller decides that lifetime (the CLI
// makes one per process): a cache owned by a value, rather than by the
// package, cannot leak answers from one session, test or endpoint
// configuration into another. The zero value is ready to use; it is safe for
// concurrent use.
type WindowResolver struct {
	mu    sync.Mutex
	known map[windowKey]int // positive endpoint answers
}

// windowKey names an endpoint answer: the source's identity (say, its
// protocol and base URL) and the model.
type windowKey struct{ source, model string }

// Resolve returns model's context window and where it came from: the
// configured value if positive, else what src's endpoint reports (asked once
// per srcID and model for r's lifetime), else the built-in catalog, else a
// conservative default. src may be nil; an endpoint error only means falling
// back, and is asked again next time.
func (r *WindowResolver) Resolve(ctx context.Context, configured int, src WindowSource, srcID, model string) (int, string) {
	if configured > 0 {
		return configured, WindowFromConfig
	}
	if src != nil {
		key := windowKey{srcID, model}
		r.mu.Lock()
		n := r.known[key]
		r.mu.Unlock()
		if n > 0 {
			return n, WindowFromEndpoint
		}
		// Not under the lock: the endpoint may take seconds, and another
		// model's lookup need not wait for it. Two concurrent lookups of
		// the same key both ask; the answers are the same.
		if n, err := src.ContextWindow(ctx, model); err == nil && n > 0 {
			r.mu.Lock()
			if r.known == nil {
				r.known = make(map[windowKey]int)
			}
			r.known[key] = n
			r.mu.Unlock()
			return n, WindowFromEndpoint
		}
	}
	if info, ok := LookupModel(model); ok {
		return info.ContextWindow, WindowFromCatalog
	}
	return DefaultModelInfo.ContextWindow, WindowFromDefault
}
