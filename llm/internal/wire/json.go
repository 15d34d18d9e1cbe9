package wire

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/novacode/nova/llm"
)

// Lenient field types for decoding provider events. Providers and the
// servers imitating them disagree on the types of minor fields; a field of
// an unexpected type must not fail a whole stream, so these accept any JSON
// and make the best of it. (Invalid JSON still fails the event.)

// Text is a string field: null reads as "", and a number, object or array as
// its raw JSON (some servers send tool arguments as an object, not a
// string).
type Text string

func (t *Text) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		// The usual string without escapes needs no decoding (the event was
		// validated as a whole before fields are decoded).
		if bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b) {
			*t = Text(b[1 : len(b)-1])
			return nil
		}
		var s string
		err := json.Unmarshal(b, &s)
		*t = Text(s)
		return err
	case string(b) == "null":
		*t = ""
	default:
		*t = Text(b)
	}
	return nil
}

// Count is a token count. Some servers send counts as floats (12.0) or as
// strings ("12"); anything that is not a number reads as 0 rather than
// failing the stream over an accounting field.
type Count int64

func (c *Count) UnmarshalJSON(b []byte) error {
	if len(b) > 1 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f < 0 || math.IsNaN(f) || f > math.MaxInt64/2 {
		*c = 0
		return nil
	}
	*c = Count(f)
	return nil
}

// Raw keeps a field's raw JSON, with null and absence both empty.
type Raw []byte

func (r *Raw) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = nil
		return nil
	}
	*r = append((*r)[:0], b...)
	return nil
}

// Present reports whether a field says anything: null, false, "" and empty
// containers, which some servers send in the place of an absent field, do
// not.
func (r Raw) Present() bool {
	switch string(bytes.TrimSpace(r)) {
	case "", "null", "false", `""`, "{}", "[]":
		return false
	}
	return true
}

// AppendJSON appends the encoding of v to dst, without the newline
// json.Encoder ends it with. It does not escape <, > and &: prompts are full
// of them, and escaping would only inflate the body. A failure is an
// llm.ErrInvalid: the request cannot be sent.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, &llm.Error{Kind: llm.ErrInvalid, Message: "encoding request: " + err.Error(), Err: err}
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// AppendElements appends vs to dst as the elements of a JSON array,
// comma-separated, each exactly as AppendJSON writes it inside a []T: the
// encoding of a message's part of an array, for Cache.
func AppendElements[T any](dst []byte, vs []T) ([]byte, error) {
	for i := range vs {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = AppendJSON(dst, &vs[i]); err != nil {
			return nil, err
		}
	}
	return dst, nil
}
