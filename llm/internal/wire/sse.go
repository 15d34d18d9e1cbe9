package wire

import (
	"bufio"
	"bytes"
	"io"
)

// Event is one server-sent event: its type (the "event:" field, "" when
// there was none) and its data, the "data:" lines each followed by a
// newline.
type Event struct {
	Type string
	Data []byte
}

// maxSSELine bounds one line of an event stream (a data line carries a whole
// JSON event; a final response can hold the complete answer).
const maxSSELine = 32 << 20

// SSE reads a text/event-stream body event by event, as the WHATWG rules
// have it for the fields these APIs use: "event" and "data" fields, comments
// (lines starting with ':'), an event dispatched by an empty line, one space
// after the colon dropped. Other fields ("id", "retry") are ignored, and so
// is an event the body ends in without its empty line: a stream cut there is
// incomplete anyway.
type SSE struct {
	scn *bufio.Scanner
	cur Event
	err error
	// typ is the latest event type seen: consecutive events mostly share
	// their type, which then costs no allocation.
	typ string
}

// NewSSE returns a reader of the event stream r.
func NewSSE(r io.Reader) *SSE {
	scn := bufio.NewScanner(r)
	scn.Buffer(nil, maxSSELine)
	return &SSE{scn: scn}
}

// Next reads the next event; false means the body ended or failed (Err).
func (s *SSE) Next() bool {
	if s.err != nil {
		return false
	}
	// The data buffer is reused: Current's Data is valid until the next
	// call, which saves an allocation per event.
	s.cur.Type, s.cur.Data = "", s.cur.Data[:0]
	for s.scn.Scan() {
		line := s.scn.Bytes()
		if len(line) == 0 {
			if len(s.cur.Data) == 0 {
				// An event without data is not dispatched.
				s.cur.Type = ""
				continue
			}
			return true
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(name) {
		case "": // a comment
		case "event":
			if string(value) != s.typ {
				s.typ = string(value)
			}
			s.cur.Type = s.typ
		case "data":
			s.cur.Data = append(s.cur.Data, value...)
			s.cur.Data = append(s.cur.Data, '\n')
		}
	}
	s.err = s.scn.Err()
	return false
}

// Current is the event Next read. Its Data is only valid until the next
// call of Next.
func (s *SSE) Current() Event { return s.cur }

// Err is the error that ended reading, nil at a clean end of the body.
func (s *SSE) Err() error { return s.err }
