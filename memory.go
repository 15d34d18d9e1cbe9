package nova

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/contextinfo"
	"github.com/novacode/nova/llm"
)

// Memory at the end of a run: durable facts (conventions, commands that
// work, preferences the person stated) are proposed by the small model from
// the conversation and written to a memory file only once the person
// accepts them. Facts come from a model reading tool output an attacker
// may control, and they instruct every later session: never write them
// without that consent.

// MemoryProposal is what ProposeMemory proposes, and where it may go.
type MemoryProposal struct {
	// Facts are one short sentence each, at most five, none that either
	// memory file already holds.
	Facts []string
	// Project is the project's memory file (NOVA.md at the repository
	// root, or in the workspace outside a repository); User is the user's
	// own (NOVA.md in the data directory), read in every project. Either
	// may not exist yet.
	Project, User string
}

// ErrRunning is ProposeMemory's error while a Send runs: the conversation
// is moving on, and a proposal would describe a state already gone.
var ErrRunning = errors.New("nova: a run is going on")

// Memory settings (the autoMemory setting, Session.AutoMemory).
const (
	AutoMemorySuggest = "suggest"
	AutoMemoryOff     = "off"
)

// AutoMemory is the autoMemory setting: AutoMemorySuggest (the default: a
// frontend proposes facts when a run ends) or AutoMemoryOff.
func (s *Session) AutoMemory() string {
	if v := s.settings.AutoMemory; v != nil && *v == AutoMemoryOff {
		return AutoMemoryOff
	}
	return AutoMemorySuggest
}

// autoMemoryNotice warns about an autoMemory value this version does not
// know.
func autoMemoryNotice(v *string) string {
	if v == nil || *v == AutoMemorySuggest || *v == AutoMemoryOff {
		return ""
	}
	return fmt.Sprintf("nova: warning: autoMemory %q is not suggest or off; using suggest\n", *v)
}

// ProposeMemory asks the small, fast model (the one WebFetch's summaries
// use) for durable facts from the recent conversation. It writes nothing:
// show the facts to the person and WriteMemory what they accept, where
// they choose. Retries of its model call are reported to onRetry. Before
// the first prompt it proposes nothing and makes no call; while a Send
// runs it returns ErrRunning.
func (s *Session) ProposeMemory(ctx context.Context, onRetry func(event.Retry)) (MemoryProposal, error) {
	p := MemoryProposal{Project: s.projectMemory(), User: s.userMemory()}
	if !s.running.TryLock() {
		return p, ErrRunning
	}
	s.mu.Lock()
	var history []llm.Message
	if s.conv != nil {
		history = slices.Clone(s.conv.Messages) // messages are never edited, only appended
	}
	s.mu.Unlock()
	s.running.Unlock()
	if len(history) == 0 {
		return p, nil
	}
	var client llm.Client = s.sideClient()
	if onRetry != nil {
		client = retryHook{client, onRetry}
	}
	x := &contextinfo.Extractor{Client: client, Model: smallModel(s.ep), Path: p.Project, Known: []string{p.User}}
	facts, err := x.Propose(ctx, history)
	if err != nil {
		return p, fmt.Errorf("memory extraction failed: %w", err)
	}
	p.Facts = facts
	return p, nil
}

// WriteMemory adds facts to path, the project's or the user's memory file
// (MemoryProposal.Project or User), as "- " lines under a "## Learned by
// NovaCode" heading, creating the file or the heading when missing. Facts
// the file already holds are left out; the rest of the file stays as it
// was.
func (s *Session) WriteMemory(path string, facts []string) error {
	clean := filepath.Clean(path)
	if clean != s.projectMemory() && clean != s.userMemory() {
		return fmt.Errorf("nova: %s is neither the project's memory file (%s) nor yours (%s)", path, s.projectMemory(), s.userMemory())
	}
	if err := os.MkdirAll(filepath.Dir(clean), 0o700); err != nil {
		return fmt.Errorf("could not update %s: %w", clean, err)
	}
	x := &contextinfo.Extractor{Path: clean}
	if err := x.Append(facts); err != nil {
		return fmt.Errorf("could not update %s: %w", clean, err)
	}
	return nil
}

// MemoryFile is a memory file the model reads when a conversation starts
// (and again after a compaction).
type MemoryFile struct {
	Path string
	// Scope is "user" (the data directory's) or "project".
	Scope   string
	Content string
}

// MemoryFiles are the memory files the model reads, in the order it reads
// them: the user's AGENTS.md, NOVA.md and CLAUDE.md in the data
// directory, then the project's from the repository root down to the
// workspace, each with what it imports.
func (s *Session) MemoryFiles() ([]MemoryFile, error) {
	files, err := contextinfo.MemoryFiles(s.data, s.dir)
	if err != nil {
		return nil, err
	}
	out := make([]MemoryFile, len(files))
	for i, f := range files {
		out[i] = MemoryFile(f)
	}
	return out, nil
}

// MemoryPaths are the memory files accepted facts go to: the project's
// NOVA.md and the user's own (MemoryProposal's Project and User).
func (s *Session) MemoryPaths() (project, user string) { return s.projectMemory(), s.userMemory() }

// projectMemory is the project's NOVA.md: at the root of the repository
// holding the workspace, or in the workspace outside one.
func (s *Session) projectMemory() string {
	for d := s.dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return filepath.Join(d, "NOVA.md")
		}
		if filepath.Dir(d) == d {
			return filepath.Join(s.dir, "NOVA.md")
		}
	}
}

// userMemory is the user's own NOVA.md, in the data directory.
func (s *Session) userMemory() string { return filepath.Join(s.data, "NOVA.md") }

// retryHook passes a client's streams through and reports each retry: for
// model calls outside the loop, whose retries no event carries.
type retryHook struct {
	c       llm.Client
	onRetry func(event.Retry)
}

func (r retryHook) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamEvent, error] {
	return func(yield func(llm.StreamEvent, error) bool) {
		for ev, err := range r.c.Stream(ctx, req) {
			if re, ok := ev.(llm.Retrying); ok {
				r.onRetry(retryEvent(re))
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// retryEvent is a retry of a model call outside the loop as the loop's
// retry event describes one.
func retryEvent(e llm.Retrying) event.Retry {
	ev := event.Retry{Turn: 1, Kind: string(llm.ErrOther), Retry: e.Attempt, MaxRetries: e.MaxRetries, WaitMS: e.Wait.Milliseconds()}
	if e.Err != nil {
		ev.Error = e.Err.Error()
	}
	var le *llm.Error
	if errors.As(e.Err, &le) {
		ev.Kind, ev.StatusCode = string(le.Kind), le.StatusCode
	}
	return ev
}
