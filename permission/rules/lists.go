package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Lists is the permissions object of one settings file.
type Lists struct {
	Allow, Ask, Deny      []Rule
	AdditionalDirectories []string
	// DefaultMode is the mode name as written; validating it is the
	// caller's business.
	DefaultMode string
}

// ParseJSONLists reads the "permissions" object at the top level of a
// settings file:
//
//	{"permissions": {"allow": [...], "ask": [...], "deny": [...],
//	                 "additionalDirectories": [...], "defaultMode": "..."}}
//
// Each rule carries the line and column (1-based, in bytes) of its string in
// the file. A malformed rule, or a value of the wrong type, is reported as a
// ParseError and skipped; everything else still loads, so one typo does not
// drop a whole deny list. A file that is not a JSON object returns only an
// error and no rules. Other keys are ignored; a key given twice adds up.
func ParseJSONLists(file string, data []byte) (Lists, []ParseError, error) {
	lines := newLineIndex(data)
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lines.pos(int(se.Offset) - 1)
			return Lists{}, nil, fmt.Errorf("%s:%d:%d: settings are not valid JSON: %w", file, line, col, err)
		}
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return Lists{}, nil, fmt.Errorf("%s: settings are not valid JSON: %w", file, err)
	}
	w := &walker{file: file, data: data, lines: lines, dec: json.NewDecoder(bytes.NewReader(data))}
	w.dec.UseNumber()
	var l Lists
	if err := w.top(&l); err != nil {
		return Lists{}, nil, fmt.Errorf("%s: read settings: %w", file, err)
	}
	return l, w.errs, nil
}

// walker reads a settings file token by token, so that every string's
// offset in the file is known.
type walker struct {
	file  string
	data  []byte
	lines lineIndex
	dec   *json.Decoder
	errs  []ParseError
}

// next returns the next token and the offset where it starts. InputOffset
// points just past the previous token; separators and blanks come before
// the next one.
func (w *walker) next() (json.Token, int, error) {
	off := int(w.dec.InputOffset())
	for off < len(w.data) && strings.IndexByte(" \t\r\n,:", w.data[off]) >= 0 {
		off++
	}
	tok, err := w.dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return tok, off, err
}

func (w *walker) source(off int) Source {
	line, col := w.lines.pos(off)
	return Source{File: w.file, Line: line, Col: col}
}

func (w *walker) report(off int, rule string, err error) {
	w.errs = append(w.errs, ParseError{Source: w.source(off), Rule: rule, Err: err})
}

func (w *walker) top(l *Lists) error {
	tok, _, err := w.next()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return fmt.Errorf("the top level is %s, want an object", describe(tok))
	}
	return w.object(func(key string) error {
		if key != "permissions" {
			return w.skip()
		}
		return w.permissions(l)
	})
}

// object calls field for each key of the object whose `{` was just read;
// field must consume the value.
func (w *walker) object(field func(key string) error) error {
	for {
		tok, _, err := w.next()
		if err != nil {
			return err
		}
		if tok == json.Delim('}') {
			return nil
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("object key is %s", describe(tok))
		}
		if err := field(key); err != nil {
			return err
		}
	}
}

func (w *walker) permissions(l *Lists) error {
	tok, off, err := w.next()
	if err != nil {
		return err
	}
	switch tok {
	case nil:
		return nil
	case json.Delim('{'):
	default:
		w.report(off, "", fmt.Errorf("permissions is %s, want an object such as {\"allow\": [\"Bash(git status)\"]}", describe(tok)))
		return w.skipRest(tok)
	}
	return w.object(func(key string) error {
		switch key {
		case "allow":
			return w.ruleList("permissions.allow", &l.Allow)
		case "ask":
			return w.ruleList("permissions.ask", &l.Ask)
		case "deny":
			return w.ruleList("permissions.deny", &l.Deny)
		case "additionalDirectories":
			return w.stringList("permissions.additionalDirectories", func(s string, _ int) {
				l.AdditionalDirectories = append(l.AdditionalDirectories, s)
			})
		case "defaultMode":
			tok, off, err := w.next()
			if err != nil {
				return err
			}
			switch s := tok.(type) {
			case string:
				l.DefaultMode = s
			case nil:
			default:
				w.report(off, "", fmt.Errorf("permissions.defaultMode is %s, want a string such as \"default\"", describe(tok)))
				return w.skipRest(tok)
			}
			return nil
		}
		return w.skip()
	})
}

func (w *walker) ruleList(name string, dst *[]Rule) error {
	return w.stringList(name, func(s string, off int) {
		r, err := parse(s)
		if err != nil {
			w.report(off, s, err)
			return
		}
		r.Source = w.source(off)
		*dst = append(*dst, r)
	})
}

// stringList reads an array of strings, calling add with each string and
// its offset; other values are reported and skipped.
func (w *walker) stringList(name string, add func(s string, off int)) error {
	tok, off, err := w.next()
	if err != nil {
		return err
	}
	switch tok {
	case nil:
		return nil
	case json.Delim('['):
	default:
		w.report(off, "", fmt.Errorf("%s is %s, want an array of strings", name, describe(tok)))
		return w.skipRest(tok)
	}
	for i := 0; ; i++ {
		tok, off, err := w.next()
		if err != nil {
			return err
		}
		if tok == json.Delim(']') {
			return nil
		}
		if s, ok := tok.(string); ok {
			add(s, off)
			continue
		}
		w.report(off, "", fmt.Errorf("%s[%d] is %s, want a string", name, i, describe(tok)))
		if err := w.skipRest(tok); err != nil {
			return err
		}
	}
}

// skip consumes one whole value.
func (w *walker) skip() error {
	tok, _, err := w.next()
	if err != nil {
		return err
	}
	return w.skipRest(tok)
}

// skipRest consumes the rest of a value whose first token was tok.
func (w *walker) skipRest(tok json.Token) error {
	if tok != json.Delim('{') && tok != json.Delim('[') {
		return nil
	}
	for depth := 1; depth > 0; {
		tok, _, err := w.next()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return fmt.Sprintf("the string %q", v)
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		if v == '[' {
			return "an array"
		}
	}
	return fmt.Sprintf("%v", tok)
}

// lineIndex maps byte offsets to 1-based line and byte column.
type lineIndex []int // offsets where lines start

func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (l lineIndex) pos(off int) (line, col int) {
	if off < 0 {
		off = 0
	}
	i := sort.Search(len(l), func(i int) bool { return l[i] > off }) - 1
	return i + 1, off - l[i] + 1
}
