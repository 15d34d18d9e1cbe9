// Package eventtest checks encoded events against the published JSON Schema
// (event.schema.json), for the tests of every producer and consumer.
package eventtest

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/novacode/nova/event"
)

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(event.Schema))
	if err != nil {
		return nil, fmt.Errorf("parse event schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("event.schema.json", doc); err != nil {
		return nil, fmt.Errorf("load event schema: %w", err)
	}
	return c.Compile("event.schema.json")
})

// ValidateJSON reports whether one encoded event matches the schema.
func ValidateJSON(b []byte) error {
	s, err := compiled()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("event is not JSON: %w", err)
	}
	return s.Validate(v)
}

// Validate encodes e and checks it against the schema.
func Validate(e event.Event) error {
	b, err := event.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode %s: %w", e.Type(), err)
	}
	if err := ValidateJSON(b); err != nil {
		return fmt.Errorf("%s does not match event.schema.json: %w\n%s", e.Type(), err, b)
	}
	return nil
}
