package openaichat

import (
	"bytes"
	"slices"
	"sync"
	"unsafe"

	"github.com/novacode/nova/llm"
)

// Encoding cache.
//
// The loop's history is append-only and every request resends all of it, so
// without a cache each call re-encodes the whole conversation: tens of
// megabytes of JSON late in a long session, for the few kilobytes that are
// new. The cache keeps the wire encoding of each message of the latest
// request, so the next one encodes only its new messages and copies the rest.
//
// Callers are not forced to be append-only (an embedder may edit history), so
// an entry is only reused when the message is provably unchanged: it keeps a
// snapshot of the message it was made from and is compared field by field.
// Strings are immutable, so a string that still points at the snapshot's
// bytes is equal in O(1); tool inputs are mutable byte slices, so the
// snapshot owns a copy of them and compares bytes. The entry is also keyed by
// position and by what else the encoding depends on: the tool calls of the
// previous assistant message that are still unanswered (Chat Completions
// pairs every call with a tool message, so a user message's tool results are
// sent as tool messages or as text, and an assistant message first answers
// the calls its predecessor left open, depending on them).

// encodingCache holds the entries of the latest request, one per message.
// A published slice is never modified: a request reads it, builds a new one
// and publishes that, so concurrent Stream calls only share immutable data and
// the mutex guards nothing but the swap. Entries beyond the latest request's
// length are dropped with the old slice, which bounds the memory to one
// encoding of the latest history.
type encodingCache struct {
	mu      sync.Mutex
	entries []cachedMessage
}

// cachedMessage is the encoding of one message and what it was made from.
type cachedMessage struct {
	snap messageSnapshot
	// pendingIn are the open call ids the message was translated with, and
	// pendingOut those it leaves open for the next message (see
	// appendMessage). Both are never modified once stored.
	pendingIn, pendingOut []string
	// enc is the message's chat messages, comma-separated, exactly as
	// encoding/json writes them inside the messages array. A message may
	// have none.
	enc []byte
}

func (ec *encodingCache) load() []cachedMessage {
	ec.mu.Lock()
	defer ec.mu.Unlock()
	return ec.entries
}

func (ec *encodingCache) store(entries []cachedMessage) {
	ec.mu.Lock()
	defer ec.mu.Unlock()
	ec.entries = entries
}

// messageSnapshot is a private copy of a message, enough to tell whether a
// later message is the same one.
type messageSnapshot struct {
	role   llm.Role
	blocks []llm.Block
}

// snapshotOf copies m. Strings are shared (they cannot change); tool inputs
// are copied into one buffer, since a caller may rewrite them in place.
func snapshotOf(m *llm.Message) messageSnapshot {
	s := messageSnapshot{role: m.Role, blocks: slices.Clone(m.Content)}
	n := 0
	for i := range s.blocks {
		n += len(s.blocks[i].Input)
	}
	if n == 0 {
		return s
	}
	buf := make([]byte, 0, n)
	for i := range s.blocks {
		if in := s.blocks[i].Input; in != nil {
			start := len(buf)
			buf = append(buf, in...)
			s.blocks[i].Input = buf[start:len(buf):len(buf)]
		}
	}
	return s
}

// matches reports whether m is, field for field, the message s was taken
// from. It costs O(1) per string field that still shares the snapshot's
// bytes, which is the case for every message of an append-only history.
func (s *messageSnapshot) matches(m *llm.Message) bool {
	if m.Role != s.role || len(m.Content) != len(s.blocks) {
		return false
	}
	for i := range s.blocks {
		a, b := &s.blocks[i], &m.Content[i]
		if a.Type != b.Type || a.IsError != b.IsError ||
			!sameString(a.Text, b.Text) || !sameString(a.Signature, b.Signature) ||
			!sameString(a.Origin, b.Origin) || !sameString(a.ItemID, b.ItemID) ||
			!sameString(a.Data, b.Data) || !sameString(a.MediaType, b.MediaType) ||
			!sameString(a.ToolUseID, b.ToolUseID) || !sameString(a.ToolName, b.ToolName) ||
			!sameString(a.Content, b.Content) || !bytes.Equal(a.Input, b.Input) {
			return false
		}
	}
	return true
}

// sameIDs reports whether two lists of call ids are equal.
func sameIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameString(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameString is a == b, in O(1) when both share their bytes. (The runtime's
// comparison usually takes that shortcut too; spelling it out keeps the cost
// of a cache hit independent of the platform.)
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}
