package event

import _ "embed"

// Schema is the JSON Schema (draft 2020-12) of every encoded event.
//
//go:embed event.schema.json
var Schema []byte
