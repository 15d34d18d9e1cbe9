package openaichat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
)

// testBaseURL returns the endpoint of the test clients for seed: OpenAI's
// (its own dialect) for even seeds, a compatible server for odd ones.
func testBaseURL(seed uint64) string {
	if seed%2 == 0 {
		return ""
	}
	return "http://127.0.0.1:1/v1"
}

// decorated returns the index of the message whose encoding depends on its
// position, or -1: a chat message depends on the one before it (which the
// edits exercise), never on its position.
func decorated(msgs []llm.Message) int {
	return -1
}

// cacheHarness sends every request through a caching Client and through one
// with the cache disabled, which encodes every message on every call, and
// requires identical bodies.
type cacheHarness struct {
	cachedCT, plainCT captureTransport
	cached, plain     *Client
}

func newCacheHarness(baseURL string) *cacheHarness {
	h := &cacheHarness{}
	h.cached = captureClient(&h.cachedCT, baseURL)
	h.plain = captureClient(&h.plainCT, baseURL)
	h.plain.cache = nil
	return h
}

// check sends req with msgs through both clients and compares the bodies
// byte for byte. It returns the cache's entries after the call.
func (h *cacheHarness) check(t *testing.T, step string, req *llm.Request, msgs []llm.Message) []cachedMessage {
	t.Helper()
	r := *req
	r.Messages = msgs
	got := send(t, h.cached, &h.cachedCT, &r)
	want := send(t, h.plain, &h.plainCT, &r)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: cached body differs from the uncached one %s", step, firstDiff(got, want))
	}
	return h.cached.cache.load()
}

// firstDiff describes where a and b first differ.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-60)
	return fmt.Sprintf("at byte %d (lengths %d, %d):\n  cached:   %q\n  uncached: %q", i, len(a), len(b), a[lo:min(len(a), i+60)], b[lo:min(len(b), i+60)])
}

// reused reports whether message i's entry in cur is the one of prev: each
// encoding gets its own snapshot, so a carried-over entry shares its blocks.
// Holding prev keeps its memory from being reused for a new snapshot.
func reused(prev, cur []cachedMessage, i int) bool {
	if i >= len(prev) || i >= len(cur) || len(prev[i].snap.blocks) == 0 || len(cur[i].snap.blocks) == 0 {
		return false
	}
	return &prev[i].snap.blocks[0] == &cur[i].snap.blocks[0]
}

// expectReused fails for every message before n, but those in skip, whose
// encoding was not carried over.
func expectReused(t *testing.T, step string, msgs []llm.Message, prev, cur []cachedMessage, n int, skip ...int) {
	t.Helper()
	for i := range n {
		if !slices.Contains(skip, i) && len(msgs[i].Content) > 0 && !reused(prev, cur, i) {
			t.Errorf("%s: message %d was encoded again though unchanged", step, i)
		}
	}
}

// edits change one message of a history in place, the way an embedder
// editing history might: from index from on, the first message they apply
// to. They return its index, or -1.
var edits = []struct {
	name string
	edit func(msgs []llm.Message, from int) int
}{
	{"text replaced", func(msgs []llm.Message, from int) int {
		return findBlock(msgs, from, func(b *llm.Block) bool {
			if b.Type == llm.BlockText && b.Text != "" {
				b.Text += "!"
				return true
			}
			return false
		})
	}},
	{"tool result replaced", func(msgs []llm.Message, from int) int {
		return findBlock(msgs, from, func(b *llm.Block) bool {
			if b.Type == llm.BlockToolResult {
				b.Content = "edited " + b.Content
				return true
			}
			return false
		})
	}},
	{"input rewritten in place", func(msgs []llm.Message, from int) int {
		return findBlock(msgs, from, func(b *llm.Block) bool {
			if b.Type == llm.BlockToolUse && len(b.Input) > 2 {
				// Same backing array, same length: only the bytes say it
				// changed.
				b.Input[len(b.Input)/2] ^= 1
				return true
			}
			return false
		})
	}},
	{"error flag flipped", func(msgs []llm.Message, from int) int {
		return findBlock(msgs, from, func(b *llm.Block) bool {
			if b.Type == llm.BlockToolResult {
				b.IsError = !b.IsError
				return true
			}
			return false
		})
	}},
	{"last block dropped in place", func(msgs []llm.Message, from int) int {
		for i := from; i < len(msgs); i++ {
			if n := len(msgs[i].Content); n > 1 && msgs[i].Content[n-1].Type != llm.BlockToolUse {
				msgs[i].Content = msgs[i].Content[:n-1]
				return i
			}
		}
		return -1
	}},
	{"block appended", func(msgs []llm.Message, from int) int {
		if from >= len(msgs) {
			return -1
		}
		msgs[from].Content = append(msgs[from].Content, llm.Block{Type: llm.BlockText, Text: "appended"})
		return from
	}},
	{"role changed", func(msgs []llm.Message, from int) int {
		for i := from; i < len(msgs); i++ {
			if onlyText(msgs[i].Content) {
				if msgs[i].Role == llm.RoleUser {
					msgs[i].Role = llm.RoleAssistant
				} else {
					msgs[i].Role = llm.RoleUser
				}
				return i
			}
		}
		return -1
	}},
}

func findBlock(msgs []llm.Message, from int, edit func(*llm.Block) bool) int {
	for i := from; i < len(msgs); i++ {
		for j := range msgs[i].Content {
			if edit(&msgs[i].Content[j]) {
				return i
			}
		}
	}
	return -1
}

func onlyText(blocks []llm.Block) bool {
	for _, b := range blocks {
		if b.Type != llm.BlockText {
			return false
		}
	}
	return len(blocks) > 0
}

// TestEncodingCacheMatchesUncached drives long random histories through
// turns, in-place edits of earlier messages, reordering, truncation and
// changes of the other settings, and requires the cached encoder to produce
// exactly the uncached body every time, to reuse every unchanged message and
// to encode every edited one again.
func TestEncodingCacheMatchesUncached(t *testing.T) {
	for seed := range uint64(16) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newHistoryGen(seed)
			msgs := g.history(120)
			req := g.request(nil)
			h := newCacheHarness(testBaseURL(seed))

			var prev []cachedMessage
			for k := 0; k <= len(msgs); k += 2 {
				step := fmt.Sprintf("turn with %d messages", k)
				cur := h.check(t, step, req, msgs[:k])
				if k > 0 {
					expectReused(t, step, msgs, prev, cur, k-2, decorated(msgs[:k-2]), decorated(msgs[:k]))
				}
				prev = cur
			}

			for n, e := range edits {
				before := decorated(msgs)
				j := e.edit(msgs, 5+13*n)
				if j < 0 {
					continue
				}
				step := fmt.Sprintf("%s (message %d)", e.name, j)
				cur := h.check(t, step, req, msgs)
				if reused(prev, cur, j) {
					t.Errorf("%s: the stale encoding was reused", step)
				}
				expectReused(t, step, msgs, prev, cur, j, before, decorated(msgs))
				prev = cur
			}

			// The same messages at other positions.
			msgs[20], msgs[31] = msgs[31], msgs[20]
			h.check(t, "messages 20 and 31 swapped", req, msgs)
			msgs[20], msgs[31] = msgs[31], msgs[20]
			h.check(t, "swapped back", req, msgs)
			h.check(t, "history cut to 41 messages", req, msgs[:41])
			h.check(t, "whole history again", req, msgs)
			h.check(t, "no messages", req, nil)
			for i := range 3 {
				h.check(t, fmt.Sprintf("other settings %d", i), g.request(nil), msgs)
			}
		})
	}
}

// TestEncodingCacheRecordedRequests compares the cached and uncached bodies
// of every recorded request and of fullRequest, sent twice (the second time
// entirely from the cache).
func TestEncodingCacheRecordedRequests(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixtureDir, "*.request.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded requests: %v", err)
	}
	reqs := map[string]*llm.Request{"fullRequest": fullRequest()}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		reqs[filepath.Base(f)] = requestFromRecording(t, body)
	}
	for name, req := range reqs {
		t.Run(name, func(t *testing.T) {
			h := newCacheHarness(testBaseURL(0))
			h.check(t, "first call", req, req.Messages)
			h.check(t, "second call", req, req.Messages)
		})
	}
}

// TestEncodingCacheErrors checks that an invalid message fails the call as
// it does without the cache, and leaves nothing behind that a corrected
// history could pick up.
func TestEncodingCacheErrors(t *testing.T) {
	g := newHistoryGen(99)
	msgs := g.history(30)
	req := g.request(nil)
	h := newCacheHarness(testBaseURL(0))
	h.check(t, "valid history", req, msgs)

	for _, bad := range []struct {
		name  string
		spoil func(m *llm.Message) (restore func())
	}{
		{"unsupported block", func(m *llm.Message) func() {
			m.Content = append(m.Content, llm.Block{Type: "bogus"})
			return func() { m.Content = m.Content[:len(m.Content)-1] }
		}},
		{"unknown role", func(m *llm.Message) func() {
			role := m.Role
			m.Role = "system"
			return func() { m.Role = role }
		}},
	} {
		t.Run(bad.name, func(t *testing.T) {
			restore := bad.spoil(&msgs[7])
			r := *req
			r.Messages = msgs
			errOf := func(c *Client) error {
				for _, err := range c.Stream(context.Background(), &r) {
					if err != nil {
						return err
					}
				}
				return nil
			}
			gotErr, wantErr := errOf(h.cached), errOf(h.plain)
			var llmErr *llm.Error
			if !errors.As(gotErr, &llmErr) || llmErr.Kind != llm.ErrInvalid {
				t.Errorf("cached: got %v, want an llm.ErrInvalid", gotErr)
			}
			if diff := cmp.Diff(fmt.Sprint(wantErr), fmt.Sprint(gotErr)); diff != "" {
				t.Errorf("cached error differs from the uncached one (-uncached +cached):\n%s", diff)
			}
			restore()
			h.check(t, "repaired history", req, msgs)
		})
	}
}

// TestEncodingCacheConcurrent sends different histories through one Client
// from several goroutines (run it with -race): each body must be its own
// request's, whatever the others did to the cache meanwhile.
func TestEncodingCacheConcurrent(t *testing.T) {
	const workers, calls = 4, 12
	ct := &captureTransport{}
	c := captureClient(ct, testBaseURL(0))
	plainCT := &captureTransport{}
	plain := captureClient(plainCT, testBaseURL(0))
	plain.cache = nil

	// Each worker grows its own history; the first two share a prefix.
	var wg sync.WaitGroup
	for w := range workers {
		g := newHistoryGen(uint64(100 + max(w, 1)))
		msgs := g.history(2 * calls)
		req := g.request(nil)
		wg.Go(func() {
			for k := range calls {
				key := bodyKey(w*calls + k + 1)
				r := *req
				r.Messages = msgs[:2*k+1]
				ctx := context.WithValue(context.Background(), bodyKey(0), key)
				for _, err := range c.Stream(ctx, &r) {
					if err != nil {
						t.Errorf("worker %d call %d: %v", w, k, err)
						return
					}
				}
				for _, err := range plain.Stream(ctx, &r) {
					if err != nil {
						t.Errorf("worker %d call %d, uncached: %v", w, k, err)
						return
					}
				}
				ct.mu.Lock()
				got := ct.byKey[key]
				ct.mu.Unlock()
				plainCT.mu.Lock()
				want := plainCT.byKey[key]
				plainCT.mu.Unlock()
				if !bytes.Equal(got, want) {
					t.Errorf("worker %d call %d: body differs from the uncached one %s", w, k, firstDiff(got, want))
				}
			}
		})
	}
	wg.Wait()
}

// TestSnapshotDetectsEveryField changes each field of a block in turn and
// requires the snapshot to notice, so that a field added to llm.Block
// cannot be forgotten by messageSnapshot.matches.
func TestSnapshotDetectsEveryField(t *testing.T) {
	newMessage := func() llm.Message {
		return llm.Message{Role: llm.RoleUser, Content: []llm.Block{{
			Type: llm.BlockToolUse, Text: "t", Signature: "s", Origin: "o", ItemID: "i", Data: "d", MediaType: "m",
			ToolUseID: "u", ToolName: "n", Input: json.RawMessage(`{"a":1}`), Content: "c",
		}}}
	}
	typ := reflect.TypeFor[llm.Block]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		t.Run(f.Name, func(t *testing.T) {
			m := newMessage()
			s := snapshotOf(&m)
			if !s.matches(&m) {
				t.Fatal("a snapshot does not match its own message")
			}
			v := reflect.ValueOf(&m.Content[0]).Elem().Field(i)
			switch {
			case v.Kind() == reflect.String:
				v.SetString(v.String() + "x")
			case v.Kind() == reflect.Bool:
				v.SetBool(!v.Bool())
			case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
				// In place: the snapshot must own a copy.
				v.Index(1).SetUint(v.Index(1).Uint() ^ 1)
			default:
				t.Fatalf("field %s of kind %s: teach messageSnapshot.matches and this test about it", f.Name, v.Kind())
			}
			if s.matches(&m) {
				t.Errorf("a change of %s went unnoticed", f.Name)
			}
		})
	}

	t.Run("equal copies match", func(t *testing.T) {
		a, b := newMessage(), newMessage()
		b.Content[0].Text = string([]byte("t")) // equal, other bytes
		s := snapshotOf(&a)
		if !s.matches(&b) {
			t.Error("an equal message with its own strings does not match")
		}
	})
	t.Run("role and length", func(t *testing.T) {
		m := newMessage()
		s := snapshotOf(&m)
		m.Role = llm.RoleAssistant
		if s.matches(&m) {
			t.Error("a change of role went unnoticed")
		}
		m = newMessage()
		m.Content = append(m.Content, llm.Block{Type: llm.BlockText})
		if s.matches(&m) {
			t.Error("an added block went unnoticed")
		}
	})
}

// TestSpliceMarkerInSchema puts the marker that stands for the messages in
// the envelope into a tool schema too; the body must still be right.
func TestSpliceMarkerInSchema(t *testing.T) {
	g := newHistoryGen(7)
	msgs := g.history(12)
	req := &llm.Request{Model: "m", MaxTokens: 100, Tools: []llm.ToolSpec{{Name: "x", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"a":{"role":"nova-request-splice-point"}},"default":"nova-request-splice-point"}`)}}}
	h := newCacheHarness(testBaseURL(0))
	h.check(t, "first call", req, msgs)
	h.check(t, "second call", req, msgs)
}
