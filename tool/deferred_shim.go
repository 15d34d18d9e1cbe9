// DELETE AT MERGE — a stand-in for branch toolsearch.
//
// This file gives the mcp branch the API branch toolsearch builds, so that
// the branch compiles and its tests run before the two are merged:
// (*Registry).Defer, RemoveDeferred, Deferred; Partition;
// DefaultToolSearchThreshold; and NewToolSearchShim, which stands in for
// builtin.NewToolSearch (the SDK calls it in one place, newToolSearch in
// mcp.go at the module root). At the merge: delete this file, drop the
// deferred field and the one line of Get in registry.go marked
// "deferred_shim" (toolsearch's registry replaces them), and point
// newToolSearch at builtin.NewToolSearch. Nothing else of the mcp branch
// depends on how this stand-in searches or partitions.

package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// DefaultToolSearchThreshold is the share of the context window the
// tools' schemas may take before they are deferred behind ToolSearch.
const DefaultToolSearchThreshold = 0.10

// deferredSet holds the tools callable by name but not listed in Specs.
type deferredSet struct {
	mu     sync.Mutex
	tools  []Tool
	byName map[string]Tool
}

func (d *deferredSet) get(name string) (Tool, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.byName[name]
	return t, ok
}

// Defer adds t as a deferred tool: callable by name (Get finds it), not
// in Specs. A deferred tool of the same name is replaced.
func (r *Registry) Defer(t Tool) {
	d := &r.deferred
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.byName == nil {
		d.byName = map[string]Tool{}
	}
	if old, ok := d.byName[t.Name()]; ok {
		d.tools[slices.Index(d.tools, old)] = t
	} else {
		d.tools = append(d.tools, t)
	}
	d.byName[t.Name()] = t
}

// RemoveDeferred drops the named deferred tools.
func (r *Registry) RemoveDeferred(names ...string) {
	d := &r.deferred
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, n := range names {
		if t, ok := d.byName[n]; ok {
			delete(d.byName, n)
			d.tools = slices.DeleteFunc(d.tools, func(x Tool) bool { return x == t })
		}
	}
}

// Deferred lists the deferred tools in the order they were added.
func (r *Registry) Deferred() []Tool {
	d := &r.deferred
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.tools)
}

// Partition splits ts into the tools listed in every request and those
// deferred behind ToolSearch: mode "always" defers all, "never" none,
// "auto" (or "") all of them once their schemas would take more than
// threshold of the context window (about four characters a token).
func Partition(ts []Tool, contextWindow int, mode string, threshold float64) (listed, deferred []Tool) {
	switch mode {
	case "always":
		return nil, slices.Clone(ts)
	case "never":
		return slices.Clone(ts), nil
	}
	if threshold <= 0 {
		threshold = DefaultToolSearchThreshold
	}
	size := 0
	for _, t := range ts {
		size += len(t.Name()) + len(t.Description()) + len(t.Schema())
	}
	if contextWindow > 0 && float64(size/4) > threshold*float64(contextWindow) {
		return nil, slices.Clone(ts)
	}
	return slices.Clone(ts), nil
}

// NewToolSearchShim stands in for builtin.NewToolSearch: a read-only
// ToolSearch over reg's deferred tools ("select:a,b" or words).
func NewToolSearchShim(reg *Registry) Tool {
	type in struct {
		Query string `json:"query" jsonschema:"Words to look for in tool names and descriptions, or select:name1,name2 for exact names"`
	}
	return New("ToolSearch", "Finds deferred tools and returns their full schemas; a found tool can then be called by its name.", true, nil,
		func(_ context.Context, _ *Env, x in) (Result, error) {
			var found []Tool
			if names, ok := strings.CutPrefix(x.Query, "select:"); ok {
				for n := range strings.SplitSeq(names, ",") {
					if t, ok := reg.deferred.get(strings.TrimSpace(n)); ok {
						found = append(found, t)
					}
				}
			} else {
				words := strings.Fields(strings.ToLower(x.Query))
				for _, t := range reg.Deferred() {
					hay := strings.ToLower(t.Name() + " " + t.Description())
					if slices.ContainsFunc(words, func(w string) bool { return strings.Contains(hay, w) }) {
						found = append(found, t)
					}
				}
			}
			if len(found) == 0 {
				return Result{Content: "No deferred tool matches."}, nil
			}
			var b strings.Builder
			for _, t := range found {
				desc, _ := json.Marshal(t.Description())
				fmt.Fprintf(&b, "{\"name\":%q,\"description\":%s,\"input_schema\":%s}\n", t.Name(), desc, t.Schema())
			}
			return Result{Content: b.String()}, nil
		})
}
