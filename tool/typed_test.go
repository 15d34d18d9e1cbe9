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
