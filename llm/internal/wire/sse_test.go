package wire

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func TestSSE(t *testing.T) {
	type ev struct{ Type, Data string }
	tests := []struct {
		name string
		body string
		want []ev
	}{
		{"one event", "event: a\ndata: {}\n\n", []ev{{"a", "{}\n"}}},
		{"no type", "data: x\n\n", []ev{{"", "x\n"}}},
		{"several data lines", "data: a\ndata:b\ndata\n\n", []ev{{"", "a\nb\n\n"}}},
		{"one space dropped", "data:  two\n\n", []ev{{"", " two\n"}}},
		{"CRLF", "event: a\r\ndata: x\r\n\r\n", []ev{{"a", "x\n"}}},
		{"comments and other fields", ": ping\nid: 7\nretry: 10\ndata: x\n\n", []ev{{"", "x\n"}}},
		// A type without data is no event, and is forgotten.
		{"type without data", "event: a\n\ndata: x\n\n", []ev{{"", "x\n"}}},
		{"types do not carry over", "event: a\ndata: 1\n\ndata: 2\n\nevent: a\ndata: 3\n\n", []ev{{"a", "1\n"}, {"", "2\n"}, {"a", "3\n"}}},
		{"blank lines between events", "\n\n\ndata: 1\n\n\n\ndata: 2\n\n", []ev{{"", "1\n"}, {"", "2\n"}}},
		{"unterminated last event", "data: 1\n\ndata: 2\n", []ev{{"", "1\n"}}},
		{"empty", "", nil},
		{"long line", "data: " + strings.Repeat("x", 100_000) + "\n\n", []ev{{"", strings.Repeat("x", 100_000) + "\n"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time: the framing must not depend on reads.
			var r io.Reader = strings.NewReader(tt.body)
			if len(tt.body) < 1000 {
				r = iotest.OneByteReader(r)
			}
			s := NewSSE(r)
			var got []ev
			for s.Next() {
				got = append(got, ev{s.Current().Type, string(s.Current().Data)})
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSSEError(t *testing.T) {
	broken := errors.New("connection reset")
	s := NewSSE(io.MultiReader(strings.NewReader("data: 1\n\ndata: 2"), iotest.ErrReader(broken)))
	n := 0
	for s.Next() {
		n++
	}
	if n != 1 || !errors.Is(s.Err(), broken) {
		t.Errorf("%d events, error %v; want 1 and the read error", n, s.Err())
	}
	if s.Next() {
		t.Error("Next after the error")
	}
}
