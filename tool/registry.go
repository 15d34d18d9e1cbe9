package tool

import (
	"encoding/json"

	"slices"

	"github.com/novacode/nova/llm"
)

// Registry is an ordered set of tools. Order is stable so the tools array in
// every request is byte-identical (it sits under a prompt-cache breakpoint).
type Registry struct {
	tools    []Tool
	byName   map[string]Tool
	deferred deferredSet // deferred_shim: toolsearch's registry replaces it
}

// NewRegistry returns a registry holding tools, in order.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{byName: map[string]Tool{}}
	for _, t := range tools {
		r.Register(t)
	}
	return r
}

// Register adds t; a second tool with the same name replaces the first in place.
func (r *Registry) Register(t Tool) {
	if old, ok := r.byName[t.Name()]; ok {
		i := slices.Index(r.tools, old)
		r.tools[i] = t
	} else {
		r.tools = append(r.tools, t)
	}
	r.byName[t.Name()] = t
}

// Remove drops the named tools (for --disallowedTools).
func (r *Registry) Remove(names ...string) {
	for _, n := range names {
		if t, ok := r.byName[n]; ok {
			delete(r.byName, n)
			r.tools = slices.DeleteFunc(r.tools, func(x Tool) bool { return x == t })
		}
	}
}

// Get returns the named tool.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.byName[name]
	if !ok {
		t, ok = r.deferred.get(name) // deferred_shim
	}
	return t, ok
}

// Names lists tool names in order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.tools))
	for i, t := range r.tools {
		out[i] = t.Name()
	}
	return out
}

// Specs describes every tool for a model request.
func (r *Registry) Specs() []llm.ToolSpec {
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
	out := make([]AnthropicForm, len(r.tools))
	for i, s := range r.Specs() {
		out[i] = AnthropicForm(s)
	}
	return out
}

// OpenAI emits every tool in the OpenAI function dialect.
func (r *Registry) OpenAI() []OpenAIForm {
	out := make([]OpenAIForm, len(r.tools))
	for i, s := range r.Specs() {
		out[i] = OpenAIForm{Type: "function", Function: OpenAIFunction{Name: s.Name, Description: s.Description, Parameters: s.InputSchema}}
	}
	return out
}

// UnknownToolResult is the result for a call to a tool that does not exist.
func (r *Registry) UnknownToolResult(name string) Result {
	return Errorf("Unknown tool %q. Available tools: %v. Call one of those.", name, r.Names())
}
