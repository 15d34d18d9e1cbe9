package wire

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// TestSnapshotDetectsEveryField requires snapshot.matches to notice a change
// of every field of llm.Block.
func TestSnapshotDetectsEveryField(t *testing.T) {
	llmtest.SnapshotDetectsEveryField(t, func(m *llm.Message) func(*llm.Message) bool {
		s := snapshotOf(m)
		return s.matches
	})
}

// textCodec encodes a message as its texts, each a JSON string element
// prefixed with the number of texts ending in "!" before it: an encoding
// depends on earlier messages, the way a Chat Completions one does. The key
// is that count at the message's start (in) and end (out).
type textCodec struct{ encoded *[]int }

type bangs struct{ in, out int }

func (textCodec) Key(i int, prev *Entry[bangs]) bangs {
	if prev == nil {
		return bangs{}
	}
	return bangs{in: prev.Key.out}
}

func (textCodec) SameKey(a, b bangs) bool { return a.in == b.in }

func (c textCodec) Encode(i int, m *llm.Message, k bangs) ([]byte, bangs, error) {
	*c.encoded = append(*c.encoded, i)
	var parts []string
	n := k.in
	for _, b := range m.Content {
		if b.Type == "bogus" {
			return nil, k, errors.New("bogus block")
		}
		if b.Text != "" {
			parts = append(parts, fmt.Sprintf("%q", fmt.Sprint(n, ":", b.Text)))
		}
		if strings.HasSuffix(b.Text, "!") {
			n++
		}
	}
	return []byte(strings.Join(parts, ",")), bangs{k.in, n}, nil
}

func text(s ...string) llm.Message {
	m := llm.Message{Role: llm.RoleUser}
	for _, x := range s {
		m.Content = append(m.Content, llm.Block{Type: llm.BlockText, Text: x})
	}
	return m
}

func TestCacheEncode(t *testing.T) {
	var c Cache[bangs]
	var encoded []int
	codec := textCodec{&encoded}
	msgs := []llm.Message{text("a"), text("b!"), text(), text("c", "d")}
	steps := []struct {
		name    string
		edit    func([]llm.Message) []llm.Message
		encoded []int // the messages Encode must encode, no others
		body    string
	}{
		{"first call", func(m []llm.Message) []llm.Message { return m }, []int{0, 1, 2, 3}, `["0:a","0:b!","1:c","1:d"]`},
		{"unchanged", func(m []llm.Message) []llm.Message { return m }, nil, `["0:a","0:b!","1:c","1:d"]`},
		{"appended", func(m []llm.Message) []llm.Message { return append(m, text("e")) }, []int{4}, `["0:a","0:b!","1:c","1:d","1:e"]`},
		{"edited in place", func(m []llm.Message) []llm.Message { m[3].Content[1].Text = "D"; return m }, []int{3}, `["0:a","0:b!","1:c","1:D","1:e"]`},
		// The key of every later message changes with message 1's text.
		{"key changed", func(m []llm.Message) []llm.Message { m[1].Content[0].Text = "b"; return m }, []int{1, 2, 3, 4}, `["0:a","0:b","0:c","0:D","0:e"]`},
		{"truncated", func(m []llm.Message) []llm.Message { return m[:2] }, nil, `["0:a","0:b"]`},
		// Entries beyond the last request are gone.
		{"grown again", func(m []llm.Message) []llm.Message { return m[:4] }, []int{2, 3}, `["0:a","0:b","0:c","0:D"]`},
		{"empty", func(m []llm.Message) []llm.Message { return nil }, nil, `[]`},
	}
	for _, s := range steps {
		msgs = s.edit(msgs)
		encoded = nil
		enc, err := c.Encode(msgs, codec)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if diff := cmp.Diff(s.encoded, encoded); diff != "" {
			t.Errorf("%s: encoded messages (-want +got):\n%s", s.name, diff)
		}
		fresh := make([]bool, len(msgs))
		for _, i := range s.encoded {
			fresh[i] = true
		}
		if diff := cmp.Diff(fresh, c.Fresh()); diff != "" {
			t.Errorf("%s: Fresh (-want +got):\n%s", s.name, diff)
		}
		body, ok := Splice([]byte(`[0]`), []byte("0"), enc.Size, enc.Parts(), 0)
		if !ok || string(body) != s.body {
			t.Errorf("%s: body %s (%v), want %s", s.name, body, ok, s.body)
		}
		if size := len(body) - 2; enc.Size < size {
			t.Errorf("%s: Size %d below the parts' %d", s.name, enc.Size, size)
		}
	}
}

// TestCacheEncodeError: a failed Encode publishes nothing, so the previous
// request's entries still serve.
func TestCacheEncodeError(t *testing.T) {
	var c Cache[bangs]
	var encoded []int
	msgs := []llm.Message{text("a"), text("b")}
	if _, err := c.Encode(msgs, textCodec{&encoded}); err != nil {
		t.Fatal(err)
	}
	bad := append(slices.Clone(msgs), llm.Message{Content: []llm.Block{{Type: "bogus"}}})
	if _, err := c.Encode(bad, textCodec{&encoded}); err == nil {
		t.Fatal("no error for a bogus block")
	}
	encoded = nil
	if _, err := c.Encode(msgs, textCodec{&encoded}); err != nil || len(encoded) != 0 {
		t.Errorf("after a failure: encoded %v, %v; want everything reused", encoded, err)
	}
}

// TestCacheConcurrent encodes different histories through one cache from
// several goroutines (run it with -race): each result is its own history's.
func TestCacheConcurrent(t *testing.T) {
	var c Cache[bangs]
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			var encoded []int
			var msgs []llm.Message
			for k := range 20 {
				msgs = append(msgs, text(fmt.Sprint(w, "-", k)))
				enc, err := c.Encode(msgs, textCodec{&encoded})
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := Splice([]byte("X"), []byte("X"), enc.Size, enc.Parts(), 0)
				if want := fmt.Sprintf("%q", fmt.Sprint("0:", w, "-", k)); !strings.HasSuffix(string(body), want) {
					t.Errorf("worker %d call %d: %s", w, k, body)
				}
			}
		})
	}
	wg.Wait()
}

func TestSplice(t *testing.T) {
	parts := func(p ...string) func(func([]byte) bool) {
		return func(yield func([]byte) bool) {
			for _, s := range p {
				if !yield([]byte(s)) {
					return
				}
			}
		}
	}
	tests := []struct {
		env   string
		parts []string
		extra int
		want  string
		ok    bool
	}{
		{`{"a":[M],"b":1}`, []string{"1", "", "2,3", ""}, 0, `{"a":[1,2,3],"b":1}`, true},
		{`{"a":[M]}`, nil, 0, `{"a":[]}`, true},
		{`{"a":[M]}`, []string{"", ""}, 5, `{"a":[]}`, true},
		{`{"a":[M],"b":"M"}`, []string{"1"}, 0, "", false},
		{`{"a":[]}`, []string{"1"}, 0, "", false},
	}
	for _, tt := range tests {
		size := 0
		for _, p := range tt.parts {
			size += len(p) + 1
		}
		got, ok := Splice([]byte(tt.env), []byte("M"), size, parts(tt.parts...), tt.extra)
		if string(got) != tt.want || ok != tt.ok {
			t.Errorf("Splice(%s, %q) = %s, %v; want %s, %v", tt.env, tt.parts, got, ok, tt.want, tt.ok)
		}
		if ok && cap(got)-len(got) < tt.extra {
			t.Errorf("Splice(%s): %d bytes of room left, want %d", tt.env, cap(got)-len(got), tt.extra)
		}
	}
}
