package nova

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/internal/contextinfo"
	"github.com/novacode/nova/internal/gitexclude"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
)

// openedSession is the session a run works in.
type openedSession struct {
	id       string
	dir      string              // the project's session directory
	rec      *session.Transcript // the loop's Recorder
	snaps    *session.Snapshots
	state    *session.State // nil for a new session
	resumed  bool
	closeFns []func() error

	// subagents are the transcripts of the subagents started so far, so
	// that close closes those still open; guarded by subMu, as subagents
	// start from the Task calls' goroutines.
	subMu     sync.Mutex
	subagents map[string]*session.Transcript // by session id
	closed    bool
}

// close closes the transcript in use (a /resume may have switched it) and
// the subagents', then what the new session leaves to clean.
func (s *openedSession) close() {
	_ = s.rec.Close()
	s.subMu.Lock()
	s.closed = true
	for _, t := range s.subagents {
		_ = t.Close()
	}
	s.subMu.Unlock()
	for _, f := range s.closeFns {
		_ = f()
	}
}

// files is where the session keeps its side files (spilled results, temp).
func (s *openedSession) files() string { return filepath.Join(s.dir, s.id) }

// openSession creates a new session, or reopens the latest (cont) or a
// given one (resume). Notes for the person go to errOut.
func openSession(data, workspace string, cont bool, resume, named string, ep endpoint, errOut io.Writer) (*openedSession, error) {
	dir := session.ProjectDir(data, workspace)
	id := resume
	if id == "" && !cont && named != "" {
		if _, err := os.Stat(filepath.Join(dir, named+".jsonl")); err == nil {
			id = named // it exists: continue it
		}
	}
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
		s.rec = t
		s.snaps = session.NewSnapshots(dir, id)
		s.snaps.Seen(st.Snapshots)
	} else {
		s.id = session.NewID()
		if named != "" {
			s.id = named
		}
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
		s.rec = t
		s.snaps = session.NewSnapshots(dir, s.id)
		side := s.files()
		s.closeFns = append(s.closeFns, func() error {
			if t.Exists() {
				return nil
			}
			// Only the sandbox's temp dir can be there: what a session
			// keeps beside its transcript starts with its first prompt.
			return os.RemoveAll(side)
		})
		return s, nil
	}
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

// stateConversation is the conversation a loaded session continues.
func stateConversation(id, system string, st *session.State) *agent.Conversation {
	if len(st.Messages) == 0 {
		return nil // starts afresh (with the preamble) on the next prompt
	}
	return &agent.Conversation{ID: id, System: system, Messages: st.Messages,
		Persisted: len(st.Messages), Turns: st.Turns, Usage: st.Usage, CostUSD: st.CostUSD}
}
