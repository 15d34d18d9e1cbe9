package tool

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

type readIn struct {
	FilePath string `json:"file_path" jsonschema:"Absolute or workspace-relative path"`
	Offset   int    `json:"offset,omitempty" jsonschema:"1-based line to start at"`
	Mode     string `json:"mode,omitempty"`
}

func sample() *Registry {
	noop := func(context.Context, *Env, readIn) (Result, error) { return Result{Content: "ok"}, nil }
	return NewRegistry(
		New("Read", "Reads a file.", true, map[string][]any{"mode": {"text", "hex"}}, noop),
		New("Write", "Writes a file.", false, nil, noop),
	)
}

func TestSchemaGeneratedFromStruct(t *testing.T) {
	r := sample()
	tl, _ := r.Get("Read")
	var s struct {
		Type       string                    `json:"type"`
		Required   []string                  `json:"required"`
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(tl.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Type != "object" || !cmp.Equal(s.Required, []string{"file_path"}) {
		t.Fatalf("schema = %s", tl.Schema())
	}
	if s.Properties["file_path"]["description"] != "Absolute or workspace-relative path" {
		t.Errorf("description missing: %v", s.Properties["file_path"])
	}
	if !cmp.Equal(s.Properties["mode"]["enum"], []any{"text", "hex"}) {
		t.Errorf("enum missing: %v", s.Properties["mode"])
	}
	if s.Properties["offset"]["type"] != "integer" {
		t.Errorf("offset type: %v", s.Properties["offset"])
	}
}

func TestBothDialectsFromOneDefinition(t *testing.T) {
	r := sample()
	a, _ := json.Marshal(r.Anthropic())
	o, _ := json.Marshal(r.OpenAI())
	var an []map[string]json.RawMessage
	var op []struct {
		Type     string                     `json:"type"`
		Function map[string]json.RawMessage `json:"function"`
	}
	if err := json.Unmarshal(a, &an); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(o, &op); err != nil {
		t.Fatal(err)
	}
	if len(an) != 2 || len(op) != 2 {
		t.Fatalf("dialects have %d and %d tools", len(an), len(op))
	}
	for i := range an {
		if op[i].Type != "function" {
			t.Errorf("openai tool %d type %q", i, op[i].Type)
		}
		if !cmp.Equal(an[i]["input_schema"], op[i].Function["parameters"]) || !cmp.Equal(an[i]["name"], op[i].Function["name"]) {
			t.Errorf("tool %d differs between dialects:\n%s\n%s", i, a, o)
		}
	}
	if got := r.Names(); !cmp.Equal(got, []string{"Read", "Write"}) {
		t.Errorf("order = %v", got)
	}
	r.Remove("Read")
	if got := r.Names(); !cmp.Equal(got, []string{"Write"}) {
		t.Errorf("after remove = %v", got)
	}
}

func TestValidationErrorsAreResults(t *testing.T) {
	tl, _ := sample().Get("Read")
	for _, in := range []string{`{}`, `{"file_path": 3}`, `{"file_path":"a","mode":"binary"}`, `not json`, `[1]`} {
		res, err := tl.Run(context.Background(), &Env{}, json.RawMessage(in))
		if err != nil || !res.IsError || !strings.Contains(res.Content, "Invalid input for Read") {
			t.Errorf("%s: %+v, %v", in, res, err)
		}
	}
}

func TestTruncate(t *testing.T) {
	s := strings.Repeat("a", 5000) + strings.Repeat("é", 5000) + strings.Repeat("z", 5000)
	got := Truncate(s, 1000)
	if len(got) > 1000 || !strings.HasPrefix(got, "aaa") || !strings.HasSuffix(got, "zzz") || !strings.Contains(got, "characters truncated") {
		t.Fatalf("len %d: %.80q…%.80q", len(got), got, got[len(got)-80:])
	}
	if !utf8.ValidString(got) {
		t.Fatal("cut inside a rune")
	}
	if Truncate("short", 1000) != "short" {
		t.Fatal("short string changed")
	}
}

// The fallback answers only for names the registry does not hold, never
// changes Specs, and may be set while others read the registry.
func TestRegistryFallback(t *testing.T) {
	r := sample()
	noop := func(context.Context, *Env, readIn) (Result, error) { return Result{Content: "late"}, nil }
	late := New("mcp__srv__late", "A tool of a server still starting.", false, nil, noop)
	specs, _ := json.Marshal(r.Specs())
	if _, ok := r.Get("mcp__srv__late"); ok {
		t.Fatal("found without a fallback")
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				r.Get("mcp__srv__late")
				r.Get("Read")
			}
		})
	}
	var asked []string
	var mu sync.Mutex
	r.SetFallback(func(name string) (Tool, bool) {
		mu.Lock()
		asked = append(asked, name)
		mu.Unlock()
		if strings.HasPrefix(name, "mcp__srv__") {
			_, listed := r.Get("Read") // the fallback may use the registry
			return late, listed
		}
		return nil, false
	})
	wg.Wait()
	r.SetFallback(nil)
	r.SetFallback(func(name string) (Tool, bool) {
		mu.Lock()
		asked = append(asked, name)
		mu.Unlock()
		if strings.HasPrefix(name, "mcp__srv__") {
			return late, true
		}
		return nil, false
	})
	asked = nil
	if got, ok := r.Get("mcp__srv__late"); !ok || got != late {
		t.Errorf("Get = %v, %v", got, ok)
	}
	if _, ok := r.Get("mcp__other__x"); ok {
		t.Error("the fallback's no was not kept")
	}
	if got, ok := r.Get("Read"); !ok || got.Name() != "Read" {
		t.Errorf("Read = %v, %v", got, ok)
	}
	r.Defer(New("Deferred", "d", true, nil, noop))
	if _, ok := r.Get("Deferred"); !ok {
		t.Error("a deferred tool is not found first")
	}
	if !cmp.Equal(asked, []string{"mcp__srv__late", "mcp__other__x"}) {
		t.Errorf("the fallback was asked about %v", asked)
	}
	if after, _ := json.Marshal(r.Specs()); string(after) != string(specs) {
		t.Errorf("Specs changed:\n%s\n%s", specs, after)
	}
	if len(r.Deferred()) != 1 {
		t.Errorf("deferred = %v", r.Deferred())
	}
}
