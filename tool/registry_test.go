package tool

import (
	"context"
	"encoding/json"
	"strings"
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
