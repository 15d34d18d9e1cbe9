package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// EmptySchema is the input schema of a tool without parameters.
const EmptySchema = `{"type":"object","properties":{}}`

// ObjectSchema returns a tool's JSON Schema as the protocols want it: an
// object schema with "type": "object" at the top, which a schema that leaves
// it implicit gets prepended, the rest untouched. The bytes are the caller's
// otherwise (no decoding and re-encoding, which would reorder keys): a tool
// list whose bytes change between calls defeats prompt caching. An empty
// schema is a tool without parameters.
func ObjectSchema(schema json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return json.RawMessage(EmptySchema), nil
	}
	if !IsJSONObject(schema) {
		return nil, errors.New("input schema is not a JSON object")
	}
	var top struct {
		Type json.RawMessage `json:"type"`
	}
	if err := json.Unmarshal(schema, &top); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if top.Type != nil {
		return schema, nil
	}
	rest := bytes.TrimLeft(bytes.TrimLeft(schema, " \t\r\n")[1:], " \t\r\n")
	fixed := make([]byte, 0, len(rest)+17)
	fixed = append(fixed, `{"type":"object"`...)
	if rest[0] != '}' {
		fixed = append(fixed, ',')
	}
	return append(fixed, rest...), nil
}

// IsJSONObject reports whether b is valid JSON whose value is an object.
func IsJSONObject(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && json.Valid(b)
}
