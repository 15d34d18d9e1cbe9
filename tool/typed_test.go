package tool

import (
	"context"
	"encoding/json"
	"testing"
)

type nullInput struct {
	Name  string   `json:"name"`
	Count int      `json:"count,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

// TestTypedNullOptional checks that null for an optional property counts as
// absent, while null for a required one is still refused.
func TestTypedNullOptional(t *testing.T) {
	var got nullInput
	tl := New("T", "test", true, nil, func(_ context.Context, _ *Env, in nullInput) (Result, error) {
		got = in
		return Result{Content: "ok"}, nil
	})
	tests := []struct {
		input   string
		wantErr bool
		want    nullInput
	}{
		{`{"name":"a","count":null,"tags":null}`, false, nullInput{Name: "a"}},
		{`{"name":"a","count":2}`, false, nullInput{Name: "a", Count: 2}},
		{`{"name":null}`, true, nullInput{}},
		{`{"count":null}`, true, nullInput{}},
	}
	for _, tt := range tests {
		got = nullInput{}
		res, err := tl.Run(context.Background(), &Env{}, json.RawMessage(tt.input))
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError != tt.wantErr {
			t.Errorf("%s: IsError = %v (%s), want %v", tt.input, res.IsError, res.Content, tt.wantErr)
		}
		if !tt.wantErr && (got.Name != tt.want.Name || got.Count != tt.want.Count || len(got.Tags) != 0) {
			t.Errorf("%s: decoded %+v, want %+v", tt.input, got, tt.want)
		}
	}
}

// schemaTool offers a schema of its own, as an MCP server's tool does.
type schemaTool struct{ schema string }

func (r schemaTool) Name() string            { return "raw" }
func (r schemaTool) Description() string     { return "" }
func (r schemaTool) Schema() json.RawMessage { return json.RawMessage(r.schema) }
func (r schemaTool) ReadOnly() bool          { return true }
func (r schemaTool) Run(context.Context, *Env, json.RawMessage) (Result, error) {
	return Result{}, nil
}

// Validate accepts what Run would and refuses the rest, for typed tools
// and for tools that only offer a schema.
func TestValidate(t *testing.T) {
	typed := New("T", "test", true, nil, func(context.Context, *Env, nullInput) (Result, error) { return Result{}, nil })
	raw := schemaTool{`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`}
	for _, tc := range []struct {
		t     Tool
		input string
		ok    bool
	}{
		{typed, `{"name":"x"}`, true},
		{typed, `{"name":"x","count":null}`, true},
		{typed, `{"count":2}`, false},
		{typed, `{"name":"x","extra":1}`, false},
		{typed, `{"name":3}`, false},
		{typed, `[1]`, false},
		{raw, `{"q":"go"}`, true},
		{raw, `{"q":1}`, false},
		{raw, `{}`, false},
		{raw, `"q"`, false},
		{schemaTool{`not a schema`}, `{"anything":true}`, true},
		{schemaTool{`not a schema`}, `[]`, false},
	} {
		if err := Validate(tc.t, json.RawMessage(tc.input)); (err == nil) != tc.ok {
			t.Errorf("%s %s: %v, want ok %v", tc.t.Name(), tc.input, err, tc.ok)
		}
	}
}
