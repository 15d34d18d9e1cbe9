// Package session stores a conversation on disk so it can be resumed,
// compacted and rewound.
//
// A session is one append-only JSON Lines file, <dir>/<id>.jsonl, whose first
// line is a header record. Every later line is one Record: a message, running
// usage totals, a compaction boundary, a file snapshot, a rewind or the end of
// a run. Nothing is ever rewritten: compaction and rewind are records that
// Load interprets, so the file doubles as an audit log and a crash can only
// cost the line being written (Load skips a torn last line, Open cuts it off).
//
// File snapshots live next to the transcript in a content-addressed store,
// <dir>/<id>/snapshots/<sha256 hex>; a snapshot record names the content a
// file had before a turn first changed it, which is what RewindPlan and
// Snapshots.Apply need to put files back.
//
// Turn numbers must grow across the whole session: a resumed run continues
// at State.Turns+1, and so does a run after a rewind. Reusing the numbers of
// rewound turns would make later rewinds and RewindPlan ambiguous.
package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/novacode/nova/llm"
)

// Record types.
const (
	TypeHeader   = "header"
	TypeMessage  = "message"
	TypeUsage    = "usage"
	TypeBoundary = "boundary"
	TypeSnapshot = "snapshot"
	TypeRewind   = "rewind"
	TypeEnd      = "end"
)

// FormatVersion is written into new headers. Load accepts any version and
// ignores record types it does not know, so older binaries can still list
// and resume newer files as far as they understand them.
const FormatVersion = 1

// Record is one line of a transcript. Type decides which fields are set.
type Record struct {
	Type string    `json:"type"`
	Time time.Time `json:"time"`
	// Turn is the model call the record belongs to. Messages carry the turn
	// in which they were appended; the prompt that starts a run carries the
	// turn of the first model call that reads it.
	Turn int `json:"turn,omitempty"`

	// header
	Version  int    `json:"version,omitempty"`
	ID       string `json:"id,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider,omitempty"`
	// A subagent's transcript (the Task tool's conversation, id
	// SubagentID(Parent, AgentID)) names the session that started it, so
	// that listings put it under that session and Latest never picks it:
	// nova -c continues what the person was doing, not a subagent's task.
	// AgentType is the kind of subagent, Description the Task call's
	// short description of its task.
	Parent      string `json:"parent,omitempty"`
	AgentID     string `json:"agent_id,omitempty"`
	AgentType   string `json:"agent_type,omitempty"`
	Description string `json:"description,omitempty"`

	// message
	Message *llm.Message `json:"message,omitempty"`

	// usage: running totals after a model call.
	Usage   *llm.Usage `json:"usage,omitempty"`
	CostUSD float64    `json:"cost_usd,omitempty"`

	// boundary: compaction replaced the history with Messages (the summary
	// and re-injected context). Reason is also the reason of an end record.
	BoundaryID   string        `json:"boundary_id,omitempty"`
	Reason       string        `json:"reason,omitempty"`
	TokensBefore int64         `json:"tokens_before,omitempty"`
	TokensAfter  int64         `json:"tokens_after,omitempty"`
	Messages     []llm.Message `json:"messages,omitempty"`

	// snapshot: the content Path had before turn Turn first changed it.
	// Hash "" means the file did not exist. Mode holds Go's fs.FileMode
	// permission bits (with setuid, setgid and sticky).
	Path string `json:"path,omitempty"`
	Hash string `json:"hash,omitempty"`
	Mode uint32 `json:"mode,omitempty"`
}

// validate catches records the loop should never write; it keeps a bug in a
// caller from producing a file that Load later misreads.
func (r *Record) validate() error {
	switch r.Type {
	case "":
		return errors.New("record has no type")
	case TypeHeader:
		return errors.New("a header is written only by Create")
	case TypeMessage:
		if r.Message == nil {
			return errors.New("message record without a message")
		}
	case TypeUsage:
		if r.Usage == nil {
			return errors.New("usage record without usage")
		}
	case TypeSnapshot:
		if r.Path == "" {
			return errors.New("snapshot record without a path")
		}
		if r.Hash != "" && !validHash(r.Hash) {
			return fmt.Errorf("snapshot record with a malformed hash %q", r.Hash)
		}
	}
	return nil
}

// Transcript is an open, append-only session file. Its methods are safe for
// concurrent use (tools snapshot files from their own goroutines).
type Transcript struct {
	id   string
	path string

	mu   sync.Mutex
	f    *os.File
	size int64 // bytes known to be whole lines; a failed write is cut back to it
	err  error // sticky: set when a failed write could not be undone
	line []byte
	// header, until the file exists (see Start): the first Append creates
	// the file with it.
	header *Record
	closed bool
}

// Start is Create deferred: the file <dir>/<id>.jsonl is created, with
// header as its first line, by the first Append. A session that never gets
// a record — a run that failed before its prompt was sent, a TUI closed
// before the first prompt — leaves no transcript to list or resume.
func Start(dir, id string, header Record) (*Transcript, error) {
	if err := validID(id); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	if header.ID != "" && header.ID != id {
		return nil, fmt.Errorf("create session %s: header names session %q", id, header.ID)
	}
	return &Transcript{id: id, path: filepath.Join(dir, id+".jsonl"), header: &header}, nil
}

// Exists reports whether the file has been created: always for Create and
// Open, after the first Append for Start.
func (t *Transcript) Exists() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.header == nil
}

// materialize creates a Start transcript's file with its header. Called
// with t.mu held.
func (t *Transcript) materialize() error {
	created, err := Create(filepath.Dir(t.path), t.id, *t.header)
	if err != nil {
		return err
	}
	t.f, t.size, t.header = created.f, created.size, nil
	return nil
}

// Create starts a new session file <dir>/<id>.jsonl and writes header as its
// first line. It fails if the file exists. header.Type, ID (when empty),
// Version (when zero) and Time (when zero) are filled in.
func Create(dir, id string, header Record) (*Transcript, error) {
	if err := validID(id); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	if header.ID != "" && header.ID != id {
		return nil, fmt.Errorf("create session %s: header names session %q", id, header.ID)
	}
	header.Type, header.ID = TypeHeader, id
	if header.Version == 0 {
		header.Version = FormatVersion
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create session %s: %w", id, err)
	}
	path := filepath.Join(dir, id+".jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create session %s: %w", id, err)
	}
	t := &Transcript{id: id, path: path, f: f}
	if err := t.write(&header); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("create session %s: %w", id, err)
	}
	return t, nil
}

// Open loads the session <dir>/<id>.jsonl for resuming (see Load) and
// reopens it for appending. A torn last line is cut off first, and a last
// line that lacks only its newline gets one, so new records start on a
// line of their own.
func Open(dir, id string) (*Transcript, *State, error) {
	if err := validID(id); err != nil {
		return nil, nil, fmt.Errorf("open session: %w", err)
	}
	path := filepath.Join(dir, id+".jsonl")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open session %s: %w", id, err)
	}
	st, end, err := load(f, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	size := end.good
	if end.size > end.good { // a torn line, or trailing blanks
		if err := f.Truncate(end.good); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("open session %s: cut torn last line: %w", id, err)
		}
	}
	if end.missingNewline {
		if _, err := f.Write([]byte{'\n'}); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("open session %s: end last line: %w", id, err)
		}
		size++
	}
	return &Transcript{id: id, path: path, f: f, size: size}, st, nil
}

// ID is the session id.
func (t *Transcript) ID() string { return t.id }

// Path is the transcript file.
func (t *Transcript) Path() string { return t.path }

// Append writes r as one line with a single write(2), so a crash leaves at
// most one torn line, at the end. Time is set to now when zero. Nothing is
// buffered: after Append returns the line is in the kernel (Sync makes it
// durable).
func (t *Transcript) Append(r Record) error {
	if err := r.validate(); err != nil {
		return fmt.Errorf("append to session %s: %w", t.id, err)
	}
	if err := t.write(&r); err != nil {
		return fmt.Errorf("append %s record to session %s: %w", r.Type, t.id, err)
	}
	return nil
}

func (t *Transcript) write(r *Record) error {
	if r.Time.IsZero() {
		r.Time = time.Now().UTC()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return os.ErrClosed
	}
	if t.header != nil {
		if err := t.materialize(); err != nil {
			return err
		}
	}
	if t.f == nil {
		return os.ErrClosed
	}
	if t.err != nil {
		return t.err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	// One buffer, one write: a record never spans two write calls.
	t.line = append(append(t.line[:0], b...), '\n')
	n, err := t.f.Write(t.line)
	if err != nil {
		// A partial line would glue the next record onto it and turn a torn
		// tail into mid-file corruption: cut it back, or refuse further
		// appends if even that fails.
		if n > 0 {
			if terr := t.f.Truncate(t.size); terr != nil {
				t.err = fmt.Errorf("transcript left with a partial line after %w (and cutting it failed: %v)", err, terr)
			}
		}
		return err
	}
	t.size += int64(n)
	if cap(t.line) > 1<<20 {
		t.line = nil // do not pin one huge record's buffer for the whole session
	}
	return nil
}

// Sync flushes the file to stable storage; the loop calls it at turn ends.
func (t *Transcript) Sync() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || (t.f == nil && t.header == nil) {
		return fmt.Errorf("sync session %s: %w", t.id, os.ErrClosed)
	}
	if t.header != nil {
		return nil // nothing written yet
	}
	if err := t.f.Sync(); err != nil {
		return fmt.Errorf("sync session %s: %w", t.id, err)
	}
	return nil
}

// Close closes the file. Closing twice is not an error.
func (t *Transcript) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	if err != nil {
		return fmt.Errorf("close session %s: %w", t.id, err)
	}
	return nil
}

// validID keeps an id usable as a single file name: it is joined into paths
// and must never reach outside dir. An id is a name without a dot, or a
// subagent's id, <session id>.<agent id> (see SubagentID): pieces split at
// dots, none empty, the first a session id's form and every later one an
// agent id's, so neither "..", a hidden file nor a separator can pass.
func validID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("invalid session id %q", id)
	case len(id) > 200:
		return fmt.Errorf("session id longer than 200 bytes")
	case strings.ContainsAny(id, "/\\\x00"):
		return fmt.Errorf("invalid session id %q: contains a path separator or NUL", id)
	}
	base, agents, sub := strings.Cut(id, ".")
	if base == "" {
		return fmt.Errorf("invalid session id %q", id)
	}
	if sub {
		for _, a := range strings.Split(agents, ".") {
			if err := validAgentID(a); err != nil {
				return fmt.Errorf("invalid session id %q: %w", id, err)
			}
		}
	}
	return nil
}

// maxAgentID bounds an agent id, so that a subagent's id stays a file name
// beside a UUID.
const maxAgentID = 64

// validAgentID accepts the ids the Task tool gives subagents ("agent_1"):
// letters, digits, '_' and '-'; no dot, so a subagent's session id splits
// into its parent's and its own in one way only.
func validAgentID(a string) error {
	if a == "" || len(a) > maxAgentID {
		return fmt.Errorf("agent id %q is empty or longer than %d bytes", a, maxAgentID)
	}
	for _, r := range a {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-') {
			return fmt.Errorf("agent id %q has a character other than a letter, digit, '_' or '-'", a)
		}
	}
	return nil
}

// SubagentID is the session id of the transcript that keeps subagent
// agentID's conversation, beside its parent session's: <parent>.<agentID>
// (3f2a….agent_1). nova --resume takes it like any session id.
func SubagentID(parent, agentID string) (string, error) {
	if err := validID(parent); err != nil {
		return "", err
	}
	if err := validAgentID(agentID); err != nil {
		return "", fmt.Errorf("subagent of session %s: %w", parent, err)
	}
	id := parent + "." + agentID
	if err := validID(id); err != nil {
		return "", err
	}
	return id, nil
}
