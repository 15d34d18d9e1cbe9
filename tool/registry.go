package tool

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/novacode/nova/llm"
)

// Registry is the session's tools: the listed ones, an ordered set whose
// specs go into every request, and the deferred ones, callable by name but
// never listed (tools of MCP servers behind ToolSearch: see Partition).
// Order is stable so the tools array in every request is byte-identical (it
// sits under a prompt-cache breakpoint): deferring, replacing or removing
// deferred tools never changes Specs. It is safe for concurrent use: servers
// that connect late add deferred tools while runs read it. A fallback
// (SetFallback) answers Get for names it does not hold.
type Registry struct {
	mu       sync.RWMutex
	tools    []Tool          // listed, in order
	byName   map[string]Tool // listed
	deferred map[string]Tool
	fallback func(name string) (Tool, bool)
}

// NewRegistry returns a registry listing tools, in order. The zero
// Registry is empty and ready to use.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{byName: map[string]Tool{}, deferred: map[string]Tool{}}
	for _, t := range tools {
		r.Register(t)
	}
	return r
}

// Register lists t; a second tool with the same name replaces the first in
// place, and a deferred tool of that name becomes listed. It changes Specs:
// call it before a session's first request only.
func (r *Registry) Register(t Tool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := t.Name()
	if r.byName == nil {
		r.byName = map[string]Tool{}
	}
	if old, ok := r.byName[name]; ok {
		i := slices.Index(r.tools, old)
		r.tools[i] = t
	} else {
		r.tools = append(r.tools, t)
	}
	r.byName[name] = t
	delete(r.deferred, name)
}

// Remove drops the named tools, listed or deferred (for --disallowedTools).
// Removing a listed tool changes Specs.
func (r *Registry) Remove(names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		if t, ok := r.byName[n]; ok {
			delete(r.byName, n)
			r.tools = slices.DeleteFunc(r.tools, func(x Tool) bool { return x == t })
		}
		delete(r.deferred, n)
	}
}

// Defer adds t as a deferred tool: callable by name (Get) and found by
// Deferred, never in Specs. Deferring a name again replaces the tool (a
// server's tools changed). A name already listed stays listed, as it is:
// Defer never changes the tools array.
func (r *Registry) Defer(t Tool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, listed := r.byName[t.Name()]; listed {
		return
	}
	if r.deferred == nil {
		r.deferred = map[string]Tool{}
	}
	r.deferred[t.Name()] = t
}

// RemoveDeferred drops the named deferred tools; listed tools of those names
// stay.
func (r *Registry) RemoveDeferred(names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		delete(r.deferred, n)
	}
}

// Deferred returns the deferred tools, sorted by name.
func (r *Registry) Deferred() []Tool {
	r.mu.RLock()
	out := make([]Tool, 0, len(r.deferred))
	for _, t := range r.deferred {
		out = append(out, t)
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// Get returns the named tool, listed or deferred: a deferred tool is callable
// by its exact name whether or not the model searched for it first. A name
// the registry does not hold is asked of the fallback, if one is set.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	if t, ok := r.byName[name]; ok {
		r.mu.RUnlock()
		return t, true
	}
	t, ok := r.deferred[name]
	fallback := r.fallback
	r.mu.RUnlock()
	if ok || fallback == nil {
		return t, ok
	}
	// Outside the lock: the fallback may look at the registry itself.
	return fallback(name)
}

// SetFallback sets what Get asks about a name the registry holds neither
// listed nor deferred (nil: nothing): the SDK answers for the tools of MCP
// servers still starting, whose names are not known yet, with a Pending
// tool. What it returns is neither listed nor kept; Specs never changes.
func (r *Registry) SetFallback(f func(name string) (Tool, bool)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fallback = f
}

// Tools returns the listed tools in order.
func (r *Registry) Tools() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.tools)
}

// Names lists the listed tools' names in order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, len(r.tools))
	for i, t := range r.tools {
		out[i] = t.Name()
	}
	return out
}

// Specs describes every listed tool for a model request, in order; deferred
// tools are not in it.
func (r *Registry) Specs() []llm.ToolSpec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]llm.ToolSpec, len(r.tools))
	for i, t := range r.tools {
		out[i] = llm.ToolSpec{Name: t.Name(), Description: t.Description(), InputSchema: t.Schema()}
	}
	return out
}

// AnthropicForm is a tool as the Anthropic Messages API takes it.
type AnthropicForm struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// OpenAIForm is a tool as OpenAI Chat Completions takes it.
type OpenAIForm struct {
	Type     string         `json:"type"`
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction is the function object of OpenAIForm.
type OpenAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Anthropic emits every tool in the Anthropic dialect.
func (r *Registry) Anthropic() []AnthropicForm {
	specs := r.Specs()
	out := make([]AnthropicForm, len(specs))
	for i, s := range specs {
		out[i] = AnthropicForm(s)
	}
	return out
}

// OpenAI emits every tool in the OpenAI function dialect.
func (r *Registry) OpenAI() []OpenAIForm {
	specs := r.Specs()
	out := make([]OpenAIForm, len(specs))
	for i, s := range specs {
		out[i] = OpenAIForm{Type: "function", Function: OpenAIFunction{Name: s.Name, Description: s.Description, Parameters: s.InputSchema}}
	}
	return out
}

// UnknownToolResult is the result for a call to a tool that is neither
// listed nor deferred. It names the listed tools and, when tools are deferred
// and ToolSearch is listed, says how to find them.
func (r *Registry) UnknownToolResult(name string) Result {
	r.mu.RLock()
	_, search := r.byName[ToolSearchName]
	deferred := len(r.deferred)
	r.mu.RUnlock()
	msg := fmt.Sprintf("Unknown tool %q. Available tools: %s. Call one of those.", name, strings.Join(r.Names(), ", "))
	if search && deferred > 0 {
		msg += fmt.Sprintf(" %d more tools are deferred (not listed): find them with %s, by words or select:<exact name>.", deferred, ToolSearchName)
	}
	return Errorf("%s", msg)
}
