package wire

import (
	"bytes"
	"iter"
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
// new. A Cache keeps the wire encoding of each message of the latest
// request, so the next one encodes only its new messages and copies the rest.
//
// Callers are not forced to be append-only (an embedder may edit history), so
// an entry is only reused when the message is provably unchanged: it keeps a
// snapshot of the message it was made from and is compared field by field.
// Strings are immutable, so a string that still points at the snapshot's
// bytes is equal in O(1); tool inputs are mutable byte slices, so the
// snapshot owns a copy of them and compares bytes. An entry is also keyed by
// position and by whatever else its protocol's encoding depends on (the
// Codec's key: a prompt-caching breakpoint, the tool calls an earlier
// message left open).

// A Codec encodes single messages for a Cache; K is what an encoding depends
// on besides its message.
type Codec[K any] interface {
	// Key is the key message i is encoded under, given the entry of message
	// i-1 (nil for the first message).
	Key(i int, prev *Entry[K]) K
	// SameKey reports whether an encoding made under a serves under b.
	SameKey(a, b K) bool
	// Encode returns the encoding of message i under k and the key to store
	// with it, which may add what the encoding found out (for the next
	// message's Key). It must depend on nothing but m and k.
	Encode(i int, m *llm.Message, k K) ([]byte, K, error)
}

// Cache holds the entries of the latest request, one per message. A
// published slice is never modified: a request reads it, builds a new one
// and publishes that, so concurrent requests only share immutable data and
// the mutex guards nothing but the swap. Entries beyond the latest request's
// length are dropped with the old slice, which bounds the memory to one
// encoding of the latest history. The zero value is ready to use.
type Cache[K any] struct {
	mu      sync.Mutex
	entries []Entry[K]
	// epoch numbers the Encode calls; published is the latest one's.
	epoch, published uint64
}

// Entry is the encoding of one message and what it was made from.
type Entry[K any] struct {
	snap snapshot
	// epoch is the Encode call that made the encoding.
	epoch uint64
	// Key is what the encoding was made under (see Codec.Encode).
	Key K
	// Enc is the message's wire encoding: the elements it contributes to
	// the request's array, comma-separated, exactly as the protocol's
	// encoder writes them there. It may be empty.
	Enc []byte
}

// Encoding is the encoded messages of one request.
type Encoding[K any] struct {
	Entries []Entry[K]
	// Size is the length of every encoding plus a separator each.
	Size int
}

// Encode returns the encoding of every message of msgs, taken from the cache
// where the message and its key are unchanged and made by codec where not,
// and publishes them as the cache's new content. A failure publishes
// nothing.
func (c *Cache[K]) Encode(msgs []llm.Message, codec Codec[K]) (Encoding[K], error) {
	c.mu.Lock()
	old := c.entries
	c.epoch++
	epoch := c.epoch
	c.mu.Unlock()

	out := Encoding[K]{Entries: make([]Entry[K], len(msgs))}
	for i := range msgs {
		m := &msgs[i]
		var prev *Entry[K]
		if i > 0 {
			prev = &out.Entries[i-1]
		}
		k := codec.Key(i, prev)
		if i < len(old) && codec.SameKey(old[i].Key, k) && old[i].snap.matches(m) {
			out.Entries[i] = old[i]
		} else {
			enc, stored, err := codec.Encode(i, m, k)
			if err != nil {
				return Encoding[K]{}, err
			}
			out.Entries[i] = Entry[K]{snap: snapshotOf(m), epoch: epoch, Key: stored, Enc: enc}
		}
		out.Size += len(out.Entries[i].Enc) + 1
	}

	c.mu.Lock()
	c.entries, c.published = out.Entries, epoch
	c.mu.Unlock()
	return out, nil
}

// Fresh reports, for each message of the latest published request, whether
// that request encoded it rather than reusing an earlier encoding. It is for
// tests and diagnostics.
func (c *Cache[K]) Fresh() []bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	fresh := make([]bool, len(c.entries))
	for i := range c.entries {
		fresh[i] = c.entries[i].epoch == c.published
	}
	return fresh
}

// Parts yields the encodings in order.
func (e Encoding[K]) Parts() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for i := range e.Entries {
			if !yield(e.Entries[i].Enc) {
				return
			}
		}
	}
}

// Splice builds a request body from env, the encoding of the request with
// marker in place of the messages: env up to the marker, the non-empty parts
// joined by commas, then the rest of env. size bounds the length of the
// parts with a separator each; extra is room left at the end for what the
// caller appends. It is one allocation, and copying the parts is the only
// work proportional to the history.
//
// ok is false when marker does not occur in env exactly once: a marker is
// chosen so that only a caller's own string (a tool schema, say) could hold
// it too, and the caller then encodes the request without the cache.
func Splice(env, marker []byte, size int, parts iter.Seq[[]byte], extra int) (body []byte, ok bool) {
	at := bytes.Index(env, marker)
	if at < 0 || bytes.Contains(env[at+len(marker):], marker) {
		return nil, false
	}
	body = make([]byte, 0, len(env)-len(marker)+size+extra)
	body = append(body, env[:at]...)
	sep := false
	for p := range parts {
		if len(p) == 0 {
			continue
		}
		if sep {
			body = append(body, ',')
		}
		body = append(body, p...)
		sep = true
	}
	return append(body, env[at+len(marker):]...), true
}

// snapshot is a private copy of a message, enough to tell whether a later
// message is the same one.
type snapshot struct {
	role   llm.Role
	blocks []llm.Block
}

// snapshotOf copies m. Strings are shared (they cannot change); tool inputs
// and server tool blocks' raw JSON are copied into one buffer, and search
// results into a slice of their own, since a caller may rewrite them in
// place.
func snapshotOf(m *llm.Message) snapshot {
	s := snapshot{role: m.Role, blocks: slices.Clone(m.Content)}
	n := 0
	for i := range s.blocks {
		n += len(s.blocks[i].Input) + len(s.blocks[i].Raw)
		if r := s.blocks[i].Results; r != nil {
			s.blocks[i].Results = slices.Clone(r)
		}
	}
	if n == 0 {
		return s
	}
	buf := make([]byte, 0, n)
	own := func(b []byte) []byte {
		start := len(buf)
		buf = append(buf, b...)
		return buf[start:len(buf):len(buf)]
	}
	for i := range s.blocks {
		if in := s.blocks[i].Input; in != nil {
			s.blocks[i].Input = own(in)
		}
		if raw := s.blocks[i].Raw; raw != nil {
			s.blocks[i].Raw = own(raw)
		}
	}
	return s
}

// matches reports whether m is, field for field, the message s was taken
// from. It costs O(1) per string field that still shares the snapshot's
// bytes, which is the case for every message of an append-only history.
func (s *snapshot) matches(m *llm.Message) bool {
	if m.Role != s.role || len(m.Content) != len(s.blocks) {
		return false
	}
	for i := range s.blocks {
		a, b := &s.blocks[i], &m.Content[i]
		if a.Type != b.Type || a.IsError != b.IsError ||
			!SameString(a.Text, b.Text) || !SameString(a.Signature, b.Signature) ||
			!SameString(a.Origin, b.Origin) || !SameString(a.ItemID, b.ItemID) ||
			!SameString(a.Data, b.Data) || !SameString(a.MediaType, b.MediaType) ||
			!SameString(a.ToolUseID, b.ToolUseID) || !SameString(a.ToolName, b.ToolName) ||
			!SameString(a.Content, b.Content) || !bytes.Equal(a.Input, b.Input) ||
			!bytes.Equal(a.Raw, b.Raw) || !slices.Equal(a.Results, b.Results) {
			return false
		}
	}
	return true
}

// SameString is a == b, in O(1) when both share their bytes. (The runtime's
// comparison usually takes that shortcut too; spelling it out keeps the cost
// of a cache hit independent of the platform.)
func SameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}
