package wire

import (
	"encoding/json"
	"testing"
)

func TestObjectSchema(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{"", EmptySchema, false},
		{" \n", EmptySchema, false},
		{`{"type":"object","properties":{"b":{},"a":{}}}`, `{"type":"object","properties":{"b":{},"a":{}}}`, false},
		{`{"properties": {"a": {}}}`, `{"type":"object","properties": {"a": {}}}`, false},
		{" { \"required\":[] } ", `{"type":"object","required":[] } `, false},
		{`{}`, `{"type":"object"}`, false},
		{`{ }`, `{"type":"object"}`, false},
		{`[1]`, "", true},
		{`"str"`, "", true},
		{`{"type":`, "", true},
	}
	for _, tt := range tests {
		got, err := ObjectSchema(json.RawMessage(tt.in))
		if string(got) != tt.want || (err != nil) != tt.err {
			t.Errorf("ObjectSchema(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestIsJSONObject(t *testing.T) {
	for in, want := range map[string]bool{`{}`: true, ` {"a":1} `: true, `[]`: false, `{"a":`: false, ``: false, `null`: false, `"x"`: false} {
		if got := IsJSONObject([]byte(in)); got != want {
			t.Errorf("IsJSONObject(%q) = %v", in, got)
		}
	}
}
