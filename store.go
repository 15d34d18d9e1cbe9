package nova

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/contextinfo"
	"github.com/novacode/nova/internal/gitexclude"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
)

// recorder adapts a session transcript to agent.Recorder. The mutex makes
// it safe for the snapshot records that tool goroutines add.
type recorder struct {
	mu sync.Mutex
	t  *session.Transcript
}

func (r *recorder) append(rec session.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.t.Append(rec)
}

func (r *recorder) Message(turn int, m llm.Message) error {
	return r.append(session.Record{Type: "message", Turn: turn, Message: &m})
}

func (r *recorder) Usage(turn int, total llm.Usage, cost float64) error {
	return r.append(session.Record{Type: "usage", Turn: turn, Usage: &total, CostUSD: cost})
}

func (r *recorder) Boundary(turn int, c event.Compact, msgs []llm.Message) error {
	return r.append(session.Record{Type: "boundary", Turn: turn, BoundaryID: c.BoundaryID, Reason: c.Reason,
		TokensBefore: c.TokensBefore, TokensAfter: c.TokensAfter, Messages: msgs})
}

func (r *recorder) TurnEnd(int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.t.Sync()
}

func (r *recorder) End(turn int, reason string) error {
	return r.append(session.Record{Type: "end", Turn: turn, Reason: reason})
}

// openedSession is the session a run works in.
type openedSession struct {
	id       string
	dir      string // the project's session directory
	rec      *recorder
	snaps    *session.Snapshots
	state    *session.State // nil for a new session
	resumed  bool
	closeFns []func() error
}

func (s *openedSession) close() {
	for _, f := range s.closeFns {
		_ = f()
	}
}

// files is where the session keeps its side files (spilled results, temp).
func (s *openedSession) files() string { return filepath.Join(s.dir, s.id) }

// openSession creates a new session, or reopens the latest (cont) or a
// given one (resume). Notes for the person go to errOut.
func openSession(data, workspace string, cont bool, resume string, ep endpoint, errOut io.Writer) (*openedSession, error) {
	dir := session.ProjectDir(data, workspace)
	id := resume
	if cont {
		latest, err := session.Latest(dir)
		if err != nil {
			return nil, fmt.Errorf("--continue: %w", err)
		}
		id = latest.ID
	}
	s := &openedSession{dir: dir}
	if id != "" {
		t, st, err := session.Open(dir, id)
		if err != nil {
			return nil, fmt.Errorf("resume session %s: %w (list them with: nova sessions)", id, err)
		}
		s.id, s.state, s.resumed = id, st, true
		s.rec = &recorder{t: t}
		s.snaps = session.NewSnapshots(dir, id)
		s.snaps.Seen(st.Snapshots)
	} else {
		s.id = session.NewID()
		// Transcripts hold whole conversations: where the data directory
		// lies in a git work tree, git must not see them.
		projects := filepath.Dir(dir)
		if added, err := gitexclude.Add(projects, true); err != nil {
			fmt.Fprintf(errOut, "nova: warning: %v; do not commit %s\n", err, projects)
		} else if added {
			fmt.Fprintf(errOut, "nova: %s is inside a git work tree; added it to the repository's info/exclude so that git ignores it\n", projects)
		}
		// The file appears with the first prompt: a run that fails before
		// it, or a TUI left before it, must not leave an empty session in
		// nova sessions and /resume.
		t, err := session.Start(dir, s.id, session.Record{Cwd: workspace, Model: ep.Model, Provider: ep.Provider})
		if err != nil {
			return nil, fmt.Errorf("start a session transcript: %w", err)
		}
		s.rec = &recorder{t: t}
		s.snaps = session.NewSnapshots(dir, s.id)
		side := s.files()
		s.closeFns = append(s.closeFns, t.Close, func() error {
			if t.Exists() {
				return nil
			}
			// Only the sandbox's temp dir can be there: what a session
			// keeps beside its transcript starts with its first prompt.
			return os.RemoveAll(side)
		})
		return s, nil
	}
	s.closeFns = append(s.closeFns, s.rec.t.Close)
	return s, nil
}

// conversation builds the run's conversation: the resumed history plus the
// new prompt, or a new one opened by the preamble (environment and memory
// files, unless withContext is false) and the prompt.
func (s *openedSession) conversation(ctx context.Context, data, workspace, system, prompt string, withContext bool) (*agent.Conversation, error) {
	if s.state != nil {
		st := s.state
		conv := &agent.Conversation{ID: s.id, System: system, Messages: st.Messages,
			Persisted: len(st.Messages), Turns: st.Turns, Usage: st.Usage, CostUSD: st.CostUSD}
		conv.AddUser(prompt)
		return conv, nil
	}
	return newConversation(ctx, s.id, data, workspace, system, prompt, withContext)
}

// newConversation opens a conversation with the preamble (unless
// withContext is false) and prompt.
func newConversation(ctx context.Context, id, data, workspace, system, prompt string, withContext bool) (*agent.Conversation, error) {
	pre := ""
	if withContext {
		var err error
		if pre, err = contextinfo.Preamble(ctx, data, workspace, time.Now()); err != nil {
			return nil, err
		}
	}
	conv := &agent.Conversation{ID: id, System: system}
	var blocks []llm.Block
	if pre != "" {
		blocks = append(blocks, llm.Block{Type: llm.BlockText, Text: pre})
	}
	blocks = append(blocks, llm.Block{Type: llm.BlockText, Text: prompt})
	conv.Messages = []llm.Message{{Role: llm.RoleUser, Content: blocks}}
	return conv, nil
}

// snapshotter records the prior content of files a tool is about to change.
// What it could not keep is returned, for the loop's warning event; the
// other paths are kept all the same.
func (s *openedSession) snapshotter() func(turn int, paths []string) error {
	return func(turn int, paths []string) error {
		var errs []error
		for _, p := range paths {
			if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
				continue // directories, links, devices: only file contents are kept
			}
			rec, ok, err := s.snaps.Save(turn, p)
			if err != nil {
				errs = append(errs, fmt.Errorf("snapshot %s (a rewind cannot restore it): %w", p, err))
				continue
			}
			if ok {
				if err := s.rec.append(rec); err != nil {
					errs = append(errs, fmt.Errorf("record snapshot of %s: %w", p, err))
				}
			}
		}
		return errors.Join(errs...)
	}
}

// stateConversation is the conversation a loaded session continues.
func stateConversation(id, system string, st *session.State) *agent.Conversation {
	if len(st.Messages) == 0 {
		return nil // starts afresh (with the preamble) on the next prompt
	}
	return &agent.Conversation{ID: id, System: system, Messages: st.Messages,
		Persisted: len(st.Messages), Turns: st.Turns, Usage: st.Usage, CostUSD: st.CostUSD}
}
